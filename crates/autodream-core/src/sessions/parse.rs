//! Reading a transcript file into [`Turn`]s, whatever its format.
//!
//! Every format is JSON Lines. Each line is parsed on its own; a line that is not JSON, or
//! whose shape the format does not know, is skipped and counted in
//! [`ParsedSession::skipped_lines`] — a damaged transcript never stops a dream. A file that
//! is not JSON Lines at all (say, one pretty-printed JSON document) therefore comes out as
//! zero turns with every non-blank line counted as skipped.
//!
//! The helpers at the bottom are shared by the format readers so that every format renders
//! tool traffic, timestamps and merged text blocks the same way.

use std::path::Path;

use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Map, Value};

use super::listing::SessionFile;
use super::{Role, SessionError, SessionFormat, Turn, TurnKind, claude, codex, generic};

/// A parsed transcript.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParsedSession {
    pub file: SessionFile,
    /// The format the file was read as (never `Auto`).
    pub format: SessionFormat,
    pub turns: Vec<Turn>,
    /// Lines that were not JSON, or had an unknown entry type or shape.
    pub skipped_lines: usize,
}

/// What one line of a transcript turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineOutcome {
    /// Zero or more turns were produced (metadata lines produce none).
    Known,
    /// The line is JSON, but not an entry this format knows.
    Unknown,
}

/// Picks the format from the first line whose JSON shape names one; `None` when no line does
/// (an empty file, or one that is not JSON Lines).
pub fn detect_format(text: &str) -> Option<SessionFormat> {
    text.lines().filter(|l| !l.trim().is_empty()).find_map(|line| {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        format_of_line(v.as_object()?)
    })
}

/// The format a single JSON object line belongs to, if its shape says.
fn format_of_line(obj: &Map<String, Value>) -> Option<SessionFormat> {
    let has = |key: &str| obj.contains_key(key);
    if has("payload") && has("type") {
        Some(SessionFormat::Codex)
    } else if has("type") && has("role") && has("content") && !has("message") {
        // Codex rollouts written before the `{timestamp,type,payload}` envelope stored bare
        // response items (`{"type":"message","role":…,"content":[…]}`). Generic lines carry
        // no `type`, and the agent's entries nest their role inside `message`.
        Some(SessionFormat::Codex)
    } else if has("role") && has("content") && !has("message") {
        Some(SessionFormat::Generic)
    } else if has("type") {
        Some(SessionFormat::Claude)
    } else {
        None
    }
}

/// Parses transcript text. `format` may be `Auto`: it is then detected from the content,
/// falling back to the agent's own format when nothing identifies it.
pub fn parse_session(file: SessionFile, text: &str, format: SessionFormat) -> ParsedSession {
    let format = match format {
        SessionFormat::Auto => detect_format(text).unwrap_or(SessionFormat::Claude),
        f => f,
    };
    let mut turns = Vec::new();
    let mut skipped = 0;
    let mut state = claude::State::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            skipped += 1;
            continue;
        };
        let outcome = match format {
            SessionFormat::Claude | SessionFormat::Auto => {
                claude::parse_line(&value, &file.id, i + 1, &mut state, &mut turns)
            }
            SessionFormat::Generic => generic::parse_line(&value, &file.id, i + 1, &mut turns),
            SessionFormat::Codex => codex::parse_line(&value, &file.id, i + 1, &mut turns),
        };
        if outcome == LineOutcome::Unknown {
            skipped += 1;
        }
    }
    ParsedSession { file, format, turns, skipped_lines: skipped }
}

/// Reads and parses one transcript file (invalid UTF-8 is replaced, not fatal).
pub fn parse_session_file(file: &SessionFile, format: SessionFormat) -> Result<ParsedSession, SessionError> {
    let bytes = std::fs::read(&file.path)
        .map_err(|source| SessionError::ReadFile { path: file.path.clone(), source })?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(parse_session(file.clone(), &text, format))
}

/// A session file record for a path (id = file stem, mtime read from disk).
pub fn session_file_for(path: &Path) -> Result<SessionFile, SessionError> {
    let meta = std::fs::metadata(path)
        .map_err(|source| SessionError::ReadFile { path: path.to_path_buf(), source })?;
    let id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(SessionFile {
        id,
        path: path.to_path_buf(),
        modified_at: crate::clock::from_system_time(
            meta.modified().unwrap_or(std::time::SystemTime::UNIX_EPOCH),
        ),
    })
}

/// Tool inputs and outputs longer than this many characters are cut: a file dump or a build
/// log says little about what to remember, and engines read every turn.
pub(crate) const MAX_TOOL_TEXT_CHARS: usize = 2000;

/// `s` cut to at most `max` characters (on a character boundary), with `…` appended when
/// something was cut.
pub(crate) fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => {
            let mut out = String::with_capacity(cut + '…'.len_utf8());
            out.push_str(&s[..cut]);
            out.push('…');
            out
        }
        None => s.to_string(),
    }
}

