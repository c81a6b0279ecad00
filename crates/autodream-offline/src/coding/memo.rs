//! A memo: one fact of a developer's memory, and how it is written in its topic file.
//!
//! A memo line reads on its own: the user's sentence, dates made absolute, the day it was
//! learned at the end (`- Specs live in spec/, we use RSpec (2026-01-12).`). A superseded
//! memo moves under `## Superseded` and says when it was replaced
//! (`- Staging is on Heroku (2026-01-12; replaced 2026-02-03).`). Lines the engine did not
//! write (hand edits) are kept verbatim.

use std::sync::LazyLock;

use jiff::civil::Date;
use regex::Regex;
use serde::{Deserialize, Serialize};

use autodream_core::memdir::topic::{FrontMatter, Topic};

use super::subjects::Subject;
use crate::orient::SUPERSEDED_HEADING;

/// Where a memo was learned: the session (or log file), when, and which entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Source {
    /// The session id, or the daily-log file relative to the memory folder.
    pub from: String,
    /// When it was said (RFC 3339).
    pub at: String,
    /// The 1-based line of the transcript entry or log line.
    pub line: usize,
}

/// A list marker the user typed before the sentence ("- ", "* ", "2. ").
static BULLET_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[-*•]|\d{1,2}[.)])\s+").expect("valid regex"));
/// "3.We are searching for …": a list number typed against its item's first word.
static GLUED_NUMBER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d{1,2}[.)]\p{Lu}\p{Ll}").expect("valid regex"));
/// An answer to the agent before the rule ("Yes and do not wrap …", "ok so always …").
static ANSWER_LEAD_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:(?:yes|yeah|yep|ok(?:ay)?|sure|right)[,]?\s+(?:and|so|but|also)\b[,]?\s*|(?:alright|all right|okay|ok),\s+)")
        .expect("valid regex")
});
/// "Please" before an order: the order is the rule.
static PLEASE_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)^please,?\s+").expect("valid regex"));
/// "Let's instead" before a way kept as a rule ("Let's instead replace our expectations with
/// literal strings"): said to propose it, and the rule is the order.
static LETS_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^let'?s,?\s+(?:instead,?\s+)?").expect("valid regex"));
/// A smiley or emoji at the end: tone for the moment, not part of the fact.
static SMILEY_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\s*(?:[:;]-?[()DPp]|\^\^|[\x{1F300}-\x{1FAFF}\x{2600}-\x{27BF}]))+\s*([.!]?)$")
        .expect("valid regex")
});

/// The user's sentence as a line of memory: without the list marker, the answer to the
/// agent ("Yes and …"), the "please" or "let's" and the smiley it was typed with, and
/// without the parentheses around a whole aside. Nothing else of the wording changes.
pub fn tidy(text: &str) -> String {
    let mut t = text.trim();
    if GLUED_NUMBER_RE.is_match(t) {
        t = &t[t.find(['.', ')']).map_or(0, |at| at + 1)..];
    }
    let mut changed = true;
    while changed {
        changed = false;
        for re in [&*BULLET_RE, &*ANSWER_LEAD_RE, &*PLEASE_RE, &*LETS_RE] {
            // "Let's not …" without its lead would read "Not …": it stays whole.
            if let Some(m) = re.find(t)
                && t[m.end()..].split_whitespace().count() >= 3
                && !t[m.end()..].get(..4).is_some_and(|w| w.eq_ignore_ascii_case("not "))
            {
                t = t[m.end()..].trim_start();
                changed = true;
            }
        }
    }
    let mut out = SMILEY_RE.replace(t, "$1").trim().to_string();
    // "(we use go-git explicitly in other places …)": an aside said as a whole sentence.
    if out.starts_with('(')
        && let Some(inner) = out.strip_suffix(')').or_else(|| out.strip_suffix(").")).map(|i| &i[1..])
        && !inner.contains(['(', ')'])
    {
        out = inner.trim().to_string();
    }
    super::vocabulary::VOCABULARY.capitalise(&out)
}

