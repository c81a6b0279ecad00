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

use crate::text::{
    ADVERBS, IRREGULAR_PAST, MODALS, is_capitalised, stable_hash, surprise_of_key, word_key, words,
};

/// A word's worth grows with its surprise (nats) from `SURPRISE_FLOOR` to
/// `SURPRISE_FLOOR + SURPRISE_SPAN`, where it is worth 1.
const SURPRISE_FLOOR: f32 = 6.0;
const SURPRISE_SPAN: f32 = 6.0;
const FUNCTION_VALUE: f32 = 0.0;
const NUMBER_VALUE: f32 = 0.7;
/// A capitalised word inside a sentence is probably a name or a title.
const CAPITALISED_VALUE: f32 = 1.0;
/// Words worth at least this much are "keys": repeated keys are worth less (see budget).
pub const KEY_MIN_VALUE: f32 = 0.3;
/// A resolved or explicit date makes a statement an event with its when: dated events are
/// the backbone of what a person's memory is asked about ("when did …?"), so they come
/// before almost anything else.
pub const DATE_FACTOR: f32 = 10.0;
/// A quoted title ("Becoming Nicole").
pub const QUOTE_FACTOR: f32 = 3.0;
/// The subject did or will do something ("Caroline went", "we are planning").
pub const EVENT_FACTOR: f32 = 1.6;
/// The subject is, has or likes something ("Nate loves", "Jon has").
pub const STATE_FACTOR: f32 = 1.0;
/// A sentence about the listener ("you", "your"): a reaction, rarely a fact.
pub const SECOND_PERSON_FACTOR: f32 = 0.25;
/// A habit or a duration: how often, how long ("twice a week", "for 10 years").
pub const HABIT_FACTOR: f32 = 1.5;
/// A name given to someone or something ("his name is Kyle", "a puppy named Coco").
pub const NAMING_FACTOR: f32 = 2.0;
/// A reaction to what the other person said or showed ("That sounds amazing!").
pub const REACTION_FACTOR: f32 = 0.3;
/// A clause that mentions neither its subject nor "we": an opinion or a remark more often
/// than a fact about the person.
pub const NO_SUBJECT_FACTOR: f32 = 0.8;
/// An image description: concrete, but mostly generic ("a group of people in a park").
pub const CAPTION_FACTOR: f32 = 0.6;
/// How much a word repeated across many facts of the memory is discounted:
/// its value is divided by `1 + IDF_WEIGHT × ln(facts containing it)`.
pub const IDF_WEIGHT: f32 = 0.6;
/// Each CJK bigram (Chinese has no spaces, so no word list applies).
const CJK_BIGRAM_VALUE: f32 = 0.3;

/// The score of one fact text: what its words carry, times how it says it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// `(words + Σ keys) × factor`.
    pub value: f32,
    /// `(key hash, value)` of each informative word, for diminishing returns on repeats.
    pub keys: Vec<(u64, f32)>,
    /// The value of the less informative words (no diminishing returns).
    pub words: f32,
    /// The product of the statement's factors (date, quote, action, second person).
    pub factor: f32,
}

impl Scored {
    /// What the words carry, before factors: small talk carries little.
    pub fn content(&self) -> f32 {
        self.words + self.keys.iter().map(|(_, v)| v).sum::<f32>()
    }
}

