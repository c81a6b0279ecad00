//! Reading a transcript file into [`Turn`]s, whatever its format.
//!
//! Every format is JSON Lines. Each line is parsed on its own; a line that is not JSON, or
//! whose shape the format does not know, is skipped and counted in
//! [`ParsedSession::skipped_lines`] — a damaged transcript never stops a dream.

use std::path::Path;

use serde::Serialize;

use super::listing::SessionFile;
use super::{SessionError, SessionFormat, Turn, claude, codex, generic};

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

/// Picks the format from the first line that parses as JSON.
pub fn detect_format(text: &str) -> Option<SessionFormat> {
    text.lines().filter(|l| !l.trim().is_empty()).find_map(|line| {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let obj = v.as_object()?;
        if obj.contains_key("payload") && obj.contains_key("type") {
            Some(SessionFormat::Codex)
        } else if obj.contains_key("role") && obj.contains_key("content") && !obj.contains_key("message") {
            Some(SessionFormat::Generic)
        } else if obj.contains_key("type") {
            Some(SessionFormat::Claude)
        } else {
            None
        }
    })
}

/// Parses transcript text. `format` may be `Auto`.
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
    let meta = std::fs::metadata(path).map_err(|source| SessionError::ReadFile { path: path.to_path_buf(), source })?;
    let id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(SessionFile {
        id,
        path: path.to_path_buf(),
        modified_at: crate::clock::from_system_time(meta.modified().unwrap_or(std::time::SystemTime::UNIX_EPOCH)),
    })
}