/// One fact.
#[derive(Debug, Clone, PartialEq)]
pub struct Memo {
    /// The topic file's stem.
    pub topic: String,
    pub text: String,
    /// The day it was learned.
    pub date: Date,
    /// The day a newer statement replaced it.
    pub replaced: Option<Date>,
    /// A line someone else wrote into our file: kept verbatim, never superseded by rule.
    pub edited: bool,
    /// New in this dream.
    pub new: bool,
    pub sources: Vec<Source>,
}

static LINE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^- (?P<text>.+) \((?P<date>\d{4}-\d{2}-\d{2})(?:; replaced (?P<replaced>\d{4}-\d{2}-\d{2}))?\)\.?$",
    )
    .expect("valid regex")
});

impl Memo {
    /// The line as written in a topic file.
    pub fn line(&self) -> String {
        if self.edited {
            return format!("- {}", self.text);
        }
        let text = self.text.trim_end_matches(['.', '。']);
        match self.replaced {
            Some(on) => format!("- {text} ({}; replaced {on}).", self.date),
            None => format!("- {text} ({}).", self.date),
        }
    }

    /// Reads a bullet line back; `None` for a line that is not a bullet.
    pub fn parse(topic: &str, line: &str, superseded: bool, fallback_date: Date) -> Option<Memo> {
        let rest = line.strip_prefix("- ")?;
        if let Some(c) = LINE_RE.captures(line) {
            let date = c["date"].parse().ok()?;
            let replaced = c.name("replaced").and_then(|m| m.as_str().parse().ok());
            let replaced = if superseded { replaced.or(Some(date)) } else { replaced };
            return Some(Memo {
                topic: topic.to_string(),
                text: c["text"].to_string(),
                date,
                replaced,
                edited: false,
                new: false,
                sources: Vec::new(),
            });
        }
        Some(Memo {
            topic: topic.to_string(),
            text: rest.to_string(),
            date: fallback_date,
            replaced: superseded.then_some(fallback_date),
            edited: true,
            new: false,
            sources: Vec::new(),
        })
    }

    /// The comparison key of the text: lowercase words, dates and punctuation left out.
    pub fn key(&self) -> String {
        key_of(&self.text)
    }
}

/// "on 2026-03-18 (on 2026-03-18)": an author's own hint resolved to the date just written
/// says it twice; once is enough.
pub fn without_repeated_dates(text: &str) -> String {
    static REPEAT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(\d{4}-\d{2}-\d{2})\s*\((?:on )?(\d{4}-\d{2}-\d{2})\)").expect("valid regex")
    });
    REPEAT
        .replace_all(
            text,
            |c: &regex::Captures<'_>| {
                if c[1] == c[2] { c[1].to_string() } else { c[0].to_string() }
            },
        )
        .into_owned()
}

/// The comparison key of a fact text.
pub fn key_of(text: &str) -> String {
    let without = crate::dates::without_dates(text);
    without
        .split(|c: char| !(c.is_alphanumeric() || crate::text::is_cjk(c)))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a key, for near-duplicate detection (CJK as character pairs).
fn tokens(key: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for w in key.split(' ') {
        if w.chars().any(crate::text::is_cjk) {
            let chars: Vec<char> = w.chars().collect();
            for pair in chars.windows(2) {
                out.insert(pair.iter().collect());
            }
            if chars.len() == 1 {
                out.insert(w.to_string());
            }
        } else {
            out.insert(w.to_string());
        }
    }
    out
}

/// Do two fact texts say the same thing (nearly the same words)?
pub fn same_fact(a: &str, b: &str) -> bool {
    let (ka, kb) = (key_of(a), key_of(b));
    if ka == kb {
        return true;
    }
    if super::updates::differ_only_in_value(a, b) {
        return false;
    }
    let (ta, tb) = (tokens(&ka), tokens(&kb));
    let inter = ta.intersection(&tb).count();
    let union = ta.union(&tb).count().max(1);
    // "… runs on every merge" and "… never runs on every merge" are near in words, opposite
    // in meaning.
    let turned = ta.symmetric_difference(&tb).any(|w| TURNING_WORDS.contains(&w.as_str()));
    !turned && (inter * 10 >= union * 8 || says_it_with_more_words(&ta, &tb))
}

/// Words that turn a statement round when added to it.
/// ("don't" is keyed as "don" and "t").
const TURNING_WORDS: &[&str] = &["not", "no", "never", "t", "only", "instead"];

/// One statement said again with an aside added ("The trailer is just Checkpoint:" and "The
/// trailer is just Checkpoint:, or it's even the commit message"): every word of the shorter
/// one is in the longer, and the shorter is a whole statement (six words or more).
fn says_it_with_more_words(
    a: &std::collections::BTreeSet<String>,
    b: &std::collections::BTreeSet<String>,
) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 6 && short.is_subset(long)
}

