//! Extract: statements become facts.
//!
//! A statement is split into sentences; each is stripped of leading filler and vocatives
//! ("Wow, Maria! …"), dropped when it is a question, a greeting or plain small talk, and
//! otherwise kept *verbatim* — the concrete words are what later questions ask for. First
//! person is attributed to the speaker ("I adopted a puppy" → "Caroline adopted a puppy"),
//! relative dates are annotated against the statement's own day, and the fact is routed
//! to a topic: the speaker's file in a conversation between people; for a coding agent's
//! user, the feedback, user, project or reference file by what the sentence is. A coding
//! user's words are kept only when they are durable (a preference, a correction, a
//! decision, a fact about the user or the project, an explicit "remember …"): task
//! requests and ephemeral state are not memory.

use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;

use autodream_core::memdir::topic::MemoryType;

use crate::dates;
use crate::fact::{Fact, Origin, TopicInfo};
use crate::gather::{Statement, Voice};
use crate::salience::Scorer;
use crate::text::{
    ADVERBS, drop_intensifiers, load_list, split_clauses_about, split_sentences, stable_hash, words,
};

mod attribute;
pub use attribute::attribute;
use attribute::{capitalise_first, terminate};

/// Facts worth less than this (content × how it is said) are small talk and are not kept
/// anywhere.
pub const MIN_VALUE: f32 = 0.6;
/// Weight of a statement made in reply to a question.
pub const REPLY_WEIGHT: f32 = 1.4;
/// Weight of a speaker's first statement in a session.
pub const OPENING_WEIGHT: f32 = 1.3;
/// Weight of the clauses of a sentence that says when it happened.
pub const DATED_SENTENCE_WEIGHT: f32 = 3.0;
/// Weight of the sentences of a turn that says when something happened.
pub const DATED_TURN_WEIGHT: f32 = 1.5;
/// A clause of fewer words is an exclamation or a fragment ("Mel!", "So true").
pub const MIN_WORDS: usize = 3;

/// Interjections and filler that may open a sentence, followed by any punctuation or space.
static LEAD_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:(?:(?:much|a lot|so much|lots)(?: has (?:happened|changed|been going on))? )?since (?:we|i) (?:last )?(?:spoke|talked|chatted|caught up|saw each ?other)(?: last)?|last time we (?:spoke|talked|chatted|saw each ?other)|hey+|hi+|hello|hiya|yo|wow+|whoa|woah|yeah+|yep|yup|oh+|ah+|aw+|haha+|hah|lol|omg|ok|okay|congrats|congratulations|thanks|thank you|thank you so much|thanks so much|btw|by the way|anyway|anyways|guess what|you know what|hmm+|um+|phew|gosh|geez|oh my god|oh man|oh wow|whoa|aww+|yay+|woo+|woohoo|hooray|dude|man|girl|sis|bro|buddy|friend)\b[\s,!.:;…~—–-]*|(?:so|well|sure|yes|no|totally|absolutely|definitely|honestly|seriously|true|right|indeed|agreed|exactly|cool|awesome|great|nice|sweet|amazing|and|also|plus|oh and)\s*[,!.:;…—–-]+\s*)",
    )
    .expect("valid regex")
});
static GREETING_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:it'?s |it was )?(?:(?:so |really )?(?:good|nice|great|lovely) (?:to )?(?:see|hear|chat|talk|catch up)|long time no (?:see|talk|chat)|(?:it'?s |it has )?been (?:a while|a bit|ages|forever|so long|too long|a minute)(?: since)?|how (?:are|have) you|how'?s it going|how'?s everything|what'?s up|talk (?:to you )?(?:soon|later)|see (?:you|ya)|take care|catch you|have a (?:good|great|nice|wonderful)|hope you(?:'re| are)? (?:doing )?(?:well|good|great|ok|okay|alright)|hope (?:all'?s|all is|everything'?s|everything is) (?:good|well)|bye|good ?night|good morning|i'?m (?:doing )?(?:good|great|fine|well)(?: thanks)?|same here|me too|you too|no problem|no worries|you'?re welcome|anytime|of course|for sure|sounds (?:good|great|fun|awesome|amazing|like a plan))\b",
    )
    .expect("valid regex")
});
static REMEMBER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:please |pls |and )?(?:remember|don'?t forget|note|keep in mind|make a note)(?: that|:|,)?\s+(.+)$")
        .expect("valid regex")
});
static REMEMBER_ZH_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:请)?(?:记住|记得|别忘了)[，,：:]?\s*(.+)$").expect("valid regex"));

