//! The offline engine end to end, on small hand-written conversations: what is written,
//! where, with which dates, and what is merged, superseded, redacted, archived and kept.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use autodream_core::config::Config;
use autodream_core::engine::{
    CancelToken, DreamContext, Engine, EngineError, EngineSummary, ProgressSink, TokenUsage,
};
use autodream_core::memdir::daily_log::LogEntry;
use autodream_core::sessions::{ParsedSession, SessionFile, SessionFormat, parse_session};
use autodream_offline::OfflineEngine;
use jiff::Timestamp;
use jiff::tz::TimeZone;

/// A progress sink that records what it is told.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl ProgressSink for Recorder {
    fn turn(&self, text: &str, _tool_uses: u32, _touched: &[PathBuf]) {
        self.0.lock().unwrap().push(text.to_string());
    }
    fn tokens(&self, _usage: TokenUsage) {}
    fn denial(&self, _reason: &str) {}
}

/// One session in the generic format: `(speaker or "" for the role only, role, text)`.
fn session(id: &str, start: &str, turns: &[(&str, &str, &str)]) -> ParsedSession {
    let start: Timestamp = start.parse().unwrap();
    let mut text = String::new();
    for (k, (name, role, content)) in turns.iter().enumerate() {
        let at = start.checked_add(jiff::SignedDuration::from_secs(k as i64)).unwrap();
        let mut obj = serde_json::json!({"timestamp": at.to_string(), "role": role, "content": content});
        if !name.is_empty() {
            obj["name"] = serde_json::Value::String(name.to_string());
        }
        text.push_str(&obj.to_string());
        text.push('\n');
    }
    let file =
        SessionFile { id: id.to_string(), path: PathBuf::from(format!("{id}.jsonl")), modified_at: start };
    parse_session(file, &text, SessionFormat::Generic)
}

struct Run {
    summary: Result<EngineSummary, EngineError>,
    progress: Vec<String>,
}

fn dream_with(
    memory: &Path,
    sessions: &[ParsedSession],
    logs: &[LogEntry],
    now: &str,
    config: &Config,
    cancel: &CancelToken,
) -> Run {
    let engine = OfflineEngine::with_time_zone(TimeZone::UTC);
    let recorder = Recorder::default();
    let project = memory.join("..").join("shop");
    let ctx = DreamContext {
        staging: memory,
        memory_dir: memory,
        sessions_dir: memory,
        project_dir: &project,
        sessions,
        log_entries: logs,
        last_consolidated_at: None,
        now: now.parse().unwrap(),
        config,
        progress: &recorder,
        cancel,
    };
    let summary = engine.dream(&ctx);
    Run { summary, progress: recorder.0.into_inner().unwrap() }
}

fn dream(memory: &Path, sessions: &[ParsedSession], now: &str) -> EngineSummary {
    dream_with(memory, sessions, &[], now, &Config::default(), &CancelToken::new()).summary.unwrap()
}