/// A topic file read back: its memos and the prose lines it holds besides them.
pub struct ReadBack {
    pub memos: Vec<Memo>,
    pub notes: Vec<String>,
}

/// Reads one of our topic files.
pub fn read_topic_file(topic: &str, text: &str, today: Date) -> ReadBack {
    let parsed = Topic::parse(text);
    let mut memos = Vec::new();
    let mut notes = Vec::new();
    let mut superseded = false;
    for line in parsed.body.lines() {
        let trimmed = line.trim_end();
        if trimmed.starts_with('#') {
            superseded = trimmed == SUPERSEDED_HEADING;
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        match Memo::parse(topic, trimmed, superseded, today) {
            Some(m) => memos.push(m),
            None => notes.push(trimmed.to_string()),
        }
    }
    ReadBack { memos, notes }
}

/// Renders a topic file: front matter as the agent's client writes it, the title, notes,
/// current memos, then the superseded ones.
pub fn topic_file(
    subject: &Subject,
    slug: &str,
    description: &str,
    notes: &[String],
    memos: &[&Memo],
) -> String {
    let front = FrontMatter {
        name: Some(slug.to_string()),
        description: Some(description.to_string()),
        kind: Some(subject.kind.as_str().to_string()),
        updated: None,
        metadata: None,
    };
    let mut out = front.render();
    out.push_str(&format!("# {}\n\n", subject.title));
    for n in notes {
        out.push_str(n);
        out.push('\n');
    }
    let (current, old): (Vec<&&Memo>, Vec<&&Memo>) = memos.iter().partition(|m| m.replaced.is_none());
    for m in &current {
        out.push_str(&m.line());
        out.push('\n');
    }
    if !old.is_empty() {
        out.push('\n');
        out.push_str(SUPERSEDED_HEADING);
        out.push('\n');
        for m in &old {
            out.push_str(&m.line());
            out.push('\n');
        }
    }
    out
}

/// A continuation, an aside or a list label: not a statement that stands on its own.
static NOT_A_STATEMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[(\[{,;:.…-]|[A-Za-z0-9][).]\s|E\.g\.|I\.e\.|(?:No|Nah|Or|And|But|So|Which|Yeah|Yes|Ok|Okay|Well|Also|Then)\b)")
        .expect("valid regex")
});

/// Does the text start as a continuation, an aside or a list label ("Which …", "(note …",
/// "A) …", "Nah …", "E.g. …")? Such a fact never leads an index hook.
pub fn is_fragment(text: &str) -> bool {
    NOT_A_STATEMENT.is_match(text.trim())
}

/// Does the fact read as a statement on its own: it starts with a capital, a code span, a path
/// or a CJK character, is no continuation or aside, and points at nothing it does not name?
pub fn reads_as_statement(text: &str) -> bool {
    let t = text.trim();
    let first = t.split_whitespace().next().unwrap_or("");
    let starts_well =
        t.chars().next().is_some_and(|c| c.is_uppercase() || c == '`' || crate::text::is_cjk(c))
            || crate::render::is_code_name(first);
    starts_well && !NOT_A_STATEMENT.is_match(t) && !super::has_hole(t) && !super::has_pronoun_subject(t)
}

