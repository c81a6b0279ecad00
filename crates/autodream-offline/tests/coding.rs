//! The offline engine on coding sessions: real Claude Code transcripts (fixtures with their
//! sources in `fixtures/real/SOURCES.md`), knowledge updates across dreams and files, and
//! provenance. Every line a dream writes is read as the agent would read it.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use jiff::tz::TimeZone;

use autodream_core::config::Config;
use autodream_core::engine::{CancelToken, DreamContext, Engine, EngineSummary, NullProgress};
use autodream_core::sessions::{ParsedSession, SessionFile, SessionFormat, parse_session};
use autodream_offline::OfflineEngine;
use autodream_offline::coding::provenance;

fn fixture(name: &str) -> ParsedSession {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let file = SessionFile {
        id: name.trim_end_matches(".jsonl").to_string(),
        path,
        modified_at: "2026-07-12T00:00:00Z".parse().unwrap(),
    };
    parse_session(file, &text, SessionFormat::Claude)
}

/// A Claude Code-shaped session of plain user turns, one minute apart.
fn session(id: &str, start: &str, user_turns: &[&str]) -> ParsedSession {
    let start: Timestamp = start.parse().unwrap();
    let mut text = String::new();
    for (k, content) in user_turns.iter().enumerate() {
        let at = start.checked_add(jiff::SignedDuration::from_mins(k as i64)).unwrap();
        let entry = serde_json::json!({
            "type": "user", "sessionId": id, "timestamp": at.to_string(), "uuid": format!("{id}-{k}"),
            "message": {"role": "user", "content": content},
        });
        text.push_str(&entry.to_string());
        text.push('\n');
    }
    let file =
        SessionFile { id: id.to_string(), path: PathBuf::from(format!("{id}.jsonl")), modified_at: start };
    parse_session(file, &text, SessionFormat::Claude)
}

fn dream(memory: &Path, sessions: &[ParsedSession], now: &str) -> EngineSummary {
    let config = Config::default();
    let cancel = CancelToken::new();
    let project = memory.join("..").join("acme");
    let ctx = DreamContext {
        staging: memory,
        memory_dir: memory,
        sessions_dir: memory,
        project_dir: &project,
        sessions,
        log_entries: &[],
        last_consolidated_at: None,
        now: now.parse().unwrap(),
        config: &config,
        progress: &NullProgress,
        cancel: &cancel,
    };
    OfflineEngine::with_time_zone(TimeZone::UTC).dream(&ctx).unwrap()
}

/// One session of `turns` said at `at`, dreamt at `now` into a fresh memory folder.
fn dream_turns(at: &str, now: &str, turns: &[&str]) -> (tempfile::TempDir, EngineSummary) {
    let tmp = tempfile::tempdir().unwrap();
    let summary = dream(tmp.path(), &[session("s1", at, turns)], now);
    (tmp, summary)
}

/// Every fact line of every topic file, with its section: (file, current?, line).
fn fact_lines(memory: &Path) -> Vec<(String, bool, String)> {
    let mut out = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(memory)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && n != "MEMORY.md")
        .collect();
    names.sort();
    for name in names {
        let text = std::fs::read_to_string(memory.join(&name)).unwrap();
        let mut current = true;
        for line in text.lines() {
            if line.starts_with("## ") {
                current = !line.contains("Superseded");
            } else if line.starts_with("- ") {
                out.push((name.clone(), current, line.to_string()));
            }
        }
    }
    out
}

/// One dream over one Claude Code transcript made of `entries`, last modified at `modified`.
fn dream_claude_entries(entries: &[serde_json::Value], modified: &str, now: &str) -> tempfile::TempDir {
    let text: String = entries.iter().map(|e| format!("{e}\n")).collect();
    let file = SessionFile {
        id: "s".into(),
        path: PathBuf::from("s.jsonl"),
        modified_at: modified.parse().unwrap(),
    };
    let memory = tempfile::tempdir().unwrap();
    dream(memory.path(), &[parse_session(file, &text, SessionFormat::Claude)], now);
    memory
}

fn current_holding(memory: &Path, words: &[&str]) -> Vec<String> {
    fact_lines(memory)
        .into_iter()
        .filter(|(_, current, line)| *current && words.iter().all(|w| line.contains(w)))
        .map(|(_, _, l)| l)
        .collect()
}

fn superseded_holding(memory: &Path, word: &str) -> Vec<String> {
    fact_lines(memory)
        .into_iter()
        .filter(|(_, current, line)| !*current && line.contains(word))
        .map(|(_, _, l)| l)
        .collect()
}

#[test]
fn a_real_session_of_a_quick_task_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    dream(memory, &[fixture("cipher-box__d3_e476e685d1_0_full.jsonl")], "2026-02-12T00:00:00Z");
    let lines = fact_lines(memory);
    let all: String = lines.iter().map(|(_, _, l)| format!("{l}\n")).collect();
    // What the quick task should produce ("status indicator should be in the footer …",
    // typed as the slash command's arguments) is the task's specification, not a standing rule.
    assert!(!all.contains("Status indicator"), "{all}");
    // Orders, questions, client markers and the command's injected prompt are not memory;
    // nor a step of the plan ("before you go doing that, we need to get back to main").
    for never in [
        "get back to main",
        "commit, push and pr",
        "do i add it",
        "kick the tires",
        "Request interrupted",
        "/clear",
        "gsd",
        "back to main we go",
    ] {
        assert!(!all.to_lowercase().contains(&never.to_lowercase()), "{never:?} was kept:\n{all}");
    }
    // Every line stands alone: no sentence with a hole, none opening with a pronoun.
    for (_, _, line) in &lines {
        let text = line.trim_start_matches("- ");
        assert!(!text.starts_with(['I', 'i']) || text.starts_with("If"), "{line}");
        assert!(!text.starts_with("It ") && !text.starts_with("That "), "{line}");
        assert!(line.ends_with(").") && line.contains(" (2026-"), "{line}");
    }
    // The session is a quick task, orders, questions and the command's prompt: it holds no
    // standing fact, so the dream writes no topic file and no index.
    assert!(lines.is_empty(), "{all}");
    assert!(!memory.join("MEMORY.md").exists());
}

