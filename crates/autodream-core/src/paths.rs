//! Where memory, sessions and autodream's own state live.
//!
//! autodream drops into the coding agent's own layout: transcripts under
//! `<base>/projects/<sanitised cwd>/` and memory where the client itself looks for it (see
//! [`client_memory_dir`]: its two environment overrides, its `autoMemoryDirectory` setting,
//! else `<base>/projects/<sanitised git root>/memory/`), where `<base>` is `$CLAUDE_CONFIG_DIR`
//! or `~/.claude`. The two keys differ on purpose: every worktree of a repository shares one
//! memory, while transcripts are filed by the directory the agent was started in.
//! Flags and `AUTODREAM_*` variables override both.
//!
//! The engine's own state (task, scan stamp, journal, history, staging, the offline engine's
//! records and archive) lives outside the memory folder, because the client reads every
//! `*.md` below it as a memory: `$AUTODREAM_STATE_DIR`, else `$XDG_STATE_HOME/autodream`, else
//! `~/.local/state/autodream`, then one folder per memory folder (its sanitised path).

use std::path::{Path, PathBuf};

/// Every name inside a memory folder's state folder (`$AUTODREAM_STATE_DIR`, else
/// `$XDG_STATE_HOME/autodream`, else `~/.local/state/autodream`, then one folder per memory
/// folder): what autodream keeps for itself, where the client does not look for memories.
/// The one table of them; the rooms that own each file re-export its name.
pub mod state {
    /// The running or last dream: progress, phase, turns (`dream::task`).
    pub const TASK_FILE: &str = "task.json";
    /// Present only while a change set is being applied (`dream::journal`).
    pub const JOURNAL_FILE: &str = "journal.json";
    /// What every dream and undo changed, byte for byte (`dream::history`).
    pub const HISTORY_DIR: &str = "history";
    /// The copies engines dream on (`dream::transaction`).
    pub const STAGING_DIR: &str = "staging";
    /// Where the last dream stopped reading the daily logs (`memdir::daily_log::LogCursor`).
    pub const LOG_CURSOR_FILE: &str = "log-cursor.json";
    /// The detached worker's and the hook's log lines.
    pub const WORKER_LOG: &str = "worker.log";
    /// Gate 3's throttle: when the sessions were last scanned (`gates`).
    pub const SCAN_STAMP: &str = "scan-stamp";
    /// What LLM dreams cost, per day (`dream::cost`).
    pub const COST_FILE: &str = "cost.json";
    /// A finished dream's message, waiting for a Stop hook (`dream::announce`).
    pub const ANNOUNCE_FILE: &str = "announce";
    /// The daemon's schedule and last outcome (`daemon::state`).
    pub const DAEMON_STATE_FILE: &str = "daemon.json";
    /// The running daemon's PID (`daemon::pidfile`).
    pub const DAEMON_PID_FILE: &str = "daemon.pid";
    /// One record and one lock per transcript for per-turn extraction (`extraction`).
    pub const CAPTURE_DIR: &str = "extract";
    /// What `install` added, so `uninstall` removes exactly that (the setup crate).
    pub const INSTALL_MANIFEST_FILE: &str = "installed.json";
    /// Engine data that dreams change with the memory (the offline engine's record and
    /// archive), applied, recorded and undone like memory files.
    pub const ENGINE_DATA_DIR: &str = "data";
    /// What the agent read from memory, per session and per file (`usage`).
    pub const USAGE_FILE: &str = "usage.json";
    /// The MCP server's reads and searches of memory, one JSON line each (`usage`).
    pub const USAGE_LOG_FILE: &str = "usage-mcp.jsonl";
    /// A dream stopped for review: its staging copy and its record (`dream::review`).
    pub const PENDING_DIR: &str = "pending";
    /// Team memory: the joined remote and branch, the last sync, the bare clone
    /// (`autodream-team`).
    pub const TEAM_DIR: &str = "team";

    /// Every name above, for listings and tests.
    pub const ALL: &[&str] = &[
        TASK_FILE,
        JOURNAL_FILE,
        HISTORY_DIR,
        STAGING_DIR,
        LOG_CURSOR_FILE,
        WORKER_LOG,
        SCAN_STAMP,
        COST_FILE,
        ANNOUNCE_FILE,
        DAEMON_STATE_FILE,
        DAEMON_PID_FILE,
        CAPTURE_DIR,
        INSTALL_MANIFEST_FILE,
        ENGINE_DATA_DIR,
        USAGE_FILE,
        USAGE_LOG_FILE,
        PENDING_DIR,
        TEAM_DIR,
    ];
}

