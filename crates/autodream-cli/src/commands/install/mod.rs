//! `autodream install` and `autodream uninstall`: register autodream with the agents people
//! use, and take exactly that back out. One file per target.

mod agents;
pub mod claude_code;
pub mod codex;
pub mod daemon;
pub mod gemini;

use clap::{Args, Subcommand};

use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct InstallArgs {
    #[command(subcommand)]
    pub target: Target,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    #[command(subcommand)]
    pub target: Target,
}

/// What to install into (or remove from).
#[derive(Debug, Subcommand)]
pub enum Target {
    /// Claude Code: the hook, `autoDreamEnabled: false`, the /dream command, optionally the MCP server
    ClaudeCode(claude_code::ClaudeCodeArgs),
    /// Codex CLI: the `notify` program in its config.toml
    Codex(codex::CodexArgs),
    /// Gemini CLI: its hooks where its settings have them, else the MCP server
    Gemini(gemini::GeminiArgs),
    /// A systemd user unit (Linux) or launchd agent (macOS) for `autodream daemon`
    Daemon(daemon::DaemonUnitArgs),
}

pub fn run_install(global: &GlobalArgs, args: InstallArgs) -> anyhow::Result<u8> {
    run(global, args.target, false)
}

pub fn run_uninstall(global: &GlobalArgs, args: UninstallArgs) -> anyhow::Result<u8> {
    run(global, args.target, true)
}

fn run(global: &GlobalArgs, target: Target, remove: bool) -> anyhow::Result<u8> {
    match target {
        Target::ClaudeCode(a) => claude_code::run(global, a, remove),
        Target::Codex(a) => codex::run(global, a, remove),
        Target::Gemini(a) => gemini::run(global, a, remove),
        Target::Daemon(a) => daemon::run(global, a, remove),
    }
}