#[test]
fn stated_rules_in_a_list_are_one_fact_and_delegation_orders_are_not_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    dream(memory, &[fixture("oh-my-posh__27_d853466055_0_full.jsonl")], "2026-07-12T00:00:00Z");
    let all: String = fact_lines(memory).iter().map(|(_, _, l)| format!("{l}\n")).collect();
    assert!(
        all.contains("The rules are: pragmatic solution; no breaking changes; something that is easily maintainable architecturally (2026-07-11)."),
        "{all}"
    );
    for never in ["Do it", "sonnet 5", "comment is accurate", "Investigate how", "github.com"] {
        assert!(!all.contains(never), "{never:?} was kept:\n{all}");
    }
}

#[test]
fn an_update_chain_moves_each_old_value_under_superseded_across_dreams_and_files() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    dream(
        memory,
        &[session(
            "s1",
            "2026-03-02T09:00:00Z",
            &["Use yarn, not npm, the repo is on yarn.lock. CI is Jenkins, job billing-pr."],
        )],
        "2026-03-02T10:00:00Z",
    );
    assert_eq!(current_holding(memory, &["yarn"]).len(), 1);
    dream(
        memory,
        &[session(
            "s2",
            "2026-03-09T09:00:00Z",
            &[
                "FYI we switched the repo from yarn to pnpm on Friday. We dropped Jenkins; CI is GitHub Actions now.",
            ],
        )],
        "2026-03-09T10:00:00Z",
    );
    dream(
        memory,
        &[session(
            "s3",
            "2026-04-01T09:00:00Z",
            &["We moved from pnpm to bun for everything, it installs faster."],
        )],
        "2026-04-01T10:00:00Z",
    );
    // A → B → C: both older values are superseded, each with the day it was replaced.
    let yarn = superseded_holding(memory, "Use yarn, not npm");
    assert_eq!(yarn.len(), 1, "{:#?}", fact_lines(memory));
    assert!(yarn[0].ends_with("(2026-03-02; replaced 2026-03-09)."), "{}", yarn[0]);
    let pnpm = superseded_holding(memory, "from yarn to pnpm");
    assert_eq!(pnpm.len(), 1, "{:#?}", fact_lines(memory));
    assert!(pnpm[0].contains("replaced 2026-04-01"), "{}", pnpm[0]);
    assert!(
        current_holding(memory, &["pnpm"]).iter().all(|l| l.contains("bun")),
        "{:#?}",
        fact_lines(memory)
    );
    // In another file, the CI change did the same.
    let jenkins = superseded_holding(memory, "CI is Jenkins");
    assert_eq!(jenkins.len(), 1, "{:#?}", fact_lines(memory));
    assert!(current_holding(memory, &["GitHub Actions"]).len() == 1);
    let index = std::fs::read_to_string(memory.join("MEMORY.md")).unwrap();
    assert!(index.contains("bun"), "{index}");
    assert!(!index.contains("Use yarn"), "{index}");
}

#[test]
fn a_chinese_update_supersedes_the_person_it_names() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    dream(
        memory,
        &[session(
            "z1",
            "2026-01-15T07:00:00Z",
            &["另外李娜是支付网关的 owner，签名校验那块的改动要她点头才能合。"],
        )],
        "2026-01-15T08:00:00Z",
    );
    dream(
        memory,
        &[session(
            "z2",
            "2026-02-02T02:40:00Z",
            &["说两件事。一是李娜调去风控团队了，支付网关现在归赵强，签名相关的改动以后找赵强。"],
        )],
        "2026-02-02T03:00:00Z",
    );
    assert_eq!(superseded_holding(memory, "李娜是支付网关的 owner").len(), 1, "{:#?}", fact_lines(memory));
    assert_eq!(current_holding(memory, &["赵强"]).len(), 1, "{:#?}", fact_lines(memory));
    let people = std::fs::read_to_string(memory.join("people.md")).unwrap();
    assert!(people.contains("metadata:\n  type: project\n"), "{people}");
}

#[test]
fn a_small_session_keeps_every_durable_statement_and_no_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let summary = dream(
        memory,
        &[session(
            "c1",
            "2026-05-04T09:00:00Z",
            &[
                "Dana is our tech lead and she reviews every pull request.",
                "The main branch is called trunk, not main.",
                "Use tabs in this repo.",
                "The API listens on port 8080.",
                "STRIPE_KEY=sk-live-4f9a is in .env, don't touch it.",
                "Can you fix the flaky test?",
            ],
        )],
        "2026-05-04T10:00:00Z",
    );
    for words in [&["Dana", "tech lead"][..], &["trunk"], &["tabs"], &["8080"]] {
        assert_eq!(current_holding(memory, words).len(), 1, "{words:?}: {:#?}", fact_lines(memory));
    }
    let all: String = fact_lines(memory).iter().map(|(_, _, l)| format!("{l}\n")).collect();
    assert!(!all.contains("sk-live") && !all.contains("STRIPE_KEY") && !all.contains("flaky"), "{all}");
    assert_eq!(summary.redactions, 1);
}