/// Sanitised names longer than this are cut and given a hash suffix, like the agent does.
pub const MAX_SANITISED_LEN: usize = 200;

/// Explicit choices from flags; `None` falls through to the environment, then the layout.
#[derive(Debug, Clone, Default)]
pub struct PathOverrides {
    pub memory_dir: Option<PathBuf>,
    pub sessions_dir: Option<PathBuf>,
    pub project_dir: Option<PathBuf>,
}

/// The resolved locations autodream works with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// The memory directory: MEMORY.md, topic files, `logs/` and the lock, nothing else.
    pub memory_dir: PathBuf,
    /// autodream's own state for this memory directory (task, history, staging, …), kept
    /// where the client does not read memories.
    pub state_dir: PathBuf,
    /// The folder holding this project's session transcripts.
    pub sessions_dir: PathBuf,
    /// The project the agent works in (`--project`, else the working directory).
    pub project_dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("cannot determine the working directory: {0}")]
    Cwd(#[source] std::io::Error),
    #[error("no home directory: set HOME, or pass --memory-dir and --sessions-dir")]
    NoHome,
    #[error("project directory {0} does not exist")]
    MissingProject(PathBuf),
    #[error("no place for autodream's state: set HOME, XDG_STATE_HOME or AUTODREAM_STATE_DIR")]
    NoStateHome,
}

/// Where the memory folder came from, for `status` and `doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemorySource {
    /// `--memory-dir`.
    Flag,
    /// `AUTODREAM_MEMORY_DIR`.
    AutodreamEnv,
    /// The client's `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`.
    CoworkOverride,
    /// `autoMemoryDirectory` in the named settings file.
    Setting(PathBuf),
    /// `<base>/projects/<key>/memory/`, with the base from `CLAUDE_CODE_REMOTE_MEMORY_DIR`
    /// (`remote`) or the config home.
    Layout { remote: bool },
}

impl std::fmt::Display for MemorySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemorySource::Flag => write!(f, "--memory-dir"),
            MemorySource::AutodreamEnv => write!(f, "AUTODREAM_MEMORY_DIR"),
            MemorySource::CoworkOverride => write!(f, "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"),
            MemorySource::Setting(p) => write!(f, "autoMemoryDirectory in {}", p.display()),
            MemorySource::Layout { remote: true } => {
                write!(f, "the client's layout under CLAUDE_CODE_REMOTE_MEMORY_DIR")
            }
            MemorySource::Layout { remote: false } => write!(f, "the client's layout under its config home"),
        }
    }
}

/// The memory folder the client loads for a project, by the client's own rules, first that
/// applies: `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` (taken as given); `autoMemoryDirectory` from
/// the managed policy, local, project, then user settings (`~` expanded; a relative path, a
/// bare `~` or a path with NUL is ignored, as the client ignores it); else
/// `<CLAUDE_CODE_REMOTE_MEMORY_DIR or the config home>/projects/<key>/memory`, the key being
/// the sanitised canonical git root (else the project folder), or the name the host pins with
/// `CLAUDE_CODE_PROJECT_DIR_NAME` (see [`pinned_project_dir_name`]). NFC-normalised, like the
/// client.
pub fn client_memory_dir(project_dir: &Path) -> Result<(PathBuf, MemorySource), PathError> {
    if let Some(p) = non_empty_env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE") {
        return Ok((nfc_path(&p), MemorySource::CoworkOverride));
    }
    for settings in client_settings_files(project_dir) {
        let Ok(text) = std::fs::read_to_string(&settings) else { continue };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        let Some(dir) = value.get("autoMemoryDirectory").and_then(|v| v.as_str()) else { continue };
        if let Some(dir) = valid_memory_setting(dir) {
            return Ok((dir, MemorySource::Setting(settings)));
        }
    }
    let (base, remote) = match non_empty_env("CLAUDE_CODE_REMOTE_MEMORY_DIR") {
        Some(dir) => (PathBuf::from(dir), true),
        None => (agent_base_dir()?, false),
    };
    let key = match pinned_project_dir_name() {
        Some(name) => name,
        None => {
            let key_dir = canonical_git_root(project_dir).unwrap_or_else(|| project_dir.to_path_buf());
            sanitise(&key_dir.to_string_lossy())
        }
    };
    let dir = base.join("projects").join(key).join("memory");
    Ok((nfc_path(&dir.to_string_lossy()), MemorySource::Layout { remote }))
}