fn read(memory: &Path, rel: &str) -> String {
    std::fs::read_to_string(memory.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn friends_day_one() -> ParsedSession {
    session(
        "s1",
        "2023-05-08T13:56:00Z",
        &[
            ("Caroline", "user", "Hey Mel! Good to see you! How have you been?"),
            ("Melanie", "user", "Hey Caroline! I'm swamped with the kids & work. What's up with you?"),
            ("Caroline", "user", "I went to a LGBTQ support group yesterday and it was so powerful."),
            ("Melanie", "user", "Wow, that's cool, Caroline! Did you hear any inspiring stories?"),
            (
                "Caroline",
                "user",
                "Yes! I adopted a puppy named Biscuit last week, and I work as a barista at Moonbean Cafe. [shares a photo: a photo of a puppy sleeping on a red blanket]",
            ),
            (
                "Melanie",
                "user",
                "Thanks, Caroline! I painted that lake sunrise last year. My kids love dinosaurs.",
            ),
        ],
    )
}

#[test]
fn conversation_facts_are_attributed_dated_and_filed_per_person() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let run = dream_with(
        memory,
        &[friends_day_one()],
        &[],
        "2023-05-08T14:30:00Z",
        &Config::default(),
        &CancelToken::new(),
    );
    let summary = run.summary.unwrap();
    let caroline = read(memory, "caroline.md");
    let melanie = read(memory, "melanie.md");
    assert!(caroline.starts_with("---\nname: Caroline\ndescription: "), "{caroline}");
    assert!(
        caroline.contains("\nmetadata:\n  type: user\nupdated: 2023-05-08\n---\n# Caroline\n- 8 May 2023: ")
    );
    // First person attributed, relative dates resolved against the session's day.
    assert!(caroline.contains("Caroline went to a LGBTQ support group on 2023-05-07"), "{caroline}");
    assert!(caroline.contains("Caroline adopted a puppy named Biscuit the week of 2023-05-01"), "{caroline}");
    assert!(caroline.contains("Photo: a puppy sleeping on a red blanket."), "{caroline}");
    assert!(melanie.contains("Melanie painted that lake sunrise in 2022"), "{melanie}");
    assert!(melanie.contains("Melanie's kids love dinosaurs"), "{melanie}");
    // Greetings, questions and thanks are not memory.
    for noise in ["Good to see you", "How have you been", "inspiring stories", "Thanks"] {
        assert!(!caroline.contains(noise) && !melanie.contains(noise), "{noise}");
    }
    let index = read(memory, "MEMORY.md");
    assert_eq!(index.lines().count(), 2, "{index}");
    assert!(index.starts_with("- [Caroline](caroline.md) — "));
    assert!(index.contains("\n- [Melanie](melanie.md) — "));
    assert!(index.lines().all(|l| l.chars().count() <= 200));
    // One progress event per phase, and the summary says what happened.
    assert_eq!(run.progress.len(), 4, "{:?}", run.progress);
    assert!(run.progress[1].starts_with("Gathered 6 statements from 1 sessions"), "{:?}", run.progress);
    assert!(summary.text.starts_with("Kept "), "{}", summary.text);
    assert_eq!(summary.archived_facts, 0);
}

#[test]
fn newer_facts_supersede_older_ones_and_repeats_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    dream(memory, &[friends_day_one()], "2023-05-08T14:30:00Z");
    let later = session(
        "s2",
        "2023-06-09T10:00:00Z",
        &[
            ("Caroline", "user", "Big news: I work as a counselor at the Riverside youth center now."),
            ("Melanie", "user", "Amazing! My kids love dinosaurs."),
        ],
    );
    let summary = dream(memory, &[later], "2023-06-09T11:00:00Z");
    let caroline = read(memory, "caroline.md");
    let (current, superseded) =
        caroline.split_once("## Superseded\n").unwrap_or_else(|| panic!("no superseded section: {caroline}"));
    assert!(
        current.contains("Caroline works as a counselor at the Riverside youth center now"),
        "{caroline}"
    );
    assert!(!current.contains("barista"), "{caroline}");
    assert!(
        superseded
            .contains("- 8 May 2023 (superseded 9 June 2023): Caroline works as a barista at Moonbean Cafe."),
        "{caroline}"
    );
    // The repeated statement is one fact, on the newer date.
    let melanie = read(memory, "melanie.md");
    assert_eq!(melanie.matches("kids love dinosaurs").count(), 1, "{melanie}");
    assert!(melanie.contains("\n- 9 June 2023: Melanie's kids love dinosaurs."), "{melanie}");
    assert!(summary.text.contains("1 superseded"), "{}", summary.text);
}

#[test]
fn secrets_are_redacted_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH";
    let s = session(
        "c1",
        "2024-03-01T09:00:00Z",
        &[(
            "",
            "user",
            &format!("Remember that the staging deploy always uses the token {key} for the registry."),
        )],
    );
    let summary = dream(memory, &[s], "2024-03-01T10:00:00Z");
    let mut all = String::new();
    for entry in walk(memory) {
        all.push_str(&std::fs::read_to_string(entry).unwrap_or_default());
    }
    assert!(!all.contains(key), "{all}");
    // A sentence that held a secret is left out whole: never a line with a hole in it.
    assert!(!all.contains("[REDACTED:"), "{all}");
    assert!(!all.contains("registry"), "{all}");
    assert_eq!(summary.redactions, 1);
}

