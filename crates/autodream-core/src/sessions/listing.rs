//! Listing transcripts, and "sessions touched since T" for the sessions gate.
//!
//! The gate runs from the hook, so this is one non-recursive directory scan with one
//! `stat` per candidate and no file reads.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use jiff::Timestamp;
use serde::Serialize;

use super::{SessionError, SessionFormat};
use crate::clock::{from_system_time, to_system_time};
use crate::paths::Locations;

/// A transcript file on disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionFile {
    /// The session id: the file stem.
    pub id: String,
    pub path: PathBuf,
    /// `modified_at`: the file's mtime.
    pub modified_at: Timestamp,
}

/// Is `name` the file name of a session of `format`? For the agent's layout only UUID-named
/// `*.jsonl`; subagent files (`agent-*.jsonl`) never count. Gemini CLI names its chats
/// `session-*.json` (newer versions `session-*.jsonl`), and its oldest layout keeps one
/// `logs.json`; `auto` takes Gemini's chats too.
pub fn is_session_name(name: &str, format: SessionFormat) -> bool {
    let gemini_chat = name.starts_with("session-") && name.len() > "session-.json".len();
    if let Some(stem) = name.strip_suffix(".json") {
        return match format {
            SessionFormat::Gemini => (gemini_chat && !stem.is_empty()) || name == "logs.json",
            SessionFormat::Auto => gemini_chat,
            _ => false,
        };
    }
    let Some(stem) = name.strip_suffix(".jsonl") else {
        return false;
    };
    if format == SessionFormat::Gemini {
        return gemini_chat;
    }
    if stem.starts_with("agent-") || stem.starts_with('.') || stem.is_empty() {
        return false;
    }
    match format {
        SessionFormat::Claude => is_uuid(stem),
        SessionFormat::Generic | SessionFormat::Codex | SessionFormat::Auto | SessionFormat::Gemini => true,
    }
}

/// Is the file with this stem the session `current` (the id the agent's hook gives)? The
/// agent names its transcripts by the id itself; Codex ends a rollout's name with it
/// (`rollout-<time>-<id>`), and Gemini CLI a chat's with its first eight characters
/// (`session-<time>-<id[..8]>`).
pub fn is_current(stem: &str, current: &str) -> bool {
    if current.is_empty() {
        return false;
    }
    if stem == current {
        return true;
    }
    let Some(tail) = stem.rsplit_once('-').map(|(_, t)| t) else { return false };
    let ends_with_id = stem.len() > current.len()
        && stem.ends_with(current)
        && stem.as_bytes()[stem.len() - current.len() - 1] == b'-';
    let gemini_short =
        stem.starts_with("session-") && current.len() >= 8 && tail.len() == 8 && current.starts_with(tail);
    ends_with_id || gemini_short
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
    scan_dir(dir, format, 0, &mut keep, &mut found)
}

/// How deep Codex's date folders go: `sessions/YYYY/MM/DD/rollout-….jsonl`.
const CODEX_DATE_DEPTH: usize = 3;

fn scan_dir(
    dir: &Path,
    format: SessionFormat,
    depth: usize,
    keep: &mut impl FnMut(&str, SystemTime) -> bool,
    found: &mut impl FnMut(String, PathBuf, SystemTime),
) -> Result<(), SessionError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(SessionError::ReadDir { path: dir.to_path_buf(), source }),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        // Codex files its rollouts by date: descend into the all-digit folders only.
        if format == SessionFormat::Codex
            && depth < CODEX_DATE_DEPTH
            && !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_digit())
            && entry.file_type().is_ok_and(|t| t.is_dir())
        {
            scan_dir(&entry.path(), format, depth + 1, keep, found)?;
            continue;
        }
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

/// The sessions a gate, a dream or a listing looks at: the transcripts in a sessions folder
/// modified strictly after `since` (all when `None`) and not after `until` ("now": when a
/// history is replayed with an injected clock, a transcript from the future is not yet
/// written), minus `exclude` (the current session, whose transcript is always fresh), and with
/// `project` only that project's Codex rollouts (Codex keeps every project's rollouts in one
/// folder; see [`codex_rollout_belongs`]).
#[derive(Debug, Clone, Copy)]
pub struct SessionWindow<'a> {
    pub dir: &'a Path,
    pub format: SessionFormat,
    pub since: Option<SystemTime>,
    pub until: Option<SystemTime>,
    pub exclude: Option<&'a str>,
    pub project: Option<&'a Path>,
}