// Coding-agent users: what makes a sentence durable, and which file it belongs to.
static REFERENCE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)https?://\S+|\b(?:dashboard|runbook|wiki|tracker|jira|linear|grafana|slack channel|#[a-z][\w-]+ channel|notion|confluence|sentry|datadog|pagerduty|on-call|oncall|board)\b")
        .expect("valid regex")
});
static FEEDBACK_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:always|never|don'?t|do not|stop|avoid|prefer|instead of|rather than|from now on|going forward|in the future|make sure|no need to|shouldn'?t|should not|please (?:use|keep|write|run|add|don'?t)|we use|we don'?t|use \S+(?: \S+)?,? not)\b|不要|别再|总是|永远|以后|优先|而不是")
        .expect("valid regex")
});
static USER_FACT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:i'?m an? |i am an? |my name is|i work (?:on|at|as|for|in)|i (?:maintain|own|run|manage|lead|build|support)|my role|my team|my background|i'?ve been (?:a|an|working|using|doing)|i (?:like|love|hate|prefer|enjoy)|i don'?t like|i usually|i'?m new to|i'?m (?:familiar|comfortable|experienced) with)|\bI'?m \p{Lu}\p{Ll}+\b|我是|我在|我的工作|我喜欢|我不喜欢")
        .expect("valid regex")
});
static PROJECT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:deadline|releases?|launch|freeze|milestone|due (?:on|by)|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next week|the end of)|we decided|we'?re going with|we'?ll go with|let'?s go with|decided to|the plan is|migrat\w*|roadmap|sprint|customers?|stakeholders?|compliance|legal|deprecat\w*|because the|the reason|deploy\w*|ships?|shipping|we (?:moved|switched|replaced|dropped|adopted)|no longer|manager|owner|signs? off|approves?|on-call|error budget|sla|slo|uptime|availability|staging|production)\b|截止|发布|上线|决定|计划|部署")
        .expect("valid regex")
});

/// A sentence that gives the reason for the one before it.
static EXPLANATION_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:because|since|so that|otherwise|makes?|made|causes?|caused|breaks?|broke|hid|leads? to|means?|that way)\b")
        .expect("valid regex")
});

/// Verbs whose past tense is written like their present ("I read", "I put"): `words/same_in_past.txt`.
static SAME_IN_PAST: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| load_list(include_str!("words/same_in_past.txt")));
/// A sentence about the past: "yesterday", "last week", "two days ago", "in 2019".
static PAST_MARKER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:yesterday|last (?:night|week|weekend|month|year|summer|winter|spring|fall|autumn|time|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|ago|earlier|once|when I was|back then|(?:in|back in) (?:19|20)\d\d)\b")
        .expect("valid regex")
});

/// Removes leading filler and vocatives, and a trailing vocative.
pub fn strip_filler<'a>(sentence: &'a str, names: &[String]) -> &'a str {
    let mut s = sentence.trim();
    loop {
        let before = s.len();
        if let Some(m) = LEAD_RE.find(s) {
            if m.end() > 0 && m.end() < s.len() {
                s = s[m.end()..].trim_start();
            } else if m.end() == s.len() {
                return "";
            }
        }
        // A leading vocative: "Maria, …" / "Maria! …".
        for name in names {
            if let Some(rest) = s.strip_prefix(name.as_str())
                && let Some(rest) = rest.strip_prefix([',', '!', '.', ':', '-', '—'])
            {
                s = rest.trim_start();
            }
        }
        if s.len() == before {
            break;
        }
    }
    // A trailing vocative: "…, Maria!".
    for name in names {
        let pat = format!(", {name}");
        if let Some(pos) = s.rfind(&pat)
            && pos > 0
            && s[pos + pat.len()..].chars().all(|c| !c.is_alphanumeric())
        {
            return s[..pos].trim_end();
        }
    }
    s
}

