//! One file per subcommand: its `*Args` and its `run`.

pub mod capture;
pub mod check;
pub mod daemon;
pub mod diff;
pub mod doctor;
pub mod eval;
pub mod forget;
pub mod history;
pub mod hook;
pub mod init;
pub mod install;
pub mod kill;
pub mod log;
pub mod mcp;
pub mod review;
pub mod run;
pub mod sandbox_exec;
pub mod sessions;
pub mod status;
pub mod team;
pub mod undo;
pub mod watch;
pub mod why;
pub mod worker;

/// Prints a value as pretty JSON on stdout ([`crate::output::json`]).
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    crate::output::json(value)
}
