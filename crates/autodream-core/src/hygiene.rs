//! The hygiene pass: the first engine, and the final pass after every engine.
//!
//! It keeps MEMORY.md an index the agent can load whole: entries in the canonical
//! `- [Title](file.md) — hook` form, no pointers to missing files, every topic file
//! mentioned, no line over 200 characters (the detail goes to the topic file), and within
//! the line and size limits — by moving the least recently updated entries to an overflow
//! topic file, never by dropping them.
//!
//! Its writes go through [`MemoryRoot`]: a file whose path passes through a symbolic link is
//! refused with an error naming the link, never written through.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::config::Config;
use crate::engine::{DreamContext, Engine, EngineError, EngineSummary};
use crate::memdir::index::{self, HOOK_WARN_CHARS, IndexLine, LINE_MAX_CHARS};
use crate::memdir::topic::{FrontMatter, Topic};
use crate::memdir::{INDEX_FILE, MemoryRoot, list_topic_files};

/// Where index entries go when the index is over its limits.
pub use crate::memdir::OVERFLOW_FILE;
/// Where long free-text lines of the index go.
pub const NOTES_FILE: &str = "index-notes.md";

/// The hygiene engine: tidies the index and nothing else.
pub struct HygieneEngine;

impl Engine for HygieneEngine {
    fn name(&self) -> &'static str {
        "hygiene"
    }

    fn dream(&self, ctx: &DreamContext<'_>) -> Result<EngineSummary, EngineError> {
        ctx.cancel.check()?;
        let today = ctx.now.to_zoned(crate::clock::local_tz()).date();
        let report = tidy(ctx.staging, ctx.config, today).map_err(|e| EngineError::Other(e.to_string()))?;
        ctx.progress.turn(&report.summary(), 0, &report.touched.iter().map(Into::into).collect::<Vec<_>>());
        Ok(EngineSummary { text: report.summary(), ..Default::default() })
    }
}

/// What a hygiene pass did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HygieneReport {
    pub removed_pointers: Vec<String>,
    pub added_entries: Vec<String>,
    pub shortened: usize,
    pub moved_to_overflow: usize,
    pub touched: BTreeSet<String>,
}

impl HygieneReport {
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if !self.removed_pointers.is_empty() {
            parts.push(plural(self.removed_pointers.len(), "dangling pointer", "removed"));
        }
        if !self.added_entries.is_empty() {
            parts.push(plural(self.added_entries.len(), "forgotten topic file", "indexed"));
        }
        if self.shortened > 0 {
            parts.push(plural(self.shortened, "long index line", "shortened"));
        }
        if self.moved_to_overflow > 0 {
            parts.push(format!(
                "{} to {OVERFLOW_FILE}",
                plural(self.moved_to_overflow, "entry", "moved").replace("entrys", "entries")
            ));
        }
        if parts.is_empty() { "index already tidy".into() } else { parts.join("; ") }
    }
}

/// "removed 1 dangling pointer" / "removed 2 dangling pointers".
fn plural(n: usize, noun: &str, verb: &str) -> String {
    if n == 1 { format!("{verb} 1 {noun}") } else { format!("{verb} {n} {noun}s") }
}

fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max.saturating_sub(1)).collect();
    let cut =
        cut.rfind(' ').filter(|&i| i > max / 2).map_or(cut.as_str(), |i| &cut[..i]).trim_end().to_string();
    format!("{cut}…")
}

fn humanise(stem: &str) -> String {
    let s = stem.replace(['_', '-'], " ");
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// Title and hook for a topic file, from its front matter or its text.
fn describe(dir: &Path, rel: &str) -> (String, String, String) {
    let text = std::fs::read_to_string(dir.join(rel)).unwrap_or_default();
    let topic = Topic::parse(&text);
    let front = topic.front.clone().unwrap_or_default();
    let stem = Path::new(rel).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let title =
        front.name.clone().or_else(|| topic.heading().map(str::to_string)).unwrap_or_else(|| humanise(&stem));
    let hook = front.description.clone().or_else(|| topic.first_sentence()).unwrap_or_default();
    let updated = front.updated.clone().unwrap_or_default();
    (title, hook, updated)
}

fn append_to_topic(
    root: &MemoryRoot,
    rel: &str,
    heading: &str,
    lines: &[String],
    today: jiff::civil::Date,
    kind: &str,
    description: &str,
) -> std::io::Result<()> {
    let current = root.read(rel)?.unwrap_or_default();
    let mut text = String::from_utf8(current).unwrap_or_default();
    if text.is_empty() {
        let front = FrontMatter {
            name: Some(heading.to_string()),
            description: Some(description.to_string()),
            kind: Some(kind.to_string()),
            updated: Some(today.to_string()),
            metadata: None,
        };
        text = format!("{}# {heading}\n", front.render());
    }
    let mut added = false;
    for l in lines {
        let bullet = format!("- {l}");
        if !text.lines().any(|existing| existing.trim() == bullet.trim()) {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&bullet);
            text.push('\n');
            added = true;
        }
    }
    if added { Ok(root.write_atomic(rel, text.as_bytes())?) } else { Ok(()) }
}

