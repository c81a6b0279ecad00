//! What opens a sentence without adding to it: discourse leads ("OK, so", "Heads up:", "另外"),
//! labels ("Context:"), requests to remember ("Note that …"), a clause about the moment, and
//! what was wrong before a correction ("The first part is not correct, …"). The fact is what
//! is left.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

use super::super::kinds::{says_a_change, word_count};

/// Words that open a sentence without adding to it.
static LEAD_EN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:[\x{1F300}-\x{1FAFF}\x{2600}-\x{27BF}\x{FE0F}]+\s*|(?:(?:ok(?:ay)?|yes|yeah|yep|no|nope|right|good|great|nice|cool|perfect|thanks|thank you|sure|hm+|whoa|wow|sorry|ah right|good catch|got it|understood|correct|exactly|wait|hold on|oh wait)(?:\s*[,.:;!—–]|\s*-+(?:\s|$))[,.:;!—–-]*\s*)|(?:(?:hi+|hey+|hiya|hello|hola|howdy|morning|good morning|also|and|but|oh|ah|so|well|nah|yeah|yep|yup|btw|fyi|by the way|heads up|one more thing|another thing|anyway|important|reminder|plus|then|actually|oh and|ok so|okay so)\b(?:[\s,.:;!—–~～][\s,.:;!—–~～-]*|-+(?:\s|$)[\s,.:;!—–~～-]*|$)))+",
    )
});
static LEAD_ZH: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:(?:好的?|对了|对的?|嗯|可以|行|另外|还有|顺便说一下|先说明一下|先说一下|说明一下|对了|补充一下|补充点背景|说两件事|几件事|通知一下|提醒一下|一是|二是|三是|首先|其次|然后|最后|不对|不是)[，,：:。！! ]*)+",
    )
});
/// A short label before a colon ("Context:", "Before this merges:", "先说下环境：").
static LABEL: LazyLock<Regex> = LazyLock::new(|| re(r"^([^:：]{1,40})[:：]\s*"));

/// The label a sentence opens with, if any. "That std::vector …" has none: two colons
/// separate a path, they end no label; nor has "also for https://…/issues/1140 …", where the
/// colon is the address's.
pub(super) fn label(text: &str) -> Option<regex::Captures<'_>> {
    LABEL.captures(text).filter(|c| {
        let rest = &text[c.get(0).expect("match").end()..];
        let colon = c.get(1).expect("group").end();
        !rest.starts_with(':') && !text[colon..].starts_with("://")
    })
}

/// "When reporting back, include: …", "Our stack is: …": what comes before the colon ends on
/// a verb whose object follows it. It is the sentence's start, not a label to drop: the rest
/// alone would be a list of things nobody says anything about.
static VERB_OF_WHAT_FOLLOWS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:include|includes|including|contain|contains|is|are|was|were|be|means|mean|use|uses|need|needs|want|wants|prefer|prefers|mention|list|add|say|says|said|like|likes)\s*$",
    )
});

/// "Runs daily at 02:30 UTC": the colon of a time is no label's.
fn is_a_time(s: &str, c: &regex::Captures<'_>) -> bool {
    let colon = c.get(1).expect("group").end();
    let after = s[colon..].chars().nth(1);
    s[..colon].ends_with(|ch: char| ch.is_ascii_digit()) && after.is_some_and(|ch| ch.is_ascii_digit())
}

/// Labels that carry meaning and stay ("Firmware rule:", "Hard requirement:").
pub(super) static MEANINGFUL_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:rules?|requirements?|conventions?|polic(?:y|ies)|decisions?|chosen|agreed|deadline|style|guidelines?)\b|规矩|规范|规则|决定",
    )
});
/// A pronoun that stands for something named before it.
static REST_REFERS: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:it|them|its)\b"));
/// "… so let me just decide: SQLite, not Postgres" — the choice after the colon is a decision.
static DECIDE_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^[^:：]*\b(?:decide|decided|decision|chose|choose|going with)\b[^:：]*[:：]\s*(.+)$|^[^:：]*决定[^:：]*[:：]\s*(.+)$",
    )
});
/// "Remember that …", "Note that …": the request to keep it is not part of the fact.
pub(super) static REMEMBER_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:please\s+)?(?:remember|note|keep in mind|bear in mind|don'?t forget|make a note)(?:\s+that|\s+to)?[,:]?\s+|^(?:请)?(?:记住|记得|别忘了)[，,：:]?\s*",
    )
});
/// "I want to create instructions that state that …", "Mention that …", "Add a rule to
/// AGENTS.md that …": the order to write a rule down wraps the rule; what follows "that" is
/// what the rule says.
static WRITE_DOWN_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:i want (?:you )?to|i'?d like (?:you )?to|let'?s|please|we (?:need|should) (?:to )?)\s+)?(?:(?:create|write|add|put|make)\s+(?:an?\s+|the\s+|some\s+)?(?:instructions?|rules?|guidelines?|notes?)(?:\s+(?:in|to|into)\s+\S+)?\s+(?:that\s+)?(?:(?:state|say)s?\s+)?that|(?:mention|document|state|clarify)\s+that)[,:]?\s+",
    )
});
/// Where the English discourse lead of `s` ends, if it has one. "so" leads only when it is no
/// part of a phrase: "okay so far we have a planet" keeps "so far we have a planet".
fn discourse_lead_end(s: &str) -> Option<usize> {
    static SO_PHRASE: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^(?:far|much|many|long as|called|to speak)\b"));
    let m = LEAD_EN.find(s)?;
    let lead = m.as_str().trim_end();
    // The lead's last word, "so" in any case, with what came before it.
    let before_so = lead
        .len()
        .checked_sub(2)
        .filter(|&at| lead.get(at..).is_some_and(|w| w.eq_ignore_ascii_case("so")))
        .filter(|&at| !lead[..at].ends_with(char::is_alphanumeric));
    if let Some(at) = before_so
        && SO_PHRASE.is_match(&s[m.end()..])
    {
        return (at > 0).then_some(at);
    }
    Some(m.end())
}

