//! `autodream daemon` as a long-lived process: SIGTERM during a dream rolls the dream back
//! and the daemon exits 0; SIGTERM between ticks stops it at once; a second daemon for the
//! same memory folder is refused with the holder's PID.

use std::time::Duration;

use autodream_core::lock::parse_body;

use crate::support::*;

const HOUR: i64 = 3600;
const DAY: i64 = 24 * HOUR;

fn sigterm(pid: u32) {
    let pid = rustix::process::Pid::from_raw(pid as i32).expect("a PID");
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("signal the daemon");
}

fn daemon_state(env: &Env) -> Option<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(env.state_file("daemon.json")).ok()?).ok()
}

#[test]
fn sigterm_during_a_dream_leaves_the_memory_as_it_was_and_exits_0() {
    let env = Env::new();
    write(
        &env.xdg.join("autodream/config.toml"),
        "mode = \"assistant\"\ndream_window = \"00:00-24:00\"\nengine = \"hygiene\"\nmin_sessions = 3\nidle_seconds = 60\n",
    );
    messy_memory(&env.mem);
    env.run(&["log", "a note the dream would read"]).assert_code(0);
    let prior = at(-2 * DAY);
    env.lock_at(prior);
    for i in 1..=3 {
        env.session(&format!("00000000-0000-4000-8000-00000000000{i}"), "{}\n", at(-i * HOUR));
    }
    // The user is still typing in the newest session: the dream holds the lock and waits
    // for a minute of quiet, cancellable all along.
    env.session("00000000-0000-4000-8000-000000000009", "{}\n", at(0));
    let before = full_state(&env.mem);

    let child = env.spawn(&["daemon"]);
    let pid = child.id();
    let dreaming = wait_until(Duration::from_secs(20), || {
        env.task_state().as_deref() == Some("running")
            && parse_body(&std::fs::read_to_string(env.mem.join(LOCK)).unwrap_or_default()).is_some()
    });
    assert!(dreaming, "the daemon never started its dream");
    sigterm(pid);
    let out = wait_with_deadline(child, Duration::from_secs(20)).expect("the daemon stopped");
    out.assert_code(0);
    assert!(
        out.stdout.contains("stopped during the dream: it was cancelled and rolled back"),
        "{}",
        out.stdout
    );
    assert_eq!(full_state(&env.mem), before, "a cancelled dream changed the memory, the logs or the lock");
    assert_eq!(unix_secs(mtime(&env.mem.join(LOCK))), unix_secs(prior));
    assert_eq!(env.task_state().as_deref(), Some("killed"));
    assert!(env.history().is_empty());
    let state = daemon_state(&env).expect("daemon.json");
    assert_eq!(state["last_tick"]["result"], "cancelled");
    assert!(state["stopped_at"].is_string());
}

#[test]
fn a_second_daemon_is_refused_with_the_holders_pid_and_sigterm_stops_the_first() {
    let env = Env::new();
    write(&env.xdg.join("autodream/config.toml"), "mode = \"assistant\"\n");
    let child = env.spawn(&["daemon"]);
    let pid = child.id();
    let up = wait_until(Duration::from_secs(20), || {
        daemon_state(&env).is_some_and(|s| s["last_tick"].is_object() && s["pid"] == pid)
    });
    assert!(up, "the daemon never recorded its first tick");

    for args in [&["daemon"][..], &["daemon", "--once"][..]] {
        let second = env.run(args);
        second.assert_code(3);
        assert!(
            second
                .stderr
                .contains(&format!("another daemon (PID {pid}) already runs for this memory folder")),
            "{}",
            second.stderr
        );
    }
    let status = env.run(&["status"]);
    assert!(
        status.stdout.contains(&format!("daemon    running (PID {pid}), window 02:00-05:00")),
        "{}",
        status.stdout
    );
    let json = env.status_json();
    assert_eq!(
        (json["daemon"]["running"].as_bool(), json["daemon"]["pid"].as_u64()),
        (Some(true), Some(pid as u64))
    );

    sigterm(pid);
    let out = wait_with_deadline(child, Duration::from_secs(10)).expect("the daemon stopped");
    out.assert_code(0);
    assert!(out.stdout.ends_with("stopped after 1 tick\n"), "{}", out.stdout);
    assert_eq!(env.status_json()["daemon"]["running"], false);
    // The lock went with the process: the next daemon starts.
    env.run(&["daemon", "--once"]).assert_code(0);
}
