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

use cli::{Cli, Command};

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "hook")
        && let Some(hook_args) = commands::hook::parse_fast(&args[2..])
    {
        return commands::hook::run_fast(hook_args);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::OK };
            // `--help` to a reader that went away is done; a usage mistake stays one.
            let _ = output::clap_message(&e);
            return ExitCode::from(code);
        }
    };
    // Text written without a final line break is still buffered: flushed here, so a
    // closed reader is found while errors can still be told apart.
    match dispatch(cli).and_then(|code| output::flush().map(|()| code).map_err(Into::into)) {
        Ok(code) => ExitCode::from(code),
        Err(e) if output::is_closed_stdout(&e) => ExitCode::from(exit::OK),
        Err(e) => {
            eprintln!("error: {}", exit::render(&e));
            ExitCode::from(exit::code_of(&e))
        }
    }
}

/// Runs a parsed command line; returns the exit code.
fn dispatch(cli: Cli) -> anyhow::Result<u8> {
    use commands::*;
    let global = &cli.global;
    match cli.command {
        Command::Init(args) => init::run(global, args),
        Command::Log(args) => log::run(global, args),
        Command::Hook(args) => Ok(hook::run(global, args)),
        Command::Status(args) => status::run(global, args),
        Command::Sessions(args) => sessions::run(global, args),
        Command::Check(args) => check::run(global, args),
        Command::Run(args) => run::run(global, args),
        Command::Watch(args) => watch::run(global, args),
        Command::Kill(args) => kill::run(global, args),
        Command::History(args) => history::run(global, args),
        Command::Diff(args) => diff::run(global, args),
        Command::Undo(args) => undo::run(global, args),
        Command::Why(args) => why::run(global, args),
        Command::Forget(args) => forget::run(global, args),
        Command::Install(args) => install::run_install(global, args),
        Command::Uninstall(args) => install::run_uninstall(global, args),
        Command::Doctor(args) => doctor::run(global, args),
        Command::Mcp(args) => mcp::run(global, args),
        Command::Daemon(args) => daemon::run(global, args),
        Command::Eval(args) => eval::run(global, args),
        Command::Extract(args) => extract::run(global, args),
        Command::Worker(args) => worker::run(global, args),
        Command::SandboxExec(args) => Ok(sandbox_exec::run(args)),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// The hidden commands: `--help` does not list them, so the integration test that runs
    /// every listed command into a closed standard output cannot find them. None prints to
    /// standard output itself; a new one must be added here with its reason.
    const HIDDEN: &[(&str, &str)] = &[
        ("__worker", "detached by the hook with its output in the worker log; it prints nothing"),
        ("__extract", "detached by the Stop hook; it notes what happened in the worker log only"),
        ("__sandbox-exec", "replaces itself with the sandboxed program (exec), which owns the output"),
    ];

    #[test]
    fn the_hidden_commands_are_the_known_internal_ones() {
        let hidden: Vec<String> = Cli::command()
            .get_subcommands()
            .filter(|c| c.is_hide_set())
            .map(|c| c.get_name().to_string())
            .collect();
        let known: Vec<&str> = HIDDEN.iter().map(|(name, _)| *name).collect();
        assert_eq!(hidden, known, "a hidden command changed: say how it treats a closed stdout");
    }
}