/// The index hook of a topic: the gists of its current memos, newest first, joined with
/// "; " within `max_chars`.
pub fn hook(memos: &[&Memo], max_chars: usize) -> String {
    let mut current: Vec<&&Memo> = memos.iter().filter(|m| m.replaced.is_none()).collect();
    // Every fact of the topic was replaced: the index says so rather than name a value that no
    // longer holds, or describe the topic as if it held something.
    if current.is_empty()
        && let Some(last) = memos.iter().filter_map(|m| m.replaced).max()
    {
        return format!("Only replaced facts, kept as history (the last replaced on {last})");
    }
    // Readable statements first (the index is loaded into every session: no fragment leads it),
    // then standing rules (what the agent must do or never do), then other ways of working it
    // is told ("Use the british spelling"), then what more sessions said, then the newest facts.
    current.sort_by_key(|m| {
        let sessions =
            m.sources.iter().map(|s| s.from.as_str()).collect::<std::collections::BTreeSet<_>>().len();
        (
            std::cmp::Reverse(reads_as_statement(&m.text)),
            std::cmp::Reverse(super::kinds::is_rule(&m.text)),
            std::cmp::Reverse(super::durable::prescribes(&m.text)),
            std::cmp::Reverse(sessions),
            std::cmp::Reverse(m.date),
        )
    });
    let mut out = String::new();
    let count = current.len();
    for (i, m) in current.into_iter().enumerate() {
        let room = max_chars.saturating_sub(out.chars().count() + if out.is_empty() { 0 } else { 2 });
        if room < 25 {
            break;
        }
        // With more facts to come, a fact's gist leaves room for the next when it can be cut
        // at a clause ("… TRANSFORMING_WH_M, the medium warehouse — the small one was
        // queueing"): two facts named say more of the topic than one told at length. A rule
        // is told whole ("… only through Flyway — never edit an applied migration").
        let share =
            if i + 1 < count && !super::kinds::is_rule(&m.text) { room.min(max_chars * 3 / 5) } else { room };
        let g = match super::gist::gist(&m.text, share) {
            cut if cut.ends_with('…') => super::gist::gist(&m.text, room),
            g => g,
        };
        // A decision cut before what was chosen ("Transcript Size") names nothing.
        if super::choices::is_pick(&m.text) && !super::choices::is_pick(&g) {
            continue;
        }
        if g.ends_with('…') && !out.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str(&g);
    }
    out
}

/// Keeps the memory within `max_bytes`: the oldest superseded facts go first, then the
/// oldest current ones; hand-written lines always stay. Returns what was moved out.
pub fn bound_size(memos: &mut Vec<Memo>, max_bytes: usize) -> Vec<Memo> {
    let size = |ms: &[Memo]| ms.iter().map(|m| m.line().len() + 1).sum::<usize>();
    let mut out = Vec::new();
    while size(memos) > max_bytes {
        let victim = memos
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.edited)
            .min_by_key(|(i, m)| (m.replaced.is_none(), m.date, *i))
            .map(|(i, _)| i);
        match victim {
            Some(i) => out.push(memos.remove(i)),
            None => break,
        }
    }
    out
}

/// "That's how we do all tests here", "Make that standard in your workflow", with the order
/// before it that it makes standing ("Please use table-driven tests." → "Use table-driven
/// tests. That's how …").
pub(crate) fn with_the_order_before(order: &str, kept: &str) -> String {
    let (lead, _) = super::durable::without_lead(order);
    let lead = lead.trim_start_matches("Please ").trim_start_matches("please ");
    one_after_another(&crate::render::capitalise_first(lead), kept)
}

/// Two sentences as one line: "A. B", or "甲。乙" (no space after a full-width stop).
pub(super) fn one_after_another(first: &str, second: &str) -> String {
    let first = terminate(first);
    let gap = if first.ends_with(['。', '！', '？']) { "" } else { " " };
    format!("{first}{gap}{second}")
}

