//! Supersession: a newer fact on the same subject and attribute replaces the older one.
//!
//! Attributes are recognised by pattern on the fact's final (attributed) text: a job, a
//! home town, a relationship status, a favourite something, a choice between two ways of
//! doing a thing ("use rebase, not merge"). When two current facts of one topic carry the
//! same attribute with different values, the older is marked superseded with the newer
//! fact's date; it moves to the file's `## Superseded` section — never silently deleted.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::fact::{Fact, Origin};

/// A recognised attribute: which one, and its value (normalised).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Attribute {
    pub key: String,
    pub value: String,
}

/// A subject: a capitalised name (one or two words), "the user", "we" or "they".
const SUBJECT: &str = r"(?P<s>(?:[Tt]he user|\p{Lu}[\w'.-]*(?: \p{Lu}[\w'.-]*)?))";
static JOB_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"{SUBJECT} (?:works|is working|started working|now works|got a (?:new )?job|has a (?:new )?job|landed a (?:new )?job|took a (?:new )?job|is employed|got hired|was hired) (?:as|at|for) (?P<v>[^,.;!?()]{{2,48}})"))
        .expect("valid regex")
});
static HOME_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"{SUBJECT} (?:lives|now lives|is living|moved|has moved|is moving|relocated|settled) (?:in|to) (?P<v>\p{{Lu}}[\w.-]*(?: \p{{Lu}}[\w.-]*)*)"))
        .expect("valid regex")
});
static RELATIONSHIP_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"{SUBJECT} (?:is|got|became|is now|just got) (?P<v>single|married|engaged|divorced|separated|widowed)\b"))
        .expect("valid regex")
});
static FAVORITE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"{SUBJECT}'s (?:new |current |all-time )?(?:favorite|favourite|fave) (?P<k>[a-z]+(?: [a-z]+)?) (?:is|are) (?P<v>[^,.;!?()]{{2,48}})"))
        .expect("valid regex")
});
static CHOICE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:use|prefer|prefers|go with|choose|pick)\s+(?P<a>[\w.+#/-]+(?: [\w.+#/-]+)?)\s*,?\s+(?:not|instead of|rather than|over|to)\s+(?P<b>[\w.+#/-]+(?: [\w.+#/-]+)?)")
        .expect("valid regex")
});

fn norm(s: &str) -> String {
    let s = s.trim().trim_end_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let s = s
        .strip_prefix("a ")
        .or_else(|| s.strip_prefix("an "))
        .or_else(|| s.strip_prefix("the "))
        .unwrap_or(&s);
    s.to_string()
}

/// The attribute a fact states about `subject` (the topic's person, or "the user"), if any.
pub fn attribute_of(text: &str, subject: Option<&str>) -> Option<Attribute> {
    // A clause may open with the conjunction that joined it to its sentence.
    let lower = text.to_lowercase();
    let text = ["and ", "but ", "so ", "plus ", "also ", "now ", "because "]
        .iter()
        .find(|c| lower.starts_with(*c))
        .map_or(text, |c| &text[c.len()..]);
    let about_subject = |s: &str| match subject {
        Some(name) => s.trim().eq_ignore_ascii_case(name),
        None => false,
    };
    if let Some(c) = CHOICE_RE.captures(text) {
        let (a, b) = (norm(&c["a"]), norm(&c["b"]));
        if a != b {
            let (lo, hi) = if a < b { (&a, &b) } else { (&b, &a) };
            return Some(Attribute { key: format!("choice:{lo}|{hi}"), value: a.clone() });
        }
    }
    for (re, key) in [(&*JOB_RE, "job"), (&*HOME_RE, "home"), (&*RELATIONSHIP_RE, "relationship")] {
        if let Some(c) = re.captures_iter(text).find(|c| about_subject(&c["s"])) {
            return Some(Attribute { key: key.to_string(), value: norm(&c["v"]) });
        }
    }
    if let Some(c) = FAVORITE_RE.captures_iter(text).find(|c| about_subject(&c["s"])) {
        return Some(Attribute { key: format!("favorite:{}", c["k"].to_lowercase()), value: norm(&c["v"]) });
    }
    None
}

/// "We no longer deploy on Fridays": the phrase after "no longer", which an older fact of
/// the same topic that still says it ("We deploy on Fridays only") is superseded by.
static NO_LONGER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:no longer|not any ?more|don'?t (?:\w+ )?anymore) (?P<v>\w+(?: \w+){1,3})")
        .expect("valid regex")
});

fn words_of(s: &str) -> String {
    crate::text::compare_tokens(s).join(" ")
}

