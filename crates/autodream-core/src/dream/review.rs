//! Review before apply: a dream that stops after validation and waits to be accepted.
//!
//! With `review = true` (or `run --review`) a dream runs every step up to the plan, then,
//! instead of applying, moves its staging copy to `<state>/pending/<task>/` with a record,
//! `review.json`: the task, when it was planned, the last consolidation before it (`since`),
//! the base and new hash of every file it changes, and where it stopped reading the logs.
//! The staging copy lives outside `staging/`, so no recovery ever removes it.
//!
//! [`accept`] takes the lock and applies the plan (all of it, or only some files: the rest is
//! dropped) through the same `transaction::apply` and `journal::commit` as a dream, so
//! history, `diff` and `undo` treat it like any other dream. When a file it would change is
//! no longer what it was planned against, the pending dream is never applied blind: it is
//! dropped, and the lock's "last consolidated at" goes back to `since`, so the next eligible
//! dream re-plans the same sessions and notes over the memory as it is now. [`reject`] drops
//! it and counts its input as reviewed. A new dream while one is pending reviews from the
//! pending one's `since` (so nothing it saw is lost) and replaces it.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::history::{self, Action, FileStamp, Manifest};
use super::transaction::{self, Planned, Staging};
use super::{LifecycleError, recover};
use crate::clock::{Clock, to_system_time};
use crate::config::Config;
use crate::engine::TokenUsage;
use crate::lock::{Acquire, ConsolidationLock, LockToken};
use crate::memdir::daily_log::LogCursor;
use crate::memdir::{MemoryRoot, is_engine_data};
use crate::paths::Locations;
use crate::paths::state::PENDING_DIR;

/// The record inside a pending dream's folder.
pub const RECORD_FILE: &str = "review.json";

/// A dream waiting for review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub task: String,
    pub engine: String,
    pub started_at: Timestamp,
    pub planned_at: Timestamp,
    /// The last consolidation before this dream (`None`: there was none): a dream that
    /// replaces this one reviews from here.
    pub since: Option<Timestamp>,
    pub summary: String,
    #[serde(default)]
    pub notes: Vec<String>,
    pub files: Vec<PendingFile>,
    /// Where this dream stopped reading the daily logs (saved when it is accepted or rejected).
    pub log_cursor: Option<LogCursor>,
    pub sessions_reviewed: usize,
    #[serde(default)]
    pub tokens: TokenUsage,
    #[serde(default)]
    pub cost_usd: Option<f64>,
}

/// One file a pending dream changes: its hash when planned, and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingFile {
    pub path: String,
    pub action: Action,
    pub base: Option<FileStamp>,
    pub work: Option<FileStamp>,
}

impl Pending {
    /// The memory files it changes (not engine data).
    pub fn memory_files(&self) -> impl Iterator<Item = &PendingFile> {
        self.files.iter().filter(|f| !is_engine_data(&f.path))
    }
}

fn pending_rel(task: &str) -> PathBuf {
    Path::new(PENDING_DIR).join(task)
}

/// The staging copy of a pending dream.
pub fn staging_of(loc: &Locations, task: &str) -> Staging {
    let root = loc.state_dir.join(pending_rel(task));
    Staging { base: root.join("base"), work: root.join("work"), root }
}

/// Whether a task id is taken by a pending dream.
pub(crate) fn exists(loc: &Locations, task: &str) -> bool {
    loc.state_dir.join(pending_rel(task)).exists()
}

/// Every pending dream with a readable record, oldest first. One whose task is already in
/// the history (accepted, then killed before its folder was removed) is not pending.
fn all(loc: &Locations) -> Vec<Pending> {
    let Ok(state) = MemoryRoot::open(&loc.state_dir) else { return vec![] };
    let Ok(names) = state.list(PENDING_DIR) else { return vec![] };
    let mut out: Vec<Pending> = names
        .iter()
        .filter_map(|n| state.read(Path::new(PENDING_DIR).join(n).join(RECORD_FILE)).ok().flatten())
        .filter_map(|b| serde_json::from_slice::<Pending>(&b).ok())
        .filter(|p| !history::entry_dir(loc, &p.task).join("manifest.json").is_file())
        .collect();
    out.sort_by(|a, b| a.started_at.cmp(&b.started_at).then_with(|| a.task.cmp(&b.task)));
    out
}

/// The dream waiting for review, if any (the newest).
pub fn load(loc: &Locations) -> Option<Pending> {
    all(loc).pop()
}

