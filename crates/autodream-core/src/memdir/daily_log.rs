//! Append-only daily logs: `logs/YYYY/MM/YYYY-MM-DD.md`, one `- [HH:MM] text` entry a line.
//!
//! Appends are one `write(2)` on a file opened with `O_APPEND`, under an advisory lock, so
//! concurrent writers (several agent sessions, the MCP server) never interleave or lose a
//! line. Dreams read the entries written since their cursor in `.dream/`. The log file and
//! its folders are opened from the memory folder without following links: a log folder that
//! is a symbolic link is refused, never written through.
//!
//! An entry written by per-turn extraction ends with `(session 1a2b3c4d)`, the first eight
//! characters of the session it came from: that provenance is for a person reading the log,
//! and [`read_since`] leaves it out of an entry's text, so it never becomes part of a fact.

use std::path::{Path, PathBuf};

use jiff::civil::{Date, Time};
use jiff::{Timestamp, Zoned};
use serde::{Deserialize, Serialize};

use super::{LOGS_DIR, MemdirError, MemoryRoot};
use crate::clock::local_tz;
use crate::paths::Locations;
use crate::paths::state::LOG_CURSOR_FILE;

/// One daily-log entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// The day of the log file the entry is in.
    pub date: Date,
    /// The `[HH:MM]` stamp, when the line has one.
    pub time: Option<Time>,
    /// The instant of the entry (date + time in the local zone; midnight when no stamp).
    pub at: Timestamp,
    pub text: String,
    /// The log file, relative to the memory directory (`logs/2026/05/2026-05-08.md`).
    pub file: String,
    /// 1-based line number in that file.
    pub line: usize,
}

/// Where a dream stopped reading the logs: entries after this are new.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogCursor {
    /// The last log file read, relative to the memory directory.
    pub file: String,
    /// The byte length of that file when it was read.
    pub offset: u64,
}

