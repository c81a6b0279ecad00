//! `autodream daemon` (assistant mode's scheduler) with an injected clock, and `install
//! daemon`'s unit files. The daemon's signals and its one-per-folder lock are in the
//! `processes` binary (`tests/processes/daemon.rs`).

use insta::assert_snapshot;

use crate::support::*;

const HOUR: i64 = 3600;

/// Assistant mode, the night window, and two new log entries are enough for a dream.
const ASSISTANT: &str =
    "mode = \"assistant\"\ndream_window = \"02:00-05:00\"\nmin_log_entries = 2\ntick_minutes = 60\n";

/// An environment in assistant mode whose daily log (of the day before) holds two durable
/// notes, with its clock at `now`.
fn assistant_env(now: &str) -> Env {
    let mut env = Env::new();
    write(&env.xdg.join("autodream/config.toml"), ASSISTANT);
    env.now = Some("2026-05-07T15:00:00Z".into());
    env.run(&["init"]).assert_code(0);
    for note in [
        "Decided: production deploys happen only on Tuesdays after the standup",
        "The staging database is shared with the data team, so never truncate it",
    ] {
        env.run(&["log", note]).assert_code(0);
    }
    env.now = Some(now.into());
    env
}

fn logs(env: &Env) -> std::collections::BTreeMap<String, Vec<u8>> {
    memory_files(&env.mem.join("logs"))
}

fn topics(env: &Env) -> Vec<(String, String)> {
    memory_files(&env.mem)
        .into_iter()
        .filter(|(p, _)| p.ends_with(".md") && p != "MEMORY.md" && !p.starts_with('.'))
        .map(|(p, b)| (p, String::from_utf8(b).expect("UTF-8 topic")))
        .collect()
}

