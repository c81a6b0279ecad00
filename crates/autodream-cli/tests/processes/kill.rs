//! `autodream kill` on a running dream, and daily-log appends from many processes at once.

use std::collections::BTreeSet;
use std::time::Duration;

use autodream_core::lock::parse_body;

use crate::support::*;

const HOUR: i64 = 3600;
const DAY: i64 = 24 * HOUR;

#[test]
fn kill_stops_a_worker_waiting_for_idle_and_rolls_everything_back() {
    let env = Env::new();
    messy_memory(&env.mem);
    let prior = at(-2 * DAY);
    env.lock_at(prior);
    for i in 1..=4 {
        env.session(&format!("00000000-0000-4000-8000-00000000000{i}"), "{}\n", at(-i * HOUR));
    }
    // The user is still typing: the current transcript was written "now", so the worker
    // holds the lock and waits for a minute of quiet, cancellable all along.
    let current = "00000000-0000-4000-8000-000000000009";
    let transcript = env.session(current, "{}\n", at(0));
    let before = memory_files(&env.mem);
    let json = serde_json::json!({
        "session_id": current, "transcript_path": transcript, "cwd": env.cwd, "hook_event_name": "Stop",
    });
    let hook = env.run_with_stdin(
        &["hook", "--set", "engine=hygiene", "--set", "min_sessions=3", "--set", "idle_seconds=60"],
        json.to_string().as_bytes(),
    );
    assert_eq!((hook.code, hook.stdout.as_str(), hook.stderr.as_str()), (0, "", ""));
    let running = wait_until(Duration::from_secs(20), || {
        env.task_state().as_deref() == Some("running")
            && parse_body(&std::fs::read_to_string(env.mem.join(LOCK)).unwrap_or_default()).is_some()
    });
    assert!(running, "the worker never started its dream:\n{}", env.worker_log());
    let pid = env.task().unwrap()["pid"].as_u64().unwrap() as u32;
    assert!(pid_alive(pid));

    let out = env.run(&["kill"]);
    out.assert_code(0);
    let id = env.task().unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(
        out.stdout,
        format!("killed dream {id} (PID {pid}); nothing was changed and the lock was rolled back\n")
    );
    assert!(wait_until(Duration::from_secs(5), || !pid_alive(pid)), "the worker is still alive");
    assert_eq!(env.task_state().as_deref(), Some("killed"));
    assert_eq!(memory_files(&env.mem), before, "a killed dream changed the memory");
    assert_eq!(read(&env.mem.join(LOCK)), "");
    assert_eq!(unix_secs(mtime(&env.mem.join(LOCK))), unix_secs(prior), "lock not rolled back");
    assert!(env.worker_log().contains("cancelled"), "{}", env.worker_log());
    let status = env.status_json();
    assert_eq!(status["last_consolidated_at"], rfc3339(prior));
    assert_eq!(status["gates"][1]["pass"], true);
    assert!(env.history().is_empty());
    assert!(!env.state_file("announce").exists(), "a killed dream is not announced");

    let again = env.run(&["kill"]);
    again.assert_code(1);
    assert!(again.stderr.contains("no dream is running"), "{}", again.stderr);
}

#[test]
fn kill_during_apply_tells_the_truth() {
    let env = Env::new().var("AUTODREAM_FAULT_DELAY_MS", "1000");
    messy_memory(&env.mem);
    let prior = at(-2 * DAY);
    env.lock_at(prior);
    let before = memory_files(&env.mem);
    let post = post_state_of_messy_memory();
    let child = env.spawn(&["run", "--engine", "hygiene"]);
    assert!(wait_until(Duration::from_secs(10), || env.state_file("journal.json").exists()));
    let kill = env.run(&["kill"]);
    let run = wait_with_deadline(child, Duration::from_secs(20)).expect("the run ended");
    let state = env.task_state().unwrap();
    let memory = memory_files(&env.mem);
    eprintln!("kill during apply: task {state}, run exit {}, kill said {:?}", run.code, kill.stdout);
    match state.as_str() {
        "killed" => {
            assert_eq!(memory, before, "killed, yet the memory changed");
            assert_eq!(unix_secs(mtime(&env.mem.join(LOCK))), unix_secs(prior));
            assert!(kill.stdout.contains("killed dream"), "{}", kill.stdout);
        }
        "completed" => {
            assert_eq!(memory, post, "completed, yet not fully applied");
            assert_eq!(mtime(&env.mem.join(LOCK)), at(0));
            assert!(
                !kill.stdout.contains("nothing was changed"),
                "kill claims nothing changed but the dream completed: {}",
                kill.stdout
            );
        }
        other => panic!("task ended {other}"),
    }
}

#[test]
fn concurrent_logs_lose_nothing_and_tear_no_line() {
    const WRITERS: usize = 8;
    const ENTRIES: usize = 200;
    let env = Env::new();
    // Long entries make a torn or interleaved write visible.
    let pad = "x".repeat(300);
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let env = &env;
            let pad = &pad;
            s.spawn(move || {
                for i in 0..ENTRIES {
                    env.run(&["log", &format!("writer {w} entry {i} {pad}")]).assert_code(0);
                }
            });
        }
    });
    let text = read(&env.mem.join("logs/2026/05/2026-05-08.md"));
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        let rest = line.strip_prefix("- [13:56] writer ").unwrap_or_else(|| panic!("torn line: {line:?}"));
        let words: Vec<&str> = rest.split(' ').collect();
        assert_eq!(words.len(), 4, "torn line: {line:?}");
        assert_eq!((words[1], words[3]), ("entry", pad.as_str()), "torn line: {line:?}");
        let key: (usize, usize) = (words[0].parse().unwrap(), words[2].parse().unwrap());
        assert!(seen.insert(key), "duplicated entry {key:?}");
    }
    assert_eq!(seen.len(), WRITERS * ENTRIES, "lost entries");
    assert!(text.ends_with('\n'));
}
