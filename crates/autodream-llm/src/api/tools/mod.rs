//! The tools the API engine's model may call, implemented in Rust behind the [`Sandbox`]: Read,
//! Grep, Glob, List, Edit, Write, and a read-only Bash that never runs a shell.
//!
//! Every call returns a [`ToolOutcome`]: text for the model, whether it is an error, whether
//! the sandbox refused it (counted as a denial), which memory file it wrote, and how many
//! secrets were redacted from its output. Bad arguments are answered as error results so the
//! model can correct itself; nothing a tool does can fail the dream.

pub mod bash;
mod edit;
mod glob;
mod grep;
mod list;
mod read;
mod walk;
mod write;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use autodream_core::sessions::SessionFormat;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::providers::ToolSpec;
use crate::sandbox::{AccessError, Denial, RootKind, Sandbox};
pub(crate) use crate::shared::cap_chars;
use crate::shared::redact_text;

pub use bash::BashSettings;

/// The most text one tool result may carry (characters); longer output is cut with a note.
pub const MAX_RESULT_CHARS: usize = 30_000;

/// What a tool call produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutcome {
    /// The text returned to the model.
    pub content: String,
    pub is_error: bool,
    /// The sandbox's refusal, when the call was refused.
    pub denied: Option<String>,
    /// The memory file written (relative to the memory dir), for Edit and Write.
    pub wrote: Option<PathBuf>,
    /// Secrets replaced in the output.
    pub redactions: usize,
}

impl ToolOutcome {
    pub fn ok(content: impl Into<String>) -> ToolOutcome {
        ToolOutcome { content: content.into(), ..ToolOutcome::default() }
    }

    pub fn error(content: impl Into<String>) -> ToolOutcome {
        ToolOutcome { content: content.into(), is_error: true, ..ToolOutcome::default() }
    }

    pub fn denied(denial: Denial) -> ToolOutcome {
        ToolOutcome {
            content: format!("Refused: {denial}"),
            is_error: true,
            denied: Some(denial.0),
            ..ToolOutcome::default()
        }
    }

    fn from_access(error: AccessError) -> ToolOutcome {
        match error {
            AccessError::Denied(d) => ToolOutcome::denied(d),
            AccessError::Failed(message) => ToolOutcome::error(message),
        }
    }
}

/// Everything the tools need for one dream.
pub struct ToolBox {
    pub sandbox: Sandbox,
    pub bash: BashSettings,
    /// How transcripts are parsed when Read renders them.
    pub sessions_format: SessionFormat,
    /// Set when the dream is cancelled: long walks stop early.
    pub cancel: Arc<AtomicBool>,
    /// Longest time a Grep or Glob walk may take.
    pub walk_time_limit: Duration,
}

impl ToolBox {
    pub fn new(sandbox: Sandbox, bash: BashSettings) -> ToolBox {
        ToolBox {
            sandbox,
            bash,
            sessions_format: SessionFormat::Auto,
            cancel: Arc::new(AtomicBool::new(false)),
            walk_time_limit: Duration::from_secs(15),
        }
    }

