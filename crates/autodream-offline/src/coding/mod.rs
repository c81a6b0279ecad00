//! The offline engine on a coding agent's sessions: memory a developer wants loaded.
//!
//! A coding agent's transcripts name no speaker: the user talks to the agent about one
//! project. What must survive is what the user told the agent that outlives the task:
//! standing rules, corrections, project facts, people and roles, decisions and their
//! reasons, dates ahead, and where things live. One dream:
//!
//! 1. **Orient**: our topic files are read back into memos (the engine's record in
//!    [`provenance`] says which files are ours; a file it cannot prove it wrote is never
//!    rewritten).
//! 2. **Gather** ([`said`]): the user's own prose, out of everything a transcript holds.
//! 3. **Consolidate** ([`durable`], [`updates`]): durable sentences become memos, dated and
//!    with relative dates resolved; near-duplicates merge (their sources join); a statement
//!    that names a value as gone or replaced supersedes the older facts that hold it.
//! 4. **Write** ([`memo`], [`subjects`]): one file per subject, named after it, with front
//!    matter as the agent's client writes it; the index line of each states its newest
//!    current facts. Size follows the facts: nothing durable is dropped for a small input,
//!    and only `memory_budget_max_bytes` bounds the whole.

pub mod asked;
pub mod candidates;
pub mod choices;
mod completes;
pub mod confidence;
pub mod dated;
pub mod declared;
pub mod durable;
pub mod forget;
pub mod gist;
pub mod kinds;
pub mod memo;
pub mod moment;
pub mod orders;
pub mod pasted;
pub mod plans;
mod pointers;
pub mod provenance;
pub mod reactions;
pub mod remembered;
pub mod said;
pub mod secrets;
pub mod spelling;
pub mod standing;
pub mod subjects;
pub mod tails;
pub mod updates;
pub mod vocabulary;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use std::sync::LazyLock;

use jiff::tz::TimeZone;
use regex::Regex;

use autodream_core::engine::{DreamContext, EngineError, EngineSummary};
use autodream_core::memdir::index::{self, IndexLine};
use autodream_core::memdir::{INDEX_FILE, write_atomic};

use crate::orient::{ForeignFile, read_foreign_file};
use confidence::Evidence;
use durable::{Dropped, Verdict};
pub(crate) use memo::with_the_order_before;
use memo::{Memo, Source, one_after_another, terminate};
use pointers::{DEMONSTRATIVE_SUBJECT, LISTED_ONE, introduces_the_project, names_the_project};
pub(crate) use pointers::{has_hole, has_pronoun_subject, with_the_person_named_before};
use provenance::Provenance;
use said::SaidIn;
use subjects::Subject;

/// The longest index hook, in characters (the client's limit is 150).
pub const HOOK_MAX_CHARS: usize = 140;
/// The longest front matter description, in characters.
pub const DESCRIPTION_MAX_CHARS: usize = 150;

/// A pronoun standing for a person or thing named elsewhere.
static PERSONAL_PRONOUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:she|he|her|him|his|they|them|their|it|its)\b|她|他").expect("valid regex")
});

/// An address that names itself: a URL or a dotted host name.
static ADDRESS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"https?://\S+|\b[\w-]+(?:\.[\w-]+){2,}\b").expect("valid regex"));

/// Counts of what a dream did, for its summary.
#[derive(Debug, Default)]
struct Tally {
    new: usize,
    merged: usize,
    superseded: usize,
    /// Candidates under the confidence threshold, held in engine state.
    held: usize,
    dropped: BTreeMap<Dropped, usize>,
}

