//! The dream prompt both engines send: a system prompt with the four phases, the memory
//! format and the rules (`prompt/system.md`), and a task message with today's date, the
//! sessions to review and the new daily-log entries (`prompt/task.md`).
//!
//! The one part that differs is the "Tools and limits" section: each engine brings its own
//! (`api/tools.md` for our tools, `claude/tools.md` for the client's), and it may use the
//! `{{project_tools}}` placeholder.
//!
//! The system prompt depends only on the folders and the index limits, so it stays the same
//! on every turn of a dream and is read from the provider's prompt cache after the first.
//! Daily-log text is passed through the redactor before it is put in the task message.

use std::path::Path;

use autodream_core::memdir::daily_log::LogEntry;
use autodream_core::sessions::ParsedSession;
use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::shared::redact_text;

const SYSTEM_TEMPLATE: &str = include_str!("prompt/system.md");
const TASK_TEMPLATE: &str = include_str!("prompt/task.md");

/// Sessions listed by id in the task message; the rest are counted.
const MAX_LISTED_SESSIONS: usize = 200;
/// Daily-log entries inlined in the task message; the rest are left to the log files.
const MAX_INLINE_LOG_ENTRIES: usize = 200;
/// Characters of inlined daily-log text.
const MAX_INLINE_LOG_CHARS: usize = 16_000;

/// What the prompt is built from.
pub struct PromptInputs<'a> {
    /// The memory dir as the model sees it.
    pub memory_dir: &'a Path,
    pub sessions_dir: &'a Path,
    /// `None` when the project is not readable in this dream.
    pub project_dir: Option<&'a Path>,
    pub now: Timestamp,
    /// The zone dates are shown in (the user's local zone).
    pub time_zone: TimeZone,
    pub last_consolidated_at: Option<Timestamp>,
    pub sessions: &'a [ParsedSession],
    pub log_entries: &'a [LogEntry],
    pub index_max_lines: usize,
    /// The index's size limit in UTF-16 units (about bytes for ASCII).
    pub index_max_units: usize,
    /// The engine's "Tools and limits" section (Markdown, starting with its heading).
    pub tools_section: &'a str,
}

impl<'a> PromptInputs<'a> {
    /// The inputs of a dream, with the memory dir shown as `memory_dir` (the real folder for
    /// our own tools, the staging copy for a client working in it) in the local zone, and the
    /// engine's own tools section.
    pub fn of_dream(
        ctx: &autodream_core::engine::DreamContext<'a>,
        memory_dir: &'a Path,
        project_dir: Option<&'a Path>,
        tools_section: &'a str,
    ) -> PromptInputs<'a> {
        PromptInputs {
            memory_dir,
            sessions_dir: ctx.sessions_dir,
            project_dir,
            now: ctx.now,
            time_zone: autodream_core::clock::local_tz(),
            last_consolidated_at: ctx.last_consolidated_at,
            sessions: ctx.sessions,
            log_entries: ctx.log_entries,
            index_max_lines: ctx.config.index_max_lines,
            index_max_units: ctx.config.index_max_units,
            tools_section,
        }
    }
}

/// The rendered prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// Instructions: stable for the whole dream (cached).
    pub system: String,
    /// The first user message: what to review today.
    pub task: String,
    /// Secrets redacted from inlined log text.
    pub redactions: usize,
}

impl Prompt {
    /// A rough token count (characters / 4), good enough for budgets and reports.
    pub fn approx_tokens(&self) -> usize {
        approx_tokens(&self.system) + approx_tokens(&self.task)
    }
}

