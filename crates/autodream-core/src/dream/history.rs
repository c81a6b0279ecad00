//! `<state>/history/<task>/`: what every dream (and every undo) changed, byte for byte.
//!
//! Each entry holds a `manifest.json` (added / changed / deleted files with sizes and
//! SHA-256 hashes), `before/<path>` (the replaced originals) and `after/<path>` (what the
//! dream wrote). `diff` renders it; [`super::undo`] restores `before/` byte-identically. An
//! entry without `manifest.json` is a change set that never reached the memory folder
//! ([`super::journal`] saves the manifest last) and is not listed.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{HISTORY_DIR, LifecycleError};
use crate::engine::TokenUsage;
use crate::memdir::{MemoryRoot, is_engine_data};
use crate::paths::Locations;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Added,
    Changed,
    Deleted,
}

impl Action {
    /// What turns `before` into `after` (`None`: no file on that side).
    pub fn between<T>(before: &Option<T>, after: &Option<T>) -> Action {
        match (before, after) {
            (None, _) => Action::Added,
            (_, None) => Action::Deleted,
            _ => Action::Changed,
        }
    }
}

/// A file's size and hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub size: u64,
    pub sha256: String,
}

impl FileStamp {
    pub fn of(bytes: &[u8]) -> FileStamp {
        FileStamp { size: bytes.len() as u64, sha256: sha256_hex(bytes) }
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// Relative to the memory directory, `/`-separated.
    pub path: String,
    pub action: Action,
    pub before: Option<FileStamp>,
    pub after: Option<FileStamp>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub task: String,
    pub engine: String,
    pub started_at: Timestamp,
    pub ended_at: Option<Timestamp>,
    pub summary: String,
    pub changes: Vec<Change>,
    /// Files changed on disk during the dream: the disk version was kept and the dream's
    /// version saved beside it as `<file>.conflict-<task>`.
    #[serde(default)]
    pub conflicts: Vec<String>,
    /// Set on the record of an undo: the task it undid.
    #[serde(default)]
    pub undo_of: Option<String>,
    #[serde(default)]
    pub tokens: TokenUsage,
    #[serde(default)]
    pub cost_usd: Option<f64>,
    #[serde(default)]
    pub sessions_reviewed: usize,
}

impl Manifest {
    /// The changes to memory files, the ones the agent reads (not engine data).
    pub fn memory_changes(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| !is_engine_data(&c.path))
    }

    /// The changes to engine data (the offline engine's record and archive).
    pub fn engine_changes(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| is_engine_data(&c.path))
    }
}

#[cfg(test)]
impl Manifest {
    /// A test's record of the dream `task`, with no changes yet.
    pub(crate) fn for_test(task: &str) -> Manifest {
        let now: Timestamp = "2026-05-08T12:00:00Z".parse().unwrap();
        Manifest {
            task: task.into(),
            engine: "test".into(),
            started_at: now,
            ended_at: Some(now),
            summary: String::new(),
            changes: vec![],
            conflicts: vec![],
            undo_of: None,
            tokens: TokenUsage::default(),
            cost_usd: None,
            sessions_reviewed: 0,
        }
    }
}

pub fn history_root(loc: &Locations) -> PathBuf {
    loc.state_dir.join(HISTORY_DIR)
}

pub fn entry_dir(loc: &Locations, task: &str) -> PathBuf {
    history_root(loc).join(task)
}

/// A task's history folder, relative to the state folder.
fn entry_rel(task: &str) -> PathBuf {
    Path::new(HISTORY_DIR).join(task)
}

/// A change's bytes before and after (`None`: the file did not exist on that side).
pub type BeforeAfter = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Saves the originals and new versions of `manifest.changes` (`contents` gives each change's
/// bytes), without the manifest: until [`save_manifest`] the entry is not a recorded dream.
pub fn record_contents(
    loc: &Locations,
    manifest: &Manifest,
    contents: &[BeforeAfter],
) -> Result<(), LifecycleError> {
    let root = MemoryRoot::create(&loc.state_dir)?;
    let dir = entry_rel(&manifest.task);
    for (change, (before, after)) in manifest.changes.iter().zip(contents) {
        for (sub, bytes) in [("before", before), ("after", after)] {
            if let Some(b) = bytes {
                root.write_atomic(dir.join(sub).join(&change.path), b)?;
            }
        }
    }
    Ok(())
}

/// Where one side (`before` or `after`) of a recorded change is kept.
pub fn side_path(loc: &Locations, task: &str, side: &str, path: &str) -> PathBuf {
    entry_dir(loc, task).join(side).join(path)
}

pub fn save_manifest(loc: &Locations, manifest: &Manifest) -> Result<(), LifecycleError> {
    let json = serde_json::to_vec_pretty(manifest).map_err(|e| LifecycleError::Invalid(e.to_string()))?;
    MemoryRoot::create(&loc.state_dir)?
        .write_atomic(entry_rel(&manifest.task).join("manifest.json"), &json)?;
    Ok(())
}

/// Every recorded dream and undo, oldest first.
pub fn list(loc: &Locations) -> Vec<Manifest> {
    let mut out: Vec<Manifest> = std::fs::read_dir(history_root(loc))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("manifest.json")).ok())
        .filter_map(|t| serde_json::from_str(&t).ok())
        .collect();
    out.sort_by(|a, b| a.started_at.cmp(&b.started_at).then_with(|| a.task.cmp(&b.task)));
    out
}

