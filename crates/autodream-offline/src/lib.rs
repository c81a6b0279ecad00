//! autodream-offline: the deterministic dream engine — no LLM, no network.
//!
//! One dream is four phases, each in its own module:
//! 1. **Orient** ([`orient`]): read the topic files the engine wrote (and its archive) back
//!    into facts; files it did not write are read-only.
//! 2. **Gather** ([`gather`]): conversation turns and daily-log entries since the last
//!    dream, cleaned of code, tool chatter, paths and placeholders; secrets redacted.
//! 3. **Consolidate** ([`extract`], [`dedup`], [`supersede`]): salient sentences become
//!    dated, attributed facts routed to topic files; near-duplicates merge; a newer fact
//!    on the same attribute supersedes the older one.
//! 4. **Prune & index** ([`budget`], [`render`]): the facts most worth their bytes fill
//!    the size budget, the rest go to `.archive/`; topic files and MEMORY.md are written.
//!
//! What is written: one topic file per person in a conversation between people (type
//! `user`), or, for a coding agent's user, `feedback.md`, `user.md`, `project_<name>.md` and
//! `reference.md`; inside, one line per session, `- 8 May 2023: <facts>`, opening with the
//! day it was learned written the way people write it; relative dates are replaced by the
//! ISO day they mean (`on 2023-05-07`), or followed by it where a replacement would not read
//! (`since last week (week of 2023-05-01)`); superseded facts go under `## Superseded` with
//! both dates. The engine's private state (`.engine/offline/state.json`: input reviewed so far, the lines it
//! wrote, how each fact was said) and the archive (`.archive/`) are dot-folders the agent
//! never loads.
//!
//! Same input, same output, byte for byte: everything is sorted and no hash-map order
//! reaches a file. The `autodream-eval` crate measures the result on the LoCoMo benchmark.
//!
//! A coding agent's sessions (transcripts that name no speaker) take their own path,
//! [`coding`]: the user's words only, durable statements only, subject files, knowledge
//! updates by the value they name, and provenance for every fact.

pub mod budget;
pub mod coding;
pub mod dates;
pub mod dedup;
pub mod extract;
pub mod extract_turns;
pub mod fact;
pub mod gather;
pub mod orient;
pub mod render;
pub mod salience;
pub mod state;
pub mod supersede;
pub mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use jiff::civil::Date;
use jiff::tz::TimeZone;

use autodream_core::engine::{DreamContext, Engine, EngineError, EngineSummary};
use autodream_core::memdir::index::IndexLine;
use autodream_core::memdir::{INDEX_FILE, write_atomic};

use crate::extract::Topics;
use crate::fact::{Fact, Origin};
use crate::orient::ARCHIVE_DIR;
use crate::salience::{Scored, Scorer};
use crate::state::{EngineState, fact_hash, line_hash};

/// The smallest budget, whatever the input: a first dream over a short session still
/// keeps what it learned.
pub const BUDGET_FLOOR_BYTES: u64 = 4096;
/// The archive keeps at most this many times the budget cap; the least worthy go first.
const ARCHIVE_CAP_FACTOR: u64 = 8;

/// The offline engine.
#[derive(Debug, Clone)]
pub struct OfflineEngine {
    tz: TimeZone,
}

impl Default for OfflineEngine {
    fn default() -> Self {
        OfflineEngine::new()
    }
}

impl OfflineEngine {
    /// An engine that dates facts in the local time zone (`TZ`).
    pub fn new() -> OfflineEngine {
        OfflineEngine { tz: autodream_core::clock::local_tz() }
    }

    /// An engine that dates facts in `tz` (the evaluation uses UTC).
    pub fn with_time_zone(tz: TimeZone) -> OfflineEngine {
        OfflineEngine { tz }
    }
}

fn redact_text(text: &str) -> (String, usize) {
    let r = autodream_core::redact::redact(text);
    (r.text.into_owned(), r.count)
}

/// The comparison form of a fact text for "did we write this already?".
fn own_key(text: &str) -> u64 {
    let t = crate::orient::without_line_day(text);
    let words: Vec<String> = crate::text::compare_tokens(t);
    crate::text::stable_hash(words.join(" ").as_bytes())
}

/// What a dream will write: every file's text, and which facts made it in.
struct Plan {
    files: BTreeMap<String, String>,
    total_bytes: usize,
    keep: Vec<bool>,
}

