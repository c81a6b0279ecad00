//! `autodream mcp`: the MCP server on stdio (memory tools and resources for any agent).

use clap::Args;

use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct McpArgs {}

pub fn run(_global: &GlobalArgs, _args: McpArgs) -> anyhow::Result<u8> {
    anyhow::bail!("this command is being built")
}
