//! Completions: a sentence the rules drop when it stands alone, but that completes the sentence
//! kept right before it in the same turn, and goes into the same line.
//!
//! | after a kept … | the sentence | why it belongs there |
//! |---|---|---|
//! | statement | "model_validate, model_dump, etc." | a bare list of code names gives its examples |
//! | rule | "Too much overhead." | a few words of reason say why it holds |
//! | prohibition | "Fix the actual problem of migrations not running from the CD pipeline." | the order names the way to take instead |
//! | end of support | "I only want to keep MSIX as of now, so …" | what stays supported is the other half of the decision |
//!
//! Alone, each is chatter, an order for the task or a wish of the moment; only the sentence
//! before it says what it is about.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

use super::durable::{self, Dropped};
use super::{memo, orders};

/// A bare list of code names: "model_validate, model_dump, etc.", "`fmt`, `lint`".
static NAMES_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:`?\w*(?:[a-z][A-Z]|_|\(\))[\w()]*`?,\s*)+(?:etc\.?|`?\w*(?:[a-z][A-Z]|_|\(\))[\w()]*`?\.?)$")
});

/// A reason in a few words, with nothing else: "Too much overhead.", "Too flaky."
static TERSE_REASON: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:it'?s |that'?s )?(?:way )?too (?:much|many|slow|noisy|expensive|fragile|flaky|verbose|complex|complicated|risky|heavy|brittle|costly)\b[\w\s-]{0,30}[.!]?$",
    )
});

/// What the sentence adds, and the test the line before it must pass to take it.
pub(super) struct Completion {
    pub text: String,
    pub fits: fn(&str) -> bool,
}

/// The part of a dropped sentence that completes the kept one before it, if it is one of the
/// forms above; `None` when it is judged alone.
pub(super) fn the_one_before(why: Dropped, text: &str) -> Option<Completion> {
    let trimmed = text.trim();
    if why == Dropped::Chatter && (NAMES_ONLY.is_match(trimmed) || TERSE_REASON.is_match(trimmed)) {
        return Some(Completion { text: trimmed.to_string(), fits: |_| true });
    }
    if why == Dropped::Request && orders::names_the_way_instead(text) {
        let (order, _) = durable::without_lead(text);
        return Some(Completion { text: memo::terminate(&order), fits: orders::prohibits });
    }
    // Never a secret or a question: only a statement dropped for what it says.
    if !matches!(why, Dropped::NotDurable | Dropped::Status | Dropped::Request) {
        return None;
    }
    orders::what_stays_supported(trimmed)
        .map(|stays| Completion { text: memo::terminate(stays), fits: orders::ends_support })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn completion(why: Dropped, text: &str) -> Option<String> {
        the_one_before(why, text).map(|c| c.text)
    }

    #[test]
    fn what_stays_supported_completes_the_end_of_support_before_it() {
        let c = the_one_before(
            Dropped::NotDurable,
            "I only want to keep MSIX as of now, so we need to do an analysis of what needs to be removed entirely.",
        )
        .expect("a completion");
        assert_eq!(c.text, "I only want to keep MSIX as of now.");
        assert!((c.fits)("Drop support for the MSI Windows package."));
        // Only after an end of support: after any other line it is a wish of the moment.
        assert!(!(c.fits)("Use pnpm, never npm."));
        assert_eq!(
            completion(Dropped::NotDurable, "We'll only keep the arm64 build.").as_deref(),
            Some("We'll only keep the arm64 build.")
        );
        assert_eq!(completion(Dropped::NotDurable, "I only want the summary, not the diff."), None);
        assert_eq!(completion(Dropped::NotDurable, "Keep it simple."), None);
        // A secret or a question is never joined, whatever it says stays.
        assert_eq!(completion(Dropped::Secret, "We'll only keep the key sk-live-4f9a for now."), None);
        assert_eq!(completion(Dropped::Question, "I only want to keep MSIX?"), None);
    }

    #[test]
    fn examples_reasons_and_the_way_instead_complete_the_line_before() {
        assert_eq!(
            completion(Dropped::Chatter, " model_validate, model_dump, etc. ").as_deref(),
            Some("model_validate, model_dump, etc.")
        );
        assert_eq!(completion(Dropped::Chatter, "Too much overhead.").as_deref(), Some("Too much overhead."));
        // A reason is chatter alone; said as an order it is not one of these.
        assert_eq!(completion(Dropped::Request, "Too much overhead."), None);
        let c = the_one_before(
            Dropped::Request,
            "Fix the actual problem of migrations not running correctly from the CD pipeline",
        )
        .expect("a completion");
        assert_eq!(
            c.text,
            "Fix the actual problem of migrations not running correctly from the CD pipeline."
        );
        assert!((c.fits)("Dont just push through the migrations by executing them directly on the server."));
        assert!(!(c.fits)("The grafana dashboard is deployed here."));
    }
}