/// Date annotations written after relative expressions, and explicit dates in text.
static DATE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\((?:week of |weekend of |around |early |late |mid-)?(?:\d{4}-\d{2}-\d{2}|(?:january|february|march|april|may|june|july|august|september|october|november|december) \d{4}|\d{4})\)|\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december) \d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:january|february|march|april|may|june|july|august|september|october|november|december)\b",
    )
    .expect("valid regex")
});
static REACTION_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:that|this|it|those|these|what a|how|sounds|looks|so|such)\b.*\b(?:looks?|sounds?|seems?|must|great|awesome|amazing|cool|nice|fun|cute|beautiful|gorgeous|delicious|yum|incredible|wonderful|lovely)\b")
        .expect("valid regex")
});
static HABIT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:(?:once|twice|\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|many) (?:times? )?(?:a|an|per|every) (?:day|week|weekend|month|year)|every (?:day|morning|evening|night|week|weekend|month|year|summer|winter)|(?:for|over) (?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|many) (?:days|weeks|months|years)|(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten) (?:days|weeks|months|years) (?:now|old))\b")
        .expect("valid regex")
});
static NAMING_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:[Nn]ame is|[Nn]amed|[Cc]alled|[Nn]ame's) \p{Lu}").expect("valid regex")
});
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

    /// Scores a fact with no known subject.
    pub fn score(&self, text: &str) -> Scored {
        self.score_about(text, None)
    }

    /// Scores a fact of a topic whose subject (the person, or "the user") is `subject`.
    pub fn score_about(&self, text: &str, subject: Option<&str>) -> Scored {
        let has_date = DATE_RE.is_match(text) || crate::dates::RESOLVED_DATE_RE.is_match(text);
        // Dates count through the factor, not as words.
        let stripped = crate::dates::without_dates(text);
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
                ((surprise_of_key(&key) - SURPRISE_FLOOR) / SURPRISE_SPAN).clamp(0.0, 1.0)
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
        base += crate::text::cjk_bigrams(&stripped).len() as f32 * CJK_BIGRAM_VALUE;
        let mut factor = 1.0;
        if has_date {
            factor *= DATE_FACTOR;
        }
        if QUOTE_RE.is_match(&stripped) {
            factor *= QUOTE_FACTOR;
        }
        factor *= subject_action(&ws, &stripped, subject);
        // A coding agent's user speaks to the agent: "you" and subject-less imperatives are
        // how instructions are given, not reactions.
        let instructs_agent = subject.is_some_and(|s| s.eq_ignore_ascii_case("the user"));
        if HABIT_RE.is_match(&stripped) {
            factor *= HABIT_FACTOR;
        }
        if NAMING_RE.is_match(&stripped) {
            factor *= NAMING_FACTOR;
        }
        if REACTION_RE.is_match(&stripped) {
            factor *= REACTION_FACTOR;
        }
        if !mentions_subject(&ws, subject) && !instructs_agent {
            factor *= NO_SUBJECT_FACTOR;
        }
        if addresses_listener(&ws) && !instructs_agent {
            factor *= SECOND_PERSON_FACTOR;
        }
        if text.starts_with("Photo: ") {
            factor *= CAPTION_FACTOR;
        }
        let content = base + keys.iter().map(|(_, v)| v).sum::<f32>();
        Scored { value: content * factor, keys, words: base, factor }
    }
}

/// Discounts words that recur across many facts: a word on every other line ("basketball"
/// in a basketball player's memory) is the topic, not a detail that tells facts apart.
/// Applied over the whole candidate pool of a dream, so it is the same in one dream as at
/// the end of a series of incremental ones.
pub fn discount_repeated_words(scores: &mut [Scored]) {
    let mut df: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    for s in scores.iter() {
        let mut seen: Vec<u64> = s.keys.iter().map(|(k, _)| *k).collect();
        seen.sort_unstable();
        seen.dedup();
        for k in seen {
            *df.entry(k).or_default() += 1;
        }
    }
    for s in scores.iter_mut() {
        for (k, v) in s.keys.iter_mut() {
            let n = df.get(k).copied().unwrap_or(1).max(1) as f32;
            *v /= 1.0 + IDF_WEIGHT * n.ln();
        }
        s.value = s.content() * s.factor;
    }
}

