//! Per-turn capture's bookkeeping: where capture stopped in each transcript, who is
//! capturing it now, and the loop that reads only the new part and writes to today's log.
//!
//! At the end of a turn (`Stop`) and of a session (`SessionEnd`), the hook asks [`wants_run`]:
//! one `stat` of the transcript and one read of a small record, `<state>/extract/<key>.json` (the folder keeps its first name).
//! The client writes its transcript asynchronously, so at `Stop` the file may lag the turn or
//! not exist yet (a session's first turn); `SessionEnd` then catches what `Stop` could not
//! see, and a transcript not written yet counts as changed: the capture waits for it
//! ([`wait_for_transcript`]). Only when the transcript changed since capture last looked
//! does the hook start the detached capture, which calls
//! [`run`] with the rules of an engine (a [`CaptureRules`]: the offline engine's are in
//! `autodream-offline`'s `extract_turns`). The guarantees live here, whatever the rules:
//!
//! - **One capture per transcript.** [`run`] holds an exclusive `flock` on
//!   `extract/<key>.lock` for as long as it works; a second one first waits for it to finish
//!   ([`wait_for_holder`], up to 10 s: a `SessionEnd` comes right after its `Stop`), then
//!   reads what is left with what the first wrote known; one that still finds the lock taken
//!   leaves (the holder reads again before it lets go). Only one waits: while one holds the
//!   place in line (`extract/<key>.wait`, [`claim_wait`]), another leaves at once, so a burst
//!   of hooks before the client writes a transcript starts no crowd of waiting processes. A turn the
//!   holder held back as unfinished keeps the record's `seen` before it, so the next hook,
//!   `SessionEnd` included, starts a capture for it.
//! - **Only the new part, never twice.** The record keeps the byte offset after the last
//!   turn written and a fingerprint of the transcript's first bytes. A transcript that is
//!   shorter than the offset, or whose head changed (rewritten, replaced), is read again from
//!   the start; the rules drop what memory or the logs already hold, so nothing is doubled.
//! - **A kill loses at most one turn, and never writes half a line.** The entries of a turn
//!   go to the daily log in one `write(2)` ([`daily_log::append_all`]); the offset moves past
//!   the turn only after that write, atomically. A kill between the two leaves the turn to be
//!   read again, and its entries are then found in the log and not written twice.
//! - **Whole lines only.** A transcript line still being written is read next time; so is a
//!   user's last prompt the agent has not answered yet (the rules say where to stop).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use jiff::{Timestamp, Zoned};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::memdir::daily_log;
use crate::memdir::{MemdirError, MemoryRoot, SafePathError};
use crate::paths::Locations;

/// The folder under the state folder holding one record (and one lock) per transcript.
pub use crate::paths::state::CAPTURE_DIR;
/// How many leading bytes of a transcript its fingerprint covers.
pub const HEAD_BYTES: u64 = 1024;
/// How many times [`run`] reads again when the transcript grew while it worked.
const MAX_PASSES: usize = 8;

pub use crate::config::values::CaptureMode;

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Path(#[from] SafePathError),
    #[error(transparent)]
    Memdir(#[from] MemdirError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CaptureError + '_ {
    move |source| CaptureError::Io { path: path.to_path_buf(), source }
}

/// Where capture stands in one transcript: `<state>/extract/<key>.json` (the folder keeps its first name).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// The session id (the suffix of every entry takes its first 8 characters).
    pub session: String,
    pub transcript: PathBuf,
    /// The byte offset after the last turn extracted: the next run starts here.
    pub offset: u64,
    /// The transcript's size when it was last read (the hook compares the size with it).
    pub seen: u64,
    /// SHA-256 (hex, first 16 digits) of the transcript's first `head_len` bytes.
    pub head: String,
    pub head_len: u64,
    /// The last run that read something.
    pub last_run: Option<Timestamp>,
    /// Entries that run wrote.
    pub last_written: usize,
    /// Entries written from this transcript in all.
    pub written: usize,
}

/// A file-name-safe key for a transcript: its file stem, with anything but `[A-Za-z0-9_-]`
/// replaced (a long stem is cut).
pub fn key_for(transcript: &Path) -> String {
    let stem = transcript.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let key: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
        .take(120)
        .collect();
    if key.is_empty() { "transcript".into() } else { key }
}

fn record_rel(key: &str) -> PathBuf {
    Path::new(CAPTURE_DIR).join(format!("{key}.json"))
}

fn lock_rel(key: &str) -> PathBuf {
    Path::new(CAPTURE_DIR).join(format!("{key}.lock"))
}