/// A statement ending in a tag question ("…, right?") is a statement.
static TAG_QUESTION_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i),\s*(?:right|huh|eh|isn'?t it|aren'?t they|don'?t you think|you know|no|yeah)\s*\?+[!.]*\s*$",
    )
    .expect("valid regex")
});

/// The sentence without a trailing tag question.
pub fn strip_tag_question(s: &str) -> std::borrow::Cow<'_, str> {
    TAG_QUESTION_RE.replace(s, ".")
}

/// Is the sentence a question (its final mark, quotes and brackets aside)?
pub fn is_question(s: &str) -> bool {
    let t = s.trim_end_matches(|c: char| {
        matches!(c, '"' | '\'' | ')' | ']' | '”' | '’' | '!' | ' ') || is_emoji(c)
    });
    t.ends_with('?') || t.ends_with('？')
}

fn is_emoji(c: char) -> bool {
    matches!(c as u32, 0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0xFE0F)
}

/// Greetings, thanks and other small talk (checked after [`strip_filler`]).
pub fn is_small_talk(s: &str) -> bool {
    GREETING_RE.is_match(s) || !s.chars().any(char::is_alphanumeric)
}

/// The topic files facts are routed to; created on first use.
#[derive(Debug, Default)]
pub struct Topics {
    pub by_slug: BTreeMap<String, TopicInfo>,
    /// The project's display name (the project folder's name), for `project_<slug>.md`.
    pub project: Option<String>,
    /// File stems taken by files the engine does not own: never written, so a topic that
    /// would land there gets the next free stem (`user-2`).
    pub reserved: std::collections::BTreeSet<String>,
}

impl Topics {
    /// The slug of the topic `wanted` names, given that it is `info` when created.
    fn slot(&mut self, wanted: String, make: impl Fn(String) -> TopicInfo) -> String {
        if let Some(existing) = self.by_slug.get(&wanted) {
            return existing.slug.clone();
        }
        // A topic we already route elsewhere because its natural stem was taken.
        if let Some(t) = self.by_slug.values().find(|t| {
            t.slug.strip_prefix(&wanted).is_some_and(|r| r.starts_with('-'))
                && make(t.slug.clone()).title == t.title
        }) {
            return t.slug.clone();
        }
        let mut slug = wanted.clone();
        let mut n = 2;
        while self.reserved.contains(&slug) {
            slug = format!("{wanted}-{n}");
            n += 1;
        }
        self.by_slug.entry(slug.clone()).or_insert_with(|| make(slug.clone()));
        slug
    }

    pub fn person(&mut self, name: &str) -> String {
        let name = name.to_string();
        self.slot(crate::text::slug(&name), |slug| TopicInfo {
            slug,
            title: name.clone(),
            kind: MemoryType::User,
            person: Some(name.clone()),
        })
    }

    pub fn typed(&mut self, kind: MemoryType) -> String {
        let (wanted, title) = match kind {
            MemoryType::User => ("user".to_string(), "User".to_string()),
            MemoryType::Feedback => ("feedback".to_string(), "Feedback".to_string()),
            MemoryType::Reference => ("reference".to_string(), "References".to_string()),
            MemoryType::Project => match &self.project {
                Some(p) => (format!("project_{}", crate::text::slug(p)), format!("Project {p}")),
                None => ("project".to_string(), "Project".to_string()),
            },
        };
        self.slot(wanted, |slug| TopicInfo { slug, title: title.clone(), kind, person: None })
    }
}

