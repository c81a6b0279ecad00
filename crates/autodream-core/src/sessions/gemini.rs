//! Gemini CLI sessions, in the three layouts its versions have written:
//!
//! - **Chat file** `~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json`: one
//!   pretty-printed JSON object `{sessionId, projectHash, startTime, lastUpdated, messages[]}`,
//!   rewritten whole after every message.
//! - **Chat log** `session-<time>-<id>.jsonl` (newer versions): a metadata line
//!   `{sessionId, projectHash, startTime, …}`, then one message record a line; a record whose
//!   `id` was seen before replaces it (tokens and tool calls are filled in later),
//!   `{"$set": {…}}` updates metadata and `{"$rewindTo": id}` drops that message and every
//!   later one.
//! - **Legacy log** `~/.gemini/tmp/<project hash>/logs.json`: a JSON array of
//!   `{sessionId, messageId, type, message, timestamp}`.
//!
//! A message is `{id, timestamp, type, content}`; `type` is `user`, `gemini` (the model:
//! it adds `thoughts`, `tokens`, `model` and `toolCalls[{name, args, result, …}]`), or
//! `info` / `error` / `warning` (the CLI's own notes). `content` is a string or a list of
//! parts (`{text}`). Users' messages are conversation, the model's text is conversation of
//! the assistant, its tool calls and their results are tool noise, the CLI's notes are meta
//! and the model's `thoughts` are dropped (its private reasoning, not something said).
//!
//! Damage is local: a message of unknown shape is skipped and counted; a chat file cut off
//! mid-write (the CLI rewrites it in place) keeps every message before the cut and counts
//! the rest as one skipped entry.

use serde_json::{Map, Value};

use super::line::{LineTurns, MAX_TOOL_TEXT_CHARS, compact_json, entry_time, tool_call_text, truncate_chars};
use super::{Role, Turn, TurnKind};

/// The turns of a Gemini session document and how many entries were skipped.
#[derive(Debug, Default)]
pub(crate) struct GeminiParse {
    pub turns: Vec<Turn>,
    pub skipped: usize,
}

/// Does `text` look like a Gemini session (any of its layouts)? Cheap for the JSON Lines
/// layout (its first line), a full parse for the document layouts.
pub(crate) fn is_gemini(text: &str) -> bool {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return matches!(serde_json::from_str::<Value>(trimmed), Ok(Value::Array(items))
            if items.first().and_then(Value::as_object).is_some_and(is_legacy_entry));
    }
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(first) {
        return is_metadata_line(&obj);
    }
    // A pretty-printed chat file: a lone `{`, then `sessionId` and a `messages` array near the
    // top. A first line that is more than `{` is a JSON Lines entry, damaged or not.
    let head: String = trimmed.chars().take(4096).collect();
    first.trim() == "{" && head.contains("\"sessionId\"") && head.contains("\"messages\"")
}

/// The metadata line of the JSON Lines layout (also recognised for the whole-file check).
pub(crate) fn is_metadata_line(obj: &Map<String, Value>) -> bool {
    (obj.contains_key("sessionId") && obj.contains_key("projectHash") && !obj.contains_key("type"))
        || obj.contains_key("$set")
        || obj.contains_key("$rewindTo")
}

fn is_legacy_entry(obj: &Map<String, Value>) -> bool {
    obj.contains_key("sessionId") && obj.contains_key("messageId") && obj.contains_key("type")
}

/// Reads a Gemini session of any layout. `session` names the turns.
pub(crate) fn parse(text: &str, session: &str) -> GeminiParse {
    let trimmed = text.trim_start();
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let one_line_record = matches!(serde_json::from_str::<Value>(first_line),
        Ok(Value::Object(o)) if !o.contains_key("messages"));
    let messages = if trimmed.starts_with('[') {
        legacy_messages(text)
    } else if one_line_record {
        jsonl_messages(text)
    } else {
        document_messages(text)
    };
    let mut out = GeminiParse { turns: Vec::new(), skipped: messages.skipped };
    for (line, message) in &messages.items {
        if !render_message(message, session, *line, &mut out.turns) {
            out.skipped += 1;
        }
    }
    out
}

/// Messages in file order, each with its 1-based line, and the entries skipped on the way.
#[derive(Default)]
struct Messages {
    items: Vec<(usize, Map<String, Value>)>,
    skipped: usize,
}