#[test]
fn every_fact_knows_its_session_time_and_line_through_merges() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    dream(
        memory,
        &[session("p1", "2026-05-04T09:00:00Z", &["Always run cargo fmt before you commit."])],
        "2026-05-04T10:00:00Z",
    );
    dream(
        memory,
        &[session("p2", "2026-05-06T09:00:00Z", &["Hi.", "Always run cargo fmt before you commit!"])],
        "2026-05-06T10:00:00Z",
    );
    let found = provenance::find(memory, memory, "cargo fmt");
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert_eq!(f.file, "git-workflow.md");
    assert!(!f.superseded);
    let from: Vec<(&str, usize)> = f.sources.iter().map(|s| (s.from.as_str(), s.line)).collect();
    assert_eq!(from, [("p1", 1), ("p2", 2)]);
    assert_eq!(f.sources[0].at, "2026-05-04T09:00:00Z");
}

/// A resumed session's file starts with a copy of the turns it continues: the copies are the
/// same statements, not more evidence, so memory is the same as from the original alone, and
/// a plan's check commands become one line that grows with each plan.
#[test]
fn copied_turns_are_no_evidence_and_plans_give_one_verification_line() {
    let long = "as far as I can remember I completed all those steps, the deploy went out yesterday and the logs looked fine to me.\n\nyou can check everything on the server yourself. and can you drive for me? if error is type of cli.SilentError, do not print anything.\n\nif we use a private key derived from the public key, this could be a way to grant someone access to a folder. the uploader keeps its retry state in a small sqlite file next to the binary.";
    let turns: &[&str] = &[
        long,
        "Use pnpm for everything in this repo, never npm.",
        "the staging dashboard is deployed here: https://grafana.example.com/d/staging",
    ];
    let alone = tempfile::tempdir().unwrap();
    let summary = dream(alone.path(), &[session("a", "2026-03-02T10:00:00Z", turns)], "2026-03-05T00:00:00Z");
    // The summary says what was held back and how it gets in.
    let (record, _) = provenance::Provenance::load(alone.path());
    let held = record.candidates.len();
    let note = summary
        .notes
        .iter()
        .find(|n| n.contains("under the confidence threshold"))
        .expect("a note on what is held");
    assert!(note.starts_with(&format!("{held} statement")), "{note}");
    let summary = dream(alone.path(), &[], "2026-03-06T00:00:00Z");
    assert!(
        !summary.notes.iter().any(|n| n.contains("candidate")),
        "nothing new, nothing held: {:?}",
        summary.notes
    );
    let copied = tempfile::tempdir().unwrap();
    let resumed: Vec<&str> = turns.iter().copied().chain(["thanks, that's all"]).collect();
    dream(
        copied.path(),
        &[session("a", "2026-03-02T10:00:00Z", turns), session("b", "2026-03-02T10:00:00Z", &resumed)],
        "2026-03-05T00:00:00Z",
    );
    assert_eq!(fact_lines(copied.path()), fact_lines(alone.path()));
    // What is held back was heard in one session, not two.
    let (record, _) = provenance::Provenance::load(copied.path());
    assert!(!record.candidates.is_empty(), "a candidate is held back: {:?}", fact_lines(copied.path()));
    for c in record.candidates.values() {
        assert_eq!(c.sessions, vec!["a".to_string()], "{}", c.text);
    }

    let plan = |checks: &str| {
        format!(
            "Implement the following plan:\n\n# Plan: x\n\n## Context\n\nRun `pnpm build`.\n\n## Verification\n\n{checks}\n"
        )
    };
    let memory = tempfile::tempdir().unwrap();
    dream(
        memory.path(),
        &[
            session("p1", "2026-03-02T10:00:00Z", &[&plan("1. `pnpm test` - passes\n2. `pnpm lint`")]),
            session(
                "p2",
                "2026-03-03T10:00:00Z",
                &[&plan("- `pnpm test`\n- `pnpm typecheck`\n- `mkdir /tmp/x`")],
            ),
        ],
        "2026-03-05T00:00:00Z",
    );
    let lines = current_holding(memory.path(), &["Verify changes with"]);
    assert_eq!(
        lines,
        vec!["- Verify changes with `pnpm test`, `pnpm lint`, `pnpm typecheck` (2026-03-02).".to_string()]
    );
    assert!(current_holding(memory.path(), &["pnpm build"]).is_empty());

    // The goal of an approved plan, when it says how things will be, is the design approved;
    // a goal that is the plan's task is not.
    let memory = tempfile::tempdir().unwrap();
    dream(
        memory.path(),
        &[
            session(
                "g1",
                "2026-03-02T10:00:00Z",
                &[
                    "Implement the following plan:\n\n# Plan: Pairs\n\n**Goal**: When both files coexist, AGENTS.md becomes the source of truth. CLAUDE.md is reduced to `@AGENTS.md`.\n\n## Changes\n\n1. Merge them.\n",
                ],
            ),
            session(
                "g2",
                "2026-03-03T10:00:00Z",
                &[
                    "Implement the following plan:\n\n# Plan: Numbering\n\n**Goal**: Change session folder numbering from `1/` to `0/`.\n",
                ],
            ),
        ],
        "2026-03-05T00:00:00Z",
    );
    assert_eq!(
        current_holding(memory.path(), &["source of truth"]),
        vec!["- When both files coexist, AGENTS.md becomes the source of truth. CLAUDE.md is reduced to `@AGENTS.md` (2026-03-02).".to_string()]
    );
    assert!(current_holding(memory.path(), &["numbering"]).is_empty());
}

