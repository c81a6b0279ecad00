//! A foreground dream and what it leaves behind: `run --engine hygiene`, `--dry-run`,
//! `history`, `diff`, `undo` (byte-identical, refused after an edit, `--force`), refusals.

use std::time::Duration;

use insta::assert_snapshot;

use crate::support::*;

const DAY: i64 = 24 * 3600;

/// The index a hygiene dream makes of [`messy_memory`].
const TIDIED_INDEX: &str = "# Memory\n\
- [Build tips](build.md) — how the workspace is built and tested\n\
- [Deploy](deploy.md) — the deploy goes through the staging cluster first, then canary at five percent \
for an hour, then the rest of the fleet, and rollback is one command…\n\
- [Testing](testing.md) — how integration tests drive the binary\n";

fn messy_env() -> Env {
    let env = Env::new();
    messy_memory(&env.mem);
    env.lock_at(at(-2 * DAY));
    env
}

#[test]
fn dry_run_shows_the_diff_and_changes_nothing() {
    let env = messy_env();
    env.run(&["log", "a note the dry run must leave alone"]).assert_code(0);
    let before = full_state(&env.mem);
    let out = env.run(&["run", "--engine", "hygiene", "--dry-run"]);
    out.assert_code(0);
    assert!(out.stdout.contains("Would improve 2 files"), "{}", out.stdout);
    assert_snapshot!("dry_run", env.transcript(&out));
    let after = full_state(&env.mem);
    assert_eq!(differing(&before.memory, &after.memory), Vec::<String>::new(), "memory files changed");
    assert_eq!(before.logs, after.logs, "daily logs changed");
    assert_eq!(before.lock, after.lock, "the lock (body or mtime) changed");
    assert!(env.history().is_empty(), "a dry run records no history");
    assert!(!env.state_file("announce").exists(), "a dry run is never announced");
    assert!(env.staging_copies().is_empty() && !env.state_file("journal.json").exists());
}

#[test]
fn dry_run_without_a_lock_leaves_no_lock() {
    let env = Env::new();
    messy_memory(&env.mem);
    env.run(&["run", "--engine", "hygiene", "--dry-run"]).assert_code(0);
    assert!(!env.mem.join(LOCK).exists(), "the time gate must still read 'never'");
    assert_eq!(env.status_json()["last_consolidated_at"], serde_json::Value::Null);
}

#[test]
fn run_history_diff_and_a_byte_identical_undo() {
    let env = messy_env();
    let before = memory_files(&env.mem);
    // Before any dream: nothing to list, show or undo.
    let empty = env.run(&["history"]);
    empty.assert_code(0);
    assert_eq!(empty.stdout, "no dream recorded yet\n");
    for cmd in ["diff", "undo"] {
        let out = env.run(&[cmd]);
        out.assert_code(1);
        assert!(out.stderr.contains("no dream recorded yet"), "{cmd}: {}", out.stderr);
    }
    assert_eq!(memory_files(&env.mem), before);
    let out = env.run(&["run", "--engine", "hygiene"]);
    out.assert_code(0);
    assert_snapshot!("run_hygiene", env.transcript(&out));
    assert_eq!(read(&env.mem.join("MEMORY.md")), TIDIED_INDEX);
    assert!(read(&env.mem.join("deploy.md")).contains("rollback is one command away"), "detail kept");
    env.run(&["check"]).assert_code(0);

    // The lock now says "consolidated at the dream's start", with an empty body.
    assert_eq!(read(&env.mem.join(LOCK)), "");
    assert_eq!(mtime(&env.mem.join(LOCK)), at(0));
    let status = env.status_json();
    assert_eq!(status["last_consolidated_at"], NOW);
    assert_eq!(status["task"]["state"], "completed");
    assert_eq!(status["task"]["files_touched"], serde_json::json!(["MEMORY.md", "deploy.md"]));

    let history = env.run(&["history"]);
    history.assert_code(0);
    assert_snapshot!("history_one_dream", env.transcript(&history));
    let dreams = env.history();
    assert_eq!(dreams.len(), 1);
    assert_eq!(dreams[0]["changes"].as_array().unwrap().len(), 2);

    let diff = env.run(&["diff"]);
    diff.assert_code(0);
    assert_snapshot!("diff_last", env.transcript(&diff));
    let by_id = env.run(&["diff", dreams[0]["task"].as_str().unwrap()]);
    assert_eq!(by_id.stdout, diff.stdout);
    env.run(&["diff", "no-such-dream"]).assert_code(1);

    let undo = env.run(&["undo"]);
    undo.assert_code(0);
    assert_snapshot!("undo", env.transcript(&undo));
    let after = memory_files(&env.mem);
    assert_eq!(differing(&before, &after), Vec::<String>::new(), "undo is not byte-identical");
    assert_eq!(before, after);
    // An undo is not a consolidation: "last ran" stays the dream's start.
    assert_eq!(mtime(&env.mem.join(LOCK)), at(0));
    assert_eq!(read(&env.mem.join(LOCK)), "");
    let dreams = env.history();
    assert_eq!(dreams.len(), 2);
    assert_eq!(dreams[1]["undo_of"], dreams[0]["task"]);
}

