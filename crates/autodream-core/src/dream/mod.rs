//! The dream lifecycle, shared by every engine.
//!
//! A dream is a transaction: the memory directory is copied to `<state>/staging/<task>/`, the
//! engine edits the copy, the hygiene pass tidies it, validation refuses mass deletions and
//! broken indexes, and the changes are applied file by file under a journal, with every
//! replaced file kept in `<state>/history/<task>/` for `diff` and `undo`. A crash at any point
//! leaves the memory directory in its state before or after the dream, never half-way.
//!
//! Every command that takes the lock lives here: a dream ([`run`]), stopping one ([`kill`]),
//! undoing one ([`undo`]), and the recovery after a crash ([`recover`]).

pub mod announce;
pub mod cost;
pub mod history;
pub mod journal;
pub mod kill;
pub mod migrate;
pub mod review;
pub mod run;
pub mod task;
pub mod transaction;
pub mod undo;
pub mod validate;

use std::path::PathBuf;

pub use run::{DreamError, DreamOptions, DreamOutcome, run_dream};

use crate::clock::Clock;
use crate::config::Config;
use crate::lock::ConsolidationLock;
use crate::paths::Locations;

/// Names inside the state folder (the table is `paths::state`).
pub use crate::paths::state::{
    HISTORY_DIR, JOURNAL_FILE, LOG_CURSOR_FILE, STAGING_DIR, TASK_FILE, WORKER_LOG,
};

#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Lock(#[from] crate::lock::LockError),
    /// A path inside the memory folder was refused (a symbolic link on it) or failed.
    #[error(transparent)]
    Path(#[from] crate::memdir::SafePathError),
}

impl LifecycleError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        LifecycleError::Io { path: path.into(), source }
    }
}

/// Brings the memory directory back to a consistent state after a crash: finishes an
/// interrupted apply (roll forward, or back when the staged files are gone), marks a
/// running task whose worker died as failed, rolls back a lock abandoned by a dead holder,
/// and removes leftover staging copies. Returns a sentence when it did something.
pub fn recover(loc: &Locations, clock: Clock, cfg: &Config) -> Result<Option<String>, LifecycleError> {
    let lock = ConsolidationLock::new(&loc.memory_dir, clock, cfg.stale_lock());
    let state = lock.state();
    if state.is_held() {
        // A live dream owns the journal and the staging area: nothing to recover.
        return Ok(None);
    }
    let mut said = Vec::new();
    if let Some(s) = migrate::legacy_state(loc)? {
        said.push(s);
    }
    if let Some(s) = journal::recover_journal(loc)? {
        said.push(s);
    }
    if let Some(t) = task::mark_dead_task(loc, clock)? {
        said.push(t);
    }
    if state.is_abandoned() && lock.rollback_abandoned()? {
        said.push(format!("rolled back the lock left by PID {}", state.holder.as_ref().map_or(0, |h| h.pid)));
    }
    transaction::remove_stale_staging(loc, &lock);
    lock.remove_stale_temp_files()?;
    Ok((!said.is_empty()).then(|| said.join("; ")))
}

/// Removes the history folders of change sets killed before their journal was written (they
/// never reached the memory folder and hold no record). Only the lock's holder may call it:
/// a change set under way has no record yet either.
pub(crate) fn remove_unrecorded_history(loc: &Locations) {
    if !loc.state_dir.join(JOURNAL_FILE).exists() {
        history::remove_unrecorded(loc);
    }
}
