//! One transcript line, as every format reader renders it: the leaf the readers share.
//!
//! What a line turned out to be ([`LineOutcome`]), where its turns go ([`LineTurns`], which
//! merges a message split into text blocks), and the helpers that make every format render
//! tool traffic and timestamps the same way. The readers (`claude`, `codex`, `generic`) and
//! `parse` depend on this file; it depends on none of them.

use jiff::Timestamp;
use serde_json::{Map, Value};

use super::{Role, Turn, TurnKind};

/// What one line of a transcript turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineOutcome {
    /// Zero or more turns were produced (metadata lines produce none).
    Known,
    /// The line is JSON, but not an entry this format knows.
    Unknown,
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
}
