//! autodream-hookproc: the hook as a process, shared by `autodream hook` and the small
//! `autodream-hook` binary.
//!
//! The decision (announce once, gates 1–4) is `autodream_core::hook`'s; this crate holds
//! what only a process does around it: reading the agent's JSON from stdin without ever
//! blocking it for long ([`read_stdin`]), starting the background worker and the capture
//! detached ([`spawn_detached`]) and appending to the worker's log, `worker.log` in the state folder ([`log_line`]).
//! Nothing here blocks or fails the agent: every error is swallowed, nothing is printed
//! while the gates are closed, and stdin is read for at most ~200 ms.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use autodream_core::Clock;
use autodream_core::dream::WORKER_LOG;
use autodream_core::hook::{self, HookInput};
use autodream_core::memdir::MemoryRoot;
use autodream_core::overrides::{Overrides, Parsed};
use autodream_core::paths::Locations;

/// Runs the hook. `worker_exe` is the `autodream` binary that runs `__worker`.
/// Never panics outward and never returns an error: the agent must not notice us.
pub fn run(opts: &Overrides, worker_exe: &Path) {
    run_with_argument(&Parsed { overrides: opts.clone(), skipped: Vec::new() }, worker_exe, None);
}

/// [`run`] with the hook's options as its lenient parse left them (what it skipped is named
/// in the worker log), and the hook input given as a command-line argument (Codex CLI's
/// `notify` passes one JSON argument; see [`split_argument`]); stdin is read when there is none.
pub fn run_with_argument(parsed: &Parsed, worker_exe: &Path, argument: Option<&str>) {
    let _ = std::panic::catch_unwind(|| {
        run_inner(parsed, worker_exe, argument);
    });
}

/// Takes a trailing JSON-object argument (Codex CLI's `notify` payload) off `args`.
pub fn split_argument(args: &mut Vec<OsString>) -> Option<String> {
    let last = args.last()?.to_str()?;
    if !last.trim_start().starts_with('{') {
        return None;
    }
    let json = last.to_string();
    args.pop();
    Some(json)
}

fn run_inner(parsed: &Parsed, worker_exe: &Path, argument: Option<&str>) {
    let opts = &parsed.overrides;
    let input = argument.and_then(HookInput::from_argument).unwrap_or_else(read_stdin);
    let located = |loc: &Locations, clock: Clock| {
        if !parsed.skipped.is_empty() {
            let skipped = parsed.skipped.join(" ");
            log_line(loc, clock, &format!("hook: skipped arguments it does not know: {skipped}"));
        }
    };
    let announce = |message: &str| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", serde_json::json!({ "systemMessage": message }));
    };
    let extract = |plan: hook::CapturePlan| {
        let _ = spawn_capture(worker_exe, opts, &plan);
    };
    let Ok(Some(plan)) = hook::evaluate(opts, input, located, announce, extract) else {
        return;
    };
    let argv =
        opts.to_worker_argv(&plan.locations, plan.current_session.as_deref(), plan.transcript.as_deref());
    let _ = spawn_worker(worker_exe, &plan.locations, plan.clock, argv);
}

/// Reads the hook JSON from stdin without ever blocking the agent for long: nothing when
/// stdin is a terminal, and at most ~200 ms for a writer that never closes the pipe.
pub fn read_stdin() -> HookInput {
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

/// The worker log in the state folder, opened for appending without following links.
fn open_worker_log(loc: &Locations) -> std::io::Result<std::fs::File> {
    let root = MemoryRoot::create(&loc.state_dir)?;
    Ok(root.open_append(WORKER_LOG)?)
}

/// Appends a line to the worker log.
pub fn log_line(loc: &Locations, clock: Clock, msg: &str) {
    if let Ok(mut f) = open_worker_log(loc) {
        let _ = writeln!(f, "{} [{}] {msg}", clock.now(), std::process::id());
    }
}

/// Starts `exe` with `argv` detached from the caller: a new session (so neither the agent nor
/// an MCP client waits for it, or takes it down with its process group), stdin empty, stdout
/// and stderr to `output` (the worker log, or nowhere). Returns the child at once. The one
/// way autodream starts a process that outlives its caller: the worker, the capture and a
/// dream requested over MCP.
pub fn spawn_detached(
    exe: &Path,
    argv: Vec<OsString>,
    output: Option<std::fs::File>,
) -> std::io::Result<Child> {
    let mut cmd = Command::new(exe);
    cmd.args(argv).stdin(Stdio::null());
    match output {
        Some(log) => cmd.stdout(log.try_clone()?).stderr(log),
        None => cmd.stdout(Stdio::null()).stderr(Stdio::null()),
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid is async-signal-safe, and the closure touches nothing else.
        unsafe {
            cmd.pre_exec(|| {
                let _ = rustix::process::setsid();
                Ok(())
            });
        }
    }
    cmd.spawn()
}

/// Starts `exe` with `argv` (from [`Overrides::to_worker_argv`]) detached, its output in the
/// worker log, and returns at once.
pub fn spawn_worker(exe: &Path, loc: &Locations, clock: Clock, argv: Vec<OsString>) -> std::io::Result<()> {
    let child = spawn_detached(exe, argv, Some(open_worker_log(loc)?))?;
    log_line(loc, clock, &format!("gates passed; started worker PID {}", child.id()));
    Ok(())
}

/// Starts `exe __extract` for the transcript detached (no output kept) and returns at once.
/// The capture records what it did in the state folder.
pub fn spawn_capture(exe: &Path, opts: &Overrides, plan: &hook::CapturePlan) -> std::io::Result<()> {
    let mut argv = opts.to_worker_argv(&plan.locations, Some(&plan.session), Some(&plan.transcript));
    argv[0] = "__capture".into();
    spawn_detached(exe, argv, None).map(drop)
}
