//! The index ordered by use: one pass over MEMORY.md on the staging copy, after every engine.
//!
//! - Within each run of consecutive entries (a section between headings or notes), entries
//!   are ordered by how often their topic was read in the last [`FOLLOW_WINDOW`] sessions,
//!   then by when it was last read, most first; entries with no read keep their order after
//!   them. Other lines never move, and the overflow file's pointer closes its run.
//! - An entry whose topic has not been read for [`UNREAD_SESSIONS`] sessions (counted from
//!   when it was first seen) is shortened to a one-line hook: its first clause, at most
//!   [`SHORT_HOOK_CHARS`] characters. The topic file itself is not touched, and no entry is
//!   ever dropped.

use std::path::Path;

use super::{FOLLOW_WINDOW, Usage};
use crate::memdir::index::{self, IndexLine};
use crate::memdir::{INDEX_FILE, MemoryRoot, OVERFLOW_FILE, SafePathError};

/// Sessions without a read after which a topic's entry is shortened.
pub const UNREAD_SESSIONS: usize = 20;
/// The longest hook a shortened entry keeps.
pub const SHORT_HOOK_CHARS: usize = 60;

/// What [`order_index`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderReport {
    /// Entries that changed place.
    pub moved: usize,
    /// Topics whose entry was shortened.
    pub shortened: Vec<String>,
}

/// The first clause of `hook`, at most [`SHORT_HOOK_CHARS`] characters (cut at a word, `…`).
pub fn short_hook(hook: &str) -> String {
    let clause = [". ", "; ", " — ", " – ", ", ", " ("]
        .iter()
        .filter_map(|sep| hook.find(sep))
        .min()
        .map_or(hook, |i| &hook[..i])
        .trim_end_matches(['.', ';', ',', ':'])
        .trim();
    if clause.chars().count() <= SHORT_HOOK_CHARS {
        return clause.to_string();
    }
    let cut: String = clause.chars().take(SHORT_HOOK_CHARS - 1).collect();
    let cut = cut.rfind(' ').filter(|&i| i > SHORT_HOOK_CHARS / 2).map_or(cut.as_str(), |i| &cut[..i]);
    format!("{}…", cut.trim_end())
}

/// Orders and shortens the index of the memory folder `dir` (a staging copy) by `usage`.
pub fn order_index(dir: &Path, usage: &Usage) -> Result<OrderReport, SafePathError> {
    let mut report = OrderReport::default();
    let root = MemoryRoot::open(dir)?;
    if std::fs::symlink_metadata(dir.join(INDEX_FILE)).is_ok_and(|m| m.file_type().is_symlink()) {
        return Ok(report);
    }
    let Some(bytes) = root.read(INDEX_FILE)? else { return Ok(report) };
    let original = String::from_utf8_lossy(&bytes).into_owned();
    let mut lines = index::parse(&original);
    let reads = usage.reads_in_window(FOLLOW_WINDOW);
    let key = |l: &IndexLine| match l {
        IndexLine::Entry { file, .. } => reads.get(file).copied().unwrap_or_default(),
        IndexLine::Other { .. } => (0, None),
    };
    let sortable = |l: &IndexLine| matches!(l, IndexLine::Entry { file, .. } if file != OVERFLOW_FILE);
    let mut i = 0;
    while i < lines.len() {
        if !sortable(&lines[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && sortable(&lines[i]) {
            i += 1;
        }
        let run = &mut lines[start..i];
        if run.iter().any(|l| key(l).0 > 0) {
            let before = run.to_vec();
            // Stable: equal keys keep their order.
            run.sort_by(|a, b| {
                let (ka, kb) = (key(a), key(b));
                kb.0.cmp(&ka.0).then(kb.1.cmp(&ka.1))
            });
            report.moved += run.iter().zip(&before).filter(|(a, b)| a != b).count();
        }
    }
    for line in &mut lines {
        let IndexLine::Entry { file, hook, .. } = line else { continue };
        if file == OVERFLOW_FILE || usage.sessions_unread(file).is_none_or(|n| n < UNREAD_SESSIONS) {
            continue;
        }
        let short = short_hook(hook);
        if short != *hook {
            *hook = short;
            report.shortened.push(file.clone());
        }
    }
    if report.moved > 0 || !report.shortened.is_empty() {
        root.write_atomic(INDEX_FILE, index::render(&lines).as_bytes())?;
    }
    Ok(report)
}
