//! `autodream hook`: called by the agent at the end of every turn.
//!
//! The work is `autodream_hookproc`: announce a finished dream once, run gates 1–4, start
//! a detached worker when they pass, and always exit 0 without a word while they are
//! closed. The separate `autodream-hook` binary runs the same code and starts faster.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Args;

use autodream_core::Overrides;

use crate::global::GlobalArgs;

#[derive(Debug, Args, Default)]
pub struct HookArgs {}

/// The fast path: the hook's arguments without building the full parser. `None` (for
/// `--help` or a typo) sends the command line through the regular parser.
pub fn parse_fast(args: &[OsString]) -> Option<Overrides> {
    Overrides::parse(args)
}

pub fn run_fast(opts: Overrides) -> ExitCode {
    if let Ok(exe) = std::env::current_exe() {
        autodream_hookproc::run(&opts, &exe);
    }
    ExitCode::SUCCESS
}

/// Through the regular parser; the return value is the exit code, always 0.
pub fn run(global: &GlobalArgs, _args: HookArgs) -> u8 {
    let _ = run_fast(Overrides::from(global));
    0
}