#[test]
fn undo_is_refused_after_an_edit_unless_forced() {
    let env = messy_env();
    let before = memory_files(&env.mem);
    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
    let edited = format!("{TIDIED_INDEX}- a line the user added after the dream\n");
    write(&env.mem.join("MEMORY.md"), &edited);

    let refused = env.run(&["undo"]);
    refused.assert_code(1);
    assert!(refused.stderr.contains("refused: MEMORY.md: it changed since the dream"), "{}", refused.stderr);
    assert_snapshot!("undo_refused", env.transcript(&refused));
    assert_eq!(read(&env.mem.join("MEMORY.md")), edited, "a refused undo changes nothing");
    assert_eq!(env.history().len(), 1, "a refused undo records nothing");

    env.run(&["undo", "--force"]).assert_code(0);
    assert_eq!(memory_files(&env.mem), before);
    // The overwritten edit is kept in the undo's history record.
    let undo_id = env.history()[1]["task"].as_str().unwrap().to_string();
    let kept = env.state_file("history").join(&undo_id).join("before/MEMORY.md");
    assert_eq!(read(&kept), edited);
}

#[test]
fn a_second_dream_finds_nothing_to_change_and_is_not_announced() {
    let env = messy_env();
    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
    std::fs::remove_file(env.state_file("announce")).expect("the first dream was announced");
    let tidy = memory_files(&env.mem);
    let again = env.run(&["run", "--engine", "hygiene"]);
    again.assert_code(0);
    assert!(again.stdout.starts_with("Nothing to change\n"), "{}", again.stdout);
    assert_eq!(memory_files(&env.mem), tidy);
    assert!(!env.state_file("announce").exists());
}

#[test]
fn a_live_holder_refuses_run_and_undo_with_exit_3() {
    let env = messy_env();
    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
    let before = memory_files(&env.mem);
    // This test process is alive: a fresh lock naming it is held.
    write(&env.mem.join(LOCK), &format!("{}\n", std::process::id()));
    set_mtime(&env.mem.join(LOCK), at(-60));
    let run = env.run(&["run", "--engine", "hygiene"]);
    run.assert_code(3);
    assert!(run.stderr.contains("already running"), "{}", run.stderr);
    let undo = env.run(&["undo"]);
    undo.assert_code(3);
    assert_eq!(memory_files(&env.mem), before);
    assert_eq!(read(&env.mem.join(LOCK)), format!("{}\n", std::process::id()), "the holder keeps its lock");
    let status = env.status_json();
    assert_eq!(status["gates"][4]["pass"], false, "{}", status["gates"][4]);
}

