//! Reactions to the moment: what the user says to the agent about its last answer or about
//! their own day, not about the project.
//!
//! "I like Option C", "1 - yeah, 2 - definitely, go for it", "you described my nonsense really
//! eloquently", "it doesn't really matter", "we've added tests to setup_test.go", "brb": each
//! is true when said and useless when loaded into the next session, which does not see the
//! options, the answer or the afternoon they were about. The choice itself, where it matters,
//! is in what the agent then did and what the user says next.
//!
//! The class of sentence each rule serves is named on it; none looks for a project's words.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

/// What kind of reaction a sentence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    /// Picking or approving one of the agent's proposals, without saying what it was.
    Approval,
    /// Praise or blame of the agent's last answer.
    Feedback,
    /// "It doesn't really matter": no preference to keep.
    Indifference,
    /// A report of work just done ("we've added tests to …").
    WorkReport,
    /// The user stepping away ("brb", "afk").
    Away,
}

/// Numbered answers ("1 - yeah, 2 - definitely") and choices named by their label only.
static APPROVAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*\d+\s*[-:.)]\s*(?:yes|yeah|yep|ok|okay|sure|definitely|no|nope|agreed|correct|right)\b|^(?:(?:ok|okay|yes|yeah|sure|great|perfect|cool|nice|good)[,.!]?\s+)*(?:i|we)\s*(?:really\s+|actually\s+)?(?:like|love|prefer|'d go with|would go with|go with|pick|choose|agree with|am fine with|'m fine with|'m ok with)\s+(?:the\s+|your\s+)?(?:\w+\s+)?(?:option|approach|idea|proposal|plan|suggestion|variant|version|alternative|first one|second one|third one|last one|latter|former)\b[\w\s,]{0,12}[.!]?$|^(?:option|variant|approach|plan)\s+[A-Z0-9]\b[\w\s,]{0,40}[.!]?$|\bgo for it\b|^(?:sounds|looks)\s+(?:good|great|fine)\b|^lgtm\b|\b(?:is|are|was) (?:fine|ok|okay|good enough|perfect)[.!]*$",
    )
});
/// The agent's answer judged: "you described it really eloquently", "you nailed it".
static FEEDBACK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\byou(?:'ve| have)?\s+(?:described|explained|wrote|summari[sz]ed|nailed|captured|understood|got it|did (?:a|it|that|this|great|well))\b|^i (?:really |quite )?(?:like|love|liked|loved|appreciate|hate|dislike) (?:that|how|the way|what you)\b",
    )
});
static INDIFFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:ok|okay|honestly|tbh)[,.]?\s+)?(?:it|that|this)\s+(?:doesn'?t|does not|won'?t)\s+(?:really\s+)?matter\b|^i\s+don'?t\s+(?:really\s+)?(?:care|mind)\b|^(?:either|both)\s+(?:one\s+)?(?:is|are|works?)\s+(?:fine|ok)\b|^whatever\b|^no (?:strong )?preference\b",
    )
});
/// Work just done, in the present perfect. A change of the project's tools ("we've moved to
/// pnpm") is an update, not a report: those verbs are not here.
static WORK_REPORT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:we|i)(?:'ve|\s+have)\s+(?:just\s+|now\s+|already\s+|also\s+)?(?:added|changed|implemented|fixed|made|removed|updated|created|written|built|finished|merged|pushed|tried|tested|refactored|deleted|renamed|reverted|committed)\b",
    )
});
static AWAY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?:\w+[.!,]?\s+)?(?:brb|afk|gtg|g2g|be right back|back in \d+|gotta go|got to go)\b")
});

/// The reaction `sentence` is, if it is one.
pub fn reaction(sentence: &str) -> Option<Reaction> {
    let s = sentence.trim();
    if AWAY.is_match(s) {
        Some(Reaction::Away)
    } else if APPROVAL.is_match(s) {
        Some(Reaction::Approval)
    } else if FEEDBACK.is_match(s) {
        Some(Reaction::Feedback)
    } else if INDIFFERENCE.is_match(s) {
        Some(Reaction::Indifference)
    } else if WORK_REPORT.is_match(s) {
        Some(Reaction::WorkReport)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reactions_are_recognised_by_their_form() {
        let cases = [
            ("1 - yeah, 2 - definitely, go for it", Reaction::Approval),
            ("I like Option C", Reaction::Approval),
            ("I like option 3, 2", Reaction::Approval),
            ("Option 2, detail view only for now", Reaction::Approval),
            ("Ok, we'd go with the second approach.", Reaction::Approval),
            ("Sounds good, ship it.", Reaction::Approval),
            (
                "The user likes the CRDT idea and generally you described my nonsense really eloquently",
                Reaction::Feedback,
            ),
            ("It doesn't really matter, to be honest", Reaction::Indifference),
            ("I don't really care which one.", Reaction::Indifference),
            ("In this branch we've added tests to setup_test.go", Reaction::WorkReport),
            ("I have just pushed the fix to the branch.", Reaction::WorkReport),
            ("yesss. brb my dog needs a walk", Reaction::Away),
        ];
        for (said, want) in cases {
            assert_eq!(reaction(said), Some(want), "{said}");
        }
    }

    #[test]
    fn statements_about_the_project_are_not_reactions() {
        for said in [
            "For the website design, I actually prefer the visual appearance of direction A. It's a lot cleaner",
            "We've moved the docs from Netlify to Cloudflare Pages.",
            "I prefer short commit messages in the imperative.",
            "Use prefix 'rwr/' for the branch name",
            "The option --local-dev installs the wrapper script.",
            "Internal changes are never breaking changes, only configuration behaviour is",
        ] {
            assert_eq!(reaction(said), None, "{said}");
        }
    }
}