/// Bytes of what the agent loads: top-level Markdown files (dot-folders excluded).
fn memory_size(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".md"))
        .map(|e| std::fs::metadata(e.path()).unwrap().len() as usize)
        .sum()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A long conversation: many distinct facts, each with its own rare words.
fn chatty(n: usize, id: &str, start: &str) -> ParsedSession {
    const SYLLABLES: [&str; 12] =
        ["ka", "zu", "mor", "vel", "tri", "qua", "dex", "lon", "bri", "sho", "pen", "gar"];
    let word = |i: usize, salt: usize| -> String {
        let a = SYLLABLES[(i * 7 + salt) % 12];
        let b = SYLLABLES[(i * 5 + salt * 3 + 1) % 12];
        let c = SYLLABLES[(i / 12 + salt) % 12];
        format!("{a}{b}{c}")
    };
    let turns: Vec<(String, String)> = (0..n)
        .map(|i| {
            let who = if i % 2 == 0 { "Jon" } else { "Gina" };
            let text = match i % 4 {
                0 => format!(
                    "I visited {} with {} and bought a {} there.",
                    cap(&word(i, 1)),
                    cap(&word(i, 2)),
                    word(i, 3)
                ),
                1 => format!(
                    "My cousin {} keeps a {} named {} in the garage.",
                    cap(&word(i, 4)),
                    word(i, 5),
                    cap(&word(i, 6))
                ),
                2 => format!(
                    "We finally finished the {} course at {} after {} weeks.",
                    word(i, 7),
                    cap(&word(i, 8)),
                    i % 9 + 2
                ),
                _ => format!(
                    "Last week I read \"{}\" by {} {}.",
                    cap(&word(i, 9)),
                    cap(&word(i, 10)),
                    cap(&word(i, 11))
                ),
            };
            (who.to_string(), text)
        })
        .collect();
    let refs: Vec<(&str, &str, &str)> = turns.iter().map(|(w, t)| (w.as_str(), "user", t.as_str())).collect();
    session(id, start, &refs)
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

#[test]
fn the_budget_caps_memory_and_the_rest_goes_to_the_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let config = Config { memory_budget_max_bytes: 6_000, ..Config::default() };
    let first = chatty(200, "big", "2023-01-10T10:00:00Z");
    let run = dream_with(memory, &[first], &[], "2023-01-10T12:00:00Z", &config, &CancelToken::new());
    run.summary.unwrap();
    // 200 turns of about 70 bytes: 20% is under the 4 KiB floor, so the floor applies.
    let size = memory_size(memory);
    assert!(size <= 4_096, "memory is {size} bytes");
    assert!(size > 3_500, "the budget should be used, memory is {size} bytes");
    let archived = read(memory, ".archive/jon.md");
    assert!(archived.starts_with("---\nname: Jon\n"), "{archived}");
    assert!(archived.matches("Jon visited").count() > 20, "{archived}");
    // A tighter cap moves kept facts out, and says so.
    let tighter = Config { memory_budget_max_bytes: 3_000, ..Config::default() };
    let run = dream_with(memory, &[], &[], "2023-01-11T12:00:00Z", &tighter, &CancelToken::new());
    let summary = run.summary.unwrap();
    let size = memory_size(memory);
    assert!(size <= 3_000, "memory is {size} bytes");
    assert!(summary.archived_facts > 0, "{summary:?}");
}

