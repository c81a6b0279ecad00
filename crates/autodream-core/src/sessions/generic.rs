//! The generic transcript: one JSON object a line,
//! `{"timestamp","role","name"?,"content","id"?}`.

use jiff::Timestamp;
use serde_json::Value;

use super::line::LineOutcome;
use super::{Role, Turn, TurnKind};

pub(crate) fn parse_line(v: &Value, session: &str, line: usize, out: &mut Vec<Turn>) -> LineOutcome {
    let Some(obj) = v.as_object() else { return LineOutcome::Unknown };
    let role = match obj.get("role").and_then(Value::as_str) {
        Some("user" | "human") => Role::User,
        Some("assistant" | "ai" | "model") => Role::Assistant,
        Some("system") => Role::System,
        Some("tool" | "function") => Role::Tool,
        _ => return LineOutcome::Unknown,
    };
    let text = match obj.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Value::as_str)))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return LineOutcome::Unknown,
    };
    let time = obj.get("timestamp").and_then(Value::as_str).and_then(|s| s.parse::<Timestamp>().ok());
    let speaker = obj.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let kind = match role {
        Role::Tool => TurnKind::ToolNoise,
        Role::System => TurnKind::Meta,
        _ => TurnKind::Conversation,
    };
    out.push(Turn { session: session.to_string(), time, role, speaker, text, kind, line });
    LineOutcome::Known
}
