//! Forgetting by hand: retire the facts that match a query, without an editor.
//!
//! `autodream forget TEXT` runs this as an engine inside the dream's transaction, so the
//! change is staged, validated, applied under the journal, kept in history and undone by
//! `autodream undo`. Every bullet line of a memory file that holds all the words of the
//! query leaves its file and goes to `.archive/forgotten.md` with the day it was
//! forgotten. The index hooks of the engine's own files are written again from what
//! remains, so MEMORY.md never repeats a forgotten fact; a hook someone else wrote is left
//! as it is.

use autodream_core::engine::{DreamContext, Engine, EngineError, EngineSummary};
use autodream_core::memdir::index::{self, IndexLine};
use autodream_core::memdir::{INDEX_FILE, write_atomic};

use super::memo;
use super::provenance::Provenance;

/// The archive of forgotten facts, relative to the memory folder.
pub const FORGOTTEN_FILE: &str = ".archive/forgotten.md";

/// Retires the facts whose line holds every word of `query` (case-insensitive).
#[derive(Debug, Clone)]
pub struct ForgetEngine {
    pub words: Vec<String>,
    pub tz: jiff::tz::TimeZone,
}

impl ForgetEngine {
    pub fn new(query: &str) -> ForgetEngine {
        ForgetEngine {
            words: query.split_whitespace().map(str::to_lowercase).collect(),
            tz: autodream_core::clock::local_tz(),
        }
    }

    fn matches(&self, line: &str) -> bool {
        let lower = line.to_lowercase();
        !self.words.is_empty() && self.words.iter().all(|w| lower.contains(w.as_str()))
    }
}

impl Engine for ForgetEngine {
    fn name(&self) -> &'static str {
        "forget"
    }

    fn dream(&self, ctx: &DreamContext<'_>) -> Result<EngineSummary, EngineError> {
        let today = ctx.now.to_zoned(self.tz.clone()).date();
        let (record, _) = Provenance::load(ctx.staging);
        let mut forgotten: Vec<String> = Vec::new();
        let mut touched_files = 0;
        let mut hooks: Vec<(String, String)> = Vec::new();
        for (rel, text) in super::provenance::memory_files(ctx.staging) {
            let mut kept = String::with_capacity(text.len());
            let mut removed = 0;
            for line in text.split_inclusive('\n') {
                let bare = line.trim_end_matches('\n');
                if bare.starts_with("- ") && self.matches(bare) {
                    let fact = bare.trim_start_matches("- ").trim_end_matches('.');
                    forgotten.push(format!("- {fact} (forgotten {today} from {rel})."));
                    removed += 1;
                } else {
                    kept.push_str(line);
                }
            }
            if removed == 0 {
                continue;
            }
            touched_files += 1;
            let path = ctx.staging.join(&rel);
            write_atomic(&path, kept.as_bytes()).map_err(|e| EngineError::io(&path, e))?;
            if record.files.contains_key(&rel) {
                let back = memo::read_topic_file(rel.trim_end_matches(".md"), &kept, today);
                let refs: Vec<&memo::Memo> = back.memos.iter().collect();
                hooks.push((rel.clone(), memo::hook(&refs, super::HOOK_MAX_CHARS)));
            }
        }
        if forgotten.is_empty() {
            // Nothing to do is a failed edit, not an empty one: no history entry to undo.
            return Err(EngineError::Other(format!("no fact holds {:?}", self.words.join(" "))));
        }
        let archive = ctx.staging.join(FORGOTTEN_FILE);
        let mut text = std::fs::read_to_string(&archive).unwrap_or_default();
        for line in &forgotten {
            text.push_str(line);
            text.push('\n');
        }
        write_atomic(&archive, text.as_bytes()).map_err(|e| EngineError::io(&archive, e))?;
        // The index: our hooks again from what is left; other lines as they are.
        let index_path = ctx.staging.join(INDEX_FILE);
        if let Ok(index_text) = std::fs::read_to_string(&index_path) {
            let lines: Vec<IndexLine> = index::parse(&index_text)
                .into_iter()
                .map(|l| match l {
                    IndexLine::Entry { title, file, hook } => {
                        let fresh = hooks.iter().find(|(rel, _)| *rel == file).map(|(_, h)| h.clone());
                        IndexLine::Entry { title, file, hook: fresh.unwrap_or(hook) }
                    }
                    other => other,
                })
                .collect();
            let mut rendered = index::render(&lines);
            if index_text.ends_with('\n') && !rendered.ends_with('\n') {
                rendered.push('\n');
            }
            if rendered != index_text {
                write_atomic(&index_path, rendered.as_bytes())
                    .map_err(|e| EngineError::io(&index_path, e))?;
            }
        }
        Ok(EngineSummary {
            text: format!(
                "Forgot {} in {} (kept in {FORGOTTEN_FILE})",
                plural(forgotten.len(), "fact"),
                plural(touched_files, "file")
            ),
            archived_facts: forgotten.len(),
            ..empty_summary()
        })
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

fn empty_summary() -> EngineSummary {
    EngineSummary {
        text: String::new(),
        archived_facts: 0,
        redactions: 0,
        tool_uses: 0,
        tokens: Default::default(),
        cost_usd: None,
        notes: vec![],
    }
}