/// The sentence after its English discourse lead ("OK, so", "Also"), trimmed.
pub(super) fn after_discourse_lead(sentence: &str) -> &str {
    let s = sentence.trim();
    discourse_lead_end(s).map_or(s, |end| &s[end..])
}

/// Does the sentence order a rule written down ("I want to create instructions that state that
/// …", "Add a rule to AGENTS.md that …")? The user means it to hold beyond the task: evidence
/// that it lasts.
pub fn writes_a_rule_down(sentence: &str) -> bool {
    let s = after_discourse_lead(sentence);
    WRITE_DOWN_LEAD.find(s).is_some_and(|m| {
        let lead = m.as_str().to_lowercase();
        ["instruction", "rule", "guideline"].iter().any(|w| lead.contains(w))
    })
}
/// "I want the instructions to live in AGENTS.md, not a skill", "These rules belong in
/// CONTRIBUTING.md": where the rule written down earlier is to be kept. The definite article
/// points back at that rule; the sentence says nothing without it.
static RULES_HOME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:i|we) (?:want|need|would like|'d like)\s+)?(?:the|these|those|this|that) (?:instructions?|rules?|guidelines?)\s+(?:to |should |must |will |need to |have to |can )?(?:live|go|belong|be (?:kept|placed|put|stored|added|written|documented)|stay)\s+(?:in|into|inside|under)\s+\S",
    )
});
/// Does the sentence say where the rule written down before it lives?
pub fn names_the_rules_home(sentence: &str) -> bool {
    RULES_HOME.is_match(after_discourse_lead(sentence))
}
/// Does the sentence carry a label that calls it a rule ("Hard rule: …", "Rule for this
/// client: never deploy on Fridays", "先说两条规矩：…")? The user says it is meant to last.
pub fn labelled_a_rule(text: &str) -> bool {
    static RULE_LABEL: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\b(?:rules?|conventions?|polic(?:y|ies))\b|规矩|规则|规范"));
    label(text).is_some_and(|c| RULE_LABEL.is_match(&c[1]))
}
/// "Ok the client id is …": a bare "ok" before the clause's own first word.
static BARE_OK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:ok(?:ay)?|yeah|yep|yes|sure)\s+(?:the|our|my|we|we'?re|i'?m|it'?s|there'?s|so|please|create|add|make|do|go|use|build|write|fix|remove|delete|update|implement|run|push|commit|merge|deploy|change|move|rename)\b",
    )
});
/// "1 we're moving forward with rust": the number of the agent's question a reply answers,
/// typed before its subject with no stop.
static REPLY_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[1-9]\s+(?:we|we'?re|we'?ll|i|i'?m|i'?d|you|it'?s|they|let'?s)\b"));
/// "MMy original thinking …", "TThe build …": a capital typed twice before a word.
static DOUBLED_CAPITAL: LazyLock<Regex> = LazyLock::new(|| re(r"^(\p{Lu})(\p{Lu}\p{Ll}+)\b"));

