//! Orient: read what memory already holds.
//!
//! Topic files the engine wrote are read back into facts (their lines split into the
//! sentences they were made of, with their dates), so a dream merges new knowledge into
//! old instead of appending. A line in such a file that the engine did not write — the
//! user fixed a typo, added a fact by hand — is kept verbatim as an edited fact. Topic
//! files the engine never wrote belong to someone else: they are read (their facts count
//! for duplicate detection and their bytes for the budget) and never rewritten. The
//! archive (`.archive/<topic>.md`, facts an earlier budget pruned) is read too: a fact
//! pruned when memory was small may earn its place back when memory grows.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

use jiff::civil::Date;
use regex::Regex;

use autodream_core::memdir::index::{self, IndexLine};
use autodream_core::memdir::topic::{MemoryType, Topic};
use autodream_core::memdir::{INDEX_FILE, list_topic_files};

use crate::fact::{Fact, Origin, TopicInfo};
use crate::state::EngineState;
use crate::text::{split_clauses_about, split_sentences, stable_hash};

/// The archive folder, relative to the memory directory.
pub const ARCHIVE_DIR: &str = ".archive";
/// The heading of the section holding superseded facts.
pub const SUPERSEDED_HEADING: &str = "## Superseded";

/// A day as the engine writes it (`8 May 2023`), or as ISO (`2023-05-08`, what earlier
/// versions wrote and what people type).
const DAY: &str = r"(\d{4}-\d{2}-\d{2}|\d{1,2} [A-Z][a-z]+ \d{4})";
static FACT_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^- {DAY}: (.+)$")).expect("valid regex"));
static SUPERSEDED_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^- {DAY} \(superseded {DAY}\): (.+)$")).expect("valid regex"));
static LEADING_DATE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^\s*{DAY}\b")).expect("valid regex"));

static LINE_DAY_PREFIX_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^(?:- )?{DAY}: ")).expect("valid regex"));

/// The text of a fact line without its bullet and day (`- 8 May 2023: `), as it reads when
/// someone pastes one of our lines back into a conversation.
pub fn without_line_day(text: &str) -> &str {
    LINE_DAY_PREFIX_RE.find(text).map_or_else(|| text.trim_start_matches("- "), |m| &text[m.end()..])
}

/// A topic file the engine did not write: read-only.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignFile {
    /// Path relative to the memory directory.
    pub rel: String,
    pub bytes: usize,
    pub title: String,
    /// Its description (or first sentence), for an index hook if the index forgot it.
    pub hook: String,
    /// Its bullet facts, for duplicate detection.
    pub facts: Vec<String>,
}

/// What memory already holds.
#[derive(Debug, Default)]
pub struct Oriented {
    /// Facts from the engine's topic files and archive.
    pub facts: Vec<Fact>,
    /// The engine's topics found on disk.
    pub topics: BTreeMap<String, TopicInfo>,
    /// Prose lines (not facts, not headings) found in the engine's files, kept as they are.
    pub notes: BTreeMap<String, Vec<String>>,
    pub foreign: Vec<ForeignFile>,
    /// The current index, parsed.
    pub index: Vec<IndexLine>,
    /// Files read that the engine owns (relative paths), with their current text.
    pub own_files: BTreeMap<String, String>,
    pub problems: Vec<String>,
}

/// An ISO day, or a day written `8 May 2023` (read by the absolute-date resolver; the year
/// is written, so the anchor it takes for a missing year plays no part).
fn parse_date(s: &str) -> Option<Date> {
    if let Ok(d) = s.parse::<Date>() {
        return Some(d);
    }
    match crate::dates::find_absolute(s, Date::MIN).as_slice() {
        [(0, end, crate::dates::DatePoint::Day(d))] if *end == s.len() => Some(*d),
        _ => None,
    }
}

/// Is this a file the engine wrote? By the engine's record of what it wrote. Without a
/// record (a first dream over a memory someone else started) nothing is ours: a file we
/// cannot prove we wrote is never rewritten. [`looks_like_own_file`] tells the shape apart
/// for reports.
fn is_own_file(rel: &str, state: Option<&EngineState>) -> bool {
    state.is_some_and(|s| s.files.contains_key(rel))
}

