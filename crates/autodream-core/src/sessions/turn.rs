//! One [`Turn`]: the unit every transcript format is read into.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// Who produced a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    System,
    Tool,
}

/// What a turn is for the purpose of remembering: conversation is signal, tool traffic and
/// injected meta text are kept apart so engines can ignore them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnKind {
    /// Words a person or the assistant said to each other.
    Conversation,
    /// Tool calls and tool results (commands, file reads, outputs).
    ToolNoise,
    /// Injected text: slash-command expansions, caveats, compact summaries, system notes.
    Meta,
}

/// One turn of a session, whatever the transcript format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The session id (file stem for most formats).
    pub session: String,
    /// When the turn happened, if the transcript says.
    pub time: Option<Timestamp>,
    pub role: Role,
    /// A speaker's name when the format carries one (generic `name`), else `None`.
    pub speaker: Option<String>,
    /// The text: content blocks joined by newlines; tool calls rendered as `name: input`.
    pub text: String,
    pub kind: TurnKind,
    /// 1-based line in the source file (for JSON documents: 1).
    pub line: usize,
}

impl Turn {
    pub fn is_conversation(&self) -> bool {
        self.kind == TurnKind::Conversation
    }

    /// The name to attribute first-person statements to: the speaker, else the role.
    pub fn speaker_or_role(&self) -> &str {
        match (&self.speaker, self.role) {
            (Some(s), _) => s,
            (None, Role::User) => "user",
            (None, Role::Assistant) => "assistant",
            (None, Role::System) => "system",
            (None, Role::Tool) => "tool",
        }
    }
}