    /// The tool declarations sent to the model.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let memory = self.sandbox.memory_root().display.display().to_string();
        vec![
            ToolSpec {
                name: "Read",
                description: format!(
                    "Read a text file with line numbers. Relative paths start at the memory dir ({memory}). \
                     Use offset and limit for long files. Session transcripts (*.jsonl in the sessions dir) \
                     are shown as their conversation turns, each tagged with its source line; pass raw=true \
                     for the JSON lines."
                ),
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "file_path": {"type": "string", "description": "Absolute path, or relative to the memory dir"},
                        "offset": {"type": "integer", "minimum": 1, "description": "First line to show (1-based)"},
                        "limit": {"type": "integer", "minimum": 1, "description": "How many lines to show (default 2000)"},
                        "raw": {"type": "boolean", "description": "Show transcript JSON lines as they are"}
                    },
                    "required": ["file_path"]
                }),
            },
            ToolSpec {
                name: "Grep",
                description: "Search file contents with a regular expression (Rust regex syntax). Searches the \
                              memory dir unless `path` names another file or folder. Output is capped: keep \
                              patterns narrow and use `glob` (e.g. \"*.jsonl\") to pick files."
                    .into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "pattern": {"type": "string"},
                        "path": {"type": "string", "description": "File or folder to search (default: the memory dir)"},
                        "glob": {"type": "string", "description": "Only files whose name or relative path matches, e.g. *.jsonl"},
                        "case_insensitive": {"type": "boolean"},
                        "context": {"type": "integer", "minimum": 0, "maximum": 5, "description": "Lines of context around each match"},
                        "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"]},
                        "head_limit": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Most matching lines (or files) to show (default 50)"}
                    },
                    "required": ["pattern"]
                }),
            },
            ToolSpec {
                name: "Glob",
                description: "Find files by glob pattern (`*` stays within a folder, `**` crosses folders), \
                              newest first. Searches the memory dir unless `path` names another folder."
                    .into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "pattern": {"type": "string", "description": "e.g. *.md or **/*.jsonl"},
                        "path": {"type": "string", "description": "Folder to search (default: the memory dir)"}
                    },
                    "required": ["pattern"]
                }),
            },
            ToolSpec {
                name: "List",
                description: "List a folder: names (folders end in /), sizes and modification dates. Lists the \
                              memory dir when no path is given."
                    .into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                }),
            },
            ToolSpec {
                name: "Edit",
                description: "Replace one exact, unique occurrence of old_string with new_string in a memory \
                              file. Include enough surrounding text to make old_string unique. Read the file first."
                    .into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "file_path": {"type": "string"},
                        "old_string": {"type": "string"},
                        "new_string": {"type": "string"}
                    },
                    "required": ["file_path", "old_string", "new_string"]
                }),
            },
            ToolSpec {
                name: "Write",
                description: format!(
                    "Create or replace a Markdown file in the memory dir ({memory}) with the given content. \
                     The folder exists; there is no need to create it."
                ),
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "file_path": {"type": "string"},
                        "content": {"type": "string"}
                    },
                    "required": ["file_path", "content"]
                }),
            },
            ToolSpec {
                name: "Bash",
                description: format!(
                    "Run one read-only command: {}. It is not a shell: no pipes, redirections, `;`, `&&`, \
                     variables, substitutions or unquoted globs; quote patterns. Paths are checked like the other \
                     tools' paths. Prefer Grep, Glob and Read.",
                    bash::ALLOWED_PROGRAMS.join(", ")
                ),
                input_schema: json!({
                    "type": "object",
                    "properties": {"command": {"type": "string"}},
                    "required": ["command"]
                }),
            },
        ]
    }

    /// Runs one tool call. Never fails: problems become error results.
    pub async fn run(&self, name: &str, input: &Value) -> ToolOutcome {
        if let Value::String(raw) = input {
            return ToolOutcome::error(format!(
                "the arguments for {name} are not valid JSON ({}); send a JSON object that matches the \
                 tool's schema",
                super::providers::excerpt(raw)
            ));
        }
        match name {
            "Read" => read::run(self, input),
            "Grep" => grep::run(self, input),
            "Glob" => glob::run(self, input),
            "List" => list::run(self, input),
            "Edit" => edit::run(self, input),
            "Write" => write::run(self, input),
            "Bash" => bash::run(self, input).await,
            other => ToolOutcome::error(format!(
                "there is no tool named {other:?}; the tools are Read, Grep, Glob, List, Edit, Write and Bash"
            )),
        }
    }

    /// The memory-dir-relative path of a resolved memory file, for progress reports.
    pub(crate) fn memory_relative(&self, resolved: &crate::sandbox::Resolved) -> Option<PathBuf> {
        (resolved.kind == RootKind::Memory).then(|| resolved.rel.clone())
    }

    /// Maps backing paths to the model's paths and redacts secrets.
    pub(crate) fn present(&self, text: &str) -> (String, usize) {
        redact_text(&self.sandbox.display_text(text))
    }
}

/// Parses a tool's arguments, or explains what is wrong with them.
pub(crate) fn parse_input<T: DeserializeOwned>(
    tool: &str,
    input: &Value,
    usage: &str,
) -> Result<T, ToolOutcome> {
    serde_json::from_value(input.clone())
        .map_err(|e| ToolOutcome::error(format!("bad arguments for {tool}: {e}. Expected {usage}")))
}

/// Cuts `text` to [`MAX_RESULT_CHARS`], saying how much was left out.
pub(crate) fn cap_output(text: String, hint: &str) -> String {
    cap_chars(text, MAX_RESULT_CHARS, hint)
}