/// Dreams over a coding agent's sessions (see the module docs).
pub fn dream(ctx: &DreamContext<'_>, tz: &TimeZone) -> Result<EngineSummary, EngineError> {
    let today = ctx.now.to_zoned(tz.clone()).date();
    let mut notes = Vec::new();
    let (mut record, note) = Provenance::load(ctx.staging);
    notes.extend(note);

    // 1. Orient.
    let mut memos: Vec<Memo> = Vec::new();
    let mut file_notes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut foreign: Vec<ForeignFile> = Vec::new();
    let mut own_slugs: BTreeMap<String, Subject> = BTreeMap::new();
    for (rel, text) in provenance::memory_files(ctx.staging) {
        let slug = rel.trim_end_matches(".md").to_string();
        match record.files.get(&rel).and_then(|subject| subject_by_slug(subject)) {
            Some(subject) => {
                let back = memo::read_topic_file(&slug, &text, today);
                for mut m in back.memos {
                    m.sources = record.sources_of(&m.text);
                    memos.push(m);
                }
                file_notes.insert(slug.clone(), back.notes);
                own_slugs.insert(slug, subject);
            }
            None => foreign.push(read_foreign_file(&rel, &text)),
        }
    }
    let kept_before = memos.len();
    ctx.progress.turn(&format!("Read {kept_before} facts from {} topic files", own_slugs.len()), 0, &[]);
    ctx.cancel.check()?;

    // 2. Gather.
    let heard = said::hear(ctx.sessions, ctx.log_entries, ctx.now, tz);
    ctx.progress.turn(
        &format!(
            "Heard {} sentences in {} user turns of {} sessions and {} log entries ({} pasted lines left out, {} turns left out as copies another session holds)",
            heard.sentences.len(),
            heard.user_turns,
            heard.sessions,
            heard.log_entries,
            heard.pasted_lines,
            heard.copied_turns
        ),
        0,
        &[],
    );
    ctx.cancel.check()?;

    // 3. Consolidate.
    let mut tally = Tally::default();
    let taken = foreign.iter().map(|f| f.rel.trim_end_matches(".md").to_string()).collect::<BTreeSet<_>>();
    let mut previous: Option<(SaidIn, usize, String, bool)> = None;
    let mut previous_kept: LastKept = None;
    // The last change kept: where it was said and the values it retired.
    let mut last_change: Option<(SaidIn, usize, Vec<String>, String)> = None;
    // The last rule each session asked to be written down: where it was said, its text.
    let mut rule_written: BTreeMap<String, (Source, String)> = BTreeMap::new();
    let verdicts: Vec<Verdict> =
        heard.sentences.iter().map(|s| durable::judge(&s.text, s.date, s.note)).collect();
    // The same statement in several sessions is evidence that it lasts.
    let said_in = candidates::Heard::new(
        &record,
        heard.sentences.iter().zip(&verdicts).filter_map(|(s, v)| match v {
            Verdict::Keep(k) => Some((k.text.as_str(), &s.source)),
            Verdict::Drop(_) => None,
        }),
    );
    for (said, verdict) in heard.sentences.iter().zip(verdicts.iter().cloned()) {
        let same_turn = |p: &(SaidIn, usize, String, bool)| p.0 == said.source && p.1 + 1 == said.index;
        let mut kept = match verdict {
            Verdict::Keep(k) => k,
            Verdict::Drop(why) => {
                // "… we're on v2 everywhere. model_validate, model_dump, etc.": a sentence that
                // completes the one kept right before it goes into its line.
                if let Some(c) = completes::the_one_before(why, &said.text)
                    && join_to_previous(&mut memos, &mut previous_kept, said, &c.text, |m| (c.fits)(&m.text))
                {
                    continue;
                }
                *tally.dropped.entry(why).or_default() += 1;
                let order = is_an_order(why, &said.text);
                previous = Some((said.source.clone(), said.index, said.text.clone(), order));
                continue;
            }
        };
        // "That's how we do all tests here" takes along the order it refers to.
        let mut text = kept.text.clone();
        if kept.refers_back
            && let Some(p) = previous.as_ref().filter(|p| same_turn(p) && p.3)
        {
            text = with_the_order_before(&p.2, &text);
        } else if orders::makes_the_last_standing(&text) {
            // "Make that standard" with no order before it in the turn says nothing.
            *tally.dropped.entry(Dropped::NotDurable).or_default() += 1;
            previous = None;
            continue;
        }
        // "… for Lena to check. she reviews every UI PR": the person the sentence before names.
        let before = previous.as_ref().filter(|p| same_turn(p)).map(|p| p.2.as_str());
        match pointers::with_the_person_named_before(&text, before) {
            Some(Some(named)) => {
                kept.kind = if durable::names_a_person(&named) { durable::Kind::Person } else { kept.kind };
                text = named;
            }
            Some(None) if !said.note => {
                *tally.dropped.entry(Dropped::NotDurable).or_default() += 1;
                previous = None;
                continue;
            }
            _ => {}
        }
        previous = Some((said.source.clone(), said.index, said.text.clone(), false));
        let text = memo::tidy(&memo::without_repeated_dates(&crate::dates::resolve(&text, said.date)));
        let source = match &said.source {
            SaidIn::Session { id, line } => Source { from: id.clone(), at: said.at.to_string(), line: *line },
            SaidIn::Log { file, line } => Source { from: file.clone(), at: said.at.to_string(), line: *line },
        };
        // Check commands of another approved plan: the one verification line grows.
        if plans::is_verification(&text)
            && let Some(existing) = memos
                .iter_mut()
                .find(|m| m.replaced.is_none() && !m.edited && plans::is_verification(&m.text))
        {
            if let Some(grown) = plans::union(&existing.text, &text) {
                existing.text = grown;
            }
            if !existing.sources.contains(&source) {
                existing.sources.push(source);
            }
            tally.merged += 1;
            continue;
        }
        // The same fact said again: one memo, both sources.
        if let Some(existing) = memos.iter_mut().find(|m| {
            m.replaced.is_none()
                && memo::same_fact(&m.text, &text)
                && !vocabulary::VOCABULARY.differ_in_value(&m.text, &text)
        }) {
            if !existing.sources.contains(&source) {
                existing.sources.push(source);
            }
            tally.merged += 1;
            continue;
        }
        // "I want the instructions to live in Agents.md": where the session's rule lives.
        if durable::names_the_rules_home(&text)
            && let Some((from, rule)) = rule_written.get(candidates::session_of(&said.source))
            && let Some(m) = memos
                .iter_mut()
                .find(|m| m.replaced.is_none() && m.sources.contains(from) && m.text.starts_with(rule))
        {
            m.text = one_after_another(&m.text, &text);
            tally.merged += 1;
            continue;
        }
        // "Don't run migrations against it", "It's Manifest V3": the sentence continues the
        // fact before it in the same turn; a pronoun with nothing to stand for is a hole.
        // A rule may say "it" for the thing it is about ("It's pnpm, not npm"); "this" and
        // "that" point at the moment ("This should still be Checkpoints") unless the rule
        // says it stands.
        let pronoun_subject = has_pronoun_subject(&text)
            && !said.note
            && (!matches!(kept.kind, durable::Kind::Preference | durable::Kind::Correction)
                || DEMONSTRATIVE_SUBJECT.is_match(&text) && !kinds::STRONG_STANDING.is_match(&text)
                || LISTED_ONE.is_match(&text));
        // A pronoun whose thing the sentence itself names ("… on yarn.lock and npm makes a
        // mess of it") needs nothing before it.
        let hole = has_hole(&text);
        let continuation = pronoun_subject || hole;
        let agrees = |m: &Memo| pointers::agrees_in_number(&text, &m.text);
        if continuation && join_to_previous(&mut memos, &mut previous_kept, said, &text, agrees) {
            continue;
        }
        // "We're going back to Google Maps. Mapbox changed their pricing again …": right after a
        // change, a sentence that names the value it retired gives the reason, and goes with it.
        if let Some((_, _, retired, change)) =
            last_change.clone().filter(|c| c.0 == said.source && c.1 + 1 == said.index)
            && updates::gives_a_reason(&text, &retired, &change)
            && join_to_previous(&mut memos, &mut previous_kept, said, &text, |_| true)
        {
            last_change = Some((said.source.clone(), said.index, retired, change));
            continue;
        }
        // A pronoun with nothing to stand for is a hole: "The CLI should handle that …".
        // "It's argo.platform.tessellate.io now", "dev doesn't live there anymore, it points at
        // https://gw.dev…": what the pointer stood for is the old place; the new address says
        // itself.
        let names_new_address = kinds::says_a_change(&text) && ADDRESS.is_match(&text);
        if (pronoun_subject || (hole && !said.note)) && !names_new_address {
            *tally.dropped.entry(Dropped::NotDurable).or_default() += 1;
            continue;
        }
        // Review or explanation text pasted in: never the user's own statement.
        if !said.note && (said.form.is_document() || pasted::reads_as_pasted(&said.text, &said.form)) {
            *tally.dropped.entry(Dropped::Pasted).or_default() += 1;
            continue;
        }
        // "Use binary search insertion instead of sorting" among the orders of a turn that
        // attaches the code it is about: how that work is to be done. It waits as a candidate
        // until another session says it again.
        let for_this_work = !said.note
            && !said.confirmed
            && said.form.is_work_on_attached_code()
            && orders::STANDING_IMPERATIVE.is_match(&text)
            && !kinds::STRONG_STANDING.is_match(&text);
        // Below the threshold: a candidate in engine state, promoted when evidence grows.
        // An order to write a rule down ("I want to create instructions that state that …") is
        // read as the rule it writes: the order's "I want" is not the rule's form.
        let read_as = if durable::writes_a_rule_down(&said.text) { &kept.text } else { &said.text };
        let evidence = Evidence { sentence: read_as, index: said.index, form: &said.form, kind: kept.kind };
        // A change is evidence of its own: a statement that names the value it replaces, or
        // that gives a fact already in memory a new value, counts as said once more, so a
        // change announced inside a task request ("we're switching CI to CircleCI, port the
        // pipeline") is not lost with the request.
        let announced = kept.kind == durable::Kind::Update
            && !updates::is_tentative(&text)
            && !updates::replaced_values(&text).is_empty();
        let revises = || {
            !updates::is_tentative(&text)
                && memos.iter().any(|m| {
                    m.replaced.is_none()
                        && !m.edited
                        && m.date <= said.date
                        && updates::supersedes(&text, &m.text)
                })
        };
        // So is a way of working said in a standing form ("I think it's better not to …",
        // "use X where possible"): the form outweighs the hedge and the order it comes in.
        // And so is what the user adds to a pick among the agent's options ("I like Option 1
        // … in this repo we commit the --local-dev state"): a decision made explicitly.
        // So is the user introducing the project ("This is my personal blog, Hugo with the
        // PaperMod theme …"): what the project is holds as long as the project.
        // So is the project's name said as the subject ("reco-serving is a FastAPI service …").
        let introduces = introduces_the_project(&kept.text);
        let by_name =
            ctx.project_dir.file_name().is_some_and(|n| names_the_project(&kept.text, &n.to_string_lossy()));
        let heard = said_in.sessions(&kept.text)
            + usize::from(announced || kept.standing || said.confirmed || introduces || by_name || revises());
        if !candidates::judge(&evidence, heard, said.note).admitted
            || for_this_work && said_in.sessions(&kept.text) < 2
        {
            candidates::hold(&mut record, &text, said, &evidence, source);
            tally.held += 1;
            continue;
        }
        candidates::promoted(&mut record, &text);
        // The check commands are how changes are tested, whatever runner they name.
        let subject = if plans::is_verification(&text) {
            subjects::TESTING
        } else if introduces {
            // What the project is, whatever tool it names on the way.
            subjects::PROJECT
        } else {
            subjects::subject_of(&text, kept.kind)
        };
        let slug = slot(&mut own_slugs, &taken, subject);
        // A newer statement replaces what older current facts said: the clauses that hold
        // the old value move under "Superseded", the others stay.
        let mut split_off: Vec<Memo> = Vec::new();
        // The names this statement retires: a value the vocabulary knows or one word ("moment
        // 全部换成 dayjs"); "rev C is retired" retires a revision, and a sentence about rev C
        // after it is a fact of its own, not a reason.
        let named_as_replaced = updates::replaced_things(&text);
        let mut retired: Vec<String> = named_as_replaced
            .iter()
            .filter(|old| {
                !old.contains(char::is_whitespace) || !vocabulary::VOCABULARY.values_in(old).is_empty()
            })
            .cloned()
            .collect();
        for old in memos.iter_mut().filter(|m| m.replaced.is_none() && !m.edited && m.date <= said.date) {
            // One turn says its sentences together: "We're going back to Google Maps. Mapbox
            // changed their pricing again" gives the reason, it takes nothing back.
            let same_turn = old.sources.iter().any(|s| s.from == source.from && s.line == source.line);
            if same_turn || !updates::supersedes(&text, &old.text) {
                continue;
            }
            // A pick and a plan's check commands are one statement each: no clause of them stands.
            let whole = choices::is_pick(&old.text) || plans::is_verification(&old.text);
            let parts = if whole { vec![old.text.as_str()] } else { kinds::items(&old.text) };
            // A clause that speaks of the replaced thing by pronoun ("ask her before …") goes
            // with it.
            let (gone, mut stay): (Vec<&str>, Vec<&str>) =
                parts.iter().partition(|c| updates::supersedes(&text, c) || PERSONAL_PRONOUN.is_match(c));
            // What stays becomes a line of its own, so it must read as one: "and then we look
            // at 50 commits …" was a step after the clause replaced, and goes with it.
            stay.retain(|c| moment::of_the_moment(c).is_none());
            // What the change retired: the clauses it replaced, or the whole fact when it
            // replaced no clause of it on its own ("going back to" ends the move as a whole).
            let retired_from = if gone.is_empty() { vec![old.text.as_str()] } else { gone.clone() };
            for clause in &retired_from {
                for (_, value) in vocabulary::VOCABULARY.values_in(clause) {
                    if !retired.contains(&value) && !updates::holds(&text, &value) {
                        retired.push(value);
                    }
                }
            }
            if !gone.is_empty() && !stay.is_empty() {
                // Clauses set apart by full-width commas are joined by them again.
                let comma = if old.text.contains('，') { "，" } else { "; " };
                split_off.push(Memo {
                    text: terminate(&crate::render::capitalise_first(&stay.join(comma))),
                    ..old.clone()
                });
                old.text = gone.join("; ");
            }
            old.replaced = Some(said.date);
            tally.superseded += 1;
        }
        memos.extend(split_off);
        // "We're moving from Poetry to uv" when memory never said Poetry: the old value is
        // history all the same, recorded under Superseded so that it is never taken for the
        // current one.
        if !updates::is_tentative(&text) {
            for old in &named_as_replaced {
                if memos.iter().any(|m| updates::holds(&m.text, old)) {
                    continue;
                }
                if let Some(line) = updates::history_line(&text, old) {
                    split_off_history(&mut memos, &slug, line, said.date, &source);
                    tally.superseded += 1;
                }
            }
        }
        // "sled hasn't had a release in ages, we can't run it in production. Switch the
        // storage engine to RocksDB": the reason said right before the change goes with it too.
        let mut text = text;
        if let Some((_, _, before)) =
            previous_kept.as_ref().filter(|p| p.0 == said.source && p.1 + 1 == said.index)
            && let Some(at) = memos.iter().position(|m| {
                // Said only there: a fact other sessions said too is no reason of this change.
                m.new && m.replaced.is_none() && m.sources.len() == 1 && m.sources.last() == Some(before)
            })
            && updates::gives_a_reason(&memos[at].text, &retired, &text)
        {
            let reason = memos.remove(at);
            text = one_after_another(&reason.text, &text);
            tally.new = tally.new.saturating_sub(1);
        }
        last_change = (!retired.is_empty()).then(|| (said.source.clone(), said.index, retired, text.clone()));
        previous_kept = Some((said.source.clone(), said.index, source.clone()));
        if durable::writes_a_rule_down(&said.text) {
            rule_written
                .insert(candidates::session_of(&said.source).to_string(), (source.clone(), text.clone()));
        }
        memos.push(Memo {
            topic: slug,
            text,
            date: said.date,
            replaced: None,
            edited: false,
            new: true,
            sources: vec![source],
        });
        tally.new += 1;
    }
    let dropped_total: usize = tally.dropped.values().sum();
    ctx.progress.turn(
        &format!(
            "Kept {} new facts ({} merged with what memory held, {} superseded); held {} candidates under the confidence threshold; left out {dropped_total} sentences",
            tally.new, tally.merged, tally.superseded, tally.held
        ),
        0,
        &[],
    );
    ctx.cancel.check()?;

    // 4. Bound the size, then write the topic files and the index.
    let archived = memo::bound_size(&mut memos, ctx.config.memory_budget_max_bytes as usize);
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut entries: Vec<IndexLine> = Vec::new();
    for (slug, subject) in &own_slugs {
        let list: Vec<&Memo> = memos.iter().filter(|m| &m.topic == slug).collect();
        let rel = format!("{slug}.md");
        if list.is_empty() {
            continue;
        }
        let hook = memo::hook(&list, HOOK_MAX_CHARS);
        let description = describe(subject, ctx.project_dir);
        let empty = Vec::new();
        let text =
            memo::topic_file(subject, slug, &description, file_notes.get(slug).unwrap_or(&empty), &list);
        files.insert(rel.clone(), text);
        let hook = if hook.is_empty() { subject.about.to_string() } else { hook };
        entries.push(IndexLine::Entry { title: subject.title.to_string(), file: rel, hook });
    }
    let existing_index = std::fs::read_to_string(ctx.staging.join(INDEX_FILE)).unwrap_or_default();
    let staging = ctx.staging.to_path_buf();
    let exists = move |rel: &str| staging.join(rel).is_file();
    let index_text = crate::render::index_file(
        &index::parse(&existing_index),
        &entries,
        &foreign,
        &exists,
        ctx.config.index_max_lines,
        ctx.config.index_max_units,
    );
    let mut touched: Vec<PathBuf> = Vec::new();
    for (rel, text) in &files {
        write_if_changed(ctx.staging, rel, text, &mut touched)?;
        record.files.insert(rel.clone(), own_slugs[rel.trim_end_matches(".md")].slug.to_string());
    }
    if !files.is_empty() || ctx.staging.join(INDEX_FILE).is_file() {
        write_if_changed(ctx.staging, INDEX_FILE, &index_text, &mut touched)?;
    }
    if !archived.is_empty() {
        let rel = format!("{}/coding.md", crate::orient::ARCHIVE_DIR);
        let mut text = std::fs::read_to_string(ctx.staging.join(&rel)).unwrap_or_default();
        for m in &archived {
            text.push_str(&m.line());
            text.push('\n');
        }
        let path = ctx.staging.join(&rel);
        write_atomic(&path, text.as_bytes()).map_err(|e| EngineError::io(&path, e))?;
        notes.push(format!(
            "{} of the oldest facts moved to {rel} to stay within the size limit",
            archived.len()
        ));
    }
    record.remember(&memos);
    candidates::expire(&mut record, today);
    record.save(ctx.staging)?;

    let current = memos.iter().filter(|m| m.replaced.is_none()).count();
    let dropped: Vec<String> = tally
        .dropped
        .iter()
        .map(|(why, n)| {
            let what = match why {
                Dropped::Chatter => "chatter",
                Dropped::Question => "questions",
                Dropped::Request => "one-off requests",
                Dropped::Status => "status reports",
                Dropped::Secret => "holding secrets",
                Dropped::NotDurable => "not durable",
                Dropped::Pasted => "pasted review or explanation text",
            };
            format!("{n} {what}")
        })
        .collect();
    if !dropped.is_empty() {
        notes.push(format!("sentences left out: {}", dropped.join(", ")));
    }
    if tally.held > 0 {
        let (n, s) = (tally.held, if tally.held == 1 { "" } else { "s" });
        notes.push(format!(
            "{n} statement{s} held as candidate{s} under the confidence threshold: written once another session says it again (autodream why WORDS shows one)"
        ));
    }
    let text = format!(
        "Kept {current} facts in {} topic files: {} new, {} merged, {} superseded",
        files.len(),
        tally.new,
        tally.merged,
        tally.superseded
    );
    ctx.progress.turn(&format!("Wrote {} files. {text}", touched.len()), 0, &touched);
    let secrets = tally.dropped.get(&Dropped::Secret).copied().unwrap_or(0);
    Ok(EngineSummary {
        text,
        archived_facts: archived.len(),
        redactions: secrets,
        tool_uses: 0,
        tokens: Default::default(),
        cost_usd: None,
        notes,
    })
}