/// Tidies the index of the memory directory `dir` in place.
pub fn tidy(dir: &Path, cfg: &Config, today: jiff::civil::Date) -> std::io::Result<HygieneReport> {
    let mut report = HygieneReport::default();
    let root = MemoryRoot::open(dir)?;
    let index_path = dir.join(INDEX_FILE);
    if std::fs::symlink_metadata(&index_path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Ok(report); // never written through a link; `check` reports it
    }
    let original = std::fs::read_to_string(&index_path).unwrap_or_default();
    // Files linked from the overflow file are indexed too.
    let mut linked = overflow_links(dir);
    let rebuilt = rebuild(dir, &original, &mut linked, &mut report);
    let mut lines = rebuilt.lines;
    move_details(&root, dir, &rebuilt.detail_for, &rebuilt.long_notes, today, &mut report)?;
    add_forgotten_topics(dir, &mut lines, &mut linked, &mut report)?;
    fit_limits(&root, dir, cfg, today, &mut lines, &mut linked, &mut report)?;
    let new_text = index::render(&lines);
    if new_text != original {
        root.write_atomic(INDEX_FILE, new_text.as_bytes())?;
        report.touched.insert(INDEX_FILE.into());
    }
    Ok(report)
}

/// The topic files the overflow file links to.
fn overflow_links(dir: &Path) -> BTreeSet<String> {
    let mut linked = BTreeSet::new();
    if let Ok(text) = std::fs::read_to_string(dir.join(OVERFLOW_FILE)) {
        for l in text.lines() {
            for t in index::link_targets(l) {
                if let Some(rel) = index::resolve_target(dir, &t) {
                    linked.insert(rel);
                }
            }
        }
    }
    linked
}

/// The index's lines after the first pass, and what it took out of them.
struct Rebuilt {
    lines: Vec<IndexLine>,
    /// Notes too long for the index, for the notes file.
    long_notes: Vec<String>,
    /// Hooks too long for the index, by topic file: their full text goes there.
    detail_for: BTreeMap<String, Vec<String>>,
}

/// The index's lines without dangling or repeated pointers and with hooks and notes within
/// the limits (what was cut goes to the topic file or the notes file), blank runs folded.
fn rebuild(dir: &Path, original: &str, linked: &mut BTreeSet<String>, report: &mut HygieneReport) -> Rebuilt {
    let mut lines: Vec<IndexLine> = Vec::new();
    let mut long_notes: Vec<String> = Vec::new();
    let mut detail_for: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in index::parse(original) {
        match line {
            IndexLine::Entry { title, file, hook } => {
                let Some(rel) = index::resolve_target(dir, &file) else {
                    report.removed_pointers.push(file);
                    continue;
                };
                if !linked.insert(rel.clone())
                    && lines.iter().any(|l| matches!(l, IndexLine::Entry { file: f, .. } if *f == rel))
                {
                    continue; // a second pointer to the same file
                }
                let mut hook = hook;
                let mut title = title;
                let rendered =
                    IndexLine::Entry { title: title.clone(), file: rel.clone(), hook: hook.clone() }.render();
                if hook.chars().count() >= HOOK_WARN_CHARS || rendered.chars().count() > LINE_MAX_CHARS {
                    detail_for.entry(rel.clone()).or_default().push(hook.clone());
                    title = truncate_chars(&title, 60);
                    let room = LINE_MAX_CHARS.saturating_sub(title.chars().count() + rel.chars().count() + 9);
                    hook = truncate_chars(&hook, room.min(HOOK_WARN_CHARS - 1));
                    report.shortened += 1;
                }
                lines.push(IndexLine::Entry { title, file: rel, hook });
            }
            IndexLine::Other { text } => {
                if text.chars().count() > LINE_MAX_CHARS {
                    long_notes.push(text.trim().trim_start_matches(['-', '*', ' ']).to_string());
                    report.shortened += 1;
                } else if !(text.trim().is_empty()
                    && lines
                        .last()
                        .is_some_and(|l| matches!(l, IndexLine::Other { text } if text.trim().is_empty())))
                {
                    lines.push(IndexLine::Other { text });
                }
            }
        }
    }

    Rebuilt { lines, long_notes, detail_for }
}