#[test]
fn numbered_replies_to_the_agents_numbered_questions_are_written_with_their_questions() {
    let asked = "Here is the layout.\n\n**Questions for you:**\n1. Should the active session always be lane 1 (leftmost), or rightmost?\n2. For >3 sessions, should we cycle lanes or just show space (no line)?\n3. Do you want me to implement it now?";
    let entries = [
        serde_json::json!({"type": "assistant", "timestamp": "2026-01-15T10:00:00Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": asked}]}}),
        serde_json::json!({"type": "user", "timestamp": "2026-01-15T10:01:00Z",
            "message": {"role": "user", "content": "1. left most, if all 3 lanes are active and another would start we just show no line 2. cycle 3. yes"}}),
    ];
    let memory = dream_claude_entries(&entries, "2026-01-15T10:01:00Z", "2026-01-16T00:00:00Z");
    let lines: Vec<String> = fact_lines(memory.path()).into_iter().map(|(_, _, line)| line).collect();
    assert_eq!(
        lines,
        [
            "- Should the active session always be lane 1 (leftmost), or rightmost? Answered: left most, if all 3 lanes are active and another would start we just show no line (2026-01-15).",
            "- For >3 sessions, should we cycle lanes or just show space (no line)? Answered: cycle (2026-01-15).",
        ],
    );
}

#[test]
fn a_reply_naming_one_way_of_an_either_or_question_is_written_whole_with_it() {
    let asked = "Good, the scope is set.\n\nWhat's your take on **accessibility** — keep it simple, or aim for a specific WCAG level?";
    let entries = [
        serde_json::json!({"type": "assistant", "timestamp": "2026-03-25T10:00:00Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": asked}]}}),
        serde_json::json!({"type": "user", "timestamp": "2026-03-25T10:01:00Z",
            "message": {"role": "user", "content": "keep it simple"}}),
        serde_json::json!({"type": "assistant", "timestamp": "2026-03-25T10:02:00Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Want me to fix it now, or track it as a follow-up?"}]}}),
        serde_json::json!({"type": "user", "timestamp": "2026-03-25T10:03:00Z",
            "message": {"role": "user", "content": "track it as a follow-up"}}),
    ];
    let memory = dream_claude_entries(&entries, "2026-03-25T10:03:00Z", "2026-03-26T00:00:00Z");
    let lines: Vec<String> = fact_lines(memory.path()).into_iter().map(|(_, _, line)| line).collect();
    // The dash's aside and the reply stay in the line; the question about the work at hand
    // decides nothing.
    assert_eq!(
        lines,
        [
            "- What's your take on accessibility — keep it simple, or aim for a specific WCAG level? Answered: keep it simple (2026-03-25)."
        ],
    );
}

#[test]
fn a_pick_among_the_agents_options_is_a_decision_and_an_answer_to_nothing_is_not() {
    let offers = "How should summary generation failures be handled?\n\n| Option | Description |\n|---|---|\n| **A. Silent fallback (Recommended)** | Log the error, save the checkpoint without a summary. |\n| **B. Fail the operation** | The commit fails when the summary fails. |\n\nWhich do you prefer?";
    let entries = [
        serde_json::json!({"type": "assistant", "timestamp": "2026-02-01T10:00:00Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": offers}]}}),
        serde_json::json!({"type": "user", "timestamp": "2026-02-01T10:01:00Z",
            "message": {"role": "user", "content": "A. is fine, ensure we log"}}),
        serde_json::json!({"type": "assistant", "timestamp": "2026-02-01T10:02:00Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done. Shall I push?"}]}}),
        serde_json::json!({"type": "user", "timestamp": "2026-02-01T10:03:00Z",
            "message": {"role": "user", "content": "B."}}),
    ];
    let memory = dream_claude_entries(&entries, "2026-02-01T10:03:00Z", "2026-02-02T00:00:00Z");
    let lines = current_holding(memory.path(), &["Chosen"]);
    assert_eq!(
        lines,
        [
            "- How should summary generation failures be handled? Chosen: Silent fallback (ensure we log): Log the error, save the checkpoint without a summary; not Fail the operation (2026-02-01)."
        ],
        "{:?}",
        fact_lines(memory.path())
    );
}

#[test]
fn what_the_user_asked_to_remember_and_the_agent_wrote_to_memory_is_kept_and_a_write_unasked_is_not() {
    let rule = "- **Every new `@Entity()` MUST have a corresponding `CREATE TABLE` migration** — check `migrations/` before merging";
    let story = "- Phase 14 hit this exact bug on staging, fixed in PR #186";
    let edit = |id: &str, text: String| {
        serde_json::json!({"type": "assistant", "timestamp": "2026-02-22T10:01:00Z", "message": {"role": "assistant",
            "content": [{"type": "tool_use", "id": id, "name": "Edit", "input": {
                "file_path": "/home/dev/.claude/projects/-app/memory/MEMORY.md",
                "old_string": "# Memory", "new_string": text}}]}})
    };
    let entries = [
        serde_json::json!({"type": "user", "timestamp": "2026-02-22T10:00:00Z",
            "message": {"role": "user", "content": "ok please make sure to memorize the setup so this never repeats"}}),
        edit("t1", format!("# Memory\n## Migrations\n{rule}\n{story}\n")),
        serde_json::json!({"type": "user", "timestamp": "2026-02-22T10:05:00Z",
            "message": {"role": "user", "content": "thanks, now rerun the e2e suite"}}),
        // The agent writes to memory on its own: its guess, not the user's word.
        edit("t2", "# Memory\n- Never run the e2e suite without the staging token loaded\n".to_string()),
    ];
    let memory = dream_claude_entries(&entries, "2026-02-22T10:06:00Z", "2026-02-23T00:00:00Z");
    let lines: Vec<String> = fact_lines(memory.path()).into_iter().map(|(_, _, l)| l).collect();
    assert!(
        // The order for the task that trails the rule ("— check … before merging") goes.
        lines.iter().any(|l| l
            == "- Every new `@Entity()` MUST have a corresponding `CREATE TABLE` migration (2026-02-22)."),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("Phase 14") || l.contains("staging token")), "{lines:?}");
    let index = std::fs::read_to_string(memory.path().join("MEMORY.md")).unwrap();
    assert!(index.contains("CREATE TABLE"), "a rule the user asked to keep leads its topic's hook:\n{index}");
}