/// Where a dream starts reviewing: the pending dream's `since` when one waits (its input is
/// then this dream's too), else the lock's prior mtime.
pub(crate) fn window_start(
    loc: &Locations,
    prior: Option<std::time::SystemTime>,
) -> Option<std::time::SystemTime> {
    match load(loc) {
        Some(p) => p.since.map(to_system_time),
        None => prior,
    }
}

/// Removes every pending folder but `keep`'s (best effort).
pub(crate) fn discard_others(loc: &Locations, keep: Option<&str>) {
    let Ok(state) = MemoryRoot::open(&loc.state_dir) else { return };
    let Ok(names) = state.list(PENDING_DIR) else { return };
    for name in names {
        if name.to_str() != keep {
            let _ = state.remove_dir_all(Path::new(PENDING_DIR).join(name));
        }
    }
}

/// Keeps a dream's staging copy as the pending dream: the record is written into the copy,
/// which is then renamed into `pending/` in one step (so a pending folder is always whole),
/// and only then are older pending dreams removed.
pub(crate) fn keep(
    loc: &Locations,
    staging: &Staging,
    planned: &[Planned],
    mut record: Pending,
) -> Result<Pending, LifecycleError> {
    record.files = planned
        .iter()
        .map(|p| PendingFile {
            path: p.path.clone(),
            action: Action::between(&p.base, &p.work),
            base: p.base.as_deref().map(FileStamp::of),
            work: p.work.as_deref().map(FileStamp::of),
        })
        .collect();
    let state = MemoryRoot::create(&loc.state_dir)?;
    let from = staging
        .root
        .strip_prefix(&loc.state_dir)
        .map_err(|_| LifecycleError::Invalid("the staging copy is outside the state folder".into()))?
        .to_path_buf();
    let json = serde_json::to_vec_pretty(&record).map_err(|e| LifecycleError::Invalid(e.to_string()))?;
    state.write_atomic(from.join(RECORD_FILE), &json)?;
    state.create_dir_all(PENDING_DIR)?;
    state.rename(&from, pending_rel(&record.task))?;
    discard_others(loc, Some(&record.task));
    Ok(record)
}

/// The plan of a pending dream, read back from its copy; `only` limits it to those files.
pub fn planned(loc: &Locations, pending: &Pending, only: Option<&[String]>) -> Vec<Planned> {
    let staging = staging_of(loc, &pending.task);
    pending
        .files
        .iter()
        .filter(|f| only.is_none_or(|o| o.contains(&f.path)))
        .map(|f| Planned {
            path: f.path.clone(),
            base: std::fs::read(staging.base.join(&f.path)).ok(),
            work: std::fs::read(staging.work.join(&f.path)).ok(),
        })
        .collect()
}

/// The unified diff of a pending dream (the dry run's rendering).
pub fn diff(loc: &Locations, pending: &Pending) -> String {
    transaction::plan_diff(&planned(loc, pending, None))
}

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("no dream is waiting for review")]
    NothingPending,
    /// A dream holds the lock.
    #[error("a dream is running (PID {0}): try again after it")]
    Busy(u32),
    #[error("another process took the lock first")]
    LostRace,
    #[error("{} not among the files of dream {task} (it changes: {})", .unknown.join(", "), .known.join(", "))]
    UnknownFiles { task: String, unknown: Vec<String>, known: Vec<String> },
    /// The memory changed since the dream was planned: it was dropped, not applied.
    #[error(
        "dream {task} was dropped, not applied: {} changed since it was planned; the next dream reviews its sessions again over the memory as it is now",
        .changed.join(", ")
    )]
    Stale { task: String, changed: Vec<String> },
    #[error(transparent)]
    Lifecycle(#[from] LifecycleError),
}

impl ReviewError {
    /// Refused by the lock (exit 3), as opposed to failed.
    pub fn is_refusal(&self) -> bool {
        matches!(self, ReviewError::Busy(_) | ReviewError::LostRace)
    }
}

/// An accepted dream.
#[derive(Debug, Clone, Serialize)]
pub struct Accepted {
    pub task: String,
    /// Files applied.
    pub files: Vec<String>,
    /// Memory files of the dream left out (`--accept FILE…`).
    pub dropped: Vec<String>,
    pub conflicts: Vec<String>,
    /// Problems mirroring the index into AGENTS.md / GEMINI.md.
    pub notes: Vec<String>,
}

