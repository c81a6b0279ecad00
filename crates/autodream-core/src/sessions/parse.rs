//! Reading a transcript file into [`Turn`]s, whatever its format.
//!
//! Every format but Gemini's is JSON Lines. Each line is parsed on its own; a line that is not
//! JSON, or whose shape the format does not know, is skipped and counted in
//! [`ParsedSession::skipped_lines`] — a damaged transcript never stops a dream. A file that
//! is not JSON Lines at all (say, one pretty-printed JSON document) therefore comes out as
//! zero turns with every non-blank line counted as skipped. Gemini CLI sessions are read
//! whole (`gemini`): there a skipped entry is a message, or the damaged tail of a file.
//!
//! What the format readers share (one line's turns, tool text, timestamps) is the leaf
//! `line`.

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use super::line::LineOutcome;
use super::listing::SessionFile;
use super::{SessionError, SessionFormat, Turn, claude, codex, gemini, generic, subagents};

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

/// Picks the format from the first line whose JSON shape names one, or from the shape of the
/// whole file for Gemini CLI's JSON documents; `None` when nothing does (an empty file, or
/// JSON of no known shape).
pub fn detect_format(text: &str) -> Option<SessionFormat> {
    if gemini::is_gemini(text) {
        return Some(SessionFormat::Gemini);
    }
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
    if format == SessionFormat::Gemini {
        let parsed = gemini::parse(text, &file.id);
        return ParsedSession { file, format, turns: parsed.turns, skipped_lines: parsed.skipped };
    }
    let mut turns = Vec::new();
    let mut skipped = 0;
    let mut state = claude::State::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = match format {
            SessionFormat::Claude | SessionFormat::Auto => {
                serde_json::from_str::<claude::Entry>(line).map(|entry| entry.0)
            }
            _ => serde_json::from_str::<Value>(line),
        };
        let Ok(value) = parsed else {
            skipped += 1;
            continue;
        };
        let outcome = match format {
            SessionFormat::Claude | SessionFormat::Auto => {
                let outcome = claude::parse_line(&value, &file.id, i + 1, &mut state, &mut turns);
                if value.get("type").and_then(Value::as_str) == Some("progress") {
                    subagents::progress_writes(line, &file.id, i + 1, &mut turns);
                }
                outcome
            }
            SessionFormat::Generic => generic::parse_line(&value, &file.id, i + 1, &mut turns),
            SessionFormat::Codex => codex::parse_line(&value, &file.id, i + 1, &mut turns),
            SessionFormat::Gemini => unreachable!("Gemini sessions are read whole above"),
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
    let mut parsed = parse_session(file.clone(), &text_of(bytes), format);
    if parsed.format == SessionFormat::Claude {
        subagents::add_file_writes(&file.path, &mut parsed.turns);
    }
    Ok(parsed)
}

/// A transcript's bytes as text, invalid UTF-8 replaced. Valid text (nearly every file) is
/// checked by the standard library's fast path and not copied; `String::from_utf8_lossy`
/// walks every byte, which on a long history cost as much as parsing the JSON.
pub fn text_of(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(invalid) => String::from_utf8_lossy(invalid.as_bytes()).into_owned(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::{Role, TurnKind};

    #[test]
    fn bare_codex_response_items_are_detected_as_codex() {
        let legacy = r#"{"id":"x","timestamp":"2025-01-01T00:00:00Z","instructions":null}
{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#;
        assert_eq!(detect_format(legacy), Some(SessionFormat::Codex));
        assert_eq!(detect_format(r#"{"role":"user","content":"hi"}"#), Some(SessionFormat::Generic));
        assert_eq!(detect_format("{\n  \"a\": 1\n}"), None);
    }

    #[test]
    fn a_sub_agents_file_writes_recorded_as_progress_are_tool_calls_and_nothing_else_of_it() {
        let file =
            SessionFile { id: "s".into(), path: "s.jsonl".into(), modified_at: jiff::Timestamp::UNIX_EPOCH };
        let progress = |message: &str| {
            format!(
                r#"{{"type":"progress","timestamp":"2026-02-21T01:48:00Z","data":{{"type":"agent_progress","prompt":"Execute the task","message":{message}}}}}"#
            )
        };
        let text = [
            r#"{"type":"user","message":{"role":"user","content":"document it and reference it in memory"}}"#.to_string(),
            // The sub-agent reads (no turn), writes (a turn), gets a result (no turn).
            progress(
                r#"{"type":"assistant","timestamp":"2026-02-21T01:48:47Z","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/p/memory/MEMORY.md"}}]}}"#,
            ),
            progress(
                r#"{"type":"assistant","timestamp":"2026-02-21T01:48:59Z","message":{"content":[{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/p/memory/MEMORY.md","old_string":"a","new_string":"a\n- Always consult docs/X.md"}}]}}"#,
            ),
            progress(
                r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"updated"}]}}"#,
            ),
            r#"{"type":"progress","data":{"type":"hook_progress","hookName":"Stop"}}"#.to_string(),
            // A progress entry of some other shape is known and yields nothing.
            r#"{"type":"progress","data":{"type":"agent_progress","message":"text"}}"#.to_string(),
        ]
        .join("\n");
        let parsed = parse_session(file, &text, SessionFormat::Claude);
        assert_eq!(parsed.skipped_lines, 0);
        let tools: Vec<&Turn> = parsed.turns.iter().filter(|t| t.kind == TurnKind::ToolNoise).collect();
        assert_eq!(tools.len(), 1, "{tools:?}");
        assert_eq!(tools[0].role, Role::Assistant);
        assert_eq!(tools[0].line, 3);
        assert!(tools[0].text.starts_with("Edit: {") && tools[0].text.contains("Always consult docs/X.md"));
        assert_eq!(tools[0].time, Some("2026-02-21T01:48:59Z".parse().unwrap()));
    }
}
