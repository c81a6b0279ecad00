//! Glob: find files by pattern (`*` within a folder, `**` across folders), newest first.

use std::time::SystemTime;

use globset::GlobBuilder;
use serde::Deserialize;

use super::walk::{walk_files, walk_note};
use super::{ToolBox, ToolOutcome, cap_output, parse_input};
use crate::sandbox::Access;

/// Most paths returned.
const MAX_RESULTS: usize = 200;

#[derive(Deserialize)]
struct Input {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
}

pub(super) fn run(tools: &ToolBox, input: &serde_json::Value) -> ToolOutcome {
    let input: Input = match parse_input("Glob", input, "{\"pattern\": string, \"path\"?: string}") {
        Ok(i) => i,
        Err(outcome) => return outcome,
    };
    let pattern = input.pattern.trim_start_matches("./");
    if pattern.starts_with('/') {
        return ToolOutcome::error(
            "the pattern is matched below `path`; give the folder as `path` and a relative pattern such as **/*.md",
        );
    }
    let glob = match GlobBuilder::new(pattern).literal_separator(true).build() {
        Ok(g) => g.compile_matcher(),
        Err(e) => return ToolOutcome::error(format!("invalid glob: {e}")),
    };
    let default_path = tools.sandbox.memory_root().display.to_string_lossy().into_owned();
    let base = match tools.sandbox.resolve(input.path.as_deref().unwrap_or(&default_path), Access::Read) {
        Ok(r) => r,
        Err(e) => return ToolOutcome::from_access(e),
    };
    let mut found: Vec<(SystemTime, String)> = Vec::new();
    let end = walk_files(tools, &base, |file, meta| {
        if let Ok(rel) = file.backing.strip_prefix(&base.backing)
            && glob.is_match(rel)
        {
            found.push((
                meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                file.display.display().to_string(),
            ));
        }
        // A walk of a huge tree is bounded by the time limit; results are cut below.
        found.len() < MAX_RESULTS * 20
    });
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let mut out: String = found.iter().take(MAX_RESULTS).map(|(_, p)| format!("{p}\n")).collect();
    if out.is_empty() {
        out = "No files matched.\n".into();
    }
    if total > MAX_RESULTS {
        out.push_str(&format!("[{} more not shown; narrow the pattern]\n", total - MAX_RESULTS));
    }
    if let Some(note) = walk_note(end) {
        out.push_str(note);
        out.push('\n');
    }
    ToolOutcome::ok(tools.sandbox.display_text(&cap_output(out, "narrow the pattern")))
}
