//! `autodream hook` as the agent calls it: silent and exit 0 while the gates are closed,
//! whatever stdin holds; the hook JSON's `cwd` and `session_id` honoured; a detached worker
//! that dreams when every gate passes; the announcement printed exactly once; two hooks at
//! once starting one dream.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::*;

const HOUR: i64 = 3600;
const DAY: i64 = 24 * HOUR;

/// What the worker is told, on top of the hook's own flags: dream with the engine that
/// exists today, without waiting for idleness.
const DREAM_NOW: [&str; 6] =
    ["--set", "idle_seconds=0", "--set", "engine=hygiene", "--set", "min_sessions=3"];

fn uuid(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

fn hook_json(session: &str, transcript: &Path, cwd: &Path) -> Vec<u8> {
    serde_json::json!({
        "session_id": session,
        "transcript_path": transcript,
        "cwd": cwd,
        "hook_event_name": "Stop",
    })
    .to_string()
    .into_bytes()
}

/// A memory dir a dream would change, `sessions` sessions touched after a lock 2 days old.
fn ready_env(sessions: u32) -> Env {
    let env = Env::new();
    messy_memory(&env.mem);
    env.lock_at(at(-2 * DAY));
    for i in 1..=sessions {
        env.session(&uuid(i), "{}\n", at(-(i as i64) * HOUR));
    }
    env
}

/// Waits (≤ 20 s) until the worker's dream finished and the worker logged it.
fn wait_for_worker_dream(env: &Env) {
    let done = wait_until(Duration::from_secs(20), || {
        env.task_state().is_some_and(|s| s != "running")
            && env.worker_log().lines().any(|l| l.contains("completed") || l.contains("failed"))
    });
    assert!(done, "no finished dream after 20 s\ntask: {:?}\nworker.log:\n{}", env.task(), env.worker_log());
}

fn assert_silent(out: &Out, what: &str) {
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""), "hook not silent: {what}");
}

