//! `autodream install gemini`: Gemini CLI's hooks, or its MCP server.

use clap::Args;

use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct GeminiArgs {}

/// `remove`: uninstall instead.
pub fn run(_global: &GlobalArgs, _args: GeminiArgs, _remove: bool) -> anyhow::Result<u8> {
    anyhow::bail!("this command is being built")
}