/// The sentence just kept: where it was said, its place in the turn, and the source of the
/// memo it went into.
type LastKept = Option<(SaidIn, usize, Source)>;

/// Appends `addition` to the memo that the sentence right before `said`, in the same turn,
/// went into (a new, current one that `fits`), and makes `said` the last sentence kept. False
/// when there is no such memo: the sentence is judged alone.
fn join_to_previous(
    memos: &mut [Memo],
    previous_kept: &mut LastKept,
    said: &said::Said,
    addition: &str,
    fits: impl Fn(&Memo) -> bool,
) -> bool {
    let Some((_, _, source)) =
        previous_kept.as_ref().filter(|p| p.0 == said.source && p.1 + 1 == said.index).cloned()
    else {
        return false;
    };
    // A turn's memos share its source: its last memo holds the sentence before, or none does.
    let Some(m) = memos
        .iter_mut()
        .rev()
        .find(|m| m.new && m.replaced.is_none() && m.sources.last() == Some(&source))
        .filter(|m| fits(m))
    else {
        return false;
    };
    m.text = one_after_another(&m.text, addition);
    *previous_kept = Some((said.source.clone(), said.index, source));
    true
}

/// The old value a change names, as a superseded line of the change's topic.
fn split_off_history(
    memos: &mut Vec<Memo>,
    topic: &str,
    text: String,
    day: jiff::civil::Date,
    source: &Source,
) {
    memos.push(Memo {
        topic: topic.to_string(),
        text,
        date: day,
        replaced: Some(day),
        edited: false,
        new: true,
        sources: vec![source.clone()],
    });
}