/// The project folder name the host pins (client 2.1.234+): `CLAUDE_CODE_PROJECT_DIR_NAME`,
/// honoured only when `CLAUDE_CONFIG_DIR` is set too and the name is 1–64 characters of
/// `[A-Za-z0-9_-]`. It names both the transcripts' folder and the memory's
/// (`<base>/projects/<name>/memory`), whichever repository the client runs in.
pub fn pinned_project_dir_name() -> Option<String> {
    pinned_name(
        non_empty_env("CLAUDE_CONFIG_DIR").as_deref(),
        std::env::var("CLAUDE_CODE_PROJECT_DIR_NAME").ok().as_deref(),
    )
}

/// [`pinned_project_dir_name`] without the environment.
fn pinned_name(config_dir: Option<&str>, name: Option<&str>) -> Option<String> {
    config_dir?;
    let name = name?;
    let valid = (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    valid.then(|| name.to_string())
}

/// The client's settings files that may set `autoMemoryDirectory`, highest precedence first:
/// the managed policy file, then the project's local and shared settings, then the user's.
pub fn client_settings_files(project_dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(policy) = managed_settings_file() {
        out.push(policy);
    }
    out.push(project_dir.join(".claude").join("settings.local.json"));
    out.push(project_dir.join(".claude").join("settings.json"));
    if let Ok(base) = agent_base_dir() {
        out.push(base.join("settings.json"));
    }
    out
}

/// The managed (policy) settings file of the platform.
fn managed_settings_file() -> Option<PathBuf> {
    if cfg!(target_os = "macos") {
        Some(PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json"))
    } else if cfg!(unix) {
        Some(PathBuf::from("/etc/claude-code/managed-settings.json"))
    } else {
        None
    }
}

/// An `autoMemoryDirectory` value as the client accepts it: absolute or `~/…`, at least three
/// characters without trailing separators, no NUL, never the home folder itself or above it.
fn valid_memory_setting(raw: &str) -> Option<PathBuf> {
    let trimmed = raw.trim_end_matches(['/', '\\']);
    if raw.contains('\0') || trimmed.len() < 3 && !trimmed.starts_with("~/") {
        return None;
    }
    let expanded = if let Some(rest) = raw.strip_prefix("~/") {
        let rest = rest.trim_end_matches(['/', '\\']);
        // `~/`, `~/.` and `~/..` would be the home folder or above it.
        if rest.is_empty() || rest == "." || rest == ".." || rest.starts_with("../") {
            return None;
        }
        home_dir()?.join(rest)
    } else if raw == "~" || raw.starts_with('~') {
        return None;
    } else {
        PathBuf::from(trimmed)
    };
    if !expanded.is_absolute() || trimmed.starts_with("//") {
        return None;
    }
    Some(nfc_path(&expanded.to_string_lossy()))
}

fn nfc_path(p: &str) -> PathBuf {
    use unicode_normalization::UnicodeNormalization;
    let s: String = p.nfc().collect();
    // The client's path ends with a separator; ours is a folder path without one.
    let s = s.trim_end_matches('/');
    PathBuf::from(if s.is_empty() { "/" } else { s })
}

/// The base folder of autodream's state: `$AUTODREAM_STATE_DIR`, else
/// `$XDG_STATE_HOME/autodream`, else `~/.local/state/autodream`.
pub fn state_base_dir() -> Result<PathBuf, PathError> {
    if let Some(dir) = non_empty_env("AUTODREAM_STATE_DIR") {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = non_empty_env("XDG_STATE_HOME").filter(|d| Path::new(d).is_absolute()) {
        return Ok(PathBuf::from(dir).join("autodream"));
    }
    home_dir().map(|h| h.join(".local").join("state").join("autodream")).ok_or(PathError::NoStateHome)
}

/// autodream's state folder for one memory folder: the base, then the memory folder's path
/// sanitised as the client names its project folders.
pub fn state_dir_for(memory_dir: &Path) -> Result<PathBuf, PathError> {
    Ok(state_base_dir()?.join(sanitise(&memory_dir.to_string_lossy())))
}

/// Replaces every character outside `[A-Za-z0-9]` with `-`, as the agent names its project
/// folders; over-long names are cut at 200 characters and given a hash suffix.
pub fn sanitise(path: &str) -> String {
    let s: String = path.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    if s.chars().count() <= MAX_SANITISED_LEN {
        return s;
    }
    let head: String = s.chars().take(MAX_SANITISED_LEN).collect();
    format!("{head}-{}", to_base36(djb2(path).unsigned_abs() as u64))
}

/// The 32-bit djb2 string hash over UTF-16 units, as JavaScript computes it.
fn djb2(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, u| h.wrapping_shl(5).wrapping_sub(h).wrapping_add(u as i32))
}

fn to_base36(mut n: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).expect("ascii digits")
}

/// The agent's configuration home: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn agent_base_dir() -> Result<PathBuf, PathError> {
    if let Some(dir) = non_empty_env("CLAUDE_CONFIG_DIR") {
        return Ok(PathBuf::from(dir));
    }
    home_dir().map(|h| h.join(".claude")).ok_or(PathError::NoHome)
}