/// A long hook's full text goes into its topic file (when not there yet), long notes into the
/// notes file.
fn move_details(
    root: &MemoryRoot,
    dir: &Path,
    detail_for: &BTreeMap<String, Vec<String>>,
    long_notes: &[String],
    today: jiff::civil::Date,
    report: &mut HygieneReport,
) -> std::io::Result<()> {
    for (rel, hooks) in detail_for {
        let topic_text = std::fs::read_to_string(dir.join(rel)).unwrap_or_default();
        let missing: Vec<String> =
            hooks.iter().filter(|h| !topic_text.contains(h.as_str())).cloned().collect();
        if !missing.is_empty() {
            append_to_topic(root, rel, "", &missing, today, "reference", "")?;
            report.touched.insert(rel.clone());
        }
    }
    if !long_notes.is_empty() {
        append_to_topic(
            root,
            NOTES_FILE,
            "Notes from the index",
            long_notes,
            today,
            "reference",
            "long notes moved out of MEMORY.md",
        )?;
        report.touched.insert(NOTES_FILE.into());
    }

    Ok(())
}

/// An entry for every topic file the index forgot.
fn add_forgotten_topics(
    dir: &Path,
    lines: &mut Vec<IndexLine>,
    linked: &mut BTreeSet<String>,
    report: &mut HygieneReport,
) -> std::io::Result<()> {
    let mut topics: Vec<String> = list_topic_files(dir).map_err(std::io::Error::other)?.topics;
    topics.sort();
    for rel in topics {
        if linked.contains(&rel) || rel == OVERFLOW_FILE {
            continue;
        }
        let (title, hook, _) = describe(dir, &rel);
        let title = truncate_chars(&title, 60);
        let room = LINE_MAX_CHARS.saturating_sub(title.chars().count() + rel.chars().count() + 9);
        let hook = truncate_chars(&hook, room.min(HOOK_WARN_CHARS - 1));
        report.added_entries.push(rel.clone());
        linked.insert(rel.clone());
        lines.push(IndexLine::Entry { title, file: rel, hook });
    }

    Ok(())
}

