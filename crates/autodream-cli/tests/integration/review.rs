//! Review before apply, end to end: `run --review` keeps a pending dream and changes no
//! memory; `review` shows it; `--accept` applies it through the journal (history, `diff` and
//! `undo` as for any dream), `--accept FILE…` only those files, `--reject` drops it; a dream
//! planned on memory that changed since is dropped, never applied blind.

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

/// Two sessions since the last dream, three days ago, and a dream waiting for review.
fn pending_env() -> Env {
    let env = Env::new();
    env.run(&["init"]).assert_code(0);
    env.lock_at(at(-3 * DAY));
    claude_session(
        &env,
        "0b6f5c1e-0000-4000-8000-000000000001",
        -2 * DAY,
        &[
            "We use pnpm in this repo, never npm.",
            "Priya is the PM for billing and signs off on every pricing change.",
        ],
    );
    claude_session(
        &env,
        "0b6f5c1e-0000-4000-8000-000000000002",
        -DAY,
        &["We moved CI from Jenkins to GitHub Actions last week."],
    );
    env
}

fn pending_dirs(env: &Env) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(env.state_dir().join("pending"))
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_pending_dream_changes_no_memory_until_accepted_and_undo_takes_it_back() {
    let env = pending_env();
    let before = memory_files(&env.mem);
    let out = env.run(&["run", "--review"]);
    out.assert_code(0);
    assert_snapshot!("review_run", env.transcript(&out));
    assert_eq!(memory_files(&env.mem), before, "a dream for review changed the memory");
    assert_eq!(pending_dirs(&env), ["20260508T135600Z"]);
    // The Stop hook's announcement and status say a dream waits.
    assert_eq!(
        read(&env.state_file("announce")),
        "A dream waits for review: 4 files would change (autodream review)"
    );
    let status = env.status_json();
    assert_eq!(status["pending_review"]["task"], "20260508T135600Z");
    assert!(env.run(&["status"]).stdout.contains("review    dream 20260508T135600Z waits for review"));
    // Recovery (status ran it) never removes a pending dream's copy.
    assert_eq!(pending_dirs(&env), ["20260508T135600Z"]);

    let shown = env.run(&["review"]);
    shown.assert_code(0);
    assert_snapshot!("review_show", env.transcript(&shown));

    let accepted = env.run(&["review", "--accept"]);
    accepted.assert_code(0);
    assert_snapshot!("review_accept", env.transcript(&accepted));
    let after = memory_files(&env.mem);
    assert_eq!(differing(&before, &after).len(), 4, "{:?}", differing(&before, &after));
    assert!(pending_dirs(&env).is_empty());
    assert!(!env.state_file("announce").exists(), "the review announcement outlived the review");
    // The time gate keeps the dream's start, as an applied dream's would.
    assert_eq!(env.status_json()["last_consolidated_at"], NOW);
    let history = env.history();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["task"], "20260508T135600Z");
    assert_eq!(history[0]["sessions_reviewed"], 2);
    assert!(env.run(&["diff"]).stdout.contains("+++ b/MEMORY.md"));

    env.run(&["undo"]).assert_code(0);
    assert_eq!(memory_files(&env.mem), before, "undo after accept");
    assert_eq!(env.run(&["review", "--accept"]).code, 1, "nothing is pending any more");
}

#[test]
fn reject_drops_the_dream_and_accept_file_applies_only_that_file() {
    let env = pending_env();
    let before = memory_files(&env.mem);
    env.run(&["run", "--review"]).assert_code(0);
    let rejected = env.run(&["review", "--reject"]);
    rejected.assert_code(0);
    assert_snapshot!("review_reject", env.transcript(&rejected));
    assert_eq!(memory_files(&env.mem), before);
    assert!(pending_dirs(&env).is_empty() && env.history().is_empty());
    let none = env.run(&["review"]);
    assert_eq!(none.stdout, "No dream is waiting for review\n");

    // With the time gate opened again by hand, the same sessions are dreamt once more.
    env.lock_at(at(-3 * DAY));
    env.run(&["run", "--review"]).assert_code(0);
    let unknown = env.run(&["review", "--accept", "nope.md"]);
    unknown.assert_code(1);
    assert_snapshot!("review_accept_unknown", env.transcript(&unknown));
    assert_eq!(memory_files(&env.mem), before);

    let one = env.run(&["review", "--accept", "people.md"]);
    one.assert_code(0);
    assert_snapshot!("review_accept_one", env.transcript(&one));
    let after = memory_files(&env.mem);
    assert_eq!(differing(&before, &after), ["people.md"]);
    assert_eq!(env.history()[0]["changes"].as_array().unwrap().len(), 1, "only that file, no engine data");
    env.run(&["undo"]).assert_code(0);
    assert_eq!(memory_files(&env.mem), before);
}

#[test]
fn a_dream_planned_on_memory_that_changed_since_is_dropped_never_applied() {
    let env = pending_env();
    env.run(&["run", "--review"]).assert_code(0);
    // The user edits the index by hand while the dream waits.
    write(&env.mem.join("MEMORY.md"), "- a note I wrote myself\n");
    let edited = memory_files(&env.mem);
    let out = env.run(&["review", "--accept"]);
    out.assert_code(1);
    assert_snapshot!("review_accept_stale", env.transcript(&out));
    assert_eq!(memory_files(&env.mem), edited, "applied blind");
    assert!(pending_dirs(&env).is_empty());
    // "Last consolidated" went back to before the dropped dream: the next dream reviews its
    // sessions again, over the memory as it is now.
    assert_eq!(env.status_json()["last_consolidated_at"], rfc3339(at(-3 * DAY)));
    env.run(&["run"]).assert_code(0);
    assert_eq!(env.history()[0]["sessions_reviewed"], 2);
    assert!(read(&env.mem.join("MEMORY.md")).contains("a note I wrote myself"));
}

#[test]
fn a_new_dream_while_one_is_pending_reviews_its_sessions_too_and_replaces_it() {
    let env = pending_env();
    env.run(&["run", "--review"]).assert_code(0);
    assert_eq!(pending_dirs(&env), ["20260508T135600Z"]);
    // The lock moved to the pending dream: a plain window would see no session now.
    env.run(&["run", "--review"]).assert_code(0);
    assert_eq!(pending_dirs(&env), ["20260508T135600Z-2"], "the older pending dream was replaced");
    let shown: serde_json::Value = serde_json::from_str(&env.run(&["review", "--json"]).stdout).unwrap();
    assert_eq!(shown["pending"]["sessions_reviewed"], 2, "{shown}");
    // A dream applied without review replaces it too.
    env.run(&["run"]).assert_code(0);
    assert!(pending_dirs(&env).is_empty());
    assert_eq!(env.history()[0]["sessions_reviewed"], 2);
}

#[test]
fn review_in_the_config_stops_every_dream() {
    let env = pending_env();
    let before = memory_files(&env.mem);
    let out = env.run(&["--set", "review=true", "run"]);
    out.assert_code(0);
    assert!(out.stdout.contains("A dream waits for review"), "{}", out.stdout);
    assert_eq!(memory_files(&env.mem), before);
    assert_eq!(pending_dirs(&env).len(), 1);
}
