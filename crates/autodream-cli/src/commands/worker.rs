//! The background worker: started detached by `hook` when every gate passes.
//!
//! It takes the lock under its own PID (so the prior mtime it records is the real "last
//! consolidated at"), re-checks the time and sessions gates, waits for the user to go idle,
//! and dreams. Its output goes to `.dream/worker.log`.

use std::path::PathBuf;

use clap::Args;

use autodream_core::dream::{self, DreamError, DreamOptions};
use autodream_hookproc::log_line;

use crate::commands::run::cancel_on_signals;
use crate::global::GlobalArgs;
use crate::{context, engines};

#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The transcript to watch for idleness
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
}

pub fn run(global: &GlobalArgs, args: WorkerArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    // A memory folder shared with a team dreams under the team's lease.
    if let Some(code) = crate::commands::team::worker_dream(&ctx, args.transcript.as_deref()) {
        return Ok(code);
    }
    let loc = &ctx.locations;
    let engine = engines::by_name(&ctx.cfg().engine)?;
    let result = dream::run_dream(
        loc,
        &ctx.config,
        ctx.clock,
        DreamOptions {
            recheck_gates: true,
            current_session: ctx.current_session.clone(),
            idle_transcript: args.transcript,
            cancel: cancel_on_signals(),
            ..DreamOptions::new(engine.as_ref())
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
