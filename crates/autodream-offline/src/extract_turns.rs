//! Per-turn extraction with the offline engine's rules: from the new part of a transcript,
//! the user's durable statements, one daily-log entry each.
//!
//! The transcript's new lines are cut into turns, a turn being a user's prompt and
//! everything the agent did after it. For each turn:
//! - a turn in which the agent wrote into the memory folder itself (a `Write`, `Edit`,
//!   `MultiEdit` or `NotebookEdit` call whose file is under it) is skipped: the agent
//!   already saved what it meant to;
//! - the user's prose is picked out exactly as a dream picks it ([`said`]: no pasted
//!   output, no injected blocks), and each sentence is judged by the dream's own test
//!   ([`durable::judge`]): standing rules, corrections, project facts, people, decisions,
//!   dates and references are kept; one-off requests, questions, status, chatter and
//!   anything holding a secret are not, nor a sentence that leans on the one before it
//!   ("It runs nightly", "The CLI should handle that"), which means nothing in a log alone;
//! - what memory (MEMORY.md and the topic files) or the logs not yet dreamed over already
//!   hold is dropped, by the dream's own comparison ([`memo::same_fact`]).
//!
//! A user's last prompt with no answer after it yet is held back for the next run. The
//! bookkeeping (offsets, locking, the append) is `autodream_core::extraction`'s.
//!
//! The steps are public for other rules to reuse: [`OfflineExtractor::cut`] gives each
//! complete turn with the user's sentences before they are judged, [`OfflineExtractor::verdict`]
//! judges them, and [`OfflineExtractor::holds`] / [`OfflineExtractor::remember`] are the
//! comparison with what is known.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::Value;

use autodream_core::capture::{CaptureError, CaptureRules, Chunk, Emit, FoundTurn};
use autodream_core::memdir::daily_log;
use autodream_core::memdir::{INDEX_FILE, LOGS_DIR};
use autodream_core::sessions::{
    ParsedSession, Role, SessionFile, SessionFormat, Turn, TurnKind, parse_session,
};

use crate::coding::durable::{self, Kind, Verdict};
use crate::coding::said::{self, Said};
use crate::coding::{self, memo};
use crate::coding::{candidates, confidence::Evidence};

/// Tools that write a file the agent names in `file_path` (or `notebook_path`).
const WRITE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// What is already known, as the dream's comparison keys.
struct Known {
    /// Lines of memory and log entries, with their word sets (a cheap filter before
    /// [`memo::same_fact`]).
    lines: Vec<(String, HashSet<String>)>,
    keys: HashSet<String>,
}

impl Known {
    fn new() -> Known {
        Known { lines: Vec::new(), keys: HashSet::new() }
    }

    fn add(&mut self, text: &str) {
        let key = memo::key_of(text);
        if key.is_empty() || !self.keys.insert(key.clone()) {
            return;
        }
        let words = key.split(' ').map(str::to_string).collect();
        self.lines.push((text.to_string(), words));
    }

    fn holds(&self, text: &str) -> bool {
        let key = memo::key_of(text);
        if self.keys.contains(&key) {
            return true;
        }
        let words: HashSet<&str> = key.split(' ').collect();
        // Without CJK, the words are `same_fact`'s tokens: the same 80% overlap, checked
        // cheaply first. CJK is compared by character pairs, so a looser filter goes first.
        let cjk = key.chars().any(crate::text::is_cjk);
        self.lines.iter().any(|(line, line_words)| {
            let common = words.iter().filter(|w| line_words.contains(**w)).count();
            let union = words.len() + line_words.len() - common;
            let close =
                if cjk { common * 2 >= words.len().min(line_words.len()) } else { common * 10 >= union * 8 };
            close && memo::same_fact(line, text)
        })
    }
}

/// The offline engine's per-turn extractor for one memory folder.
pub struct OfflineExtractor {
    memory_dir: PathBuf,
    known: Known,
    now: Timestamp,
    tz: TimeZone,
}