#[test]
fn hand_edits_and_files_we_did_not_write_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    dream(memory, &[friends_day_one()], "2023-05-08T14:30:00Z");
    let caroline = read(memory, "caroline.md");
    let edited = caroline.replace("Moonbean Cafe", "Moonbean Café (downtown)");
    std::fs::write(memory.join("caroline.md"), &edited).unwrap();
    let mine = "# My notes\n- Caroline's birthday is in March\n";
    std::fs::write(memory.join("notes.md"), mine).unwrap();
    let later = session(
        "s2",
        "2023-06-09T10:00:00Z",
        &[("Caroline", "user", "I started learning the cello in Vienna.")],
    );
    dream(memory, &[later], "2023-06-09T11:00:00Z");
    assert_eq!(read(memory, "notes.md"), mine);
    let caroline = read(memory, "caroline.md");
    assert!(caroline.contains("Moonbean Café (downtown)"), "{caroline}");
    assert!(caroline.contains("cello in Vienna"), "{caroline}");
    let index = read(memory, "MEMORY.md");
    assert!(index.contains("](notes.md)"), "{index}");
}

#[test]
fn a_coding_session_keeps_durable_guidance_not_tasks_code_or_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let s = session(
        "8f1c",
        "2026-03-02T09:00:00Z",
        &[
            ("", "user", "Fix the failing test in src/parser.rs please."),
            ("", "assistant", "I always prefer tabs. I fixed the parser by escaping the quote."),
            ("", "user", "Use rebase, not merge, when you update branches.\n```sh\ngit merge main\n```"),
            ("", "user", "I'm a data engineer on the payments team."),
            ("", "user", "We decided to freeze merges on Thursday because the release is on Friday."),
            ("", "user", "Bugs are tracked in the Linear project INGEST."),
            ("", "tool", "error[E0308]: mismatched types"),
        ],
    );
    dream(memory, &[s], "2026-03-02T10:00:00Z");
    let git = read(memory, "git-workflow.md");
    assert!(git.contains("metadata:\n  type: feedback"), "{git}");
    assert!(git.contains("- Use rebase, not merge, when you update branches (2026-03-02)."), "{git}");
    let user = read(memory, "user.md");
    assert!(user.contains("- The user is a data engineer on the payments team (2026-03-02)."), "{user}");
    let index = read(memory, "MEMORY.md");
    assert!(
        index.contains("- [Git workflow](git-workflow.md) — Use rebase, not merge, when you update branches"),
        "{index}"
    );
    let all: String = walk(memory).iter().map(|p| std::fs::read_to_string(p).unwrap_or_default()).collect();
    for never in ["failing test", "parser.rs", "git merge main", "tabs", "E0308"] {
        assert!(!all.contains(never), "{never} was saved: {all}");
    }
    for kept in [
        // Days said as a plan are pinned to their dates: a later session reads "Thursday" as
        // its own.
        "We decided to freeze merges on Thursday (2026-03-05) because the release is on Friday (2026-03-06)",
        "Bugs are tracked in the Linear project INGEST (2026-03-02).",
    ] {
        assert!(all.contains(kept), "{kept} is missing: {all}");
    }
}

#[test]
fn chinese_statements_are_attributed_and_dated() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let s = session(
        "zh",
        "2024-05-08T09:00:00Z",
        &[("小王", "user", "我昨天去了杭州西湖划船。"), ("小李", "user", "你好！")],
    );
    dream(memory, &[s], "2024-05-08T10:00:00Z");
    let file = read(memory, "小王.md");
    assert!(file.contains("- 8 May 2024: 小王昨天 (2024-05-07)去了杭州西湖划船。"), "{file}");
    assert!(!memory.join("小李.md").exists());
}

#[test]
fn daily_log_notes_are_always_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let at: Timestamp = "2026-03-03T08:15:00Z".parse().unwrap();
    let logs = [LogEntry {
        date: "2026-03-03".parse().unwrap(),
        time: Some(jiff::civil::time(8, 15, 0, 0)),
        at,
        text: "User prefers small pull requests, never more than 400 lines.".into(),
        file: "logs/2026/03/2026-03-03.md".into(),
        line: 1,
    }];
    let run = dream_with(memory, &[], &logs, "2026-03-03T09:00:00Z", &Config::default(), &CancelToken::new());
    run.summary.unwrap();
    let git = read(memory, "git-workflow.md");
    assert!(
        git.contains("- User prefers small pull requests, never more than 400 lines (2026-03-03)."),
        "{git}"
    );
}

