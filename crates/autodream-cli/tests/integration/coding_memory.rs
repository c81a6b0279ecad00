//! The offline engine on a coding agent's sessions, end to end through the CLI: a dream
//! over Claude Code transcripts, `why` (where a fact came from), `forget` (retire it under
//! the transaction, not as a dream) and `undo` (bring it back).

use insta::assert_snapshot;

use crate::support::*;

const DAY: i64 = 24 * 3600;

/// A Claude Code transcript of user turns, one minute apart from `start` (seconds from now).
fn claude_session(env: &Env, id: &str, start: i64, turns: &[&str]) {
    let mut body = String::new();
    for (k, text) in turns.iter().enumerate() {
        let at = rfc3339(at(start + 60 * k as i64));
        let entry = serde_json::json!({
            "type": "user", "sessionId": id, "timestamp": at, "uuid": format!("{id}-{k}"),
            "message": {"role": "user", "content": text},
        });
        body.push_str(&entry.to_string());
        body.push('\n');
    }
    env.session(id, &body, at(start + 60 * turns.len() as i64));
}

fn dreamt_env() -> Env {
    let env = Env::new();
    claude_session(
        &env,
        "0b6f5c1e-0000-4000-8000-000000000001",
        -3 * DAY,
        &[
            "Add a retry to the webhook sender. We use pnpm in this repo, never npm.",
            "Priya is the PM for billing and signs off on every pricing change.",
            "The Q1 code freeze is in two weeks.",
        ],
    );
    claude_session(
        &env,
        "0b6f5c1e-0000-4000-8000-000000000002",
        -DAY,
        &["Can you check the logs?", "We moved CI from Jenkins to GitHub Actions last week."],
    );
    env.run(&["run"]).assert_code(0);
    env
}

#[test]
fn a_dream_over_coding_sessions_writes_subject_files_and_a_readable_index() {
    let env = dreamt_env();
    let index = read(&env.mem.join("MEMORY.md"));
    assert_snapshot!("coding_index", index);
    let all: String = memory_files(&env.mem)
        .into_iter()
        .filter(|(k, _)| !k.starts_with('.') && !k.starts_with("logs"))
        .map(|(_, v)| String::from_utf8(v).unwrap())
        .collect();
    for never in ["retry to the webhook", "check the logs"] {
        assert!(!all.contains(never), "{never:?} was kept:\n{all}");
    }
}

#[test]
fn why_names_the_session_and_line_and_fails_on_no_match() {
    let env = dreamt_env();
    let out = env.run(&["why", "Priya"]);
    out.assert_code(0);
    assert_snapshot!("why_priya", env.transcript(&out));
    let json = env.run(&["why", "pnpm", "--json"]);
    json.assert_code(0);
    let found: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(found[0]["sources"][0]["from"], "0b6f5c1e-0000-4000-8000-000000000001");
    assert_eq!(found[0]["sources"][0]["line"], 1);
    let none = env.run(&["why", "kubernetes"]);
    none.assert_code(1);
    assert!(none.stderr.contains("no fact"), "{}", none.stderr);
}

#[test]
fn forget_archives_the_fact_keeps_the_dream_clock_and_undo_brings_it_back() {
    let env = dreamt_env();
    let lock_before = mtime(&env.mem.join(LOCK));
    let before = memory_files(&env.mem);
    let out = env.run(&["forget", "Priya"]);
    out.assert_code(0);
    assert!(out.stdout.starts_with("Forgot 1 fact in 1 file"), "{}", out.stdout);
    let people = read(&env.mem.join("people.md"));
    assert!(!people.contains("Priya"), "{people}");
    assert!(!read(&env.mem.join("MEMORY.md")).contains("Priya"));
    let archive = read(&env.state_file("data/.archive/forgotten.md"));
    assert!(archive.contains("Priya is the PM for billing") && archive.contains("(forgotten "), "{archive}");
    // Not a dream: the time gate still reads the last consolidation.
    assert_eq!(mtime(&env.mem.join(LOCK)), lock_before);
    assert_eq!(env.history().len(), 2, "the forget is in history");
    // A forget that matches nothing says so and changes nothing.
    env.run(&["forget", "no such words here"]).assert_code(1);
    env.run(&["undo"]).assert_code(0);
    assert_eq!(memory_files(&env.mem), before, "undo restores the forgotten fact byte for byte");
}

