//! The stale-fact pass over a memory folder (a dream's staging copy, or the memory folder
//! itself for `autodream check --stale`, read only).
//!
//! A current fact (a top-level bullet above `## Superseded`) is moved when it is not about
//! history (a rename, a removal), names at least one referent that can be gone, and every
//! such referent is [`Status::Gone`]. It goes under the file's `## Superseded` in the form the
//! offline engine writes there, with the reason in place of "replaced":
//!
//! ```text
//! - Deploy with `scripts/deploy.sh` (2026-01-12; no longer in the repository as of 2026-12-01: path `scripts/deploy.sh`).
//! ```
//! A superseded line with that reason whose referents are all present again moves back,
//! reason removed. Nothing is moved when the project could not be checked completely.
//!
//! The day each present referent was last confirmed goes to the engine data
//! (`.engine/repository/confirmed.json`), not into the line: the agent reads every fact line
//! at every session, and an engine rewrites lines it owns (the offline engine reads a line
//! with anything after its date as a hand edit and stops managing it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::LazyLock;

use jiff::civil::Date;
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::{Checked, ProjectChecker, Referent, Status, extract, looks_like_history};
use crate::memdir::topic::split_front_matter;

/// The heading the offline engine writes superseded facts under.
pub const SUPERSEDED_HEADING: &str = "## Superseded";
/// The reason a stale fact is moved with.
pub const GONE_REASON: &str = "no longer in the repository as of";
/// Where the confirmation days are kept, relative to the staging copy.
pub const CONFIRMED_FILE: &str = ".engine/repository/confirmed.json";

static MEMO_DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?P<text>.+) \((?P<date>\d{4}-\d{2}-\d{2})\)\.?$").expect("valid"));
static MARKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<head>.*?)(?P<sep>; | \()no longer in the repository as of \d{4}-\d{2}-\d{2}(?:: [^()]*)?\)(?P<tail>\.?)$")
        .expect("valid")
});

/// One fact that moves (or would move).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The topic file, relative to the memory folder.
    pub file: String,
    /// 1-based line in the file before the pass.
    pub line: usize,
    /// The fact as it reads (without the `- `).
    pub fact: String,
    /// The referents that decided it (gone for a move, present for a restore).
    pub referents: Vec<String>,
}

/// What the pass found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Facts that name at least one referent.
    pub facts_checked: usize,
    /// Distinct referents present in the project.
    pub confirmed: usize,
    pub moved: Vec<Finding>,
    pub restored: Vec<Finding>,
    pub files_walked: usize,
    pub elapsed_ms: u64,
    /// Why nothing was declared gone, if the project could not be checked completely.
    pub incomplete: Option<String>,
}

impl Report {
    /// "moved 2 stale facts under Superseded, restored 1" (empty when nothing moved).
    pub fn sentence(&self) -> String {
        let mut parts = Vec::new();
        if !self.moved.is_empty() {
            let n = self.moved.len();
            parts.push(format!("{n} fact{} no longer in the repository", if n == 1 { "" } else { "s" }));
        }
        if !self.restored.is_empty() {
            let n = self.restored.len();
            parts.push(format!("{n} fact{} back in the repository", if n == 1 { "" } else { "s" }));
        }
        parts.join(", ")
    }
}

/// The confirmation days kept in the engine data: referent (as displayed) → day.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Confirmed {
    pub referents: BTreeMap<String, String>,
}

/// A top-level bullet of a topic file.
struct Fact {
    index: usize,
    text: String,
    superseded: bool,
    referents: BTreeSet<Referent>,
}

/// One topic file and its facts.
struct TopicFile {
    rel: String,
    lines: Vec<String>,
    facts: Vec<Fact>,
}

