//! Writing memory: topic files, the archive and the index, as text.
//!
//! A topic file is front matter (name, description, type, updated), a title, any prose the
//! user added, then one line per statement: `- 8 May 2023: <facts of that statement>`,
//! oldest first — the date the facts were learned always on the same line as the facts.
//! Superseded facts follow under `## Superseded` with both dates. The index has one line
//! per topic file, `- [Title](file.md) — hook`, the hook naming what is inside.

use std::collections::{BTreeMap, HashMap};

use jiff::civil::Date;

use autodream_core::memdir::index::IndexLine;
use autodream_core::memdir::topic::{FrontMatter, MemoryType};

use crate::dates::long_date;
use crate::fact::{Fact, Origin, TopicInfo};
use crate::orient::{ForeignFile, SUPERSEDED_HEADING};
use crate::text::{Commonness, commonness_of_key, is_capitalised, word_key, words};

/// Index hooks stay under this many characters (the agent warns at 150): the index is
/// loaded at every start, so it stays short; the topic file holds the detail.
pub const HOOK_MAX_CHARS: usize = 90;
/// Front matter descriptions stay under this many characters.
pub const DESCRIPTION_MAX_CHARS: usize = 130;
/// Index lines stay under this many characters.
pub const INDEX_LINE_MAX_CHARS: usize = 200;

/// Facts in writing order: current ones by date, then by the order their line first
/// appeared; facts of one line together in their order.
pub fn ordered<'a>(facts: &[&'a Fact]) -> Vec<&'a Fact> {
    let mut first_seen: HashMap<(u64, Date), usize> = HashMap::new();
    for (i, f) in facts.iter().enumerate() {
        first_seen.entry((f.group, f.date)).or_insert(i);
    }
    let mut v: Vec<&Fact> = facts.to_vec();
    v.sort_by(|a, b| {
        let ka = (a.date, first_seen[&(a.group, a.date)], a.seq);
        let kb = (b.date, first_seen[&(b.group, b.date)], b.seq);
        ka.cmp(&kb).then_with(|| a.text.cmp(&b.text))
    });
    v
}

/// The body lines for facts (current or superseded), grouped by line.
fn fact_lines(facts: &[&Fact], out: &mut String) {
    let facts = ordered(facts);
    let mut i = 0;
    while i < facts.len() {
        let f = facts[i];
        if f.origin == Origin::Edited {
            out.push_str("- ");
            out.push_str(&f.text);
            out.push('\n');
            i += 1;
            continue;
        }
        let mut line = String::new();
        match f.superseded_on {
            Some(on) => line.push_str(&format!("- {} (superseded {}): ", long_date(f.date), long_date(on))),
            None => line.push_str(&format!("- {}: ", long_date(f.date))),
        }
        line.push_str(&run_start(&f.text));
        let mut j = i + 1;
        while f.superseded_on.is_none()
            && j < facts.len()
            && facts[j].group == f.group
            && facts[j].date == f.date
            && facts[j].origin != Origin::Edited
            && facts[j].superseded_on.is_none()
        {
            let next = facts[j];
            if next.seq == facts[j - 1].seq + 1 && !next.lead.is_empty() {
                // The next clause of the same sentence: rejoin it as it was said.
                line.push_str(&next.lead);
                line.push_str(&next.text);
            } else {
                terminate(&mut line);
                line.push(' ');
                line.push_str(&run_start(&next.text));
            }
            j += 1;
        }
        terminate(&mut line);
        out.push_str(&line);
        out.push('\n');
        i = j;
    }
}

/// Ends a text with a sentence terminator unless it has one.
pub fn terminate(s: &mut String) {
    let t = s.trim_end_matches(['"', '\'', '”', '’', ')', ']']);
    if !t.ends_with(['.', '!', '?', '…', '。', '！', '？']) {
        let trimmed_len = s.trim_end().len();
        s.truncate(trimmed_len);
        if s.chars().last().is_some_and(crate::text::is_cjk) {
            s.push('。');
        } else {
            s.push('.');
        }
    }
}

/// A clause written without the clause it was joined to drops its joining conjunction
/// ("and Jon works as …" → "Jon works as …").
pub fn run_start(text: &str) -> String {
    let lower = text.get(..8).unwrap_or(text).to_lowercase();
    let cut = ["and ", "but ", "so ", "plus "].iter().find(|c| lower.starts_with(*c)).map_or(0, |c| c.len());
    capitalise_first(&text[cut..])
}