impl LogCursor {
    /// Where the last dream stopped reading (`log-cursor.json` in the state folder); `None`
    /// before the first dream, or when the record cannot be read (the next dream reads all).
    pub fn of_last_dream(loc: &Locations) -> Option<LogCursor> {
        let bytes = std::fs::read(loc.state_dir.join(LOG_CURSOR_FILE)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Records where this dream stopped reading, atomically.
    pub fn save(&self, loc: &Locations) -> Result<(), MemdirError> {
        let json = serde_json::to_vec(self).unwrap_or_default();
        MemoryRoot::create(&loc.state_dir)?.write_atomic(LOG_CURSOR_FILE, &json)?;
        Ok(())
    }
}

/// The log file for a local date.
pub fn log_path(memory_dir: &Path, date: Date) -> PathBuf {
    memory_dir.join(log_rel(date))
}

/// The log file for a local date, relative to the memory directory.
fn log_rel(date: Date) -> PathBuf {
    Path::new(LOGS_DIR)
        .join(format!("{:04}", date.year()))
        .join(format!("{:02}", date.month()))
        .join(format!("{date}.md"))
}

/// Folds any text to one entry line: whitespace runs (newlines included) become one space.
pub fn fold_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Appends `- [HH:MM] text` to the log of `now`'s local date; returns the file written.
/// A secret in the text (a key, a token, a password) is redacted first: the logs are memory
/// too, and read by every later dream.
pub fn append(memory_dir: &Path, now: &Zoned, text: &str) -> Result<PathBuf, MemdirError> {
    let text = fold_line(&crate::redact::redact(text).text);
    if text.is_empty() {
        return Err(MemdirError::Invalid("nothing to log: the entry is empty".into()));
    }
    let rel = log_rel(now.date());
    let line = format!("- [{:02}:{:02}] {text}\n", now.hour(), now.minute());
    MemoryRoot::create(memory_dir)?.append(&rel, line.as_bytes())?;
    Ok(memory_dir.join(rel))
}

/// Appends several entries to the log of `now`'s local date in one `write(2)`: a reader, a
/// kill or a crash sees all of them or none, and never half a line. Each text is redacted
/// and folded like [`append`]'s; empty ones are left out. Returns the file written and the
/// number of entries, or `None` when nothing was left to write.
pub fn append_all(
    memory_dir: &Path,
    now: &Zoned,
    texts: &[String],
) -> Result<Option<(PathBuf, usize)>, MemdirError> {
    let mut block = String::new();
    let mut count = 0;
    for text in texts {
        let text = fold_line(&crate::redact::redact(text).text);
        if text.is_empty() {
            continue;
        }
        block.push_str(&format!("- [{:02}:{:02}] {text}\n", now.hour(), now.minute()));
        count += 1;
    }
    if count == 0 {
        return Ok(None);
    }
    let rel = log_rel(now.date());
    MemoryRoot::create(memory_dir)?.append(&rel, block.as_bytes())?;
    Ok(Some((memory_dir.join(rel), count)))
}

/// The `(session 1a2b3c4d)` provenance suffix extraction writes, as `(text, id)`; the whole
/// text and `None` when there is none.
pub fn split_session_suffix(text: &str) -> (&str, Option<&str>) {
    const OPEN: &str = " (session ";
    let t = text.trim_end();
    if let Some(inner) = t.strip_suffix(')')
        && let Some(i) = inner.rfind(OPEN)
        && let id = &inner[i + OPEN.len()..]
        && (1..=8).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return (inner[..i].trim_end(), Some(id));
    }
    (text, None)
}

/// How many entries were written after `cursor` (all when `None`): what the next dream will
/// read. Whole lines only, as [`read_since`] reads them; unreadable files count as empty.
pub fn count_since(memory_dir: &Path, cursor: Option<&LogCursor>) -> usize {
    let mut count = 0;
    for (_, rel) in log_files(memory_dir) {
        let start = match cursor {
            Some(c) if rel.as_str() < c.file.as_str() => continue,
            Some(c) if rel == c.file => c.offset as usize,
            _ => 0,
        };
        let Ok(bytes) = std::fs::read(memory_dir.join(&rel)) else { continue };
        let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if start > end {
            continue;
        }
        count +=
            String::from_utf8_lossy(&bytes[start..end]).lines().filter(|l| parse_line(l).is_some()).count();
    }
    count
}

/// Parses one log line: `- [HH:MM] text`, or any other non-empty line as a stamp-less entry.
/// The `(session …)` suffix of an extracted entry is left out of the text.
fn parse_line(line: &str) -> Option<(Option<Time>, String)> {
    let body = line.trim();
    if body.is_empty() || body.starts_with('#') {
        return None;
    }
    let body = body.strip_prefix("- ").or_else(|| body.strip_prefix("* ")).unwrap_or(body);
    if let Some(rest) = body.strip_prefix('[')
        && let Some((stamp, text)) = rest.split_once(']')
        && let Some((h, m)) = stamp.split_once(':')
        && let (Ok(h), Ok(m)) = (h.parse::<i8>(), m.parse::<i8>())
        && let Ok(t) = Time::new(h, m, 0, 0)
    {
        return Some((Some(t), split_session_suffix(text.trim()).0.to_string()));
    }
    Some((None, split_session_suffix(body).0.to_string()))
}

/// Every log file under `logs/` (this machine's, and other machines' when team memory
/// shares them), as (date, relative path), oldest first.
pub fn log_files(memory_dir: &Path) -> Vec<(Date, String)> {
    let mut out = Vec::new();
    let root = memory_dir.join(LOGS_DIR);
    let Ok(years) = std::fs::read_dir(&root) else { return out };
    for y in years.flatten() {
        let Ok(months) = std::fs::read_dir(y.path()) else { continue };
        for m in months.flatten() {
            let Ok(days) = std::fs::read_dir(m.path()) else { continue };
            for d in days.flatten() {
                let name = d.file_name().to_string_lossy().into_owned();
                let Some(stem) = name.strip_suffix(".md") else { continue };
                // `YYYY-MM-DD.md`, or `YYYY-MM-DD.<machine>.md`: another machine's log of
                // that day, brought in by team memory.
                let day = stem.split_once('.').map_or(stem, |(day, _)| day);
                let Ok(date) = day.parse::<Date>() else { continue };
                if !d.file_type().is_ok_and(|t| t.is_file()) {
                    continue;
                }
                let rel = d.path().strip_prefix(memory_dir).map(|p| p.to_string_lossy().replace('\\', "/"));
                if let Ok(rel) = rel {
                    out.push((date, rel));
                }
            }
        }
    }
    out.sort();
    out
}

/// The entries written after `cursor` (all when `None`), and the cursor to store once they
/// have been consolidated.
pub fn read_since(
    memory_dir: &Path,
    cursor: Option<&LogCursor>,
) -> Result<(Vec<LogEntry>, Option<LogCursor>), MemdirError> {
    let tz = local_tz();
    let mut entries = Vec::new();
    let mut last = cursor.cloned();
    for (date, rel) in log_files(memory_dir) {
        let start = match cursor {
            Some(c) if rel.as_str() < c.file.as_str() => continue,
            Some(c) if rel == c.file => c.offset as usize,
            _ => 0,
        };
        let path = memory_dir.join(&rel);
        let bytes = std::fs::read(&path).map_err(|e| MemdirError::io(&path, e))?;
        // Only whole lines: a line still being appended is read next time.
        let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if start > end {
            // The file shrank (edited by hand): read it again from the start.
            continue;
        }
        let line_base = bytes[..start].iter().filter(|&&b| b == b'\n').count();
        let text = String::from_utf8_lossy(&bytes[start..end]);
        for (i, line) in text.lines().enumerate() {
            let Some((time, body)) = parse_line(line) else { continue };
            let civil = date.to_datetime(time.unwrap_or(Time::midnight()));
            let at = civil.to_zoned(tz.clone()).map(|z| z.timestamp()).unwrap_or(Timestamp::UNIX_EPOCH);
            entries.push(LogEntry { date, time, at, text: body, file: rel.clone(), line: line_base + i + 1 });
        }
        last = Some(LogCursor { file: rel, offset: end as u64 });
    }
    Ok((entries, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zoned(s: &str) -> Zoned {
        s.parse::<Timestamp>().unwrap().to_zoned(jiff::tz::TimeZone::UTC)
    }

    #[test]
    fn appends_one_folded_line_to_the_dated_file() {
        let tmp = tempfile::tempdir().unwrap();
        let p = append(tmp.path(), &zoned("2026-05-08T13:56:00Z"), "use rebase,\n  not merge").unwrap();
        assert!(p.ends_with("logs/2026/05/2026-05-08.md"));
        append(tmp.path(), &zoned("2026-05-08T14:02:00Z"), "second").unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "- [13:56] use rebase, not merge\n- [14:02] second\n"
        );
        assert!(append(tmp.path(), &zoned("2026-05-08T14:02:00Z"), " \n ").is_err());
    }

    #[test]
    fn appends_never_go_through_a_link() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(outside.join("2026/05")).unwrap();
        std::fs::write(outside.join("2026/05/2026-05-08.md"), "keep\n").unwrap();
        std::fs::write(outside.join("file.md"), "keep\n").unwrap();
        let now = zoned("2026-05-08T13:56:00Z");
        // The logs folder is a link to a folder.
        let mem = tmp.path().join("m1");
        std::fs::create_dir_all(&mem).unwrap();
        symlink(&outside, mem.join("logs")).unwrap();
        let err = append(&mem, &now, "secret").unwrap_err();
        assert!(err.to_string().contains("logs is a symbolic link"), "{err}");
        // The day's log file is a link to a file.
        let mem = tmp.path().join("m2");
        std::fs::create_dir_all(mem.join("logs/2026/05")).unwrap();
        symlink(outside.join("file.md"), mem.join("logs/2026/05/2026-05-08.md")).unwrap();
        let err = append(&mem, &now, "secret").unwrap_err();
        assert!(err.to_string().contains("logs/2026/05/2026-05-08.md is a symbolic link"), "{err}");
        // A month folder swapped for a link after an append is refused at the next one.
        let mem = tmp.path().join("m3");
        append(&mem, &now, "first").unwrap();
        std::fs::rename(mem.join("logs/2026/05"), mem.join("logs/2026/05-real")).unwrap();
        symlink(outside.join("2026/05"), mem.join("logs/2026/05")).unwrap();
        assert!(append(&mem, &now, "second").is_err());
        assert_eq!(std::fs::read_to_string(outside.join("2026/05/2026-05-08.md")).unwrap(), "keep\n");
        assert_eq!(std::fs::read_to_string(outside.join("file.md")).unwrap(), "keep\n");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 2);
    }

