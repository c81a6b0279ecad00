//! Salience: how much a fact is worth keeping.
//!
//! It is computed from the fact's final text alone, so a fact read back from a topic file in
//! a later dream scores exactly as it did when it was extracted, and an incremental series
//! of dreams keeps the same facts a single dream would. What counts: words that general
//! English rarely uses (names, titles, places, hobbies), numbers, quoted titles, and a
//! resolved date (an event with its when). Function words, chat filler and the names of the
//! people talking count for nothing: they are on every line.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::text::{Commonness, commonness_of_key, is_capitalised, stable_hash, word_key, words};

/// Worth of a word by how common it is.
const FUNCTION_VALUE: f32 = 0.0;
const COMMON_VALUE: f32 = 0.15;
const FREQUENT_VALUE: f32 = 0.45;
const RARE_VALUE: f32 = 1.0;
const NUMBER_VALUE: f32 = 0.7;
/// A capitalised word inside a sentence is probably a name or a title.
const CAPITALISED_VALUE: f32 = 0.6;
/// Words worth at least this much are "keys": repeated keys are worth less (see budget).
pub const KEY_MIN_VALUE: f32 = 0.45;
/// A resolved or explicit date makes a statement an event with its when.
const DATE_BONUS: f32 = 1.0;
/// A quoted title ("Becoming Nicole").
const QUOTE_BONUS: f32 = 0.6;
/// Each CJK bigram (Chinese has no spaces, so no word list applies).
const CJK_BIGRAM_VALUE: f32 = 0.3;

/// The score of one fact text.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Word values (keys listed separately) plus bonuses.
    pub value: f32,
    /// `(key hash, value)` of each informative word, for diminishing returns on repeats.
    pub keys: Vec<(u64, f32)>,
    /// The part of `value` that does not decay with repeats (dates, quotes, common words).
    pub base: f32,
}

/// Date annotations written after relative expressions, and explicit dates in text.
static DATE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\((?:week of |weekend of |around |early |late |mid-)?(?:\d{4}-\d{2}-\d{2}|(?:january|february|march|april|may|june|july|august|september|october|november|december) \d{4}|\d{4})\)|\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december) \d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:january|february|march|april|may|june|july|august|september|october|november|december)\b",
    )
    .expect("valid regex")
});
/// Parenthesised annotations, removed before the words are scored.
static ANNOTATION_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\s?\((?:[^()]*?\b\d{4}\b[^()]*)\)").expect("valid regex"));
static QUOTE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""[^"]{2,80}"|“[^”]{2,80}”"#).expect("valid regex"));

/// Scores fact texts; knows the names of the people the memory is about (they tell nothing).
#[derive(Debug, Clone, Default)]
pub struct Scorer {
    names: BTreeSet<String>,
}

impl Scorer {
    pub fn new<I: IntoIterator<Item = S>, S: AsRef<str>>(names: I) -> Scorer {
        let mut set = BTreeSet::new();
        for n in names {
            for w in words(n.as_ref()) {
                set.insert(word_key(w.text));
            }
        }
        Scorer { names: set }
    }

    pub fn score(&self, text: &str) -> Scored {
        let has_date = DATE_RE.is_match(text);
        let stripped = ANNOTATION_RE.replace_all(text, "");
        let mut base = 0.0f32;
        let mut keys: Vec<(u64, f32)> = Vec::new();
        let ws = words(&stripped);
        for (i, w) in ws.iter().enumerate() {
            let key = word_key(w.text);
            if key.is_empty() || self.names.contains(&key) {
                continue;
            }
            let mut v = if key.chars().all(|c| c.is_ascii_digit()) {
                NUMBER_VALUE
            } else {
                match commonness_of_key(&key) {
                    Commonness::Function => FUNCTION_VALUE,
                    Commonness::Common => COMMON_VALUE,
                    Commonness::Frequent => FREQUENT_VALUE,
                    Commonness::Rare => RARE_VALUE,
                }
            };
            // Capitalised mid-sentence: a name or title even when the word is common
            // ("Little Women", "Iron Man"); the first word of a sentence proves nothing.
            let sentence_start = i == 0 || stripped[..w.start].trim_end().ends_with(['.', '!', '?', ':']);
            let tiny = v == FUNCTION_VALUE && key.len() <= 3;
            if !tiny && !sentence_start && is_capitalised(w.text) {
                v = v.max(CAPITALISED_VALUE);
            }
            if v >= KEY_MIN_VALUE {
                keys.push((stable_hash(key_stem(&key).as_bytes()), v));
            } else {
                base += v;
            }
        }
        let cjk = crate::text::cjk_bigrams(&stripped).len() as f32 * CJK_BIGRAM_VALUE;
        base += cjk;
        if has_date {
            base += DATE_BONUS;
        }
        if QUOTE_RE.is_match(&stripped) {
            base += QUOTE_BONUS;
        }
        let value = base + keys.iter().map(|(_, v)| v).sum::<f32>();
        Scored { value, keys, base }
    }
}

/// A plural-insensitive form of a key, so "guitar" and "guitars" repeat each other.
fn key_stem(key: &str) -> &str {
    if key.len() > 4 && key.ends_with('s') && !key.ends_with("ss") { &key[..key.len() - 1] } else { key }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_words_names_and_dates_outweigh_filler() {
        let s = Scorer::new(["Caroline", "Melanie"]);
        let filler = s.score("Caroline thinks that is so awesome and really great.");
        let fact = s.score("Caroline moved from Sweden 4 years ago (2019).");
        assert!(filler.value < 0.5, "{filler:?}");
        assert!(fact.value > 2.5, "{fact:?}");
        // The person's own name is worth nothing.
        assert_eq!(s.score("Caroline").value, 0.0);
    }

    #[test]
    fn annotations_count_as_a_date_not_as_numbers() {
        let s = Scorer::new(["Jon"]);
        let with = s.score("Jon went to Rome last week (week of 2023-06-12).");
        let without = s.score("Jon went to Rome last week.");
        assert!((with.value - without.value - DATE_BONUS).abs() < 1e-4, "{with:?} {without:?}");
    }

    #[test]
    fn capitalised_titles_and_quotes_score() {
        let s = Scorer::default();
        let t = s.score("She watched \"Little Women\" twice.");
        let plain = s.score("She watched little women twice.");
        assert!(t.value > plain.value + QUOTE_BONUS, "{t:?} {plain:?}");
    }

    #[test]
    fn repeated_words_share_a_key() {
        let s = Scorer::default();
        let a = s.score("guitars");
        let b = s.score("guitar");
        assert_eq!(a.keys[0].0, b.keys[0].0);
    }
}
