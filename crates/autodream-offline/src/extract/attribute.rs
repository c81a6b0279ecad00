//! First person attributed to the speaker: "I adopted a puppy" becomes "Caroline adopted a
//! puppy", with the verb agreeing ("I have" → "Caroline has", "we are" → "they are").

use std::collections::HashSet;
use std::sync::LazyLock;

use super::*;

/// How a first-person word is rewritten.
#[derive(Clone, Copy)]
enum Person1 {
    /// I
    Subject,
    /// I'm, I've, I'd, I'll (subject + auxiliary)
    SubjectAux(&'static str, &'static str),
    /// me
    Object,
    /// my
    Possessive,
    /// mine
    Mine,
    /// myself
    Reflexive,
}

fn first_person(word: &str) -> Option<Person1> {
    let w = word.replace('’', "'");
    Some(match w.as_str() {
        "I" | "i" => Person1::Subject,
        "I'm" | "i'm" | "Im" => Person1::SubjectAux(" is", "they're"),
        "I've" | "i've" | "Ive" => Person1::SubjectAux(" has", "they've"),
        "I'd" | "i'd" => Person1::SubjectAux(" would", "they'd"),
        "I'll" | "i'll" => Person1::SubjectAux(" will", "they'll"),
        _ => match w.to_lowercase().as_str() {
            "me" => Person1::Object,
            "my" => Person1::Possessive,
            "mine" => Person1::Mine,
            "myself" => Person1::Reflexive,
            _ => return None,
        },
    })
}

/// The verb after "I", agreed with a third-person singular subject.
fn agree_third_person(verb: &str) -> Option<String> {
    let lower = verb.to_lowercase().replace('’', "'");
    let fixed = match lower.as_str() {
        "am" => "is",
        "have" => "has",
        "do" => "does",
        "don't" => "doesn't",
        "haven't" => "hasn't",
        "were" => "was",
        "ain't" => "isn't",
        "go" => "goes",
        _ => "",
    };
    if !fixed.is_empty() {
        return Some(fixed.to_string());
    }
    // Only verbs known to be in their base form are inflected: a guess on an unknown word
    // ("retook", "typically") would invent a word, a plain "Jo love" only reads oddly.
    if !BASE_VERBS.contains(lower.as_str()) {
        return None;
    }
    let b = lower.as_bytes();
    let last = b[b.len() - 1];
    let prev = b[b.len() - 2];
    let out = if lower.ends_with("sh") || lower.ends_with("ch") || matches!(last, b'x' | b'z' | b'o') {
        format!("{verb}es")
    } else if last == b'y' && !matches!(prev, b'a' | b'e' | b'i' | b'o' | b'u') {
        format!("{}ies", &verb[..verb.len() - 1])
    } else {
        format!("{verb}s")
    };
    Some(out)
}

/// Common verbs in their base form (the ones a speaker puts after "I"): `words/base_verbs.txt`.
static BASE_VERBS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| load_list(include_str!("../words/base_verbs.txt")));

/// The verb after a subject that became singular "they".
fn agree_they(verb: &str) -> Option<&'static str> {
    match verb.to_lowercase().as_str() {
        "am" => Some("are"),
        "was" => Some("were"),
        "wasn't" | "wasn’t" => Some("weren't"),
        _ => None,
    }
}

/// Rewrites first-person words as the speaker: the first mention by name, later ones as
/// singular "they" (with verbs agreed), so "I love my dog and I walk him" becomes
/// "Nate loves their dog and they walk him".
pub fn attribute(sentence: &str, name: &str) -> String {
    if sentence.contains('我') {
        return attribute_cjk(sentence, name);
    }
    let ws = words(sentence);
    let mut out = String::with_capacity(sentence.len() + name.len() * 2);
    let mut last = 0;
    let mut named = false;
    let mut skip_until = 0;
    let mut i = 0;
    while i < ws.len() {
        let w = ws[i];
        if w.start < skip_until {
            i += 1;
            continue;
        }
        let Some(kind) = first_person(w.text) else {
            i += 1;
            continue;
        };
        let at_start = sentence[..w.start].trim().is_empty()
            || sentence[..w.start].trim_end().ends_with(['.', '!', '?', ':', '"', '“']);
        out.push_str(&sentence[last..w.start]);
        let first = !named;
        named = true;
        let cap = |s: &str| -> String {
            if at_start {
                let mut c = s.chars();
                c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
            } else {
                s.to_string()
            }
        };
        match kind {
            Person1::Subject => {
                // Find the verb, skipping adverbs; agree it with the new subject.
                let mut j = i + 1;
                while j < ws.len() && {
                    let w = ws[j].text.to_lowercase();
                    ADVERBS.contains(&w.as_str()) || (w.len() > 4 && w.ends_with("ly"))
                } {
                    j += 1;
                }
                let adjacent = j < ws.len() && sentence[ws[j - 1].end()..ws[j].start].trim().is_empty();
                // "I read it last year": a verb whose past is its present stays past when
                // the sentence says it is past.
                let past_as_written = j < ws.len()
                    && SAME_IN_PAST.contains(ws[j].text.to_lowercase().as_str())
                    && PAST_MARKER_RE.is_match(sentence);
                let verb_fix = if adjacent && !past_as_written {
                    if first {
                        agree_third_person(ws[j].text)
                    } else {
                        agree_they(ws[j].text).map(str::to_string)
                    }
                } else {
                    None
                };
                out.push_str(&if first { name.to_string() } else { cap("they") });
                last = w.end();
                if let Some(fixed) = verb_fix {
                    out.push_str(&sentence[last..ws[j].start]);
                    out.push_str(&fixed);
                    last = ws[j].end();
                    skip_until = last;
                }
            }
            Person1::SubjectAux(aux, they) => {
                if first {
                    out.push_str(name);
                    out.push_str(aux);
                } else {
                    out.push_str(&cap(they));
                }
                last = w.end();
            }
            Person1::Object => {
                out.push_str(if first { name } else { "them" });
                last = w.end();
            }
            Person1::Possessive | Person1::Mine => {
                if first {
                    out.push_str(name);
                    out.push_str("'s");
                } else {
                    out.push_str(&cap(if matches!(kind, Person1::Mine) { "theirs" } else { "their" }));
                }
                last = w.end();
            }
            Person1::Reflexive => {
                out.push_str(&cap("themself"));
                last = w.end();
            }
        }
        i += 1;
    }
    out.push_str(&sentence[last..]);
    out
}

fn attribute_cjk(sentence: &str, name: &str) -> String {
    let mut out = String::with_capacity(sentence.len() + name.len());
    let mut chars = sentence.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '我' && chars.peek() != Some(&'们') {
            out.push_str(name);
        } else {
            out.push(c);
        }
    }
    out
}

/// Ends a fact with a terminator so facts joined on one line read (and split) back apart.
pub(super) fn terminate(mut s: String) -> String {
    let t = s.trim_end();
    if !t.ends_with(['.', '!', '?', '…', '。', '！', '？', '"', '”']) {
        s.truncate(t.len());
        if s.chars().last().is_some_and(crate::text::is_cjk) {
            s.push('。');
        } else {
            s.push('.');
        }
    }
    s
}

pub(super) fn capitalise_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) if f.is_lowercase() => f.to_uppercase().collect::<String>() + c.as_str(),
        Some(f) => f.to_string() + c.as_str(),
        None => String::new(),
    }
}
