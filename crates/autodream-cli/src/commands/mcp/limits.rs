//! What the MCP tools accept, checked before anything touches the disk.
//!
//! A client is a model that may send anything: a note of megabytes, a path with a NUL byte,
//! a path of thousands of characters, a folder where a file is meant. Each is refused as
//! "invalid params" (-32602) with a message that says what is wrong and what is allowed, so
//! the model can correct its call; none of them is a failure of the server (-32603).

use std::path::Path;

use autodream_core::memdir::safe_path::SafePathError;
use autodream_core::memdir::search::ReadError;
use rmcp::ErrorData;

/// The most bytes of UTF-8 one `memory_log` entry may hold (4 KB): a note is one line of a
/// daily log, and the dream reads every line of it.
pub const MAX_LOG_ENTRY_BYTES: usize = 4096;
/// The longest path a tool takes, in bytes (the memory folder's files are a few levels deep).
pub const MAX_PATH_BYTES: usize = 1024;
/// The longest name of one file or folder, in bytes (the common file systems' limit).
pub const MAX_NAME_BYTES: usize = 255;
/// How much of a refused argument a message repeats.
const SHOWN_CHARS: usize = 60;

pub fn invalid(message: impl Into<String>) -> ErrorData {
    ErrorData::invalid_params(message.into(), None)
}

/// `text` as an error message repeats it: at most [`SHOWN_CHARS`] characters, control
/// characters escaped.
pub fn shown(text: &str) -> String {
    let mut s: String = text.chars().take(SHOWN_CHARS).flat_map(char::escape_debug).collect();
    if text.chars().count() > SHOWN_CHARS {
        s.push('…');
    }
    s
}

/// A note for `memory_log`: not empty, at most [`MAX_LOG_ENTRY_BYTES`].
pub fn check_note(text: &str) -> Result<(), ErrorData> {
    if text.trim().is_empty() {
        return Err(invalid("nothing to log: the note is empty"));
    }
    if text.len() > MAX_LOG_ENTRY_BYTES {
        return Err(invalid(format!(
            "the note is {} bytes; a log entry holds at most {MAX_LOG_ENTRY_BYTES} bytes (4 KB) of UTF-8: \
             shorten it, or log it as several notes",
            text.len()
        )));
    }
    Ok(())
}

/// A path for `memory_read` (or a resource's): a file's name, not too long, naming a file.
pub fn check_path(path: &str) -> Result<(), ErrorData> {
    if path.trim().is_empty() {
        return Err(invalid("the path is empty: name a memory file, such as MEMORY.md"));
    }
    if path.contains('\0') {
        return Err(invalid(format!(
            "path \"{}\": contains a NUL byte (\\0), which no file name holds",
            shown(path)
        )));
    }
    if path.len() > MAX_PATH_BYTES {
        return Err(invalid(format!(
            "path \"{}\": {} bytes long; a memory file's path is at most {MAX_PATH_BYTES} bytes",
            shown(path),
            path.len()
        )));
    }
    if let Some(name) = path.split('/').find(|c| c.len() > MAX_NAME_BYTES) {
        return Err(invalid(format!(
            "path \"{}\": the name \"{}\" is {} bytes long; a file name is at most {MAX_NAME_BYTES} bytes",
            shown(path),
            shown(name),
            name.len()
        )));
    }
    // `MEMORY.md/` would be read as `MEMORY.md`: a trailing `/` (or `/.`) names a folder.
    let trimmed = path.trim_end();
    if trimmed.ends_with('/') || trimmed.ends_with("/.") || trimmed == "." {
        return Err(invalid(format!(
            "path \"{}\": not a file: a path that ends with / (or /.) names a folder",
            shown(path)
        )));
    }
    Ok(())
}

/// Is `rel` a folder of the memory folder? The read passes over anything but a regular
/// file as "no such file"; a folder is worth saying so. (Only the message depends on it:
/// `rel` has passed the read's own checks, links included.)
pub fn is_folder(memory_dir: &Path, rel: &str) -> bool {
    std::fs::symlink_metadata(memory_dir.join(rel)).is_ok_and(|m| m.is_dir())
}

/// A failed read as the client is told it: its own mistakes are invalid params, the
/// machine's failures internal errors.
pub fn read_error(memory_dir: &Path, e: ReadError) -> ErrorData {
    match e {
        ReadError::Refused { .. } => invalid(e.to_string()),
        ReadError::NotFound { ref path } if is_folder(memory_dir, path) => {
            invalid(format!("{path}: not a file: it is a folder"))
        }
        ReadError::NotFound { .. } => invalid(e.to_string()),
        ReadError::Io { path, source: SafePathError::NotADirectory { component, .. } } => {
            invalid(format!("{path}: not a file: {} is not a folder", component.display()))
        }
        ReadError::Io { path, source: SafePathError::InvalidPath { reason, .. } } => {
            invalid(format!("{path}: {reason}"))
        }
        ReadError::Io { path, source } => match source.io_kind() {
            Some(
                std::io::ErrorKind::NotADirectory
                | std::io::ErrorKind::IsADirectory
                | std::io::ErrorKind::InvalidInput
                | std::io::ErrorKind::InvalidFilename,
            ) => invalid(format!("{path}: not a file the memory folder holds")),
            _ => ErrorData::internal_error(ReadError::Io { path, source }.to_string(), None),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_argument_is_repeated_short_and_escaped() {
        let long = "x".repeat(5000);
        assert_eq!(shown(&long).chars().count(), SHOWN_CHARS + 1);
        assert_eq!(shown("a\0b\nc"), "a\\0b\\nc");
    }

    #[test]
    fn paths_are_refused_for_what_is_wrong_with_them() {
        let message = |p: &str| check_path(p).unwrap_err().message.into_owned();
        assert!(message("a\0b.md").contains("NUL byte"));
        assert!(message(&"x".repeat(5000)).contains("5000 bytes long; a memory file's path is at most 1024"));
        assert!(message(&format!("{}.md", "x".repeat(300))).contains("a file name is at most 255 bytes"));
        assert!(message("MEMORY.md/").contains("not a file"));
        assert!(message("logs/.").contains("not a file"));
        assert!(message(" ").contains("the path is empty"));
        for fine in ["MEMORY.md", "logs/2026/05/2026-05-07.md", "./deploy.md"] {
            assert!(check_path(fine).is_ok(), "{fine}");
        }
    }

    #[test]
    fn a_note_is_at_most_4_kb_of_utf_8() {
        assert!(check_note(&"a".repeat(MAX_LOG_ENTRY_BYTES)).is_ok());
        // 1366 three-byte characters: 4098 bytes, fewer than 4096 characters.
        let e = check_note(&"€".repeat(1366)).unwrap_err();
        assert!(e.message.contains("4098 bytes; a log entry holds at most 4096 bytes"), "{e:?}");
        assert!(check_note(" \n ").is_err());
    }
}
