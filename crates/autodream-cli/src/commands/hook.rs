//! `autodream hook`: called by the agent at the end of every turn.
//!
//! It reads the hook's JSON on stdin (`session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`), runs gates 1–4 and, when they all pass, starts a detached worker.
//! It never blocks or fails the agent: it always exits 0, prints nothing while the gates
//! are closed, and puts diagnostics in `.dream/worker.log`. After a finished dream it
//! prints `{"systemMessage":"Improved N files"}` once.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use serde::Deserialize;

use autodream_core::Clock;
use autodream_core::config::{Config, LoadOptions};
use autodream_core::gates::{self, GateInput};
use autodream_core::paths::{Locations, PathOverrides};

use crate::cli::GlobalArgs;

#[derive(Debug, Args, Default)]
pub struct HookArgs {}

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

impl HookArgs {
    /// Parses the hook's arguments without building the full parser: only the global
    /// options are accepted; anything else (`--help`, a typo) returns `None` and goes
    /// through the regular parser.
    pub fn parse_fast(args: &[OsString]) -> Option<GlobalArgs> {
        let mut g = GlobalArgs::default();
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
                "--memory-dir" => g.memory_dir = Some(value()?.into()),
                "--sessions-dir" => g.sessions_dir = Some(value()?.into()),
                "--project" => g.project = Some(value()?.into()),
                "--config" => g.config = Some(value()?.into()),
                "--sessions-format" => g.sessions_format = Some(value()?),
                "--current-session" => g.current_session = Some(value()?),
                "--set" => g.set.push(value()?),
                _ => return None,
            }
        }
        Some(g)
    }
}

/// The fast path's entry: run and always exit 0.
pub fn run_fast(global: GlobalArgs) -> ExitCode {
    run(&global, HookArgs::default());
    ExitCode::SUCCESS
}

/// Runs the hook; the return value is the exit code, always 0.
pub fn run(global: &GlobalArgs, _args: HookArgs) -> u8 {
    let _ = std::panic::catch_unwind(|| {
        if let Err(e) = hook(global) {
            // Nowhere visible to write: the memory dir may be the problem itself.
            let _ = e;
        }
    });
    0
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

fn hook(global: &GlobalArgs) -> anyhow::Result<()> {
    let input = read_stdin();
    let clock = Clock::from_env()?;
    let project = global.project.clone().or_else(|| input.cwd.clone().filter(|c| c.is_dir()));
    let overrides = PathOverrides {
        memory_dir: global.memory_dir.clone(),
        sessions_dir: global.sessions_dir.clone(),
        project_dir: project,
    };
    let locations = Locations::resolve(&overrides)?;

    // A finished dream is announced once, whatever the gates say now.
    if let Some(message) = autodream_core::dream::announce::take(&locations.memory_dir) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", serde_json::json!({ "systemMessage": message }));
    }

    let config = Config::load(&LoadOptions {
        config_file: global.config.clone(),
        flags: crate::context::lenient_flag_overrides(global),
        project_dir: Some(locations.project_dir.clone()),
        agent_base: None,
    })?;
    let current = global.current_session.clone().or(input.session_id.clone());
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
    super::worker::spawn(
        &locations,
        &config,
        clock,
        current.as_deref(),
        watch,
        global_args_for_worker(global),
    )?;
    Ok(())
}

/// The options the background worker must inherit.
fn global_args_for_worker(global: &GlobalArgs) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    if let Some(c) = &global.config {
        out.push("--config".into());
        out.push(c.into());
    }
    for s in &global.set {
        out.push("--set".into());
        out.push(s.into());
    }
    if let Some(f) = &global.sessions_format {
        out.push("--sessions-format".into());
        out.push(f.into());
    }
    out
}