impl OfflineExtractor {
    /// Reads what memory already holds: MEMORY.md and every topic file, today's log, and the
    /// log entries written since `cursor` (the last dream's).
    pub fn new(
        memory_dir: &Path,
        cursor: Option<&daily_log::LogCursor>,
        now: Timestamp,
        tz: TimeZone,
    ) -> OfflineExtractor {
        let mut known = Known::new();
        for text in memory_texts(memory_dir) {
            for line in text.lines() {
                let line = line.trim().trim_start_matches(['-', '*']).trim();
                if !line.is_empty() && !line.starts_with('#') {
                    known.add(line);
                }
            }
        }
        let today = now.to_zoned(tz.clone()).date();
        let mut entries = daily_log::read_since(memory_dir, cursor).map(|r| r.0).unwrap_or_default();
        if let Ok(text) = std::fs::read_to_string(daily_log::log_path(memory_dir, today)) {
            entries.extend(text.lines().filter_map(|l| {
                let body = l.trim().strip_prefix("- [")?.split_once("] ")?.1;
                Some(daily_log::LogEntry {
                    date: today,
                    time: None,
                    at: now,
                    text: daily_log::split_session_suffix(body).0.to_string(),
                    file: String::new(),
                    line: 0,
                })
            }));
        }
        for e in &entries {
            known.add(&e.text);
        }
        OfflineExtractor { memory_dir: memory_dir.to_path_buf(), known, now, tz }
    }

    /// Is `path` (as the agent named it) inside the memory folder?
    fn in_memory(&self, path: &str) -> bool {
        let p = lexical(Path::new(path));
        p.starts_with(lexical(&self.memory_dir))
            || self.memory_dir.canonicalize().is_ok_and(|m| p.starts_with(m))
    }

