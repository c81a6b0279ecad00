//! Stopping the running dream: TERM, a bounded wait, then KILL and recovery, so the dream
//! rolls back and changes nothing.

use std::time::{Duration, Instant};

use super::task::{self, Task, TaskState};
use super::{LifecycleError, recover};
use crate::clock::Clock;
use crate::config::Config;
use crate::lock::pid_alive;
use crate::paths::Locations;

#[derive(Debug, thiserror::Error)]
pub enum KillError {
    #[error("no dream is running")]
    NotRunning,
    #[error("invalid PID {0}")]
    InvalidPid(u32),
    #[error("cannot signal PID {pid}: {errno}")]
    Signal { pid: u32, errno: rustix::io::Errno },
    #[error(transparent)]
    Lifecycle(#[from] LifecycleError),
}

/// What [`kill_running`] did.
#[derive(Debug)]
pub enum Killed {
    /// The dream's worker was already gone; what it left was cleaned up.
    AlreadyStopped { task: Task },
    /// The worker was stopped: `clean` when it stopped on its own after TERM. `finished` is
    /// the dream's summary when the signal came while it was applying its changes, and it
    /// finished them (they are never torn).
    Stopped { task: Task, clean: bool, finished: Option<String> },
}

/// Stops the dream of `pid`: SIGTERM, a wait of up to `timeout`, then SIGKILL and recovery.
/// Returns true when the worker stopped on its own.
pub fn stop(
    loc: &Locations,
    clock: Clock,
    cfg: &Config,
    pid: u32,
    timeout: Duration,
) -> Result<bool, KillError> {
    let Some(p) = rustix::process::Pid::from_raw(pid as i32) else { return Err(KillError::InvalidPid(pid)) };
    rustix::process::kill_process(p, rustix::process::Signal::TERM)
        .map_err(|errno| KillError::Signal { pid, errno })?;
    let start = Instant::now();
    while start.elapsed() < timeout {
        if !pid_alive(pid) || task::load(loc).is_some_and(|t| t.state != TaskState::Running) {
            return Ok(true);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
    let deadline = Instant::now() + Duration::from_secs(5);
    while pid_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    recover(loc, clock, cfg)?;
    if let Some(mut t) = task::load(loc)
        && t.state != TaskState::Completed
    {
        t.state = TaskState::Killed;
        task::save(loc, &t)?;
    }
    Ok(false)
}

/// Stops the running dream (see [`stop`]), or cleans up after one whose worker is gone.
pub fn kill_running(
    loc: &Locations,
    clock: Clock,
    cfg: &Config,
    timeout: Duration,
) -> Result<Killed, KillError> {
    let Some(task) = task::load(loc).filter(|t| t.state == TaskState::Running) else {
        return Err(KillError::NotRunning);
    };
    if !pid_alive(task.pid) {
        recover(loc, clock, cfg)?;
        return Ok(Killed::AlreadyStopped { task });
    }
    let clean = stop(loc, clock, cfg, task.pid, timeout)?;
    let finished = task::load(loc)
        .filter(|t| t.id == task.id && t.state == TaskState::Completed)
        .map(|t| t.summary.unwrap_or_default());
    Ok(Killed::Stopped { task, clean, finished })
}
