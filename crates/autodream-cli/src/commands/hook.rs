//! `autodream hook`: called by the agent at the end of every turn.
//!
//! The work is `autodream_hookproc`: announce a finished dream once, run gates 1–4, start
//! a detached worker when they pass, and always exit 0 without a word while they are
//! closed. The separate `autodream-hook` binary runs the same code and starts faster.
//! The hook JSON comes on stdin, or (Codex CLI's `notify`) as one trailing JSON argument.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Args;

use autodream_core::Overrides;
use autodream_core::overrides::Parsed;

use crate::global::GlobalArgs;

#[derive(Debug, Args, Default)]
pub struct HookArgs {}

/// The hook's options and, from Codex CLI's `notify`, its JSON argument.
#[derive(Debug)]
pub struct FastHook {
    parsed: Parsed,
    argument: Option<String>,
}

/// The fast path: the hook's arguments without building the full parser. `None` only for
/// `--help` and `--version`, which go through the regular parser. Anything else it does not
/// understand is skipped and named in the worker log: a hook never fails the agent.
pub fn parse_fast(args: &[OsString]) -> Option<FastHook> {
    if args.iter().any(|a| a == "--help" || a == "-h" || a == "--version" || a == "-V") {
        return None;
    }
    let mut args = args.to_vec();
    let argument = autodream_hookproc::split_argument(&mut args);
    Some(FastHook { parsed: Overrides::parse_lenient(&args), argument })
}

pub fn run_fast(hook: FastHook) -> ExitCode {
    if let Ok(exe) = std::env::current_exe() {
        autodream_hookproc::run_with_argument(&hook.parsed, &exe, hook.argument.as_deref());
    }
    ExitCode::SUCCESS
}

/// Through the regular parser; the return value is the exit code, always 0.
pub fn run(global: &GlobalArgs, _args: HookArgs) -> u8 {
    let parsed = Parsed { overrides: Overrides::from(global), skipped: Vec::new() };
    let _ = run_fast(FastHook { parsed, argument: None });
    0
}
