//! Codex CLI rollouts: `rollout-<time>-<uuid>.jsonl`, one `{timestamp, type, payload}` a line.
//!
//! - `response_item` lines are the conversation as the model saw it: `message` items
//!   (user or assistant text) are turns, tool calls and their outputs are tool noise, and
//!   `reasoning` is dropped (it is the model's private summary, not something said).
//! - `event_msg` lines are the UI's event stream. `user_message` and `agent_message` repeat,
//!   word for word, the text of the `message` response items next to them, so reading them
//!   too would count every turn twice; they, and the token counts and reasoning echoes, are
//!   recognised and produce no turn.
//! - `session_meta`, `turn_context` are metadata; `compacted` holds the summary that replaces
//!   a compacted history (meta).
//!
//! Rollouts written before the envelope existed hold bare response items
//! (`{"type":"message","role":…}`), a header line `{id, timestamp, instructions}` and
//! `{"record_type":"state"}` markers; those are read too.

use serde_json::{Map, Value};

use super::line::{
    LineOutcome, LineTurns, MAX_TOOL_TEXT_CHARS, compact_json, entry_time, tool_call_text, truncate_chars,
};
use super::{Role, Turn, TurnKind};

/// Openings of user messages that Codex injects as context rather than the user typing them.
const INJECTED_USER_PREFIXES: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "# AGENTS.md instructions",
];

/// Reads one rollout line. `line` is 1-based.
pub(crate) fn parse_line(v: &Value, session: &str, line: usize, out: &mut Vec<Turn>) -> LineOutcome {
    let Some(entry) = v.as_object() else { return LineOutcome::Unknown };
    let time = entry_time(entry);
    let mut sink = LineTurns::new(out, session, line, time);
    let Some(entry_type) = entry.get("type").and_then(Value::as_str) else {
        // The legacy header and state markers carry no `type`.
        let legacy_header = entry.contains_key("id") && entry.contains_key("timestamp");
        return if legacy_header || entry.contains_key("record_type") {
            LineOutcome::Known
        } else {
            LineOutcome::Unknown
        };
    };
    let payload = entry.get("payload");
    match (entry_type, payload) {
        ("session_meta" | "turn_context", _) => LineOutcome::Known,
        ("response_item", Some(Value::Object(item))) => response_item(item, &mut sink),
        ("event_msg", Some(Value::Object(event))) => {
            if event.get("type").and_then(Value::as_str).is_some() {
                LineOutcome::Known
            } else {
                LineOutcome::Unknown
            }
        }
        ("compacted", Some(Value::Object(compacted))) => {
            if let Some(summary) = compacted.get("message").and_then(Value::as_str) {
                sink.text(Role::System, TurnKind::Meta, summary);
            }
            LineOutcome::Known
        }
        // A bare response item from a rollout written before the envelope.
        (_, None) => response_item(entry, &mut sink),
        _ => LineOutcome::Unknown,
    }
}

/// One model-visible item: a message, a tool call or output, or reasoning.
fn response_item(item: &Map<String, Value>, sink: &mut LineTurns<'_>) -> LineOutcome {
    let Some(item_type) = item.get("type").and_then(Value::as_str) else { return LineOutcome::Unknown };
    match item_type {
        "message" => message(item, sink),
        "reasoning" | "ghost_snapshot" => LineOutcome::Known,
        "function_call" => {
            let (Some(name), Some(arguments)) =
                (item.get("name").and_then(Value::as_str), item.get("arguments"))
            else {
                return LineOutcome::Unknown;
            };
            sink.tool(Role::Assistant, tool_call_text(name, &compact_json(arguments)));
            LineOutcome::Known
        }
        "custom_tool_call" => {
            let Some(name) = item.get("name").and_then(Value::as_str) else { return LineOutcome::Unknown };
            let input = item.get("input").map(compact_json).unwrap_or_default();
            sink.tool(Role::Assistant, tool_call_text(name, &input));
            LineOutcome::Known
        }
        "local_shell_call" | "web_search_call" => {
            let name = item_type.trim_end_matches("_call");
            let action = item.get("action").map(compact_json).unwrap_or_default();
            sink.tool(Role::Assistant, tool_call_text(name, &action));
            LineOutcome::Known
        }
        // `function_call_output`, `custom_tool_call_output`, `local_shell_call_output`, …
        t if t.ends_with("_output") => {
            let text = item.get("output").map(output_text).unwrap_or_default();
            sink.tool(Role::Tool, truncate_chars(text.trim(), MAX_TOOL_TEXT_CHARS));
            LineOutcome::Known
        }
        _ => LineOutcome::Unknown,
    }
}

