//! Edit: replace one exact, unique occurrence of a string in a memory file.

use serde::Deserialize;

use super::{ToolBox, ToolOutcome, parse_input};
use crate::sandbox::Access;

/// Largest memory file Edit works on.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

#[derive(Deserialize)]
struct Input {
    file_path: String,
    old_string: String,
    new_string: String,
}

pub(super) fn run(tools: &ToolBox, input: &serde_json::Value) -> ToolOutcome {
    let input: Input = match parse_input(
        "Edit",
        input,
        "{\"file_path\": string, \"old_string\": string, \"new_string\": string}",
    ) {
        Ok(i) => i,
        Err(outcome) => return outcome,
    };
    let resolved = match tools.sandbox.resolve(&input.file_path, Access::Write) {
        Ok(r) => r,
        Err(e) => return ToolOutcome::from_access(e),
    };
    if !resolved.exists {
        return ToolOutcome::error(format!(
            "{}: no such file; use Write to create it",
            resolved.display.display()
        ));
    }
    if input.old_string.is_empty() {
        return ToolOutcome::error("old_string is empty; give the exact text to replace");
    }
    if input.old_string == input.new_string {
        return ToolOutcome::error("old_string and new_string are the same; nothing to change");
    }
    let text = match tools.sandbox.read_to_string(&resolved, MAX_FILE_BYTES) {
        Ok(t) => t,
        Err(e) => return ToolOutcome::from_access(e),
    };
    let count = text.matches(&input.old_string).count();
    if count == 0 {
        return ToolOutcome::error(format!(
            "old_string was not found in {}; Read the file and copy the text exactly (whitespace included)",
            resolved.display.display()
        ));
    }
    if count > 1 {
        return ToolOutcome::error(format!(
            "old_string occurs {count} times in {}; include more surrounding text so it is unique",
            resolved.display.display()
        ));
    }
    let updated = text.replacen(&input.old_string, &input.new_string, 1);
    if let Err(e) = tools.sandbox.write_file(&resolved, updated.as_bytes()) {
        return ToolOutcome::from_access(e);
    }
    ToolOutcome {
        content: format!("Edited {}: replaced 1 occurrence.", resolved.display.display()),
        wrote: tools.memory_relative(&resolved),
        ..ToolOutcome::default()
    }
}