fn wait_rel(key: &str) -> PathBuf {
    Path::new(CAPTURE_DIR).join(format!("{key}.wait"))
}

/// The record of a transcript, if any (a damaged one reads as none: capture starts over,
/// and the rules drop what is already written).
pub fn load(loc: &Locations, key: &str) -> Option<Progress> {
    let bytes = std::fs::read(loc.state_dir().join(record_rel(key))).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn save(root: &MemoryRoot, key: &str, progress: &Progress) -> Result<(), CaptureError> {
    let json = serde_json::to_vec(progress).unwrap_or_default();
    Ok(root.write_atomic(record_rel(key), &json)?)
}

/// The hook's question: did `transcript` change since capture last read it? One `stat`
/// and one read of a small file. A transcript the client has not written yet (its folder is
/// there, the file not) counts as changed; one that cannot be read otherwise does not.
pub fn wants_run(loc: &Locations, transcript: &Path) -> bool {
    let meta = match std::fs::metadata(transcript) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return transcript.parent().is_some_and(Path::is_dir);
        }
        Err(_) => return false,
    };
    if !meta.is_file() {
        return false;
    }
    meta.len() != seen_size(loc, &key_for(transcript))
}

/// The one place in line for capturing a transcript, held while a capture waits (for the
/// transcript to appear, or for the capture at work to finish). Released when dropped.
#[derive(Debug)]
pub struct WaitSlot {
    _lock: std::fs::File,
}

/// Takes the place in line for `transcript`; `None` when another capture already waits
/// there: that one will read everything new once it runs, so this one has nothing to do.
/// At most one capture waits and one works per transcript, however many hooks fire.
pub fn claim_wait(loc: &Locations, transcript: &Path) -> Option<WaitSlot> {
    let key = key_for(transcript);
    let root = MemoryRoot::create(&loc.state_dir()).ok()?;
    let lock = root.open_append(wait_rel(&key)).ok()?;
    match lock.try_lock() {
        Ok(()) => Some(WaitSlot { _lock: lock }),
        Err(_) => None,
    }
}

/// Waits up to `limit` for another capture of `transcript` to finish (its lock free), so
/// that one started meanwhile (a `SessionEnd` right after a `Stop`) reads what the holder read
/// last, with the rules built after it wrote. `false` when the holder is still there.
pub fn wait_for_holder(loc: &Locations, transcript: &Path, limit: std::time::Duration) -> bool {
    let key = key_for(transcript);
    let Ok(root) = MemoryRoot::create(&loc.state_dir()) else { return true };
    let Ok(lock) = root.open_append(lock_rel(&key)) else { return true };
    let deadline = std::time::Instant::now() + limit;
    loop {
        match lock.try_lock() {
            Ok(()) => return true, // released when `lock` is dropped
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(_) => return false,
        }
    }
}

/// Waits up to `limit` for the client to write `transcript` (it writes asynchronously, and a
/// hook may run before a session's first lines are on disk). `true` once the file exists.
pub fn wait_for_transcript(transcript: &Path, limit: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if transcript.is_file() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The `seen` of a record, in one `open`, `read` and `close` (a record is a few hundred
/// bytes; a longer one is read whole). 0 when there is none.
fn seen_size(loc: &Locations, key: &str) -> u64 {
    let path = loc.state_dir().join(record_rel(key));
    let Ok(mut file) = std::fs::File::open(&path) else { return 0 };
    let mut buf = [0u8; 2048];
    let n = match file.read(&mut buf) {
        Ok(n) if n < buf.len() => n,
        Ok(_) => return load(loc, key).map_or(0, |p| p.seen),
        Err(_) => return 0,
    };
    serde_json::from_slice::<Progress>(&buf[..n]).map_or(0, |p| p.seen)
}

/// Every transcript's record, newest run first (for `status` and `watch`).
pub fn all_progress(loc: &Locations) -> Vec<Progress> {
    let mut out: Vec<Progress> = std::fs::read_dir(loc.state_dir().join(CAPTURE_DIR))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok())
        .collect();
    out.sort_by(|a: &Progress, b| b.last_run.cmp(&a.last_run).then_with(|| a.session.cmp(&b.session)));
    out
}

/// Entries capture wrote to the log of `today` (they end with `(session …)`).
pub fn written_on(memory_dir: &Path, today: jiff::civil::Date) -> usize {
    let Ok(text) = std::fs::read_to_string(daily_log::log_path(memory_dir, today)) else { return 0 };
    text.lines().filter(|l| daily_log::split_session_suffix(l).1.is_some()).count()
}

/// The log entries written since the last dream: what the next one will read.
pub fn log_entries_since_last_dream(loc: &Locations) -> usize {
    daily_log::count_since(&loc.memory_dir, daily_log::LogCursor::of_last_dream(loc).as_ref())
}

/// One transcript's last capture, for `status` and `watch`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSummary {
    pub session: String,
    pub last_run: Option<Timestamp>,
    /// Entries the last run wrote.
    pub last_written: usize,
    /// Entries written from this session in all.
    pub written: usize,
}

