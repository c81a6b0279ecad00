//! The agent's session transcripts: which ones exist, which were touched since a moment,
//! and what was said in them.
//!
//! Listing is cheap (one directory scan, one `stat` per entry) because the sessions gate
//! runs it from the hook. Parsing turns a transcript of any supported format into
//! [`Turn`]s; a line that does not parse is skipped and counted, never fatal.

mod claude;
mod codex;
mod gemini;
mod generic;
mod line;
mod listing;
mod parse;
mod subagents;
mod turn;

pub use listing::{SessionFile, SessionWindow, count_touched_since, list_sessions, touched_since};
pub use parse::{ParsedSession, detect_format, parse_session, parse_session_file, session_file_for, text_of};
pub use turn::{Role, Turn, TurnKind};

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A transcript format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SessionFormat {
    /// Pick by the first parsable line of each file.
    #[default]
    Auto,
    /// The coding agent's transcripts: `<uuid>.jsonl` with typed entries.
    Claude,
    /// Any `*.jsonl` whose lines are `{"timestamp","role","name"?,"content","id"?}`.
    Generic,
    /// Codex CLI rollouts: `{timestamp, type, payload}` lines.
    Codex,
    /// Gemini CLI chats: `session-*.json` (one JSON object), `session-*.jsonl`, `logs.json`.
    Gemini,
}

impl fmt::Display for SessionFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SessionFormat::Auto => "auto",
            SessionFormat::Claude => "claude",
            SessionFormat::Generic => "generic",
            SessionFormat::Codex => "codex",
            SessionFormat::Gemini => "gemini",
        })
    }
}

impl FromStr for SessionFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(SessionFormat::Auto),
            "claude" => Ok(SessionFormat::Claude),
            "generic" => Ok(SessionFormat::Generic),
            "codex" => Ok(SessionFormat::Codex),
            "gemini" => Ok(SessionFormat::Gemini),
            other => Err(format!(
                "unknown sessions format {other:?} (expected auto, claude, generic, codex or gemini)"
            )),
        }
    }
}

/// Where an agent other than the default one keeps the sessions of `project`, for
/// `--sessions-format` without `--sessions-dir`: Gemini CLI's chats,
/// `~/.gemini/tmp/<SHA-256 of the project path>/chats`, and Codex CLI's rollouts,
/// `$CODEX_HOME/sessions` (default `~/.codex/sessions`; Codex files them by date, not by
/// project). `None` for the formats whose sessions are the default layout's.
pub fn agent_sessions_dir(format: SessionFormat, project: &Path) -> Option<PathBuf> {
    let home = || std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    match format {
        SessionFormat::Gemini => {
            use sha2::{Digest, Sha256};
            let hash: String = Sha256::digest(project.as_os_str().as_encoded_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            Some(home()?.join(".gemini").join("tmp").join(hash).join("chats"))
        }
        SessionFormat::Codex => match std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
            Some(h) => Some(PathBuf::from(h).join("sessions")),
            None => Some(home()?.join(".codex").join("sessions")),
        },
        _ => None,
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot read sessions folder {path}: {source}")]
    ReadDir { path: std::path::PathBuf, source: std::io::Error },
    #[error("cannot read transcript {path}: {source}")]
    ReadFile { path: std::path::PathBuf, source: std::io::Error },
}
