//! One daemon per memory folder: `daemon.pid` in the state folder, held with an exclusive
//! `flock` (`File::try_lock`) for as long as the daemon runs, with its PID inside.
//!
//! The kernel drops the lock when the process ends, however it ends, so a crashed daemon
//! never blocks the next one and there is nothing to clean up. The file itself stays.

use std::fs::{File, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::memdir::{MemoryRoot, SafePathError};
use crate::paths::Locations;

/// The pid/lock file's name inside the state folder.
pub use crate::paths::state::DAEMON_PID_FILE as PID_FILE;

#[derive(Debug, thiserror::Error)]
pub enum PidFileError {
    /// Another daemon holds the lock.
    #[error("{}", held_message(*pid, path))]
    Held { pid: Option<u32>, path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Path(#[from] SafePathError),
}

fn held_message(pid: Option<u32>, path: &Path) -> String {
    match pid {
        Some(pid) => format!(
            "another daemon (PID {pid}) already runs for this memory folder (it holds {})",
            path.display()
        ),
        None => format!("another daemon already runs for this memory folder (it holds {})", path.display()),
    }
}

/// The held lock; dropping it (or the process ending) lets the next daemon in.
#[derive(Debug)]
pub struct DaemonLock {
    file: File,
    path: PathBuf,
}

impl DaemonLock {
    /// Takes the lock of `loc`'s memory folder and writes our PID into it, or names the
    /// daemon that holds it.
    pub fn acquire(loc: &Locations) -> Result<DaemonLock, PidFileError> {
        let state = loc.state_dir();
        let path = state.join(PID_FILE);
        let root = MemoryRoot::create(&state)?;
        let file = root.open_append(PID_FILE)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(PidFileError::Held { pid: holder(&root), path });
            }
            Err(TryLockError::Error(source)) => return Err(PidFileError::Io { path, source }),
        }
        let io = |source| PidFileError::Io { path: path.clone(), source };
        file.set_len(0).map_err(io)?;
        (&file).write_all(format!("{}\n", std::process::id()).as_bytes()).map_err(io)?;
        Ok(DaemonLock { file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DaemonLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// The PID written in a held lock file. The holder writes it just after taking the lock,
/// so an empty file is read again a few times before giving up.
fn holder(root: &MemoryRoot) -> Option<u32> {
    for _ in 0..20 {
        if let Ok(Some(bytes)) = root.read(PID_FILE)
            && let Some(pid) = String::from_utf8_lossy(&bytes).trim().parse().ok()
        {
            return Some(pid);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_the_holders_pid_until_the_first_is_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let loc = Locations {
            memory_dir: tmp.path().join("mem"),
            state_dir: tmp.path().join("state"),
            sessions_dir: tmp.path().join("sessions"),
            project_dir: tmp.path().to_path_buf(),
        };
        let first = DaemonLock::acquire(&loc).unwrap();
        assert_eq!(std::fs::read_to_string(first.path()).unwrap(), format!("{}\n", std::process::id()));
        // A second open file description conflicts with the first, even in one process.
        match DaemonLock::acquire(&loc) {
            Err(PidFileError::Held { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("expected Held, got {other:?}"),
        }
        drop(first);
        let again = DaemonLock::acquire(&loc).unwrap();
        assert_eq!(std::fs::read_to_string(again.path()).unwrap(), format!("{}\n", std::process::id()));
    }
}