/// Marks superseded facts; returns how many were newly superseded. `subject_of` gives a
/// topic's subject name (its person, or "The user" for the typed files).
pub fn supersede(facts: &mut [Fact], subject_of: &dyn Fn(&str) -> Option<String>) -> usize {
    // (topic, attribute key) → [(date, order, index, value)]
    type Mentions = Vec<(jiff::civil::Date, usize, String)>;
    let mut by_key: BTreeMap<(String, String), Mentions> = BTreeMap::new();
    for (i, f) in facts.iter().enumerate() {
        if f.superseded_on.is_some() || f.origin == Origin::Edited {
            continue;
        }
        let subject = subject_of(&f.topic);
        if let Some(attr) = attribute_of(&f.text, subject.as_deref()) {
            by_key.entry((f.topic.clone(), attr.key)).or_default().push((f.date, i, attr.value));
        }
    }
    let mut count = 0;
    // Explicit negations: an older fact still saying what a newer one says is no longer so.
    let negations: Vec<(usize, String)> = facts
        .iter()
        .enumerate()
        .filter(|(_, f)| f.superseded_on.is_none() && f.origin != Origin::Edited)
        .filter_map(|(i, f)| NO_LONGER_RE.captures(&f.text).map(|c| (i, words_of(&c["v"]))))
        .collect();
    for (i, phrase) in negations {
        let (topic, date) = (facts[i].topic.clone(), facts[i].date);
        for (j, g) in facts.iter_mut().enumerate() {
            if j != i
                && g.topic == topic
                && g.date < date
                && g.superseded_on.is_none()
                && g.origin != Origin::Edited
                && !NO_LONGER_RE.is_match(&g.text)
                && format!(" {} ", words_of(&g.text)).contains(&format!(" {phrase} "))
            {
                g.superseded_on = Some(date);
                count += 1;
            }
        }
    }
    for (_, mut list) in by_key {
        list.sort();
        let Some((newest_date, _, newest_value)) = list.last().cloned() else { continue };
        for (date, i, value) in &list[..list.len() - 1] {
            if *value != newest_value && *date < newest_date {
                facts[*i].superseded_on = Some(newest_date);
                count += 1;
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::Date;

    fn fact(topic: &str, text: &str, date: &str) -> Fact {
        Fact { salience: 1.0, ..Fact::new(topic, date.parse::<Date>().unwrap(), text, Origin::New, "s") }
    }

    #[test]
    fn attributes_are_recognised_for_the_subject_only() {
        let a = attribute_of("Jon works as a banker downtown.", Some("Jon")).unwrap();
        assert_eq!((a.key.as_str(), a.value.as_str()), ("job", "banker downtown"));
        assert!(attribute_of("Gina works at a shop.", Some("Jon")).is_none());
        let a = attribute_of("Big news: Jon works as a teacher now.", Some("Jon")).unwrap();
        assert_eq!(a.value, "teacher now");
        let a = attribute_of("Maria moved to Portland last year.", Some("Maria")).unwrap();
        assert_eq!((a.key.as_str(), a.value.as_str()), ("home", "portland"));
        let a = attribute_of("Nate's favorite game is Valorant.", Some("Nate")).unwrap();
        assert_eq!(a.key, "favorite:game");
        let a = attribute_of("Use rebase, not merge.", Some("The user")).unwrap();
        let b = attribute_of("Use merge instead of rebase.", Some("The user")).unwrap();
        assert_eq!(a.key, b.key);
        assert_ne!(a.value, b.value);
    }

    #[test]
    fn no_longer_supersedes_what_it_negates() {
        let mut facts = vec![
            fact("project", "We deploy on Fridays only, after 2pm.", "2026-05-04"),
            fact("project", "We deploy from the main branch.", "2026-05-04"),
            fact("project", "Correction: we no longer deploy on Fridays.", "2026-05-06"),
        ];
        let subject = |_: &str| Some("The user".to_string());
        assert_eq!(supersede(&mut facts, &subject), 1);
        assert_eq!(facts[0].superseded_on.map(|d| d.to_string()).as_deref(), Some("2026-05-06"));
        assert_eq!(facts[1].superseded_on, None);
        assert_eq!(facts[2].superseded_on, None);
    }

    #[test]
    fn newer_value_supersedes_older_same_value_does_not() {
        let mut facts = vec![
            fact("jon", "Jon works as a banker.", "2023-01-01"),
            fact("jon", "Jon works as a dance teacher.", "2023-06-01"),
            fact("feedback", "Use rebase, not merge.", "2024-01-01"),
            fact("feedback", "Use rebase, not merge, on shared branches.", "2024-02-01"),
            fact("feedback", "Use merge instead of rebase.", "2024-03-01"),
            fact("gina", "Gina works at Door Dash.", "2023-01-01"),
        ];
        let subject = |t: &str| match t {
            "jon" => Some("Jon".to_string()),
            "gina" => Some("Gina".to_string()),
            _ => Some("The user".to_string()),
        };
        assert_eq!(supersede(&mut facts, &subject), 3);
        let on = |i: usize| facts[i].superseded_on.map(|d| d.to_string());
        assert_eq!(on(0).as_deref(), Some("2023-06-01"));
        assert_eq!(on(1), None);
        assert_eq!(on(2).as_deref(), Some("2024-03-01"));
        assert_eq!(on(3).as_deref(), Some("2024-03-01"));
        assert_eq!(on(4), None);
        assert_eq!(on(5), None);
    }
}