/// A tool output: usually a string; some versions wrap it as `{content, success}`.
fn output_text(output: &Value) -> String {
    match output.get("content") {
        Some(Value::String(content)) => content.clone(),
        _ => compact_json(output),
    }
}

fn message(item: &Map<String, Value>, sink: &mut LineTurns<'_>) -> LineOutcome {
    let role = match item.get("role").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        // Developer and system messages are instructions Codex sends, never conversation.
        Some("developer" | "system") => Role::System,
        _ => return LineOutcome::Unknown,
    };
    let kind_of = |text: &str| match role {
        Role::System => TurnKind::Meta,
        Role::User if is_injected_user_text(text) => TurnKind::Meta,
        _ => TurnKind::Conversation,
    };
    let mut say = |text: &str| match typed_request(role, text) {
        // What the front-end put around the request is its own; the request alone is said.
        Some((context, request)) => {
            sink.text(role, TurnKind::Meta, context);
            if !request.trim().is_empty() {
                sink.text(role, kind_of(request), request);
            }
        }
        None => sink.text(role, kind_of(text), text),
    };
    match item.get("content") {
        Some(Value::String(text)) => say(text),
        Some(Value::Array(parts)) => {
            for part in parts {
                // `input_text` / `output_text`; images and refusals carry no text to keep.
                if let Some(text) = part.get("text").and_then(Value::as_str) {
                    say(text);
                }
            }
        }
        _ => return LineOutcome::Unknown,
    }
    LineOutcome::Known
}

/// The line a Codex front-end (the IDE extension, the desktop app) puts before what the user
/// typed, after the context it adds on its own: "# Context from my IDE setup:" with the open
/// tabs, "# Files mentioned by the user:" with attachments' paths, "# In app browser:" with the
/// page shown.
const REQUEST_MARKER: &str = "## My request for Codex:";

/// A user message a front-end wrapped: the context it added, and what the user typed (from the
/// first marker on: a request that quotes the marker is the user's whole).
fn typed_request(role: Role, text: &str) -> Option<(&str, &str)> {
    if role != Role::User || !text.trim_start().starts_with('#') {
        return None;
    }
    let at = text.find(REQUEST_MARKER)?;
    Some((text[..at].trim(), text[at + REQUEST_MARKER.len()..].trim()))
}