impl<'a> SessionWindow<'a> {
    /// The project's sessions since `since` and up to `now`, minus the current one: what the
    /// sessions gate counts, a dream reads and `autodream sessions` lists.
    pub fn for_project(
        loc: &'a Locations,
        format: SessionFormat,
        since: Option<SystemTime>,
        now: Timestamp,
        current: Option<&'a str>,
    ) -> SessionWindow<'a> {
        SessionWindow {
            dir: &loc.sessions_dir,
            format,
            since,
            until: Some(to_system_time(now)),
            exclude: current,
            project: Some(&loc.project_dir),
        }
    }

    /// Every session file of the window, oldest first.
    pub fn files(&self) -> Result<Vec<SessionFile>, SessionError> {
        let mut out = Vec::new();
        self.walk(|id, path, mtime| {
            out.push(SessionFile { id, path, modified_at: from_system_time(mtime) })
        })?;
        out.sort_by(|a, b| a.modified_at.cmp(&b.modified_at).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    /// How many session files the window holds, without building the list: the sessions
    /// gate. Only a Codex rollout inside the window has its first line read.
    pub fn count(&self) -> Result<usize, SessionError> {
        let mut n = 0;
        self.walk(|_, _, _| n += 1)?;
        Ok(n)
    }

    /// The one walk of the folder both of them make.
    fn walk(&self, mut found: impl FnMut(String, PathBuf, SystemTime)) -> Result<(), SessionError> {
        let (since, until, exclude) = (self.since, self.until, self.exclude);
        scan(
            self.dir,
            self.format,
            |stem, mtime| in_window(stem, mtime, since, until, exclude),
            |id, path, mtime| {
                if self.project.is_none_or(|p| codex_rollout_belongs(&path, p)) {
                    found(id, path, mtime)
                }
            },
        )
    }
}

/// Session files modified strictly after `since`, minus `exclude`, oldest first (a window
/// with no end and no project).
pub fn touched_since(
    dir: &Path,
    format: SessionFormat,
    since: Option<SystemTime>,
    exclude: Option<&str>,
) -> Result<Vec<SessionFile>, SessionError> {
    SessionWindow { dir, format, since, until: None, exclude, project: None }.files()
}

/// The count of [`touched_since`], without building the list.
pub fn count_touched_since(
    dir: &Path,
    format: SessionFormat,
    since: Option<SystemTime>,
    exclude: Option<&str>,
) -> Result<usize, SessionError> {
    SessionWindow { dir, format, since, until: None, exclude, project: None }.count()
}

/// Whether a session file belongs to `project`: any file that is not a Codex rollout does
/// (the agent's own layout is already per project); a rollout does when the `cwd` of its
/// `session_meta` line lies inside the project's git root (else the project folder), or when
/// it names no `cwd` at all.
pub fn codex_rollout_belongs(path: &Path, project: &Path) -> bool {
    let is_rollout = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("rollout-"));
    if !is_rollout {
        return true;
    }
    let Some(cwd) = rollout_cwd(path) else { return true };
    let root = crate::paths::canonical_git_root(project).unwrap_or_else(|| project.to_path_buf());
    cwd.starts_with(&root)
}

/// The `cwd` a Codex rollout's first line (`session_meta`) records.
fn rollout_cwd(path: &Path) -> Option<PathBuf> {
    use std::io::{BufRead, Read};
    let file = std::fs::File::open(path).ok()?;
    let mut first = String::new();
    std::io::BufReader::new(file.take(1 << 20)).read_line(&mut first).ok()?;
    let v: serde_json::Value = serde_json::from_str(&first).ok()?;
    let payload = v.get("payload")?;
    (v.get("type")?.as_str()? == "session_meta").then_some(())?;
    payload.get("cwd")?.as_str().map(PathBuf::from)
}