/// "(PID 12345)" → "(PID [PID])": a running daemon's lines name its PID.
fn redact_pid(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("PID ") {
        out.push_str(&rest[..i + 4]);
        rest = &rest[i + 4..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            out.push_str("[PID]");
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_hook_never_dreams_in_assistant_mode_and_says_the_daemon_does() {
    let env = assistant_env("2026-05-08T03:00:00Z");
    let status = env.status_json();
    assert_eq!(status["gates"][0]["pass"], false);
    let reason = status["gates"][0]["detail"].as_str().unwrap();
    assert!(reason.contains("autodream daemon"), "{reason}");
    let hook = env.run_with_stdin(&["hook"], b"{}");
    assert_eq!((hook.code, hook.stdout.as_str()), (0, ""));
    assert!(!env.mem.join(LOCK).exists(), "the hook dreamt in assistant mode");
}

#[test]
fn once_outside_the_window_reports_why_and_changes_nothing() {
    let env = assistant_env("2026-05-08T01:00:00Z");
    let before = full_state(&env.mem);
    let out = env.run(&["daemon", "--once"]);
    out.assert_code(0);
    assert_snapshot!(env.transcript(&out));
    assert_eq!(full_state(&env.mem), before, "a tick outside the window changed something");

    let json = env.run(&["daemon", "--once", "--json"]);
    json.assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("--json is JSON");
    assert_eq!(v["result"], "not_due");
    assert_eq!(v["waiting_on"], "window");
    assert_eq!(v["gates"][4]["value"], serde_json::json!({ "sessions": 0, "log_entries": 2 }));
    assert!(!env.state_file("daemon.json").exists(), "--once is not a running daemon");
}

#[test]
fn once_inside_the_window_distils_the_logs_into_topic_files_and_leaves_the_logs_alone() {
    let env = assistant_env("2026-05-08T03:00:00Z");
    let logs_before = logs(&env);
    assert!(!logs_before.is_empty());
    let out = env.run(&["daemon", "--once"]);
    out.assert_code(0);
    assert_snapshot!(env.transcript(&out));
    assert_eq!(logs(&env), logs_before, "the logs were rewritten");
    let topics = topics(&env);
    let holding = |needle: &str| topics.iter().find(|(_, t)| t.contains(needle)).map(|(p, _)| p.clone());
    let deploys = holding("Tuesdays").unwrap_or_else(|| panic!("no topic keeps the deploy fact: {topics:?}"));
    assert!(holding("never truncate").is_some(), "{topics:?}");
    assert!(read(&env.mem.join("MEMORY.md")).contains(&format!("]({deploys})")));
    assert_eq!(rfc3339(mtime(&env.mem.join(LOCK))), "2026-05-08T03:00:00Z");

    // A quarter of an hour later the time gate is closed, and the entries are consumed.
    let mut later = env;
    later.now = Some("2026-05-08T03:15:00Z".into());
    let again = later.run(&["daemon", "--once", "--json"]);
    again.assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!((v["result"].as_str(), v["waiting_on"].as_str()), (Some("not_due"), Some("time")));
    assert_eq!(v["gates"][4]["value"]["log_entries"], 0);
}

#[test]
fn a_night_with_an_injected_clock_dreams_once_inside_the_window() {
    // Ticks at 00:30, 01:30, 02:30, 03:30 and 04:30 (an hour apart in the injected clock,
    // no time apart in real time).
    let env = assistant_env("2026-05-08T00:30:00Z");
    let logs_before = logs(&env);
    let out = env.run(&["daemon", "--tick-seconds", "0", "--ticks", "5"]);
    out.assert_code(0);
    assert_snapshot!(redact_pid(&env.transcript(&out)));
    let dreamt: Vec<&str> = out.stdout.lines().filter(|l| l.contains(" dreamt: ")).collect();
    assert_eq!(dreamt.len(), 1, "{}", out.stdout);
    assert!(dreamt[0].starts_with("2026-05-08T02:30:00Z "), "{}", dreamt[0]);
    assert_eq!(rfc3339(mtime(&env.mem.join(LOCK))), "2026-05-08T02:30:00Z");
    assert_eq!(logs(&env), logs_before);
    assert!(topics(&env).iter().any(|(_, t)| t.contains("Tuesdays")));
    assert_eq!(env.history().len(), 1);

    let state: serde_json::Value = serde_json::from_str(&read(&env.state_file("daemon.json"))).unwrap();
    assert_eq!(state["stopped_at"], "2026-05-08T04:30:00Z");
    assert_eq!(state["window"], "02:00-05:00");
    assert_eq!(state["last_tick"]["result"], "not_due");
    let status = env.run(&["status"]);
    status.assert_code(0);
    assert!(status.stdout.contains("daemon    stopped (was PID "), "{}", status.stdout);
    assert!(
        status.stdout.contains("last tick 2026-05-08T04:30:00Z: no dream: the time gate is closed"),
        "{}",
        status.stdout
    );
}

#[test]
fn sessions_are_new_input_too_and_a_wrapping_window_holds_midnight() {
    let mut env = Env::new();
    write(
        &env.xdg.join("autodream/config.toml"),
        "mode = \"assistant\"\ndream_window = \"23:00-01:00\"\nmin_sessions = 2\n",
    );
    env.now = Some("2026-05-08T00:10:00Z".into());
    env.lock_at(at(-3 * 24 * HOUR));
    let fixtures = transcripts_dir();
    let sample = std::fs::read_dir(&fixtures)
        .expect("transcript fixtures")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a .jsonl fixture");
    let body = read(&sample);
    env.session("00000000-0000-4000-8000-000000000001", &body, at(-20 * HOUR));
    let one = env.run(&["daemon", "--once", "--json"]);
    one.assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&one.stdout).unwrap();
    assert_eq!((v["waiting_on"].as_str(), v["gates"][1]["pass"].as_bool()), (Some("new_input"), Some(true)));
    env.session("00000000-0000-4000-8000-000000000002", &body, at(-19 * HOUR));
    let two = env.run(&["daemon", "--once", "--json"]);
    two.assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&two.stdout).unwrap();
    assert_eq!(v["result"], "dreamt", "{v:#}");
}

#[test]
fn a_bad_window_is_refused_naming_the_field() {
    let env = Env::new();
    write(&env.xdg.join("autodream/config.toml"), "dream_window = \"25:00-03:00\"\n");
    let out = env.run(&["daemon", "--once"]);
    out.assert_code(2);
    assert_snapshot!("bad_window_in_the_file", env.transcript(&out));
    let flag = Env::new().run(&["daemon", "--once", "--set", "dream_window=2am"]);
    flag.assert_code(2);
    assert_snapshot!("bad_window_on_the_command_line", flag.transcript());
    let tick = Env::new().run(&["daemon", "--once", "--set", "tick_minutes=0"]);
    tick.assert_code(2);
    assert!(tick.stderr.contains("--set tick_minutes: 0 is out of range"), "{}", tick.stderr);
}

/// The binary's path, as install writes it.
fn exe() -> String {
    std::path::Path::new(bin()).canonicalize().unwrap().display().to_string()
}

#[test]
fn install_daemon_renders_a_systemd_unit_and_a_launchd_agent() {
    let env = Env::new();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&exe()), "[BIN]");
    settings.add_filter("autodream-project-[0-9a-f]{8}", "autodream-project-[HASH]");
    for manager in ["systemd", "launchd"] {
        let out = env.run(&["install", "daemon", "--dry-run", "--manager", manager]);
        out.assert_code(0);
        settings.bind(|| assert_snapshot!(format!("unit_{manager}"), env.transcript(&out)));
    }
    assert!(!env.xdg.join("systemd").exists() && !env.home.join("Library").exists(), "a dry run wrote");
}

