//! The coding agent's own transcripts: `<session-id>.jsonl`, one typed entry a line.
//!
//! Transcript messages (`user`, `assistant`, `system`, `attachment`) become turns; the many
//! metadata lines (titles, snapshots, queue operations, legacy `progress`…) are recognised
//! and produce none. A line of an unknown `type`, or a message without the shape the format
//! gives it (a `user` entry without `message`, content that is neither a string nor an
//! array), is reported as [`LineOutcome::Unknown`] so the caller counts it as skipped.
//!
//! How content is classified:
//! - `text` blocks are conversation, unless the entry is injected (`isMeta`,
//!   `isCompactSummary`, a synthetic assistant reply) or the text is slash-command, local
//!   command or interruption markup written by the agent rather than typed by the user;
//! - `tool_use` blocks are tool noise rendered `name: <compact input>`, `tool_result` blocks
//!   tool noise holding the (truncated) result text;
//! - `thinking` and `image` blocks are dropped: neither is something to remember verbatim;
//! - `system` entries are meta.
//!
//! One API response is written as several lines sharing `message.id`, one per content block;
//! each line yields the turns of its own block, so nothing is counted twice. What can repeat
//! is a whole entry (the same `uuid` written again); [`State`] remembers the uuids already
//! read so a repeated entry adds no turn.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::line::{
    LineOutcome, LineTurns, MAX_TOOL_TEXT_CHARS, compact_json, entry_time, tool_call_text, truncate_chars,
};
use super::{Role, Turn, TurnKind};

/// What the reader remembers from one line to the next within a file.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// `uuid`s of the message entries read so far.
    seen_uuids: HashSet<String>,
}

/// Metadata entry types: recognised, never turns.
const METADATA_TYPES: &[&str] = &[
    "summary",
    "custom-title",
    "ai-title",
    "last-prompt",
    "task-summary",
    "tag",
    "pr-link",
    "mode",
    "worktree-state",
    "content-replacement",
    "file-history-snapshot",
    "attribution-snapshot",
    "queue-operation",
    "speculation-accept",
    // No longer written by current versions, but present in real 2.1.x files by the thousand.
    "progress",
    // Written by 2.1.332: the request's parameters, its system prompt and tool list (by
    // `shapeHash`), the cost so far, and a latch.
    "api-request",
    "api-request-shape",
    "atis-latch",
    "cost-state",
    "tools-used",
    // Also 2.1.332: pieces of the request sent to the API, `message.role` `user` or `system`.
    // They hold the reminders the client injects and the MEMORY.md it loaded: never the
    // user's words, though they look like user messages, so never a turn (memory must not
    // feed on itself).
    "api-request-blob",
];

/// Metadata entry type families (`agent-name`, `agent-color`, `marble-origami-commit`, …).
const METADATA_PREFIXES: &[&str] = &["agent-", "marble-origami-"];

/// Markup the agent writes into user messages around slash commands and local commands;
/// text carrying it was produced by the agent, not typed as conversation.
const INJECTED_MARKUP: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
];

/// Text the agent itself inserts as a user message when a turn is cut short.
const INTERRUPTION_PREFIX: &str = "[Request interrupted by user";

/// Top-level keys whose values no reader of this format looks at, and which hold most of a
/// transcript's bytes: `toolUseResult` (a tool's result again, structured: a file read whole,
/// a command's output; 43% of a real history), `data` (the payload of `progress` entries) and
/// `snapshot` (file-history snapshots). Their JSON is checked but never built into values; with
/// the fast UTF-8 check of `parse::text_of`, a dream over a long history takes a third less
/// time (`docs/precision.md`, `benches/parse.rs` of this crate).
const UNREAD_KEYS: &[&str] = &["toolUseResult", "data", "snapshot"];

/// One line of the agent's transcript as JSON, the values under [`UNREAD_KEYS`] skipped. Any
/// JSON that is not an object fails, as an entry of no known shape does.
pub(crate) struct Entry(pub(crate) Value);