/// A one-line excerpt of `line` around byte range `hit`, at most about `width` characters.
pub(crate) fn excerpt_around(line: &str, hit: Option<(usize, usize)>, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    let (start, end) = hit.unwrap_or((0, 0));
    let half = width / 2;
    let mut from = start.saturating_sub(half);
    while !line.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (end + half).min(line.len()).max(from);
    while !line.is_char_boundary(to) {
        to += 1;
    }
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(&line[from..to]);
    if to < line.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxRoots;
    use std::os::unix::fs::symlink;

    #[test]
    fn write_and_edit_refuse_the_links_a_staging_copy_keeps() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let (memory, outside) = (base.join("sessions/memory"), base.join("outside"));
        std::fs::create_dir_all(&memory).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("target.md"), "outside\n").unwrap();
        std::fs::write(memory.join("MEMORY.md"), "- [A](a.md) — a\n").unwrap();
        std::fs::write(memory.join("a.md"), "- a\n").unwrap();
        symlink(&outside, memory.join("linkdir")).unwrap();
        symlink(&outside, memory.join("linkdir.md")).unwrap();
        symlink(outside.join("target.md"), memory.join("link.md")).unwrap();
        symlink(outside.join("missing.md"), memory.join("dangling.md")).unwrap();
        // The staging copy exactly as the lifecycle makes it.
        let loc = autodream_core::paths::Locations {
            memory_dir: memory.clone(),
            state_dir: memory.clone().with_file_name("state"),
            sessions_dir: base.join("sessions"),
            project_dir: base.clone(),
        };
        let staging = autodream_core::dream::transaction::prepare(&loc, "t1").unwrap();
        let sandbox = Sandbox::new(SandboxRoots {
            memory_dir: &memory,
            staging: &staging.work,
            sessions_dir: &loc.sessions_dir,
            project_dir: None,
        })
        .unwrap();
        let tools = ToolBox::new(sandbox, BashSettings::default());
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let m = memory.display().to_string();
        let attempts = [
            ("Write", serde_json::json!({"file_path": "linkdir/x.md", "content": "escaped"})),
            ("Write", serde_json::json!({"file_path": format!("{m}/linkdir/x.md"), "content": "escaped"})),
            ("Write", serde_json::json!({"file_path": "linkdir/target.md", "content": "escaped"})),
            ("Write", serde_json::json!({"file_path": "linkdir.md", "content": "escaped"})),
            ("Write", serde_json::json!({"file_path": "link.md", "content": "escaped"})),
            ("Write", serde_json::json!({"file_path": "dangling.md", "content": "escaped"})),
            (
                "Edit",
                serde_json::json!({"file_path": "link.md", "old_string": "outside", "new_string": "escaped"}),
            ),
            (
                "Edit",
                serde_json::json!({"file_path": "linkdir/target.md", "old_string": "outside", "new_string": "x"}),
            ),
        ];
        for (name, input) in attempts {
            let outcome = rt.block_on(tools.run(name, &input));
            assert!(outcome.is_error && outcome.denied.is_some(), "{name} {input}: {outcome:?}");
            assert!(outcome.content.contains("symbolic link"), "{name} {input}: {outcome:?}");
            assert_eq!(outcome.wrote, None);
        }
        // Nothing outside changed, the links are still links, and the dream has nothing to apply.
        let mut outside_names: Vec<_> =
            std::fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
        outside_names.sort();
        assert_eq!(outside_names, ["target.md"]);
        assert_eq!(std::fs::read_to_string(outside.join("target.md")).unwrap(), "outside\n");
        for link in ["linkdir", "linkdir.md", "link.md", "dangling.md"] {
            assert!(
                std::fs::symlink_metadata(staging.work.join(link)).unwrap().file_type().is_symlink(),
                "{link}"
            );
        }
        assert!(autodream_core::dream::transaction::plan(&staging).is_empty());
        // An ordinary write still works.
        let ok = rt.block_on(
            tools.run("Write", &serde_json::json!({"file_path": "notes/b.md", "content": "- b\n"})),
        );
        assert!(!ok.is_error, "{ok:?}");
        assert_eq!(std::fs::read_to_string(staging.work.join("notes/b.md")).unwrap(), "- b\n");
    }

    #[test]
    fn tool_definitions_are_complete_and_lean() {
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["memory", "staging", "sessions"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
        }
        let sandbox = Sandbox::new(SandboxRoots {
            memory_dir: &tmp.path().join("memory"),
            staging: &tmp.path().join("staging"),
            sessions_dir: &tmp.path().join("sessions"),
            project_dir: None,
        })
        .unwrap();
        let tools = ToolBox::new(sandbox, BashSettings::default());
        let specs = tools.specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
        assert_eq!(names, ["Read", "Grep", "Glob", "List", "Edit", "Write", "Bash"]);
        for spec in &specs {
            assert_eq!(spec.input_schema["type"], "object", "{}", spec.name);
            for required in spec.input_schema["required"].as_array().into_iter().flatten() {
                let key = required.as_str().unwrap();
                assert!(spec.input_schema["properties"].get(key).is_some(), "{}: {key}", spec.name);
            }
        }
        let json: String =
            specs.iter().map(|s| format!("{}{}{}", s.name, s.description, s.input_schema)).collect();
        let tokens = crate::prompt::approx_tokens(&json);
        println!("tool definitions: about {tokens} tokens");
        assert!(tokens < 1_500, "tool definitions are about {tokens} tokens");
    }
}
