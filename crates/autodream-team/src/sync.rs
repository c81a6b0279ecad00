//! One sync round, and a dream under the team lease.
//!
//! A round fetches the branch, merges it into the memory folder three ways over the last
//! synced commit (`merge`), writes what came in (atomically, file by file), checks what goes
//! out for secrets, commits the merged tree on top of the branch and pushes it without
//! force. When another machine pushed first, git refuses the push and the round starts
//! over from a new fetch. A round may also change the lease in the same commit: take it
//! (before a dream), or land a dream's result and give the lease back.
//!
//! [`Team::dream`] is the whole dream: take the lease (one push: exactly one of several
//! racing machines wins), dream locally under the local lock, then push the result on top,
//! which lands only while the branch's lease still carries this dream's token. A dream that
//! was fenced off is undone locally, so that nothing of it remains anywhere. A dreamer
//! killed on the way leaves `pending` in `sync.json`; the next round lands its result when
//! the lease is still its own, or undoes it when another machine took over.

use std::fs::File;
use std::time::{Duration, Instant};

use autodream_core::clock::Clock;
use autodream_core::config::Config;
use autodream_core::dream::history;
use autodream_core::memdir::atomic_write::write_atomic;
use autodream_core::memdir::daily_log::LogCursor;
use autodream_core::memdir::safe_path::MemoryRoot;
use autodream_core::paths::Locations;
use jiff::Timestamp;
use serde::Serialize;

use crate::git::GitError;
use crate::layout::{LEASE_FILE, Layout, Local};
use crate::lease::{Busy, LastDream, Lease};
use crate::merge;
use crate::repo::{Files, Pushed, Repo};
use crate::state::{Joined, Pending, SyncState, TeamFiles};
use crate::{TeamError, secrets};

/// How many times a round starts over when the branch moved under it.
const MAX_ATTEMPTS: usize = 12;
/// How long a command waits for this machine's other sync to finish.
const LOCK_WAIT: Duration = Duration::from_secs(120);

/// A memory folder that joined a team.
pub struct Team {
    pub loc: Locations,
    pub joined: Joined,
    pub files: TeamFiles,
    pub repo: Repo,
    pub layout: Layout,
    pub clock: Clock,
    pub cfg: Config,
}

/// What a round did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoundReport {
    /// The branch's commit afterwards.
    pub commit: Option<String>,
    /// Whether this round pushed a commit.
    pub pushed: bool,
    /// Files of the memory folder written or removed from the branch's side.
    pub received: Vec<String>,
    /// Branch files this machine sent.
    pub sent: Vec<String>,
    /// Files merged from both sides' edits.
    pub merged: Vec<String>,
    /// Conflict files written.
    pub conflicts: Vec<String>,
    /// The lease as the branch holds it afterwards (`None` when nothing changed anywhere
    /// and the branch was not read).
    pub lease: Option<Lease>,
    /// How many rounds it took (the branch moved under the others).
    pub attempts: usize,
}

/// How a dream under the team went.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum DreamRound {
    /// The dream ran under the lease and its result is on the branch.
    Landed { token: u64, task: Option<String>, report: Box<RoundReport> },
    /// The remote did not answer: the dream ran locally and syncs later.
    Local { task: Option<String>, reason: String },
}

/// `team status`.
#[derive(Debug, Clone, Serialize)]
pub struct TeamStatus {
    pub remote: String,
    pub url: String,
    pub branch: String,
    pub machine: String,
    pub last_sync: Option<Timestamp>,
    pub last_attempt: Option<Timestamp>,
    pub last_error: Option<String>,
    pub last_error_at: Option<Timestamp>,
    /// Files here that differ from the last synced commit.
    pub ahead: Option<usize>,
    /// Commits the last fetch saw that are not merged here yet.
    pub behind: Option<u64>,
    /// The lease as of the last fetch.
    pub lease: Option<Lease>,
    pub pending: Option<Pending>,
}

/// What a round does to the lease.
enum LeaseEdit {
    Keep,
    Take {
        pid: u32,
        min_hours: Option<f64>,
    },
    /// Give it back under `token`, recording the dream that landed.
    Release {
        token: u64,
        landed: Option<LastDream>,
    },
}

