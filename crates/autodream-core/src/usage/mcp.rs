//! The MCP server's share of usage: every `memory_read`, memory resource read and
//! `memory_search` appends one JSON line per file it returned to `usage-mcp.jsonl` in the
//! state folder, in one `write` (`O_APPEND`, so concurrent servers never interleave a line).
//! The hook never writes it.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::memdir::MemoryRoot;
use crate::paths::Locations;
use crate::paths::state::USAGE_LOG_FILE;

/// Which MCP call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpTool {
    /// `memory_read`, or a `memory://` resource read: the file was read whole.
    MemoryRead,
    /// `memory_search`: the file held a hit, at `line`.
    MemorySearch,
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpCall {
    pub at: Timestamp,
    pub tool: McpTool,
    /// Relative to the memory folder.
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<usize>>,
}

/// Appends the calls, one line each, in one write. Errors are the caller's to ignore: a
/// read must never fail because its count could not be kept.
pub fn record(loc: &Locations, calls: &[McpCall]) -> std::io::Result<()> {
    if calls.is_empty() {
        return Ok(());
    }
    let mut text = String::new();
    for c in calls {
        text.push_str(&serde_json::to_string(c).map_err(std::io::Error::other)?);
        text.push('\n');
    }
    let root = MemoryRoot::create(&loc.state_dir).map_err(std::io::Error::other)?;
    root.append(USAGE_LOG_FILE, text.as_bytes()).map_err(std::io::Error::other)
}

/// The search hits of one `memory_search` as calls: one per file, with its lines.
pub fn search_calls(at: Timestamp, hits: &[(String, usize)]) -> Vec<McpCall> {
    let mut calls: Vec<McpCall> = Vec::new();
    for (file, line) in hits {
        match calls.iter_mut().find(|c| &c.file == file) {
            Some(c) => c.lines.get_or_insert_with(Vec::new).push(*line),
            None => calls.push(McpCall {
                at,
                tool: McpTool::MemorySearch,
                file: file.clone(),
                lines: Some(vec![*line]),
            }),
        }
    }
    calls
}

/// Every call logged so far; lines that do not parse (a torn tail) are left out.
pub fn read_log(loc: &Locations) -> Vec<McpCall> {
    let Ok(text) = std::fs::read_to_string(loc.state_dir.join(USAGE_LOG_FILE)) else { return Vec::new() };
    text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}