fn in_window(
    stem: &str,
    mtime: SystemTime,
    since: Option<SystemTime>,
    until: Option<SystemTime>,
    exclude: Option<&str>,
) -> bool {
    !exclude.is_some_and(|current| is_current(stem, current))
        && since.is_none_or(|s| mtime > s)
        && until.is_none_or(|u| mtime <= u)
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
        let window = |since, until, exclude| SessionWindow {
            dir: tmp.path(),
            format: f,
            since,
            until,
            exclude,
            project: None,
        };
        assert_eq!(ids(window(Some(at(100)), Some(at(200)), None).files().unwrap()), ["b"]);
        assert_eq!(window(None, Some(at(250)), Some("a")).count().unwrap(), 1);
        assert_eq!(count_touched_since(tmp.path(), f, None, None).unwrap(), 3);
    }

    #[test]
    fn codex_rollouts_of_other_projects_are_left_out() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("shop");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let day = tmp.path().join("sessions/2026/05/08");
        std::fs::create_dir_all(&day).unwrap();
        let meta = |cwd: &Path| {
            serde_json::json!({"timestamp": "2026-05-08T10:00:00Z", "type": "session_meta",
                "payload": {"id": "x", "cwd": cwd}})
            .to_string()
                + "\n"
        };
        let rollout =
            |name: &str, body: &str| std::fs::write(day.join(format!("rollout-{name}.jsonl")), body).unwrap();
        rollout("2026-05-08T10-00-00-aaaa", &meta(&project.join("web")));
        rollout("2026-05-08T11-00-00-bbbb", &meta(&tmp.path().join("other")));
        rollout("2026-05-08T12-00-00-cccc", "{\"type\":\"response_item\",\"payload\":{}}\n");
        let dir = tmp.path().join("sessions");
        let ids = |v: Vec<SessionFile>| v.into_iter().map(|f| f.id).collect::<Vec<_>>();
        let f = SessionFormat::Codex;
        let window = |project| SessionWindow {
            dir: &dir,
            format: f,
            since: None,
            until: None,
            exclude: None,
            project,
        };
        assert_eq!(
            ids(window(Some(project.as_path())).files().unwrap()),
            ["rollout-2026-05-08T10-00-00-aaaa", "rollout-2026-05-08T12-00-00-cccc"],
            "a rollout started in a subfolder of the project counts; one without a cwd is kept"
        );
        assert_eq!(window(Some(project.as_path())).count().unwrap(), 2);
        assert_eq!(window(None).count().unwrap(), 3);
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

    #[test]
    fn codex_rollouts_are_found_in_their_date_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let day = tmp.path().join("2026/01/22");
        std::fs::create_dir_all(&day).unwrap();
        std::fs::write(day.join("rollout-2026-01-22T10-00-00-abc.jsonl"), "{}\n").unwrap();
        std::fs::write(tmp.path().join("rollout-top.jsonl"), "{}\n").unwrap();
        std::fs::create_dir_all(tmp.path().join("archive/2026")).unwrap();
        std::fs::write(tmp.path().join("archive/2026/rollout-x.jsonl"), "{}\n").unwrap();
        let mut ids: Vec<_> =
            list_sessions(tmp.path(), SessionFormat::Codex).unwrap().into_iter().map(|f| f.id).collect();
        ids.sort();
        assert_eq!(ids, ["rollout-2026-01-22T10-00-00-abc", "rollout-top"]);
        // Other layouts stay flat.
        assert_eq!(list_sessions(tmp.path(), SessionFormat::Generic).unwrap().len(), 1);
    }

    #[test]
    fn gemini_chats_and_the_legacy_log_are_sessions_of_the_gemini_layout() {
        let g = SessionFormat::Gemini;
        assert!(is_session_name("session-2026-01-22T20-29-ce8b3527.json", g));
        assert!(is_session_name("session-2026-01-22T20-29-ce8b3527.jsonl", g));
        assert!(is_session_name("logs.json", g));
        assert!(!is_session_name("checkpoint-x.json", g));
        assert!(!is_session_name("notes.jsonl", g));
        assert!(is_session_name("session-2026-01-22T20-29-ce8b3527.json", SessionFormat::Auto));
        assert!(!is_session_name("logs.json", SessionFormat::Auto));
        assert!(!is_session_name("session-2026-01-22T20-29-ce8b3527.json", SessionFormat::Claude));
    }

    #[test]
    fn the_current_session_is_known_by_each_agents_file_name() {
        let id = "ce8b3527-d9da-4a50-bb3f-1289f6000e90";
        assert!(is_current(id, id));
        assert!(is_current(&format!("rollout-2025-12-01T10-00-00-{id}"), id));
        assert!(is_current("session-2026-01-22T20-29-ce8b3527", id));
        assert!(!is_current("session-2026-01-22T20-29-aaaaaaaa", id));
        assert!(!is_current("x-ce8b3527", id));
        assert!(!is_current("anything", ""));
    }
}