/// Does the clause mention its subject (or "we", "they")?
fn mentions_subject(ws: &[crate::text::Word<'_>], subject: Option<&str>) -> bool {
    let first = subject.and_then(|s| words(s).first().map(|w| word_key(w.text)));
    ws.iter().any(|w| {
        let k = word_key(w.text);
        first.as_deref() == Some(k.as_str())
            || matches!(k.as_str(), "we" | "our" | "us" | "they" | "their" | "them")
    })
}

/// Does the sentence speak to the listener ("you", "your") rather than about the speaker?
fn addresses_listener(ws: &[crate::text::Word<'_>]) -> bool {
    ws.iter().any(|w| {
        let k = word_key(w.text);
        matches!(k.as_str(), "you" | "your" | "youre" | "youve" | "youll" | "youd" | "yours" | "yourself")
    })
}

/// What the subject does in the sentence: an action or plan ([`EVENT_FACTOR`]), a state
/// or liking ([`STATE_FACTOR`]), or nothing (1).
fn subject_action(ws: &[crate::text::Word<'_>], text: &str, subject: Option<&str>) -> f32 {
    let subject_words: Vec<String> =
        subject.map(|s| words(s).iter().map(|w| word_key(w.text)).collect()).unwrap_or_default();
    let mut best: f32 = 1.0;
    let mut i = 0;
    while i < ws.len() {
        let key = word_key(ws[i].text);
        let is_subject = if !subject_words.is_empty() && key == subject_words[0] {
            // A multi-word subject ("the user") must match in full.
            let n = subject_words.len();
            let ok = i + n <= ws.len() && (0..n).all(|k| word_key(ws[i + k].text) == subject_words[k]);
            if ok {
                // A possessive ("Caroline's kids") is not the subject acting.
                let last = ws[i + n - 1].text;
                if last.ends_with("'s") || last.ends_with("’s") {
                    i += n;
                    continue;
                }
                i += n - 1;
            }
            ok
        } else {
            matches!(key.as_str(), "we" | "they")
        };
        if !is_subject {
            i += 1;
            continue;
        }
        // A contraction carried the verb: "Caroline's going" was rewritten "Caroline is".
        let mut j = i + 1;
        while j < ws.len() && ADVERBS.contains(&ws[j].text.to_lowercase().as_str()) {
            j += 1;
        }
        let Some(verb) = ws.get(j) else { break };
        if !text[ws[j - 1].end()..verb.start].trim().is_empty() {
            i += 1;
            continue;
        }
        let v = verb.text.to_lowercase().replace('’', "'");
        let next = ws.get(j + 1).map(|w| w.text.to_lowercase()).unwrap_or_default();
        let past = (IRREGULAR_PAST.contains(&v.as_str()) && !matches!(v.as_str(), "was" | "were" | "had"))
            || (v.ends_with("ed") && v.len() > 3);
        let ongoing =
            matches!(v.as_str(), "is" | "are" | "was" | "were" | "will" | "would" | "has" | "have" | "had")
                && (next.ends_with("ing")
                    || matches!(next.as_str(), "going" | "gonna" | "about" | "been" | "just" | "finally"));
        let score = if past || ongoing {
            EVENT_FACTOR
        } else if MODALS.contains(&v.as_str())
            || v == "gonna"
            || v == "wanna"
            || (v.chars().all(|c| c.is_ascii_lowercase()) && v.len() > 2)
        {
            STATE_FACTOR
        } else {
            1.0
        };
        best = best.max(score);
        i = j;
    }
    best
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
        assert!(fact.value > 2.0, "{fact:?}");
        // The person's own name is worth nothing.
        assert_eq!(s.score("Caroline").value, 0.0);
    }

    #[test]
    fn annotations_count_as_a_date_not_as_numbers() {
        let s = Scorer::new(["Jon"]);
        let with = s.score("Jon went to Rome last week (week of 2023-06-12).");
        let without = s.score("Jon went to Rome last week.");
        assert!((with.value - without.value * DATE_FACTOR).abs() < 1e-4, "{with:?} {without:?}");
        assert!((with.content() - without.content()).abs() < 1e-4);
    }

    #[test]
    fn capitalised_titles_and_quotes_score() {
        let s = Scorer::default();
        let t = s.score("She watched \"Little Women\" twice.");
        let plain = s.score("She watched little women twice.");
        assert!(t.content() > plain.content(), "{t:?} {plain:?}");
        assert!((t.factor - QUOTE_FACTOR * NO_SUBJECT_FACTOR).abs() < 1e-6);
    }

    #[test]
    fn the_subject_acting_counts_reactions_to_the_listener_do_not() {
        let s = Scorer::new(["Caroline"]);
        let act = s.score_about("Caroline went to a support group.", Some("Caroline"));
        assert!((act.factor - EVENT_FACTOR).abs() < 1e-6, "{act:?}");
        let plan = s.score_about("We are planning a trip.", Some("Caroline"));
        assert!((plan.factor - EVENT_FACTOR).abs() < 1e-6);
        let likes = s.score_about("Caroline loves pottery.", Some("Caroline"));
        assert!((likes.factor - STATE_FACTOR).abs() < 1e-6);
        let possessive = s.score_about("Caroline's kids made pottery.", Some("Caroline"));
        assert!((possessive.factor - 1.0).abs() < 1e-6, "{possessive:?}");
        let reaction = s.score_about("Your pottery looks great.", Some("Caroline"));
        let plain = s.score_about("The pottery looks great.", Some("Caroline"));
        assert!((reaction.value - plain.value * SECOND_PERSON_FACTOR).abs() < 1e-4);
    }

    #[test]
    fn words_on_many_facts_are_discounted() {
        let s = Scorer::default();
        let mut scores: Vec<Scored> =
            ["Basketball practice.", "Basketball game.", "Basketball camp.", "Galway trip."]
                .iter()
                .map(|t| s.score(t))
                .collect();
        let before = scores[0].keys[0].1;
        discount_repeated_words(&mut scores);
        assert!(scores[0].keys[0].1 < before * 0.65, "{:?}", scores[0]);
        let galway = scores[3].keys.iter().map(|k| k.1).fold(0.0, f32::max);
        assert!(galway > scores[0].keys[0].1);
    }

    #[test]
    fn habits_and_names_are_facts_worth_keeping() {
        let s = Scorer::new(["Maria"]);
        let habit = s.score_about("We go hiking a few times a week.", Some("Maria"));
        assert!((habit.factor - HABIT_FACTOR).abs() < 1e-6, "{habit:?}");
        let named = s.score_about("Maria got a puppy named Coco.", Some("Maria"));
        assert!(named.factor >= NAMING_FACTOR * EVENT_FACTOR - 1e-6, "{named:?}");
    }

    #[test]
    fn repeated_words_share_a_key() {
        let s = Scorer::default();
        let a = s.score("guitars");
        let b = s.score("guitar");
        assert_eq!(a.keys[0].0, b.keys[0].0);
    }
}