/// Is the word a name of code, whose case is its own ("parse_obj", "iOS", "e2e", "v3.2",
/// "packages/ui", "blank=True")?
pub fn is_code_name(word: &str) -> bool {
    word.contains(['_', '.', '/', '`', '(', '='])
        || word.chars().skip(1).any(|c| c.is_uppercase() || c.is_ascii_digit())
}

/// The text with its first letter capitalised.
pub fn capitalise_first(s: &str) -> String {
    if is_code_name(s.split_whitespace().next().unwrap_or("")) {
        return s.to_string();
    }
    let mut c = s.chars();
    match c.next() {
        Some(f) if f.is_lowercase() => f.to_uppercase().collect::<String>() + c.as_str(),
        Some(f) => f.to_string() + c.as_str(),
        None => String::new(),
    }
}

/// Renders a topic file.
pub fn topic_file(
    info: &TopicInfo,
    description: &str,
    updated: Date,
    notes: &[String],
    facts: &[&Fact],
) -> String {
    let front = FrontMatter {
        name: Some(info.title.clone()),
        description: Some(description.to_string()),
        kind: Some(info.kind.as_str().to_string()),
        updated: Some(updated.to_string()),
        metadata: None,
    };
    let mut out = front.render();
    out.push_str("# ");
    out.push_str(&info.title);
    out.push('\n');
    for n in notes {
        out.push_str(n);
        out.push('\n');
    }
    let (current, old): (Vec<&Fact>, Vec<&Fact>) = facts.iter().partition(|f| f.superseded_on.is_none());
    fact_lines(&current, &mut out);
    if !old.is_empty() {
        out.push_str(SUPERSEDED_HEADING);
        out.push('\n');
        fact_lines(&old, &mut out);
    }
    out
}

/// Renders an archive file (`.archive/<topic>.md`): the facts the budget left out.
pub fn archive_file(info: &TopicInfo, facts: &[&Fact]) -> String {
    let front = FrontMatter {
        name: Some(info.title.clone()),
        description: Some(format!("Facts about {} left out of memory by the size budget", info.title)),
        kind: Some(info.kind.as_str().to_string()),
        updated: None,
        metadata: None,
    };
    let mut out = front.render();
    out.push_str(&format!("# Archive: {}\n", info.title));
    let (current, old): (Vec<&Fact>, Vec<&Fact>) = facts.iter().partition(|f| f.superseded_on.is_none());
    fact_lines(&current, &mut out);
    fact_lines(&old, &mut out);
    out
}

/// The most telling words of a topic's facts: names and rare words, most frequent first.
pub fn keywords(facts: &[&Fact], exclude: &[String], max: usize) -> Vec<String> {
    let excluded: Vec<String> =
        exclude.iter().flat_map(|n| words(n).into_iter().map(|w| word_key(w.text))).collect();
    // key → (weight, casing counts)
    let mut stats: BTreeMap<String, (f32, BTreeMap<String, u32>)> = BTreeMap::new();
    for f in facts {
        if f.superseded_on.is_some() {
            continue;
        }
        let ws = words(&f.text);
        for (i, w) in ws.iter().enumerate() {
            let key = word_key(w.text);
            // Dates, numbers and the "Photo:" label name nothing inside the file.
            if key.len() < 3
                || key.chars().any(|c| c.is_ascii_digit())
                || key == "photo"
                || excluded.contains(&key)
            {
                continue;
            }
            let weight = match commonness_of_key(&key) {
                Commonness::Rare => 1.0,
                Commonness::Frequent => 0.4,
                _ if i > 0 && is_capitalised(w.text) => 0.5,
                _ => continue,
            };
            let e = stats.entry(key).or_default();
            e.0 += weight;
            *e.1.entry(w.text.trim_end_matches("'s").to_string()).or_default() += 1;
        }
    }
    let mut ranked: Vec<(f32, String, String)> = stats
        .into_iter()
        .map(|(k, (w, casings))| {
            let shown =
                casings.into_iter().max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0))).map(|c| c.0);
            (w, k.clone(), shown.unwrap_or(k))
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    ranked.into_iter().take(max).map(|(_, _, shown)| shown).collect()
}