pub fn home_dir() -> Option<PathBuf> {
    non_empty_env("HOME").map(PathBuf::from)
}

fn non_empty_env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

/// The canonical root of the git repository holding `dir`: for a linked worktree, the main
/// repository's root, so every worktree shares one memory. `None` outside git.
pub fn canonical_git_root(dir: &Path) -> Option<PathBuf> {
    let mut cur = Some(dir);
    while let Some(d) = cur {
        let dot_git = d.join(".git");
        if let Ok(meta) = std::fs::metadata(&dot_git) {
            if meta.is_dir() {
                return Some(d.to_path_buf());
            }
            if meta.is_file() {
                return Some(worktree_main_root(&dot_git).unwrap_or_else(|| d.to_path_buf()));
            }
        }
        cur = d.parent();
    }
    None
}

/// `.git` as a file (`gitdir: …`): follow `commondir` back to the main repository.
fn worktree_main_root(dot_git_file: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git_file).ok()?;
    let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let base = dot_git_file.parent()?;
    let gitdir = base.join(gitdir);
    let common = std::fs::read_to_string(gitdir.join("commondir")).ok()?;
    let common_dir = gitdir.join(common.trim());
    let common_dir = common_dir.canonicalize().unwrap_or(common_dir);
    common_dir.parent().map(Path::to_path_buf)
}

impl Locations {
    /// Resolves the locations: flags, then `AUTODREAM_MEMORY_DIR` / `AUTODREAM_SESSIONS_DIR`,
    /// then the agent's layout keyed on the project directory.
    pub fn resolve(overrides: &PathOverrides) -> Result<Locations, PathError> {
        let project_dir = match &overrides.project_dir {
            Some(p) => {
                let p = absolute(p)?;
                if !p.is_dir() {
                    return Err(PathError::MissingProject(p));
                }
                p
            }
            None => std::env::current_dir().map_err(PathError::Cwd)?,
        };
        let (memory_dir, _) = memory_dir_of(overrides, &project_dir)?;
        let sessions_dir = match overrides
            .sessions_dir
            .clone()
            .or_else(|| non_empty_env("AUTODREAM_SESSIONS_DIR").map(PathBuf::from))
        {
            Some(p) => absolute(&p)?,
            None => agent_base_dir()?
                .join("projects")
                .join(pinned_project_dir_name().unwrap_or_else(|| sanitise(&project_dir.to_string_lossy()))),
        };
        let state_dir = state_dir_for(&memory_dir)?;
        Ok(Locations { memory_dir, state_dir, sessions_dir, project_dir })
    }

    /// Where the memory folder comes from with these overrides (for `status` and `doctor`).
    pub fn memory_source(overrides: &PathOverrides, project_dir: &Path) -> Result<MemorySource, PathError> {
        Ok(memory_dir_of(overrides, project_dir)?.1)
    }

    /// The sessions folder of another working directory (the hook's `cwd`).
    pub fn with_cwd(mut self, cwd: &Path, overrides: &PathOverrides) -> Result<Locations, PathError> {
        let o = PathOverrides { project_dir: Some(cwd.to_path_buf()), ..overrides.clone() };
        if cwd.is_dir() {
            self = Locations::resolve(&o)?;
        }
        Ok(self)
    }

