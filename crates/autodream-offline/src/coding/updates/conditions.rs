//! A rule for a case, said again for the same case with another outcome.
//!
//! "If states are idle AND down, then set the state to idle", then, a quarter of an hour later,
//! "Correction: If a node is idle + down then mark it as down". The case ("idle and down") is
//! the slot and the outcome its value: the newer rule replaces the older, whether or not it says
//! it corrects it, as a new value of any slot does ([`super::supersedes`]). The two cases must
//! name the same things (most of the words of the shorter case are in the other), so "if the
//! build fails, …" never replaces "if the deploy fails, …"; and the outcome must differ, or
//! the two are one rule said twice.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

/// "If …, then …", "When … then …", "If …, …", after a lead that corrects.
static CONDITIONAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^((?:correction|update|actually|no|sorry)\s*[:,.!-]*\s*)?(?:if|when|whenever)\s+(.+?)(?:,?\s+then\s+|,\s+)(.+)$",
    )
});

/// Words that name nothing in a case or an outcome. ("down", "off", "out" do: "a node is
/// idle and down", so the lexicon's function words are not used here.)
const UNNAMING: &[&str] = &[
    "the", "and", "are", "was", "were", "then", "that", "this", "these", "those", "with", "for", "from",
    "into", "its", "our", "your", "their", "not", "but", "any", "all", "has", "have", "had", "been", "being",
    "there", "also", "just", "set", "mark", "make", "use", "should", "must", "will", "would", "can", "could",
    "always", "never",
];

/// The words a case or an outcome names, lower-cased and without a plural "s", nothing shorter
/// than three letters.
fn named(text: &str) -> BTreeSet<String> {
    crate::text::words(text)
        .into_iter()
        .map(|w| w.text.to_lowercase())
        .filter(|w| w.chars().count() >= 3 && !UNNAMING.contains(&w.as_str()))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        })
        .collect()
}

/// One more rule for the case, beside the older: "…, also post in #releases".
static ADDS: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:also|too|as well|in addition)\b"));

/// A rule said as a condition: whether it says it corrects, its case, its outcome.
struct Conditional {
    corrects: bool,
    case: BTreeSet<String>,
    outcome: BTreeSet<String>,
}

fn conditional(text: &str) -> Option<Conditional> {
    let c = CONDITIONAL.captures(text.trim())?;
    Some(Conditional { corrects: c.get(1).is_some(), case: named(&c[2]), outcome: named(&c[3]) })
}

/// Does `new` give the case of the rule `old` another outcome? Two rules for one case can
/// both stand ("notify #ci" and "do not merge"): the newer replaces the older only when it
/// says it corrects, or when both outcomes speak of the same thing ("publish to npm with the
/// beta tag" after "publish to npm as latest").
pub fn reruled(new: &str, old: &str) -> bool {
    let (Some(new_rule), Some(old_rule)) = (conditional(new), conditional(old)) else {
        return false;
    };
    let smaller = new_rule.case.len().min(old_rule.case.len());
    let shared = new_rule.case.intersection(&old_rule.case).count();
    let same_case = smaller >= 2 && shared * 3 >= smaller * 2;
    let same_thing = new_rule.corrects || new_rule.outcome.intersection(&old_rule.outcome).next().is_some();
    same_case && same_thing && !ADDS.is_match(new) && !new_rule.outcome.is_subset(&old_rule.outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_case_with_another_outcome_replaces_the_rule() {
        assert!(reruled(
            "Correction: If a node is idle + down then mark it as down",
            "If states are idle AND down, then set the state to idle."
        ));
        assert!(reruled(
            "When a release tag is pushed, publish to npm with the beta tag.",
            "When a release tag is pushed, publish to npm as latest."
        ));
    }

    #[test]
    fn another_case_or_the_same_outcome_is_no_replacement() {
        // Another case.
        assert!(!reruled(
            "If the deploy fails, roll back at once.",
            "If the build fails, post in #ci and retry once."
        ));
        // The same rule said again.
        assert!(!reruled("If the tests fail, do not commit.", "If tests fail, then do not commit."));
        // Another rule for the same case, beside the older.
        assert!(!reruled(
            "When a release tag is pushed, post the notes in #releases.",
            "When a release tag is pushed, publish to npm as latest."
        ));
        assert!(!reruled(
            "When a release tag is pushed, also publish the docs to npm.",
            "When a release tag is pushed, publish to npm as latest."
        ));
        // Not a rule for a case.
        assert!(!reruled(
            "Mark a node that is idle and down as down.",
            "If states are idle AND down, then set the state to idle."
        ));
        // A case of one word is too little to tell it is the same case.
        assert!(!reruled("If yes, use the tarball.", "If yes, use the deb package."));
    }
}
