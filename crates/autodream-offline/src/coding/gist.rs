//! The gist of a fact: what of it an index hook can say within its room.
//!
//! MEMORY.md is loaded into every session and each topic's line in it is short; a fact too
//! long for it loses first what a reader can do without (an aside in parentheses, a reason,
//! a second clause) and is cut at a word only when nothing else fits.

use std::sync::LazyLock;

use regex::Regex;

/// The most telling part of a fact within `max_chars`, for an index hook: the whole sentence
/// when it fits, else the sentence without its asides in parentheses, else its longest leading
/// run of whole clauses (before a reason or a second clause), else the sentence without the
/// remark after its last comma, else a cut at a word boundary marked with "…".
pub fn gist(text: &str, max_chars: usize) -> String {
    let text = text.trim().trim_end_matches(['.', '。']);
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    // An aside in the middle ("Evolution checklist (Section 4 of protocol) must be completed
    // …") goes whole: cut at its parenthesis, the sentence would lose its verb.
    let bare = without_asides(text);
    if bare.chars().count() <= max_chars {
        return bare;
    }
    let text = bare.as_str();
    let mut best: Option<&str> = None;
    // An aside in parentheses and a reason are what an index hook can do without.
    // So is a second clause ("Plain C99 + raylib 5, single Makefile, and we ship …").
    for cut in
        ["; ", " — ", ", so ", ", because ", " because ", " (", ". ", ", and ", ", but ", "；", "。", "，"]
    {
        for (pos, _) in text.match_indices(cut) {
            let head = &text[..pos];
            // Inside a code span ("`xcodebuild test ... -only-testing:X`") nothing is a clause.
            if !head.matches('`').count().is_multiple_of(2) {
                continue;
            }
            // Before an aside that the sentence goes on after ("Evolution checklist (…) must
            // be completed"), the head is no clause.
            if cut == " (" && !aside_ends_a_clause(&text[pos..]) {
                continue;
            }
            let n = head.chars().count();
            if n <= max_chars && n >= 12 && best.is_none_or(|b| n > b.chars().count()) {
                best = Some(head);
            }
        }
    }
    // A list of commands ("Verify changes with `a`, `b`, `c`") is cut after a whole one.
    if best.is_none() {
        for (pos, _) in text.match_indices("`, `") {
            let head = &text[..=pos];
            let n = head.chars().count();
            if n <= max_chars && n >= 12 && head.matches('`').count().is_multiple_of(2) {
                best = Some(head);
            }
        }
    }
    // "Replace our expectations with literal multiline strings, nice and obvious": what a
    // comma sets off after a whole clause is a remark on it. Not after a clause that leads
    // ("If the error is silent, print nothing": that one says nothing alone), and not a
    // clause ("…, the nightly jobs now run as CronJobs": news of its own, cut at a word).
    if best.is_none()
        && !LEADING_CLAUSE.is_match(text)
        && let Some((head, remark)) = text.rsplit_once(", ")
        && is_a_remark(remark)
        && head.chars().count() <= max_chars
        && head.split_whitespace().count() >= 4
        && head.matches('`').count().is_multiple_of(2)
        && head.matches('(').count() == head.matches(')').count()
    {
        best = Some(head);
    }
    if let Some(b) = best {
        return b.to_string();
    }
    let mut out = String::new();
    for word in text.split(' ') {
        if out.chars().count() + word.chars().count() + 2 > max_chars {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        out = text.chars().take(max_chars.saturating_sub(1)).collect();
    }
    // "… `xcodebuild build`…", not "… `xcodebuild build`,…".
    out.truncate(out.trim_end_matches([',', ';', ':']).len());
    out.push('…');
    out
}

/// A sentence that opens with a clause leading the one it depends on.
static LEADING_CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:if|when|whenever|unless|although|though|while|since|after|before|once|because|as long as|until|given|for|in|on|with|without|to)\b")
        .expect("valid regex")
});

/// A few plain words with no verb in them: "nice and obvious", "for now", "as usual".
fn is_a_remark(words: &str) -> bool {
    // A name, a value or a path after the comma is news, not a remark.
    let words: Vec<&str> = words.split_whitespace().map(|w| w.trim_end_matches(['.', '!', ')'])).collect();
    if !words.iter().all(|w| w.chars().all(|c| c.is_ascii_lowercase()) && crate::text::is_known_word(w)) {
        return false;
    }
    let verb =
        |w: &str| super::kinds::is_verb(w) || crate::text::stems(w).iter().any(|s| super::kinds::is_verb(s));
    (1..=5).contains(&words.len()) && words.iter().all(|w| !verb(w) && !opens_a_clause(w))
}