impl Engine for OfflineEngine {
    fn name(&self) -> &'static str {
        "offline"
    }

    fn dream(&self, ctx: &DreamContext<'_>) -> Result<EngineSummary, EngineError> {
        if is_coding_input(ctx) {
            return coding::dream(ctx, &self.tz);
        }
        let today = ctx.now.to_zoned(self.tz.clone()).date();
        let mut notes = Vec::new();
        let (state, state_note) = EngineState::load(ctx.staging);
        notes.extend(state_note);

        // 1. Orient.
        let oriented = orient::orient(ctx.staging, state.as_ref(), today);
        notes.extend(oriented.problems.iter().cloned());
        let kept_before = oriented.facts.iter().filter(|f| f.origin != Origin::Archived).count();
        ctx.progress.turn(
            &format!(
                "Read {kept_before} facts from {} topic files ({} archived, {} files not ours)",
                oriented.own_files.len(),
                oriented.facts.len() - kept_before,
                oriented.foreign.len()
            ),
            0,
            &[],
        );
        ctx.cancel.check()?;

        // 2. Gather.
        let gathered = gather::gather(ctx.sessions, ctx.log_entries, ctx.now, &self.tz, &redact_text);
        ctx.progress.turn(
            &format!(
                "Gathered {} statements from {} sessions and {} log entries ({} turns were noise)",
                gathered.statements.len(),
                gathered.sessions,
                gathered.log_entries,
                gathered.dropped_turns
            ),
            0,
            &[],
        );
        ctx.cancel.check()?;

        // 3. Consolidate: extract, drop our own output seen again, merge, supersede.
        let reserved = oriented
            .foreign
            .iter()
            .filter(|f| !f.rel.contains('/'))
            .map(|f| f.rel.trim_end_matches(".md").to_string())
            .collect();
        let mut topics =
            Topics { by_slug: oriented.topics.clone(), project: project_name(ctx.project_dir), reserved };
        let (people, people_longest) = people_of(&topics, &gathered.statements);
        let scorer = Scorer::new(&people);
        let extracted = extract::extract(&gathered.statements, &mut topics, &people_longest, &scorer);
        let own_texts: BTreeSet<u64> = oriented.facts.iter().map(|f| own_key(&f.text)).collect();
        let mut facts: Vec<Fact> = oriented.facts.clone();
        if let Some(s) = &state {
            for f in facts.iter_mut() {
                if let Some(&w) = s.priors.get(&fact_hash(&f.text)) {
                    f.context = w;
                }
            }
        }
        let mut reingested = 0;
        let mut redactions = 0;
        for (f, said) in extracted.facts.into_iter().zip(&extracted.said) {
            // Our own words seen again (a pasted or quoted memory line) are not news; the
            // speaker saying again what we had attributed to them is, and merges below.
            if own_texts.contains(&own_key(said)) {
                reingested += 1;
                continue;
            }
            facts.push(f);
        }
        let new_count = facts.iter().filter(|f| f.origin == Origin::New).count();
        for f in facts.iter_mut().filter(|f| f.origin != Origin::New) {
            let (t, n) = redact_text(&f.text);
            if n > 0 {
                f.text = t;
                redactions += n;
            }
        }
        let foreign_texts: Vec<String> =
            oriented.foreign.iter().flat_map(|f| f.facts.iter().cloned()).collect();
        let merged_kept_before = facts.iter().filter(|f| f.origin == Origin::Kept).count();
        let merged = dedup::merge_duplicates(&mut facts, &foreign_texts);
        let merged_kept = merged_kept_before - facts.iter().filter(|f| f.origin == Origin::Kept).count();
        let subject_of = |slug: &str| -> Option<String> {
            topics.by_slug.get(slug).map(|t| t.person.clone().unwrap_or_else(|| "The user".to_string()))
        };
        let superseded = supersede::supersede(&mut facts, &subject_of);
        ctx.progress.turn(
            &format!(
                "Consolidated {new_count} new facts: {merged} merged as duplicates, {superseded} superseded, {} sentences of small talk dropped",
                extracted.dropped
            ),
            0,
            &[],
        );
        ctx.cancel.check()?;

        // 4. Prune & index.
        let scores = score_facts(&mut facts, &scorer, &subject_of);
        let (reviewed_total, budget) = budget_of(ctx, state.as_ref(), &oriented, gathered.reviewed_bytes);
        let plan = self.plan(ctx, &oriented, &topics, &people, &facts, &scores, budget, today);
        let archived: Vec<usize> = (0..facts.len()).filter(|&i| !plan.keep[i]).collect();
        let kept_count = facts.len() - archived.len();
        let archived_from_files =
            archived.iter().filter(|&&i| facts[i].origin == Origin::Kept).count() + merged_kept;
        let new_archived = archived.iter().filter(|&&i| facts[i].origin == Origin::New).count();
        redactions += facts
            .iter()
            .filter(|f| f.origin == Origin::New)
            .map(|f| f.text.matches(autodream_core::redact::MARKER_PREFIX).count())
            .sum::<usize>();

        // Write topic files, the index, the archive and the engine's record.
        let written = self.write(
            ctx,
            &plan,
            &topics,
            &facts,
            &scores,
            &archived,
            state.as_ref(),
            reviewed_total,
            today,
        )?;
        let (touched, archive_dropped) = (written.touched, written.archive_dropped);
        if archive_dropped > 0 {
            notes.push(format!(
                "the archive is full: {archive_dropped} of the least useful archived facts were dropped"
            ));
        }
        if reingested > 0 {
            notes.push(format!(
                "{reingested} statements repeated memory the engine had written and were skipped"
            ));
        }
        let topic_files = plan.files.keys().filter(|k| k.as_str() != INDEX_FILE).count();
        notes.push(format!(
            "memory is {} bytes of a {budget}-byte budget ({}% of {reviewed_total} bytes reviewed)",
            plan.total_bytes,
            (ctx.config.memory_budget_ratio * 100.0).round()
        ));
        let text = format!(
            "Kept {} facts in {topic_files} topic files: {new_count} new, {merged} merged, {superseded} superseded, {} archived ({new_archived} of them new)",
            kept_count,
            archived.len()
        );
        ctx.progress.turn(&format!("Wrote {} files. {text}", touched.len()), 0, &touched);
        Ok(EngineSummary {
            text,
            archived_facts: archived_from_files,
            redactions,
            tool_uses: 0,
            tokens: Default::default(),
            cost_usd: None,
            notes,
        })
    }
}