    /// Did this transcript line write into the memory folder?
    fn writes_memory(&self, line: &str) -> bool {
        if !(line.contains("file_path") || line.contains("notebook_path")) || !line.contains("tool_use") {
            return false;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else { return false };
        if v.get("type").and_then(Value::as_str) != Some("assistant") {
            return false;
        }
        let Some(blocks) = v.pointer("/message/content").and_then(Value::as_array) else { return false };
        blocks.iter().any(|b| {
            let name = b.get("name").and_then(Value::as_str).unwrap_or("");
            let is_call = b.get("type").and_then(Value::as_str).is_some_and(|t| t.ends_with("tool_use"));
            let path = b.pointer("/input/file_path").or_else(|| b.pointer("/input/notebook_path"));
            is_call
                && WRITE_TOOLS.contains(&name)
                && path.and_then(Value::as_str).is_some_and(|p| self.in_memory(p))
        })
    }

    /// Does memory or the logs (or an entry kept in this run) already hold `text`?
    pub fn holds(&self, text: &str) -> bool {
        self.known.holds(text)
    }

    /// Counts `text` as known from now on (an entry about to be written).
    pub fn remember(&mut self, text: &str) {
        self.known.add(text);
    }

    /// The durable statements among a turn's sentences (from [`Self::cut`]) that are not
    /// known yet; each one kept is known from then on.
    pub fn verdict(&mut self, sentences: &[Said]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        // The order said right before, in the same turn, that a sentence may make standing.
        let mut order_before: Option<&Said> = None;
        // The sentence said right before, in the same turn, whatever became of it.
        let mut said_before: Option<&Said> = None;
        for s in sentences {
            let just_before =
                said_before.replace(s).filter(|b| b.source == s.source && b.index + 1 == s.index);
            let kept = match durable::judge(&s.text, s.date, false) {
                Verdict::Keep(kept) => kept,
                Verdict::Drop(why) => {
                    order_before = coding::is_an_order(why, &s.text).then_some(s);
                    continue;
                }
            };
            let before = order_before.take().filter(|o| o.source == s.source && o.index + 1 == s.index);
            // "Make that standard in your workflow" goes with the order before it, as a dream
            // writes it.
            let text = match before {
                Some(order) if kept.refers_back => coding::with_the_order_before(&order.text, &kept.text),
                _ => kept.text.clone(),
            };
            // "She reviews every UI PR" says who only with the name the sentence before gives.
            let text = match coding::with_the_person_named_before(&text, just_before.map(|b| b.text.as_str()))
            {
                Some(Some(named)) => named,
                Some(None) => continue,
                None => text,
            };
            // A sentence that leans on the one before it is a hole in a log of its own: a
            // dream keeps every sentence of a log entry, so the test is made here, as the
            // dream makes it on a session.
            let pronoun = coding::has_pronoun_subject(&text)
                && !matches!(kept.kind, Kind::Preference | Kind::Correction);
            if kept.refers_back && before.is_none() || pronoun || coding::has_hole(&text) {
                continue;
            }
            // The dream's threshold, on what one session shows: a log entry is what a dream
            // would keep (a dream keeps every sentence of a note).
            if coding::pasted::reads_as_pasted(&s.text, &s.form) {
                continue;
            }
            let evidence = Evidence { sentence: &s.text, index: s.index, form: &s.form, kind: kept.kind };
            if !candidates::judge(&evidence, 1, false).admitted {
                continue;
            }
            let text = daily_log::fold_line(&text);
            if self.known.holds(&text) {
                continue;
            }
            self.known.add(&text);
            out.push(text);
        }
        out
    }
}

/// Is this turn the start of a user's turn: a prompt, or a slash command with arguments?
fn opens_turn(turn: &Turn) -> bool {
    turn.role == Role::User
        && (turn.kind == TurnKind::Conversation
            || turn.kind == TurnKind::Meta && turn.text.contains("<command-args>"))
}

/// One complete turn of a chunk, as [`OfflineExtractor::cut`] reads it.
#[derive(Debug, Clone)]
pub struct TurnSaid {
    /// The transcript offset after the turn's last line.
    pub end: u64,
    /// The user's sentences, not judged yet; none when the turn is the tail of one read
    /// before or the agent wrote into the memory folder in it.
    pub sentences: Vec<Said>,
}

impl OfflineExtractor {
    /// Cuts `chunk` into its complete turns, in order, with the user's sentences of each;
    /// and the offset the next run resumes at (a trailing prompt not answered yet is held
    /// back).
    pub fn cut(&self, chunk: &Chunk<'_>) -> (Vec<TurnSaid>, u64) {
        // The byte offset after each line (lines are 1-based, as the parser numbers them).
        let mut ends = vec![chunk.start];
        let mut starts_writing = Vec::new();
        let mut pos = chunk.start;
        for line in chunk.text.split_inclusive('\n') {
            pos += line.len() as u64;
            ends.push(pos);
            starts_writing.push(self.writes_memory(line));
        }
        let file = SessionFile { id: chunk.session.to_string(), path: PathBuf::new(), modified_at: self.now };
        let parsed = parse_session(file.clone(), chunk.text, SessionFormat::Auto);
        let format = parsed.format;
        // Turns: each opening user turn with everything up to the next one.
        let mut groups: Vec<Vec<Turn>> = Vec::new();
        for turn in parsed.turns {
            if opens_turn(&turn) || groups.is_empty() {
                groups.push(Vec::new());
            }
            groups.last_mut().expect("pushed").push(turn);
        }
        let line_count = ends.len() - 1;
        let mut resume_at = ends[line_count];
        let mut out = Vec::new();
        // Where each turn starts, so that each can be moved out of `groups` as it is heard.
        let firsts: Vec<usize> = groups.iter().map(|g| g[0].line).collect();
        for (i, group) in groups.iter_mut().enumerate() {
            let first = firsts[i];
            let last_line = firsts.get(i + 1).map_or(line_count, |next| next - 1);
            let answered = group.iter().any(|t| t.role != Role::User);
            let is_last = i + 1 == firsts.len();
            if is_last && opens_turn(&group[0]) && (!answered || !chunk.final_turn_complete) {
                resume_at = ends[first - 1];
                break;
            }
            let end = ends[last_line];
            // The tail of a turn read before holds nothing of the user's; a turn in which
            // the agent wrote into memory is skipped.
            let wrote_memory = (first..=last_line).any(|l| starts_writing[l - 1]);
            let sentences = if !opens_turn(&group[0]) || wrote_memory {
                Vec::new()
            } else {
                // The agent's words of the turn come along: the user's sentences are heard the
                // way a dream hears them (a name dictated apart takes the session's spelling).
                let turns = std::mem::take(group);
                let session = ParsedSession { file: file.clone(), format, turns, skipped_lines: 0 };
                said::hear(std::slice::from_ref(&session), &[], self.now, &self.tz).sentences
            };
            out.push(TurnSaid { end, sentences });
        }
        (out, resume_at)
    }
}

impl CaptureRules for OfflineExtractor {
    fn extract(&mut self, chunk: &Chunk<'_>, emit: &mut Emit<'_>) -> Result<u64, CaptureError> {
        let (turns, resume_at) = self.cut(chunk);
        for turn in turns {
            let entries = self.verdict(&turn.sentences);
            emit(FoundTurn { end: turn.end, entries })?;
        }
        Ok(resume_at)
    }
}

/// MEMORY.md and every topic file (`*.md` outside `logs/` and dot-folders).
fn memory_texts(memory_dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![memory_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ft) = e.file_type() else { continue };
            if name.starts_with('.') || (dir == memory_dir && name == LOGS_DIR) {
                continue;
            }
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() && (name.ends_with(".md") || name == INDEX_FILE) {
                out.extend(std::fs::read_to_string(e.path()));
            }
        }
    }
    out
}