/// Characters / 4, rounded up.
pub fn approx_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Renders the prompt.
pub fn build_prompt(inputs: &PromptInputs<'_>) -> Prompt {
    let today = inputs.now.to_zoned(inputs.time_zone.clone());
    let today_short = today.strftime("%Y-%m-%d").to_string();
    let today_long = today.strftime("%A %Y-%m-%d").to_string();
    let (project_line, project_tools) = match inputs.project_dir {
        Some(dir) => (
            format!(
                "`{}` (read only). Use it to check whether a remembered fact still matches the project.",
                dir.display()
            ),
            " and the project".to_string(),
        ),
        None => ("not readable in this run.".to_string(), String::new()),
    };
    // The tools section first: its own placeholders are filled after it is in.
    let system = fill(
        SYSTEM_TEMPLATE,
        &[
            ("tools_section", inputs.tools_section.trim_end().to_string()),
            ("memory_dir", inputs.memory_dir.display().to_string()),
            ("sessions_dir", inputs.sessions_dir.display().to_string()),
            ("project_line", project_line),
            ("project_tools", project_tools),
            ("index_max_lines", inputs.index_max_lines.to_string()),
            ("index_max_kb", (inputs.index_max_units.div_ceil(1000)).to_string()),
            ("today", today_short),
        ],
    );
    let last = match inputs.last_consolidated_at {
        Some(at) => at.to_zoned(inputs.time_zone.clone()).strftime("on %Y-%m-%d at %H:%M").to_string(),
        None => "never (this is the first one)".to_string(),
    };
    let (log_text, redactions) = log_lines(inputs.log_entries);
    let task = fill(
        TASK_TEMPLATE,
        &[
            ("today_long", today_long),
            ("last_consolidation", last),
            ("session_count", inputs.sessions.len().to_string()),
            ("sessions", session_lines(inputs)),
            ("log_count", inputs.log_entries.len().to_string()),
            ("log_entries", log_text),
        ],
    );
    Prompt { system, task, redactions }
}

fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut out = template.to_string();
    for (key, value) in values {
        out = out.replace(&format!("{{{{{key}}}}}"), value);
    }
    out
}

fn session_lines(inputs: &PromptInputs<'_>) -> String {
    if inputs.sessions.is_empty() {
        return "(none: work from the daily logs and the existing memory)".into();
    }
    let mut lines: Vec<String> = inputs
        .sessions
        .iter()
        .take(MAX_LISTED_SESSIONS)
        .map(|s| {
            let file = s
                .file
                .path
                .strip_prefix(inputs.sessions_dir)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| s.file.path.display().to_string());
            let active = s.file.modified_at.to_zoned(inputs.time_zone.clone()).strftime("%Y-%m-%d %H:%M");
            let talk = s.turns.iter().filter(|t| t.is_conversation()).count();
            format!("- `{}`: {file}, last active {active}, {talk} conversation turns", s.file.id)
        })
        .collect();
    if inputs.sessions.len() > MAX_LISTED_SESSIONS {
        lines.push(format!(
            "- … and {} more, older (list the sessions dir to see them)",
            inputs.sessions.len() - MAX_LISTED_SESSIONS
        ));
    }
    lines.join("\n")
}

