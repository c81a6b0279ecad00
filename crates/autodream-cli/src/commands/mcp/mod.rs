//! `autodream mcp`: the MCP server on stdio (memory tools and resources for any agent).
//!
//! The protocol is `rmcp`'s; this command only resolves the global options once (a bad
//! `--set` or an unreadable config is refused before the server starts), then serves
//! [`server::MemoryServer`] on standard input and output until the client closes either:
//! input at its end, or output by no longer reading it (then the server stops at the first
//! answer it cannot deliver, and exits 0 like any command whose reader went away).
//! Nothing but protocol messages is ever written to standard output: a dream the server
//! starts writes to the worker log.

mod dream;
mod limits;
mod server;

use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use clap::Args;
use rmcp::ServiceExt;
use rmcp::service::RunningServiceCancellationToken;

use crate::global::GlobalArgs;
use crate::{context, output};

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
    let served = runtime.block_on(serve(server));
    // Standard input is read by a blocking thread that nothing interrupts: once the session
    // is over, do not wait for a line that may never come.
    runtime.shutdown_background();
    served?;
    Ok(0)
}

/// Serves until the client closes standard input or stops reading standard output; either
/// ends the session cleanly (exit 0).
async fn serve(server: server::MemoryServer) -> anyhow::Result<()> {
    // Filled once the handshake is done: until then a failed write fails the handshake.
    let stop: Arc<Mutex<Option<RunningServiceCancellationToken>>> = Arc::default();
    let on_closed = {
        let stop = stop.clone();
        move || {
            if let Some(token) = stop.lock().unwrap_or_else(|e| e.into_inner()).take() {
                token.cancel();
            }
        }
    };
    let transport = (tokio::io::stdin(), output::AsyncStdout::new(on_closed));
    let service = match server.serve(transport).await {
        Ok(service) => service,
        // The client left before reading the handshake's answer (rmcp's error does not keep
        // the broken pipe as its source, so `main` could not see it): nothing to serve.
        Err(_) if output::closed() => return Ok(()),
        Err(e) => return Err(e).context("the MCP client did not connect"),
    };
    *stop.lock().unwrap_or_else(|e| e.into_inner()) = Some(service.cancellation_token());
    if output::closed() {
        // The reader left between the handshake's answer and the line above.
        service.cancellation_token().cancel();
    }
    service.waiting().await.context("the MCP session ended with an error")?;
    Ok(())
}