#[test]
fn what_a_sub_agent_wrote_to_memory_on_the_users_request_is_kept_with_the_documents_it_points_to() {
    let added = "## Metadata Schema Documentation\n- **Schema reference:** `docs/METADATA_SCHEMAS.md` -- all metadata objects\n- **Evolution protocol:** `docs/METADATA_EVOLUTION_PROTOCOL.md` -- how they evolve\n- **ALWAYS consult these docs** before any ticket that adds/removes/changes fields on metadata objects\n";
    let entries = [
        // The request, through a slash command: the client's markup around the user's words.
        serde_json::json!({"type": "user", "timestamp": "2026-02-21T01:00:00Z", "message": {"role": "user",
            "content": "<command-name>/gsd:quick</command-name>\n<command-args>create a formal metadata schema evolution protocol. Ensure that this documentation is referenced in claude memory for future tickets that make changes to the metadata.</command-args>"}}),
        serde_json::json!({"type": "assistant", "timestamp": "2026-02-21T01:01:00Z", "message": {"role": "assistant",
            "content": [{"type": "tool_use", "id": "task", "name": "Task", "input": {"prompt": "Execute the quick task"}}]}}),
        // The executor's write, recorded in the session as a progress entry.
        serde_json::json!({"type": "progress", "timestamp": "2026-02-21T01:48:59Z", "data": {"type": "agent_progress",
            "prompt": "Execute the quick task", "message": {"type": "assistant", "timestamp": "2026-02-21T01:48:59Z",
            "message": {"content": [{"type": "tool_use", "id": "e1", "name": "Edit", "input": {
                "file_path": "/Users/dev/.claude/projects/-app/memory/MEMORY.md", "old_string": "# Memory",
                "new_string": format!("# Memory\n\n{added}")}}]}}}}),
        serde_json::json!({"type": "user", "timestamp": "2026-02-21T02:00:00Z",
            "message": {"role": "user", "content": "ok lets get a pr up for this"}}),
    ];
    let memory = dream_claude_entries(&entries, "2026-02-21T02:01:00Z", "2026-02-22T00:00:00Z");
    let lines: Vec<String> = fact_lines(memory.path()).into_iter().map(|(_, _, l)| l).collect();
    assert!(
        lines.iter().any(|l| l
            == "- ALWAYS consult `docs/METADATA_SCHEMAS.md` and `docs/METADATA_EVOLUTION_PROTOCOL.md` before any ticket that adds/removes/changes fields on metadata objects (2026-02-21)."),
        "{lines:?}"
    );
    let index = std::fs::read_to_string(memory.path().join("MEMORY.md")).unwrap();
    assert!(index.contains("METADATA_EVOLUTION_PROTOCOL"), "{index}");
}

#[test]
fn a_clause_left_by_a_supersession_stays_only_if_it_reads_on_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    dream(
        memory,
        &[session(
            "j1",
            "2026-01-15T07:00:00Z",
            &[
                "Our CI runs on Jenkins, and releases are cut on Mondays by the release manager.",
                "The nightly build runs on Jenkins, and then we look at 50 commits in the nightly branch and get what is linked there.",
            ],
        )],
        "2026-01-15T08:00:00Z",
    );
    dream(
        memory,
        &[session("j2", "2026-02-02T02:40:00Z", &["We moved CI from Jenkins to CircleCI last week."])],
        "2026-02-02T03:00:00Z",
    );
    let lines = fact_lines(memory);
    // The lasting clause of the first statement stays current, as a line of its own.
    assert_eq!(current_holding(memory, &["Releases are cut on Mondays"]).len(), 1, "{lines:#?}");
    // The step of the moment that followed the replaced clause goes under Superseded with it.
    assert!(current_holding(memory, &["50 commits"]).is_empty(), "{lines:#?}");
    assert!(!superseded_holding(memory, "Jenkins").is_empty(), "{lines:#?}");
}

#[test]
fn one_slot_for_two_parts_of_the_project_keeps_both_values_and_a_new_value_for_one_part_replaces_it() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let first = session("s1", "2026-03-02T09:00:00Z", &["In this repo we use Prisma for the API."]);
    let second =
        session("s2", "2026-03-09T09:00:00Z", &["In this repo we always use Drizzle in the worker."]);
    dream(memory, &[first, second], "2026-03-10T00:00:00Z");
    assert_eq!(current_holding(memory, &["Prisma"]).len(), 1, "{:?}", fact_lines(memory));
    assert_eq!(current_holding(memory, &["Drizzle"]).len(), 1, "{:?}", fact_lines(memory));
    // The same part of the project given another value: the newer one replaces the older.
    let third = session("s3", "2026-03-16T09:00:00Z", &["In this repo we use TypeORM for the API."]);
    dream(memory, &[third], "2026-03-17T00:00:00Z");
    assert_eq!(current_holding(memory, &["TypeORM"]).len(), 1, "{:?}", fact_lines(memory));
    // A name the vocabulary does not know is a value all the same: never merged, it replaces.
    let fourth = session("s4", "2026-03-23T09:00:00Z", &["In this repo we use Kysely for the API."]);
    dream(memory, &[fourth], "2026-03-24T00:00:00Z");
    assert_eq!(current_holding(memory, &["Kysely"]).len(), 1, "{:?}", fact_lines(memory));
    assert!(current_holding(memory, &["TypeORM"]).is_empty(), "{:?}", fact_lines(memory));
    assert!(current_holding(memory, &["Prisma"]).is_empty(), "{:?}", fact_lines(memory));
    assert_eq!(superseded_holding(memory, "Prisma").len(), 1, "{:?}", fact_lines(memory));
    assert_eq!(current_holding(memory, &["Drizzle"]).len(), 1, "{:?}", fact_lines(memory));
}