/// The chat file: the objects of its `messages` array, read one at a time (each with the
/// line it starts on) so that a file cut off mid-write keeps what comes before the cut.
fn document_messages(text: &str) -> Messages {
    let mut out = Messages::default();
    let Some(mut pos) = messages_array_start(text) else {
        out.skipped += 1;
        return out;
    };
    let mut line = line_at(text, pos);
    let mut counted = pos;
    loop {
        pos += skip_separators(&text[pos..]);
        if text[pos..].starts_with(']') {
            return out;
        }
        if pos >= text.len() {
            // The array never closed: the file was cut off between two messages.
            out.skipped += 1;
            return out;
        }
        line += text.as_bytes()[counted..pos].iter().filter(|b| **b == b'\n').count();
        counted = pos;
        let mut stream = serde_json::Deserializer::from_str(&text[pos..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(m))) => out.items.push((line, m)),
            Some(Ok(_)) => out.skipped += 1,
            _ => {
                // Everything from the damage on is one skipped entry.
                out.skipped += 1;
                return out;
            }
        }
        pos += stream.byte_offset();
    }
}

/// The byte offset just past the `[` that opens the `"messages"` array.
fn messages_array_start(text: &str) -> Option<usize> {
    const KEY: &str = "\"messages\"";
    text.match_indices(KEY).find_map(|(at, _)| {
        let after = at + KEY.len();
        let rest = text[after..].trim_start();
        let rest = rest.strip_prefix(':')?.trim_start();
        rest.starts_with('[').then(|| text.len() - rest.len() + 1)
    })
}

fn skip_separators(s: &str) -> usize {
    s.find(|c: char| !(c.is_whitespace() || c == ',')).unwrap_or(s.len())
}

/// 1-based line of byte offset `pos`.
fn line_at(text: &str, pos: usize) -> usize {
    text.as_bytes()[..pos].iter().filter(|b| **b == b'\n').count() + 1
}

/// The JSON Lines layout: message records by id (a later record replaces an earlier one in
/// place), metadata lines and rewinds.
fn jsonl_messages(text: &str) -> Messages {
    let mut out = Messages::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(line) else {
            out.skipped += 1;
            continue;
        };
        if let Some(target) = obj.get("$rewindTo") {
            let at = target.as_str().and_then(|id| {
                out.items.iter().position(|(_, m)| m.get("id").and_then(Value::as_str) == Some(id))
            });
            out.items.truncate(at.unwrap_or(0));
            continue;
        }
        if is_metadata_line(&obj) {
            continue;
        }
        let Some(id) = obj.get("id").and_then(Value::as_str).map(str::to_string) else {
            out.skipped += 1;
            continue;
        };
        match out.items.iter_mut().find(|(_, m)| m.get("id").and_then(Value::as_str) == Some(id.as_str())) {
            Some(slot) => slot.1 = obj,
            None => out.items.push((i + 1, obj)),
        }
    }
    out
}

/// `logs.json`: `[{sessionId, messageId, type, message, timestamp}]`, as messages.
fn legacy_messages(text: &str) -> Messages {
    let mut out = Messages::default();
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(text) else {
        out.skipped += 1;
        return out;
    };
    for item in items {
        let Value::Object(mut obj) = item else {
            out.skipped += 1;
            continue;
        };
        if let Some(message) = obj.remove("message") {
            obj.insert("content".into(), message);
        }
        out.items.push((1, obj));
    }
    out
}

/// One message as turns; `false` when its shape is not one Gemini writes.
fn render_message(m: &Map<String, Value>, session: &str, line: usize, out: &mut Vec<Turn>) -> bool {
    let Some(kind) = m.get("type").and_then(Value::as_str) else { return false };
    // Newer releases keep what the user typed in `displayContent` and what was sent (with
    // `@file` contents expanded) in `content`: the user's words are the former.
    let shown = m.get("displayContent").filter(|_| kind == "user").and_then(content_text);
    let content = match shown.map(Ok).unwrap_or_else(|| content_of(m, kind)) {
        Ok(t) => t,
        Err(()) => return false,
    };
    let mut sink = LineTurns::new(out, session, line, entry_time(m));
    match kind {
        "user" => sink.text(Role::User, TurnKind::Conversation, &content),
        "gemini" | "model" => {
            sink.text(Role::Assistant, TurnKind::Conversation, &content);
            if let Some(calls) = m.get("toolCalls") {
                let Some(calls) = calls.as_array() else { return false };
                for call in calls {
                    tool_call(call, &mut sink);
                }
            }
        }
        "info" | "error" | "warning" => sink.text(Role::System, TurnKind::Meta, &content),
        _ => return false,
    }
    true
}

