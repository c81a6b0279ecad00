//! What a session's sub-agents wrote into files.
//!
//! The agent hands work to sub-agents, and a request of the user's is often carried out
//! there: asked to "reference this in memory", the main agent starts an executor, and the
//! executor edits the memory file ("The executor already updated MEMORY.md"). The session's
//! own transcript then holds the request but not the write. Sub-agents are recorded two
//! ways, and both are read:
//!
//! - clients of 2.1.3x–2.1.4x write each message of a sub-agent into the session's
//!   transcript as a `progress` entry (`data.type` `agent_progress`);
//! - later clients write a transcript per sub-agent, `<session>/subagents/agent-<id>.jsonl`
//!   (workflows one folder deeper), in the session's own format.
//!
//! Only the file writes are taken (`Edit`, `Write`, `MultiEdit` calls), as tool turns of the
//! session at the moment they were made: the rest of a sub-agent's traffic is its own
//! business, and reading it would make a session as long as all its sub-agents together.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::line::{LineTurns, compact_json, entry_time, tool_call_text};
use super::{Role, Turn, TurnKind, claude};

/// The tools that write files.
const WRITE_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit"];

/// How deep below `subagents/` transcripts are kept (workflows use one folder more).
const MAX_DEPTH: usize = 2;

/// The file writes of a sub-agent recorded as a `progress` entry: `data` (`type`
/// `agent_progress`) holds one message of the sub-agent. `raw` is the entry's line: the reader
/// skips `data` for speed, so the line is read again, and only when it can hold such a call,
/// which few of the thousands of progress lines do.
pub(crate) fn progress_writes(raw: &str, session: &str, line: usize, out: &mut Vec<Turn>) {
    if !raw.contains("agent_progress") || !raw.contains("tool_use") {
        return;
    }
    let Ok(Value::Object(entry)) = serde_json::from_str::<Value>(raw) else { return };
    let Some(data) = entry.get("data").and_then(Value::as_object) else { return };
    if data.get("type").and_then(Value::as_str) != Some("agent_progress") {
        return;
    }
    let Some(message) = data.get("message").and_then(Value::as_object) else { return };
    if message.get("type").and_then(Value::as_str) != Some("assistant") {
        return;
    }
    let Some(Value::Array(blocks)) = message.get("message").and_then(|m| m.get("content")) else { return };
    let time = message.get("timestamp").and_then(Value::as_str).and_then(|s| s.parse().ok());
    let mut sink = LineTurns::new(out, session, line, time.or_else(|| entry_time(&entry)));
    for block in blocks {
        let name = block.get("name").and_then(Value::as_str).unwrap_or_default();
        if block.get("type").and_then(Value::as_str) == Some("tool_use") && WRITE_TOOLS.contains(&name) {
            let input = block.get("input").map(compact_json).unwrap_or_default();
            sink.tool(Role::Assistant, tool_call_text(name, &input));
        }
    }
}

/// Adds to `turns` (the session `session_path` holds) the file writes of the sub-agents
/// transcribed beside it, each after the last turn of the session at or before its time and
/// with that turn's line (the place in the session where it happened). A write the session
/// holds already (recorded both ways) is not added again. A sub-agent file that cannot be
/// read is left out: the session is read all the same.
pub(crate) fn add_file_writes(session_path: &Path, turns: &mut Vec<Turn>) {
    let Some(id) = session_path.file_stem() else { return };
    let folder = session_path.with_file_name(id).join("subagents");
    if !folder.is_dir() {
        return;
    }
    let session =
        turns.first().map(|t| t.session.clone()).unwrap_or_else(|| id.to_string_lossy().into_owned());
    let mut writes = Vec::new();
    for path in transcripts_under(&folder, 0) {
        let Ok(bytes) = std::fs::read(&path) else { continue };
        writes.extend(file_writes(&super::text_of(bytes), &session));
    }
    writes.sort_by_key(|t| t.time);
    for write in writes {
        if turns.iter().any(|t| t.time == write.time && t.text == write.text) {
            continue;
        }
        let at = match write.time {
            Some(time) => turns.iter().rposition(|t| t.time.is_some_and(|t| t <= time)).map_or(0, |i| i + 1),
            None => turns.len(),
        };
        let line = at.checked_sub(1).map_or(1, |before| turns[before].line);
        turns.insert(at, Turn { line, ..write });
    }
}

/// The `agent-*.jsonl` files under `folder`, in name order.
fn transcripts_under(folder: &Path, depth: usize) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() && depth + 1 < MAX_DEPTH {
            files.extend(transcripts_under(&path, depth + 1));
        } else if name.starts_with("agent-") && name.ends_with(".jsonl") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The file writes in a sub-agent's transcript, as tool turns of `session`.
fn file_writes(text: &str, session: &str) -> Vec<Turn> {
    let mut state = claude::State::default();
    let mut turns = Vec::new();
    for (i, line) in text.lines().enumerate() {
        // Most lines are no write; only those that can be are parsed.
        if !line.contains("tool_use") || !WRITE_TOOLS.iter().any(|tool| line.contains(tool)) {
            continue;
        }
        let Ok(entry) = serde_json::from_str::<claude::Entry>(line) else { continue };
        claude::parse_line(&entry.0, session, i + 1, &mut state, &mut turns);
    }
    turns.retain(|t| {
        t.kind == TurnKind::ToolNoise
            && t.role == Role::Assistant
            && WRITE_TOOLS
                .iter()
                .any(|tool| t.text.strip_prefix(tool).is_some_and(|rest| rest.starts_with(": ")))
    });
    turns
}
