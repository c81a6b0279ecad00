//! The consolidation lock: `<memory>/.consolidate-lock`.
//!
//! One file answers two questions. Its **mtime is "last consolidated at"** (absent: never),
//! which the time gate reads with a single `stat`. Its **body names the holder** of a running
//! dream: line 1 the PID, line 2 a JSON object with the host, the start time, the process's
//! start time (so a recycled PID is not mistaken for the holder) and the prior mtime (so a
//! dream that crashed can be rolled back by whoever finds it).
//!
//! Acquiring serialises read-check-write under `flock` on the file itself, then re-reads to
//! verify. A holder is live when the lock is fresh (mtime within `stale_lock_minutes`), its
//! PID is alive and its process start time matches. A successful dream empties the body and
//! sets the mtime to the dream's start; a failed or killed one restores the prior mtime
//! ("this dream never happened"), deleting the file when there was none.
//!
//! The lock file is written, touched and removed through a descriptor of the memory folder
//! ([`MemoryRoot`]), never through a symbolic link: a link named `.consolidate-lock` (or
//! named like its temporary file) is refused or replaced, its target never written.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::clock::{Clock, from_system_time, to_system_time};
use crate::memdir::safe_path::{MemoryRoot, SafePathError, WriteOptions};

/// The lock file's name inside the memory directory.
pub const LOCK_FILE: &str = ".consolidate-lock";

/// Line 2 of a held lock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct HolderInfo {
    #[serde(default)]
    pub host: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Timestamp>,
    /// The holder's process start time (Linux: clock ticks since boot, from /proc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proc_start: Option<u64>,
    /// The lock's mtime before this holder took it, in milliseconds since the epoch (0: none).
    #[serde(default)]
    pub prior_mtime: i64,
}

/// A holder named in the lock body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Holder {
    pub pid: u32,
    pub info: HolderInfo,
}

/// What the lock file says right now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LockState {
    pub exists: bool,
    pub mtime: Option<SystemTime>,
    /// The PID (and details) in the body, when the body is not empty.
    pub holder: Option<Holder>,
    /// The holder is alive (same host, PID running, same process start).
    pub holder_alive: bool,
    /// The mtime is older than the stale limit.
    pub stale: bool,
}

impl LockState {
    /// Is a dream running right now?
    pub fn is_held(&self) -> bool {
        self.holder.is_some() && self.holder_alive && !self.stale
    }

    /// A body left by a holder that is gone: a crashed dream.
    pub fn is_abandoned(&self) -> bool {
        self.holder.is_some() && !self.is_held()
    }

    /// When the memory was last consolidated. A crashed dream's lock counts as its prior
    /// mtime, so a SIGKILL never delays the next dream by a day.
    pub fn last_consolidated(&self) -> Option<SystemTime> {
        if self.is_abandoned() {
            let prior = self.holder.as_ref().map_or(0, |h| h.info.prior_mtime);
            return (prior > 0).then(|| SystemTime::UNIX_EPOCH + Duration::from_millis(prior as u64));
        }
        self.mtime
    }
}

/// The outcome of [`ConsolidationLock::try_acquire`].
#[derive(Debug, Clone, PartialEq)]
pub enum Acquire {
    /// We hold the lock; keep the token to release or roll back.
    Acquired(LockToken),
    /// Someone else holds it.
    Held { holder: Holder, age: Duration },
    /// Two processes reclaimed at once and the other won.
    LostRace,
}

/// Proof of holding the lock, with what is needed to undo it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockToken {
    pub pid: u32,
    /// The mtime before we took it (`None`: no lock file existed).
    pub prior_mtime: Option<SystemTime>,
    pub started_at: Timestamp,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("lock {0}")]
    Path(#[from] SafePathError),
}

/// The lock of one memory directory.
#[derive(Debug, Clone)]
pub struct ConsolidationLock {
    dir: PathBuf,
    path: PathBuf,
    clock: Clock,
    stale: Duration,
}

