//! Undoing a dream under the lock: restores what it replaced, byte for byte, and records the
//! undo in the history.
//!
//! The undo takes the lock so it never races a dream, and rolls the lock back afterwards: an
//! undo is not a consolidation, so the time gate keeps its previous "last ran".

use super::history::{self, Manifest, UndoConflict};
use super::{LifecycleError, recover};
use crate::clock::Clock;
use crate::config::Config;
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

/// Undoes the dream `task` (default: the last one not undone yet). The inner `Err` lists the
/// files that changed since the dream, when `force` is off: nothing was undone.
pub fn undo(
    loc: &Locations,
    clock: Clock,
    cfg: &Config,
    task: Option<&str>,
    force: bool,
) -> Result<Result<Manifest, Vec<UndoConflict>>, UndoError> {
    let mem = loc;
    recover(loc, clock, cfg)?;
    let m = match task {
        Some(id) => history::find(mem, Some(id))?,
        None => {
            if history::list(mem).is_empty() {
                return Err(LifecycleError::Invalid("no dream recorded yet".into()).into());
            }
            // A second plain undo must not re-apply what the first one undid.
            history::latest_undoable(mem)?
        }
    };
    let lock = ConsolidationLock::new(&loc.memory_dir, clock, cfg.stale_lock());
    let token = match lock.try_acquire(std::process::id()).map_err(LifecycleError::from)? {
        Acquire::Acquired(t) => t,
        Acquire::Held { holder, .. } => return Err(UndoError::Busy(holder.pid)),
        Acquire::LostRace => return Err(UndoError::LostRace),
    };
    let undo_id = format!("undo-{}", m.task);
    let result = history::undo(mem, &m, &undo_id, clock.now(), force);
    // An undo is not a consolidation: the time gate keeps its previous "last ran".
    lock.rollback(&token).map_err(LifecycleError::from)?;
    Ok(result?)
}
