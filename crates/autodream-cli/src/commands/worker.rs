//! The background worker: started detached by `hook` when every gate passes.
//!
//! It takes the lock under its own PID (so the prior mtime it records is the real "last
//! consolidated at"), re-checks the time and sessions gates, waits for the user to go idle,
//! and dreams. Its output goes to `.dream/worker.log`.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clap::Args;

use autodream_core::Clock;
use autodream_core::config::LoadedConfig;
use autodream_core::dream::{self, DreamError, DreamOptions, WORKER_LOG};
use autodream_core::paths::Locations;

use crate::cli::GlobalArgs;
use crate::commands::run::cancel_on_signals;
use crate::{context, engines};

#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The transcript to watch for idleness
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
}

fn log_line(loc: &Locations, clock: Clock, msg: &str) {
    let path = loc.state_dir().join(WORKER_LOG);
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{} [{}] {msg}", clock.now(), std::process::id());
    }
}

/// Starts a detached worker (new session, stdio to `.dream/worker.log`) and returns at once.
pub fn spawn(
    loc: &Locations,
    _config: &LoadedConfig,
    clock: Clock,
    current_session: Option<&str>,
    transcript: Option<&Path>,
    extra: Vec<OsString>,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(loc.state_dir())?;
    let log = std::fs::OpenOptions::new().create(true).append(true).open(loc.state_dir().join(WORKER_LOG))?;
    let mut cmd = Command::new(std::env::current_exe()?);
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

pub fn run(global: &GlobalArgs, args: WorkerArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let loc = &ctx.locations;
    let engine = engines::by_name(&ctx.cfg().engine)?;
    let result = dream::run_dream(
        loc,
        &ctx.config,
        ctx.clock,
        DreamOptions {
            engine: engine.as_ref(),
            dry_run: false,
            recheck_gates: true,
            current_session: ctx.current_session.clone(),
            idle_transcript: args.transcript,
            pid: std::process::id(),
            cancel: cancel_on_signals(),
            on_event: None,
        },
    );
    match result {
        Ok(o) => {
            log_line(loc, ctx.clock, &format!("dream {} completed: {}", o.task.id, o.message));
            Ok(0)
        }
        Err(DreamError::Refused(msg)) => {
            log_line(loc, ctx.clock, &format!("no dream: {msg}"));
            Ok(3)
        }
        Err(e) => {
            log_line(loc, ctx.clock, &format!("dream failed: {e}"));
            Ok(1)
        }
    }
}
