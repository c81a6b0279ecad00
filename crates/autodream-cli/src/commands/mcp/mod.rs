//! `autodream mcp`: the MCP server on stdio (memory tools and resources for any agent).
//!
//! The protocol is `rmcp`'s; this command only resolves the global options once (a bad
//! `--set` or an unreadable config is refused before the server starts), then serves
//! [`server::MemoryServer`] on standard input and output until the client closes them.
//! Nothing but protocol messages is ever written to standard output: a dream the server
//! starts writes to the worker log.

mod dream;
mod server;

use anyhow::Context as _;
use clap::Args;
use rmcp::ServiceExt;

use crate::context;
use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct McpArgs {}

pub fn run(global: &GlobalArgs, _args: McpArgs) -> anyhow::Result<u8> {
    // Checked once up front: a mistake in the options is a usage error, not a server that
    // fails every call.
    let ctx = context::build(global)?;
    context::print_warnings(&ctx);
    let exe = std::env::current_exe().context("cannot find the autodream binary to start dreams with")?;
    let server = server::MemoryServer::new(global.clone(), ctx, exe);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the MCP server's runtime")?;
    runtime.block_on(async move {
        let service =
            server.serve(rmcp::transport::stdio()).await.context("the MCP client did not connect")?;
        service.waiting().await.context("the MCP session ended with an error")?;
        anyhow::Ok(())
    })?;
    Ok(0)
}
