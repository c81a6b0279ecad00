//! Provenance: where every fact came from, kept beside the memory in engine state.
//!
//! `<memory>/.engine/offline/coding.json` records which topic files the engine wrote (and
//! for which subject), and for each fact the sessions, times and transcript lines it was
//! learned from. Sources are carried through merges (a fact said twice has both) and
//! supersession (a replaced fact keeps its own). `autodream why` reads them.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use autodream_core::engine::EngineError;
use autodream_core::memdir::write_atomic;

use super::memo::{Memo, Source, key_of};

/// The record file, relative to the memory directory.
pub const PROVENANCE_PATH: &str = ".engine/offline/coding.json";
const VERSION: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub version: u32,
    /// Topic file (relative path) → the subject it holds.
    pub files: BTreeMap<String, String>,
    /// Fact key ([`key_of`]) → where it was learned.
    pub facts: BTreeMap<String, Vec<Source>>,
    /// Fact key → a statement heard but not (yet) confident enough to be written: kept here,
    /// in engine state, never in the memory folder (see [`super::candidates`]).
    #[serde(default)]
    pub candidates: BTreeMap<String, Candidate>,
}

/// A statement below the confidence threshold, with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub text: String,
    /// The confidence it had when last heard, alone (one session).
    pub confidence: f32,
    /// Sessions (or log files) it was heard in.
    pub sessions: Vec<String>,
    pub sources: Vec<Source>,
    /// The day it was last heard: a candidate not heard again expires.
    pub last_seen: String,
    /// The evidence that weighed most for and against it.
    pub for_it: Vec<String>,
    pub against: Vec<String>,
}

impl Provenance {
    /// Reads the record; a missing one is empty, an unreadable one is reported and empty
    /// (files it listed are then not ours, so they are left as they are).
    pub fn load(memory: &Path) -> (Provenance, Option<String>) {
        let path = memory.join(PROVENANCE_PATH);
        match std::fs::read(&path) {
            Err(_) => (Provenance { version: VERSION, ..Default::default() }, None),
            Ok(bytes) => match serde_json::from_slice::<Provenance>(&bytes) {
                Ok(p) => (p, None),
                Err(e) => (
                    Provenance { version: VERSION, ..Default::default() },
                    Some(format!("{PROVENANCE_PATH} is unreadable ({e}); its files are left as they are")),
                ),
            },
        }
    }

    pub fn sources_of(&self, text: &str) -> Vec<Source> {
        self.facts.get(&key_of(text)).cloned().unwrap_or_default()
    }

    /// Records the sources of every memo the memory now holds.
    pub fn remember(&mut self, memos: &[Memo]) {
        self.facts = memos
            .iter()
            .filter(|m| !m.sources.is_empty())
            .map(|m| {
                let mut s = m.sources.clone();
                s.sort();
                s.dedup();
                (m.key(), s)
            })
            .collect();
    }

    pub fn save(&self, memory: &Path) -> Result<(), EngineError> {
        let path = memory.join(PROVENANCE_PATH);
        let mut json = serde_json::to_vec_pretty(self).map_err(|e| EngineError::Other(e.to_string()))?;
        json.push(b'\n');
        write_atomic(&path, &json).map_err(|e| EngineError::io(&path, e))
    }
}

/// A fact that matches a query, with where it was learned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    /// The topic file, relative to the memory folder.
    pub file: String,
    /// 1-based line in that file.
    pub line: usize,
    pub text: String,
    pub superseded: bool,
    pub sources: Vec<Source>,
}

/// The candidates held back from memory whose text holds every word of `query`.
pub fn find_candidates(engine_data: &Path, query: &str) -> Vec<Candidate> {
    let (record, _) = Provenance::load(engine_data);
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    record
        .candidates
        .into_values()
        .filter(|c| {
            let lower = c.text.to_lowercase();
            !words.is_empty() && words.iter().all(|w| lower.contains(w.as_str()))
        })
        .collect()
}

/// The facts of the memory files whose line holds every word of `query`
/// (case-insensitive), with their sources where the engine recorded them.
pub fn find(memory: &Path, engine_data: &Path, query: &str) -> Vec<Found> {
    let (record, _) = Provenance::load(engine_data);
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut out = Vec::new();
    for (rel, text) in memory_files(memory) {
        let mut superseded = false;
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') {
                superseded = line.trim() == crate::orient::SUPERSEDED_HEADING;
                continue;
            }
            let Some(body) = line.strip_prefix("- ") else { continue };
            let lower = line.to_lowercase();
            if words.is_empty() || !words.iter().all(|w| lower.contains(w.as_str())) {
                continue;
            }
            let stem = rel.trim_end_matches(".md");
            let memo = Memo::parse(stem, line, superseded, jiff::civil::Date::MIN);
            let fact_text = memo.map(|m| m.text).unwrap_or_else(|| body.to_string());
            out.push(Found {
                file: rel.clone(),
                line: i + 1,
                sources: record.sources_of(&fact_text),
                text: fact_text,
                superseded,
            });
        }
    }
    out
}

/// The memory files of the folder's top level (`*.md` but the index), sorted, never read
/// through a link.
pub fn memory_files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".md") || name == autodream_core::memdir::INDEX_FILE || name.starts_with('.') {
            continue;
        }
        if e.file_type().is_ok_and(|t| t.is_file())
            && let Ok(text) = std::fs::read_to_string(e.path())
        {
            out.push((name, text));
        }
    }
    out.sort();
    out
}
