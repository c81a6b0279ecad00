//! `dream_run`: a dream started in the background, detached from the server.
//!
//! The dream is `autodream run` with the server's global options (what the hook's worker
//! inherits, [`Overrides::to_worker_argv`]), in its own session, its output appended to the
//! worker log. Like `run`, it skips the gates (the user asked for it) but always takes the
//! lock. The server returns once the dream has recorded its task under the lock, with the
//! task's id, or with the PID of the dream that already holds the lock.

use std::ffi::OsString;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use autodream_core::dream::{WORKER_LOG, task};
use autodream_core::lock::ConsolidationLock;
use autodream_core::memdir::MemoryRoot;
use autodream_core::overrides::Overrides;
use autodream_hookproc::log_line;

use crate::context::Ctx;
use crate::global::GlobalArgs;

/// How long the dream has to record its task before the server stops waiting for it.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// What `dream_run` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Started {
    /// The dream took the lock and recorded its task.
    Running { task_id: String, pid: u32 },
    /// Another dream holds the lock.
    Busy { pid: Option<u32>, detail: String },
}

/// The lock's holder, when a dream is running now.
fn holder(ctx: &Ctx) -> Option<u32> {
    let lock = ConsolidationLock::new(&ctx.locations.memory_dir, ctx.clock, ctx.cfg().stale_lock());
    let state = lock.state();
    state.is_held().then(|| state.holder.map(|h| h.pid)).flatten()
}

fn busy(pid: Option<u32>) -> Started {
    let detail = match pid {
        Some(pid) => format!("a dream is already running (PID {pid}); `autodream status` shows its progress"),
        None => "another process took the lock first; try again when its dream has finished".to_string(),
    };
    Started::Busy { pid, detail }
}

/// Starts `exe run <global options>` detached, its output appended to the worker log: the
/// dream outlives the server when the client stops it.
fn spawn(exe: &Path, ctx: &Ctx, global: &GlobalArgs) -> anyhow::Result<Child> {
    let loc = &ctx.locations;
    let mut argv: Vec<OsString> =
        Overrides::from(global).to_worker_argv(loc, ctx.current_session.as_deref(), None);
    argv[0] = "run".into();
    let log = MemoryRoot::create(&loc.state_dir())
        .and_then(|root| root.open_append(WORKER_LOG))
        .with_context(|| format!("cannot open the worker log in {}", loc.state_dir().display()))?;
    autodream_hookproc::spawn_detached(exe, argv, Some(log))
        .with_context(|| format!("cannot start {}", exe.display()))
}

/// Starts a dream and waits until it has recorded its task (or has been refused).
pub fn start(exe: &Path, ctx: &Ctx, global: &GlobalArgs) -> anyhow::Result<Started> {
    if let Some(pid) = holder(ctx) {
        return Ok(busy(Some(pid)));
    }
    let mut child = spawn(exe, ctx, global)?;
    let pid = child.id();
    log_line(&ctx.locations, ctx.clock, &format!("dream requested over MCP; started PID {pid}"));
    let started = Instant::now();
    let result = loop {
        if let Some(t) = task::load_effective(&ctx.locations, ctx.clock, ctx.cfg())
            && t.pid == pid
        {
            break Ok(Started::Running { task_id: t.id, pid });
        }
        match child.try_wait() {
            // `run` exits 3 when the lock is held: someone took it in between.
            Ok(Some(status)) if status.code() == Some(3) => break Ok(busy(holder(ctx))),
            Ok(Some(status)) => {
                break Err(anyhow::anyhow!(
                    "the dream (PID {pid}) stopped before it started ({status}); its output is in {}",
                    ctx.locations.state_dir().join(WORKER_LOG).display()
                ));
            }
            Ok(None) => {}
            Err(e) => break Err(anyhow::Error::new(e).context(format!("cannot watch the dream (PID {pid})"))),
        }
        if started.elapsed() >= START_TIMEOUT {
            break Err(anyhow::anyhow!(
                "the dream (PID {pid}) has not recorded its task after {} s; `autodream status` shows it",
                START_TIMEOUT.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    // Reap the dream when it ends, so it never lingers as a zombie of the server.
    std::thread::spawn(move || child.wait());
    result
}
