//! What a running daemon tells `status` and `watch`: `daemon.json` in the state folder,
//! rewritten atomically at start, after every tick and at a clean stop. It holds the PID
//! (with the process's start time, so a recycled PID is not taken for the daemon), the
//! schedule, when the next tick is due and what the last tick decided.

use std::path::Path;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::lock::{pid_alive, process_start};
use crate::memdir::{MemoryRoot, SafePathError};
use crate::paths::Locations;

/// The state file's name inside the state folder.
pub use crate::paths::state::DAEMON_STATE_FILE as STATE_FILE;

/// The last tick, as recorded for `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastTick {
    pub at: Timestamp,
    /// `dreamt`, `not_due`, `failed` or `cancelled`.
    pub result: String,
    /// The sentence `--once` prints for it.
    pub detail: String,
}

/// The contents of `daemon.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DaemonState {
    pub pid: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proc_start: Option<u64>,
    pub started_at: Timestamp,
    /// `02:00-05:00`, local time.
    pub window: String,
    pub tick_minutes: f64,
    /// When the next tick is due (in the daemon's clock); `None` once stopped.
    pub next_tick: Option<Timestamp>,
    pub last_tick: Option<LastTick>,
    /// Set when the daemon stopped cleanly.
    pub stopped_at: Option<Timestamp>,
}

impl DaemonState {
    /// A fresh state for this process.
    pub fn new(started_at: Timestamp, window: String, tick_minutes: f64) -> DaemonState {
        let pid = std::process::id();
        DaemonState {
            pid,
            proc_start: process_start(pid),
            started_at,
            window,
            tick_minutes,
            next_tick: None,
            last_tick: None,
            stopped_at: None,
        }
    }

    /// Writes `daemon.json` atomically.
    pub fn save(&self, loc: &Locations) -> Result<(), SafePathError> {
        let root = MemoryRoot::create(&loc.state_dir())?;
        let mut text = serde_json::to_string_pretty(self).expect("the state serialises");
        text.push('\n');
        root.write_atomic(STATE_FILE, text.as_bytes())
    }

    /// Is the process that wrote this state still running it?
    pub fn is_running(&self) -> bool {
        self.stopped_at.is_none()
            && pid_alive(self.pid)
            && match (self.proc_start, process_start(self.pid)) {
                (Some(recorded), Some(now)) => recorded == now,
                _ => true,
            }
    }
}

/// The daemon as `status` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DaemonStatus {
    pub running: bool,
    #[serde(flatten)]
    pub state: DaemonState,
}

/// Reads `daemon.json`; `None` when no daemon ever ran for this memory folder (or the file is
/// unreadable).
pub fn read(loc: &Locations) -> Option<DaemonStatus> {
    let text = std::fs::read_to_string(loc.state_dir().join(STATE_FILE)).ok()?;
    let state: DaemonState = serde_json::from_str(&text).ok()?;
    Some(DaemonStatus { running: state.is_running(), state })
}

/// `daemon.json`'s path (for messages).
pub fn path(loc: &Locations) -> std::path::PathBuf {
    loc.state_dir().join(Path::new(STATE_FILE))
}