/// What [`OfflineEngine::write`] changed.
struct Written {
    /// The memory files written (relative to the staging copy).
    touched: Vec<PathBuf>,
    /// Archived facts dropped because the archive is full.
    archive_dropped: usize,
}

impl OfflineEngine {
    /// Writes the plan's topic files and index, the archive and the engine's record into the
    /// staging copy; returns the memory files it changed.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        ctx: &DreamContext<'_>,
        plan: &Plan,
        topics: &Topics,
        facts: &[Fact],
        scores: &[Scored],
        archived: &[usize],
        state: Option<&EngineState>,
        reviewed_total: u64,
        today: jiff::civil::Date,
    ) -> Result<Written, EngineError> {
        let mut touched: Vec<PathBuf> = Vec::new();
        let mut new_state = EngineState {
            version: 1,
            reviewed_bytes: reviewed_total,
            dreams: state.map_or(0, |s| s.dreams) + 1,
            files: BTreeMap::new(),
            priors: facts
                .iter()
                .filter(|f| f.context != 1.0)
                .map(|f| (fact_hash(&f.text), f.context))
                .collect(),
        };
        for (rel, text) in &plan.files {
            let path = ctx.staging.join(rel);
            let current = std::fs::read(&path).ok();
            // Nothing to index and no index yet: an empty MEMORY.md would be noise.
            if current.is_none() && text.is_empty() {
                continue;
            }
            if current.as_deref() != Some(text.as_bytes()) {
                write_atomic(&path, text.as_bytes()).map_err(|e| EngineError::io(&path, e))?;
                touched.push(PathBuf::from(rel));
            }
            if rel != INDEX_FILE {
                let set = new_state.files.entry(rel.clone()).or_default();
                for line in text.lines().filter(|l| l.starts_with("- ")) {
                    set.insert(line_hash(line));
                }
            }
        }
        // The archive.
        let archive_cap = (ctx.config.memory_budget_max_bytes * ARCHIVE_CAP_FACTOR) as usize;
        let (archive_files, archive_dropped) =
            self.archive(ctx.staging, topics, facts, scores, archived, archive_cap, today);
        for (rel, text) in archive_files {
            let path = ctx.staging.join(&rel);
            let current = std::fs::read(&path).ok();
            if current.as_deref() != Some(text.as_bytes()) {
                write_atomic(&path, text.as_bytes()).map_err(|e| EngineError::io(&path, e))?;
            }
        }
        new_state.save(ctx.staging)?;
        Ok(Written { touched, archive_dropped })
    }
}

