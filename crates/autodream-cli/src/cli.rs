//! The command line: global options and one subcommand per file in `commands/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::commands;

/// A long-term memory for AI agents that tidies itself.
///
/// Notes go into daily logs and sessions are recorded as transcripts; when enough time and
/// enough new sessions have passed, autodream "dreams": it consolidates them into a few
/// Markdown topic files and a short index, MEMORY.md, that the agent loads at every start.
#[derive(Debug, Parser)]
#[command(name = "autodream", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command understands.
#[derive(Debug, Clone, Args, Default)]
pub struct GlobalArgs {
    /// The memory directory [env: AUTODREAM_MEMORY_DIR] [default: the agent's, for the project]
    #[arg(long, global = true, value_name = "DIR")]
    pub memory_dir: Option<PathBuf>,
    /// The folder of session transcripts [env: AUTODREAM_SESSIONS_DIR] [default: the agent's]
    #[arg(long, global = true, value_name = "DIR")]
    pub sessions_dir: Option<PathBuf>,
    /// The project directory, instead of the working directory
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The config file [env: AUTODREAM_CONFIG] [default: ~/.config/autodream/config.toml]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Transcript format: auto, claude, generic or codex
    #[arg(long, global = true, value_name = "FORMAT")]
    pub sessions_format: Option<String>,
    /// The current session's id (never counted as a new session)
    #[arg(long, global = true, value_name = "ID")]
    pub current_session: Option<String>,
    /// Override a setting: --set min_hours=12 (repeatable; see the README for keys)
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

impl From<&GlobalArgs> for autodream_core::Overrides {
    fn from(g: &GlobalArgs) -> Self {
        autodream_core::Overrides {
            memory_dir: g.memory_dir.clone(),
            sessions_dir: g.sessions_dir.clone(),
            project: g.project.clone(),
            config: g.config.clone(),
            sessions_format: g.sessions_format.clone(),
            current_session: g.current_session.clone(),
            set: g.set.clone(),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the memory directory (MEMORY.md, logs/, .dream/); never overwrites
    Init(commands::init::InitArgs),
    /// Append a note to today's daily log
    Log(commands::log::LogArgs),
    /// Run the gates from an agent hook (reads the hook's JSON on stdin); always exits 0
    Hook(commands::hook::HookArgs),
    /// Show the memory, every gate with its value and verdict, and the last dream
    Status(commands::status::StatusArgs),
    /// List session transcripts touched since the last dream
    Sessions(commands::sessions::SessionsArgs),
    /// Check MEMORY.md against the agent's limits and the topic files against it
    Check(commands::check::CheckArgs),
    /// Dream now, in the foreground (ignores the gates unless --respect-gates)
    Run(commands::run::RunArgs),
    /// Watch the running dream live; `x` kills it
    Watch(commands::watch::WatchArgs),
    /// Stop the running dream; it rolls back and changes nothing
    Kill(commands::kill::KillArgs),
    /// List every dream and undo
    History(commands::history::HistoryArgs),
    /// Show what a dream changed, as a unified diff
    Diff(commands::diff::DiffArgs),
    /// Restore what a dream replaced, byte for byte
    Undo(commands::undo::UndoArgs),
    /// Measure the memory a dream writes on a benchmark (LoCoMo)
    Eval(commands::eval::EvalArgs),
    /// The background worker started by `hook` (internal)
    #[command(name = "__worker", hide = true)]
    Worker(commands::worker::WorkerArgs),
    /// Run a read-only command under the sandbox (internal, used by the agent engine)
    #[command(name = "__sandbox-exec", hide = true)]
    SandboxExec(SandboxExecArgs),
}

/// Arguments passed through to the sandboxed exec.
#[derive(Debug, Args)]
pub struct SandboxExecArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<std::ffi::OsString>,
}