impl<'de> serde::Deserialize<'de> for Entry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntryVisitor;
        impl<'de> serde::de::Visitor<'de> for EntryVisitor {
            type Value = Entry;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a transcript entry (a JSON object)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
                let mut entry = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    if UNREAD_KEYS.contains(&key.as_str()) {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    } else {
                        let value = map.next_value::<Value>()?;
                        entry.insert(key, value);
                    }
                }
                Ok(Entry(Value::Object(entry)))
            }
        }
        deserializer.deserialize_map(EntryVisitor)
    }
}

/// Reads one transcript line. `line` is 1-based.
pub(crate) fn parse_line(
    v: &Value,
    session: &str,
    line: usize,
    state: &mut State,
    out: &mut Vec<Turn>,
) -> LineOutcome {
    let Some(entry) = v.as_object() else { return LineOutcome::Unknown };
    let Some(entry_type) = entry.get("type").and_then(Value::as_str) else { return LineOutcome::Unknown };
    match entry_type {
        "user" | "assistant" => {
            let Some(content) = message_content(entry) else { return LineOutcome::Unknown };
            if is_repeat(entry, state) {
                return LineOutcome::Known;
            }
            let mut sink = LineTurns::new(out, session, line, entry_time(entry));
            if entry_type == "user" {
                user_turns(entry, content, &mut sink);
            } else {
                assistant_turns(entry, content, &mut sink);
            }
            LineOutcome::Known
        }
        "system" => {
            if is_repeat(entry, state) {
                return LineOutcome::Known;
            }
            // Some subtypes (`turn_duration`, `stop_hook_summary`) carry no text at all.
            if let Some(text) = entry.get("content").and_then(Value::as_str) {
                LineTurns::new(out, session, line, entry_time(entry)).text(
                    Role::System,
                    TurnKind::Meta,
                    text,
                );
            }
            LineOutcome::Known
        }
        "attachment" => {
            let Some(attachment) = entry.get("attachment").and_then(Value::as_object) else {
                return LineOutcome::Unknown;
            };
            if is_repeat(entry, state) {
                return LineOutcome::Known;
            }
            // Attachments are context the agent injects (file contents, hook output, reminders).
            // Their inner shape varies by kind; only a plain text `content` is kept, as meta.
            if let Some(text) = attachment.get("content").and_then(Value::as_str) {
                LineTurns::new(out, session, line, entry_time(entry)).text(
                    Role::System,
                    TurnKind::Meta,
                    &truncate_chars(text, MAX_TOOL_TEXT_CHARS),
                );
            }
            LineOutcome::Known
        }
        t if is_metadata_type(t) => LineOutcome::Known,
        _ => LineOutcome::Unknown,
    }
}

fn is_metadata_type(entry_type: &str) -> bool {
    METADATA_TYPES.contains(&entry_type) || METADATA_PREFIXES.iter().any(|p| entry_type.starts_with(p))
}

/// `message.content` when the entry has the shape of a message: a string or an array.
fn message_content(entry: &Map<String, Value>) -> Option<&Value> {
    let content = entry.get("message")?.as_object()?.get("content")?;
    matches!(content, Value::String(_) | Value::Array(_)).then_some(content)
}

/// Has an entry with this `uuid` been read already? Records it if not.
fn is_repeat(entry: &Map<String, Value>, state: &mut State) -> bool {
    match entry.get("uuid").and_then(Value::as_str) {
        Some(uuid) => !state.seen_uuids.insert(uuid.to_string()),
        None => false,
    }
}