fn regex_escape(s: &str) -> String {
    s.chars().fold(String::new(), |mut out, c| {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

#[test]
fn install_daemon_writes_once_never_enables_and_uninstall_removes_exactly_it() {
    let env = Env::new();
    let dir = env.xdg.join("systemd/user");
    let first = env.run(&["install", "daemon", "--manager", "systemd"]);
    first.assert_code(0);
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let unit = &files[0];
    let name = unit.file_name().unwrap().to_string_lossy().into_owned();
    assert!(first.stdout.contains(&format!("systemctl --user enable --now {name}")), "{}", first.stdout);
    assert!(read(unit).contains(&format!("ExecStart={} --memory-dir {}", exe(), env.mem.display())));
    let again = env.run(&["install", "daemon", "--manager", "systemd"]);
    again.assert_code(0);
    assert!(again.stdout.starts_with("already installed, unchanged:"), "{}", again.stdout);

    write(unit, &(read(unit) + "Environment=EDITED=1\n"));
    let refused = env.run(&["uninstall", "daemon", "--manager", "systemd"]);
    refused.assert_code(3);
    assert!(refused.stderr.contains("--force removes it anyway"), "{}", refused.stderr);
    assert!(unit.exists());
    env.run(&["uninstall", "daemon", "--manager", "systemd", "--force"]).assert_code(0);
    assert!(!unit.exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "something else was left");
    let absent = env.run(&["uninstall", "daemon", "--manager", "systemd"]);
    absent.assert_code(0);
    assert!(absent.stdout.contains("is not installed"), "{}", absent.stdout);
}

#[test]
fn an_unreadable_sessions_folder_closes_the_gate_with_its_reason_and_a_missing_one_is_empty() {
    let env = assistant_env("2026-05-08T03:00:00Z");
    std::fs::remove_dir_all(&env.sess).unwrap();
    // Missing: no sessions, and the two log entries are enough.
    let missing = env.run(&["daemon", "--once", "--json"]);
    missing.assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&missing.stdout).unwrap();
    assert_eq!(v["gates"][4]["detail"], "sessions 0/5, log entries 2/2");
    assert_eq!(v["result"], "dreamt", "{v:#}");

    let env = assistant_env("2026-05-08T03:00:00Z");
    std::fs::remove_dir_all(&env.sess).unwrap();
    write(&env.sess, "not a folder");
    let before = full_state(&env.mem);
    let out = env.run(&["daemon", "--once"]);
    out.assert_code(0);
    assert!(
        out.stdout.contains("no dream: the new_input gate is closed: cannot read sessions folder"),
        "{}",
        out.stdout
    );
    assert_eq!(full_state(&env.mem), before);
}