/// The `content` of a message as text; `Err` when its shape is not one Gemini writes.
fn content_of(m: &Map<String, Value>, kind: &str) -> Result<String, ()> {
    match m.get("content") {
        Some(c) => content_text(c).ok_or(()),
        None if kind == "gemini" && m.contains_key("toolCalls") => Ok(String::new()),
        None => Err(()),
    }
}

/// A tool call and its result: two tool-noise turns.
fn tool_call(call: &Value, sink: &mut LineTurns<'_>) {
    let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
    let args = call.get("args").map(compact_json).unwrap_or_default();
    sink.tool(Role::Assistant, tool_call_text(name, &args));
    let output = call
        .get("result")
        .map(result_text)
        .filter(|s| !s.trim().is_empty())
        .or_else(|| call.get("resultDisplay").map(compact_json))
        .unwrap_or_default();
    sink.tool(Role::Tool, truncate_chars(output.trim(), MAX_TOOL_TEXT_CHARS));
}

/// A tool result: a list of parts, each usually
/// `{functionResponse: {response: {output | result | error}}}`.
fn result_text(result: &Value) -> String {
    let parts: Vec<&Value> = match result {
        Value::Array(parts) => parts.iter().collect(),
        other => vec![other],
    };
    let mut texts = Vec::new();
    for part in parts {
        if let Some(response) = part.pointer("/functionResponse/response") {
            let text = ["output", "result", "error"]
                .iter()
                .find_map(|k| response.get(*k))
                .map(compact_json)
                .unwrap_or_else(|| compact_json(response));
            texts.push(text);
        } else if let Some(text) = part.get("text").and_then(Value::as_str) {
            texts.push(text.to_string());
        } else {
            texts.push(compact_json(part));
        }
    }
    texts.join("\n")
}

