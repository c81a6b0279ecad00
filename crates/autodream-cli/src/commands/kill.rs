//! `autodream kill`: stop the running dream; it rolls back and changes nothing.

use std::time::{Duration, Instant};

use clap::Args;

use autodream_core::dream::{self, task::TaskState};
use autodream_core::lock::pid_alive;

use crate::cli::GlobalArgs;
use crate::context;

#[derive(Debug, Args)]
pub struct KillArgs {
    /// Seconds to wait for a clean stop before forcing it
    #[arg(long, default_value_t = 10)]
    pub timeout: u64,
}

/// Stops the dream of `pid`: SIGTERM, a bounded wait, then SIGKILL and recovery.
/// Returns true when the worker stopped on its own.
pub fn stop(ctx: &context::Ctx, pid: u32, timeout: Duration) -> anyhow::Result<bool> {
    let Some(p) = rustix::process::Pid::from_raw(pid as i32) else { anyhow::bail!("invalid PID {pid}") };
    rustix::process::kill_process(p, rustix::process::Signal::TERM)
        .map_err(|e| anyhow::anyhow!("cannot signal PID {pid}: {e}"))?;
    let start = Instant::now();
    while start.elapsed() < timeout {
        if !pid_alive(pid)
            || dream::task::load(&ctx.locations.memory_dir).is_some_and(|t| t.state != TaskState::Running)
        {
            return Ok(true);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
    let deadline = Instant::now() + Duration::from_secs(5);
    while pid_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    dream::recover(&ctx.locations, ctx.clock, ctx.cfg())?;
    if let Some(mut t) = dream::task::load(&ctx.locations.memory_dir)
        && t.state != TaskState::Completed
    {
        t.state = TaskState::Killed;
        dream::task::save(&ctx.locations.memory_dir, &t)?;
    }
    Ok(false)
}

pub fn run(global: &GlobalArgs, args: KillArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let Some(task) = dream::task::load(&ctx.locations.memory_dir).filter(|t| t.state == TaskState::Running)
    else {
        anyhow::bail!("no dream is running");
    };
    if !pid_alive(task.pid) {
        dream::recover(&ctx.locations, ctx.clock, ctx.cfg())?;
        println!("dream {} had already stopped (PID {} is gone); cleaned up", task.id, task.pid);
        return Ok(0);
    }
    let clean = stop(&ctx, task.pid, Duration::from_secs(args.timeout))?;
    let after = dream::task::load(&ctx.locations.memory_dir);
    match after {
        // The signal arrived while the changes were being applied: they were finished, not torn.
        Some(t) if t.id == task.id && t.state == TaskState::Completed => println!(
            "dream {} had already started applying its changes and finished: {} \
             (autodream undo reverts it)",
            t.id,
            t.summary.unwrap_or_default()
        ),
        _ => println!(
            "killed dream {} (PID {}){}; nothing was changed and the lock was rolled back",
            task.id,
            task.pid,
            if clean { "" } else { " by force" }
        ),
    }
    Ok(0)
}
