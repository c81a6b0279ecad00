//! Usage: what the agent really reads from memory, so that the index can be ordered by it and
//! `status` and `doctor` can say how much of it is followed ("3 of 9 topics read in the last
//! 20 sessions").
//!
//! Two sources, both counted per memory file (and per line where the call shows one):
//! - the client's transcripts ([`transcript`]): `Read`, `Grep` and `Glob` calls on files of
//!   the memory folder, and `nested_memory` attachments;
//! - the MCP server ([`mcp`]): `memory_read`, resource reads and `memory_search` hits,
//!   appended to `usage-mcp.jsonl` by the server itself.
//!
//! The counts live in engine state, `usage.json` in the state folder: one record per session
//! (its id, when it last wrote, the transcript's size so an unchanged one is not read again,
//! and its counts), each topic's first sighting, and the totals per file. A dream refreshes
//! and saves it ([`dream_pass`]); `status` and `doctor` refresh it in memory only. The hook
//! never reads or writes any of it.
//!
//! A topic is *followed* in a session when it was read (a `Read`, a `nested_memory`
//! attachment, an MCP read): a Grep or a search that only matched it is counted, but is not a
//! read. The follow rate looks at the last [`FOLLOW_WINDOW`] sessions (MCP reads count from
//! the oldest of them on).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::memdir::{MemoryRoot, SafePathError, list_topic_files};
use crate::paths::Locations;
pub use crate::paths::state::{USAGE_FILE, USAGE_LOG_FILE};
use crate::sessions::{self, SessionFormat};

pub mod mcp;
pub mod order;
pub mod transcript;

pub use mcp::{McpCall, McpTool};
pub use transcript::MemoryPrefix;

/// The sessions the follow rate looks at.
pub const FOLLOW_WINDOW: usize = 20;
/// The sessions `usage.json` keeps (the newest).
pub const KEEP_SESSIONS: usize = 1000;
const VERSION: u32 = 1;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What was done with one memory file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Read whole or in part: `Read`, `nested_memory`, `memory_read`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub read: u64,
    /// Named by a `Grep` over the memory folder.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub grep: u64,
    /// Listed by a `Glob` over the memory folder.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub glob: u64,
    /// Held a `memory_search` hit.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub search: u64,
    /// Line number → how often a call showed it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub lines: BTreeMap<usize, u64>,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.read += o.read;
        self.grep += o.grep;
        self.glob += o.glob;
        self.search += o.search;
        for (l, n) in &o.lines {
            *self.lines.entry(*l).or_default() += n;
        }
    }
}

/// One session's reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionUsage {
    pub id: String,
    /// The transcript's newest entry (else its mtime).
    pub at: Timestamp,
    /// The transcript's size when it was counted.
    pub size: u64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, Counts>,
}

/// `usage.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub version: u32,
    /// Oldest first.
    #[serde(default)]
    pub sessions: Vec<SessionUsage>,
    /// The MCP calls counted into `totals`.
    #[serde(default)]
    pub mcp_calls: usize,
    /// When each topic file was first seen by a refresh: sessions before it say nothing
    /// about the topic.
    #[serde(default)]
    pub first_seen: BTreeMap<String, Timestamp>,
    /// Every session and MCP call, per file.
    #[serde(default)]
    pub totals: BTreeMap<String, Counts>,
    /// The MCP log, not saved (it is its own file).
    #[serde(skip)]
    pub mcp: Vec<McpCall>,
}