/// Everything extraction produced.
#[derive(Debug, Default)]
pub struct Extracted {
    pub facts: Vec<Fact>,
    /// For each fact, the clause as it was said (before attribution and dating): what an
    /// echo of the engine's own output would look like in a transcript.
    pub said: Vec<String>,
    /// Sentences dropped as questions, small talk or too little to keep.
    pub dropped: usize,
    pub redactions: usize,
}

/// Classifies a coding user's sentence; `None` = not durable memory.
fn classify_user_sentence(s: &str, remembered: bool) -> Option<MemoryType> {
    if REFERENCE_RE.is_match(s) {
        Some(MemoryType::Reference)
    } else if FEEDBACK_RE.is_match(s) {
        Some(MemoryType::Feedback)
    } else if USER_FACT_RE.is_match(s) {
        Some(MemoryType::User)
    } else if PROJECT_RE.is_match(s) {
        Some(MemoryType::Project)
    } else if remembered {
        Some(MemoryType::Feedback)
    } else {
        None
    }
}

/// A daily-log note goes to the person it opens with, else by what it says.
fn classify_note(s: &str, people: &[String]) -> Result<String, MemoryType> {
    for p in people {
        if s.starts_with(p.as_str()) && s[p.len()..].starts_with([' ', '\'', '’']) {
            return Ok(p.clone());
        }
    }
    Err(classify_user_sentence(s, false).unwrap_or(MemoryType::Project))
}

/// The lead-in an automatic image caption puts before what it shows ("a photography of").
static CAPTION_LEAD_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:an? |the )?(?:photography|photograph|photo|picture|image|close up|closeup|screenshot) of ",
    )
    .expect("valid regex")
});

/// What an image caption shows, without the lead-in that says it is an image: the fact is
/// already labelled "Photo:".
pub fn caption_subject(caption: &str) -> &str {
    let c = caption.trim();
    match CAPTION_LEAD_RE.find(c) {
        Some(m) if m.end() < c.len() => &c[m.end()..],
        _ => c,
    }
}

