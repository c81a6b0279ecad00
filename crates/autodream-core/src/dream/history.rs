//! `<state>/history/<task>/`: what every dream (and every undo) changed, byte for byte.
//!
//! Each entry holds a `manifest.json` (added / changed / deleted files with sizes and
//! SHA-256 hashes), `before/<path>` (the replaced originals) and `after/<path>` (what the
//! dream wrote). `diff` renders it; `undo` restores `before/` byte-identically after
//! checking that nobody changed the files since. Like every writer into the memory folder,
//! recording and undoing go through [`MemoryRoot`]: an undo whose path passes through a
//! symbolic link is refused before any file is restored.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{HISTORY_DIR, LifecycleError};
use crate::engine::TokenUsage;
use crate::memdir::MemoryRoot;
use crate::paths::Locations;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Added,
    Changed,
    Deleted,
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

/// Saves the originals and new versions of `changes` and the manifest.
/// `before`/`after` give each change's bytes.
/// A change's bytes before and after (`None`: the file did not exist on that side).
pub type BeforeAfter = (Option<Vec<u8>>, Option<Vec<u8>>);

pub fn record(loc: &Locations, manifest: &Manifest, contents: &[BeforeAfter]) -> Result<(), LifecycleError> {
    let root = MemoryRoot::create(&loc.state_dir)?;
    let dir = entry_rel(&manifest.task);
    for (change, (before, after)) in manifest.changes.iter().zip(contents) {
        for (sub, bytes) in [("before", before), ("after", after)] {
            if let Some(b) = bytes {
                root.write_atomic(dir.join(sub).join(&change.path), b)?;
            }
        }
    }
    save_manifest(loc, manifest)
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

fn read_side(loc: &Locations, task: &str, side: &str, path: &str) -> Option<Vec<u8>> {
    std::fs::read(entry_dir(loc, task).join(side).join(path)).ok()
}

/// A unified diff of what a dream changed.
pub fn diff(loc: &Locations, manifest: &Manifest) -> String {
    let mut out = String::new();
    for c in &manifest.changes {
        let before = read_side(loc, &manifest.task, "before", &c.path).unwrap_or_default();
        let after = read_side(loc, &manifest.task, "after", &c.path).unwrap_or_default();
        out.push_str(&unified(&c.path, c.action, &before, &after));
    }
    out
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

/// Why an undo was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UndoConflict {
    pub path: String,
    pub reason: String,
}

/// Restores what `manifest` replaced. Refuses (listing the files) when a file changed since
/// the dream, unless `force`. Records the undo as its own history entry `undo_id`.
pub fn undo(
    loc: &Locations,
    manifest: &Manifest,
    undo_id: &str,
    now: Timestamp,
    force: bool,
) -> Result<Result<Manifest, Vec<UndoConflict>>, LifecycleError> {
    if manifest.undo_of.is_none()
        && list(loc).iter().any(|m| m.undo_of.as_deref() == Some(manifest.task.as_str()))
        && !force
    {
        return Ok(Err(vec![UndoConflict {
            path: String::new(),
            reason: format!("dream {} was already undone", manifest.task),
        }]));
    }
    let roots = super::transaction::Roots::open(loc)?;
    // Nothing is restored before every path has been checked for links.
    for c in &manifest.changes {
        let root = roots.for_path(&c.path);
        if let Some(link) = root.find_link(&c.path)? {
            return Err(
                crate::memdir::SafePathError::Symlink { path: root.join(&c.path), component: link }.into()
            );
        }
    }
    let mut conflicts = Vec::new();
    let mut plan = Vec::new();
    for c in &manifest.changes {
        let current = roots.for_path(&c.path).read(&c.path)?;
        let current_stamp = current.as_deref().map(FileStamp::of);
        if current_stamp != c.after {
            let reason = match (&c.after, &current_stamp) {
                (None, Some(_)) => "the dream deleted it, and it exists again".to_string(),
                (Some(_), None) => "it was deleted since the dream".to_string(),
                _ => "it changed since the dream".to_string(),
            };
            conflicts.push(UndoConflict { path: c.path.clone(), reason });
        }
        let before = read_side(loc, &manifest.task, "before", &c.path);
        if c.before.is_some() && before.is_none() {
            return Err(LifecycleError::Invalid(format!(
                "the history of {} lacks the original of {}: cannot undo",
                manifest.task, c.path
            )));
        }
        plan.push((c, current, before));
    }
    if !conflicts.is_empty() && !force {
        return Ok(Err(conflicts));
    }
    let mut changes = Vec::new();
    let mut contents = Vec::new();
    for (c, current, before) in plan {
        let root = roots.for_path(&c.path);
        match &before {
            Some(b) => root.write_atomic(&c.path, b)?,
            None => {
                root.remove_file(&c.path)?;
            }
        }
        let action = match (&current, &before) {
            (None, Some(_)) => Action::Added,
            (Some(_), None) => Action::Deleted,
            _ => Action::Changed,
        };
        changes.push(Change {
            path: c.path.clone(),
            action,
            before: current.as_deref().map(FileStamp::of),
            after: before.as_deref().map(FileStamp::of),
        });
        contents.push((current, before));
    }
    let record_manifest = Manifest {
        task: undo_id.to_string(),
        engine: "undo".into(),
        started_at: now,
        ended_at: Some(now),
        summary: format!("Undid dream {} ({} files restored)", manifest.task, changes.len()),
        changes,
        conflicts: Vec::new(),
        undo_of: Some(manifest.task.clone()),
        tokens: TokenUsage::default(),
        cost_usd: None,
        sessions_reviewed: 0,
    };
    record(loc, &record_manifest, &contents)?;
    Ok(Ok(record_manifest))
}