#[test]
fn a_way_of_working_said_among_orders_about_attached_code_is_how_that_work_is_done() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let task = session(
        "s1",
        "2026-02-16T09:00:00Z",
        &[
            "Enforce per-collection capacity limits. Use binary search insertion instead of sort-after-push for book levels. Check @src/tui/app.rs and @src/tui/event.rs",
        ],
    );
    // The same words with no attached code, said as the whole turn, are a rule.
    let rule = session("s2", "2026-02-17T09:00:00Z", &["use uv as the package manager"]);
    dream(memory, &[task, rule], "2026-02-18T00:00:00Z");
    assert!(current_holding(memory, &["binary search"]).is_empty(), "{:?}", fact_lines(memory));
    assert_eq!(current_holding(memory, &["uv"]).len(), 1, "{:?}", fact_lines(memory));
}

/// A change that names an old value memory never held ("we moved from Contentful to Sanity"
/// in the first session that speaks of the CMS) still records the old value as history, named
/// by what it was, so a later reader never takes it for the current one; the change itself
/// stays current.
#[test]
fn a_change_from_a_value_memory_never_held_leaves_that_value_under_superseded() {
    let (tmp, summary) = dream_turns(
        "2026-05-13T09:00:00Z",
        "2026-05-13T10:00:00Z",
        &[
            "We moved the marketing site from Contentful to Sanity last sprint, all content lives in Sanity now.",
        ],
    );
    let memory = tmp.path();
    // What the dream reports is what it wrote: one line under Superseded.
    assert!(summary.text.contains("1 superseded"), "{}", summary.text);
    assert_eq!(current_holding(memory, &["Sanity"]).len(), 1, "{:#?}", fact_lines(memory));
    let history = superseded_holding(memory, "Contentful");
    assert_eq!(history.len(), 1, "{:#?}", fact_lines(memory));
    assert!(history[0].starts_with("- Headless CMS: Contentful, replaced by Sanity"), "{}", history[0]);
    // A second dream over nothing new leaves the history as it is, not twice.
    dream(memory, &[], "2026-05-20T10:00:00Z");
    assert_eq!(superseded_holding(memory, "Contentful").len(), 1);
}

#[test]
fn a_prohibition_takes_along_the_order_that_names_the_way_instead() {
    let (tmp, _) = dream_turns(
        "2026-05-13T09:00:00Z",
        "2026-05-13T10:00:00Z",
        &[
            "Please dont just push through the migrations by executing them directly on the server. Fix the actual problem of migrations not running correctly from the CD pipeline.",
            "Never commit generated files. Add a test for the parser.",
        ],
    );
    let memory = tmp.path();
    let migrations = current_holding(memory, &["migrations"]);
    assert_eq!(migrations.len(), 1, "{:#?}", fact_lines(memory));
    assert!(migrations[0].contains("from the CD pipeline"), "{}", migrations[0]);
    // An order that names no other way is the task's, and stays out of the rule before it.
    let generated = current_holding(memory, &["generated files"]);
    assert_eq!(generated.len(), 1, "{:#?}", fact_lines(memory));
    assert!(!generated[0].contains("parser"), "{}", generated[0]);
}

#[test]
fn a_new_address_says_itself_whatever_its_pointer_stood_for() {
    let (tmp, _) = dream_turns(
        "2026-03-25T09:00:00Z",
        "2026-03-25T10:00:00Z",
        &[
            "no — dev doesn't live there anymore, it points at the new gateway https://gw.dev.example.net since Monday. Update the env.",
            "It should handle that automatically.",
        ],
    );
    let memory = tmp.path();
    assert_eq!(current_holding(memory, &["gw.dev.example.net"]).len(), 1, "{:#?}", fact_lines(memory));
    // A pointer with no address after it is still a hole.
    assert!(current_holding(memory, &["automatically"]).is_empty(), "{:#?}", fact_lines(memory));
}

#[test]
fn a_bare_list_of_code_names_gives_the_statement_before_it_its_examples() {
    let (tmp, _) = dream_turns(
        "2026-06-08T09:00:00Z",
        "2026-06-08T10:00:00Z",
        &[
            "parse_obj is pydantic v1 — we're on v2 everywhere. model_validate, model_dump, etc. And just type the body as SimilarRequest.",
        ],
    );
    let memory = tmp.path();
    let v2 = current_holding(memory, &["v2 everywhere"]);
    assert_eq!(v2.len(), 1, "{:#?}", fact_lines(memory));
    assert!(v2[0].contains("model_validate, model_dump"), "{}", v2[0]);
    // The name of code keeps its case at the start of the line.
    assert!(v2[0].starts_with("- parse_obj"), "{}", v2[0]);
}

#[test]
fn the_reason_for_a_change_goes_with_the_change_before_or_after_it() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path();
    let said = |id: &str, at: &str, turns: &[&str]| {
        let now = at.replace("T09", "T10");
        dream(memory, &[session(id, at, turns)], &now);
    };
    said("k1", "2026-09-03T09:00:00Z", &["The storage engine is LevelDB, and the async runtime is tokio."]);
    // The reason first, then the change.
    said(
        "k2",
        "2026-09-07T09:00:00Z",
        &[
            "LevelDB corrupts its files on every power loss. We're switching the storage engine to RocksDB, the Store trait stays as it is.",
        ],
    );
    // The change first, then the reason; then a statement about something else.
    said(
        "k3",
        "2026-09-10T09:00:00Z",
        &[
            "We're switching the storage engine to LMDB. RocksDB needs a C++ toolchain, which our ARM cross-compile does not have. Every public function in the crate needs a doc comment.",
        ],
    );
    let lines = fact_lines(memory);
    // No current line speaks of a value left unless it is the change that left it.
    for old in ["LevelDB", "RocksDB"] {
        let stray: Vec<_> =
            current_holding(memory, &[old]).into_iter().filter(|l| !l.contains("LMDB")).collect();
        assert!(stray.is_empty(), "{old}: {stray:#?}\n{lines:#?}");
    }
    let change = current_holding(memory, &["LMDB"]);
    assert_eq!(change.len(), 1, "{lines:#?}");
    assert!(change[0].contains("RocksDB needs a C++ toolchain"), "{}", change[0]);
    assert!(!change[0].contains("doc comment"), "another statement stays its own line: {}", change[0]);
    assert_eq!(current_holding(memory, &["doc comment"]).len(), 1, "{lines:#?}");
    let history = superseded_holding(memory, "RocksDB");
    assert!(history.iter().any(|l| l.contains("LevelDB corrupts its files")), "{lines:#?}");
}