/// Each fact's salience, with words repeated across many facts counting less.
fn score_facts(
    facts: &mut [Fact],
    scorer: &Scorer,
    subject_of: &dyn Fn(&str) -> Option<String>,
) -> Vec<Scored> {
    let mut scores: Vec<Scored> =
        facts.iter().map(|f| scorer.score_about(&f.text, subject_of(&f.topic).as_deref())).collect();
    salience::discount_repeated_words(&mut scores);
    for (f, s) in facts.iter_mut().zip(&scores) {
        f.salience = s.value;
    }
    scores
}

/// The bytes of input reviewed so far (this dream's added) and the memory's byte budget for
/// them.
fn budget_of(
    ctx: &DreamContext<'_>,
    state: Option<&EngineState>,
    oriented: &orient::Oriented,
    reviewed_now: u64,
) -> (u64, usize) {
    let prior_reviewed = match state {
        Some(s) => s.reviewed_bytes,
        // No record: assume the memory on disk filled the budget of the input it came from.
        None => {
            let own_bytes: usize = oriented.own_files.values().map(String::len).sum();
            (own_bytes as f64 / ctx.config.memory_budget_ratio.max(0.01)) as u64
        }
    };
    let reviewed_total = prior_reviewed + reviewed_now;
    let budget = budget::budget_bytes(
        reviewed_total,
        ctx.config.memory_budget_ratio,
        ctx.config.memory_budget_max_bytes,
        BUDGET_FLOOR_BYTES.min(ctx.config.memory_budget_max_bytes),
    ) as usize;
    (reviewed_total, budget)
}

/// The people a conversation names (in the topic files and as speakers), sorted, and the same
/// names longest first, so that "Mel" does not cut "Melanie".
fn people_of(topics: &Topics, statements: &[gather::Statement]) -> (Vec<String>, Vec<String>) {
    let mut people: BTreeSet<String> = topics.by_slug.values().filter_map(|t| t.person.clone()).collect();
    for st in statements {
        if let gather::Voice::Person(p) = &st.voice {
            people.insert(p.clone());
        }
    }
    let people: Vec<String> = people.into_iter().collect();
    let mut people_longest = people.clone();
    people_longest.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    (people, people_longest)
}

/// Is this dream's input a coding agent's sessions (no named speakers) rather than a
/// conversation between people? The coding path also keeps a memory it started: a folder
/// whose record is the coding one stays on it.
fn is_coding_input(ctx: &DreamContext<'_>) -> bool {
    let named =
        ctx.sessions.iter().flat_map(|s| &s.turns).any(|t| t.is_conversation() && t.speaker.is_some());
    if named {
        return false;
    }
    let conversation_record = ctx.staging.join(state::STATE_PATH).is_file();
    let coding_record = ctx.staging.join(coding::provenance::PROVENANCE_PATH).is_file();
    coding_record || !conversation_record || !ctx.sessions.is_empty()
}

fn project_name(dir: &Path) -> Option<String> {
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).filter(|n| !n.is_empty() && n != "/")
}

impl OfflineEngine {
    /// Chooses the facts that fit the budget and renders every file of the memory.
    #[allow(clippy::too_many_arguments)]
    fn plan(
        &self,
        ctx: &DreamContext<'_>,
        oriented: &orient::Oriented,
        topics: &Topics,
        people: &[String],
        facts: &[Fact],
        scores: &[Scored],
        budget: usize,
        today: Date,
    ) -> Plan {
        let foreign_bytes: usize = oriented.foreign.iter().map(|f| f.bytes).sum();
        // Each topic file costs its front matter, title and index line besides its facts.
        let with_facts: BTreeSet<&str> = facts.iter().map(|f| f.topic.as_str()).collect();
        let overhead: usize = with_facts
            .iter()
            .map(|slug| {
                let title = topics.by_slug.get(*slug).map_or(slug.len(), |t| t.title.len());
                let notes: usize =
                    oriented.notes.get(*slug).map_or(0, |n| n.iter().map(|l| l.len() + 1).sum());
                // Front matter with a ~200-byte description, the title, the index entry.
                4 + 7 + title + 214 + 16 + 20 + 4 + 3 + title + notes + 2 * slug.len() + title + 160
            })
            .sum();
        let index_other: usize = oriented
            .index
            .iter()
            .map(|l| match l {
                IndexLine::Other { text } => text.len() + 1,
                IndexLine::Entry { .. } => 0,
            })
            .sum();
        let mut available = budget.saturating_sub(foreign_bytes + overhead + index_other);
        let (mut keep, priority) = budget::select(facts, scores, available, today);
        let mut refined = false;
        loop {
            let kept: Vec<&Fact> = facts.iter().zip(&keep).filter(|(_, k)| **k).map(|(f, _)| f).collect();
            let files = self.render_all(ctx, oriented, topics, people, &kept, today);
            let total = files.values().map(String::len).sum::<usize>() + foreign_bytes;
            // The overhead was an estimate: once, choose again with what is really left.
            if !refined && total + 64 < budget {
                refined = true;
                available += budget - total - 32;
                keep = budget::select(facts, scores, available, today).0;
                continue;
            }
            if total <= budget || kept.iter().all(|f| f.origin == Origin::Edited) {
                return Plan { files, total_bytes: total, keep };
            }
            refined = true;
            // Overshot the estimate: drop the least worthy kept facts to cover the excess.
            let mut excess = total - budget;
            let mut order: Vec<usize> =
                (0..facts.len()).filter(|&i| keep[i] && facts[i].origin != Origin::Edited).collect();
            order.sort_by(|&a, &b| priority[a].total_cmp(&priority[b]).then_with(|| b.cmp(&a)));
            for i in order {
                keep[i] = false;
                let freed = facts[i].join_cost();
                if freed >= excess {
                    break;
                }
                excess -= freed;
            }
        }
    }