impl ConsolidationLock {
    pub fn new(memory_dir: &Path, clock: Clock, stale: Duration) -> Self {
        ConsolidationLock { dir: memory_dir.to_path_buf(), path: memory_dir.join(LOCK_FILE), clock, stale }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lock file's mtime: one `stat`, the time gate's whole cost.
    pub fn mtime(&self) -> Option<SystemTime> {
        std::fs::metadata(&self.path).ok().and_then(|m| m.modified().ok())
    }

    /// Reads the lock without taking it.
    pub fn state(&self) -> LockState {
        let Ok(meta) = std::fs::metadata(&self.path) else {
            return LockState { exists: false, mtime: None, holder: None, holder_alive: false, stale: false };
        };
        let body = std::fs::read_to_string(&self.path).unwrap_or_default();
        self.state_from(meta.modified().ok(), &body)
    }

    fn state_from(&self, mtime: Option<SystemTime>, body: &str) -> LockState {
        let holder = parse_body(body);
        let now = self.clock.now_system_time();
        let stale = mtime.is_none_or(|m| now.duration_since(m).unwrap_or_default() >= self.stale);
        let holder_alive = holder.as_ref().is_some_and(is_alive);
        LockState { exists: true, mtime, holder, holder_alive, stale }
    }

    /// Runs `op` while holding `flock` on the memory directory itself. Every change to the
    /// lock file happens inside this, so read-check-write is one step for every process, and
    /// the file can be replaced by rename (a crash never leaves a half-updated lock).
    fn serialise<T>(&self, op: impl FnOnce(&MemoryRoot) -> Result<T, LockError>) -> Result<T, LockError> {
        let root = MemoryRoot::create(&self.dir)?;
        let _guard = root.lock()?;
        op(&root)
    }

    /// Replaces the lock file with `body` and `mtime` in one rename.
    fn replace(&self, root: &MemoryRoot, body: &[u8], mtime: SystemTime) -> Result<(), LockError> {
        let temp = format!("{LOCK_FILE}.{}.tmp", std::process::id());
        let opts = WriteOptions { mtime: Some(mtime), temp_name: Some(&temp) };
        root.write_atomic_with(LOCK_FILE, body, &opts)?;
        Ok(())
    }

    fn ours(&self, pid: u32) -> bool {
        let body = std::fs::read_to_string(&self.path).unwrap_or_default();
        parse_body(&body).is_some_and(|h| h.pid == pid)
    }

    /// Takes the lock for `pid` unless a live holder has it.
    pub fn try_acquire(&self, pid: u32) -> Result<Acquire, LockError> {
        self.serialise(|root| {
            let state = self.state();
            if state.is_held() {
                let holder = state.holder.clone().expect("held implies a holder");
                let age = self
                    .clock
                    .now_system_time()
                    .duration_since(state.mtime.unwrap_or(SystemTime::UNIX_EPOCH))
                    .unwrap_or_default();
                return Ok(Acquire::Held { holder, age });
            }
            // Reclaim. The prior mtime is the real "last consolidated at": for a crashed
            // holder's lock, the mtime it replaced.
            let prior_mtime = state.last_consolidated();
            let started_at = self.clock.now();
            let info = HolderInfo {
                host: hostname(),
                started_at: Some(started_at),
                proc_start: process_start(pid),
                prior_mtime: prior_mtime.map_or(0, millis),
            };
            let body = format!("{pid}\n{}\n", serde_json::to_string(&info).expect("serialisable"));
            self.replace(root, body.as_bytes(), to_system_time(started_at))?;
            // Verify through the path: a process that bypassed the serialisation would win.
            if self.ours(pid) {
                Ok(Acquire::Acquired(LockToken { pid, prior_mtime, started_at }))
            } else {
                Ok(Acquire::LostRace)
            }
        })
    }

    /// Refreshes the mtime of a lock we hold, so a long dream is not taken for stale.
    /// Returns false (and changes nothing) when we no longer hold it.
    pub fn heartbeat(&self, token: &LockToken) -> Result<bool, LockError> {
        self.serialise(|root| {
            if !self.ours(token.pid) {
                return Ok(false);
            }
            let now = to_system_time(self.clock.now()).max(to_system_time(token.started_at));
            root.set_mtime(LOCK_FILE, now)?;
            Ok(true)
        })
    }

    /// The dream succeeded: empty body, mtime = the dream's start.
    pub fn release_success(&self, token: &LockToken) -> Result<bool, LockError> {
        self.serialise(|root| {
            if !self.ours(token.pid) {
                return Ok(false);
            }
            self.replace(root, b"", to_system_time(token.started_at))?;
            Ok(true)
        })
    }

    /// The dream failed or was killed: restore the prior mtime (no prior: delete the file)
    /// so the time gate opens again.
    pub fn rollback(&self, token: &LockToken) -> Result<bool, LockError> {
        self.rollback_to(token.pid, token.prior_mtime)
    }

    /// Rolls back an abandoned lock (a crashed holder) found by anyone: restores its prior
    /// mtime. Returns false when the lock is not abandoned.
    pub fn rollback_abandoned(&self) -> Result<bool, LockError> {
        let state = self.state();
        if !state.is_abandoned() {
            return Ok(false);
        }
        let pid = state.holder.as_ref().map_or(0, |h| h.pid);
        self.rollback_to(pid, state.last_consolidated())
    }

    /// Removes the temporary files of lock updates whose process died mid-way (a crash
    /// inside `Self::replace`). Returns how many were removed.
    pub fn remove_stale_temp_files(&self) -> Result<usize, LockError> {
        self.serialise(|root| {
            let mut removed = 0;
            let Ok(names) = root.list("") else { return Ok(0) };
            for name in names {
                let Some(pid) = name
                    .to_str()
                    .and_then(|n| n.strip_prefix(&format!("{LOCK_FILE}.")))
                    .and_then(|n| n.strip_suffix(".tmp"))
                    .and_then(|n| n.parse::<u32>().ok())
                else {
                    continue;
                };
                if !pid_alive(pid) && root.remove_file(&name).unwrap_or(false) {
                    removed += 1;
                }
            }
            Ok(removed)
        })
    }

    fn rollback_to(&self, pid: u32, prior: Option<SystemTime>) -> Result<bool, LockError> {
        self.serialise(|root| {
            if !self.ours(pid) {
                return Ok(false);
            }
            match prior {
                None => {
                    root.remove_file(LOCK_FILE)?;
                }
                Some(prior) => self.replace(root, b"", prior)?,
            }
            Ok(true)
        })
    }
}

fn millis(t: SystemTime) -> i64 {
    t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Parses `PID\n{json}`; an empty or unparseable body names no holder.
pub fn parse_body(body: &str) -> Option<Holder> {
    let mut lines = body.lines();
    let pid: u32 = lines.next()?.trim().parse().ok().filter(|p| *p > 0)?;
    let info = lines.next().and_then(|l| serde_json::from_str(l.trim()).ok()).unwrap_or_default();
    Some(Holder { pid, info })
}

/// Is the holder still running (and the same process that took the lock)?
fn is_alive(h: &Holder) -> bool {
    if !h.info.host.is_empty() && h.info.host != hostname() {
        // Another machine sharing this folder: we cannot see its processes; trust freshness.
        return true;
    }
    if !pid_alive(h.pid) {
        return false;
    }
    match (h.info.proc_start, process_start(h.pid)) {
        (Some(recorded), Some(actual)) => recorded == actual,
        _ => true,
    }
}

/// `kill(pid, 0)`: exists (even when it is not ours to signal) and is not a zombie.
pub fn pid_alive(pid: u32) -> bool {
    let Some(p) = rustix::process::Pid::from_raw(pid as i32) else { return false };
    match rustix::process::test_kill_process(p) {
        Ok(()) | Err(rustix::io::Errno::PERM) => !is_zombie(pid),
        Err(_) => false,
    }
}

fn proc_stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_string).collect())
}

