//! The hook: what runs at the end of every agent turn.
//!
//! It reads the agent's hook JSON on stdin (`session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`), prints a pending "Improved N files" announcement once, runs gates 1–4
//! and, when they all pass, starts a detached worker. It never blocks or fails the agent:
//! every error is swallowed, nothing is printed while the gates are closed, and stdin is
//! read for at most ~200 ms. Both `autodream hook` and the small `autodream-hook` binary
//! (which starts faster) run this.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::clock::Clock;
use crate::config::{Config, LoadOptions, LoadedConfig};
use crate::dream::{WORKER_LOG, announce};
use crate::gates::{self, GateInput};
use crate::paths::{Locations, PathOverrides};

/// The hook's options: the global options of the CLI, nothing else.
#[derive(Debug, Clone, Default)]
pub struct HookOptions {
    pub memory_dir: Option<PathBuf>,
    pub sessions_dir: Option<PathBuf>,
    pub project: Option<PathBuf>,
    pub config: Option<PathBuf>,
    pub sessions_format: Option<String>,
    pub current_session: Option<String>,
    /// `KEY=VALUE` settings; a bad one is skipped on its own.
    pub set: Vec<String>,
}

/// The fields of the agent's hook input that autodream uses.
#[derive(Debug, Default, Deserialize)]
pub struct HookInput {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub transcript_path: Option<PathBuf>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub hook_event_name: Option<String>,
}

impl HookOptions {
    /// Parses the hook's arguments (`--memory-dir X`, `--set k=v`, `--opt=value` …) without
    /// a full argument parser; anything else returns `None`.
    pub fn parse(args: &[OsString]) -> Option<HookOptions> {
        let mut o = HookOptions::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let arg = arg.to_str()?;
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (arg, None),
            };
            let mut value =
                || inline.clone().or_else(|| it.next().and_then(|v| v.to_str()).map(str::to_string));
            match name {
                "--memory-dir" => o.memory_dir = Some(value()?.into()),
                "--sessions-dir" => o.sessions_dir = Some(value()?.into()),
                "--project" => o.project = Some(value()?.into()),
                "--config" => o.config = Some(value()?.into()),
                "--sessions-format" => o.sessions_format = Some(value()?),
                "--current-session" => o.current_session = Some(value()?),
                "--set" => o.set.push(value()?),
                _ => return None,
            }
        }
        Some(o)
    }

    /// The settings of `--set` and `--sessions-format` that name a known key.
    pub fn flag_overrides(&self) -> Vec<(String, String)> {
        let mut flags: Vec<(String, String)> = self
            .set
            .iter()
            .filter_map(|s| s.split_once('='))
            .map(|(k, v)| (k.trim().replace('-', "_"), v.to_string()))
            .filter(|(k, _)| crate::config::keys().any(|known| known == k))
            .collect();
        if let Some(f) = &self.sessions_format {
            flags.push(("sessions_format".into(), f.clone()));
        }
        flags
    }

    /// The options the background worker must inherit.
    fn worker_args(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = Vec::new();
        if let Some(c) = &self.config {
            out.push("--config".into());
            out.push(c.into());
        }
        for s in &self.set {
            out.push("--set".into());
            out.push(s.into());
        }
        if let Some(f) = &self.sessions_format {
            out.push("--sessions-format".into());
            out.push(f.into());
        }
        out
    }
}

/// Runs the hook. `worker_exe` is the `autodream` binary that runs `__worker`.
/// Never panics outward and never returns an error: the agent must not notice us.
pub fn run(opts: &HookOptions, worker_exe: &Path) {
    let _ = std::panic::catch_unwind(|| {
        let _ = hook(opts, worker_exe);
    });
}

/// Reads the hook JSON from stdin without ever blocking the agent for long: nothing when
/// stdin is a terminal, and at most ~200 ms for a writer that never closes the pipe.
fn read_stdin() -> HookInput {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return HookInput::default();
    }
    let deadline = Instant::now() + Duration::from_millis(200);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut lock = stdin.lock();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || !readable(left) {
            break;
        }
        match lock.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 1 << 20 {
            break;
        }
    }
    serde_json::from_slice(&buf).unwrap_or_default()
}

#[cfg(unix)]
fn readable(timeout: Duration) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let fd = std::io::stdin();
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    let ts = Timespec { tv_sec: timeout.as_secs() as i64, tv_nsec: timeout.subsec_nanos() as i64 };
    matches!(poll(&mut fds, Some(&ts)), Ok(n) if n > 0)
}