    pub fn index_path(&self) -> PathBuf {
        self.memory_dir.join(crate::memdir::INDEX_FILE)
    }

    pub fn lock_path(&self) -> PathBuf {
        self.memory_dir.join(crate::lock::LOCK_FILE)
    }

    /// The engine's own state (task, scan stamp, journal, history, staging, worker log).
    pub fn state_dir(&self) -> PathBuf {
        self.state_dir.clone()
    }

    /// Engine data that dreams change with the memory (the offline engine's records and
    /// archive): inside a dream it appears in the staging copy at the same relative paths.
    pub fn engine_data_dir(&self) -> PathBuf {
        self.state_dir.join(state::ENGINE_DATA_DIR)
    }
}

#[cfg(test)]
impl Locations {
    /// A test's folders under `dir`: `memory/`, `state/`, sessions in `s/`, the project `dir`.
    pub(crate) fn under(dir: &Path) -> Locations {
        Locations {
            memory_dir: dir.join("memory"),
            state_dir: dir.join("state"),
            sessions_dir: dir.join("s"),
            project_dir: dir.to_path_buf(),
        }
    }
}

/// The memory folder: `--memory-dir`, `AUTODREAM_MEMORY_DIR`, else the client's own.
fn memory_dir_of(
    overrides: &PathOverrides,
    project_dir: &Path,
) -> Result<(PathBuf, MemorySource), PathError> {
    if let Some(p) = &overrides.memory_dir {
        return Ok((absolute(p)?, MemorySource::Flag));
    }
    if let Some(p) = non_empty_env("AUTODREAM_MEMORY_DIR") {
        return Ok((absolute(Path::new(&p))?, MemorySource::AutodreamEnv));
    }
    client_memory_dir(project_dir)
}

fn absolute(p: &Path) -> Result<PathBuf, PathError> {
    if p.is_absolute() {
        Ok(p.to_path_buf())
    } else {
        Ok(std::env::current_dir().map_err(PathError::Cwd)?.join(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitise_matches_the_agent_layout() {
        assert_eq!(
            sanitise("/home/marco/projects/spotter-worktrees/spotter-4te"),
            "-home-marco-projects-spotter-worktrees-spotter-4te"
        );
        assert_eq!(sanitise("C:\\Users\\a b"), "C--Users-a-b");
        assert_eq!(sanitise("/tmp/é"), "-tmp--");
    }

    #[test]
    fn long_names_are_cut_and_hashed() {
        let long = format!("/{}", "a".repeat(300));
        let s = sanitise(&long);
        assert!(s.starts_with(&format!("-{}", "a".repeat(199))));
        assert!(s.len() > 201 && s.len() < 215, "{s}");
        assert_ne!(sanitise(&long), sanitise(&format!("/{}", "a".repeat(301))));
    }

    #[test]
    fn a_pinned_project_name_needs_the_config_home_and_a_valid_name() {
        assert_eq!(pinned_name(Some("/c"), Some("shared-memory_1")), Some("shared-memory_1".into()));
        assert_eq!(pinned_name(None, Some("shared")), None);
        assert_eq!(pinned_name(Some("/c"), None), None);
        for bad in ["", "a/b", "../x", "with space", "é", &"x".repeat(65)] {
            assert_eq!(pinned_name(Some("/c"), Some(bad)), None, "{bad:?}");
        }
        assert_eq!(pinned_name(Some("/c"), Some(&"x".repeat(64))), Some("x".repeat(64)));
    }

    #[test]
    fn djb2_matches_javascript() {
        // ((h << 5) - h + c) | 0 over "abc" in JavaScript gives 96354.
        assert_eq!(djb2("abc"), 96354);
        assert_eq!(to_base36(96354), "22ci");
    }

    #[test]
    fn worktrees_share_the_main_repository_root() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("repo");
        std::fs::create_dir_all(main.join(".git/worktrees/wt")).unwrap();
        std::fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        let wt = tmp.path().join("wt");
        std::fs::create_dir_all(wt.join("sub")).unwrap();
        std::fs::write(wt.join(".git"), format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()))
            .unwrap();
        assert_eq!(canonical_git_root(&wt.join("sub")).unwrap(), main.canonicalize().unwrap());
        assert_eq!(canonical_git_root(&main).unwrap(), main);
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(canonical_git_root(outside.path()), None);
    }
}