fn is_zombie(pid: u32) -> bool {
    proc_stat_fields(pid).is_some_and(|f| f.first().is_some_and(|s| s == "Z" || s == "X"))
}

/// The process's start time in clock ticks since boot (Linux); `None` elsewhere.
pub fn process_start(pid: u32) -> Option<u64> {
    // Field 22 of /proc/PID/stat; after the ')' the fields start at 3, so index 19.
    proc_stat_fields(pid)?.get(19)?.parse().ok()
}

pub fn hostname() -> String {
    rustix::system::uname().nodename().to_string_lossy().into_owned()
}

/// The lock's mtime as an instant.
pub fn as_timestamp(t: SystemTime) -> Timestamp {
    from_system_time(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use filetime::FileTime;

    fn clock(s: &str) -> Clock {
        Clock::parse(s).unwrap()
    }

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn acquire_success_sets_mtime_to_start_and_empties_body() {
        let tmp = tempfile::tempdir().unwrap();
        let lock = ConsolidationLock::new(tmp.path(), clock("2026-05-08T12:00:00Z"), HOUR);
        let Acquire::Acquired(token) = lock.try_acquire(std::process::id()).unwrap() else { panic!() };
        assert_eq!(token.prior_mtime, None);
        assert!(lock.state().is_held());
        assert!(lock.release_success(&token).unwrap());
        let st = lock.state();
        assert_eq!(st.holder, None);
        assert_eq!(from_system_time(st.mtime.unwrap()).to_string(), "2026-05-08T12:00:00Z");
    }

    #[test]
    fn live_holder_refuses_and_rollback_restores_the_prior_mtime_to_the_second() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(LOCK_FILE);
        std::fs::write(&path, "").unwrap();
        let prior = FileTime::from_unix_time(1_700_000_000, 0);
        filetime::set_file_mtime(&path, prior).unwrap();
        let lock = ConsolidationLock::new(tmp.path(), clock("2026-05-08T12:00:00Z"), HOUR);
        let Acquire::Acquired(token) = lock.try_acquire(std::process::id()).unwrap() else { panic!() };
        assert!(matches!(lock.try_acquire(std::process::id()).unwrap(), Acquire::Held { .. }));
        assert!(lock.rollback(&token).unwrap());
        let mtime = FileTime::from_last_modification_time(&std::fs::metadata(&path).unwrap());
        assert_eq!(mtime.unix_seconds(), prior.unix_seconds());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }

    #[test]
    fn rollback_of_a_first_dream_deletes_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let lock = ConsolidationLock::new(tmp.path(), Clock::System, HOUR);
        let Acquire::Acquired(token) = lock.try_acquire(std::process::id()).unwrap() else { panic!() };
        assert!(lock.rollback(&token).unwrap());
        assert!(!lock.path().exists());
    }

    #[test]
    fn a_dead_holder_is_reclaimed_and_its_prior_mtime_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(LOCK_FILE);
        // A holder that cannot exist (PID beyond pid_max) left its body behind.
        let info = HolderInfo { host: hostname(), prior_mtime: 1_700_000_000_000, ..Default::default() };
        std::fs::write(&path, format!("99999999\n{}\n", serde_json::to_string(&info).unwrap())).unwrap();
        let lock = ConsolidationLock::new(tmp.path(), Clock::System, HOUR);
        let st = lock.state();
        assert!(st.is_abandoned());
        assert_eq!(st.last_consolidated(), Some(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)));
        let Acquire::Acquired(token) = lock.try_acquire(std::process::id()).unwrap() else { panic!() };
        assert_eq!(token.prior_mtime, Some(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)));
    }

    #[test]
    fn a_stale_lock_is_reclaimed_even_with_a_live_pid() {
        let tmp = tempfile::tempdir().unwrap();
        let lock = ConsolidationLock::new(tmp.path(), clock("2026-05-08T12:00:00Z"), HOUR);
        assert!(matches!(lock.try_acquire(std::process::id()).unwrap(), Acquire::Acquired(_)));
        let later = ConsolidationLock::new(tmp.path(), clock("2026-05-08T13:00:01Z"), HOUR);
        assert!(!later.state().is_held());
        assert!(matches!(later.try_acquire(std::process::id()).unwrap(), Acquire::Acquired(_)));
    }

    #[test]
    fn a_recycled_pid_is_not_the_holder() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(LOCK_FILE);
        let me = std::process::id();
        let Some(start) = process_start(me) else { return }; // not Linux
        let info = HolderInfo { host: hostname(), proc_start: Some(start + 1), ..Default::default() };
        std::fs::write(&path, format!("{me}\n{}\n", serde_json::to_string(&info).unwrap())).unwrap();
        let lock = ConsolidationLock::new(tmp.path(), Clock::System, HOUR);
        assert!(!lock.state().is_held());
    }

    #[test]
    fn heartbeat_only_touches_our_own_lock() {
        let tmp = tempfile::tempdir().unwrap();
        let lock = ConsolidationLock::new(tmp.path(), Clock::System, HOUR);
        let Acquire::Acquired(token) = lock.try_acquire(std::process::id()).unwrap() else { panic!() };
        assert!(lock.heartbeat(&token).unwrap());
        let other = LockToken { pid: token.pid + 1, ..token.clone() };
        assert!(!lock.heartbeat(&other).unwrap());
        assert!(!lock.rollback(&other).unwrap());
        assert!(lock.state().is_held());
    }

    #[test]
    fn the_lock_is_never_written_through_a_link() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("target"), "outside\n").unwrap();
        let snapshot = || {
            let mut v: Vec<(std::ffi::OsString, String)> = std::fs::read_dir(&outside)
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    (e.file_name(), std::fs::read_to_string(e.path()).unwrap_or_default())
                })
                .collect();
            v.sort();
            (v, std::fs::metadata(outside.join("target")).unwrap().modified().unwrap())
        };
        let before = snapshot();
        // The lock file is a link to a file, or to a folder: taking the lock is refused.
        for (i, target) in [outside.join("target"), outside.clone()].into_iter().enumerate() {
            let mem = tmp.path().join(format!("m{i}"));
            std::fs::create_dir_all(&mem).unwrap();
            symlink(&target, mem.join(LOCK_FILE)).unwrap();
            let lock = ConsolidationLock::new(&mem, Clock::System, HOUR);
            let err = lock.try_acquire(std::process::id()).unwrap_err();
            assert!(err.to_string().contains(".consolidate-lock is a symbolic link"), "{err}");
        }
        // A link named like the lock's temporary file is removed, never written through.
        let mem = tmp.path().join("m2");
        std::fs::create_dir_all(&mem).unwrap();
        symlink(outside.join("target"), mem.join(format!("{LOCK_FILE}.{}.tmp", std::process::id()))).unwrap();
        let lock = ConsolidationLock::new(&mem, Clock::System, HOUR);
        let Acquire::Acquired(token) = lock.try_acquire(std::process::id()).unwrap() else { panic!() };
        // Swapped for a link (to a copy of its own body) while held: heartbeat and rollback
        // are refused, the target untouched.
        let body = std::fs::read_to_string(lock.path()).unwrap();
        std::fs::write(outside.join("held"), &body).unwrap();
        std::fs::remove_file(lock.path()).unwrap();
        symlink(outside.join("held"), lock.path()).unwrap();
        let held_mtime = std::fs::metadata(outside.join("held")).unwrap().modified().unwrap();
        assert!(lock.heartbeat(&token).is_err());
        assert!(lock.rollback(&token).is_err());
        assert!(lock.release_success(&token).is_err());
        assert_eq!(std::fs::read_to_string(outside.join("held")).unwrap(), body);
        assert_eq!(std::fs::metadata(outside.join("held")).unwrap().modified().unwrap(), held_mtime);
        std::fs::remove_file(outside.join("held")).unwrap();
        assert_eq!(snapshot(), before);
    }

    #[test]
    fn garbage_bodies_name_no_holder() {
        assert_eq!(parse_body(""), None);
        assert_eq!(parse_body("abc\n"), None);
        assert_eq!(parse_body("0\n"), None);
        assert_eq!(parse_body("42\nnot json").unwrap().pid, 42);
    }
}