/// Runs the pass over the topic files under `dir`: with `write`, moves the stale facts, moves
/// back the returned ones and saves the confirmation days (in a staging copy); without it,
/// only reports. `project` must be a repository ([`super::is_repository`]); otherwise nothing
/// is checked.
pub fn run(
    dir: &Path,
    project: &Path,
    checker: &dyn ProjectChecker,
    today: Date,
    write: bool,
) -> std::io::Result<Report> {
    let mut report = Report::default();
    if !super::is_repository(project) {
        report.incomplete = Some(format!("{} is not a git work tree", project.display()));
        return Ok(report);
    }
    let mut files = Vec::new();
    for rel in topic_files(dir) {
        let Ok(text) = std::fs::read_to_string(dir.join(&rel)) else { continue };
        let mut file = parse(rel, &text);
        // A file of the memory itself (`see ci.md`) is not the project's.
        for f in &mut file.facts {
            f.referents.retain(|r| !matches!(r, Referent::Path(p) if dir.join(p).exists()));
        }
        files.push(file);
    }
    let wanted: BTreeSet<Referent> =
        files.iter().flat_map(|f| &f.facts).flat_map(|f| f.referents.iter().cloned()).collect();
    if wanted.is_empty() {
        return Ok(report);
    }
    let checked = checker.check(project, &wanted);
    report.files_walked = checked.files;
    report.elapsed_ms = checked.elapsed_ms;
    report.incomplete = checked.incomplete.clone();
    report.facts_checked = files.iter().flat_map(|f| &f.facts).filter(|f| !f.referents.is_empty()).count();
    let present: Vec<&Referent> =
        checked.status.iter().filter(|(_, s)| **s == Status::Present).map(|(r, _)| r).collect();
    report.confirmed = present.len();
    for file in &mut files {
        let (moved, restored) = decide(file, &checked);
        if moved.is_empty() && restored.is_empty() {
            continue;
        }
        let new_text = rewrite(file, &moved, &restored, today);
        for (list, idxs) in [(&mut report.moved, &moved), (&mut report.restored, &restored)] {
            for &i in idxs {
                let f = &file.facts[i];
                let decisive =
                    f.referents.iter().filter(|r| r.can_be_gone()).map(|r| r.to_string()).collect();
                list.push(Finding {
                    file: file.rel.clone(),
                    line: f.index + 1,
                    fact: f.text.clone(),
                    referents: decisive,
                });
            }
        }
        if write {
            std::fs::write(dir.join(&file.rel), new_text)?;
        }
    }
    if write && !present.is_empty() {
        save_confirmed(dir, &present, today)?;
    }
    Ok(report)
}

/// Which facts of a file move (current → Superseded) and which come back.
fn decide(file: &TopicFile, checked: &Checked) -> (Vec<usize>, Vec<usize>) {
    let mut moved = Vec::new();
    let mut restored = Vec::new();
    for (i, f) in file.facts.iter().enumerate() {
        let decisive: Vec<Status> =
            f.referents.iter().filter(|r| r.can_be_gone()).map(|r| checked.of(r)).collect();
        if decisive.is_empty() {
            continue;
        }
        if !f.superseded {
            if checked.incomplete.is_none()
                && !looks_like_history(&f.text)
                && decisive.iter().all(|s| *s == Status::Gone)
            {
                moved.push(i);
            }
        } else if decisive.iter().all(|s| *s == Status::Present) {
            restored.push(i);
        }
    }
    (moved, restored)
}