#[test]
fn history_and_diff_count_memory_files_and_give_the_engines_record_one_line() {
    let env = dreamt_env();
    let dream = env.history().pop().expect("a recorded dream");
    let changes = dream["changes"].as_array().unwrap();
    let paths: Vec<&str> = changes.iter().map(|c| c["path"].as_str().unwrap()).collect();
    let engine: Vec<&&str> = paths.iter().filter(|p| p.starts_with(".engine/")).collect();
    let memory = paths.len() - engine.len();
    assert!(!engine.is_empty(), "the offline engine keeps a record: {paths:?}");

    let listed = env.run(&["history"]);
    listed.assert_code(0);
    let n = engine.len();
    let expect = format!("{memory} files (+ engine data, {n} file{})", if n == 1 { "" } else { "s" });
    assert!(listed.stdout.contains(&expect), "{}", listed.stdout);

    let diff = env.run(&["diff"]);
    diff.assert_code(0);
    assert!(!diff.stdout.contains("+++ b/.engine/"), "the record's lines fill the diff:\n{}", diff.stdout);
    assert!(diff.stdout.contains("+++ b/MEMORY.md"), "{}", diff.stdout);
    let summary = diff.stdout.lines().find(|l| l.starts_with("engine data (")).expect("a summary line");
    assert!(summary.contains(engine[0]) && summary.contains("`--all` shows it"), "{summary}");
    let all = env.run(&["diff", "--all"]);
    assert!(all.stdout.contains(&format!("+++ b/{}", engine[0])), "{}", all.stdout);
}

/// A transcript of one line that is not JSON and one user turn.
fn session_with_a_bad_line(env: &Env, bad: bool) {
    let id = "0b6f5c1e-0000-4000-8000-000000000003";
    let good = serde_json::json!({
        "type": "user", "sessionId": id, "timestamp": rfc3339(at(-DAY)), "uuid": format!("{id}-0"),
        "message": {"role": "user", "content": "We use pnpm in this repo, never npm."},
    });
    let body = if bad { format!("this line is not JSON\n{good}\n") } else { format!("{good}\n") };
    env.session(id, &body, at(-DAY + 60));
}

#[test]
fn the_run_summary_says_how_many_transcript_lines_were_skipped() {
    let env = Env::new();
    session_with_a_bad_line(&env, true);
    let dry = env.run(&["run", "--dry-run", "--json"]);
    dry.assert_code(0);
    let outcome: serde_json::Value = serde_json::from_str(&dry.stdout).expect("run --json is JSON");
    assert_eq!(outcome["skipped_lines"], 1, "{}", dry.stdout);

    let out = env.run(&["run"]);
    out.assert_code(0);
    assert!(
        out.stdout.lines().any(|l| l.starts_with("  note: 1 unreadable transcript line skipped (")),
        "{}",
        out.stdout
    );
    assert_snapshot!("run_skipped_line", env.transcript(&out));
    // The good line was still read.
    assert!(read(&env.mem.join("MEMORY.md")).contains("package-manager.md"));
    // The note points at the command that names the transcript, and it says it in English.
    let listed = env.run(&["sessions", "--all"]);
    listed.assert_code(0);
    assert!(listed.stdout.contains(", 1 line skipped"), "{}", listed.stdout);

    // A transcript with no bad line: no note, and a count of 0.
    let clean = Env::new();
    session_with_a_bad_line(&clean, false);
    let json = clean.run(&["run", "--dry-run", "--json"]);
    json.assert_code(0);
    let outcome: serde_json::Value = serde_json::from_str(&json.stdout).expect("run --json is JSON");
    assert_eq!(outcome["skipped_lines"], 0, "{}", json.stdout);
    let out = clean.run(&["run"]);
    out.assert_code(0);
    assert!(!out.stdout.contains("unreadable"), "{}", out.stdout);
}