/// Joins keywords after a lead-in, within `max_chars` characters.
fn with_keywords(lead: &str, keywords: &[String], max_chars: usize) -> String {
    let mut out = lead.to_string();
    let mut first = true;
    for k in keywords {
        let sep = if first { ": " } else { ", " };
        if out.chars().count() + sep.len() + k.chars().count() > max_chars {
            break;
        }
        out.push_str(sep);
        out.push_str(k);
        first = false;
    }
    out
}

/// The front matter description and the index hook of a topic.
pub fn describe(info: &TopicInfo, facts: &[&Fact], people: &[String]) -> (String, String) {
    let current: Vec<&Fact> = facts.iter().copied().filter(|f| f.superseded_on.is_none()).collect();
    let kws = keywords(&current, people, 12);
    let first = current.iter().map(|f| f.date).min();
    let last = current.iter().map(|f| f.date).max();
    let span = match (first, last) {
        (Some(a), Some(b)) if a != b => format!(" ({a} to {b})"),
        (Some(a), _) => format!(" ({a})"),
        _ => String::new(),
    };
    let lead = match (&info.person, info.kind) {
        (Some(p), _) => format!("{p}'s life, people, plans and likes{span}"),
        (None, MemoryType::Feedback) => {
            format!("How the user wants the work done: corrections and preferences{span}")
        }
        (None, MemoryType::User) => format!("The user's role, background and preferences{span}"),
        (None, MemoryType::Project) => {
            format!("Decisions, plans and dates of {}{span}", info.title.to_lowercase())
        }
        (None, MemoryType::Reference) => format!("Where things live outside the code{span}"),
    };
    let description = with_keywords(&lead, &kws, DESCRIPTION_MAX_CHARS);
    let count = match current.len() {
        1 => "1 fact".to_string(),
        n => format!("{n} facts"),
    };
    let hook = with_keywords(&count, &kws, HOOK_MAX_CHARS);
    (description, hook)
}

fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// An index entry, kept within the line limit.
pub fn index_entry(title: &str, file: &str, hook: &str) -> IndexLine {
    let fixed = format!("- [{title}]({file}) — ").chars().count();
    let hook = truncate_chars(hook, HOOK_MAX_CHARS.min(INDEX_LINE_MAX_CHARS.saturating_sub(fixed)));
    IndexLine::Entry { title: title.to_string(), file: file.to_string(), hook }
}

