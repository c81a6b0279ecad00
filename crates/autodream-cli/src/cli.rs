//! The command line: the global options (`global`), one subcommand per file in
//! `commands/`, and [`Command::run`], which hands each to its file.

use clap::{Parser, Subcommand};

use crate::commands;
use crate::global::GlobalArgs;

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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the memory directory (MEMORY.md, logs/); never overwrites
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
    /// Show the dream waiting for review; accept it (all or some files) or reject it
    Review(commands::review::ReviewArgs),
    /// Where the facts that mention TEXT came from (session, time, transcript line)
    Why(commands::why::WhyArgs),
    /// Retire the facts that mention TEXT (archived with the day; undoable)
    Forget(commands::forget::ForgetArgs),
    /// Register autodream with an agent (claude-code, codex, gemini) or a service manager (daemon)
    Install(commands::install::InstallArgs),
    /// Take out exactly what `install` put in
    Uninstall(commands::install::UninstallArgs),
    /// Find what would stop dreams from reaching the agent, each with its fix
    Doctor(commands::doctor::DoctorArgs),
    /// Serve memory over MCP on stdio (search, read, log, status, dream)
    Mcp(commands::mcp::McpArgs),
    /// Assistant mode: dream on a schedule, in the foreground (for a service manager)
    Daemon(commands::daemon::DaemonArgs),
    /// Measure the memory a dream writes on a benchmark (LoCoMo)
    Eval(commands::eval::EvalArgs),
    /// Share one project memory across machines through the project's git remote
    Team(commands::team::TeamArgs),
    /// The background worker started by `hook` (internal)
    #[command(name = "__worker", hide = true)]
    Worker(commands::worker::WorkerArgs),
    /// The detached per-turn capture started by the Stop hook (internal; `__extract` is its
    /// former name, still run by hook binaries installed before it)
    #[command(name = "__capture", alias = "__extract", hide = true)]
    Capture(commands::capture::CaptureArgs),
    /// Run a read-only command under the sandbox (internal, used by the API engine's Bash tool)
    #[command(name = "__sandbox-exec", hide = true)]
    SandboxExec(commands::sandbox_exec::SandboxExecArgs),
}

impl Command {
    /// Runs the command; returns the exit code.
    pub fn run(self, global: &GlobalArgs) -> anyhow::Result<u8> {
        use commands::*;
        match self {
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
            Command::Review(args) => review::run(global, args),
            Command::Why(args) => why::run(global, args),
            Command::Forget(args) => forget::run(global, args),
            Command::Install(args) => install::run_install(global, args),
            Command::Uninstall(args) => install::run_uninstall(global, args),
            Command::Doctor(args) => doctor::run(global, args),
            Command::Mcp(args) => mcp::run(global, args),
            Command::Daemon(args) => daemon::run(global, args),
            Command::Eval(args) => eval::run(global, args),
            Command::Team(args) => team::run(global, args),
            Command::Capture(args) => capture::run(global, args),
            Command::Worker(args) => worker::run(global, args),
            Command::SandboxExec(args) => Ok(sandbox_exec::run(args)),
        }
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
        ("__capture", "detached by the Stop hook; it notes what happened in the worker log only"),
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