fn subject_by_slug(slug: &str) -> Option<Subject> {
    subjects::all().into_iter().find(|s| s.slug == slug)
}

/// The file stem for a subject: its slug, unless a file we did not write has that name.
fn slot(own: &mut BTreeMap<String, Subject>, taken: &BTreeSet<String>, subject: Subject) -> String {
    if let Some((slug, _)) = own.iter().find(|(_, s)| s.slug == subject.slug) {
        return slug.clone();
    }
    let mut slug = subject.slug.to_string();
    let mut n = 2;
    while taken.contains(&slug) {
        slug = format!("{}-{n}", subject.slug);
        n += 1;
    }
    own.insert(slug.clone(), subject);
    slug
}

fn describe(subject: &Subject, project: &Path) -> String {
    let project = project.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if project.is_empty() {
        crate::render::capitalise_first(subject.about)
    } else {
        format!("{} in {project}", crate::render::capitalise_first(subject.about))
    }
}

/// Is a dropped sentence an order a sentence after it may refer back to? "request Copilot
/// review." is one, though too short to be judged a request.
pub(crate) fn is_an_order(why: Dropped, text: &str) -> bool {
    why == Dropped::Request || why == Dropped::Chatter && orders::is_imperative(text)
}

fn write_if_changed(
    staging: &Path,
    rel: &str,
    text: &str,
    touched: &mut Vec<PathBuf>,
) -> Result<(), EngineError> {
    let path = staging.join(rel);
    if std::fs::read(&path).ok().as_deref() != Some(text.as_bytes()) {
        write_atomic(&path, text.as_bytes()).map_err(|e| EngineError::io(&path, e))?;
        touched.push(PathBuf::from(rel));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