fn log_lines(entries: &[LogEntry]) -> (String, usize) {
    if entries.is_empty() {
        return ("(none)".into(), 0);
    }
    let mut out = Vec::new();
    let mut chars = 0usize;
    let mut redactions = 0usize;
    let mut shown = 0usize;
    for entry in entries.iter().take(MAX_INLINE_LOG_ENTRIES) {
        let (text, count) = redact_text(&entry.text);
        let time = entry.time.map(|t| format!(" [{}]", t.strftime("%H:%M"))).unwrap_or_default();
        let line = format!("- {}{time} {text}", entry.date);
        chars += line.chars().count();
        if chars > MAX_INLINE_LOG_CHARS {
            break;
        }
        redactions += count;
        out.push(line);
        shown += 1;
    }
    if shown < entries.len() {
        let files: std::collections::BTreeSet<&str> =
            entries[shown..].iter().map(|e| e.file.as_str()).collect();
        out.push(format!(
            "- … and {} more entries in {}",
            entries.len() - shown,
            files.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    (out.join("\n"), redactions)
}

/// A fixed dream (one session, one log entry, fixed folders and date) to render prompts of.
#[cfg(test)]
pub(crate) mod fixture {
    use super::*;
    use autodream_core::sessions::{Role, SessionFile, SessionFormat, Turn, TurnKind};
    use std::path::PathBuf;

    fn turn(session: &str, text: &str, kind: TurnKind) -> Turn {
        Turn {
            session: session.into(),
            time: None,
            role: Role::User,
            speaker: None,
            text: text.into(),
            kind,
            line: 1,
        }
    }

    /// The prompt of the fixed dream with `tools_section`, with or without the project.
    pub(crate) fn fixed_prompt(project: bool, tools_section: &str) -> Prompt {
        let sessions = vec![ParsedSession {
            file: SessionFile {
                id: "0b7c6a52-1f7e-4d0a-9a57-3f1c2d9e8b01".into(),
                path: PathBuf::from(
                    "/home/ada/.claude/projects/-home-ada-shop/0b7c6a52-1f7e-4d0a-9a57-3f1c2d9e8b01.jsonl",
                ),
                modified_at: "2026-05-06T14:02:00Z".parse().unwrap(),
            },
            format: SessionFormat::Claude,
            turns: vec![
                turn("s", "we ship on tuesdays now", TurnKind::Conversation),
                turn("s", "ok", TurnKind::Conversation),
                turn("s", "Bash: ls", TurnKind::ToolNoise),
            ],
            skipped_lines: 0,
        }];
        let entries = vec![LogEntry {
            date: "2026-05-06".parse().unwrap(),
            time: Some("09:15".parse().unwrap()),
            at: "2026-05-06T09:15:00Z".parse().unwrap(),
            text: "release freeze starts next Monday".into(),
            file: "logs/2026/05/2026-05-06.md".into(),
            line: 1,
        }];
        build_prompt(&PromptInputs {
            memory_dir: Path::new("/home/ada/.claude/projects/-home-ada-shop/memory"),
            sessions_dir: Path::new("/home/ada/.claude/projects/-home-ada-shop"),
            project_dir: project.then_some(Path::new("/home/ada/shop")),
            now: "2026-05-07T08:30:00Z".parse().unwrap(),
            time_zone: TimeZone::UTC,
            last_consolidated_at: Some("2026-05-05T22:00:00Z".parse().unwrap()),
            sessions: &sessions,
            log_entries: &entries,
            index_max_lines: 200,
            index_max_units: 25_000,
            tools_section,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::fixed_prompt;

    const SECTION: &str = "## Tools and limits\n\n- The tools see the transcripts{{project_tools}}.\n";

    #[test]
    fn the_task_message_snapshot() {
        let prompt = fixed_prompt(true, SECTION);
        insta::assert_snapshot!("task_message", prompt.task);
    }

    #[test]
    fn every_placeholder_is_filled_and_the_essentials_are_there() {
        let prompt = fixed_prompt(true, SECTION);
        for text in [&prompt.system, &prompt.task] {
            assert!(!text.contains("{{"), "unfilled placeholder in {text}");
        }
        for phase in ["### 1. Orient", "### 2. Gather", "### 3. Consolidate", "### 4. Prune and index"] {
            assert!(prompt.system.contains(phase), "missing {phase}");
        }
        for memory_type in ["`user`", "`feedback`", "`project`", "`reference`"] {
            assert!(prompt.system.contains(memory_type));
        }
        assert!(prompt.system.contains("## Superseded"));
        assert!(prompt.system.contains("at most 200 lines and about 25 KB"));
        assert!(prompt.task.contains("Thursday 2026-05-07"));
        assert!(prompt.task.contains("0b7c6a52-1f7e-4d0a-9a57-3f1c2d9e8b01"));
        assert!(prompt.task.contains("2 conversation turns"));
        assert!(prompt.task.contains("- 2026-05-06 [09:15] release freeze starts next Monday"));
    }

    #[test]
    fn the_engine_section_sits_before_the_end_with_its_placeholders_filled() {
        let prompt = fixed_prompt(true, SECTION);
        let expected =
            "## Tools and limits\n\n- The tools see the transcripts and the project.\n\n## When you are done";
        assert!(prompt.system.contains(expected), "{}", prompt.system);
        let without = fixed_prompt(false, SECTION);
        assert!(without.system.contains("- The tools see the transcripts.\n"), "{}", without.system);
    }

    #[test]
    fn without_the_project_the_prompt_says_so() {
        let prompt = fixed_prompt(false, SECTION);
        assert!(prompt.system.contains("Project: not readable in this run."));
        assert!(!prompt.system.contains("/home/ada/shop`"));
    }
}