#[test]
fn same_input_same_bytes() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    for dir in [a.path(), b.path()] {
        dream(dir, &[friends_day_one(), chatty(40, "c", "2023-05-20T10:00:00Z")], "2023-05-20T12:00:00Z");
    }
    for rel in ["MEMORY.md", "caroline.md", "melanie.md", "jon.md", "gina.md", ".engine/offline/state.json"] {
        assert_eq!(read(a.path(), rel), read(b.path(), rel), "{rel}");
    }
}

#[test]
fn our_own_output_seen_again_is_not_new_knowledge() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    dream(memory, &[friends_day_one()], "2023-05-08T14:30:00Z");
    let before = read(memory, "caroline.md");
    let line = before.lines().find(|l| l.starts_with("- ") && l.contains("Biscuit")).unwrap().to_string();
    let echo = session("s3", "2023-07-01T10:00:00Z", &[("Caroline", "user", &line)]);
    let summary = dream(memory, &[echo], "2023-07-01T11:00:00Z");
    let after = read(memory, "caroline.md");
    assert_eq!(after.lines().filter(|l| l.starts_with("- ") && l.contains("Biscuit")).count(), 1, "{after}");
    assert!(!after.contains("1 July 2023:"), "{after}");
    assert!(summary.notes.iter().any(|n| n.contains("repeated memory")), "{:?}", summary.notes);
}

#[test]
fn a_cancelled_dream_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let cancel = CancelToken::new();
    cancel.cancel();
    let run = dream_with(
        tmp.path(),
        &[friends_day_one()],
        &[],
        "2023-05-08T14:30:00Z",
        &Config::default(),
        &cancel,
    );
    assert!(matches!(run.summary, Err(EngineError::Cancelled)));
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn a_memory_someone_else_started_is_never_rewritten() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    // A hand-written file named like one of the engine's subjects, with no record of the
    // engine writing it.
    let theirs =
        "---\nname: Git\ndescription: my rules\ntype: feedback\n---\n# Git\n- Keep branches short-lived.\n";
    std::fs::write(memory.join("git-workflow.md"), theirs).unwrap();
    std::fs::write(memory.join("MEMORY.md"), "- [Git](git-workflow.md) — my rules\n").unwrap();
    let s = session(
        "c9",
        "2026-03-02T09:00:00Z",
        &[("", "user", "Never force-push to main, use a revert commit instead.")],
    );
    dream(memory, &[s], "2026-03-02T10:00:00Z");
    assert_eq!(read(memory, "git-workflow.md"), theirs);
    let ours = read(memory, "git-workflow-2.md");
    assert!(ours.contains("- Never force-push to main, use a revert commit instead (2026-03-02)."), "{ours}");
    let index = read(memory, "MEMORY.md");
    assert!(index.starts_with("- [Git](git-workflow.md) — my rules\n"), "{index}");
    assert!(index.contains("](git-workflow-2.md) — Never force-push to main"), "{index}");
    // The next dream routes the same subject to the same file of ours.
    let s =
        session("c10", "2026-03-03T09:00:00Z", &[("", "user", "Always rebase before you push a branch.")]);
    dream(memory, &[s], "2026-03-03T10:00:00Z");
    assert_eq!(read(memory, "git-workflow.md"), theirs);
    assert!(
        read(memory, "git-workflow-2.md").contains("- Always rebase before you push a branch (2026-03-03).")
    );
    assert!(!memory.join("git-workflow-3.md").exists());
}

#[test]
fn nothing_to_remember_writes_no_memory_files() {
    let tmp = tempfile::tempdir().unwrap();
    let s = session(
        "q",
        "2026-03-02T09:00:00Z",
        &[("", "user", "Can you fix the build?"), ("", "user", "thanks!")],
    );
    let summary = dream(tmp.path(), &[s], "2026-03-02T10:00:00Z");
    let md: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert!(md.is_empty(), "{md:?}");
    assert!(summary.text.starts_with("Kept 0 facts"), "{}", summary.text);
}
