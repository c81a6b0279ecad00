//! Questions, however they are written: a question mark, a question's word order ("Is our
//! Phoenix work still valid."), a question said as a statement ("I wonder …"), a Chinese
//! particle.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

static QUESTION_START: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:can|could|would|will|shall|should (?:we|i)|do|does|did|is|are|was|were|have|has|what|which|why|how|where|when|who|any idea|anything|wdyt)\b",
    )
});
static QUESTION_END_ZH: LazyLock<Regex> = LazyLock::new(|| re(r"(?:吗|呢|么|吧)[。！!]?$"));

/// "The question is …", "I wonder …": a question in the form of a statement.
static QUESTION_STATEMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:the question is|question:|i wonder|i'?m wondering|i want to (?:know|understand|see)|not sure (?:if|whether)|wondering)\b|^(?:不知道|想知道|问一下)",
    )
});

/// A question by its word order, whatever its last mark ("Is our Phoenix work still valid.",
/// "Shouldn't url be remote"): an auxiliary verb, then its subject.
static AUX_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:is|are|was|were|am|do|does|did|have|has|had|can|could|would|will|shall|should|may|might|isn'?t|aren'?t|wasn'?t|weren'?t|doesn'?t|didn'?t|haven'?t|hasn'?t|can'?t|couldn'?t|wouldn'?t|won'?t|shouldn'?t)\s+([\w'`./-]+)",
    )
});
/// "What is …", "How do we …", "Why does …": a wh-word and an auxiliary.
static WH_AUX: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:what|which|why|how|where|when|who|whose)(?:'s|\s+(?:is|are|was|were|do|does|did|can|could|would|will|should|shall|has|have|many|much|long|often|else|about)\b)|^(?:what|which|whose) \w+(?: \w+)? (?:would|could|should|will|can|do|does|did)\b",
    )
});

/// Does the sentence ask by its word order: an auxiliary followed by its subject (not by a
/// verb, "not" or an adverb: "Must use pnpm", "Do not push", "Can always rebase"), or a
/// wh-word with its auxiliary?
fn asks_by_word_order(text: &str) -> bool {
    if WH_AUX.is_match(text) {
        return true;
    }
    let Some(c) = AUX_FIRST.captures(text) else { return false };
    let next = c[1].trim_matches(|ch: char| !ch.is_alphanumeric()).to_lowercase();
    !next.is_empty()
        && !matches!(
            next.as_str(),
            "not"
                | "never"
                | "always"
                | "also"
                | "just"
                | "only"
                | "still"
                | "be"
                | "now"
                | "then"
                | "usually"
        )
        && !super::super::kinds::is_verb(&next)
}

/// Does the sentence ask by its words (its mark, its word order, a question said as a
/// statement), not merely by a first word that could open a statement as well ("When you
/// deploy, run the migrations first")?
pub(super) fn asks_by_its_words(text: &str) -> bool {
    QUESTION_STATEMENT.is_match(text) || asks_by_word_order(text) || text.trim_end().ends_with(['?', '？'])
}

pub(super) fn is_question(text: &str) -> bool {
    if QUESTION_STATEMENT.is_match(text) || asks_by_word_order(text) {
        return true;
    }
    let t = text.trim_end();
    t.ends_with('?')
        || t.ends_with('？')
        || QUESTION_END_ZH.is_match(t)
        || (QUESTION_START.is_match(t) && !t.ends_with('.'))
}