#[test]
fn closed_gates_are_silent_whatever_stdin_holds() {
    let env = ready_env(5);
    env.lock_at(at(-HOUR)); // time gate closed
    let before = full_state(&env.mem);
    let json = hook_json(&uuid(9), &env.sess.join(format!("{}.jsonl", uuid(9))), &env.cwd);
    for (what, input) in [
        ("valid JSON", json.as_slice()),
        ("garbage", b"\x00\xff{{{ not json ]]".as_slice()),
        ("empty", b"".as_slice()),
        ("a JSON array", b"[1,2,3]".as_slice()),
    ] {
        assert_silent(&env.run_with_stdin(&["hook"], input), what);
    }
    assert_silent(&env.run(&["hook"]), "stdin closed (/dev/null)");

    // A writer that never closes the pipe does not hold the agent up.
    let mut child = env
        .cmd(&["hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hook");
    let mut stdin = child.stdin.take().expect("piped");
    stdin.write_all(b"{\"session_id\":").expect("partial write");
    let start = Instant::now();
    let out = wait_with_deadline(child, Duration::from_secs(5)).expect("the hook waited for stdin forever");
    drop(stdin);
    assert!(start.elapsed() < Duration::from_secs(2), "hook took {:?}", start.elapsed());
    assert_silent(&out, "stdin never closed");

    assert_eq!(full_state(&env.mem), before, "a closed hook changes nothing");
    assert!(!env.state_file("scan-stamp").exists(), "the time gate stops before the scan");
    assert!(!env.state_file("worker.log").exists());

    // Where every other gate is open: disabled (by flag, by the agent's kill switch, by
    // the agent's settings file) and a bad clock are still silent, and touch nothing.
    let open = ready_env(5);
    let before = full_state(&open.mem);
    assert_silent(&open.run_with_stdin(&["hook", "--set", "enabled=false"], &json), "disabled");
    let kill_switch = ready_env(5).var("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1");
    assert_silent(&kill_switch.run_with_stdin(&["hook"], &json), "CLAUDE_CODE_DISABLE_AUTO_MEMORY");
    assert!(!kill_switch.state_file("scan-stamp").exists() && kill_switch.worker_log().is_empty());
    write(&open.home.join(".claude/settings.json"), "{\"autoMemoryEnabled\": false}");
    assert_silent(&open.run_with_stdin(&["hook"], &json), "autoMemoryEnabled false");
    let mut bad_clock = open;
    bad_clock.now = Some("garbage".into());
    std::fs::remove_file(bad_clock.home.join(".claude/settings.json")).unwrap();
    assert_silent(&bad_clock.run_with_stdin(&["hook"], &json), "AUTODREAM_NOW=garbage");
    assert_eq!(full_state(&bad_clock.mem), before, "a disabled hook changes nothing");
    assert!(!bad_clock.state_file("scan-stamp").exists(), "gate 1 stops before any I/O");
    assert!(bad_clock.worker_log().is_empty());
    // The control: with nothing disabling it, the same hook starts a dream.
    let mut control = bad_clock;
    control.now = Some(NOW.into());
    assert_silent(&control.run_with_stdin(&[&["hook"][..], &DREAM_NOW[..]].concat(), &json), "control");
    wait_for_worker_dream(&control);
}

#[test]
fn an_unusable_memory_dir_is_silent() {
    // A memory dir below a regular file can be neither read nor created, even by root.
    let mut env = ready_env(5);
    let blocker = env.root.join("not-a-folder");
    write(&blocker, "a file\n");
    env.mem = blocker.join("memory");
    for args in [&["hook"][..], &["hook", "--set", "min_sessions=1", "--set", "scan_interval_minutes=0"][..]]
    {
        let out = env.run_with_stdin(args, b"{}");
        assert_silent(&out, &format!("{args:?} with an unusable memory dir"));
    }
    assert_eq!(read(&blocker), "a file\n");
}

#[test]
fn the_hook_json_cwd_and_session_id_are_honoured() {
    // No explicit folders: memory and sessions come from the agent's layout for the hook's cwd.
    let mut env = Env::new();
    env.explicit_dirs = false;
    let project = env.root.join("the-project");
    std::fs::create_dir_all(&project).unwrap();
    let sessions = env.home.join(".claude/projects").join(sanitised(&project));
    let memory = sessions.join("memory");
    messy_memory(&memory);
    for i in 1..=3 {
        let p = sessions.join(format!("{}.jsonl", uuid(i)));
        write(&p, "{}\n");
        set_mtime(&p, at(-(i as i64) * HOUR));
    }
    let transcript = sessions.join(format!("{}.jsonl", uuid(1)));

    // The current session is one of the three: 2 of 3, no dream. The scan stamp lands in
    // the cwd's memory dir (not the process's working directory's).
    let out = env.run_with_stdin(
        &[&["hook"][..], &DREAM_NOW[..]].concat(),
        &hook_json(&uuid(1), &transcript, &project),
    );
    assert_silent(&out, "current session excluded");
    let state = env.home.join(".local/state/autodream").join(sanitised(&memory));
    assert!(state.join("scan-stamp").exists(), "the hook did not scan the cwd's memory dir");
    assert!(!state.join("worker.log").exists(), "a worker started with 2 of 3 sessions");
    assert!(!memory.join(".dream").exists(), "engine state stays out of the memory folder");
    let process_cwd_layout = env.home.join(".claude/projects").join(sanitised(&env.cwd));
    assert!(!process_cwd_layout.exists(), "the process's own cwd was used");

    // Another session is current: all three count, the worker dreams in the cwd's memory dir.
    let args = [&["hook", "--set", "scan_interval_minutes=0"][..], &DREAM_NOW[..]].concat();
    let out = env.run_with_stdin(&args, &hook_json(&uuid(7), &transcript, &project));
    assert_silent(&out, "gates pass");
    let env_for_memory = env.with_dirs(&memory, &sessions);
    wait_for_worker_dream(&env_for_memory);
    assert_eq!(env_for_memory.task_state().as_deref(), Some("completed"), "{}", env_for_memory.worker_log());
    assert_eq!(env_for_memory.task().unwrap()["sessions_reviewing"], 3);
}

#[test]
fn a_passing_hook_starts_a_worker_and_the_next_hook_announces_once() {
    let env = ready_env(4);
    let transcript = env.sess.join(format!("{}.jsonl", uuid(1)));
    let json = hook_json(&uuid(1), &transcript, &env.cwd);
    let before = memory_files(&env.mem);
    let args = [&["hook"][..], &DREAM_NOW[..]].concat();

    let start = Instant::now();
    let first = env.run_with_stdin(&args, &json);
    assert_silent(&first, "the hook that starts the worker");
    assert!(start.elapsed() < Duration::from_secs(2), "the hook waited for the worker");
    wait_for_worker_dream(&env);

    let task = env.task().unwrap();
    assert_eq!(task["state"], "completed", "{task}");
    assert_eq!(task["engine"], "hygiene");
    assert_eq!(task["sessions_reviewing"], 3, "the current session is not reviewed");
    assert_ne!(memory_files(&env.mem), before, "the dream changed nothing");
    assert_eq!(read(&env.mem.join(LOCK)), "");
    assert_eq!(mtime(&env.mem.join(LOCK)), at(0), "last consolidated = the dream's start");
    let log = env.worker_log();
    assert!(log.contains("gates passed; started worker PID"), "{log}");
    assert!(log.contains("completed: Improved 2 files"), "{log}");

    // The client discards SessionEnd output: that hook never consumes the announcement.
    let mut session_end: serde_json::Value = serde_json::from_slice(&json).unwrap();
    session_end["hook_event_name"] = "SessionEnd".into();
    session_end["reason"] = "other".into();
    let ended = env.run_with_stdin(&args, session_end.to_string().as_bytes());
    assert_silent(&ended, "a SessionEnd hook with an announcement pending");
    assert_eq!(env.task().unwrap()["announced"], false);

    let second = env.run_with_stdin(&args, &json);
    assert_eq!(second.code, 0);
    assert_eq!(second.stdout, "{\"systemMessage\":\"Improved 2 files\"}\n");
    assert_eq!(second.stderr, "");
    assert_eq!(env.task().unwrap()["announced"], true);
    assert_silent(&env.run_with_stdin(&args, &json), "the hook after the announcement");
    assert_eq!(env.history().len(), 1);
}

#[test]
fn two_hooks_at_once_start_one_dream() {
    // Both hooks wait on stdin, then get their input at the same moment, so both usually
    // pass the gates; the lock lets one worker dream and the other is refused. Each round
    // is a fresh memory dir; at least one round must have started two workers.
    let mut rounds_with_two_workers = 0;
    for round in 0..4 {
        let env = ready_env(4);
        let transcript = env.sess.join(format!("{}.jsonl", uuid(1)));
        let json = hook_json(&uuid(1), &transcript, &env.cwd);
        let args = [&["hook", "--set", "scan_interval_minutes=0"][..], &DREAM_NOW[..]].concat();
        let mut children: Vec<_> = (0..2)
            .map(|_| {
                env.cmd(&args)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn hook")
            })
            .collect();
        std::thread::sleep(Duration::from_millis(50));
        let mut pipes: Vec<_> = children.iter_mut().map(|c| c.stdin.take().expect("piped")).collect();
        for p in &mut pipes {
            p.write_all(&json).expect("write hook input");
        }
        drop(pipes);
        for c in children {
            let out = Out::from_output(c.wait_with_output().expect("hook exits"));
            assert_silent(&out, "concurrent hook");
        }
        wait_for_worker_dream(&env);
        // Let a second worker, if any, finish its refusal.
        let settled = wait_until(Duration::from_secs(20), || {
            let log = env.worker_log();
            let started = log.matches("started worker PID").count();
            let ended = log.lines().filter(|l| l.contains("] dream ") || l.contains("] no dream:")).count();
            started == ended
        });
        let log = env.worker_log();
        assert!(settled, "a worker never finished:\n{log}");
        let started = log.matches("started worker PID").count();
        let completed = log.matches("completed: Improved").count();
        let refused = log.matches("no dream:").count();
        eprintln!(
            "two hooks at once, round {round}: {started} workers, {completed} dreamed, {refused} refused"
        );
        assert_eq!(completed, 1, "exactly one dream:\n{log}");
        assert_eq!(refused, started - 1, "every other worker was refused:\n{log}");
        assert_eq!(env.history().len(), 1, "one history entry");
        if started == 2 {
            assert!(
                log.contains("a dream is already running") || log.contains("time gate closed"),
                "the refusal says why:\n{log}"
            );
            rounds_with_two_workers += 1;
            if rounds_with_two_workers >= 2 {
                break;
            }
        }
    }
    assert!(rounds_with_two_workers > 0, "the two hooks never both passed the gates");
}

#[test]
fn a_bad_set_key_never_turns_a_disabled_hook_on() {
    let env = ready_env(5);
    let before = memory_files(&env.mem);
    let out = env.run_with_stdin(&["hook", "--set", "enabled=false", "--set", "colour=blue"], b"{}");
    assert_silent(&out, "disabled, with a typo beside it");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !env.worker_log().contains("started worker"),
        "a disabled hook started a worker:\n{}",
        env.worker_log()
    );
    assert_eq!(memory_files(&env.mem), before);
}

#[test]
fn an_unknown_option_never_fails_the_hook_nor_drops_the_options_beside_it() {
    let env = ready_env(5);
    let before = memory_files(&env.mem);
    // `enabled=false` beside a typo: the typo is skipped, the setting kept (no dream starts).
    let out = env.run_with_stdin(&["hook", "--bogus", "--set", "enabled=false", "-q"], b"{}");
    assert_silent(&out, "an unknown option");
    std::thread::sleep(Duration::from_millis(300));
    let log = env.worker_log();
    assert!(log.contains("hook: skipped arguments it does not know: --bogus -q"), "{log}");
    assert!(!log.contains("started worker"), "the --set beside the typo was dropped:\n{log}");
    assert_eq!(memory_files(&env.mem), before);
}