/// `usage.json` as saved; absent or unreadable, empty (it is a count, rebuilt from the
/// transcripts that are still there).
pub fn load(loc: &Locations) -> Usage {
    std::fs::read_to_string(loc.state_dir.join(USAGE_FILE))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Saves `usage.json` atomically.
pub fn save(loc: &Locations, usage: &Usage) -> Result<(), SafePathError> {
    let root = MemoryRoot::create(&loc.state_dir)?;
    let text = serde_json::to_string_pretty(usage).expect("usage serialises") + "\n";
    root.write_atomic(USAGE_FILE, text.as_bytes())
}

/// The saved counts brought up to date: transcripts that are new or grew since are counted
/// (again), the MCP log read, topics seen for the first time stamped `now`. Nothing is saved.
pub fn refresh(loc: &Locations, format: SessionFormat, now: Timestamp) -> Usage {
    let mut usage = load(loc);
    usage.version = VERSION;
    let memory = MemoryPrefix::new(&loc.memory_dir);
    let mut known: HashMap<String, SessionUsage> =
        usage.sessions.drain(..).map(|s| (s.id.clone(), s)).collect();
    if matches!(format, SessionFormat::Claude | SessionFormat::Auto) {
        for file in sessions::list_sessions(&loc.sessions_dir, format).unwrap_or_default() {
            let size = std::fs::metadata(&file.path).map(|m| m.len()).unwrap_or(0);
            if known.get(&file.id).is_some_and(|s| s.size == size) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&file.path) else { continue };
            let counted = transcript::count(&sessions::text_of(bytes), &memory);
            let at = counted.last_at.unwrap_or(file.modified_at);
            known.insert(file.id.clone(), SessionUsage { id: file.id, at, size, files: counted.files });
        }
    }
    let mut list: Vec<SessionUsage> = known.into_values().collect();
    list.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.id.cmp(&b.id)));
    if list.len() > KEEP_SESSIONS {
        list.drain(..list.len() - KEEP_SESSIONS);
    }
    usage.sessions = list;
    usage.mcp = mcp::read_log(loc);
    usage.mcp_calls = usage.mcp.len();
    for topic in topics(&loc.memory_dir) {
        usage.first_seen.entry(topic).or_insert(now);
    }
    usage.totals = BTreeMap::new();
    for s in &usage.sessions {
        for (f, c) in &s.files {
            usage.totals.entry(f.clone()).or_default().add(c);
        }
    }
    for call in &usage.mcp {
        usage.totals.entry(call.file.clone()).or_default().add(&call_counts(call));
    }
    usage
}

fn call_counts(call: &McpCall) -> Counts {
    let mut c = Counts::default();
    match call.tool {
        McpTool::MemoryRead => c.read = 1,
        McpTool::MemorySearch => c.search = 1,
    }
    for l in call.lines.iter().flatten() {
        *c.lines.entry(*l).or_default() += 1;
    }
    c
}

/// The topic files of a memory folder (every Markdown file but MEMORY.md and the logs).
pub fn topics(memory_dir: &Path) -> Vec<String> {
    list_topic_files(memory_dir)
        .map(|l| l.topics)
        .unwrap_or_default()
        .into_iter()
        .filter(|t| t != crate::memdir::INDEX_FILE && !t.starts_with("logs/"))
        .collect()
}

impl Usage {
    /// The last `window` sessions, oldest first.
    pub fn window(&self, window: usize) -> &[SessionUsage] {
        &self.sessions[self.sessions.len().saturating_sub(window)..]
    }

    /// Per file, how often it was read in the last `window` sessions (MCP reads from the
    /// oldest of them on), and when it was last read.
    pub fn reads_in_window(&self, window: usize) -> BTreeMap<String, (u64, Option<Timestamp>)> {
        let sessions = self.window(window);
        let mut out: BTreeMap<String, (u64, Option<Timestamp>)> = BTreeMap::new();
        for s in sessions {
            for (f, c) in s.files.iter().filter(|(_, c)| c.read > 0) {
                let e = out.entry(f.clone()).or_default();
                e.0 += c.read;
                e.1 = e.1.max(Some(s.at));
            }
        }
        let since = sessions.first().map(|s| s.at);
        for call in self.mcp.iter().filter(|c| c.tool == McpTool::MemoryRead) {
            if since.is_none_or(|t| call.at >= t) {
                let e = out.entry(call.file.clone()).or_default();
                e.0 += 1;
                e.1 = e.1.max(Some(call.at));
            }
        }
        out
    }

