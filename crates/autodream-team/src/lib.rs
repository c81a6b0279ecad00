//! Team memory: one project memory shared across machines and people, through the
//! project's own git remote.
//!
//! The memory lives on an orphan branch of the remote (`autodream/memory` by default). This
//! machine keeps a bare clone of it in its state folder and copies between it and the
//! memory folder the client loads; nothing is ever checked out inside the project. The
//! rooms:
//!
//! - `git`: running the `git` command line with a timeout and no prompts;
//! - `repo`: the bare clone — fetch, read a commit's files, write a commit, push without force;
//! - `layout`: which file of the memory folder is which file of the branch (logs per machine);
//! - `lease`: the one dreamer at a time across machines, with its fencing token;
//! - `merge`: three-way merging of the branch into the memory folder, conflict files;
//! - `secrets`: the redaction check every file passes before it is committed;
//! - `sync`: one round (fetch, merge, commit, push) and the dream under the lease;
//! - `state`: what is kept in `<state>/team/` (the choice, the last sync, the last error).

pub mod git;
pub mod layout;
pub mod lease;
pub mod merge;
pub mod repo;
pub mod secrets;
pub mod state;
pub mod sync;

use std::path::Path;

use autodream_core::clock::Clock;
use autodream_core::config::Config;
use autodream_core::paths::Locations;

pub use lease::{Busy, Lease};
pub use state::{Joined, SyncState, TeamFiles};
pub use sync::{DreamRound, RoundReport, Team, TeamStatus};

#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error("this memory folder does not share a team memory; run `autodream team init` first")]
    NotJoined,
    #[error("the remote did not answer ({0}); work goes on locally and syncs later")]
    Remote(#[source] git::GitError),
    #[error("{0}")]
    Git(#[source] git::GitError),
    #[error("{0}")]
    Busy(Busy),
    #[error(
        "the dream was fenced off: the team lease (token {token}) was taken over before its result was pushed; nothing of it landed"
    )]
    Fenced { token: u64 },
    #[error("push refused: {file}:{line} holds a secret ({kind}); remove it, then sync again")]
    Secret { file: String, line: usize, kind: String },
    #[error("another sync of this memory folder is running")]
    SyncBusy,
    #[error("the branch kept moving; gave up after {0} attempts")]
    Contended(usize),
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{0}")]
    Local(String),
}

impl TeamError {
    pub fn io(path: &Path, source: std::io::Error) -> TeamError {
        TeamError::Io { path: path.display().to_string(), source }
    }

    /// Errors that mean "the remote is away", not "something is wrong here".
    pub fn is_offline(&self) -> bool {
        matches!(self, TeamError::Remote(_))
    }
}

/// This machine's name on the branch: `team.machine`, else the host name.
pub fn machine_name(cfg: &Config) -> String {
    cfg.team
        .machine
        .clone()
        .unwrap_or_else(|| layout::machine_from_hostname(&autodream_core::lock::hostname()))
}

/// The team of this memory folder, when it joined one.
pub fn open(loc: &Locations, cfg: &Config, clock: Clock) -> Result<Option<Team>, TeamError> {
    let files = TeamFiles::of(loc);
    let Some(joined) = files.joined() else { return Ok(None) };
    Team::new(loc, cfg, clock, joined).map(Some)
}

/// `team init`: records the remote and branch for this memory folder and runs the first
/// round, which creates the branch on the remote or joins the one there, merging this
/// machine's memory into it (nothing lost: a file that differs on both sides stays here and
/// the branch's version is kept beside it). When that round fails nothing is recorded.
pub fn join(
    loc: &Locations,
    cfg: &Config,
    clock: Clock,
    remote: Option<&str>,
    branch: Option<&str>,
) -> Result<(Team, RoundReport), TeamError> {
    let remote = remote.unwrap_or(&cfg.team.remote).trim().to_string();
    let branch = branch.unwrap_or(&cfg.team.branch).trim().to_string();
    let refname = format!("refs/heads/{branch}");
    if branch.is_empty() || git::run_anywhere(&["check-ref-format", &refname], git::LOCAL_TIMEOUT).is_err() {
        return Err(TeamError::Invalid(format!("--branch {branch:?} is not a valid branch name")));
    }
    let url = resolve_remote(&remote, &loc.project_dir)?;
    let files = TeamFiles::of(loc);
    let previous = files.joined();
    let joined = Joined {
        remote: remote.clone(),
        url: url.clone(),
        branch,
        machine: machine_name(cfg),
        joined_at: previous.as_ref().map_or(clock.now(), |p| p.joined_at),
    };
    if previous.as_ref().is_some_and(|p| p.url != joined.url || p.branch != joined.branch) {
        // Another remote or branch: start from nothing, so no base of the old one is used.
        files.forget().map_err(|e| TeamError::io(&files.dir, e))?;
    }
    let team = Team::new(loc, cfg, clock, joined.clone())?;
    files.save_joined(&joined).map_err(|e| TeamError::io(&files.dir, e))?;
    match team.sync() {
        Ok(report) => Ok((team, report)),
        Err(e) => {
            if previous.is_none() {
                let _ = files.forget();
            }
            Err(e)
        }
    }
}

/// `team leave`: stop syncing; the memory folder stays as it is. Returns whether it had
/// joined.
pub fn leave(loc: &Locations) -> Result<bool, TeamError> {
    let files = TeamFiles::of(loc);
    let was = files.joined().is_some();
    files.forget().map_err(|e| TeamError::io(&files.dir, e))?;
    Ok(was)
}

/// A remote of the project by name (`git remote get-url`), or a URL or path as given (a
/// relative path is taken from the project folder).
fn resolve_remote(remote: &str, project_dir: &Path) -> Result<String, TeamError> {
    if remote.is_empty() {
        return Err(TeamError::Invalid("--remote is empty".into()));
    }
    let looks_like_url =
        remote.contains("://") || remote.contains(':') || remote.contains('/') || remote.starts_with('.');
    if looks_like_url {
        if !remote.contains(':') {
            let path = project_dir.join(remote);
            return Ok(path.canonicalize().unwrap_or(path).display().to_string());
        }
        return Ok(remote.to_string());
    }
    let dir = project_dir.display().to_string();
    match git::run_anywhere(&["-C", &dir, "remote", "get-url", remote], git::LOCAL_TIMEOUT) {
        Ok(out) if !out.stdout_text().is_empty() => {
            let url = out.stdout_text();
            // A remote that is a relative path is relative to the project, not to us.
            if !url.contains(':') && Path::new(&url).is_relative() {
                let path = project_dir.join(&url);
                return Ok(path.canonicalize().unwrap_or(path).display().to_string());
            }
            Ok(url)
        }
        _ => Err(TeamError::Invalid(format!(
            "the project ({dir}) has no git remote named {remote:?}; pass --remote with a remote's name or a URL"
        ))),
    }
}