/// Does a file have the engine's shape: front matter with a type, and every bullet in the
/// engine's line format?
pub fn looks_like_own_file(text: &str) -> bool {
    let topic = Topic::parse(text);
    if topic.front.as_ref().and_then(|f| f.memory_type()).is_none() {
        return false;
    }
    let mut bullets = 0;
    for line in topic.body.lines() {
        if line.starts_with("- ") {
            bullets += 1;
            if !FACT_LINE_RE.is_match(line) && !SUPERSEDED_LINE_RE.is_match(line) {
                return false;
            }
        }
    }
    bullets > 0
}

/// Reads the memory directory (`staging`).
pub fn orient(staging: &Path, state: Option<&EngineState>, today: Date) -> Oriented {
    let mut out = Oriented::default();
    if let Ok(text) = std::fs::read_to_string(staging.join(INDEX_FILE)) {
        out.index = index::parse(&text);
    }
    let listing = match list_topic_files(staging) {
        Ok(l) => l,
        Err(e) => {
            out.problems.push(format!("cannot list topic files: {e}"));
            return out;
        }
    };
    for rel in &listing.topics {
        let path = staging.join(rel);
        let text = match std::fs::read(&path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                out.problems.push(format!("cannot read {rel}: {e}"));
                continue;
            }
        };
        if is_own_file(rel, state) && !rel.contains('/') {
            read_own_file(rel, &text, state, today, &mut out);
            out.own_files.insert(rel.clone(), text);
        } else {
            if state.is_none() && looks_like_own_file(&text) {
                out.problems.push(format!(
                    "{rel} looks like a file this engine wrote, but its record ({}) is missing: it is left as it is",
                    crate::state::STATE_PATH
                ));
            }
            out.foreign.push(read_foreign_file(rel, &text));
        }
    }
    read_archive(staging, today, &mut out);
    out
}

fn topic_info_from(rel: &str, topic: &Topic<'_>) -> TopicInfo {
    let slug = rel.strip_suffix(".md").unwrap_or(rel).to_string();
    let front = topic.front.clone().unwrap_or_default();
    let title =
        front.name.clone().or_else(|| topic.heading().map(str::to_string)).unwrap_or_else(|| slug.clone());
    let kind = front.memory_type().unwrap_or(MemoryType::User);
    let typed_slug = matches!(slug.as_str(), "user" | "feedback" | "reference" | "project")
        || slug.starts_with("project_");
    let person = (kind == MemoryType::User && !typed_slug).then(|| title.clone());
    TopicInfo { slug, title, kind, person }
}

fn read_own_file(rel: &str, text: &str, state: Option<&EngineState>, today: Date, out: &mut Oriented) {
    let topic = Topic::parse(text);
    let info = topic_info_from(rel, &topic);
    let updated =
        topic.front.as_ref().and_then(|f| f.updated.as_deref()).and_then(parse_date).unwrap_or(today);
    let mut in_superseded = false;
    for (n, line) in topic.body.lines().enumerate() {
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed == SUPERSEDED_HEADING {
            in_superseded = true;
            continue;
        }
        if trimmed.starts_with('#') {
            // Headings are the engine's layout (title, date sections): rebuilt on write.
            continue;
        }
        if !trimmed.starts_with("- ") {
            out.notes.entry(info.slug.clone()).or_default().push(trimmed.to_string());
            continue;
        }
        let written = state.is_none_or(|s| s.wrote(rel, trimmed));
        let group = stable_hash(format!("{rel}\u{0}{n}").as_bytes());
        if written
            && !in_superseded
            && let Some(c) = FACT_LINE_RE.captures(trimmed)
        {
            let date = parse_date(&c[1]).unwrap_or(updated);
            push_clauses(&mut out.facts, &info, date, &c[2], group, Origin::Kept, rel);
            continue;
        }
        if written
            && in_superseded
            && let Some(c) = SUPERSEDED_LINE_RE.captures(trimmed)
        {
            let date = parse_date(&c[1]).unwrap_or(updated);
            let on = parse_date(&c[2]).unwrap_or(updated);
            out.facts.push(loaded_fact(&info.slug, date, &c[3], group, 0, Origin::Kept, rel, Some(on)));
            continue;
        }
        // A line the engine did not write: the user's, kept verbatim where it was.
        let content = trimmed[2..].to_string();
        let date = LEADING_DATE_RE.captures(&content).and_then(|c| parse_date(&c[1])).unwrap_or(updated);
        let mut f = loaded_fact(&info.slug, date, &content, group, 0, Origin::Edited, rel, None);
        if in_superseded {
            f.superseded_on = Some(date);
        }
        f.pinned = true;
        out.facts.push(f);
    }
    out.topics.insert(info.slug.clone(), info);
}