/// A message's text: a string, or the `text` of each part of a list (other parts, such as
/// inline data, carry nothing to read). `None` for any other shape.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Value::as_str)))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Value::Object(part) => Some(part.get("text").and_then(Value::as_str).unwrap_or_default().to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;

    use super::super::{ParsedSession, SessionFile, SessionFormat, detect_format, parse_session};
    use super::*;

    /// Real Gemini CLI chats (see `tests/fixtures/transcripts/SOURCES.md`).
    const AGTRACE: &str =
        include_str!("../../../../tests/fixtures/transcripts/gemini_cli_session_real_gemini_session.json");
    const ENTIRE_B5: &str =
        include_str!("../../../../tests/fixtures/transcripts/gemini_real_entire-cli_b5_9619af77b1.json");
    const ENTIRE_13: &str =
        include_str!("../../../../tests/fixtures/transcripts/gemini_real_entire-cli_13_ef679181ca.json");

    fn file(id: &str) -> SessionFile {
        SessionFile { id: id.into(), path: format!("{id}.json").into(), modified_at: Timestamp::UNIX_EPOCH }
    }

    fn read(text: &str, format: SessionFormat) -> ParsedSession {
        parse_session(file("session-2026-01-22T20-29-ce8b3527"), text, format)
    }

    /// (user, assistant, tool, meta) turn counts.
    fn counts(p: &ParsedSession) -> (usize, usize, usize, usize) {
        let n = |f: &dyn Fn(&Turn) -> bool| p.turns.iter().filter(|t| f(t)).count();
        (
            n(&|t| t.role == Role::User && t.kind == TurnKind::Conversation),
            n(&|t| t.role == Role::Assistant && t.kind == TurnKind::Conversation),
            n(&|t| t.kind == TurnKind::ToolNoise),
            n(&|t| t.kind == TurnKind::Meta),
        )
    }

    // Expected counts were taken from the files with a separate `json.load` script: user
    // messages with text, model messages with text, two tool turns per `toolCalls` entry,
    // info/error/warning messages.
    #[test]
    fn the_real_chats_are_detected_and_read_message_by_message() {
        for (text, expected, skipped) in
            [(AGTRACE, (2, 7, 10, 0), 0), (ENTIRE_B5, (1, 4, 6, 0), 0), (ENTIRE_13, (1, 13, 24, 1), 0)]
        {
            assert_eq!(detect_format(text), Some(SessionFormat::Gemini));
            let auto = read(text, SessionFormat::Auto);
            assert_eq!(auto.format, SessionFormat::Gemini);
            assert_eq!(counts(&auto), expected);
            assert_eq!(auto.skipped_lines, skipped);
            assert_eq!(read(text, SessionFormat::Gemini).turns, auto.turns);
        }
    }

    #[test]
    fn roles_times_and_lines_come_from_each_message() {
        let p = read(ENTIRE_B5, SessionFormat::Gemini);
        let first = &p.turns[0];
        assert_eq!(first.role, Role::User);
        assert_eq!(first.text, "run an agent that creates a color file inside docs, choose your color");
        assert_eq!(first.time, Some("2026-01-22T20:29:34.162Z".parse().unwrap()));
        assert_eq!(first.session, "session-2026-01-22T20-29-ce8b3527");
        // The message's opening brace is on line 7 of the pretty-printed file.
        assert_eq!(first.line, 7);
        let model = &p.turns[1];
        assert_eq!((model.role, model.kind), (Role::Assistant, TurnKind::Conversation));
        assert!(model.text.starts_with("Okay, I will create a color file"));
        assert_eq!(model.time, Some("2026-01-22T20:29:52.669Z".parse().unwrap()));
        // Its tool call and result follow, and the model's thoughts are not turns.
        assert_eq!(p.turns[2].text, r#"list_directory: {"dir_path":"docs"}"#);
        assert_eq!((p.turns[3].role, p.turns[3].kind), (Role::Tool, TurnKind::ToolNoise));
        assert!(!p.turns.iter().any(|t| t.text.contains("Examining Color Choices")));
        assert!(p.turns.windows(2).all(|w| w[0].line <= w[1].line));

        let info = read(ENTIRE_13, SessionFormat::Gemini);
        let note = info.turns.iter().find(|t| t.kind == TurnKind::Meta).unwrap();
        assert_eq!(note.role, Role::System);
        assert!(note.text.starts_with("Gemini CLI update available!"));
    }

    #[test]
    fn a_chat_cut_off_mid_write_keeps_the_messages_before_the_cut() {
        // Cut inside the fourth message of five: three whole messages, the rest one skip.
        let fourth = ENTIRE_B5.match_indices("\"type\": \"gemini\"").nth(2).unwrap().0;
        let cut = read(&ENTIRE_B5[..fourth], SessionFormat::Auto);
        assert_eq!(cut.format, SessionFormat::Gemini);
        assert_eq!(cut.turns.iter().filter(|t| t.kind == TurnKind::Conversation).count(), 3);
        assert_eq!(cut.skipped_lines, 1);

        // Cut right after the first message: nothing lost, the unclosed array counted once.
        let end_of_first = ENTIRE_B5.find("\n    },\n").unwrap() + "\n    }".len();
        let cut = read(&ENTIRE_B5[..end_of_first], SessionFormat::Gemini);
        assert_eq!(counts(&cut), (1, 0, 0, 0));
        assert_eq!(cut.skipped_lines, 1);
    }

    #[test]
    fn a_message_of_unknown_shape_is_skipped_and_counted() {
        let mut doc: Value = serde_json::from_str(ENTIRE_B5).unwrap();
        let messages = doc["messages"].as_array_mut().unwrap();
        messages[1]["type"] = "hologram".into();
        messages[2]["content"] = 42.into();
        messages.push("not an object".into());
        let damaged = serde_json::to_string_pretty(&doc).unwrap();
        let p = read(&damaged, SessionFormat::Gemini);
        assert_eq!(p.skipped_lines, 3);
        assert_eq!(counts(&p), (1, 2, 2, 0));

        // Not JSON at all, as Gemini: one skipped entry, no turns, no panic.
        let p = read("{\n  \"sessionId\": \"x\",\n  \"messages\": [\n    {oops\n", SessionFormat::Gemini);
        assert_eq!((p.turns.len(), p.skipped_lines), (0, 1));
        let p = read("", SessionFormat::Gemini);
        assert_eq!((p.turns.len(), p.skipped_lines), (0, 1));
    }

    #[test]
    fn the_json_lines_layout_replaces_rewinds_and_reads_parts() {
        let text = [
            r#"{"sessionId":"s1","projectHash":"h","startTime":"2026-02-01T10:00:00Z","lastUpdated":"2026-02-01T10:00:00Z","kind":"main"}"#,
            r#"{"id":"m1","timestamp":"2026-02-01T10:00:01Z","type":"user","content":[{"text":"We deploy with make ship."}]}"#,
            r#"{"id":"m2","timestamp":"2026-02-01T10:00:02Z","type":"gemini","content":"Noted.","thoughts":[]}"#,
            r#"{"id":"m2","timestamp":"2026-02-01T10:00:02Z","type":"gemini","content":"Noted.","tokens":{"total":3},"toolCalls":[{"name":"read_file","args":{"path":"Makefile"},"result":[{"functionResponse":{"response":{"output":"ship: deploy"}}}]}]}"#,
            r#"{"$set":{"lastUpdated":"2026-02-01T10:00:03Z"}}"#,
            r#"{"id":"m3","timestamp":"2026-02-01T10:00:04Z","type":"user","content":"scratch that"}"#,
            r#"{"$rewindTo":"m3"}"#,
            "not json",
            r#"{"timestamp":"2026-02-01T10:00:05Z","type":"user","content":"no id"}"#,
        ]
        .join("\n");
        assert_eq!(detect_format(&text), Some(SessionFormat::Gemini));
        let p = read(&text, SessionFormat::Auto);
        assert_eq!(counts(&p), (1, 1, 2, 0));
        assert_eq!(p.skipped_lines, 2);
        assert_eq!(p.turns[0].text, "We deploy with make ship.");
        assert_eq!(p.turns[0].line, 2);
        assert_eq!(p.turns[3].text, "ship: deploy");
    }

    #[test]
    fn what_the_user_typed_wins_over_the_expanded_prompt() {
        let text = r#"{"sessionId":"s","projectHash":"h","startTime":"2026-02-01T10:00:00Z","lastUpdated":"2026-02-01T10:00:00Z"}
{"id":"m1","timestamp":"2026-02-01T10:00:01Z","type":"user","content":[{"text":"Review @src/lib.rs, we never panic in library code."},{"text":"--- src/lib.rs ---\nfn main() { panic!() }"}],"displayContent":[{"text":"Review @src/lib.rs, we never panic in library code."}]}
{"id":"m2","timestamp":"2026-02-01T10:00:02Z","type":"user","content":"plain"}"#;
        let p = read(text, SessionFormat::Gemini);
        let said: Vec<&str> = p.turns.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(said, ["Review @src/lib.rs, we never panic in library code.", "plain"]);
        assert_eq!(p.skipped_lines, 0);
    }

    #[test]
    fn gemini_files_a_projects_chats_under_the_sha256_of_its_path() {
        let dir =
            super::super::agent_sessions_dir(SessionFormat::Gemini, std::path::Path::new("/home/ada/shop"));
        let dir = dir.expect("HOME is set in tests");
        assert!(
            dir.ends_with(
                ".gemini/tmp/ff0a01d53d837e70275074a42c9709b53c538c1476884575978bc79bc4b8637a/chats"
            ),
            "{}",
            dir.display()
        );
        assert_eq!(super::super::agent_sessions_dir(SessionFormat::Claude, std::path::Path::new("/x")), None);
    }

    #[test]
    fn the_legacy_log_is_read_as_user_messages() {
        let text = r#"[
  {"sessionId": "a", "messageId": 0, "type": "user", "message": "Use pnpm, not npm.", "timestamp": "2025-06-01T09:00:00.000Z"},
  {"sessionId": "a", "messageId": 1, "type": "user", "message": "/quit", "timestamp": "2025-06-01T09:05:00.000Z"},
  {"sessionId": "b", "messageId": 0, "type": "user", "timestamp": "2025-06-02T09:00:00.000Z"}
]"#;
        assert_eq!(detect_format(text), Some(SessionFormat::Gemini));
        let p = read(text, SessionFormat::Auto);
        assert_eq!(counts(&p), (2, 0, 0, 0));
        assert_eq!(p.skipped_lines, 1);
        assert_eq!(p.turns[0].time, Some("2025-06-01T09:00:00Z".parse().unwrap()));
    }
}