/// Within the index's limits: the least recently updated entries move to the overflow file,
/// with one pointer to it in their place.
fn fit_limits(
    root: &MemoryRoot,
    dir: &Path,
    cfg: &Config,
    today: jiff::civil::Date,
    lines: &mut Vec<IndexLine>,
    linked: &mut BTreeSet<String>,
    report: &mut HygieneReport,
) -> std::io::Result<()> {
    let fits = |lines: &[IndexLine]| {
        let m = index::measure(&index::render(lines));
        m.lines <= cfg.index_max_lines && m.units <= cfg.index_max_units
    };
    if !fits(lines) {
        let mut candidates: Vec<(String, jiff::Timestamp, usize)> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match l {
                IndexLine::Entry { file, .. } if file != OVERFLOW_FILE => {
                    let (_, _, updated) = describe(dir, file);
                    let mtime = std::fs::metadata(dir.join(file))
                        .and_then(|m| m.modified())
                        .ok()
                        .map(crate::clock::from_system_time);
                    let when = updated
                        .parse::<jiff::civil::Date>()
                        .ok()
                        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp()))
                        .or(mtime)
                        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
                    Some((file.clone(), when, i))
                }
                _ => None,
            })
            .collect();
        candidates.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        let mut moved: Vec<IndexLine> = Vec::new();
        let pointer_hook = |n: usize| format!("{n} less recently updated topics");
        for (file, _, _) in candidates {
            if fits(lines) {
                break;
            }
            if let Some(pos) =
                lines.iter().position(|l| matches!(l, IndexLine::Entry { file: f, .. } if *f == file))
            {
                moved.push(lines.remove(pos));
                let pointer = IndexLine::Entry {
                    title: "More topics".into(),
                    file: OVERFLOW_FILE.into(),
                    hook: pointer_hook(moved.len()),
                };
                lines.retain(|l| !matches!(l, IndexLine::Entry { file: f, .. } if f == OVERFLOW_FILE));
                lines.push(pointer);
            }
        }
        if !moved.is_empty() {
            let rendered: Vec<String> =
                moved.iter().map(|l| l.render().trim_start_matches("- ").to_string()).collect();
            append_to_topic(
                root,
                OVERFLOW_FILE,
                "More topics",
                &rendered,
                today,
                "reference",
                "index entries moved out of MEMORY.md to keep it within its limits",
            )?;
            report.moved_to_overflow = moved.len();
            report.touched.insert(OVERFLOW_FILE.into());
            if !linked.contains(OVERFLOW_FILE) {
                linked.insert(OVERFLOW_FILE.into());
            }
        }
    } else if dir.join(OVERFLOW_FILE).exists()
        && !lines.iter().any(|l| matches!(l, IndexLine::Entry { file, .. } if file == OVERFLOW_FILE))
    {
        lines.push(IndexLine::Entry {
            title: "More topics".into(),
            file: OVERFLOW_FILE.into(),
            hook: "less recently updated topics".into(),
        });
    }

    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> jiff::civil::Date {
        jiff::civil::date(2026, 5, 8)
    }

    #[test]
    fn normalises_removes_dangling_and_adds_forgotten_topics() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::write(d.join("a.md"), "---\nname: Alpha\ndescription: the a things\n---\n- x\n").unwrap();
        std::fs::write(d.join("b_notes.md"), "# Bravo\n- first fact\n").unwrap();
        std::fs::write(
            d.join(INDEX_FILE),
            "# Memory\n* [Alpha](a.md): the a things\n- [Gone](gone.md) — missing\n",
        )
        .unwrap();
        let r = tidy(d, &Config::default(), today()).unwrap();
        assert_eq!(r.removed_pointers, ["gone.md"]);
        assert_eq!(r.added_entries, ["b_notes.md"]);
        assert_eq!(
            std::fs::read_to_string(d.join(INDEX_FILE)).unwrap(),
            "# Memory\n- [Alpha](a.md) — the a things\n- [Bravo](b_notes.md) — first fact\n"
        );
        // A second pass changes nothing.
        let again = tidy(d, &Config::default(), today()).unwrap();
        assert!(again.touched.is_empty());
    }

    #[test]
    fn topic_files_are_never_written_through_a_link() {
        use std::os::unix::fs::symlink;
        for link_to_folder in [false, true] {
            let tmp = tempfile::tempdir().unwrap();
            let d = tmp.path().join("memory");
            let outside = tmp.path().join("outside");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::create_dir_all(&outside).unwrap();
            std::fs::write(outside.join("notes.md"), "outside\n").unwrap();
            // A free-text index line too long for the index goes to index-notes.md, a link.
            let index = format!("# Memory\n- {}\n", "a long note ".repeat(30));
            std::fs::write(d.join(INDEX_FILE), &index).unwrap();
            let target = if link_to_folder { outside.clone() } else { outside.join("notes.md") };
            symlink(&target, d.join(NOTES_FILE)).unwrap();
            let err = tidy(&d, &Config::default(), today()).unwrap_err();
            assert!(err.to_string().contains("index-notes.md is a symbolic link"), "{err}");
            assert_eq!(std::fs::read_to_string(outside.join("notes.md")).unwrap(), "outside\n");
            assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
            assert_eq!(std::fs::read_to_string(d.join(INDEX_FILE)).unwrap(), index);
        }
    }

    #[test]
    fn long_hooks_are_shortened_with_the_detail_kept_in_the_topic() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::write(d.join("a.md"), "- x\n").unwrap();
        let hook = format!("{} end-of-detail", "word ".repeat(50));
        std::fs::write(d.join(INDEX_FILE), format!("- [A](a.md) — {hook}\n")).unwrap();
        tidy(d, &Config::default(), today()).unwrap();
        let idx = std::fs::read_to_string(d.join(INDEX_FILE)).unwrap();
        assert!(idx.lines().all(|l| l.chars().count() <= LINE_MAX_CHARS));
        let check = index::check(d, 200, 25_000).unwrap();
        assert!(check.findings.iter().all(|f| f.code != "long_hook"), "{:?}", check.findings);
        assert!(std::fs::read_to_string(d.join("a.md")).unwrap().contains("end-of-detail"));
    }

    #[test]
    fn over_the_limit_moves_the_oldest_entries_to_overflow_without_losing_any() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let mut idx = String::new();
        for i in 0..12 {
            std::fs::write(
                d.join(format!("t{i:02}.md")),
                format!("---\nupdated: 2026-01-{:02}\n---\n- fact\n", i + 1),
            )
            .unwrap();
            idx.push_str(&format!("- [T{i}](t{i:02}.md) — topic {i}\n"));
        }
        std::fs::write(d.join(INDEX_FILE), idx).unwrap();
        let cfg = Config { index_max_lines: 8, ..Config::default() };
        let r = tidy(d, &cfg, today()).unwrap();
        assert_eq!(r.moved_to_overflow, 5);
        let idx = std::fs::read_to_string(d.join(INDEX_FILE)).unwrap();
        assert_eq!(idx.lines().count(), 8);
        assert!(idx.contains("[More topics](index-overflow.md)"));
        assert!(!idx.contains("t00.md"), "the oldest moved first");
        let overflow = std::fs::read_to_string(d.join(OVERFLOW_FILE)).unwrap();
        for i in 0..5 {
            assert!(overflow.contains(&format!("(t{i:02}.md)")));
        }
        // Stable: another pass neither re-adds the moved topics nor moves more.
        let again = tidy(d, &cfg, today()).unwrap();
        assert!(again.added_entries.is_empty() && again.moved_to_overflow == 0, "{again:?}");
    }
}