#[test]
fn where_the_rule_written_down_lives_goes_with_that_rule() {
    let memory = tempfile::tempdir().unwrap();
    dream(
        memory.path(),
        &[
            session(
                "r1",
                "2026-07-26T10:00:00Z",
                &[
                    "By default an agent adds long comments to every function. I want to create instructions that state that it is not allowed to write elaborate comments on functions, only the scope and responsibility of the function.",
                    "Please review the shell scripts next.",
                    "I want the instructions to live in AGENTS.md, not a skill, because they apply to every language.",
                ],
            ),
            // Another session's "the rules" point at nothing it wrote down.
            session(
                "r2",
                "2026-07-27T10:00:00Z",
                &["The release rules should live in RELEASING.md so everyone finds them."],
            ),
        ],
        "2026-07-28T00:00:00Z",
    );
    assert_eq!(
        current_holding(memory.path(), &["elaborate comments"]),
        vec![
            "- It is not allowed to write elaborate comments on functions, only the scope and responsibility of the function. I want the instructions to live in AGENTS.md, not a skill, because they apply to every language (2026-07-26)."
                .to_string()
        ]
    );
    // The rule's home joins the rule, not the other sentence of its turn.
    assert_eq!(current_holding(memory.path(), &["AGENTS.md"]).len(), 1);
    assert!(
        current_holding(memory.path(), &["RELEASING.md"]).iter().all(|l| !l.contains("elaborate")),
        "{:?}",
        fact_lines(memory.path())
    );
}

#[test]
fn a_reason_in_a_few_words_goes_with_the_rule_before_it() {
    let memory = tempfile::tempdir().unwrap();
    dream(
        memory.path(),
        &[session(
            "t1",
            "2026-02-16T10:00:00Z",
            &[
                "I do not want to sign my commits anymore. Too much overhead.",
                // Alone, or after nothing kept, it is chatter.
                "Too slow.",
            ],
        )],
        "2026-02-17T00:00:00Z",
    );
    assert_eq!(
        current_holding(memory.path(), &["sign my commits"]),
        vec!["- I do not want to sign my commits anymore. Too much overhead (2026-02-16).".to_string()]
    );
    assert!(current_holding(memory.path(), &["Too slow"]).is_empty());
}

#[test]
fn a_sentence_that_makes_the_order_before_it_standing_is_written_with_it() {
    let memory = tempfile::tempdir().unwrap();
    dream(
        memory.path(),
        &[session(
            "t1",
            "2026-02-16T10:00:00Z",
            &[
                "request Copilot review.  Make that standard in your workflow.",
                // With no order before it, it says nothing.
                "Make that the default.",
                // What "use" is said of is in hand: an order, not a way of working.
                "Use this icon and configure the app icons to use it, resize as needed.",
            ],
        )],
        "2026-02-17T00:00:00Z",
    );
    assert_eq!(
        current_holding(memory.path(), &["Copilot"]),
        vec!["- Request Copilot review. Make that standard in your workflow (2026-02-16).".to_string()]
    );
    assert!(current_holding(memory.path(), &["default"]).is_empty());
    assert!(current_holding(memory.path(), &["icon"]).is_empty());
}

#[test]
fn the_text_a_request_works_on_is_not_the_users_statement() {
    let memory = tempfile::tempdir().unwrap();
    dream(
        memory.path(),
        &[session(
            "t1",
            "2026-02-16T10:00:00Z",
            &[
                // The agent's paragraph quoted back under "explain the diff:", hard-wrapped.
                "explain the diff:\nThe research skill is always the methodology for new topics.\n  It covers scope, gather, evaluate, cite. The three commands\n   are workflows that use it.",
                // A statement of that form, typed as the user's own, is kept.
                "The review skill is always the methodology for pull requests.",
            ],
        )],
        "2026-02-17T00:00:00Z",
    );
    assert_eq!(
        current_holding(memory.path(), &["skill"]),
        vec!["- The review skill is always the methodology for pull requests (2026-02-16).".to_string()]
    );
}

