//! The MCP tools and resources: protocol glue over the library.
//!
//! | tool | does |
//! |---|---|
//! | `memory_search` {query, limit?} | ranked matching lines ([`search::search`]) |
//! | `memory_read` {path} | one memory file ([`search::read_memory_file`]) |
//! | `memory_log` {text} | a note appended to today's daily log ([`daily_log::append`]) |
//! | `dream_status` {} | the gates and the last dream |
//! | `dream_run` {} | a dream started in the background ([`super::dream::start`]) |
//!
//! Resources: MEMORY.md and every topic file, as `memory://<path>`.
//!
//! Every `memory_read`, resource read and `memory_search` is counted for usage (the files and
//! lines it returned, appended to `usage-mcp.jsonl` in the state folder: `autodream_core::usage`).
//!
//! A bad argument (an empty query, a path that leaves the memory folder, a missing file, a
//! folder, a NUL byte, a note over 4 KB: [`super::limits`]) is an MCP "invalid params" error;
//! a failure of the machine (a folder that cannot be read) an "internal" one. Nothing here
//! panics on input, and the server keeps answering.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};

use autodream_core::gates::{self, GateInput};
use autodream_core::lock::ConsolidationLock;
use autodream_core::memdir::search::{self, ReadError, SearchError, SearchOptions};
use autodream_core::memdir::{MemoryRoot, daily_log};
use autodream_core::usage;

use super::dream::{self, Started};
use super::limits::{self, MAX_LOG_ENTRY_BYTES, invalid};

// `memory_log`'s description and its argument's schema state the limit in words.
const _: () = assert!(MAX_LOG_ENTRY_BYTES == 4096, "update memory_log's description");
use crate::context::{self, Ctx};
use crate::exit;
use crate::global::GlobalArgs;

/// The scheme of the memory files as resources: `memory://MEMORY.md`.
pub const URI_PREFIX: &str = "memory://";
/// The most hits `memory_search` returns, whatever `limit` asks for.
pub const MAX_LIMIT: u32 = 100;
const DEFAULT_LIMIT: u32 = 10;

