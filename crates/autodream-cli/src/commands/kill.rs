//! `autodream kill`: stop the running dream; it rolls back and changes nothing.
//!
//! The stopping is `autodream_core::dream::kill`'s; this file has the arguments and the
//! output.

use std::time::Duration;

use clap::Args;

use autodream_core::dream::kill::{self, Killed};

use crate::context;
use crate::global::GlobalArgs;
use crate::output::outln;

#[derive(Debug, Args)]
pub struct KillArgs {
    /// Seconds to wait for a clean stop before forcing it
    #[arg(long, default_value_t = 10)]
    pub timeout: u64,
}

pub fn run(global: &GlobalArgs, args: KillArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let timeout = Duration::from_secs(args.timeout);
    match kill::kill_running(&ctx.locations, ctx.clock, ctx.cfg(), timeout)? {
        Killed::AlreadyStopped { task } => {
            outln!("dream {} had already stopped (PID {} is gone); cleaned up", task.id, task.pid)?;
        }
        // The signal arrived while the changes were being applied: they were finished, not torn.
        Killed::Stopped { task, finished: Some(summary), .. } => {
            outln!(
                "dream {} had already started applying its changes and finished: {summary} \
                 (autodream undo reverts it)",
                task.id
            )?;
        }
        Killed::Stopped { task, clean, .. } => outln!(
            "killed dream {} (PID {}){}; nothing was changed and the lock was rolled back",
            task.id,
            task.pid,
            if clean { "" } else { " by force" }
        )?,
    }
    Ok(0)
}