    fn render_all(
        &self,
        ctx: &DreamContext<'_>,
        oriented: &orient::Oriented,
        topics: &Topics,
        people: &[String],
        kept: &[&Fact],
        today: Date,
    ) -> BTreeMap<String, String> {
        let mut by_topic: BTreeMap<&str, Vec<&Fact>> = BTreeMap::new();
        for f in kept {
            by_topic.entry(f.topic.as_str()).or_default().push(f);
        }
        let mut files = BTreeMap::new();
        let mut entries = Vec::new();
        for (slug, info) in &topics.by_slug {
            let list = by_topic.remove(slug.as_str()).unwrap_or_default();
            let rel = info.file_name();
            if list.is_empty() && !oriented.own_files.contains_key(&rel) {
                continue;
            }
            let (description, hook) = render::describe(info, &list, people);
            let updated = list.iter().map(|f| f.date).max().unwrap_or(today);
            let empty = Vec::new();
            let notes = oriented.notes.get(slug).unwrap_or(&empty);
            files.insert(rel.clone(), render::topic_file(info, &description, updated, notes, &list));
            entries.push(render::index_entry(&info.title, &rel, &hook));
        }
        let staging = ctx.staging.to_path_buf();
        let exists = move |rel: &str| staging.join(rel).is_file();
        let index = render::index_file(
            &oriented.index,
            &entries,
            &oriented.foreign,
            &exists,
            ctx.config.index_max_lines,
            ctx.config.index_max_units,
        );
        files.insert(INDEX_FILE.to_string(), index);
        files
    }

    /// The archive files: facts left out of memory, most worthy first within the cap.
    /// Returns the files and how many facts did not fit.
    #[allow(clippy::too_many_arguments)]
    fn archive(
        &self,
        staging: &Path,
        topics: &Topics,
        facts: &[Fact],
        scores: &[Scored],
        archived: &[usize],
        cap: usize,
        today: Date,
    ) -> (BTreeMap<String, String>, usize) {
        let worth =
            |i: usize| scores[i].value * budget::recency(facts[i].date, today) / facts[i].line_cost() as f32;
        let mut ranked: Vec<usize> = archived.to_vec();
        ranked.sort_by(|&a, &b| worth(b).total_cmp(&worth(a)).then_with(|| a.cmp(&b)));
        let mut used = 0;
        let mut dropped = 0;
        let mut by_topic: BTreeMap<&str, Vec<&Fact>> = BTreeMap::new();
        for i in ranked {
            let f = &facts[i];
            if used + f.line_cost() > cap {
                dropped += 1;
                continue;
            }
            used += f.line_cost();
            by_topic.entry(f.topic.as_str()).or_default().push(f);
        }
        let mut files = BTreeMap::new();
        for (slug, info) in &topics.by_slug {
            let rel = format!("{ARCHIVE_DIR}/{}", info.file_name());
            let list = by_topic.remove(slug.as_str()).unwrap_or_default();
            if list.is_empty() && !staging.join(&rel).is_file() {
                continue;
            }
            files.insert(rel, render::archive_file(info, &list));
        }
        (files, dropped)
    }
}