/// The topic files under `dir`, relative: every `*.md` but the index, the logs and dot folders.
fn topic_files(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            let Ok(rel) = p.strip_prefix(root) else { continue };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if name.starts_with('.') || rel == crate::memdir::LOGS_DIR {
                continue;
            }
            if ft.is_dir() {
                walk(root, &p, out);
            } else if ft.is_file() && name.ends_with(".md") && rel != crate::memdir::INDEX_FILE {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A topic file's lines and its top-level bullets. A bullet followed by an indented line
/// (a sub-list, a continuation) is left out: moving it alone would break what follows.
fn parse(rel: String, text: &str) -> TopicFile {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let body_start = split_front_matter(text).map_or(0, |(_, _, body_line)| body_line - 1);
    let mut facts = Vec::new();
    let mut superseded = false;
    for (index, line) in lines.iter().enumerate().skip(body_start) {
        if line.starts_with('#') {
            superseded = line.trim_end() == SUPERSEDED_HEADING;
            continue;
        }
        let Some(fact) = line.strip_prefix("- ") else { continue };
        let continued =
            lines.get(index + 1).is_some_and(|n| n.starts_with([' ', '\t']) && !n.trim().is_empty());
        if continued {
            continue;
        }
        // A superseded fact counts only when it was moved for this reason.
        if superseded && !MARKED.is_match(fact.trim_end()) {
            continue;
        }
        let referents = extract(unmarked(fact).as_str());
        facts.push(Fact { index, text: fact.trim_end().to_string(), superseded, referents });
    }
    TopicFile { rel, lines, facts }
}

/// A moved fact with its reason taken out again.
fn unmarked(fact: &str) -> String {
    match MARKED.captures(fact.trim_end()) {
        Some(c) if &c["sep"] == "; " => format!("{})", &c["head"]) + &c["tail"],
        Some(c) => format!("{}{}", &c["head"], &c["tail"]),
        None => fact.trim_end().to_string(),
    }
}

/// A fact moved under Superseded: the reason beside its date, like the offline engine's
/// "replaced", or in parentheses at the end when it has no date.
fn marked(fact: &str, today: Date, gone: &[String]) -> String {
    let why = format!("{GONE_REASON} {today}: {}", gone.join(", "));
    match MEMO_DATE.captures(fact) {
        Some(c) => format!("{} ({}; {why}).", &c["text"], &c["date"]),
        None => format!("{fact} ({why})"),
    }
}

/// The file's text after the moves.
fn rewrite(file: &TopicFile, moved: &[usize], restored: &[usize], today: Date) -> String {
    let moved_lines: BTreeSet<usize> = moved.iter().chain(restored).map(|&i| file.facts[i].index).collect();
    let to_superseded: Vec<String> = moved
        .iter()
        .map(|&i| {
            let f = &file.facts[i];
            let gone: Vec<String> =
                f.referents.iter().filter(|r| r.can_be_gone()).map(|r| r.to_string()).collect();
            format!("- {}", marked(&f.text, today, &gone))
        })
        .collect();
    let to_current: Vec<String> =
        restored.iter().map(|&i| format!("- {}", unmarked(&file.facts[i].text))).collect();
    let kept: Vec<&String> =
        file.lines.iter().enumerate().filter(|(i, _)| !moved_lines.contains(i)).map(|(_, l)| l).collect();
    let heading = kept.iter().position(|l| l.trim_end() == SUPERSEDED_HEADING);
    let mut out: Vec<String> = Vec::with_capacity(kept.len() + to_superseded.len() + 3);
    match heading {
        Some(h) => {
            // Restored facts go after the last current bullet, before the blank lines and
            // the heading; moved ones at the end of the Superseded section.
            let current_end = (0..h).rev().find(|&i| kept[i].starts_with("- ")).map_or(h, |i| i + 1);
            let section_end = (h + 1..kept.len()).find(|&i| kept[i].starts_with('#')).unwrap_or(kept.len());
            let section_last = (h..section_end).rev().find(|&i| !kept[i].trim().is_empty()).unwrap_or(h) + 1;
            out.extend(kept[..current_end].iter().map(|s| (*s).clone()));
            out.extend(to_current);
            out.extend(kept[current_end..section_last].iter().map(|s| (*s).clone()));
            out.extend(to_superseded);
            out.extend(kept[section_last..].iter().map(|s| (*s).clone()));
        }
        None => {
            out.extend(kept.iter().map(|s| (*s).clone()));
            out.extend(to_current);
            if !to_superseded.is_empty() {
                while out.last().is_some_and(|l| l.trim().is_empty()) {
                    out.pop();
                }
                out.push(String::new());
                out.push(SUPERSEDED_HEADING.to_string());
                out.extend(to_superseded);
            }
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// Records today as the last confirmation of every present referent.
fn save_confirmed(dir: &Path, present: &[&Referent], today: Date) -> std::io::Result<()> {
    let path = dir.join(CONFIRMED_FILE);
    let mut record: Confirmed =
        std::fs::read(&path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    let before = record.clone();
    for r in present {
        record.referents.insert(r.to_string(), today.to_string());
    }
    if record == before {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut json = serde_json::to_vec_pretty(&record).map_err(std::io::Error::other)?;
    json.push(b'\n');
    std::fs::write(path, json)
}

/// The confirmation days recorded in the engine data folder `data` (`<state>/data`).
pub fn load_confirmed(data: &Path) -> Confirmed {
    std::fs::read(data.join(CONFIRMED_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
