//! Lists the user declares standing.
//!
//! "My engineering preferences (use these to guide your recommendations):" over a bulleted
//! list, "Our conventions:", "## House rules": the lead says, in the user's words, that what
//! follows holds for all the work, not for this task. Such a list usually comes inside a long
//! prompt the user keeps and sends again (a review or planning prompt, with sections of
//! orders around it), and a long turn with markup and many sentences is the form of pasted
//! text: the confidence of [`super::confidence`] weighs every sentence of it down. The items
//! of a declared list are not weighed by their turn's form, and the declaration counts as
//! evidence that they stand; each item still goes through the rules of [`super::durable`]
//! (an order or a question in the list stays what it is).
//!
//! Only a lead that owns the list ("my", "our", "house", "team", "project", "coding", …) or is
//! the bare name of it ("Conventions:") declares it: "Validation rules:" or "## Layout
//! conventions" describe a part of the product, and "Constraints" inside a task's prompt are
//! the task's.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

/// A line that declares the list under it the user's standing statements.
static LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:#{1,6}\s*)?(?:\*\*)?(?:(?:my|our|the|house|team|project(?:'s)?|personal|general|global|coding|code|engineering|working|development|dev)\s+){0,3}(?:preferences|principles|conventions|guidelines|standards|rules|ground rules|non-negotiables|working agreements)(?:\s*\([^()]{0,100}\))?\s*(?:\*\*)?\s*:?\s*(?:\*\*)?$",
    )
});
/// A bare name with no owner: it declares only as a heading or a line of its own with a colon.
static OWNED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:#{1,6}\s*)?(?:\*\*)?(?:my|our|house|team|project|personal|general|global|coding|code|engineering|working|development|dev)\b",
    )
});
/// Characters that take no room and come with text copied from documents and chats.
const INVISIBLE: &[char] = &['\u{feff}', '\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}'];

fn visible(line: &str) -> String {
    without_invisible(line).trim().to_string()
}

/// The text without characters that take no room (a byte-order mark before a bullet hides the
/// bullet from every pattern that reads lines).
pub fn without_invisible(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(INVISIBLE) {
        std::borrow::Cow::Owned(text.chars().filter(|c| !INVISIBLE.contains(c)).collect())
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Does this line declare the list under it standing?
pub fn is_lead(line: &str) -> bool {
    let line = visible(line);
    let line = line.trim_end_matches('.');
    LEAD.is_match(line) && (OWNED.is_match(line) || line.ends_with(':') || line.starts_with('#'))
}

/// The names a declaring lead can give its list: a text without one declares nothing, and is
/// not read line by line (every user turn passes through here).
static LIST_NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)preferences|principles|conventions|guidelines|standards|rules|non-negotiables|agreements")
});

/// The items of every declared list in the user's text, without their bullets.
pub fn items(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !LIST_NAME.is_match(text) {
        return out;
    }
    let mut open = false;
    for line in text.lines() {
        let line = visible(line);
        if line.is_empty() {
            continue;
        }
        if is_lead(&line) {
            open = true;
            continue;
        }
        if !open {
            continue;
        }
        match crate::text::LIST_ITEM.find(&line) {
            Some(bullet) => {
                let item = line[bullet.end()..].trim().trim_end_matches(['.', ';']);
                if !item.is_empty() {
                    out.push(item.to_string());
                }
            }
            None => open = false,
        }
    }
    out
}

/// Is the sentence one of the items, or a sentence of one? An item or a sentence of one word
/// ("- Tests") could be found in any sentence of the turn, and marks none.
pub fn is_item(sentence: &str, items: &[String]) -> bool {
    let s = visible(sentence);
    let s = s.trim_start_matches(['•', '-', '*', ' ']).trim_end_matches(['.', ';']).trim();
    s.split_whitespace().count() >= 2
        && items
            .iter()
            .filter(|item| item.split_whitespace().count() >= 2)
            .any(|item| item.contains(s) || s.contains(item.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = "Review this plan thoroughly before making any code changes.\n\nMy engineering preferences (use these to guide your recommendations):\n- \u{feff}\u{feff}DRY is important-flag repetition aggressively.\n\u{feff}\u{feff}- Well-tested code is non-negotiable; I'd rather have too many tests than too few.\n•Bias toward explicit over clever.\n\n## 1. Architecture review\nEvaluate:\n- Overall system design and component boundaries.\n";

    #[test]
    fn the_items_under_a_lead_that_owns_them_are_declared() {
        assert_eq!(
            items(PROMPT),
            [
                "DRY is important-flag repetition aggressively",
                "Well-tested code is non-negotiable; I'd rather have too many tests than too few",
                "Bias toward explicit over clever",
            ]
        );
        assert!(is_item("Well-tested code is non-negotiable;", &items(PROMPT)));
        assert!(is_item("•DRY is important-flag repetition aggressively.", &items(PROMPT)));
        assert!(!is_item("Overall system design and component boundaries.", &items(PROMPT)));
        let one_word = items("Our conventions:\n- Tests\n- Use pnpm, never npm\n");
        assert!(!is_item("Tests are flaky on CI today.", &one_word));
        assert!(is_item("Use pnpm, never npm.", &one_word));
    }

    #[test]
    fn leads_that_declare_and_leads_that_describe() {
        for lead in [
            "My engineering preferences (use these to guide your recommendations):",
            "Our conventions:",
            "## House rules",
            "**Team guidelines:**",
            "Conventions:",
            "Project rules",
        ] {
            assert!(is_lead(lead), "{lead}");
        }
        for lead in [
            "Validation rules:",
            "## Layout Conventions",
            "Constraints and quality gates",
            "Rules removed (B1, no replacement):",
            "These are the rules we follow when the build breaks",
            "Evaluate:",
        ] {
            assert!(!is_lead(lead), "{lead}");
        }
    }

    #[test]
    fn a_list_ends_at_the_first_line_that_is_no_item() {
        let text = "Our conventions:\n- Use pnpm, never npm\nNow fix the login page.\n- Add a test for it\n";
        assert_eq!(items(text), ["Use pnpm, never npm"]);
    }
}
