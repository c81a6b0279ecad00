//! `autodream install claude-code`: register autodream in Claude Code's settings.

use clap::Args;

use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct ClaudeCodeArgs {}

/// `remove`: uninstall instead.
pub fn run(_global: &GlobalArgs, _args: ClaudeCodeArgs, _remove: bool) -> anyhow::Result<u8> {
    anyhow::bail!("this command is being built")
}