/// A JSON value as one line of text: strings as they are, anything else as compact JSON.
pub(crate) fn compact_json(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The text of a tool call: `name: <compact input>`, cut to [`MAX_TOOL_TEXT_CHARS`].
pub(crate) fn tool_call_text(name: &str, input: &str) -> String {
    let input = input.trim();
    if input.is_empty() {
        truncate_chars(name, MAX_TOOL_TEXT_CHARS)
    } else {
        truncate_chars(&format!("{name}: {input}"), MAX_TOOL_TEXT_CHARS)
    }
}

/// The `timestamp` field of an entry, when it is a valid RFC 3339 instant.
pub(crate) fn entry_time(obj: &Map<String, Value>) -> Option<Timestamp> {
    obj.get("timestamp").and_then(Value::as_str).and_then(|s| s.parse::<Timestamp>().ok())
}

/// Where the turns of one transcript line go: the session, the line number and the line's
/// time are the same for every turn a line produces.
pub(crate) struct LineTurns<'a> {
    out: &'a mut Vec<Turn>,
    session: &'a str,
    line: usize,
    time: Option<Timestamp>,
    /// Turns before this index came from earlier lines and are never merged into.
    first_of_line: usize,
}

impl<'a> LineTurns<'a> {
    pub(crate) fn new(
        out: &'a mut Vec<Turn>,
        session: &'a str,
        line: usize,
        time: Option<Timestamp>,
    ) -> Self {
        let first_of_line = out.len();
        LineTurns { out, session, line, time, first_of_line }
    }

    /// Adds a turn of said or injected text. Blank text adds nothing. Consecutive text
    /// blocks of one line with the same role and kind become one turn (joined by a newline),
    /// because a message split into blocks is still one thing said.
    pub(crate) fn text(&mut self, role: Role, kind: TurnKind, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if self.out.len() > self.first_of_line
            && let Some(last) = self.out.last_mut()
            && last.role == role
            && last.kind == kind
            && kind != TurnKind::ToolNoise
        {
            last.text.push('\n');
            last.text.push_str(text);
            return;
        }
        self.push(role, kind, text.to_string());
    }

    /// Adds one tool call or tool result. Each is its own turn, even when empty, so that the
    /// count of tool turns is the count of calls and results.
    pub(crate) fn tool(&mut self, role: Role, text: String) {
        self.push(role, TurnKind::ToolNoise, text);
    }

    fn push(&mut self, role: Role, kind: TurnKind, text: String) {
        self.out.push(Turn {
            session: self.session.to_string(),
            time: self.time,
            role,
            speaker: None,
            text,
            kind,
            line: self.line,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate_chars("héllo", 2), "hé…");
        assert_eq!(truncate_chars("héllo", 5), "héllo");
        assert_eq!(truncate_chars("", 0), "");
        assert_eq!(truncate_chars("ab", 0), "…");
    }

    #[test]
    fn tool_call_text_omits_the_separator_without_input() {
        assert_eq!(tool_call_text("Bash", r#"{"command":"ls"}"#), r#"Bash: {"command":"ls"}"#);
        assert_eq!(tool_call_text("Stop", "  "), "Stop");
        let long = "x".repeat(5000);
        assert_eq!(tool_call_text("Write", &long).chars().count(), MAX_TOOL_TEXT_CHARS + 1);
    }

    #[test]
    fn consecutive_text_blocks_of_one_line_merge_but_tool_turns_do_not() {
        let mut out = Vec::new();
        let mut sink = LineTurns::new(&mut out, "s", 1, None);
        sink.text(Role::User, TurnKind::Conversation, " first ");
        sink.text(Role::User, TurnKind::Conversation, "second");
        sink.tool(Role::Tool, "a".into());
        sink.tool(Role::Tool, "b".into());
        sink.text(Role::User, TurnKind::Conversation, "third");
        sink.text(Role::User, TurnKind::Meta, "meta");
        sink.text(Role::User, TurnKind::Meta, "   ");
        let texts: Vec<_> = out.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["first\nsecond", "a", "b", "third", "meta"]);

        // A later line never merges into the turns of an earlier one.
        let mut sink = LineTurns::new(&mut out, "s", 2, None);
        sink.text(Role::User, TurnKind::Meta, "next line");
        assert_eq!(out.len(), 6);
        assert_eq!(out[5].line, 2);
    }

    #[test]
    fn bare_codex_response_items_are_detected_as_codex() {
        let legacy = r#"{"id":"x","timestamp":"2025-01-01T00:00:00Z","instructions":null}
{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#;
        assert_eq!(detect_format(legacy), Some(SessionFormat::Codex));
        assert_eq!(detect_format(r#"{"role":"user","content":"hi"}"#), Some(SessionFormat::Generic));
        assert_eq!(detect_format("{\n  \"a\": 1\n}"), None);
    }
}