#[test]
fn a_codex_front_ends_context_is_not_remembered_and_the_request_is_read_alone() {
    // The desktop app's context block, then what the user typed.
    let rollout = [
        serde_json::json!({"timestamp": "2026-06-18T10:00:00Z", "type": "session_meta", "payload": {"id": "r1", "cwd": "/work/game"}}),
        serde_json::json!({"timestamp": "2026-06-18T10:00:01Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "\n# In app browser:\n- The user has the in-app browser open.\n- Current URL: http://127.0.0.1:5173/leaderboard\n\n## My request for Codex:\nentire/checkpoints/v1 is supposed to just store the checkpoints, we never touch it\n"}]}}),
        serde_json::json!({"timestamp": "2026-06-18T10:00:02Z", "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Understood."}]}}),
    ];
    let text: String = rollout.iter().map(|e| format!("{e}\n")).collect();
    let file = SessionFile {
        id: "rollout-r1".to_string(),
        path: PathBuf::from("rollout-r1.jsonl"),
        modified_at: "2026-06-18T10:00:02Z".parse().unwrap(),
    };
    let session = parse_session(file, &text, SessionFormat::Codex);
    let memory = tempfile::tempdir().unwrap();
    dream(memory.path(), &[session], "2026-06-19T00:00:00Z");
    let lines: Vec<String> = fact_lines(memory.path()).into_iter().map(|(_, _, line)| line).collect();
    assert!(lines.iter().all(|l| !l.contains("in-app browser") && !l.contains("Current URL")), "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains("entire/checkpoints/v1")), "{lines:#?}");
}

#[test]
fn clauses_set_apart_with_dots_are_judged_one_by_one() {
    // A designer's turns: ".." between clauses, a question typed without its mark.
    let (memory, _) = dream_turns(
        "2026-06-09T10:00:00Z",
        "2026-06-10T00:00:00Z",
        &[
            "lets pick back up and start thinking about what level 2 should look like..use entire checkpoints to learn about the repo and you can learn about entire cli here : Documents/work/cli",
            "okay but what would we do that warrants needing a recap..so far level 1 we just collected 3 items.",
        ],
    );
    let lines: Vec<String> = fact_lines(memory.path()).into_iter().map(|(_, _, line)| line).collect();
    // The clause that says where the tool's code is stands on its own; the order before it and
    // the question are not memory.
    assert_eq!(
        lines,
        [
            "- Use entire checkpoints to learn about the repo and you can learn about entire cli here : Documents/work/cli (2026-06-09)."
        ],
        "{lines:#?}"
    );
}

#[test]
fn it_continues_only_the_statement_right_before_it_and_one_it_can_stand_for() {
    let (memory, _) = dream_turns(
        "2026-01-12T10:00:00Z",
        "2026-01-13T00:00:00Z",
        &["Platform handbook, MkDocs Material. Style: warnings and notes are admonitions (!!! warning), \
           never bold caps 'WARNING:'. Section owners are in CODEOWNERS. It's published to the internal \
           S3 bucket handbook-site by the deploy job."],
    );
    // "It" is the handbook: neither the plural owners right before it nor the style rule
    // further back.
    assert!(current_holding(memory.path(), &["handbook-site", "CODEOWNERS"]).is_empty());
    assert!(current_holding(memory.path(), &["handbook-site", "WARNING"]).is_empty());
    assert_eq!(current_holding(memory.path(), &["CODEOWNERS"]).len(), 1);
    assert_eq!(current_holding(memory.path(), &["WARNING"]).len(), 1);
    // Where a thing deploys is a fact, said with the verb alone.
    let (memory, _) = dream_turns(
        "2026-05-12T10:00:00Z",
        "2026-05-13T00:00:00Z",
        &["Storybook auto-deploys to storybook.pulse.internal on merge."],
    );
    assert_eq!(current_holding(memory.path(), &["storybook.pulse.internal"]).len(), 1);
}

#[test]
fn she_or_he_is_written_as_the_one_person_named_before() {
    let (memory, _) = dream_turns(
        "2026-05-12T10:00:00Z",
        "2026-05-13T00:00:00Z",
        &[
            "cool. the redesign ships Friday next week btw, so this needs to be in Storybook for Lena to \
             check. she reviews every UI PR, design-wise.",
            // Nobody named before it: nothing says who.
            "He approves every release, always.",
        ],
    );
    assert_eq!(
        current_holding(memory.path(), &["reviews every UI PR"]),
        vec!["- Lena reviews every UI PR, design-wise (2026-05-12).".to_string()]
    );
    let people = std::fs::read_to_string(memory.path().join("people.md")).unwrap();
    assert!(people.contains("Lena reviews every UI PR"), "{people}");
    assert!(current_holding(memory.path(), &["approves every release"]).is_empty());
}

#[test]
fn an_end_of_support_said_as_an_order_is_a_decision_with_what_stays() {
    let (memory, _) = dream_turns(
        "2026-03-02T09:00:00Z",
        "2026-03-03T00:00:00Z",
        &[
            "Drop support for the MSI Windows package. I only want to keep MSIX as of now, so we need to do an analysis of what needs to be removed entirely.",
        ],
    );
    let lines: Vec<String> = fact_lines(memory.path()).into_iter().map(|(_, _, l)| l).collect();
    assert_eq!(
        lines,
        ["- Drop support for the MSI Windows package. I only want to keep MSIX as of now (2026-03-02)."],
        "the decision and what stays, without the work that follows"
    );
    // Without the end of support before it, a wish to keep one thing is the moment's.
    let (memory, _) = dream_turns(
        "2026-03-02T09:00:00Z",
        "2026-03-03T00:00:00Z",
        &[
            "Fix the installer. I only want to keep MSIX as of now, so we need to do an analysis of what needs to be removed entirely.",
        ],
    );
    assert!(fact_lines(memory.path()).is_empty(), "{:?}", fact_lines(memory.path()));
}

#[test]
fn a_clause_about_the_person_just_named_is_kept_under_their_name() {
    let (memory, _) = dream_turns(
        "2026-11-05T13:00:00Z",
        "2026-11-06T00:00:00Z",
        &[
            "ok good. I'll ask Joost whether we can get the 256K part on the next spin — he designs the boards, anything about pins or parts goes through him.",
        ],
    );
    let lines = fact_lines(memory.path());
    assert_eq!(
        lines,
        [(
            "people.md".to_string(),
            true,
            "- Joost designs the boards, anything about pins or parts goes through him (2026-11-05)."
                .to_string()
        )],
        "the person's role under their name, without the user's errand"
    );
}