static MOMENT_CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?:before|after|while|once|when) (?:you|we|i) [^,]{0,40}\b(?:that|this|it)\b[^,]{0,10},\s*")
});
static WRONG_PART: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:the (?:first|second|third|last|other) part|that part|this part|that|this|it) (?:is|was|isn'?t|wasn'?t)(?: not)? (?:quite )?(?:correct|right|true|wrong|incorrect|accurate)[,;:.]\s+",
    )
});
static LETS_CLAUSE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^let'?s [^,;]{1,50}[,;]\s*"));
/// A clause that opens with a rule's word ("we always …", "never …").
static RULE_OPENING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:we|you|it|they|this|that)(?:'ll| will)? )?(?:always|never|must(?:n'?t)?|should never|should not|don'?t ever)\b",
    )
});
/// "No, …", "Nope …", "no we use pnpm": the user sets the agent right. "No one likes …", "no
/// need to …", "no water" open with the word, not the reply.
static CORRECTION_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:nope|wrong|not quite|actually)\b[\s,.:;!—–-]+|^no(?:[,.:;!—–-][\s,.:;!—–-]*|\s+(?:no|nope|we|we'?re|you|you'?re|i|it|it'?s|its|that|that'?s|this|the|they|our|use|just|not|actually|wait|don'?t|dont|do)\b)|^(?:不对|不是|错了)[，,。 ]",
    )
});

/// The sentence without its discourse lead-in, and whether that lead-in was a correction.
pub fn without_lead(sentence: &str) -> (String, bool) {
    let mut s = sentence.trim();
    let mut correction = false;
    for _ in 0..4 {
        let before = s;
        if let Some(c) = DECIDE_LABEL.captures(s) {
            let choice = c.get(1).or(c.get(2)).expect("group").as_str();
            return (format!("Decision: {choice}"), correction);
        }
        if let Some(m) = REMEMBER_LEAD.find(s)
            && word_count(&s[m.end()..]) >= 3
        {
            s = &s[m.end()..];
        }
        if let Some(m) = WRITE_DOWN_LEAD.find(s)
            && word_count(&s[m.end()..]) >= 3
        {
            s = &s[m.end()..];
        }
        if REPLY_NUMBER.is_match(s) {
            s = s[1..].trim_start();
        }
        if BARE_OK.is_match(s) {
            s = s[s.find(char::is_whitespace).unwrap_or(0)..].trim_start();
        }
        if let Some(c) = DOUBLED_CAPITAL.captures(s)
            && c[2].starts_with(&c[1])
            && crate::text::is_function_word(&c[2])
        {
            s = &s[c[1].len()..];
        }
        // "Before you go doing that, we need …": a lead clause about the moment goes.
        if let Some(m) = MOMENT_CLAUSE.find(s)
            && word_count(&s[m.end()..]) >= 4
        {
            s = &s[m.end()..];
        }
        // "Let's do the one here as well, we always want a valid id": the request is of the
        // moment, the rule after it stands.
        if let Some(m) = LETS_CLAUSE.find(s)
            && RULE_OPENING.is_match(&s[m.end()..])
            && word_count(&s[m.end()..]) >= 4
        {
            s = &s[m.end()..];
        }
        // "The first part is not correct, for manual commits we use git hooks …": what was
        // wrong points back; the correction after it stands.
        if let Some(m) = WRONG_PART.find(s)
            && word_count(&s[m.end()..]) >= 4
        {
            let said_wrong = m.as_str().to_lowercase();
            correction |=
                said_wrong.contains("not") || said_wrong.contains("n't") || said_wrong.contains("wrong");
            s = &s[m.end()..];
        }
        if CORRECTION_LEAD.is_match(s) {
            correction = true;
        }
        if let Some(end) = discourse_lead_end(s) {
            // A lead-in word that is the whole subject ("Note Chloe reviews …" keeps "Chloe").
            s = s[end..].trim_start();
        }
        if let Some(m) = LEAD_ZH.find(s) {
            s = s[m.end()..].trim_start();
        }
        if let Some(c) = label(s).filter(|c| !is_a_time(s, c) && !VERB_OF_WHAT_FOLLOWS.is_match(&c[1])) {
            let label = c.get(1).expect("group").as_str();
            let rest = &s[c.get(0).expect("match").end()..];
            // The rest names the label's subject with a pronoun ("Change of plan on the
            // MSRV: we're bumping it …"): the label stays.
            let refers = REST_REFERS.is_match(rest);
            // "We moved off yarn: use pnpm …" — a label that states a change is the fact.
            // "CatBoost depth 8 lr 0.05: PR-AUC 0.413, chosen for the readout" — a label that
            // names a tool is what the rest is about.
            if !MEANINGFUL_LABEL.is_match(label)
                && !refers
                && !says_a_change(label)
                && super::super::vocabulary::VOCABULARY.values_in(label).is_empty()
                && word_count(label) <= 5
                && word_count(rest) >= 3
                && !label.contains('`')
            {
                s = rest;
            }
        }
        if s == before {
            break;
        }
    }
    // "specs live in spec/" → "Specs live in spec/", but never a code identifier nor a tool
    // written in lower case ("dbt 1.9 prep: …").
    (super::super::vocabulary::VOCABULARY.capitalise(s), correction)
}
