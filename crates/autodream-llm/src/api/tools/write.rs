//! Write: create or replace a Markdown file in the memory dir (atomically, in staging).

use serde::Deserialize;

use super::{ToolBox, ToolOutcome, parse_input};
use crate::sandbox::Access;

/// Largest memory file Write accepts; memory files are meant to be short.
const MAX_CONTENT_BYTES: usize = 256 * 1024;

#[derive(Deserialize)]
struct Input {
    file_path: String,
    content: String,
}

pub(super) fn run(tools: &ToolBox, input: &serde_json::Value) -> ToolOutcome {
    let input: Input = match parse_input("Write", input, "{\"file_path\": string, \"content\": string}") {
        Ok(i) => i,
        Err(outcome) => return outcome,
    };
    let resolved = match tools.sandbox.resolve(&input.file_path, Access::Write) {
        Ok(r) => r,
        Err(e) => return ToolOutcome::from_access(e),
    };
    if input.content.len() > MAX_CONTENT_BYTES {
        return ToolOutcome::error(format!(
            "the content is {} bytes; memory files are limited to {MAX_CONTENT_BYTES} bytes: split it into topics",
            input.content.len()
        ));
    }
    if let Err(e) = tools.sandbox.write_file(&resolved, input.content.as_bytes()) {
        return ToolOutcome::from_access(e);
    }
    let verb = if resolved.exists { "Replaced" } else { "Created" };
    ToolOutcome {
        content: format!("{verb} {} ({} bytes).", resolved.display.display(), input.content.len()),
        wrote: tools.memory_relative(&resolved),
        ..ToolOutcome::default()
    }
}