/// The dream a plain `undo` reverts: the newest dream (not an undo) not yet undone.
pub fn latest_undoable(loc: &Locations) -> Result<Manifest, LifecycleError> {
    let all = list(loc);
    let undone: Vec<&str> = all.iter().filter_map(|m| m.undo_of.as_deref()).collect();
    all.iter().rev().find(|m| m.undo_of.is_none() && !undone.contains(&m.task.as_str())).cloned().ok_or_else(
        || LifecycleError::Invalid("nothing to undo: every recorded dream is already undone".into()),
    )
}

/// Removes history folders that hold no manifest: change sets killed before their journal
/// was written, which never reached the memory folder. Only for the lock's holder, with no
/// journal pending (a change set under way has no manifest yet either).
pub fn remove_unrecorded(loc: &Locations) {
    let Ok(state) = MemoryRoot::open(&loc.state_dir) else { return };
    let Ok(names) = state.list(HISTORY_DIR) else { return };
    for name in names {
        let entry = Path::new(HISTORY_DIR).join(&name);
        if !loc.state_dir.join(&entry).join("manifest.json").is_file() {
            let _ = state.remove_dir_all(&entry);
        }
    }
}

/// A task's record; `None` = the latest.
pub fn find(loc: &Locations, task: Option<&str>) -> Result<Manifest, LifecycleError> {
    let all = list(loc);
    match task {
        None => all.into_iter().last().ok_or_else(|| LifecycleError::Invalid("no dream recorded yet".into())),
        Some(id) => all.into_iter().find(|m| m.task == id).ok_or_else(|| {
            LifecycleError::Invalid(format!("no recorded dream named {id:?} (see `autodream history`)"))
        }),
    }
}

pub(crate) fn read_side(loc: &Locations, task: &str, side: &str, path: &str) -> Option<Vec<u8>> {
    std::fs::read(side_path(loc, task, side, path)).ok()
}

/// A unified diff of what a dream changed: every memory file; engine data as one line each
/// ("engine data: .engine/offline/coding.json changed (+12 -3 lines)") unless `all`.
pub fn diff(loc: &Locations, manifest: &Manifest, all: bool) -> String {
    let sides: Vec<(Vec<u8>, Vec<u8>)> = manifest
        .changes
        .iter()
        .map(|c| {
            let before = read_side(loc, &manifest.task, "before", &c.path).unwrap_or_default();
            let after = read_side(loc, &manifest.task, "after", &c.path).unwrap_or_default();
            (before, after)
        })
        .collect();
    let changes: Vec<ChangedFile<'_>> = manifest
        .changes
        .iter()
        .zip(&sides)
        .map(|(c, (before, after))| ChangedFile { path: &c.path, action: c.action, before, after })
        .collect();
    render_changes(&changes, if all { EngineData::InFull } else { EngineData::Summary { all_flag: true } })
}

/// One changed file and its bytes on both sides (empty where it does not exist).
pub struct ChangedFile<'a> {
    pub path: &'a str,
    pub action: Action,
    pub before: &'a [u8],
    pub after: &'a [u8],
}

/// How [`render_changes`] shows engine data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineData {
    /// Like any file.
    InFull,
    /// One line per file; `all_flag` says `--all` shows it.
    Summary { all_flag: bool },
}

/// The unified diff of a change set (a dream's record or a dry run's plan): memory files in
/// full, engine data as `engine_data` says.
pub fn render_changes(changes: &[ChangedFile<'_>], engine_data: EngineData) -> String {
    let mut out = String::new();
    let mut engine = Vec::new();
    for c in changes {
        if is_engine_data(c.path) && engine_data != EngineData::InFull {
            engine.push(summary_line(c.path, c.action, c.before, c.after));
        } else {
            out.push_str(&unified(c.path, c.action, c.before, c.after));
        }
    }
    if !engine.is_empty() {
        let files = if engine.len() == 1 { "file" } else { "files" };
        let hint =
            if engine_data == (EngineData::Summary { all_flag: true }) { "; `--all` shows it" } else { "" };
        out.push_str(&format!("engine data ({} {files}{hint}): {}\n", engine.len(), engine.join("; ")));
    }
    out
}

/// One engine data file's change in a few words: "path changed (+12 -3 lines)".
fn summary_line(path: &str, action: Action, before: &[u8], after: &[u8]) -> String {
    let (before, after) = (String::from_utf8_lossy(before), String::from_utf8_lossy(after));
    let diff = similar::TextDiff::from_lines(before.as_ref(), after.as_ref());
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let what = match action {
        Action::Added => "added",
        Action::Deleted => "deleted",
        Action::Changed => "changed",
    };
    format!("{path} {what} (+{added} -{removed} lines)")
}

/// A unified diff of one file, with `/dev/null` for an added or deleted side.
pub fn unified(path: &str, action: Action, before: &[u8], after: &[u8]) -> String {
    let before = String::from_utf8_lossy(before);
    let after = String::from_utf8_lossy(after);
    let (old, new) = match action {
        Action::Added => ("/dev/null".to_string(), format!("b/{path}")),
        Action::Deleted => (format!("a/{path}"), "/dev/null".to_string()),
        Action::Changed => (format!("a/{path}"), format!("b/{path}")),
    };
    let diff = similar::TextDiff::from_lines(before.as_ref(), after.as_ref());
    let mut s = diff.unified_diff().context_radius(3).header(&old, &new).to_string();
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s
}