fn flag(entry: &Map<String, Value>, key: &str) -> bool {
    entry.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The kind of a piece of user text.
fn user_text_kind(text: &str, injected_entry: bool) -> TurnKind {
    if injected_entry
        || text.trim_start().starts_with(INTERRUPTION_PREFIX)
        || text.trim_start().starts_with("<system-reminder>")
        || INJECTED_MARKUP.iter().any(|tag| text.contains(tag))
    {
        TurnKind::Meta
    } else {
        TurnKind::Conversation
    }
}

fn user_turns(entry: &Map<String, Value>, content: &Value, sink: &mut LineTurns<'_>) {
    // `isMeta` marks slash-command expansions and caveats; `isCompactSummary` the summary
    // that replaces a compacted conversation. Both are text the user never typed.
    let injected = flag(entry, "isMeta") || flag(entry, "isCompactSummary");
    match content {
        Value::String(text) => sink.text(Role::User, user_text_kind(text, injected), text),
        Value::Array(blocks) => {
            for block in blocks {
                content_block(block, Role::User, sink, |text| user_text_kind(text, injected));
            }
        }
        _ => {}
    }
}

fn assistant_turns(entry: &Map<String, Value>, content: &Value, sink: &mut LineTurns<'_>) {
    // API errors and canned replies are written as assistant messages from a `<synthetic>`
    // model; the model never said them.
    let synthetic = flag(entry, "isApiErrorMessage")
        || entry
            .get("message")
            .and_then(|m| m.get("model"))
            .and_then(Value::as_str)
            .is_some_and(|model| model == "<synthetic>");
    let kind = if synthetic { TurnKind::Meta } else { TurnKind::Conversation };
    match content {
        Value::String(text) => sink.text(Role::Assistant, kind, text),
        Value::Array(blocks) => {
            for block in blocks {
                content_block(block, Role::Assistant, sink, |_| kind);
            }
        }
        _ => {}
    }
}

/// One content block of a message spoken by `role`. `text_kind` classifies text blocks.
fn content_block(block: &Value, role: Role, sink: &mut LineTurns<'_>, text_kind: impl Fn(&str) -> TurnKind) {
    let Some(block_type) = block.get("type").and_then(Value::as_str) else { return };
    match block_type {
        "text" => {
            if let Some(text) = block.get("text").and_then(Value::as_str) {
                sink.text(role, text_kind(text), text);
            }
        }
        // `tool_use`, and the server-side and MCP variants (`server_tool_use`, `mcp_tool_use`).
        t if t.ends_with("tool_use") => {
            let name = block.get("name").and_then(Value::as_str).unwrap_or("tool");
            let input = block.get("input").map(compact_json).unwrap_or_default();
            sink.tool(Role::Assistant, tool_call_text(name, &input));
        }
        // `tool_result`, and results of server-side tools (`web_search_tool_result`, …).
        t if t.ends_with("tool_result") => {
            let text = block.get("content").map(tool_result_text).unwrap_or_default();
            sink.tool(Role::Tool, truncate_chars(text.trim(), MAX_TOOL_TEXT_CHARS));
        }
        // `thinking`, `redacted_thinking`, `image`, `document`: nothing to remember as text.
        _ => {}
    }
}

/// The text of a tool result's `content`: a string, or the text blocks of an array (images
/// and other blocks left out).
fn tool_result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let mut text = String::new();
            for part in parts {
                let piece = match part {
                    Value::String(s) => Some(s.as_str()),
                    other if other.get("type").and_then(Value::as_str) == Some("text") => {
                        other.get("text").and_then(Value::as_str)
                    }
                    _ => None,
                };
                if let Some(piece) = piece {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(piece);
                }
                // Enough for the truncated turn; stop copying a huge result early.
                if text.len() > MAX_TOOL_TEXT_CHARS * 4 {
                    break;
                }
            }
            text
        }
        other => compact_json(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(lines: &[&str]) -> (Vec<Turn>, Vec<LineOutcome>) {
        let mut state = State::default();
        let mut out = Vec::new();
        let outcomes = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let v: Value = serde_json::from_str(l).expect("test line is JSON");
                parse_line(&v, "s", i + 1, &mut state, &mut out)
            })
            .collect();
        (out, outcomes)
    }

    #[test]
    fn string_and_array_content_both_read_as_conversation() {
        let (turns, outcomes) = parse(&[
            r#"{"type":"user","message":{"role":"user","content":"plain string"},"timestamp":"2026-02-10T21:16:12.381Z"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"block one"},{"type":"text","text":"block two"}]}}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"reply"}]}}"#,
        ]);
        assert_eq!(outcomes, [LineOutcome::Known; 3]);
        assert_eq!(turns.len(), 3);
        assert_eq!(turns[0].text, "plain string");
        assert_eq!(turns[0].time.map(|t| t.to_string()).as_deref(), Some("2026-02-10T21:16:12.381Z"));
        assert_eq!(turns[1].text, "block one\nblock two");
        assert_eq!((turns[2].role, turns[2].kind), (Role::Assistant, TurnKind::Conversation));
        assert_eq!(turns.iter().map(|t| t.line).collect::<Vec<_>>(), [1, 2, 3]);
    }

    #[test]
    fn tool_blocks_become_tool_noise_and_thinking_and_images_are_dropped() {
        let long_output = "y".repeat(MAX_TOOL_TEXT_CHARS + 500);
        let result_line = serde_json::json!({
            "type": "user",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": long_output},
                {"type": "tool_result", "tool_use_id": "t2", "content": [
                    {"type": "text", "text": "listed"}, {"type": "image", "source": {}}]},
                {"type": "image", "source": {"type": "base64", "data": "AAAA"}}
            ]}
        })
        .to_string();
        let (turns, _) = parse(&[
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"secret plan"}]}}"#,
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la"}}]}}"#,
            &result_line,
        ]);
        assert_eq!(turns.len(), 3, "{turns:#?}");
        assert!(turns.iter().all(|t| t.kind == TurnKind::ToolNoise));
        assert_eq!(turns[0].text, r#"Bash: {"command":"ls -la"}"#);
        assert_eq!(turns[0].role, Role::Assistant);
        assert_eq!(turns[1].role, Role::Tool);
        assert_eq!(turns[1].text.chars().count(), MAX_TOOL_TEXT_CHARS + 1);
        assert!(turns[1].text.ends_with('…'));
        assert_eq!(turns[2].text, "listed");
        assert!(!turns.iter().any(|t| t.text.contains("secret plan")));
    }

    #[test]
    fn injected_user_text_is_meta() {
        let (turns, _) = parse(&[
            r#"{"type":"user","isMeta":true,"message":{"content":"Caveat: generated while running local commands"}}"#,
            r#"{"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued…"}}"#,
            r#"{"type":"user","message":{"content":"<command-name>/model</command-name>"}}"#,
            r#"{"type":"user","message":{"content":"<local-command-stdout>ok</local-command-stdout>"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
            r#"{"type":"system","subtype":"local_command","content":"<command-name>/mcp</command-name>"}"#,
            r#"{"type":"user","message":{"content":"the command-name tag is just words here"}}"#,
        ]);
        let kinds: Vec<_> = turns.iter().map(|t| t.kind).collect();
        assert_eq!(kinds[..6], [TurnKind::Meta; 6]);
        assert_eq!(kinds[6], TurnKind::Conversation);
        assert_eq!(turns[5].role, Role::System);
    }

    #[test]
    fn synthetic_assistant_messages_are_meta() {
        let (turns, _) = parse(&[
            r#"{"type":"assistant","isApiErrorMessage":true,"message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error: overloaded"}]}}"#,
            r#"{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}"#,
        ]);
        assert_eq!(turns.iter().map(|t| t.kind).collect::<Vec<_>>(), [TurnKind::Meta; 2]);
    }

    #[test]
    fn metadata_lines_are_known_without_turns_and_unknown_or_broken_lines_are_unknown() {
        let (turns, outcomes) = parse(&[
            r#"{"type":"summary","summary":"Fix the login bug","leafUuid":"x"}"#,
            r#"{"type":"agent-color","color":"blue"}"#,
            r#"{"type":"marble-origami-commit"}"#,
            r#"{"type":"progress","data":{"type":"hook_progress"}}"#,
            r#"{"type":"queue-operation","operation":"enqueue","content":"later"}"#,
            r#"{"type":"system","subtype":"turn_duration","durationMs":12}"#,
            r#"{"type":"brand-new-entry"}"#,
            r#"{"type":"user"}"#,
            r#"{"type":"user","message":{"content":42}}"#,
            r#"{"type":"assistant","message":"not an object"}"#,
            r#"{"type":"attachment"}"#,
            r#"{"message":{"content":"no type"}}"#,
            r#"[1,2,3]"#,
        ]);
        assert!(turns.is_empty(), "{turns:#?}");
        let unknown = outcomes.iter().filter(|o| **o == LineOutcome::Unknown).count();
        assert_eq!(outcomes[..6], [LineOutcome::Known; 6]);
        assert_eq!(unknown, 7);
    }

    #[test]
    fn a_repeated_entry_adds_no_second_turn_but_split_messages_keep_every_block() {
        let (turns, outcomes) = parse(&[
            r#"{"type":"assistant","uuid":"u1","message":{"id":"m1","content":[{"type":"text","text":"part one"}]}}"#,
            r#"{"type":"assistant","uuid":"u2","message":{"id":"m1","content":[{"type":"tool_use","name":"Read","input":{}}]}}"#,
            r#"{"type":"assistant","uuid":"u1","message":{"id":"m1","content":[{"type":"text","text":"part one"}]}}"#,
        ]);
        assert_eq!(outcomes, [LineOutcome::Known; 3]);
        assert_eq!(turns.iter().map(|t| t.text.as_str()).collect::<Vec<_>>(), ["part one", "Read: {}"]);
    }

    #[test]
    fn sidechain_entries_are_ordinary_turns_and_attachments_with_text_are_meta() {
        let (turns, _) = parse(&[
            r#"{"type":"user","isSidechain":true,"message":{"content":"explore the repo"}}"#,
            r#"{"type":"attachment","attachment":{"type":"hook_additional_context","content":"extra context"}}"#,
            r#"{"type":"attachment","attachment":{"type":"todo","todos":[]}}"#,
        ]);
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].kind, TurnKind::Conversation);
        assert_eq!((turns[1].kind, turns[1].text.as_str()), (TurnKind::Meta, "extra context"));
    }
    #[test]
    fn the_entries_of_client_2_1_332_are_known_and_a_request_blob_is_never_the_users_words() {
        let (turns, outcomes) = parse(&[
            r#"{"type":"api-request","requestId":"r1","model":"claude-sonnet","max_tokens":32000,"shapeHash":"h1"}"#,
            r#"{"type":"api-request-shape","shapeHash":"h1","system":[{"type":"text","text":"You are the agent"}],"tools":[{"name":"Read"}]}"#,
            r#"{"type":"api-request-blob","requestId":"r1","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>Contents of MEMORY.md (user's auto-memory): we deploy on Tuesdays</system-reminder>"}]}}"#,
            r#"{"type":"api-request-blob","requestId":"r1","message":{"role":"system","content":"reminder"}}"#,
            r#"{"type":"atis-latch","value":true}"#,
            r#"{"type":"tools-used","tools":["Read"],"sessionId":"s"}"#,
            r#"{"type":"cost-state","totalCostUSD":0.01,"totalAPIDuration":12,"modelUsage":{"m":{"inputTokens":3}}}"#,
            r#"{"type":"attachment","attachment":{"type":"prompt_snapshot","content":"the whole system prompt"}}"#,
            r#"{"type":"attachment","attachment":{"type":"environment","cwd":"/p","platform":"linux"}}"#,
            r#"{"type":"attachment","attachment":{"type":"model","model":"claude-sonnet"}}"#,
            r#"{"type":"attachment","attachment":{"type":"session_context","gitStatus":"clean"}}"#,
            r#"{"type":"attachment","attachment":{"type":"date","date":"2026-05-08"}}"#,
            r#"{"type":"attachment","attachment":{"type":"remote_session_change"}}"#,
            r#"{"type":"user","message":{"role":"user","content":"we deploy on Thursdays now"}}"#,
        ]);
        assert!(outcomes.iter().all(|o| *o == LineOutcome::Known), "{outcomes:?}");
        // The one conversation turn is what the user typed; the blob's text is nowhere.
        let said: Vec<&str> = turns.iter().filter(|t| t.is_conversation()).map(|t| t.text.as_str()).collect();
        assert_eq!(said, ["we deploy on Thursdays now"]);
        assert!(turns.iter().all(|t| !t.text.contains("Tuesdays") && t.text != "reminder"), "{turns:#?}");
        // An attachment's text is context the client injected: meta, never conversation.
        assert!(turns.iter().filter(|t| t.text.contains("system prompt")).all(|t| t.kind == TurnKind::Meta));
    }
}