/// Runs `f` with the pending dream under the lock, then rolls the lock back to the mtime the
/// pending dream gave it (accepting or rejecting is not a new consolidation).
fn under_lock<T>(
    loc: &Locations,
    clock: Clock,
    cfg: &Config,
    f: impl FnOnce(&Pending, &ConsolidationLock, &LockToken) -> Result<T, ReviewError>,
) -> Result<T, ReviewError> {
    recover(loc, clock, cfg)?;
    let lock = ConsolidationLock::new(&loc.memory_dir, clock, cfg.stale_lock());
    let token = match lock.try_acquire(std::process::id()).map_err(LifecycleError::from)? {
        Acquire::Acquired(t) => t,
        Acquire::Held { holder, .. } => return Err(ReviewError::Busy(holder.pid)),
        Acquire::LostRace => return Err(ReviewError::LostRace),
    };
    super::remove_unrecorded_history(loc);
    let result = match load(loc) {
        Some(p) => f(&p, &lock, &token),
        None => Err(ReviewError::NothingPending),
    };
    if result.is_ok() || matches!(result, Err(ReviewError::Stale { .. })) {
        // "A dream waits for review" is no longer true.
        let _ = super::announce::take(loc);
    }
    let _ = lock.rollback(&token);
    result
}

/// Accepts the pending dream: every file, or only `only` (memory files; the rest, engine
/// data included, is dropped).
pub fn accept(
    loc: &Locations,
    clock: Clock,
    cfg: &Config,
    only: Option<&[String]>,
) -> Result<Accepted, ReviewError> {
    under_lock(loc, clock, cfg, |p, lock, token| {
        let known: Vec<String> = p.memory_files().map(|f| f.path.clone()).collect();
        if let Some(only) = only {
            let unknown: Vec<String> = only.iter().filter(|f| !known.contains(f)).cloned().collect();
            if !unknown.is_empty() {
                return Err(ReviewError::UnknownFiles { task: p.task.clone(), unknown, known });
            }
        }
        let chosen: Vec<&PendingFile> =
            p.files.iter().filter(|f| only.is_none_or(|o| o.contains(&f.path))).collect();
        // Never applied blind: every chosen file must still be what the dream was planned on.
        let roots = super::journal::Roots::open(loc)?;
        let mut changed = Vec::new();
        for f in &chosen {
            let disk = roots.for_path(&f.path).read(&f.path).map_err(LifecycleError::from)?;
            if disk.as_deref().map(FileStamp::of) != f.base {
                changed.push(f.path.clone());
            }
        }
        if !changed.is_empty() {
            discard_others(loc, None);
            // Back to before the pending dream: the next dream reviews its input again.
            let back = LockToken { prior_mtime: p.since.map(to_system_time), ..token.clone() };
            let _ = lock.rollback(&back);
            return Err(ReviewError::Stale { task: p.task.clone(), changed });
        }
        let plan = planned(loc, p, only);
        let manifest = Manifest {
            task: p.task.clone(),
            engine: p.engine.clone(),
            started_at: p.started_at,
            ended_at: Some(clock.now()),
            summary: p.summary.clone(),
            changes: vec![],
            conflicts: vec![],
            undo_of: None,
            tokens: p.tokens,
            cost_usd: p.cost_usd,
            sessions_reviewed: p.sessions_reviewed,
        };
        let staging = staging_of(loc, &p.task);
        let applied = transaction::apply(loc, &staging, plan, manifest)?;
        if let Some(c) = &p.log_cursor {
            let _ = c.save(loc);
        }
        discard_others(loc, None);
        let dropped = known.into_iter().filter(|f| only.is_some_and(|o| !o.contains(f))).collect();
        let notes = crate::agents_md::sync_after_dream(loc, cfg);
        Ok(Accepted {
            task: p.task.clone(),
            files: applied.changes.iter().map(|c| c.path.clone()).collect(),
            dropped,
            conflicts: applied.conflicts,
            notes,
        })
    })
}

/// Rejects the pending dream: nothing is applied, and its input counts as reviewed.
pub fn reject(loc: &Locations, clock: Clock, cfg: &Config) -> Result<Pending, ReviewError> {
    under_lock(loc, clock, cfg, |p, _, _| {
        discard_others(loc, None);
        if let Some(c) = &p.log_cursor {
            let _ = c.save(loc);
        }
        Ok(p.clone())
    })
}

#[cfg(test)]
mod tests;
