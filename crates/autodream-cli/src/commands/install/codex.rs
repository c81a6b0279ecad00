//! `autodream install codex`: Codex CLI's `notify` program.

use clap::Args;

use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct CodexArgs {}

/// `remove`: uninstall instead.
pub fn run(_global: &GlobalArgs, _args: CodexArgs, _remove: bool) -> anyhow::Result<u8> {
    anyhow::bail!("this command is being built")
}