/// Words that a clause has and a remark has not: a subject, or a verb's finite helper.
fn opens_a_clause(word: &str) -> bool {
    const SUBJECTS: &[&str] =
        &["the", "a", "an", "this", "that", "these", "those", "it", "we", "they", "he", "she", "i", "you"];
    SUBJECTS.contains(&word) || super::orders::FINITE.contains(&word) || matches!(word, "be" | "been")
}

/// Does the aside that `from` opens end the text or a clause ("(…)", "(…), …", "(…); …")?
fn aside_ends_a_clause(from: &str) -> bool {
    from.find(')').is_none_or(|close| {
        let after = from[close + 1..].trim_start();
        after.is_empty() || after.starts_with([',', ';', '.', ':', '—'])
    })
}

/// The text without its asides in parentheses (" (Section 4 of protocol)"); one inside a
/// code span, never closed, or holding the date the engine wrote for a relative one ("last
/// Thursday's (2026-04-23) SEV2") stays.
fn without_asides(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(" (") {
        let head = &rest[..open];
        let in_code = !(out.matches('`').count() + head.matches('`').count()).is_multiple_of(2);
        let Some(close) = rest[open..].find(')').map(|c| open + c) else { break };
        let aside = &rest[open + 2..close];
        if in_code
            || aside.contains(['(', '`'])
            || !crate::dates::resolved_dates(&format!("({aside})")).is_empty()
        {
            out.push_str(&rest[..open + 2]);
            rest = &rest[open + 2..];
            continue;
        }
        out.push_str(head);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gist_leaves_out_the_aside_and_the_reason() {
        assert_eq!(
            gist("Use table driven tests where possible (also for already created tests in e2e)", 45),
            "Use table driven tests where possible"
        );
        assert_eq!(
            gist(
                "If the function is self-explanatory, no comment is needed at all because the signature and the code read naturally",
                80
            ),
            "If the function is self-explanatory, no comment is needed at all"
        );
        assert_eq!(
            gist("Plain C99 + raylib 5, single Makefile, and we ship a web build via emscripten", 60),
            "Plain C99 + raylib 5, single Makefile"
        );
        // An aside in the middle goes whole, and the sentence keeps its verb.
        assert_eq!(
            gist("Evolution checklist (Section 4 of protocol) must be completed for every schema change", 70),
            "Evolution checklist must be completed for every schema change"
        );
        // The absolute date beside a relative one is no aside.
        assert_eq!(
            gist(
                "Postmortem drafted for last Thursday's (2026-04-23) double-charge SEV2; the payments team owns it",
                75
            ),
            "Postmortem drafted for last Thursday's (2026-04-23) double-charge SEV2"
        );
        // With no room for it whole, the sentence is cut at a word, not before its aside.
        assert_eq!(
            gist("Evolution checklist (Section 4 of protocol) must be completed for every schema change", 40),
            "Evolution checklist must be completed…"
        );
        assert_eq!(
            gist("Run `make (all)` first (it builds the web export too) before any release", 50),
            "Run `make (all)` first before any release"
        );
        // A remark set off by a comma goes when nothing else fits; a leading clause stays whole.
        assert_eq!(
            gist("Replace our expectations with literal multiline strings, nice and obvious", 70),
            "Replace our expectations with literal multiline strings"
        );
        assert_eq!(
            gist("batch01 is being decommissioned, the nightly jobs now run as CronJobs in `batch`", 60),
            "batch01 is being decommissioned, the nightly jobs now run…"
        );
        assert_eq!(
            gist(
                "The web-platform team was renamed to frontend-infra, CODEOWNERS now says @atlas/frontend-infra",
                84
            ),
            "The web-platform team was renamed to frontend-infra, CODEOWNERS now says…"
        );
        assert_eq!(
            gist("If the error is a cli.SilentError, do not print anything at all for it", 50),
            "If the error is a cli.SilentError, do not print…"
        );
        // A clause mark inside a code span is the command's, not a boundary.
        assert_eq!(
            gist(
                "Verify changes with `xcodebuild test ... -only-testing:VaultTests`, `xcodebuild build`, `npm run build`",
                90
            ),
            "Verify changes with `xcodebuild test ... -only-testing:VaultTests`, `xcodebuild build`"
        );
    }
}
