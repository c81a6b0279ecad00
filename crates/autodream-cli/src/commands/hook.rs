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

use crate::global::GlobalArgs;

#[derive(Debug, Args, Default)]
pub struct HookArgs {}

/// The hook's options and, from Codex CLI's `notify`, its JSON argument.
#[derive(Debug)]
pub struct FastHook {
    opts: Overrides,
    argument: Option<String>,
}

/// The fast path: the hook's arguments without building the full parser. `None` (for
/// `--help` or a typo) sends the command line through the regular parser.
pub fn parse_fast(args: &[OsString]) -> Option<FastHook> {
    let mut args = args.to_vec();
    let argument = autodream_hookproc::split_argument(&mut args);
    Some(FastHook { opts: Overrides::parse(&args)?, argument })
}

pub fn run_fast(hook: FastHook) -> ExitCode {
    if let Ok(exe) = std::env::current_exe() {
        autodream_hookproc::run_with_argument(&hook.opts, &exe, hook.argument.as_deref());
    }
    ExitCode::SUCCESS
}

/// Through the regular parser; the return value is the exit code, always 0.
pub fn run(global: &GlobalArgs, _args: HookArgs) -> u8 {
    let _ = run_fast(FastHook { opts: Overrides::from(global), argument: None });
    0
}
