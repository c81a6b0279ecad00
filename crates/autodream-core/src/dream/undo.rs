//! Undoing a dream under the lock: restores what it replaced, byte for byte, through the same
//! journal as a dream's apply, and records the undo in the history.
//!
//! The undo takes the lock so it never races a dream, and rolls the lock back afterwards: an
//! undo is not a consolidation, so the time gate keeps its previous "last ran". A kill at
//! any point leaves the memory folder as the dream left it (nothing recorded: the dream can
//! be undone again) or as it was before the dream (the undo recorded), never between.

use jiff::Timestamp;
use serde::Serialize;

use super::history::{self, Action, BeforeAfter, Change, FileStamp, Manifest};
use super::journal::{self, Roots};
use super::{LifecycleError, recover};
use crate::clock::Clock;
use crate::config::Config;
use crate::engine::TokenUsage;
use crate::lock::{Acquire, ConsolidationLock};
use crate::paths::Locations;

#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    /// A dream holds the lock.
    #[error("a dream is running (PID {0}): try again after it")]
    Busy(u32),
    #[error("another process took the lock first")]
    LostRace,
    #[error(transparent)]
    Lifecycle(#[from] LifecycleError),
}

impl UndoError {
    /// Refused by the lock (as opposed to failed).
    pub fn is_refusal(&self) -> bool {
        matches!(self, UndoError::Busy(_) | UndoError::LostRace)
    }
}

/// Why an undo was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UndoConflict {
    pub path: String,
    pub reason: String,
}

/// Undoes the dream `task` (default: the last one not undone yet). The inner `Err` lists the
/// files that changed since the dream, when `force` is off: nothing was undone.
pub fn undo(
    loc: &Locations,
    clock: Clock,
    cfg: &Config,
    task: Option<&str>,
    force: bool,
) -> Result<Result<Manifest, Vec<UndoConflict>>, UndoError> {
    recover(loc, clock, cfg)?;
    let m = match task {
        Some(id) => history::find(loc, Some(id))?,
        None => {
            if history::list(loc).is_empty() {
                return Err(LifecycleError::Invalid("no dream recorded yet".into()).into());
            }
            // A second plain undo must not re-apply what the first one undid.
            history::latest_undoable(loc)?
        }
    };
    let lock = ConsolidationLock::new(&loc.memory_dir, clock, cfg.stale_lock());
    let token = match lock.try_acquire(std::process::id()).map_err(LifecycleError::from)? {
        Acquire::Acquired(t) => t,
        Acquire::Held { holder, .. } => return Err(UndoError::Busy(holder.pid)),
        Acquire::LostRace => return Err(UndoError::LostRace),
    };
    super::remove_unrecorded_history(loc);
    let undo_id = format!("undo-{}", m.task);
    let result = restore(loc, &m, &undo_id, clock.now(), force);
    // An undo is not a consolidation: the time gate keeps its previous "last ran".
    lock.rollback(&token).map_err(LifecycleError::from)?;
    Ok(result?)
}

/// Restores what `manifest` replaced, under the journal. Refuses (listing the files) when a
/// file changed since the dream, unless `force`. Records the undo as its own history entry
/// `undo_id`. Every path is checked for links before anything is restored.
pub fn restore(
    loc: &Locations,
    manifest: &Manifest,
    undo_id: &str,
    now: Timestamp,
    force: bool,
) -> Result<Result<Manifest, Vec<UndoConflict>>, LifecycleError> {
    if manifest.undo_of.is_none()
        && history::list(loc).iter().any(|m| m.undo_of.as_deref() == Some(manifest.task.as_str()))
        && !force
    {
        return Ok(Err(vec![UndoConflict {
            path: String::new(),
            reason: format!("dream {} was already undone", manifest.task),
        }]));
    }
    let roots = Roots::open(loc)?;
    roots.refuse_links(manifest.changes.iter().map(|c| c.path.as_str()))?;
    let mut conflicts = Vec::new();
    let mut changes = Vec::new();
    let mut contents: Vec<BeforeAfter> = Vec::new();
    for c in &manifest.changes {
        let current = roots.for_path(&c.path).read(&c.path)?;
        let current_stamp = current.as_deref().map(FileStamp::of);
        if current_stamp != c.after {
            let reason = match (&c.after, &current_stamp) {
                (None, Some(_)) => "the dream deleted it, and it exists again",
                (Some(_), None) => "it was deleted since the dream",
                _ => "it changed since the dream",
            };
            conflicts.push(UndoConflict { path: c.path.clone(), reason: reason.to_string() });
        }
        let before = history::read_side(loc, &manifest.task, "before", &c.path);
        if c.before.is_some() && before.is_none() {
            return Err(LifecycleError::Invalid(format!(
                "the history of {} lacks the original of {}: cannot undo",
                manifest.task, c.path
            )));
        }
        if current == before {
            continue; // already as it was before the dream (a forced undo after a hand edit)
        }
        let action = Action::between(&current, &before);
        changes.push(Change {
            path: c.path.clone(),
            action,
            before: current.as_deref().map(FileStamp::of),
            after: before.as_deref().map(FileStamp::of),
        });
        contents.push((current, before));
    }
    if !conflicts.is_empty() && !force {
        return Ok(Err(conflicts));
    }
    let record = Manifest {
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
    journal::commit(loc, &roots, &record, &contents, None)?;
    Ok(Ok(record))
}