/// Turns statements into facts, routing them to topics (created in `topics` as needed).
/// `people` are the names of everyone the memory knows (speakers and person topics).
pub fn extract(
    statements: &[Statement],
    topics: &mut Topics,
    people: &[String],
    scorer: &Scorer,
) -> Extracted {
    let mut out = Extracted::default();
    for st in statements {
        let group = stable_hash(st.source.as_bytes());
        // Facts of a session share its line, in the order they were said.
        let line_base = (st.line as u64) << 16;
        let mut sentence_index = 0u64;
        let mut context = if st.replies_to_question { REPLY_WEIGHT } else { 1.0 }
            * if st.opens_session { OPENING_WEIGHT } else { 1.0 };
        // A statement that says when something happened: its other clauses are the details
        // of that event ("last weekend - we went biking"), worth keeping with the date.
        let dated_turn = !dates::find_relative(&st.text, st.date).is_empty();
        if dated_turn {
            context *= DATED_TURN_WEIGHT;
        }
        // One sentence becomes clause facts. Each clause is attributed on its own (a clause
        // kept without its neighbours still says who), then dated against the statement's day.
        let mut push = |out: &mut Extracted,
                        topic: String,
                        speaker: Option<&str>,
                        subject: Option<&str>,
                        sentence: &str,
                        pinned: bool| {
            let sentence = terminate(capitalise_first(sentence.trim()));
            let dated_sentence = !dates::find_relative(&sentence, st.date).is_empty();
            let context = if dated_sentence { context * DATED_SENTENCE_WEIGHT } else { context };
            let seq_base = line_base | (sentence_index << 8);
            sentence_index += 1;
            for (ci, (lead, clause)) in split_clauses_about(&sentence, subject).into_iter().enumerate() {
                // A clause split off a sentence can be small talk on its own ("… since we
                // last talked").
                if ci > 0 && !pinned && (strip_filler(clause, &[]).is_empty() || is_small_talk(clause)) {
                    out.dropped += 1;
                    continue;
                }
                let plain = drop_intensifiers(clause);
                let attributed = match speaker {
                    Some(name) => attribute(&plain, name),
                    None => plain.into_owned(),
                };
                let text = dates::resolve(&attributed, st.date);
                let text = if ci == 0 { capitalise_first(&text) } else { text };
                let scored = scorer.score_about(&text, subject);
                // CJK has no spaces: two characters count as a word.
                let word_count = words(&text).len() + crate::text::cjk_bigrams(&text).len().div_ceil(2);
                if (scored.value < MIN_VALUE || word_count < MIN_WORDS) && !pinned {
                    out.dropped += 1;
                    continue;
                }
                out.said.push(clause.to_string());
                out.facts.push(Fact {
                    topic: topic.clone(),
                    date: st.date,
                    text,
                    group,
                    seq: seq_base | ci as u64,
                    lead: lead.to_string(),
                    origin: Origin::New,
                    source: st.source.clone(),
                    salience: scored.value,
                    superseded_on: None,
                    pinned,
                    context,
                });
            }
        };
        let mut last_kind: Option<MemoryType> = None;
        for raw in split_sentences(&st.text) {
            let untagged = strip_tag_question(raw);
            let s = strip_filler(&untagged, people);
            if s.is_empty() || is_question(s) || is_small_talk(s) {
                out.dropped += 1;
                continue;
            }
            let (s, remembered) = match REMEMBER_RE.captures(s).or_else(|| REMEMBER_ZH_RE.captures(s)) {
                Some(c) => (c.get(1).map_or(s, |m| m.as_str()), true),
                None => (s, false),
            };
            match &st.voice {
                Voice::Person(name) => {
                    let topic = topics.person(name);
                    push(&mut out, topic, Some(name), Some(name), s, remembered);
                }
                Voice::User => {
                    // The reason given right after a rule belongs with the rule ("Use rebase,
                    // not merge. Merge commits make our history unreadable.").
                    let explains = last_kind.filter(|_| EXPLANATION_RE.is_match(s));
                    let Some(kind) = classify_user_sentence(s, remembered).or(explains) else {
                        out.dropped += 1;
                        last_kind = None;
                        continue;
                    };
                    last_kind = Some(kind);
                    let topic = topics.typed(kind);
                    push(&mut out, topic, Some("the user"), Some("the user"), s, remembered);
                }
                Voice::Note => {
                    let (topic, subject) = match classify_note(s, people) {
                        Ok(person) => (topics.person(&person), Some(person)),
                        Err(kind) => (topics.typed(kind), None),
                    };
                    // A note is already written about someone: nothing to attribute.
                    push(&mut out, topic, None, subject.as_deref(), s, true);
                }
            }
        }
        if let Voice::Person(name) = &st.voice {
            for image in &st.images {
                let topic = topics.person(name);
                push(&mut out, topic, None, Some(name), &format!("Photo: {}", caption_subject(image)), false);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["Caroline".to_string(), "Melanie".to_string(), "Mel".to_string()]
    }

    #[test]
    fn captions_lose_their_image_lead_in() {
        assert_eq!(
            caption_subject("a photography of a sign that says trans lives matter"),
            "a sign that says trans lives matter"
        );
        assert_eq!(caption_subject("A close up of a cake"), "a cake");
        assert_eq!(caption_subject("a group of people in a park"), "a group of people in a park");
        assert_eq!(caption_subject("a photo of "), "a photo of");
    }

    #[test]
    fn filler_and_vocatives_are_stripped() {
        assert_eq!(
            strip_filler("Wow, Caroline! I went to a pride parade.", &names()),
            "I went to a pride parade."
        );
        assert_eq!(strip_filler("Hey Mel, guess what - I got a puppy!", &names()), "I got a puppy!");
        assert_eq!(strip_filler("Thanks, Melanie!", &names()), "");
        assert_eq!(strip_filler("I love it, Caroline!", &names()), "I love it");
        assert_eq!(strip_filler("No kids yet.", &names()), "No kids yet.");
        assert_eq!(
            strip_filler("Since we last spoke - I went to a conference.", &names()),
            "I went to a conference."
        );
        assert_eq!(strip_filler("Since we talked.", &names()), "");
        assert_eq!(
            strip_filler("So much since we talked! Last Fri I went out.", &names()),
            "Last Fri I went out."
        );
        assert!(is_small_talk("It's been ages since we last chatted."));
    }

    #[test]
    fn questions_and_small_talk_are_recognised() {
        assert!(is_question("What kinda jobs are you thinkin' of?"));
        assert!(is_question("Is this your own painting?!"));
        assert!(!is_question("I asked why."));
        assert_eq!(
            strip_tag_question("Sunflowers mean warmth and happiness, right?"),
            "Sunflowers mean warmth and happiness."
        );
        assert!(!is_question(&strip_tag_question("Is it warm, right?")));
        assert!(is_small_talk("Good to see you!"));
        assert!(is_small_talk("Long time no talk!"));
        assert!(!is_small_talk("Good flooring is crucial for dancers."));
    }

    #[test]
    fn first_person_is_attributed_with_agreement() {
        assert_eq!(attribute("I adopted a puppy.", "Caroline"), "Caroline adopted a puppy.");
        assert_eq!(
            attribute("I love my dog and I walk him daily.", "Nate"),
            "Nate loves their dog and they walk him daily."
        );
        assert_eq!(attribute("I'm keen on counseling.", "Caroline"), "Caroline is keen on counseling.");
        assert_eq!(attribute("I really enjoy pottery.", "Mel"), "Mel really enjoys pottery.");
        assert_eq!(attribute("I was there, I was happy.", "Jon"), "Jon was there, they were happy.");
        assert_eq!(
            attribute("My friends gave me courage.", "Caroline"),
            "Caroline's friends gave them courage."
        );
        assert_eq!(attribute("I watch movies.", "Jo"), "Jo watches movies.");
        assert_eq!(attribute("I read it last year.", "Jo"), "Jo read it last year.");
        assert_eq!(attribute("I read every night.", "Jo"), "Jo reads every night.");
        assert_eq!(attribute("I can try.", "Jo"), "Jo can try.");
        assert_eq!(
            attribute("I maintain the billing service.", "the user"),
            "the user maintains the billing service."
        );
        // Unknown words are never inflected into made-up ones.
        assert_eq!(attribute("I typically retook it.", "Jo"), "Jo typically retook it.");
        assert_eq!(attribute("I slowly formed bonds.", "Jo"), "Jo slowly formed bonds.");
        assert_eq!(attribute("我喜欢猫，我们养了两只。", "小王"), "小王喜欢猫，我们养了两只。");
    }

    #[test]
    fn coding_user_sentences_are_kept_only_when_durable() {
        assert_eq!(classify_user_sentence("Use rebase, not merge.", false), Some(MemoryType::Feedback));
        assert_eq!(
            classify_user_sentence("I'm a data scientist on the payments team.", false),
            Some(MemoryType::User)
        );
        assert_eq!(
            classify_user_sentence("Bugs are tracked in the Linear project INGEST.", false),
            Some(MemoryType::Reference)
        );
        assert_eq!(
            classify_user_sentence("We decided to freeze merges on Thursday.", false),
            Some(MemoryType::Project)
        );
        assert_eq!(
            classify_user_sentence("I'm Dana, I maintain the billing service.", false),
            Some(MemoryType::User)
        );
        assert_eq!(
            classify_user_sentence("We deploy on Fridays only, after 2pm.", false),
            Some(MemoryType::Project)
        );
        assert_eq!(
            classify_user_sentence("Yesterday we moved CI from Jenkins to GitHub Actions.", false),
            Some(MemoryType::Project)
        );
        assert_eq!(classify_user_sentence("Add a test for the parser.", false), None);
        assert_eq!(classify_user_sentence("Fix the failing build.", false), None);
    }
}