#[cfg(not(unix))]
fn readable(_timeout: Duration) -> bool {
    true
}

#[derive(Debug, thiserror::Error)]
enum HookError {
    #[error(transparent)]
    Clock(#[from] crate::clock::ClockError),
    #[error(transparent)]
    Paths(#[from] crate::paths::PathError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

fn hook(opts: &HookOptions, worker_exe: &Path) -> Result<(), HookError> {
    let input = read_stdin();
    let clock = Clock::from_env()?;
    let project = opts.project.clone().or_else(|| input.cwd.clone().filter(|c| c.is_dir()));
    let overrides = PathOverrides {
        memory_dir: opts.memory_dir.clone(),
        sessions_dir: opts.sessions_dir.clone(),
        project_dir: project,
    };
    let locations = Locations::resolve(&overrides)?;

    // A finished dream is announced once, whatever the gates say now.
    if let Some(message) = announce::take(&locations.memory_dir) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", serde_json::json!({ "systemMessage": message }));
    }

    let config = Config::load(&LoadOptions {
        config_file: opts.config.clone(),
        flags: opts.flag_overrides(),
        project_dir: Some(locations.project_dir.clone()),
        agent_base: None,
    })?;
    let current = opts.current_session.clone().or(input.session_id.clone());
    let eval = gates::check(&GateInput {
        locations: &locations,
        config: &config,
        clock,
        current_session: current.as_deref(),
    });
    if !eval.all_pass() {
        return Ok(());
    }
    // After SessionEnd the user is gone: no need to wait for the transcript to go quiet.
    let ended = input.hook_event_name.as_deref() == Some("SessionEnd");
    let watch = if ended { None } else { input.transcript_path.as_deref() };
    spawn_worker(worker_exe, &locations, &config, clock, current.as_deref(), watch, opts.worker_args())?;
    Ok(())
}

/// `.dream/worker.log`, opened for appending from the memory folder without following links.
fn open_worker_log(loc: &Locations) -> std::io::Result<std::fs::File> {
    let root = crate::memdir::MemoryRoot::create(&loc.memory_dir)?;
    Ok(root.open_append(Path::new(crate::memdir::STATE_DIR).join(WORKER_LOG))?)
}

/// Appends a line to `.dream/worker.log`.
pub fn log_line(loc: &Locations, clock: Clock, msg: &str) {
    if let Ok(mut f) = open_worker_log(loc) {
        let _ = writeln!(f, "{} [{}] {msg}", clock.now(), std::process::id());
    }
}

/// Starts a detached worker (`<exe> __worker …`, new session, stdio to `.dream/worker.log`)
/// and returns at once.
pub fn spawn_worker(
    exe: &Path,
    loc: &Locations,
    _config: &LoadedConfig,
    clock: Clock,
    current_session: Option<&str>,
    transcript: Option<&Path>,
    extra: Vec<OsString>,
) -> std::io::Result<()> {
    let log = open_worker_log(loc)?;
    let mut cmd = Command::new(exe);
    cmd.arg("__worker")
        .arg("--memory-dir")
        .arg(&loc.memory_dir)
        .arg("--sessions-dir")
        .arg(&loc.sessions_dir)
        .arg("--project")
        .arg(&loc.project_dir)
        .args(extra);
    if let Some(s) = current_session {
        cmd.arg("--current-session").arg(s);
    }
    if let Some(t) = transcript {
        cmd.arg("--transcript").arg(t);
    }
    cmd.stdin(Stdio::null()).stdout(log.try_clone()?).stderr(log);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid is async-signal-safe; it detaches the worker from the agent's
        // process group and terminal so the agent never waits for it.
        unsafe {
            cmd.pre_exec(|| {
                let _ = rustix::process::setsid();
                Ok(())
            });
        }
    }
    let child = cmd.spawn()?;
    log_line(loc, clock, &format!("gates passed; started worker PID {}", child.id()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_the_global_options_only() {
        let o = HookOptions::parse(&os(&["--memory-dir", "/m", "--set=min_hours=2", "--set", "bogus=1"]))
            .unwrap();
        assert_eq!(o.memory_dir, Some(PathBuf::from("/m")));
        assert_eq!(o.flag_overrides(), [("min_hours".to_string(), "2".to_string())]);
        assert!(HookOptions::parse(&os(&["--help"])).is_none());
        assert!(HookOptions::parse(&os(&["--memory-dir"])).is_none());
    }
}