    #[test]
    fn cursor_returns_only_new_entries() {
        let tmp = tempfile::tempdir().unwrap();
        append(tmp.path(), &zoned("2026-05-08T09:00:00Z"), "a").unwrap();
        let (all, cur) = read_since(tmp.path(), None).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].text, "a");
        assert_eq!(all[0].line, 1);
        append(tmp.path(), &zoned("2026-05-08T10:00:00Z"), "b").unwrap();
        append(tmp.path(), &zoned("2026-05-09T10:00:00Z"), "c").unwrap();
        let (new, cur2) = read_since(tmp.path(), cur.as_ref()).unwrap();
        assert_eq!(new.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(), ["b", "c"]);
        assert_eq!(new[0].line, 2);
        let (none, _) = read_since(tmp.path(), cur2.as_ref()).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn many_entries_go_in_one_write_and_the_session_suffix_is_not_text() {
        let tmp = tempfile::tempdir().unwrap();
        let now = zoned("2026-05-08T13:56:00Z");
        let texts = vec!["We deploy with fly (session 1a2b3c4d)".to_string(), " ".into(), "b\nc".into()];
        let (path, n) = append_all(tmp.path(), &now, &texts).unwrap().unwrap();
        assert_eq!(n, 2);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "- [13:56] We deploy with fly (session 1a2b3c4d)\n- [13:56] b c\n"
        );
        assert!(append_all(tmp.path(), &now, &[" ".to_string()]).unwrap().is_none());
        let (entries, cursor) = read_since(tmp.path(), None).unwrap();
        assert_eq!(entries[0].text, "We deploy with fly");
        assert_eq!(count_since(tmp.path(), None), 2);
        assert_eq!(count_since(tmp.path(), cursor.as_ref()), 0);
        append(tmp.path(), &now, "third").unwrap();
        assert_eq!(count_since(tmp.path(), cursor.as_ref()), 1);
        // Only the exact suffix shape is provenance.
        assert_eq!(split_session_suffix("a (session 1a2b3c4d)"), ("a", Some("1a2b3c4d")));
        assert_eq!(split_session_suffix("a (session of 1a2b3c4d)").1, None);
        assert_eq!(split_session_suffix("a (session 1a2b3c4d9)").1, None);
    }

    #[test]
    fn a_secret_never_reaches_the_log() {
        let tmp = tempfile::tempdir().unwrap();
        let now: Zoned = "2026-05-08T09:30:00+00:00[UTC]".parse().unwrap();
        let path = append(
            tmp.path(),
            &now,
            "deploy token: ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 is in the vault",
        )
        .unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains("ghp_AbCd"), "{text}");
        assert!(text.starts_with("- [09:30] deploy token: [REDACTED:"), "{text}");
        let path = append(tmp.path(), &now, "STRIPE_KEY=sk-live-4f9a is in .env").unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains("4f9a"), "{text}");
    }
}