/// The sync lock: one round at a time per memory folder on this machine.
pub struct SyncLock(#[allow(dead_code)] File);

impl Team {
    pub fn new(loc: &Locations, cfg: &Config, clock: Clock, joined: Joined) -> Result<Team, TeamError> {
        let files = TeamFiles::of(loc);
        let repo = Repo::open(&files.repo_dir(), &joined.url, &joined.branch).map_err(TeamError::Git)?;
        let layout = Layout::new(&joined.machine);
        Ok(Team { loc: loc.clone(), joined, files, repo, layout, clock, cfg: cfg.clone() })
    }

    /// Takes the sync lock, waiting up to two minutes (`wait` false: not at all).
    pub fn lock(&self, wait: bool) -> Result<SyncLock, TeamError> {
        let path = self.files.lock_path();
        std::fs::create_dir_all(&self.files.dir).map_err(|e| TeamError::io(&self.files.dir, e))?;
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| TeamError::io(&path, e))?;
        let deadline = Instant::now() + if wait { LOCK_WAIT } else { Duration::ZERO };
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(SyncLock(file)),
                Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                Err(std::fs::TryLockError::WouldBlock) => return Err(TeamError::SyncBusy),
                Err(std::fs::TryLockError::Error(e)) => return Err(TeamError::io(&path, e)),
            }
        }
    }

    /// One sync: fetch, merge into the memory folder, push what is new. The outcome (or
    /// the reason it failed) is recorded for `status`.
    pub fn sync(&self) -> Result<RoundReport, TeamError> {
        let _lock = self.lock(true)?;
        self.sync_locked()
    }

    /// [`Team::sync`] for a caller that holds the sync lock.
    pub fn sync_locked(&self) -> Result<RoundReport, TeamError> {
        let mut st = self.files.sync_state();
        // A local dream killed while applying is rolled forward first: never export a mix.
        autodream_core::dream::recover(&self.loc, self.clock, &self.cfg)
            .map_err(|e| TeamError::Local(e.to_string()))?;
        let result = self.resolve_pending(&mut st).and_then(|()| self.round(&mut st, &LeaseEdit::Keep, None));
        self.record(&mut st, &result);
        result
    }

    /// A dream under the team lease. `dream` runs the local dream and returns its task id
    /// (`None` when it changed nothing). `force` skips the team's time gate.
    pub fn dream<F>(&self, force: bool, dream: F) -> Result<DreamRound, TeamError>
    where
        F: FnOnce() -> Result<Option<String>, String>,
    {
        let _lock = self.lock(true)?;
        let mut st = self.files.sync_state();
        autodream_core::dream::recover(&self.loc, self.clock, &self.cfg)
            .map_err(|e| TeamError::Local(e.to_string()))?;
        if let Err(e) = self.resolve_pending(&mut st) {
            self.record(&mut st, &Err::<(), _>(e));
        }
        let min_hours = (!force).then_some(self.cfg.min_hours);
        let pid = std::process::id();
        let started = self.clock.now();
        let taken = self.round(&mut st, &LeaseEdit::Take { pid, min_hours }, None);
        let report = match taken {
            Err(e) if e.is_offline() => {
                self.record(&mut st, &Err::<(), _>(TeamError::Local(e.to_string())));
                let task = dream().map_err(TeamError::Local)?;
                return Ok(DreamRound::Local { task, reason: e.to_string() });
            }
            Err(TeamError::Busy(busy)) => {
                // Not our turn: still deliver what this machine has.
                let synced = self.round(&mut st, &LeaseEdit::Keep, None);
                self.record(&mut st, &synced);
                return Err(TeamError::Busy(busy));
            }
            Err(e) => {
                self.record(&mut st, &Err::<(), _>(TeamError::Local(e.to_string())));
                return Err(e);
            }
            Ok(r) => r,
        };
        let token = report.lease.as_ref().map_or(0, |l| l.token);
        let lease_commit = report.commit.clone().unwrap_or_default();
        st.pending = Some(Pending { token, lease_commit: lease_commit.clone(), task: None, started });
        self.save(&st)?;
        fault_delay();
        let task = match dream() {
            Ok(task) => task,
            Err(message) => {
                let back =
                    self.round(&mut st, &LeaseEdit::Release { token, landed: None }, Some(&lease_commit));
                st.pending = None;
                self.record(&mut st, &back);
                return Err(TeamError::Local(message));
            }
        };
        if let Some(p) = st.pending.as_mut() {
            p.task = task.clone();
        }
        self.save(&st)?;
        fault_delay();
        let result = self.land(&mut st, token, &lease_commit, task.clone());
        self.record(&mut st, &result);
        result.map(|report| DreamRound::Landed { token, task, report: Box::new(report) })
    }

    /// Pushes a finished dream's result under its lease, or undoes it when it was fenced.
    fn land(
        &self,
        st: &mut SyncState,
        token: u64,
        lease_commit: &str,
        task: Option<String>,
    ) -> Result<RoundReport, TeamError> {
        let landed = LastDream {
            machine: self.joined.machine.clone(),
            task: task.clone().unwrap_or_default(),
            at: self.clock.now(),
            token,
        };
        match self.round(st, &LeaseEdit::Release { token, landed: Some(landed) }, Some(lease_commit)) {
            Err(TeamError::Fenced { token }) => {
                self.undo_local(task.as_deref())?;
                st.pending = None;
                st.base = Some(lease_commit.to_string());
                Err(TeamError::Fenced { token })
            }
            Err(e) => Err(e),
            Ok(r) => {
                st.pending = None;
                Ok(r)
            }
        }
    }

    /// A dream left half-way by a killed process: land it while the lease is still its
    /// own, else undo it here.
    fn resolve_pending(&self, st: &mut SyncState) -> Result<(), TeamError> {
        let Some(p) = st.pending.clone() else { return Ok(()) };
        let remote = self.repo.fetch().map_err(remote_error)?;
        let theirs = match &remote {
            Some(c) => self.repo.files(c).map_err(TeamError::Git)?,
            None => Files::new(),
        };
        let lease = Lease::parse(theirs.get(LEASE_FILE).map(Vec::as_slice));
        if lease.last_dream.as_ref().is_some_and(|d| d.token == p.token && d.machine == self.joined.machine) {
            st.pending = None; // it landed before the process went away
            return self.save(st);
        }
        let task = p.task.clone().or_else(|| self.dream_since(p.started));
        if lease.is_ours(&self.joined.machine, p.token) {
            let edit = LeaseEdit::Release {
                token: p.token,
                landed: task.clone().map(|task| LastDream {
                    machine: self.joined.machine.clone(),
                    task,
                    at: self.clock.now(),
                    token: p.token,
                }),
            };
            self.round(st, &edit, Some(&p.lease_commit))?;
        } else {
            self.undo_local(task.as_deref())?;
            st.base = Some(p.lease_commit.clone());
        }
        st.pending = None;
        self.save(st)
    }

    /// The dream recorded in history since `started`, not undone.
    fn dream_since(&self, started: Timestamp) -> Option<String> {
        let all = history::list(&self.loc);
        let undone: Vec<&str> = all.iter().filter_map(|m| m.undo_of.as_deref()).collect();
        all.iter()
            .rev()
            .find(|m| m.started_at >= started && m.undo_of.is_none() && !undone.contains(&m.task.as_str()))
            .map(|m| m.task.clone())
    }

    fn undo_local(&self, task: Option<&str>) -> Result<(), TeamError> {
        let Some(task) = task.filter(|t| !t.is_empty()) else { return Ok(()) };
        if history::find(&self.loc, Some(task)).is_err() {
            return Ok(());
        }
        match autodream_core::dream::undo::undo(&self.loc, self.clock, &self.cfg, Some(task), false) {
            Ok(Ok(_)) => Ok(()),
            // Edited since: the next merge keeps both versions instead.
            Ok(Err(_)) => Ok(()),
            Err(e) => Err(TeamError::Local(format!("undoing the fenced dream {task}: {e}"))),
        }
    }

    /// One round; see the module docs. `base` overrides the recorded base commit.
    fn round(
        &self,
        st: &mut SyncState,
        edit: &LeaseEdit,
        base: Option<&str>,
    ) -> Result<RoundReport, TeamError> {
        let mut base: Option<String> = base.map(str::to_string).or_else(|| st.base.clone());
        let mut report = RoundReport::default();
        for attempt in 1..=MAX_ATTEMPTS {
            report.attempts = attempt;
            let remote = self.repo.fetch().map_err(remote_error)?;
            let exported =
                self.layout.export(&self.loc).map_err(|e| TeamError::io(&self.loc.memory_dir, e))?;
            let digest = digest_of(&exported);
            if matches!(edit, LeaseEdit::Keep)
                && remote.is_some()
                && remote == base
                && st.base == base
                && st.digest.as_deref() == Some(digest.as_str())
            {
                report.commit = remote;
                return Ok(report);
            }
            let theirs = match &remote {
                Some(c) => self.repo.files(c).map_err(TeamError::Git)?,
                None => Files::new(),
            };
            let lease_now = Lease::parse(theirs.get(LEASE_FILE).map(Vec::as_slice));
            let now = self.clock.now();
            let new_lease = match edit {
                LeaseEdit::Keep => None,
                LeaseEdit::Take { pid, min_hours } => {
                    lease_now
                        .check(&self.joined.machine, now, *min_hours, autodream_core::lock::pid_alive)
                        .map_err(TeamError::Busy)?;
                    Some(lease_now.taken(&self.joined.machine, *pid, now, self.cfg.team.lease_minutes))
                }
                LeaseEdit::Release { token, landed } => {
                    if !lease_now.is_ours(&self.joined.machine, *token) {
                        return Err(TeamError::Fenced { token: *token });
                    }
                    Some(lease_now.released(landed.clone()))
                }
            };
            let base_files = match base.as_deref() {
                Some(b) if Some(b) == remote.as_deref() => theirs.clone(),
                Some(b) => self.repo.files(b).unwrap_or_default(),
                None => Files::new(),
            };
            let mut ours = exported;
            // What does not map here (a name this version does not know) is left as it is.
            for (path, bytes) in base_files.iter().chain(theirs.iter()) {
                if path != LEASE_FILE && self.layout.local_of(path).is_none() && !ours.contains_key(path) {
                    ours.insert(path.clone(), base_files.get(path).unwrap_or(bytes).clone());
                }
            }
            let who = remote.as_deref().map_or("remote".to_string(), |c| c.chars().take(8).collect());
            let merged = merge::three_way(&base_files, &ours, &theirs, &who).map_err(TeamError::Git)?;
            report.received.extend(self.apply_locally(&ours, &merged.files)?);
            report.merged = merged.merged.clone();
            report.conflicts.extend(merged.conflicts.iter().cloned());
            // The memory folder now holds what the branch holds: that is the next base.
            base = remote.clone();
            st.base = remote.clone();
            st.digest = None;
            let local: Files = merged
                .files
                .iter()
                .filter(|(p, _)| self.layout.local_of(p).is_some())
                .map(|(p, b)| (p.clone(), b.clone()))
                .collect();
            let local_digest = digest_of(&local);

            let mut tree = merged.files;
            let lease = new_lease.unwrap_or(lease_now);
            tree.insert(LEASE_FILE.to_string(), lease.to_bytes());
            if remote.is_some() && tree == theirs {
                report.commit = remote;
                report.lease = Some(lease);
                st.digest = Some(local_digest);
                return Ok(report);
            }
            let sent: Vec<String> =
                tree.iter().filter(|(p, b)| theirs.get(*p) != Some(*b)).map(|(p, _)| p.clone()).collect();
            for path in &sent {
                if path == LEASE_FILE {
                    continue;
                }
                if let Some(found) = secrets::find(&tree[path]) {
                    let file = match self.layout.local_of(path) {
                        Some(local) => local.path(&self.loc).display().to_string(),
                        None => path.clone(),
                    };
                    return Err(TeamError::Secret { file, line: found.line, kind: found.kind });
                }
            }
            let message = match edit {
                LeaseEdit::Keep => format!("sync from {}", self.joined.machine),
                LeaseEdit::Take { .. } => {
                    format!("lease taken by {} (token {})", self.joined.machine, lease.token)
                }
                LeaseEdit::Release { landed: Some(d), token } => {
                    format!("dream {} by {} (token {token})", d.task, self.joined.machine)
                }
                LeaseEdit::Release { landed: None, token } => {
                    format!("lease given back by {} (token {token})", self.joined.machine)
                }
            };
            let commit = self
                .repo
                .commit(remote.as_deref(), &tree, &message, &self.joined.machine, now.as_second())
                .map_err(TeamError::Git)?;
            match self.repo.push(&commit).map_err(remote_error)? {
                Pushed::Accepted => {
                    st.base = Some(commit.clone());
                    st.pushed += 1;
                    report.commit = Some(commit);
                    report.pushed = true;
                    report.sent = sent;
                    report.lease = Some(lease);
                    st.digest = Some(local_digest);
                    return Ok(report);
                }
                Pushed::Rejected(_) => continue,
            }
        }
        Err(TeamError::Contended(MAX_ATTEMPTS))
    }

    /// Writes into the memory folder (and engine data) every file the merge changed there,
    /// atomically; returns the memory-folder paths written or removed.
    fn apply_locally(&self, ours: &Files, merged: &Files) -> Result<Vec<String>, TeamError> {
        let mut changed = Vec::new();
        let mut earliest_log: Option<String> = None;
        let paths: std::collections::BTreeSet<&String> = ours.keys().chain(merged.keys()).collect();
        for path in paths {
            if ours.get(path) == merged.get(path) {
                continue;
            }
            let Some(local) = self.layout.local_of(path) else { continue };
            let abs = local.path(&self.loc);
            match merged.get(path) {
                Some(bytes) => write_atomic(&abs, bytes).map_err(|e| TeamError::io(&abs, e))?,
                None => {
                    let (root, rel) = match &local {
                        Local::Memory(rel) => (self.loc.memory_dir.clone(), rel),
                        Local::Engine(rel) => (self.loc.engine_data_dir(), rel),
                    };
                    if let Ok(r) = MemoryRoot::open(&root) {
                        r.remove_file(rel).map_err(|e| TeamError::io(&abs, std::io::Error::other(e)))?;
                        r.remove_empty_parents(rel);
                    }
                }
            }
            if let Local::Memory(rel) = &local {
                if rel.starts_with("logs/") && earliest_log.as_deref().is_none_or(|e| rel.as_str() < e) {
                    earliest_log = Some(rel.clone());
                }
                changed.push(rel.clone());
            }
        }
        // Another machine's log may sort before where the last dream stopped reading: read
        // again from there, so that the next dream here sees its entries.
        if let (Some(first), Some(cursor)) = (earliest_log, LogCursor::of_last_dream(&self.loc))
            && first < cursor.file
        {
            let _ = LogCursor { file: first, offset: 0 }.save(&self.loc);
        }
        Ok(changed)
    }

    fn save(&self, st: &SyncState) -> Result<(), TeamError> {
        self.files.save_sync_state(st).map_err(|e| TeamError::io(&self.files.dir, e))
    }

    /// Records a round's outcome for `status`; a failure to record is not the round's.
    fn record<T>(&self, st: &mut SyncState, result: &Result<T, TeamError>) {
        let now = self.clock.now();
        st.last_attempt = Some(now);
        match result {
            Ok(_) => {
                st.last_sync = Some(now);
                st.last_error = None;
                st.last_error_at = None;
            }
            Err(TeamError::Busy(_)) => {}
            Err(e) => {
                st.last_error = Some(e.to_string());
                st.last_error_at = Some(now);
            }
        }
        let _ = self.save(st);
    }

    /// `team status`, from the last fetch: no network.
    pub fn status(&self) -> TeamStatus {
        let st = self.files.sync_state();
        let tracking = self.repo.tracking().ok().flatten();
        let lease = tracking
            .as_deref()
            .and_then(|c| self.repo.files(c).ok())
            .map(|f| Lease::parse(f.get(LEASE_FILE).map(Vec::as_slice)));
        let behind = tracking.as_deref().and_then(|t| self.repo.count_between(st.base.as_deref(), t).ok());
        let ahead = self.layout.export(&self.loc).ok().map(|ours| {
            let base = st.base.as_deref().and_then(|b| self.repo.files(b).ok()).unwrap_or_default();
            ours.iter().filter(|(p, b)| base.get(*p) != Some(*b)).count()
                + base
                    .keys()
                    .filter(|p| {
                        *p != LEASE_FILE && self.layout.local_of(p).is_some() && !ours.contains_key(*p)
                    })
                    .count()
        });
        TeamStatus {
            remote: self.joined.remote.clone(),
            url: self.joined.url.clone(),
            branch: self.joined.branch.clone(),
            machine: self.joined.machine.clone(),
            last_sync: st.last_sync,
            last_attempt: st.last_attempt,
            last_error: st.last_error,
            last_error_at: st.last_error_at,
            ahead,
            behind,
            lease,
            pending: st.pending,
        }
    }
}

/// A digest of a set of files: paths, lengths and bytes, in order.
fn digest_of(files: &Files) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for (path, bytes) in files {
        h.update(path.as_bytes());
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn remote_error(e: GitError) -> TeamError {
    match e {
        GitError::Missing(_) | GitError::Io(_) => TeamError::Git(e),
        _ => TeamError::Remote(e),
    }
}

/// `AUTODREAM_TEAM_FAULT_DELAY_MS`: a pause after the lease is taken and after the local
/// dream, so that the fault-injection tests can kill a dreamer at those moments.
fn fault_delay() {
    if let Some(ms) = std::env::var("AUTODREAM_TEAM_FAULT_DELAY_MS").ok().and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(Duration::from_millis(ms));
    }
}

impl Busy {
    pub fn holder(&self) -> Option<&crate::lease::Holder> {
        match self {
            Busy::Held(h) => Some(h),
            Busy::Recent(_) => None,
        }
    }
}