/// `s` ending in a stop, by the renderer's rule.
pub(super) fn terminate(s: &str) -> String {
    let mut out = s.to_string();
    crate::render::terminate(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_loses_what_it_was_typed_with() {
        for (typed, line) in [
            ("Please use the british spelling :)", "Use the british spelling"),
            (
                "- entire enable now installs hooks using the wrapper script by default",
                "Entire enable now installs hooks using the wrapper script by default",
            ),
            ("Yes and do not wrap long lines in the markdown", "Do not wrap long lines in the markdown"),
            (
                "(we use go-git explicitly in other places to not be dependent on a checkout)",
                "We use go-git explicitly in other places to not be dependent on a checkout",
            ),
            ("* Add a README into the e2e dir 🙂.", "Add a README into the e2e dir."),
            (
                "Alright, for every test i'd like literal expectations instead of Contains checks",
                "For every test i'd like literal expectations instead of Contains checks",
            ),
            (
                "Let's instead replace our expectations with literal multiline strings",
                "Replace our expectations with literal multiline strings",
            ),
            (
                "3.We are searching for new services to integrate",
                "We are searching for new services to integrate",
            ),
        ] {
            assert_eq!(tidy(typed), line);
        }
        // What is the fact stays: a short order keeps its "please", a parenthesis inside stays.
        for kept in [
            "Please don't.",
            "Let's not vendor the SDK into the repo",
            "Use pnpm (not npm) for installs",
            "Yes is the default answer here",
            "Ship it :) and tag it",
            "3.5 is the minimum Python here",
            "2.x releases are frozen",
        ] {
            assert_eq!(tidy(kept), kept);
        }
    }

    fn memo(text: &str, date: &str, replaced: Option<&str>) -> Memo {
        Memo {
            topic: "t".into(),
            text: text.into(),
            date: date.parse().unwrap(),
            replaced: replaced.map(|d| d.parse().unwrap()),
            edited: false,
            new: true,
            sources: vec![],
        }
    }

    #[test]
    fn lines_round_trip() {
        for m in [
            memo("Use pnpm for everything", "2026-03-09", None),
            memo("Staging is on Heroku", "2026-01-12", Some("2026-02-03")),
        ] {
            let back = Memo::parse("t", &m.line(), m.replaced.is_some(), Date::constant(2026, 1, 1)).unwrap();
            assert_eq!(
                (back.text.as_str(), back.date, back.replaced, back.edited),
                (m.text.as_str(), m.date, m.replaced, false)
            );
        }
        let hand = Memo::parse("t", "- a line I wrote myself", false, Date::constant(2026, 1, 1)).unwrap();
        assert!(hand.edited);
        assert_eq!(hand.line(), "- a line I wrote myself");
    }

    #[test]
    fn hooks_lead_with_rules_then_the_newest_facts_within_the_limit() {
        let a = memo(
            "Use yarn, not npm, the repo is on yarn.lock and npm makes a mess of it",
            "2026-03-02",
            Some("2026-03-09"),
        );
        let b = memo("yarn.lock is deleted; use pnpm for installs, scripts, everything", "2026-03-09", None);
        let c =
            memo("Never dump .env files; read .env.example to see which variables exist", "2026-03-04", None);
        let h = hook(&[&a, &b, &c], 150);
        assert!(
            h.starts_with(
                "Never dump .env files; read .env.example to see which variables exist; yarn.lock is deleted; use pnpm"
            ),
            "{h}"
        );
        assert!(h.chars().count() <= 150);
        assert!(!h.contains("npm makes a mess"));
        // A topic whose every fact was replaced names no value that no longer holds.
        let older = memo("The project is generated with Projucer", "2026-03-01", Some("2026-03-05"));
        assert_eq!(
            hook(&[&a, &older], 150),
            "Only replaced facts, kept as history (the last replaced on 2026-03-09)"
        );
    }

    #[test]
    fn a_fact_told_at_length_leaves_room_for_the_next_but_a_rule_is_told_whole() {
        let moved = memo(
            "Platform moved our runs to TRANSFORMING_WH_M, the medium warehouse — the small one was queueing all morning",
            "2026-02-24",
            None,
        );
        let decided =
            memo("Decision: we're moving orchestration from Airflow to Dagster", "2026-02-11", None);
        assert_eq!(
            hook(&[&moved, &decided], 140),
            "Platform moved our runs to TRANSFORMING_WH_M, the medium warehouse; Decision: we're moving orchestration from Airflow to Dagster"
        );
        let rule = memo(
            "Schema changes only through Flyway — never edit an applied migration, always add a new V file",
            "2026-02-01",
            None,
        );
        assert!(hook(&[&rule, &decided], 140).starts_with(
            "Schema changes only through Flyway — never edit an applied migration, always add a new V file"
        ));
    }

    #[test]
    fn a_decision_cut_before_what_was_chosen_is_no_hook() {
        let pick = memo(
            "Transcript Size. Chosen: Pre-extract key content (all user prompts, assistant responses and key tool actions): Controlled size, cheaper; not Full transcript via stdin",
            "2026-01-28",
            None,
        );
        let rule = memo("If there is error, always exit with os.Exit(1)", "2026-01-29", None);
        let rule2 = memo("If error is type of cli.SilentError, do not print anything", "2026-01-29", None);
        let h = hook(&[&pick, &rule, &rule2], 140);
        assert!(!h.contains("Transcript Size"), "{h}");
    }

    #[test]
    fn hooks_lead_with_statements_that_stand_alone() {
        let aside = memo("(note the hooks run the latest build every time)", "2026-03-09", None);
        let label = memo("A) So, I am thinking the cache goes first", "2026-03-09", None);
        let plain = memo("Release tags are cut from the main branch only", "2026-03-01", None);
        let h = hook(&[&aside, &label, &plain], 150);
        assert!(h.starts_with("Release tags are cut from the main branch only"), "{h}");
        assert!(reads_as_statement("yarn.lock is deleted; use pnpm"));
        assert!(!reads_as_statement("No don't set it, let's wait"));
        assert!(!reads_as_statement("which is what the CLI expects"));
        assert!(is_fragment("(note the hooks run the latest build)") && is_fragment("Nah let's roll back"));
        assert!(is_fragment("E.g. commit hook, the reviewer runs"));
        assert!(!is_fragment("Nightly builds run at 02:00 UTC."));
    }

    #[test]
    fn near_duplicates_are_the_same_fact() {
        assert!(same_fact("We use RSpec, specs live in spec/.", "we use RSpec; specs live in spec/"));
        assert!(!same_fact("We use RSpec.", "We use Pest, not PHPUnit classes."));
        // The same statement with an aside added is the same fact; one turned round is not.
        assert!(same_fact(
            "The trailer in entire/checkpoints/v1 is just \"Checkpoint:\" not \"Entire-Checkpoint:\".",
            "The trailer in entire/checkpoints/v1 is just \"Checkpoint:\" not \"Entire-Checkpoint:\", maybe even the commit message."
        ));
        assert!(!same_fact(
            "The release job runs on every merge to main.",
            "The release job never runs on every merge to main."
        ));
    }

    #[test]
    fn two_statements_that_differ_only_in_a_value_are_two_values() {
        assert!(super::super::updates::differ_only_in_value(
            "We use Kysely for the API.",
            "We use Prisma for the API."
        ));
        assert!(super::super::updates::differ_only_in_value(
            "The API listens on 8081.",
            "The API listens on 8080."
        ));
        assert!(!same_fact("We use Kysely for the API.", "We use Prisma for the API."));
        // Another part of the project, or other words, is no other value.
        assert!(!super::super::updates::differ_only_in_value(
            "We use Prisma for the CLI.",
            "We use Prisma for the API."
        ));
        assert!(!super::super::updates::differ_only_in_value(
            "We use Prisma for the API.",
            "We really like Prisma for the API."
        ));
    }
}