/// The facts of one written line: its sentences, split into clauses as extraction does.
fn push_clauses(
    out: &mut Vec<Fact>,
    info: &TopicInfo,
    date: Date,
    content: &str,
    group: u64,
    origin: Origin,
    source: &str,
) {
    let topic = info.slug.as_str();
    // Read back, a clause says the subject's name where it was said as "I".
    let subject = info.person.as_deref().unwrap_or("the user");
    for (si, sentence) in split_sentences(content).into_iter().enumerate() {
        for (ci, (lead, clause)) in split_clauses_about(sentence, Some(subject)).into_iter().enumerate() {
            let seq = ((si as u64) << 8) | ci as u64;
            let mut f = loaded_fact(topic, date, clause, group, seq, origin, source, None);
            f.lead = lead.to_string();
            out.push(f);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn loaded_fact(
    topic: &str,
    date: Date,
    text: &str,
    group: u64,
    seq: u64,
    origin: Origin,
    source: &str,
    superseded_on: Option<Date>,
) -> Fact {
    Fact { group, seq, superseded_on, ..Fact::new(topic, date, text.trim(), origin, source) }
}

pub fn read_foreign_file(rel: &str, text: &str) -> ForeignFile {
    let topic = Topic::parse(text);
    let slug = rel.rsplit('/').next().unwrap_or(rel).trim_end_matches(".md").to_string();
    let front = topic.front.clone().unwrap_or_default();
    let title = front.name.clone().or_else(|| topic.heading().map(str::to_string)).unwrap_or(slug);
    let hook = front.description.clone().or_else(|| topic.first_sentence()).unwrap_or_default();
    ForeignFile {
        rel: rel.to_string(),
        bytes: text.len(),
        title,
        hook,
        facts: topic.facts().map(str::to_string).collect(),
    }
}

fn read_archive(staging: &Path, today: Date, out: &mut Oriented) {
    let dir = staging.join(ARCHIVE_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
        .collect();
    names.sort();
    for name in names {
        let Ok(text) = std::fs::read_to_string(dir.join(&name)) else {
            out.problems.push(format!("cannot read {ARCHIVE_DIR}/{name}"));
            continue;
        };
        let topic = Topic::parse(&text);
        let info = topic_info_from(&name, &topic);
        let source = format!("{ARCHIVE_DIR}/{name}");
        for (n, line) in topic.body.lines().enumerate() {
            let group = stable_hash(format!("{source}\u{0}{n}").as_bytes());
            if let Some(c) = FACT_LINE_RE.captures(line.trim_end()) {
                let date = parse_date(&c[1]).unwrap_or(today);
                push_clauses(&mut out.facts, &info, date, &c[2], group, Origin::Archived, &source);
            } else if let Some(c) = SUPERSEDED_LINE_RE.captures(line.trim_end()) {
                let date = parse_date(&c[1]).unwrap_or(today);
                let on = parse_date(&c[2]).unwrap_or(today);
                out.facts.push(loaded_fact(
                    &info.slug,
                    date,
                    &c[3],
                    group,
                    0,
                    Origin::Archived,
                    &source,
                    Some(on),
                ));
            }
        }
        out.topics.entry(info.slug.clone()).or_insert(info);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: &str = "---\nname: Jon\ndescription: facts about Jon\ntype: user\nupdated: 2023-06-19\n---\n# Jon\nJon prefers to be called J.\n- 2023-01-20: Jon lost their job as a banker. Jon is starting a dance studio.\n- 2023-06-19: Jon went to Rome (week of 2023-06-12).\n## Superseded\n- 2023-01-01 (superseded 2023-01-20): Jon works as a banker.\n";

    #[test]
    fn own_file_lines_become_facts_hand_edits_stay_verbatim() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("jon.md"), OWN).unwrap();
        std::fs::write(tmp.path().join("notes.md"), "# My notes\n- buy milk\n").unwrap();
        let mut state = EngineState::default();
        let set = state.files.entry("jon.md".into()).or_default();
        for l in OWN.lines().filter(|l| l.starts_with("- ") && !l.contains("Rome")) {
            set.insert(crate::state::line_hash(l));
        }
        let today: Date = "2023-07-01".parse().unwrap();
        let o = orient(tmp.path(), Some(&state), today);
        let texts: Vec<_> =
            o.facts.iter().map(|f| (f.origin, f.text.as_str(), f.superseded_on.is_some())).collect();
        assert_eq!(
            texts,
            [
                (Origin::Kept, "Jon lost their job as a banker.", false),
                (Origin::Kept, "Jon is starting a dance studio.", false),
                (Origin::Edited, "2023-06-19: Jon went to Rome (week of 2023-06-12).", false),
                (Origin::Kept, "Jon works as a banker.", true),
            ]
        );
        // Sentences of one line share a group.
        assert_eq!(o.facts[0].group, o.facts[1].group);
        assert_eq!(o.facts[2].date, "2023-06-19".parse::<Date>().unwrap());
        assert_eq!(o.notes["jon"], ["Jon prefers to be called J."]);
        assert_eq!(o.topics["jon"].person.as_deref(), Some("Jon"));
        assert_eq!(o.foreign.len(), 1);
        assert_eq!(o.foreign[0].facts, ["buy milk"]);
    }

    #[test]
    fn line_days_read_in_both_forms() {
        let tmp = tempfile::tempdir().unwrap();
        let text = "---\nname: Jon\ndescription: d\ntype: user\n---\n# Jon\n- 20 January 2023: Jon lost their job.\n- 2023-06-19: Jon went to Rome.\n## Superseded\n- 1 January 2023 (superseded 20 January 2023): Jon works as a banker.\n- 14 Smarch 2023: Jon typed this.\n";
        std::fs::write(tmp.path().join("jon.md"), text).unwrap();
        let mut state = EngineState::default();
        let set = state.files.entry("jon.md".into()).or_default();
        for l in text.lines().filter(|l| l.starts_with("- ")) {
            set.insert(crate::state::line_hash(l));
        }
        let o = orient(tmp.path(), Some(&state), "2023-07-01".parse().unwrap());
        let got: Vec<_> = o
            .facts
            .iter()
            .map(|f| (f.date.to_string(), f.text.as_str(), f.superseded_on.map(|d| d.to_string())))
            .collect();
        assert_eq!(
            got,
            [
                ("2023-01-20".to_string(), "Jon lost their job.", None),
                ("2023-06-19".to_string(), "Jon went to Rome.", None),
                ("2023-01-01".to_string(), "Jon works as a banker.", Some("2023-01-20".to_string())),
                // Not a month: the line is kept as it stands, dated by the file.
                ("2023-07-01".to_string(), "14 Smarch 2023: Jon typed this.", Some("2023-07-01".to_string())),
            ]
        );
        assert_eq!(without_line_day("- 8 May 2023: Caroline went."), "Caroline went.");
        assert_eq!(without_line_day("2023-05-08: Caroline went."), "Caroline went.");
        assert_eq!(without_line_day("- Caroline went."), "Caroline went.");
    }

    #[test]
    fn without_a_record_no_file_is_ours() {
        assert!(!is_own_file("jon.md", None));
        assert!(looks_like_own_file(OWN));
        assert!(!looks_like_own_file("---\ntype: user\n---\n- free text\n"));
        assert!(!looks_like_own_file("- 2023-01-01: x\n"));
    }
}
