//! `autodream-hook`: the agent's hook as a small binary.
//!
//! It runs exactly what `autodream hook` runs (`autodream_hookproc`) but links only the
//! engine's core, so the process starts about as fast as `/bin/true`. When the gates pass it
//! starts the worker from the `autodream` binary next to it (or `$AUTODREAM_BIN`). The hook
//! JSON comes on stdin, or as one trailing JSON argument (Codex CLI's `notify`).
//! It always exits 0.
//!
//! On Linux it starts at the C `main`, skipping the Rust runtime's start-up (a stack
//! overflow handler that reads `/proc/self/maps`, signal set-up): for a process that lives
//! about a millisecond, that start-up is a visible share of its cost. `std` works as usual
//! (glibc hands it the arguments and the environment).

#![cfg_attr(all(target_os = "linux", target_env = "gnu"), no_main)]

use std::io::Write;
use std::path::PathBuf;

use autodream_core::Overrides;

fn worker_exe() -> PathBuf {
    if let Some(p) = std::env::var_os("AUTODREAM_BIN").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let name = if cfg!(windows) { "autodream.exe" } else { "autodream" };
    std::env::current_exe().map(|e| e.with_file_name(name)).unwrap_or_else(|_| PathBuf::from(name))
}

fn run() {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h" || a == "--version" || a == "-V") {
        let _ = write!(
            std::io::stdout().lock(),
            "autodream-hook {}: run autodream's gates from an agent hook (reads the hook JSON on stdin,\n\
             or as a trailing JSON argument: Codex CLI's notify). Always exits 0; arguments it does\n\
             not know are named in the worker log and skipped. See `autodream hook --help`.\n\
             Options:\n{}",
            env!("CARGO_PKG_VERSION"),
            Overrides::hook_help()
        );
        return;
    }
    let argument = autodream_hookproc::split_argument(&mut args);
    // A hook must never fail the agent: what it does not understand is skipped (and named in
    // the worker log), what it does is kept.
    let parsed = Overrides::parse_lenient(&args);
    autodream_hookproc::run_with_argument(&parsed, &worker_exe(), argument.as_deref());
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    // A write to a closed pipe must be an error, not a fatal signal (the Rust runtime would
    // have set this up).
    // SAFETY: `signal` with SIG_IGN at start-up, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    run();
    0
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn main() {
    run();
}