/// What capture did, for `status` and `watch`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub mode: CaptureMode,
    /// Log entries written since the last dream (by anyone): the next dream's input.
    pub log_entries_since_last_dream: usize,
    /// Entries capture wrote to today's log.
    pub written_today: usize,
    /// Every transcript capture read, the most recent first.
    pub sessions: Vec<SessionSummary>,
}

impl Summary {
    /// Reads the records and the logs; `today` is the local date of the log to count.
    pub fn read(loc: &Locations, mode: CaptureMode, today: jiff::civil::Date) -> Summary {
        let sessions = all_progress(loc)
            .into_iter()
            .map(|p| SessionSummary {
                session: p.session,
                last_run: p.last_run,
                last_written: p.last_written,
                written: p.written,
            })
            .collect();
        Summary {
            mode,
            log_entries_since_last_dream: log_entries_since_last_dream(loc),
            written_today: written_on(&loc.memory_dir, today),
            sessions,
        }
    }

    /// Lines for a person: the totals, then the `max_sessions` most recent sessions.
    pub fn lines(&self, now: Timestamp, max_sessions: usize) -> Vec<String> {
        let entries = |n: usize| if n == 1 { "1 entry".to_string() } else { format!("{n} entries") };
        let mut out = vec![format!(
            "{} · {} since the last dream · {} written today",
            self.mode.as_str(),
            format!("{} in the logs", entries(self.log_entries_since_last_dream)),
            self.written_today
        )];
        for s in self.sessions.iter().take(max_sessions) {
            let id: String = s.session.chars().take(8).collect();
            let when = s.last_run.map_or("never".to_string(), |t| crate::clock::human_ago(t, now));
            out.push(format!("{id}  {when}: {} ({} in all)", entries(s.last_written), s.written));
        }
        if self.sessions.len() > max_sessions {
            out.push(format!("… and {} more sessions", self.sessions.len() - max_sessions));
        }
        out
    }
}

/// The new part of a transcript, whole lines only, as handed to a [`CaptureRules`].
#[derive(Debug)]
pub struct Chunk<'a> {
    pub text: &'a str,
    /// The byte offset of `text` in the transcript.
    pub start: u64,
    /// The session id.
    pub session: &'a str,
    /// The transcript was read again from its start (rewritten or truncated).
    pub restarted: bool,
    /// The agent's last turn in `text` is finished (the hook ran at its end); `false` when
    /// the transcript grew while capture worked, so its last turn may still be going.
    pub final_turn_complete: bool,
}

/// One turn the rules read, and what to write from it.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundTurn {
    /// The transcript offset after the turn's last line.
    pub end: u64,
    /// The entries, without stamp or suffix; empty when the turn holds nothing to keep.
    pub entries: Vec<String>,
}

/// Where a [`CaptureRules`] hands each turn it read, as soon as it read it.
pub type Emit<'a> = dyn FnMut(FoundTurn) -> Result<(), CaptureError> + 'a;

/// An engine's capture rules.
pub trait CaptureRules {
    /// Reads the turns of `chunk` in order and hands each complete one to `emit` at once,
    /// with the entries to write (what memory or the logs already hold left out: the rules
    /// know how to compare). Returns the offset the next run resumes at: after the last
    /// complete turn (a trailing prompt not answered yet is held back).
    fn extract(&mut self, chunk: &Chunk<'_>, emit: &mut Emit<'_>) -> Result<u64, CaptureError>;
}

/// What one [`run`] did.
#[derive(Debug, Default, PartialEq)]
pub struct RunReport {
    /// Another capture holds this transcript: nothing was done.
    pub busy: bool,
    pub turns: usize,
    pub written: usize,
    /// Bytes of transcript read.
    pub bytes: u64,
    pub restarted: bool,
}

