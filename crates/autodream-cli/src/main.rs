//! The `autodream` binary: dispatch and exit codes, nothing else.
//!
//! Exit codes: 0 ok, 1 error, 2 usage, 3 refused by a gate or the lock.
//! `autodream hook` takes a fast path that skips argument-parser setup, because it runs at
//! the end of every agent turn and must cost about as much as starting a process.
//!
//! Standard output is written only through [`output`]: a reader that goes away
//! (`autodream status | head -1`) ends the command with exit 0 and nothing said, as in
//! ripgrep, and `println!` is refused by clippy (`clippy.toml`) so no panic comes back.

// `println!`/`print!` panic on a closed standard output; `output::outln!` returns the error.
#![deny(clippy::disallowed_macros, clippy::disallowed_methods)]

mod cli;
mod commands;
mod context;
mod engines;
mod exit;
mod global;
mod output;

use std::process::ExitCode;

use clap::Parser;

use cli::Cli;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "hook")
        && let Some(hook_args) = commands::hook::parse_fast(&args[2..])
    {
        return commands::hook::run_fast(hook_args);
    }
    // Every dream of this process checks its facts against the repository (`referents`).
    static PROJECT_INDEX: autodream_repo::ProjectIndex = autodream_repo::ProjectIndex::new();
    autodream_core::referents::register(&PROJECT_INDEX);
    match Cli::try_parse_from(&args) {
        Ok(cli) => exit::finish(cli.command.run(&cli.global)),
        Err(e) => exit::usage_error(&e),
    }
}
