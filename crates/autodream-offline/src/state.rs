//! The engine's private state, kept in `<memory>/.engine/offline/state.json` (a dot-folder:
//! never loaded by the agent, never scored).
//!
//! It remembers how much input all dreams have reviewed (the size budget is a share of it,
//! so an incremental series of dreams gets the budget a single dream over the same input
//! would) and which lines of which topic files the engine wrote, so that its own output is
//! told apart from the user's hand edits and never re-ingested as new signal.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use autodream_core::engine::EngineError;
use autodream_core::memdir::write_atomic;

use crate::text::stable_hash;

/// The state file, relative to the memory directory.
pub const STATE_PATH: &str = ".engine/offline/state.json";
const VERSION: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineState {
    pub version: u32,
    /// Input bytes reviewed by every dream so far.
    pub reviewed_bytes: u64,
    pub dreams: u64,
    /// Topic file (relative path) → hashes (hex) of the lines the engine wrote there.
    pub files: BTreeMap<String, BTreeSet<String>>,
    /// Fact text hash ([`fact_hash`]) → context weight, for facts whose weight is not 1:
    /// how a fact was said is not in its text, and a later dream must weigh it the same.
    #[serde(default)]
    pub priors: BTreeMap<String, f32>,
}

/// The hash under which a fact's context weight is remembered.
/// Insensitive to what writing a fact may change: case, punctuation, and the conjunction a
/// clause loses when it is written without the clause it was joined to.
pub fn fact_hash(text: &str) -> String {
    let mut toks = crate::text::compare_tokens(text);
    if toks.first().is_some_and(|t| matches!(t.as_str(), "and" | "but" | "so" | "plus")) {
        toks.remove(0);
    }
    format!("{:016x}", stable_hash(toks.join(" ").as_bytes()))
}

/// The hash under which a written line is remembered.
pub fn line_hash(line: &str) -> String {
    format!("{:016x}", stable_hash(line.trim_end().as_bytes()))
}

impl EngineState {
    pub fn path(memory_dir: &Path) -> PathBuf {
        memory_dir.join(STATE_PATH)
    }

    /// Loads the state; `Ok(None)` when there is none, a note when it cannot be read.
    pub fn load(memory_dir: &Path) -> (Option<EngineState>, Option<String>) {
        let path = Self::path(memory_dir);
        match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<EngineState>(&bytes) {
                Ok(s) => (Some(s), None),
                Err(e) => (None, Some(format!("ignored unreadable engine state {STATE_PATH}: {e}"))),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
            Err(e) => (None, Some(format!("ignored unreadable engine state {STATE_PATH}: {e}"))),
        }
    }

    pub fn save(&self, memory_dir: &Path) -> Result<(), EngineError> {
        let path = Self::path(memory_dir);
        let mut state = self.clone();
        state.version = VERSION;
        let mut json = serde_json::to_vec_pretty(&state).map_err(|e| EngineError::Other(e.to_string()))?;
        json.push(b'\n');
        write_atomic(&path, &json).map_err(|e| EngineError::io(&path, e))
    }

    /// Did the engine write this exact line into `file`?
    pub fn wrote(&self, file: &str, line: &str) -> bool {
        self.files.get(file).is_some_and(|set| set.contains(&line_hash(line)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_keeps_its_hash_when_written_on_its_own() {
        assert_eq!(fact_hash("and Jon works as a teacher"), fact_hash("Jon works as a teacher."));
        assert_ne!(fact_hash("Jon works as a teacher"), fact_hash("Jon works as a baker"));
    }

    #[test]
    fn round_trips_and_recognises_written_lines() {
        let tmp = tempfile::tempdir().unwrap();
        let (none, note) = EngineState::load(tmp.path());
        assert!(none.is_none() && note.is_none());
        let mut s = EngineState { reviewed_bytes: 42, dreams: 1, ..Default::default() };
        s.files.entry("jon.md".into()).or_default().insert(line_hash("- 2023-01-20: Jon lost their job."));
        s.save(tmp.path()).unwrap();
        let (back, _) = EngineState::load(tmp.path());
        let back = back.unwrap();
        assert_eq!(back.reviewed_bytes, 42);
        assert!(back.wrote("jon.md", "- 2023-01-20: Jon lost their job.\n"));
        assert!(!back.wrote("jon.md", "- 2023-01-20: Jon lost a job."));
        std::fs::write(EngineState::path(tmp.path()), b"{not json").unwrap();
        let (bad, note) = EngineState::load(tmp.path());
        assert!(bad.is_none() && note.unwrap().contains("unreadable"));
    }
}