/// A transcript's fingerprint: the first `len` bytes, hashed.
fn fingerprint(file: &mut std::fs::File, len: u64, path: &Path) -> Result<String, CaptureError> {
    let mut buf = vec![0u8; len as usize];
    file.seek(SeekFrom::Start(0)).map_err(io(path))?;
    file.read_exact(&mut buf).map_err(io(path))?;
    let digest = Sha256::digest(&buf);
    Ok(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
}

/// Extracts what is new in `transcript` into today's log (see the module docs).
/// `now` stamps the entries and names the log file.
pub fn run(
    loc: &Locations,
    transcript: &Path,
    session: &str,
    now: &Zoned,
    rules: &mut dyn CaptureRules,
) -> Result<RunReport, CaptureError> {
    let key = key_for(transcript);
    let root = MemoryRoot::create(&loc.state_dir())?;
    let lock = root.open_append(lock_rel(&key))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(RunReport { busy: true, ..Default::default() }),
        Err(std::fs::TryLockError::Error(e)) => return Err(io(&root.join(lock_rel(&key)))(e)),
    }
    let mut report = RunReport::default();
    let suffix: String = session.chars().take(8).collect();
    for pass in 0..MAX_PASSES {
        let mut progress = load(loc, &key).unwrap_or_default();
        let mut file = std::fs::File::open(transcript).map_err(io(transcript))?;
        let size = file.metadata().map_err(io(transcript))?.len();
        let mut restarted = false;
        if progress.offset > 0 || progress.head_len > 0 {
            let same_head = progress.head_len <= size
                && fingerprint(&mut file, progress.head_len, transcript)? == progress.head;
            if size < progress.offset || !same_head {
                restarted = true;
            }
        }
        if restarted {
            let written_before = progress.written;
            progress = Progress { written: written_before, ..Default::default() };
            report.restarted = true;
        }
        if size == progress.seen && !restarted {
            break;
        }
        progress.session = session.to_string();
        progress.transcript = transcript.to_path_buf();
        progress.head_len = size.min(HEAD_BYTES);
        progress.head = fingerprint(&mut file, progress.head_len, transcript)?;
        let start = progress.offset;
        let mut bytes = Vec::with_capacity((size - start) as usize);
        file.seek(SeekFrom::Start(start)).map_err(io(transcript))?;
        file.take(size - start).read_to_end(&mut bytes).map_err(io(transcript))?;
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes.truncate(whole);
        let text = crate::sessions::text_of(bytes);
        report.bytes += whole as u64;
        let chunk = Chunk { text: &text, start, session, restarted, final_turn_complete: pass == 0 };
        progress.last_written = 0;
        let mut emit = |turn: FoundTurn| -> Result<(), CaptureError> {
            report.turns += 1;
            let lines: Vec<String> = turn.entries.iter().map(|e| format!("{e} (session {suffix})")).collect();
            if let Some((_, n)) = daily_log::append_all(&loc.memory_dir, now, &lines)? {
                report.written += n;
                progress.written += n;
                progress.last_written += n;
            }
            progress.offset = turn.end;
            // Only after the append: a kill in between reads the turn again (and finds its
            // entries in the log). A turn that wrote nothing needs no record of its own.
            if !turn.entries.is_empty() {
                progress.last_run = Some(now.timestamp());
                save(&root, &key, &progress)?;
            }
            Ok(())
        };
        let resume_at = if whole > 0 { rules.extract(&chunk, &mut emit)? } else { start };
        progress.offset = resume_at.max(progress.offset);
        // A turn held back (not finished when read) must bring the next hook back, even if the
        // transcript does not grow again (the session ended): then `seen` stays before it.
        let whole_end = start + whole as u64;
        progress.seen = if progress.offset < whole_end { progress.offset } else { size };
        progress.last_run = Some(now.timestamp());
        save(&root, &key, &progress)?;
        // The transcript grew while we worked: read the rest before letting go.
        let grown = std::fs::metadata(transcript).map(|m| m.len()).unwrap_or(size);
        if grown == size {
            break;
        }
    }
    drop(lock);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_file_names() {
        assert_eq!(key_for(Path::new("/a/0b1c-2d.jsonl")), "0b1c-2d");
        assert_eq!(key_for(Path::new("/a/x y/../é.jsonl")), "-");
        assert_eq!(key_for(Path::new("/")), "transcript");
    }

    #[test]
    fn every_mode_reads_back_and_an_unknown_one_is_named() {
        for mode in [CaptureMode::Off, CaptureMode::Offline, CaptureMode::Agent] {
            assert_eq!(CaptureMode::parse(mode.as_str()), Ok(mode));
        }
        let err = CaptureMode::parse("llm").unwrap_err();
        assert!(err.contains("\"llm\"") && err.contains("off, offline, agent"), "{err}");
    }
}
