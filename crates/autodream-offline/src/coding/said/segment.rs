//! Segmentation: a turn's prose cut into the sentences judged one by one.
//!
//! A sentence ends at its stop, and also where it turns to an order after a dash ("We are
//! back - implement both") or after a comma before a capitalised verb (review findings glued
//! on one line). A tag question ("Or not?") goes with the statement it asks about; what the
//! speaker takes back ("never mind", "算了当我没说") goes. A person's pronoun that opens a
//! sentence takes the name the sentence before gives ("… for Lena to check. She reviews every
//! UI PR" → "Lena reviews every UI PR"), so the sentence is judged as what it says.

use std::sync::LazyLock;

use regex::Regex;

use crate::coding::{kinds, orders, pointers, vocabulary};

/// The sentences of a turn's prose, in order.
pub(super) fn sentences(prose: &str) -> Vec<String> {
    let mut sentences: Vec<String> = Vec::new();
    for sentence in crate::text::split_sentences(prose).into_iter().flat_map(split_before_order) {
        // "…, it can be a map we provide. Or not?": a tag question asks about the statement
        // before it, which is then a question too.
        match sentences.last_mut() {
            Some(last) if TAG_QUESTION_RE.is_match(sentence) => {
                last.push(' ');
                last.push_str(sentence);
            }
            _ => sentences.push(sentence.to_string()),
        }
    }
    let mut sentences = without_retracted(sentences);
    for i in 1..sentences.len() {
        if let Some(Some(named)) =
            pointers::with_the_person_named_before(&sentences[i], Some(&sentences[i - 1]))
        {
            sentences[i] = named;
        }
    }
    sentences
}

/// "… never mind, forget I said that", "算了当我没说": the speaker takes back what they just
/// said.
static RETRACTION_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:never ?mind|scratch that)\s*(?:[,.;:!…—–-]+|$)\s*|^(?:forget|ignore) (?:what )?i (?:just )?said(?: that| before| above)?\b[,.;:!…—–-]*\s*|^forget (?:about )?that\s*(?:[,.;:!…—–-]+|$)\s*|(?:算了)?当我没说[，,。！!…～~]*|算了(?:[，,。！!…～~]+|$)|刚才(?:说的|那句)不算[，,。！!…～~]*",
    )
    .expect("valid regex")
});

/// The sentences of a turn without what the speaker took back: the words before a
/// retraction in its sentence, and the sentence before when the retraction opens its own.
fn without_retracted(sentences: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(sentences.len());
    for sentence in sentences {
        let mut rest = sentence.as_str();
        let mut opened = false;
        while let Some(m) = RETRACTION_RE.find(rest) {
            if rest[..m.start()].trim().is_empty() {
                opened = true;
            }
            rest = &rest[m.end()..];
        }
        if rest.len() == sentence.len() {
            out.push(sentence);
            continue;
        }
        if opened {
            out.pop();
        }
        let rest = rest.trim();
        if rest.chars().any(char::is_alphanumeric) {
            out.push(rest.to_string());
        }
    }
    out
}

/// A dash that turns to an order: "We are back - implement both, …", "The client id is X -
/// you should update the .env.example". What follows the dash is a sentence of its own, so the
/// order is judged as an order and the statement before it as a statement.
static DASH_TO_ORDER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s[-–—]\s+").expect("valid regex"));
static YOU_SHOULD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:you|we) (?:should|need to|have to|must)\b").expect("valid regex"));

pub(super) fn split_before_order(sentence: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (n, m) in DASH_TO_ORDER.find_iter(sentence).enumerate() {
        let after = &sentence[m.end()..];
        let before = sentence[start..m.start()].trim();
        // The second dash closes an aside ("metric definitions — net revenue etc — go through
        // Hannah"): the sentence goes on after it.
        if n % 2 == 1 {
            continue;
        }
        // A dash inside an aside ("(a submodule, don't edit it — override in layouts/)") ends
        // nothing.
        if sentence[..m.start()].matches('(').count() > sentence[..m.start()].matches(')').count() {
            continue;
        }
        // An order with a standing word is a rule that ends the sentence: "we are changing
        // it to summarize - let's use US English everywhere" stays one statement.
        let turns_to_order = (orders::turns_to_order(after) || YOU_SHOULD.is_match(after))
            && !kinds::STRONG_STANDING.is_match(after);
        // "Don't use playwright to browse the web - use fetch or context7": after a rule, the
        // order after the dash is its other way, and belongs to it.
        let after_a_rule = orders::STANDING_IMPERATIVE.is_match(before);
        // "I'll ask Joost about the part — he designs the boards": a clause about the person
        // just named is a statement of its own, unless a dash after it closes it as an aside
        // ("Solveig does all our art — she exports from Aseprite — and …").
        let turns_to_the_person =
            pointers::turns_to_the_person_named(before, after) && !DASH_TO_ORDER.is_match(after);
        if (turns_to_order && !after_a_rule || turns_to_the_person) && before.split_whitespace().count() >= 2
        {
            parts.push(before);
            start = m.end();
        }
    }
    parts.push(sentence[start..].trim());
    // "Direct casts skip validation logic, Add a validation helper …": a capitalised verb
    // after a comma starts a sentence a tool glued on (review findings are written this way).
    parts.into_iter().flat_map(split_before_capitalised_order).collect()
}

static COMMA_CAPITAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r",\s+([A-Z][a-z]+)\s").expect("valid regex"));

fn split_before_capitalised_order(sentence: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for c in COMMA_CAPITAL.captures_iter(sentence) {
        let (whole, word) = (c.get(0).expect("match"), c.get(1).expect("group"));
        let before = sentence[start..whole.start()].trim();
        // "… in Rust, Go and Python": a name in a list is no verb.
        let in_a_list = sentence[word.end()..].split_whitespace().next().is_some_and(|w| {
            matches!(w.trim_matches(|c: char| !c.is_alphanumeric() && c != '&'), "and" | "or" | "&")
        });
        let named = in_a_list || !vocabulary::VOCABULARY.values_in(word.as_str()).is_empty();
        if kinds::is_verb(&word.as_str().to_lowercase()) && !named && before.split_whitespace().count() >= 3 {
            parts.push(before);
            start = word.start();
        }
    }
    parts.push(sentence[start..].trim());
    parts
}

/// A question that only asks whether the statement before it holds.
static TAG_QUESTION_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:or not|right|no|correct|agreed|true|ok|okay|makes sense|(?:does )?that makes? sense|(?:is )?that (?:right|correct|true)|or am i (?:wrong|missing something|mistaken)|am i (?:right|wrong)|wdyt|what do you think)\s*\?+$")
        .expect("valid regex")
});