/// `path` with `.` and `..` resolved by name only.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: serde_json::Value) -> String {
        format!("{v}\n")
    }

    fn user(text: &str) -> String {
        line(serde_json::json!({"type": "user", "message": {"role": "user", "content": text}}))
    }

    fn answer() -> String {
        line(
            serde_json::json!({"type": "assistant", "message": {"id": "m", "role": "assistant", "content": [{"type": "text", "text": "OK."}]}}),
        )
    }

    fn writes(path: &str) -> String {
        line(serde_json::json!({"type": "assistant", "message": {"id": "w", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "Edit", "input": {"file_path": path, "old_string": "a", "new_string": "b"}}]}}))
    }

    /// Runs the rules over `text` (starting at byte `start`): the turns emitted and the
    /// resume offset.
    fn run(memory: &Path, text: &str, start: u64, complete: bool) -> (Vec<FoundTurn>, u64) {
        let now: Timestamp = "2026-05-08T13:56:00Z".parse().unwrap();
        let mut rules = OfflineExtractor::new(memory, None, now, TimeZone::UTC);
        let chunk = Chunk { text, start, session: "s", restarted: false, final_turn_complete: complete };
        let mut turns = Vec::new();
        let resume = rules
            .extract(&chunk, &mut |t| {
                turns.push(t);
                Ok(())
            })
            .unwrap();
        (turns, resume)
    }

    #[test]
    fn turns_end_where_their_lines_end_and_an_unanswered_prompt_waits() {
        let tmp = tempfile::tempdir().unwrap();
        let first = user("We use pnpm in this repo, never npm.") + &answer();
        let waiting = user("Staging runs on Fly.io in the ams region.");
        let text = first.clone() + &waiting;
        let (turns, resume) = run(tmp.path(), &text, 100, true);
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].end, 100 + first.len() as u64);
        assert_eq!(turns[0].entries, ["We use pnpm in this repo, never npm."]);
        assert_eq!(resume, 100 + first.len() as u64, "the unanswered prompt is read next time");
        // While the transcript is still growing, even an answered last turn may not be over.
        let (turns, resume) = run(tmp.path(), &first, 0, false);
        assert!(turns.is_empty());
        assert_eq!(resume, 0);
    }

    #[test]
    fn a_sentence_making_the_order_before_it_standing_is_logged_with_it_as_a_dream_writes_it() {
        let tmp = tempfile::tempdir().unwrap();
        let text = user("request Copilot review.  Make that standard in your workflow.")
            + &answer()
            + &user("Make that the default.")
            + &answer();
        let (turns, _) = run(tmp.path(), &text, 0, true);
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].entries, ["Request Copilot review. Make that standard in your workflow."]);
        assert!(turns[1].entries.is_empty(), "{:?}", turns[1].entries);
    }

    #[test]
    fn she_is_logged_as_the_person_named_before_or_not_at_all() {
        let tmp = tempfile::tempdir().unwrap();
        let text =
            user("This needs to be in Storybook for Lena to check. she reviews every UI PR, design-wise.")
                + &answer()
                + &user("She reviews every UI PR, design-wise.")
                + &answer();
        let (turns, _) = run(tmp.path(), &text, 0, true);
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].entries, ["Lena reviews every UI PR, design-wise."]);
        assert!(turns[1].entries.is_empty(), "{:?}", turns[1].entries);
    }

    #[test]
    fn a_turn_writing_into_memory_is_skipped_whatever_the_path_spelling() {
        let tmp = tempfile::tempdir().unwrap();
        let mem = tmp.path().join("memory");
        std::fs::create_dir_all(&mem).unwrap();
        let sneaky = format!("{}/../memory/project.md", mem.display());
        let text = user("Our release branch is release/next and is cut every Thursday.")
            + &writes(&sneaky)
            + &answer()
            + &user("The API gateway listens on port 8443 in every environment.")
            + &writes(&format!("{}/src/main.rs", tmp.path().display()))
            + &answer();
        let (turns, resume) = run(&mem, &text, 0, true);
        assert_eq!(turns.len(), 2);
        assert!(turns[0].entries.is_empty(), "{:?}", turns[0].entries);
        assert_eq!(turns[1].entries.len(), 1, "{:?}", turns[1].entries);
        assert_eq!(resume, text.len() as u64);
    }

    #[test]
    fn a_sentence_leaning_on_the_one_before_it_is_not_an_entry() {
        let tmp = tempfile::tempdir().unwrap();
        let text = user(
            "The nightly backup job runs at 02:00 UTC on the db-prod host. It runs with the backup role. The entire tool should handle that automatically for every repo.",
        ) + &answer();
        let (turns, _) = run(tmp.path(), &text, 0, true);
        assert_eq!(turns[0].entries, ["The nightly backup job runs at 02:00 UTC on the db-prod host."]);
    }

    #[test]
    fn a_name_dictated_apart_takes_the_spelling_of_the_agents_answer() {
        let tmp = tempfile::tempdir().unwrap();
        let reply = line(
            serde_json::json!({"type": "assistant", "message": {"id": "m", "role": "assistant", "content": [{"type": "text", "text": "I'll point .github/copilot-instructions.md at AGENTS.md."}]}}),
        );
        let text = user("We always point the co-pilot-instructions.md to AGENTS.md, never copy it.") + &reply;
        let (turns, _) = run(tmp.path(), &text, 0, true);
        assert_eq!(
            turns[0].entries,
            ["We always point the copilot-instructions.md to AGENTS.md, never copy it."]
        );
    }

    #[test]
    fn what_memory_or_the_log_holds_is_not_written_again() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("tooling.md"), "- We use pnpm in this repo, never npm.\n").unwrap();
        let now: jiff::Zoned = "2026-05-08T13:00:00+00:00[UTC]".parse().unwrap();
        let log = vec!["The API gateway listens on port 8443 everywhere (session 0b1c2d3e)".to_string()];
        daily_log::append_all(tmp.path(), &now, &log).unwrap();
        let text = user("We use pnpm in this repo, never npm.")
            + &answer()
            + &user("The API gateway listens on port 8443 everywhere.")
            + &answer()
            + &user("Priya owns the billing service and approves every pricing change.")
            + &answer()
            + &user("Priya owns the billing service and approves every pricing change.")
            + &answer();
        let (turns, _) = run(tmp.path(), &text, 0, true);
        let kept: Vec<&String> = turns.iter().flat_map(|t| &t.entries).collect();
        assert_eq!(kept, ["Priya owns the billing service and approves every pricing change."]);
    }
}
