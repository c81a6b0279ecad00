//! What is cut off the end of a sentence before it is judged: the order or the doubt of the
//! moment that trails a statement. "We also no longer publish to the Windows Store, so we
//! need to remove the workflow" keeps the change and leaves the task.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

use super::kinds::word_count;
use super::orders::{STANDING_IMPERATIVE, turns_to_order};
use crate::text::is_cjk;

/// A request tacked onto the end of a statement ("…，你先读一下", "…, can you check?",
/// "…, so we need to do an analysis of …"), or a doubt ("…, but maybe there is …"): the
/// statement is the fact, the tail is the task or the hedge of the moment.
static TRAILING_REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:[，,]\s*(?:你先|你|帮我|然后看看|然后|顺便|麻烦)[^，,]*)+[。.]?$|,\s*(?:can|could) you\b[^,]*$|,\s*please\b[^,]*$|,\s*so (?:please|can you|could you|pls)\b.*$|,\s*(?:look|check|see|take a look|have a look)\b[^,]*$|,\s*so (?:we|you|i) (?:need|have|will need|'ll need|should) to\b[^,]*$|,\s*but (?:maybe|perhaps|possibly)\b.*$|,\s*(?:so |and |then |now )?let'?s\b.*$",
    )
});

/// ", we should record that field too …": work for the next step after a statement. "…, we
/// should never …" sets a limit and stays.
static TRAILING_SHOULD: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i),\s*(?:so |and )?(?:we|you) (?:should|need to|have to|must) (\w+)\b.*$"));

/// "Now we use CloudFront for the DNS, does rsync still work over ssh?": a statement and then a
/// question about it. The statement stays; the question goes.
static TRAILING_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i),\s*(?:but |so |and )?(?:does|do|is|are|can|could|will|would|should|did|has|have) (?:it|this|that|there|we|you|i|the|rsync|\w+) [^,]*\?\s*$",
    )
});

/// "We don't have `Entire-Session` anymore so this is obsolete": the statement, then a verdict
/// on the thing at hand. The statement stays; what "this" was is not in memory.
static TRAILING_VERDICT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i),?\s+so (?:this|that|it)(?:'s| is| was| are| becomes) (?:now )?\w+\s*[.!]?$"));

pub fn trim_trailing_requests(text: &str) -> String {
    // "We're bumping MSRV to 1.80 — update rust-version in Cargo.toml": the change stays, the
    // order after the dash or semicolon goes.
    static SEPARATOR: LazyLock<Regex> = LazyLock::new(|| re(r"\s+[—–]\s+|;\s+"));
    for (n, m) in SEPARATOR.find_iter(text).enumerate() {
        // "metric definitions — net revenue etc — go through Hannah": the second dash closes an
        // aside; what follows it is the sentence going on.
        if n % 2 == 1 && m.as_str().trim() != ";" {
            continue;
        }
        // "(it's a submodule, don't edit it directly — override in layouts/)": inside an
        // aside, the order after the dash is the aside's own.
        let head = &text[..m.start()];
        if head.matches('(').count() > head.matches(')').count() {
            continue;
        }
        let rest = text[m.end()..].trim_start();
        if turns_to_order(rest) && !STANDING_IMPERATIVE.is_match(rest) && word_count(&text[..m.start()]) >= 4
        {
            return trim_trailing_requests(&format!(
                "{}.",
                text[..m.start()].trim_end_matches(['.', ',', ';'])
            ));
        }
    }
    if let Some(m) = TRAILING_VERDICT.find(text).filter(|m| word_count(&text[..m.start()]) >= 4) {
        return format!("{}.", text[..m.start()].trim_end().trim_end_matches(','));
    }
    if let Some(m) = TRAILING_QUESTION.find(text).filter(|m| word_count(&text[..m.start()]) >= 4) {
        return format!("{}.", text[..m.start()].trim_end());
    }
    if let Some(c) = TRAILING_SHOULD.captures(text)
        && !matches!(c[1].to_lowercase().as_str(), "not" | "never" | "always" | "be")
        && let Some(m) = c.get(0).filter(|m| word_count(&text[..m.start()]) >= 4)
    {
        let head = text[..m.start()].trim_end();
        return format!("{head}.");
    }
    // "Priya (our PM) signs off on anything UI-facing, so keep the template change minimal":
    // what that means for the task at hand goes; "…, so use pnpm everywhere" and "…, so run
    // turbo instead of nx affected" are the way things are done now.
    static INSTEAD: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:instead|rather than)\b"));
    static SO_ORDER: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i),\s*so (?:keep|make|add|fix|update|leave|put|move|run|write|change|remove|check|double-check|go|ship)\b[^,]*[.!]?$",
        )
    });
    if let Some(m) = SO_ORDER.find(text)
        && word_count(&text[..m.start()]) >= 4
        && !super::kinds::STRONG_STANDING.is_match(m.as_str())
        && !INSTEAD.is_match(m.as_str())
    {
        return format!("{}.", text[..m.start()].trim_end());
    }
    match TRAILING_REQUEST.find(text) {
        Some(m) if m.start() > 0 && word_count(&text[..m.start()]) >= 4 => {
            let head = text[..m.start()].trim_end();
            let stop = if head.chars().any(is_cjk) { "。" } else { "." };
            format!("{head}{stop}")
        }
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_task_and_the_doubt_after_a_statement_are_cut() {
        for (said, kept) in [
            (
                "Priya (our PM) signs off on anything UI-facing, so keep the template change minimal",
                "Priya (our PM) signs off on anything UI-facing.",
            ),
            (
                "I only want to keep MSIX as of now, so we need to do an analysis of what needs to be removed entirely.",
                "I only want to keep MSIX as of now.",
            ),
            (
                "Ideally, we only point in the copilot-instructions.md to AGENTS.md, but maybe there is information that needs to move first.",
                "Ideally, we only point in the copilot-instructions.md to AGENTS.md.",
            ),
            (
                "We're bumping MSRV to 1.80 — update rust-version in Cargo.toml.",
                "We're bumping MSRV to 1.80.",
            ),
        ] {
            assert_eq!(trim_trailing_requests(said), kept);
        }
        assert_eq!(
            trim_trailing_requests(
                "We store transcript_path in the session state, we should record it in the metadata too."
            ),
            "We store transcript_path in the session state."
        );
        assert_eq!(
            trim_trailing_requests(
                "Now we use CloudFront for the DNS of the map, does rsync still work over ssh?"
            ),
            "Now we use CloudFront for the DNS of the map."
        );
        let inside = "This is my blog, Hugo with the PaperMod theme (a git submodule, don't edit it — override in layouts/).";
        assert_eq!(trim_trailing_requests(inside), inside);
        let aside = "Metric definitions — net revenue etc — go through Hannah, she's the analytics lead.";
        assert_eq!(trim_trailing_requests(aside), aside);
        assert_eq!(
            trim_trailing_requests("We don't have `Entire-Session` anymore so this is obsolete."),
            "We don't have `Entire-Session` anymore."
        );
        let limit = "Migrations run from the pipeline, we should never run them by hand.";
        assert_eq!(trim_trailing_requests(limit), limit);
        // A reason is not a task: "so that" and "so it" stay.
        let reason = "Keep the lockfile in git, so that CI installs the same versions.";
        assert_eq!(trim_trailing_requests(reason), reason);
        let rule = "We moved the monorepo to pnpm, so use pnpm everywhere.";
        assert_eq!(trim_trailing_requests(rule), rule);
        let way = "We migrated from Nx to Turborepo, so run `turbo run lint` instead of nx affected.";
        assert_eq!(trim_trailing_requests(way), way);
    }
}