    /// How many sessions since `topic` was last read, counting only sessions after it was
    /// first seen; `None` when it was never seen.
    pub fn sessions_unread(&self, topic: &str) -> Option<usize> {
        let first = *self.first_seen.get(topic)?;
        let last_mcp =
            self.mcp.iter().filter(|c| c.file == topic && c.tool == McpTool::MemoryRead).map(|c| c.at).max();
        let mut n = 0;
        for s in self.sessions.iter().rev() {
            if s.at <= first || last_mcp.is_some_and(|t| t >= s.at) {
                break;
            }
            if s.files.get(topic).is_some_and(|c| c.read > 0) {
                break;
            }
            n += 1;
        }
        Some(n)
    }
}

/// How much of the memory the agent follows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FollowRate {
    /// The sessions looked at (at most [`FOLLOW_WINDOW`]).
    pub sessions: usize,
    pub topics: usize,
    /// Topics read in those sessions.
    pub read: usize,
    /// The topics read, with how often.
    pub read_topics: BTreeMap<String, u64>,
    /// The topics not read in those sessions.
    pub unread: Vec<String>,
}

impl FollowRate {
    /// "3 of 9 topics read in the last 20 sessions".
    pub fn sentence(&self) -> String {
        let sessions = match self.sessions {
            0 => "no session yet".to_string(),
            1 => "the last session".to_string(),
            n => format!("the last {n} sessions"),
        };
        let topics = if self.topics == 1 { "topic" } else { "topics" };
        format!("{} of {} {topics} read in {sessions}", self.read, self.topics)
    }
}

/// The follow rate of the memory folder's current topics.
pub fn follow_rate(usage: &Usage, memory_dir: &Path, window: usize) -> FollowRate {
    let topics = topics(memory_dir);
    let reads = usage.reads_in_window(window);
    let read_topics: BTreeMap<String, u64> =
        topics.iter().filter_map(|t| reads.get(t).map(|(n, _)| (t.clone(), *n))).collect();
    let unread: Vec<String> = topics.iter().filter(|t| !read_topics.contains_key(*t)).cloned().collect();
    FollowRate {
        sessions: usage.window(window).len(),
        topics: topics.len(),
        read: read_topics.len(),
        read_topics,
        unread,
    }
}

/// What the dream's usage pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassReport {
    pub order: order::OrderReport,
    /// Topic files given a fresh `modified` stamp.
    pub stamped: Vec<String>,
}

/// The pass every dream's result goes through after hygiene, on the staging copy `work`
/// (`base` is the copy as it was before the engine): usage refreshed and saved, the index
/// ordered by use ([`order::order_index`]), and a `modified` stamp on every topic file the
/// dream changed ([`crate::memdir::modified::stamp_changed`]).
pub fn dream_pass(
    loc: &Locations,
    base: &Path,
    work: &Path,
    format: SessionFormat,
    now: Timestamp,
) -> Result<PassReport, SafePathError> {
    let usage = refresh(loc, format, now);
    save(loc, &usage)?;
    let order = order::order_index(work, &usage)?;
    let stamped = crate::memdir::modified::stamp_changed(base, work, now)?;
    Ok(PassReport { order, stamped })
}

/// The files with any use, most used first (for `status --json`).
pub fn most_used(usage: &Usage) -> Vec<(String, Counts)> {
    let mut v: Vec<(String, Counts)> = usage.totals.iter().map(|(f, c)| (f.clone(), c.clone())).collect();
    v.sort_by(|a, b| {
        (b.1.read, b.1.grep + b.1.search + b.1.glob)
            .cmp(&(a.1.read, a.1.grep + a.1.search + a.1.glob))
            .then_with(|| a.0.cmp(&b.0))
    });
    v
}

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod tests;