const INSTRUCTIONS: &str = "autodream keeps this project's long-term memory: MEMORY.md (the index) and \
topic files, tidied by background dreams. Use memory_search to find what was decided or learnt before \
(ranked lines with file and line), memory_read to read a whole memory file, and memory_log to note \
something worth remembering (a dream later consolidates it into the memory files). dream_status shows \
when the next dream may run; dream_run starts one now.";

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SearchParams {
    /// Words to look for; case is ignored, and lines with more of the words as whole words rank first
    pub query: String,
    /// At most this many lines (default 10, at most 100)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReadParams {
    /// A memory file relative to the memory folder: MEMORY.md, a topic file, or a daily log
    pub path: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct LogParams {
    /// The note, one line of at most 4096 bytes (4 KB) of UTF-8 (newlines fold to spaces; secrets are redacted)
    pub text: String,
}

/// What every call needs.
struct Shared {
    global: GlobalArgs,
    /// The options as resolved when the server started (the memory folder never moves).
    ctx: Ctx,
    /// The `autodream` binary, for `dream_run`.
    exe: PathBuf,
}

#[derive(Clone)]
pub struct MemoryServer {
    shared: Arc<Shared>,
    tool_router: ToolRouter<Self>,
}

fn internal(message: impl Into<String>) -> ErrorData {
    ErrorData::internal_error(message.into(), None)
}

fn json_result(value: &Value) -> Result<CallToolResult, ErrorData> {
    let text = serde_json::to_string_pretty(value).map_err(|e| internal(e.to_string()))?;
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
}

/// One memory file's text, the path checked first ([`limits::check_path`]).
fn read_file(memory_dir: &std::path::Path, path: &str) -> Result<search::MemoryFile, ErrorData> {
    limits::check_path(path)?;
    search::read_memory_file(memory_dir, path).map_err(|e| limits::read_error(memory_dir, e))
}

#[tool_router]
impl MemoryServer {
    pub fn new(global: GlobalArgs, ctx: Ctx, exe: PathBuf) -> MemoryServer {
        MemoryServer { shared: Arc::new(Shared { global, ctx, exe }), tool_router: Self::tool_router() }
    }

    fn memory_dir(&self) -> &std::path::Path {
        &self.shared.ctx.locations.memory_dir
    }

    /// Counts what a call returned (`usage-mcp.jsonl` in the state folder). A count that
    /// cannot be kept never fails the call.
    fn count_use(&self, calls: &[usage::McpCall]) {
        let _ = usage::mcp::record(&self.shared.ctx.locations, calls);
    }

    fn count_read(&self, file: &str) {
        let at = self.shared.ctx.clock.now();
        self.count_use(&[usage::McpCall {
            at,
            tool: usage::McpTool::MemoryRead,
            file: file.into(),
            lines: None,
        }]);
    }

    /// The options resolved again: the configuration may have changed since the start.
    fn fresh_ctx(&self) -> Result<Ctx, ErrorData> {
        context::build(&self.shared.global).map_err(|e| internal(exit::render(&e)))
    }

    #[tool(description = "Search the long-term memory (MEMORY.md, topic files, daily logs) for lines \
        matching the query words. Returns the best lines first, each with its file (relative to the \
        memory folder), line number and score.")]
    async fn memory_search(
        &self,
        Parameters(p): Parameters<SearchParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let limit = p.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 {
            return Err(invalid("limit must be at least 1"));
        }
        let opts = SearchOptions { limit: limit.min(MAX_LIMIT) as usize, include_logs: true };
        let hits = search::search(self.memory_dir(), &p.query, opts).map_err(|e| match e {
            SearchError::EmptyQuery => invalid(format!("query {:?}: {e}", p.query)),
            SearchError::Path(e) => internal(e.to_string()),
        })?;
        let found: Vec<(String, usize)> = hits.iter().map(|h| (h.file.clone(), h.line)).collect();
        self.count_use(&usage::mcp::search_calls(self.shared.ctx.clock.now(), &found));
        json_result(&json!({ "query": p.query, "hits": hits }))
    }

    #[tool(description = "Read one memory file: MEMORY.md, a topic file, or a daily log, by its path \
        relative to the memory folder. Paths that leave the memory folder, symbolic links, folders \
        and files that are not Markdown are refused.")]
    async fn memory_read(&self, Parameters(p): Parameters<ReadParams>) -> Result<CallToolResult, ErrorData> {
        let file = read_file(self.memory_dir(), &p.path)?;
        self.count_read(&file.file);
        Ok(CallToolResult::success(vec![ContentBlock::text(file.text)]))
    }

    #[tool(description = "Note something worth remembering (a decision, a preference, a fact about the \
        project): appends one entry to today's daily log in the memory folder. The next dream \
        consolidates it into the memory files. A note holds at most 4096 bytes (4 KB) of UTF-8; a \
        longer one is refused. Returns the log file and the entry as written.")]
    async fn memory_log(&self, Parameters(p): Parameters<LogParams>) -> Result<CallToolResult, ErrorData> {
        limits::check_note(&p.text)?;
        let ctx = &self.shared.ctx;
        let now = ctx.clock.now_local();
        let path =
            daily_log::append(self.memory_dir(), &now, &p.text).map_err(|e| internal(e.to_string()))?;
        let rel = path.strip_prefix(self.memory_dir()).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        // The entry as `append` wrote it: redacted, folded, stamped.
        let text = daily_log::fold_line(&autodream_core::redact::redact(&p.text).text);
        let entry = format!("- [{:02}:{:02}] {text}", now.hour(), now.minute());
        let line = MemoryRoot::open(self.memory_dir())
            .ok()
            .and_then(|root| root.read(&rel).ok().flatten())
            .and_then(|bytes| {
                let body = String::from_utf8_lossy(&bytes).into_owned();
                body.lines().enumerate().filter(|(_, l)| *l == entry).map(|(i, _)| i + 1).last()
            });
        json_result(&json!({ "file": rel, "line": line, "entry": entry }))
    }

    #[tool(description = "The dream's gates (enabled, time since the last dream, scan throttle, new \
        sessions, lock), whether a dream would start now, whether one is running, and the last dream.")]
    async fn dream_status(&self) -> Result<CallToolResult, ErrorData> {
        let ctx = self.fresh_ctx()?;
        let loc = &ctx.locations;
        let eval = gates::explain(&GateInput {
            locations: loc,
            config: &ctx.config,
            clock: ctx.clock,
            current_session: ctx.current_session.as_deref(),
        });
        let lock = ConsolidationLock::new(&loc.memory_dir, ctx.clock, ctx.cfg().stale_lock()).state();
        let running = lock.is_held().then(|| lock.holder.as_ref().map(|h| h.pid)).flatten();
        let task = autodream_core::dream::task::load_effective(loc, ctx.clock, ctx.cfg());
        json_result(&json!({
            "memory_dir": loc.memory_dir,
            "enabled": eval.gates.first().is_some_and(|g| g.pass),
            "would_dream": eval.all_pass(),
            "failed_gate": eval.failed,
            "gates": eval.gates,
            "last_consolidated_at": eval.last_consolidated_at,
            "next_eligible_at": eval.next_eligible_at,
            "running_pid": running,
            "last_dream": task,
            "team": crate::commands::team::status_json(&ctx),
        }))
    }

    #[tool(description = "Start a dream now, in the background, whatever the gates say (the lock is \
        always respected). Returns the dream's task id; dream_status follows it. When a dream is \
        already running, says so with its PID.")]
    async fn dream_run(&self) -> Result<CallToolResult, ErrorData> {
        let ctx = self.fresh_ctx()?;
        let shared = self.shared.clone();
        let started = tokio::task::spawn_blocking(move || dream::start(&shared.exe, &ctx, &shared.global))
            .await
            .map_err(|e| internal(format!("the dream could not be started: {e}")))?
            .map_err(|e| internal(exit::render(&e)))?;
        match started {
            Started::Running { task_id, pid } => json_result(&json!({
                "started": true,
                "task_id": task_id,
                "pid": pid,
                "message": format!("dream {task_id} started (PID {pid}); dream_status shows its progress"),
            })),
            Started::Busy { pid, detail } => {
                let body = json!({ "started": false, "running_pid": pid, "message": detail });
                let text = serde_json::to_string_pretty(&body).map_err(|e| internal(e.to_string()))?;
                Ok(CallToolResult::error(vec![ContentBlock::text(text)]))
            }
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("autodream", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let files = search::memory_files(self.memory_dir()).map_err(|e| internal(e.to_string()))?;
        let resources = files
            .into_iter()
            .map(|f| {
                let mut r = Resource::new(format!("{URI_PREFIX}{}", f.file), f.file.clone())
                    .with_mime_type("text/markdown")
                    .with_size(f.size);
                if let Some(t) = f.title {
                    r = r.with_title(t);
                }
                if let Some(d) = f.description {
                    r = r.with_description(d);
                }
                r
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(path) = request.uri.strip_prefix(URI_PREFIX) else {
            return Err(invalid(format!(
                "{}: not a memory resource (they start with {URI_PREFIX})",
                request.uri
            )));
        };
        limits::check_path(path)?;
        let file = search::read_memory_file(self.memory_dir(), path).map_err(|e| match e {
            ReadError::NotFound { ref path } if !limits::is_folder(self.memory_dir(), path) => {
                ErrorData::resource_not_found(e.to_string(), None)
            }
            e => limits::read_error(self.memory_dir(), e),
        })?;
        self.count_read(&file.file);
        let contents = ResourceContents::text(file.text, request.uri.clone()).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}