/// Rebuilds the index: other lines and entries for foreign files kept in place, entries for
/// our topics refreshed in place or appended, dangling entries dropped, forgotten foreign
/// files added; then cut to the limits (appended entries go first).
pub fn index_file(
    existing: &[IndexLine],
    ours: &[IndexLine],
    foreign: &[ForeignFile],
    exists: &dyn Fn(&str) -> bool,
    max_lines: usize,
    max_units: usize,
) -> String {
    let ours_by_file: BTreeMap<&str, &IndexLine> = ours
        .iter()
        .filter_map(|l| match l {
            IndexLine::Entry { file, .. } => Some((file.as_str(), l)),
            IndexLine::Other { .. } => None,
        })
        .collect();
    let mut emitted: Vec<String> = Vec::new();
    let mut lines: Vec<IndexLine> = Vec::new();
    for line in existing {
        match line {
            IndexLine::Entry { file, .. } => {
                let key = file.trim_start_matches("./").to_string();
                if emitted.contains(&key) {
                    continue;
                }
                if let Some(fresh) = ours_by_file.get(key.as_str()) {
                    lines.push((*fresh).clone());
                    emitted.push(key);
                } else if exists(&key) {
                    lines.push(line.clone());
                    emitted.push(key);
                }
                // Otherwise the entry points nowhere: dropped.
            }
            IndexLine::Other { .. } => lines.push(line.clone()),
        }
    }
    for l in ours {
        if let IndexLine::Entry { file, .. } = l
            && !emitted.contains(file)
        {
            lines.push(l.clone());
            emitted.push(file.clone());
        }
    }
    for f in foreign {
        if !emitted.contains(&f.rel) {
            let hook = if f.hook.is_empty() { format!("{} notes", f.facts.len()) } else { f.hook.clone() };
            lines.push(index_entry(&f.title, &f.rel, &hook));
            emitted.push(f.rel.clone());
        }
    }
    // Trailing blank lines carry nothing.
    while matches!(lines.last(), Some(IndexLine::Other { text }) if text.trim().is_empty()) {
        lines.pop();
    }
    loop {
        let text = autodream_core::memdir::index::render(&lines);
        let m = autodream_core::memdir::index::measure(&text);
        if (m.lines <= max_lines && m.units <= max_units) || lines.is_empty() {
            return text;
        }
        lines.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_of_code_keeps_its_case() {
        assert_eq!(capitalise_first("parse_obj is pydantic v1"), "parse_obj is pydantic v1");
        assert_eq!(capitalise_first("iOS 17 is the minimum"), "iOS 17 is the minimum");
        assert_eq!(capitalise_first("e2e 我们用 Detox"), "e2e 我们用 Detox");
        assert_eq!(capitalise_first("specs live in spec/"), "Specs live in spec/");
    }

    fn fact(text: &str, date: &str, group: u64, seq: u64) -> Fact {
        Fact {
            group,
            seq,
            salience: 1.0,
            ..Fact::new("caroline", date.parse().unwrap(), text, Origin::New, "s")
        }
    }

    fn info() -> TopicInfo {
        TopicInfo {
            slug: "caroline".into(),
            title: "Caroline".into(),
            kind: MemoryType::User,
            person: Some("Caroline".into()),
        }
    }

    #[test]
    fn facts_of_one_statement_share_a_dated_line_superseded_go_last() {
        let a = fact("Caroline went to a LGBTQ support group yesterday (2023-05-07).", "2023-05-08", 1, 0);
        let b = fact("It was so powerful.", "2023-05-08", 1, 1);
        let c = fact("Caroline researched adoption agencies.", "2023-05-25", 2, 0);
        let mut d = fact("Caroline works at a cafe.", "2023-05-08", 3, 0);
        d.superseded_on = Some("2023-06-01".parse().unwrap());
        let text = topic_file(&info(), "desc", "2023-05-25".parse().unwrap(), &[], &[&c, &b, &a, &d]);
        assert_eq!(
            text,
            "---\nname: Caroline\ndescription: desc\nmetadata:\n  type: user\nupdated: 2023-05-25\n---\n# Caroline\n\
             - 8 May 2023: Caroline went to a LGBTQ support group yesterday (2023-05-07). It was so powerful.\n\
             - 25 May 2023: Caroline researched adoption agencies.\n\
             ## Superseded\n- 8 May 2023 (superseded 1 June 2023): Caroline works at a cafe.\n"
        );
    }

    #[test]
    fn hooks_name_what_is_inside_within_limits() {
        let a = fact("Caroline moved from Sweden and paints with acrylics.", "2023-05-08", 1, 0);
        let b = fact("Caroline read \"Becoming Nicole\" by Amy Ellis Nutt.", "2023-06-08", 2, 0);
        let (desc, hook) = describe(&info(), &[&a, &b], &["Caroline".to_string()]);
        assert!(hook.starts_with("2 facts: "), "{hook}");
        let (_, one) = describe(&info(), &[&a], &["Caroline".to_string()]);
        assert!(one.starts_with("1 fact: "), "{one}");
        assert!(hook.contains("Sweden") && hook.contains("Nicole"), "{hook}");
        assert!(!hook.contains("Caroline"), "{hook}");
        assert!(desc.contains("2023-05-08 to 2023-06-08"), "{desc}");
        let e = index_entry("T", "t.md", &"x".repeat(400)).render();
        assert!(e.chars().count() <= INDEX_LINE_MAX_CHARS);
    }

    #[test]
    fn index_refreshes_ours_keeps_others_drops_dangling() {
        let existing = autodream_core::memdir::index::parse(
            "# Memory\n- [Old](caroline.md) — old hook\n- [Gone](gone.md) — missing\n- [Notes](notes.md) — mine\n",
        );
        let ours =
            vec![index_entry("Caroline", "caroline.md", "new hook"), index_entry("Mel", "mel.md", "h")];
        let foreign = vec![ForeignFile {
            rel: "extra.md".into(),
            bytes: 10,
            title: "Extra".into(),
            hook: "stuff".into(),
            facts: vec![],
        }];
        let exists = |f: &str| f == "notes.md" || f == "extra.md";
        let text = index_file(&existing, &ours, &foreign, &exists, 200, 25_000);
        assert_eq!(
            text,
            "# Memory\n- [Caroline](caroline.md) — new hook\n- [Notes](notes.md) — mine\n- [Mel](mel.md) — h\n- [Extra](extra.md) — stuff\n"
        );
        let cut = index_file(&existing, &ours, &foreign, &exists, 2, 25_000);
        assert_eq!(cut.lines().count(), 2);
    }
}
