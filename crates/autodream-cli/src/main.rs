//! The `autodream` binary: dispatch and exit codes, nothing else.
//!
//! Exit codes: 0 ok, 1 error, 2 usage, 3 refused by a gate or the lock.
//! `autodream hook` takes a fast path that skips argument-parser setup, because it runs at
//! the end of every agent turn and must cost about as much as starting a process.

mod cli;
mod commands;
mod context;
mod engines;
mod exit;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "hook")
        && let Some(hook_args) = commands::hook::parse_fast(&args[2..])
    {
        return commands::hook::run_fast(hook_args);
    }
    let cli = match cli::Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match commands::dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {}", exit::render(&e));
            ExitCode::from(exit::code_of(&e))
        }
    }
}
