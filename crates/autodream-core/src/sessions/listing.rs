//! Listing transcripts, and "sessions touched since T" for the sessions gate.
//!
//! The gate runs from the hook, so this is one non-recursive directory scan with one
//! `stat` per candidate and no file reads.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use jiff::Timestamp;
use serde::Serialize;

use super::{SessionError, SessionFormat};
use crate::clock::from_system_time;

/// A transcript file on disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionFile {
    /// The session id: the file stem.
    pub id: String,
    pub path: PathBuf,
    /// `modified_at`: the file's mtime.
    pub modified_at: Timestamp,
}

/// Is `name` the file name of a session of `format`? For the agent's layout (and `auto`)
/// only UUID-named `*.jsonl`; subagent files (`agent-*.jsonl`) never count.
pub fn is_session_name(name: &str, format: SessionFormat) -> bool {
    let Some(stem) = name.strip_suffix(".jsonl") else {
        return false;
    };
    if stem.starts_with("agent-") || stem.starts_with('.') || stem.is_empty() {
        return false;
    }
    match format {
        SessionFormat::Claude => is_uuid(stem),
        SessionFormat::Generic | SessionFormat::Codex | SessionFormat::Auto => true,
    }
}

/// 8-4-4-4-12 hexadecimal digits.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn scan(
    dir: &Path,
    format: SessionFormat,
    mut keep: impl FnMut(&str, SystemTime) -> bool,
    mut found: impl FnMut(String, PathBuf, SystemTime),
) -> Result<(), SessionError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(SessionError::ReadDir { path: dir.to_path_buf(), source }),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !is_session_name(name, format) {
            continue;
        }
        // `metadata` follows symlinks, so a linked transcript counts like a real one.
        let Ok(meta) = std::fs::metadata(entry.path()) else { continue };
        if !meta.is_file() {
            continue;
        }
        let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        if keep(stem, mtime) {
            found(stem.to_string(), entry.path(), mtime);
        }
    }
    Ok(())
}

/// Every session file in `dir`, oldest first.
pub fn list_sessions(dir: &Path, format: SessionFormat) -> Result<Vec<SessionFile>, SessionError> {
    touched_since(dir, format, None, None)
}

/// Session files modified strictly after `since` (all when `None`), minus `exclude`
/// (the current session, whose transcript is always fresh), oldest first.
pub fn touched_since(
    dir: &Path,
    format: SessionFormat,
    since: Option<SystemTime>,
    exclude: Option<&str>,
) -> Result<Vec<SessionFile>, SessionError> {
    touched_between(dir, format, since, None, exclude)
}

/// [`touched_since`], also leaving out files modified after `until` ("now"): when a history
/// is replayed with an injected clock, a transcript from the future is not yet written.
pub fn touched_between(
    dir: &Path,
    format: SessionFormat,
    since: Option<SystemTime>,
    until: Option<SystemTime>,
    exclude: Option<&str>,
) -> Result<Vec<SessionFile>, SessionError> {
    let mut out = Vec::new();
    scan(
        dir,
        format,
        |stem, mtime| in_window(stem, mtime, since, until, exclude),
        |id, path, mtime| out.push(SessionFile { id, path, modified_at: from_system_time(mtime) }),
    )?;
    out.sort_by(|a, b| a.modified_at.cmp(&b.modified_at).then_with(|| a.id.cmp(&b.id)));
    Ok(out)
}

/// The count of [`touched_since`], without building the list.
pub fn count_touched_since(
    dir: &Path,
    format: SessionFormat,
    since: Option<SystemTime>,
    exclude: Option<&str>,
) -> Result<usize, SessionError> {
    count_touched_between(dir, format, since, None, exclude)
}

/// The count of [`touched_between`], without building the list: the sessions gate.
pub fn count_touched_between(
    dir: &Path,
    format: SessionFormat,
    since: Option<SystemTime>,
    until: Option<SystemTime>,
    exclude: Option<&str>,
) -> Result<usize, SessionError> {
    let mut n = 0;
    scan(dir, format, |stem, mtime| in_window(stem, mtime, since, until, exclude), |_, _, _| n += 1)?;
    Ok(n)
}

fn in_window(
    stem: &str,
    mtime: SystemTime,
    since: Option<SystemTime>,
    until: Option<SystemTime>,
    exclude: Option<&str>,
) -> bool {
    Some(stem) != exclude && since.is_none_or(|s| mtime > s) && until.is_none_or(|u| mtime <= u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_leaves_out_files_from_after_now() {
        let tmp = tempfile::tempdir().unwrap();
        let at = |secs: u64| SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        for (name, secs) in [("a", 100), ("b", 200), ("c", 300)] {
            let p = tmp.path().join(format!("{name}.jsonl"));
            std::fs::write(&p, "{}\n").unwrap();
            std::fs::File::options().write(true).open(&p).unwrap().set_modified(at(secs)).unwrap();
        }
        let ids = |v: Vec<SessionFile>| v.into_iter().map(|f| f.id).collect::<Vec<_>>();
        let f = SessionFormat::Generic;
        assert_eq!(ids(touched_between(tmp.path(), f, Some(at(100)), Some(at(200)), None).unwrap()), ["b"]);
        assert_eq!(count_touched_between(tmp.path(), f, None, Some(at(250)), Some("a")).unwrap(), 1);
        assert_eq!(count_touched_since(tmp.path(), f, None, None).unwrap(), 3);
    }

    #[test]
    fn only_uuid_named_jsonl_count_for_the_agent_layout() {
        assert!(is_session_name("1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl", SessionFormat::Claude));
        assert!(!is_session_name("agent-1af7fc5e.jsonl", SessionFormat::Claude));
        assert!(!is_session_name("notes.jsonl", SessionFormat::Claude));
        assert!(!is_session_name("1af7fc5e-8455-4414-9ccd-011d40f70b2a.json", SessionFormat::Claude));
        assert!(is_session_name("conv-26-session-1.jsonl", SessionFormat::Generic));
        assert!(!is_session_name("agent-x.jsonl", SessionFormat::Generic));
    }
}