#[test]
fn respect_gates_refuses_with_exit_3_when_a_gate_is_closed() {
    let env = Env::new();
    messy_memory(&env.mem);
    env.lock_at(at(-3600));
    let before = full_state(&env.mem);
    let out = env.run(&["run", "--engine", "hygiene", "--respect-gates"]);
    out.assert_code(3);
    assert!(out.stderr.contains("the time gate is closed"), "{}", out.stderr);
    assert_eq!(full_state(&env.mem), before);
    env.run(&["run", "--engine", "nonsense"]).assert_code(2);
}

#[test]
fn a_dream_over_an_index_with_blank_lines_finishes() {
    let env = messy_env();
    let text = read(&env.mem.join("MEMORY.md")).replacen("# Memory\n", "# Memory\n\n", 1);
    write(&env.mem.join("MEMORY.md"), &text);
    let child = env.spawn(&["run", "--engine", "hygiene"]);
    let out = wait_with_deadline(child, Duration::from_secs(20)).expect("run hung for 20 s");
    out.assert_code(0);
    assert_eq!(read(&env.mem.join(LOCK)), "", "the lock is released");
}

#[test]
fn a_second_plain_undo_does_not_redo_the_dream() {
    let env = messy_env();
    let before = memory_files(&env.mem);
    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
    env.run(&["undo"]).assert_code(0);
    let again = env.run(&["undo"]);
    assert_eq!(memory_files(&env.mem), before, "the second undo re-applied the dream:\n{}", again.stdout);
    again.assert_code(1);
    assert!(again.stderr.contains("already undone"), "{}", again.stderr);
}

#[test]
fn the_default_engine_consolidates_the_daily_log() {
    let env = Env::new();
    env.run(&["init"]).assert_code(0);
    for note in [
        "Decided: production deploys happen only on Tuesdays after the standup",
        "Yesterday we moved the CI runners to the arm64 pool",
    ] {
        env.run(&["log", note]).assert_code(0);
    }
    let out = env.run(&["run"]);
    out.assert_code(0);
    assert!(out.stdout.starts_with("Improved "), "{}", out.stdout);
    // The facts live in a topic file the index points to, with the relative date resolved
    // against the entry's own day.
    let topics: Vec<(String, String)> = memory_files(&env.mem)
        .into_iter()
        .filter(|(p, _)| p.ends_with(".md") && p != "MEMORY.md" && !p.starts_with('.'))
        .map(|(p, b)| (p, String::from_utf8(b).expect("UTF-8 topic")))
        .collect();
    let holding = |needle: &str| topics.iter().find(|(_, t)| t.contains(needle)).map(|(p, _)| p.clone());
    let deploys = holding("Tuesdays").unwrap_or_else(|| panic!("no topic keeps the deploy fact: {topics:?}"));
    assert!(holding("2026-05-07").is_some(), "\"yesterday\" was not resolved: {topics:?}");
    assert!(
        read(&env.mem.join("MEMORY.md")).contains(&format!("]({deploys})")),
        "the index misses {deploys}"
    );
    env.run(&["check"]).assert_code(0);
    assert_eq!(env.status_json()["last_consolidated_at"], NOW);

    // Nothing new since: the next dream changes no memory file and is not announced.
    std::fs::remove_file(env.state_file("announce")).expect("the first dream was announced");
    let memory = memory_files(&env.mem);
    let again = env.run(&["run"]);
    again.assert_code(0);
    assert!(again.stdout.starts_with("Nothing to change"), "{}", again.stdout);
    let topic_files = |m: &std::collections::BTreeMap<String, Vec<u8>>| {
        m.iter().filter(|(p, _)| !p.starts_with('.')).map(|(p, b)| (p.clone(), b.clone())).collect::<Vec<_>>()
    };
    assert_eq!(topic_files(&memory_files(&env.mem)), topic_files(&memory));
    assert!(!env.state_file("announce").exists());
}
