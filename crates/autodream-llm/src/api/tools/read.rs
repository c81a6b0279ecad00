//! Read: a text file with line numbers, a line range and a size cap.
//!
//! Session transcripts are JSON Lines whose lines run to many kilobytes of tool traffic; by
//! default Read shows them as the conversation turns the session parsers extract (each tagged
//! with its source line, so Grep hits and Read ranges line up), which costs the model a
//! fraction of the tokens. `raw: true` shows the JSON itself.

use std::io::{BufRead, BufReader, Read as _};

use autodream_core::sessions::{SessionFile, parse_session};
use serde::Deserialize;

use super::{ToolBox, ToolOutcome, cap_chars, cap_output, parse_input};
use crate::sandbox::{Access, RootKind};

/// Lines shown when no limit is given.
const DEFAULT_LIMIT: usize = 2000;
/// Characters shown of one line.
const MAX_LINE_CHARS: usize = 2000;
/// Characters shown of one transcript turn.
const MAX_TURN_CHARS: usize = 4000;
/// Largest transcript parsed whole for the turn view.
const MAX_TRANSCRIPT_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Deserialize)]
struct Input {
    file_path: String,
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    raw: bool,
}

pub(super) fn run(tools: &ToolBox, input: &serde_json::Value) -> ToolOutcome {
    let input: Input =
        match parse_input("Read", input, "{\"file_path\": string, \"offset\"?: int, \"limit\"?: int}") {
            Ok(i) => i,
            Err(outcome) => return outcome,
        };
    let resolved = match tools.sandbox.resolve(&input.file_path, Access::Read) {
        Ok(r) => r,
        Err(e) => return ToolOutcome::from_access(e),
    };
    let file = match tools.sandbox.open_file(&resolved) {
        Ok(f) => f,
        Err(e) => return ToolOutcome::from_access(e),
    };
    let offset = input.offset.unwrap_or(1).max(1);
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, 100_000);
    let is_transcript =
        resolved.kind == RootKind::Sessions && resolved.rel.extension().is_some_and(|e| e == "jsonl");
    let body = if is_transcript && !input.raw {
        match transcript_view(tools, &resolved, file, offset, limit) {
            Ok(text) => text,
            Err(message) => return ToolOutcome::error(message),
        }
    } else {
        match numbered_lines(file, offset, limit) {
            Ok(text) => text,
            Err(message) => return ToolOutcome::error(format!("{}: {message}", resolved.display.display())),
        }
    };
    let body = cap_output(body, "read a smaller range with offset and limit");
    let (content, redactions) = if resolved.kind == RootKind::Memory {
        // Memory files are our own output; redacting them would make Edit's exact match fail.
        (body, 0)
    } else {
        tools.present(&body)
    };
    ToolOutcome { content, redactions, ..ToolOutcome::default() }
}

/// `cat -n`-style lines `offset..offset+limit`, long lines cut.
fn numbered_lines(file: std::fs::File, offset: usize, limit: usize) -> Result<String, String> {
    let mut reader = BufReader::new(file);
    let mut head = [0u8; 8192];
    let n = reader.get_mut().read(&mut head).map_err(|e| e.to_string())?;
    if head[..n].contains(&0) {
        return Err("a binary file; not shown".into());
    }
    let reader = BufReader::new(std::io::Cursor::new(head[..n].to_vec()).chain(reader.into_inner()));
    let mut out = String::new();
    let mut shown = 0usize;
    let mut last_line = 0usize;
    for (index, line) in reader.split(b'\n').enumerate() {
        let number = index + 1;
        last_line = number;
        if number < offset {
            line.map_err(|e| e.to_string())?;
            continue;
        }
        if shown == limit {
            out.push_str(&format!("[more lines follow; continue with offset {number}]\n"));
            break;
        }
        let bytes = line.map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        let text = cap_chars(text.to_string(), MAX_LINE_CHARS, "line cut");
        out.push_str(&format!("{number:>6}\t{text}\n"));
        shown += 1;
    }
    if shown == 0 {
        if last_line == 0 {
            return Ok("(empty file)".into());
        }
        return Ok(format!("(the file has {last_line} lines; offset {offset} is past the end)"));
    }
    Ok(out)
}

/// The conversation turns of a transcript whose source lines fall in the range.
fn transcript_view(
    tools: &ToolBox,
    resolved: &crate::sandbox::Resolved,
    file: std::fs::File,
    offset: usize,
    limit: usize,
) -> Result<String, String> {
    let mut text = String::new();
    let read = file
        .take(MAX_TRANSCRIPT_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: not UTF-8 text ({e}); try raw=true", resolved.display.display()))?;
    if read as u64 > MAX_TRANSCRIPT_BYTES {
        return Err(format!(
            "{}: too large to show as turns; use Grep, or raw=true with offset and limit",
            resolved.display.display()
        ));
    }
    let id = resolved.rel.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let session =
        SessionFile { id, path: resolved.display.clone(), modified_at: jiff::Timestamp::UNIX_EPOCH };
    let parsed = parse_session(session, &text, tools.sessions_format);
    let end = offset.saturating_add(limit);
    let mut out = format!(
        "Transcript {} ({} format; conversation turns only; [Lnn] = source line)\n",
        resolved.display.display(),
        parsed.format
    );
    let mut shown = 0usize;
    let mut hidden = 0usize;
    for turn in parsed.turns.iter().filter(|t| t.line >= offset && t.line < end) {
        if !turn.is_conversation() {
            hidden += 1;
            continue;
        }
        let when = turn.time.map(|t| format!(" {}", t.strftime("%Y-%m-%d %H:%M UTC"))).unwrap_or_default();
        let words =
            cap_chars(turn.text.trim().to_string(), MAX_TURN_CHARS, "turn cut; read it with raw=true");
        out.push_str(&format!("[L{}]{when} {}: {words}\n", turn.line, turn.speaker_or_role()));
        shown += 1;
    }
    let total_lines = text.lines().count();
    if shown == 0 {
        out.push_str("(no conversation turns in this range)\n");
    }
    if hidden > 0 {
        out.push_str(&format!("[{hidden} tool or system entries not shown; raw=true shows them]\n"));
    }
    if end <= total_lines {
        out.push_str(&format!("[the transcript has {total_lines} lines; continue with offset {end}]\n"));
    }
    Ok(out)
}