fn is_injected_user_text(text: &str) -> bool {
    let text = text.trim_start();
    INJECTED_USER_PREFIXES.iter().any(|prefix| text.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(lines: &[&str]) -> (Vec<Turn>, Vec<LineOutcome>) {
        let mut out = Vec::new();
        let outcomes = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let v: Value = serde_json::from_str(l).expect("test line is JSON");
                parse_line(&v, "rollout", i + 1, &mut out)
            })
            .collect();
        (out, outcomes)
    }

    #[test]
    fn messages_are_conversation_and_injected_context_is_meta() {
        let (turns, outcomes) = parse(&[
            r#"{"timestamp":"2025-12-09T19:55:16.295Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"}]}}"#,
            r#"{"timestamp":"2025-12-09T19:55:17.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"add a hello script"}]}}"#,
            r#"{"timestamp":"2025-12-09T19:55:18.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Added hello.py"}]}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"sandbox rules"}]}}"#,
        ]);
        assert_eq!(outcomes, [LineOutcome::Known; 4]);
        let summary: Vec<_> = turns.iter().map(|t| (t.role, t.kind, t.text.as_str())).collect();
        assert_eq!(
            summary[1..],
            [
                (Role::User, TurnKind::Conversation, "add a hello script"),
                (Role::Assistant, TurnKind::Conversation, "Added hello.py"),
                (Role::System, TurnKind::Meta, "sandbox rules"),
            ]
        );
        assert_eq!((summary[0].0, summary[0].1), (Role::User, TurnKind::Meta));
        assert_eq!(turns[2].time.map(|t| t.to_string()).as_deref(), Some("2025-12-09T19:55:18Z"));
    }

    #[test]
    fn what_a_front_end_wraps_around_the_request_is_not_the_users() {
        let wrapped = |text: &str| {
            format!(
                r#"{{"type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}]}}}}"#,
                serde_json::to_string(text).expect("string")
            )
        };
        let browser = wrapped(
            "\n# In app browser:\n- The user has the in-app browser open.\n- Current URL: http://127.0.0.1:5173/\n\n## My request for Codex:\ncan you run the site again\n",
        );
        let files = wrapped(
            "# Files mentioned by the user:\n\n## shot.png: /tmp/shot.png\n\n## My request for Codex:\n",
        );
        let ide = wrapped(
            "# Context from my IDE setup:\n\n## Open tabs:\n- main.rs: src/main.rs\n\n## My request for Codex:\nwe deploy with fly",
        );
        // A heading the user typed, with no marker, is the user's; so is a marker they quote.
        let typed = wrapped("# Plan\nship it");
        let quoted = wrapped(
            "# Files mentioned by the user:\n\n## My request for Codex:\nstrip \"## My request for Codex:\" in the parser",
        );
        let (turns, outcomes) = parse(&[&browser, &files, &ide, &typed, &quoted]);
        assert_eq!(outcomes, [LineOutcome::Known; 5]);
        let said: Vec<_> =
            turns.iter().filter(|t| t.kind == TurnKind::Conversation).map(|t| t.text.as_str()).collect();
        assert_eq!(
            said,
            [
                "can you run the site again",
                "we deploy with fly",
                "# Plan\nship it",
                "strip \"## My request for Codex:\" in the parser"
            ]
        );
        assert!(
            turns
                .iter()
                .filter(|t| t.kind == TurnKind::Meta)
                .all(|t| t.text.starts_with('#') && !t.text.contains("My request"))
        );
    }

    #[test]
    fn tool_calls_and_outputs_are_tool_noise_and_reasoning_is_dropped() {
        let (turns, outcomes) = parse(&[
            r#"{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"thinking hard"}]}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"ls\"}","call_id":"c1"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Exit code: 0\n"}}"#,
            r#"{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c2"}}"#,
            r#"{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":{"content":"Success","success":true}}}"#,
        ]);
        assert_eq!(outcomes, [LineOutcome::Known; 5]);
        let texts: Vec<_> = turns.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(
            texts,
            [r#"shell_command: {"command":"ls"}"#, "Exit code: 0", "apply_patch: *** Begin Patch", "Success"]
        );
        assert!(turns.iter().all(|t| t.kind == TurnKind::ToolNoise));
        assert_eq!(
            turns.iter().map(|t| t.role).collect::<Vec<_>>(),
            [Role::Assistant, Role::Tool, Role::Assistant, Role::Tool]
        );
    }

    #[test]
    fn events_and_metadata_add_no_turns_and_unknown_shapes_are_unknown() {
        let (turns, outcomes) = parse(&[
            r#"{"type":"session_meta","payload":{"id":"x","cli_version":"0.66.0"}}"#,
            r#"{"type":"turn_context","payload":{"model":"gpt"}}"#,
            r#"{"type":"event_msg","payload":{"type":"user_message","message":"add a hello script"}}"#,
            r#"{"type":"event_msg","payload":{"type":"agent_message","message":"Added hello.py"}}"#,
            r#"{"type":"event_msg","payload":{"type":"token_count","info":null}}"#,
            r#"{"type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{}}}"#,
            r#"{"type":"event_msg","payload":{"message":"no event type"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"narrator","content":[]}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","arguments":"{}"}}"#,
            r#"{"type":"response_item","payload":{"type":"hologram"}}"#,
            r#"{"type":"response_item","payload":"flat"}"#,
            r#"{"type":"mystery","payload":{}}"#,
            r#""just a string""#,
        ]);
        assert!(turns.is_empty(), "{turns:#?}");
        assert_eq!(outcomes[..6], [LineOutcome::Known; 6]);
        assert_eq!(outcomes[6..], [LineOutcome::Unknown; 7]);
    }

    #[test]
    fn legacy_bare_items_are_read() {
        let (turns, outcomes) = parse(&[
            r#"{"id":"abc","timestamp":"2025-05-01T10:00:00Z","instructions":null}"#,
            r#"{"record_type":"state"}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}"#,
            r#"{"type":"compacted","payload":{"message":"summary of earlier work"}}"#,
        ]);
        assert_eq!(outcomes, [LineOutcome::Known; 4]);
        assert_eq!(turns.len(), 2);
        assert_eq!((turns[0].kind, turns[0].text.as_str()), (TurnKind::Conversation, "hello"));
        assert_eq!(turns[1].kind, TurnKind::Meta);
    }
}
