//! One file per subcommand: its `*Args` and its `run`.

pub mod check;
pub mod diff;
pub mod eval;
pub mod history;
pub mod hook;
pub mod init;
pub mod kill;
pub mod log;
pub mod run;
pub mod sessions;
pub mod status;
pub mod undo;
pub mod watch;
pub mod worker;

use crate::cli::{Cli, Command};

/// Runs a parsed command line; returns the exit code.
pub fn dispatch(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Init(args) => init::run(&cli.global, args),
        Command::Log(args) => log::run(&cli.global, args),
        Command::Hook(args) => Ok(hook::run(&cli.global, args)),
        Command::Status(args) => status::run(&cli.global, args),
        Command::Sessions(args) => sessions::run(&cli.global, args),
        Command::Check(args) => check::run(&cli.global, args),
        Command::Run(args) => run::run(&cli.global, args),
        Command::Watch(args) => watch::run(&cli.global, args),
        Command::Kill(args) => kill::run(&cli.global, args),
        Command::History(args) => history::run(&cli.global, args),
        Command::Diff(args) => diff::run(&cli.global, args),
        Command::Undo(args) => undo::run(&cli.global, args),
        Command::Eval(args) => eval::run(&cli.global, args),
        Command::Worker(args) => worker::run(&cli.global, args),
        Command::SandboxExec(args) => Ok(autodream_agent::sandbox_exec_main(args.args).clamp(0, 255) as u8),
    }
}

/// Prints a value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
