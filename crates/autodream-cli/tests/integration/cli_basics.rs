//! The foundation commands as a user runs them: `--help`, `init`, `log`, `status` at each
//! gate state, `sessions --json` over real transcripts, `check`, and bad input.

use insta::assert_snapshot;

use crate::support::*;

const HOUR: i64 = 3600;
const DAY: i64 = 24 * HOUR;

#[test]
fn help_lists_every_command() {
    let env = Env::new();
    let out = env.run(&["--help"]);
    out.assert_code(0);
    for cmd in ["init", "log", "hook", "status", "sessions", "check", "run", "watch", "kill", "history"] {
        assert!(out.stdout.contains(&format!("\n  {cmd} ")), "--help lacks {cmd}:\n{}", out.stdout);
    }
    assert!(!out.stdout.contains("__worker"), "internal commands stay hidden");
    assert_snapshot!("help", env.transcript(&out));
}

#[test]
fn init_creates_the_skeleton_once_and_never_overwrites() {
    let env = Env::new();
    let first = env.run(&["init"]);
    first.assert_code(0);
    assert_snapshot!("init_first", env.transcript(&first));
    assert!(env.mem.join("logs").is_dir());
    assert!(!env.mem.join(".dream").exists(), "engine state stays out of the memory folder");
    assert_eq!(read(&env.mem.join("MEMORY.md")), "");

    write(&env.mem.join("MEMORY.md"), "- [Kept](kept.md) — the user's own index\n");
    let second = env.run(&["init"]);
    second.assert_code(0);
    assert_snapshot!("init_second", env.transcript(&second));
    assert_eq!(read(&env.mem.join("MEMORY.md")), "- [Kept](kept.md) — the user's own index\n");
}

#[test]
fn log_appends_one_stamped_line_to_the_local_day() {
    let env = Env::new();
    let out = env.run(&["log", "decided", "to", "keep", "the", "lock", "in", "the", "memory", "dir"]);
    out.assert_code(0);
    assert_snapshot!("log_utc", env.transcript(&out));
    let multi = env.run_with_stdin(&["log", "-"], b"first line\n  second line\n\n");
    multi.assert_code(0);
    assert_eq!(
        read(&env.mem.join("logs/2026/05/2026-05-08.md")),
        "- [13:56] decided to keep the lock in the memory dir\n- [13:56] first line second line\n"
    );

    // An empty note is a usage error and writes nothing.
    let empty = env.run_with_stdin(&["log", "-"], b"  \n");
    empty.assert_code(2);
    assert!(empty.stderr.contains("empty"), "{}", empty.stderr);
    assert_eq!(read(&env.mem.join("logs/2026/05/2026-05-08.md")).lines().count(), 2);
}

#[test]
fn log_dates_follow_the_local_time_zone() {
    // 20:30 UTC is 05:30 the next morning at UTC+9 (a POSIX TZ string: no tzdata needed).
    let mut env = Env::new().var("TZ", "JST-9");
    env.now = Some("2026-05-08T20:30:00Z".into());
    let out = env.run(&["log", "late", "night", "note"]);
    out.assert_code(0);
    assert_eq!(out.stdout, "logged to logs/2026/05/2026-05-09.md\n");
    assert_eq!(read(&env.mem.join("logs/2026/05/2026-05-09.md")), "- [05:30] late night note\n");
    assert!(!env.mem.join("logs/2026/05/2026-05-08.md").exists());
}

/// Three sessions touched since a lock of `lock_age` seconds ago (none: never consolidated).
fn gate_env(lock_age: Option<i64>, sessions: usize) -> Env {
    let env = Env::new();
    std::fs::create_dir_all(&env.mem).unwrap();
    tidy_memory(&env.mem);
    if let Some(age) = lock_age {
        env.lock_at(at(-age));
    }
    for i in 0..sessions {
        env.session(&format!("00000000-0000-4000-8000-00000000000{i}"), "{}\n", at(-(i as i64 + 1) * HOUR));
    }
    env
}

#[test]
fn status_sessions_gate_short_of_its_threshold() {
    let env = gate_env(None, 3);
    let out = env.run(&["status"]);
    out.assert_code(0);
    assert!(out.stdout.contains("FAIL sessions       sessions 3/5: 2 more needed"), "{}", out.stdout);
    assert!(out.stdout.contains("last ran  never"), "{}", out.stdout);
    assert_snapshot!("status_sessions_3_of_5", env.transcript(&out));
    let json = env.run(&["status", "--json"]);
    json.assert_code(0);
    machine_neutral().bind(|| assert_snapshot!("status_sessions_3_of_5_json", env.redact(&json.stdout)));
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let sessions = &v["gates"][3];
    assert_eq!(sessions["name"], "sessions");
    assert!(sessions["value"].is_u64() && sessions["threshold"].is_u64(), "counts are integers: {sessions}");
    assert_eq!(sessions["value"], 3);
    assert!(!env.state_file("scan-stamp").exists(), "status has no side effects on the gates");
}

#[test]
fn status_time_gate_closed_says_when_it_opens() {
    let env = gate_env(Some(20 * HOUR + 48 * 60), 3);
    let out = env.run(&["status"]);
    out.assert_code(0);
    assert!(out.stdout.contains("last ran 20 hours ago; next eligible in 3h12m"), "{}", out.stdout);
    assert!(out.stdout.contains("next      eligible in 3h12m"), "{}", out.stdout);
    assert_snapshot!("status_time_closed", env.transcript(&out));
    let json = env.run(&["status", "--json"]);
    machine_neutral().bind(|| assert_snapshot!("status_time_closed_json", env.redact(&json.stdout)));
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["gates"][1]["value"], serde_json::json!(20.8), "hours are floats");
    assert!(v["gates"][1]["threshold"].is_f64());
    assert_eq!(v["next_eligible_at"], "2026-05-08T17:08:00Z");
    assert_eq!(v["would_dream"], false);
}

#[test]
fn status_scan_throttle_after_a_dream_two_days_ago() {
    let env = gate_env(Some(2 * DAY + 5 * HOUR), 3);
    let stamp = env.state_file("scan-stamp");
    write(&stamp, "");
    set_mtime(&stamp, at(-4 * 60));
    let out = env.run(&["status"]);
    out.assert_code(0);
    assert!(out.stdout.contains("last ran  2 days ago (2026-05-06 08:56 UTC)"), "{}", out.stdout);
    assert!(out.stdout.contains("scanned 4 minutes ago; next scan in 6m"), "{}", out.stdout);
    assert!(out.stdout.contains("verdict   waiting on the scan_throttle gate"), "{}", out.stdout);
    assert_snapshot!("status_last_ran_2_days_ago", env.transcript(&out));
    assert_eq!(mtime(&stamp), at(-4 * 60), "status never touches the scan stamp");
}

#[test]
fn status_every_gate_open_and_the_current_session_excluded() {
    let env = gate_env(Some(2 * DAY), 5);
    let out = env.run(&["status"]);
    out.assert_code(0);
    assert!(out.stdout.contains("verdict   a dream would start at the next hook"), "{}", out.stdout);
    assert_snapshot!("status_all_open", env.transcript(&out));
    // The current session never counts: 4 of 5 left.
    let current = env.run(&["--current-session", "00000000-0000-4000-8000-000000000000", "status", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&current.stdout).unwrap();
    assert_eq!(v["gates"][3]["value"], 4);
    assert_eq!(v["would_dream"], false);
}

const FIXTURES: [(&str, &str); 5] = [
    ("claude_real_v1.0.98_init_session_1af7fc5e.jsonl", "1af7fc5e-8455-4414-9ccd-011d40f70b2a"),
    ("claude_real_v2.1.38_short.jsonl", "11111111-1111-4111-8111-111111111111"),
    ("claude_real_v2.1.38_tool_heavy.jsonl", "22222222-2222-4222-8222-222222222222"),
    ("codex_rollout_real_cli0.66.0_codex_session.jsonl", "33333333-3333-4333-8333-333333333333"),
    // Not JSON Lines at all: every line is skipped and counted, never fatal.
    ("gemini_cli_session_real_gemini_session.json", "44444444-4444-4444-8444-444444444444"),
];

fn sessions_env() -> Env {
    let env = Env::new();
    for (i, (file, id)) in FIXTURES.iter().enumerate() {
        let body = std::fs::read_to_string(transcripts_dir().join(file)).expect("fixture transcript");
        env.session(id, &body, at(-(5 - i as i64) * HOUR));
    }
    // Neither a subagent transcript nor a non-JSONL file is a session.
    env.session("agent-5e6f7a8b", "{}\n", at(-HOUR));
    write(&env.sess.join("notes.txt"), "not a transcript\n");
    env
}

#[test]
fn sessions_json_over_real_transcripts() {
    let env = sessions_env();
    let out = env.run(&["sessions", "--json"]);
    out.assert_code(0);
    assert_snapshot!("sessions_json_all", env.redact(&out.stdout));
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let rows = v["sessions"].as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, FIXTURES.iter().map(|(_, id)| *id).collect::<Vec<_>>(), "oldest first, no extras");
    for r in rows {
        assert!(r["turns"].is_u64() && r["skipped_lines"].is_u64(), "{r}");
    }
    // The Gemini CLI chat (one pretty-printed JSON document) is read whole by its own reader.
    let gemini = &rows[4];
    assert_eq!(gemini["format"], "gemini", "{gemini}");
    assert_eq!(gemini["skipped_lines"], 0, "{gemini}");
    assert!(gemini["conversation_turns"].as_u64().unwrap() > 0, "{gemini}");
    assert!(rows[0]["conversation_turns"].as_u64().unwrap() > 0);
    assert_eq!(rows[3]["format"], "codex");
}

#[test]
fn sessions_since_the_last_dream_minus_the_current_one() {
    let env = sessions_env();
    env.lock_at(at(-(3 * HOUR + 30 * 60)));
    let out = env.run(&["--current-session", "44444444-4444-4444-8444-444444444444", "sessions", "--json"]);
    out.assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["since"], "2026-05-08T10:26:00Z");
    let ids: Vec<&str> =
        v["sessions"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"]);
    let human = env.run(&["sessions", "--all"]);
    human.assert_code(0);
    assert_snapshot!("sessions_all_human", env.transcript(&human));
}

#[test]
fn check_ok_exits_0() {
    let env = Env::new();
    tidy_memory(&env.mem);
    let out = env.run(&["check"]);
    out.assert_code(0);
    assert_snapshot!("check_ok", env.transcript(&out));
}

#[test]
fn check_over_200_lines_exits_1() {
    let env = Env::new();
    tidy_memory(&env.mem);
    let mut index = String::from("- [Build tips](build.md) — how the workspace is built\n");
    for i in 1..=200 {
        index.push_str(&format!("- note {i}\n"));
    }
    write(&env.mem.join("MEMORY.md"), &index);
    let out = env.run(&["check"]);
    out.assert_code(1);
    assert!(out.stdout.contains("201 lines, over the limit of 200"), "{}", out.stdout);
    assert_snapshot!("check_over_200_lines", env.transcript(&out));
    // Exactly 200 lines is within the limit.
    write(&env.mem.join("MEMORY.md"), &index.lines().take(200).map(|l| format!("{l}\n")).collect::<String>());
    env.run(&["check"]).assert_code(0);
}

#[test]
fn check_dangling_pointer_exits_1() {
    let env = Env::new();
    tidy_memory(&env.mem);
    write(
        &env.mem.join("MEMORY.md"),
        "- [Build tips](build.md) — how the workspace is built\n- [Gone](gone.md) — deleted by hand\n",
    );
    let out = env.run(&["check"]);
    out.assert_code(1);
    assert_snapshot!("check_dangling", env.transcript(&out));
    let json = env.run(&["check", "--json"]);
    json.assert_code(1);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["errors"], 1);
    assert_eq!(v["report"]["findings"][0]["code"], "dangling");
    assert_eq!(v["report"]["findings"][0]["line"], 2);
}

#[test]
fn check_long_hook_warns_and_exits_0() {
    let env = Env::new();
    tidy_memory(&env.mem);
    // 160 characters: over the hook limit (150), within the line limit (200).
    let hook: String =
        "how the workspace is built, tested and released; ".repeat(4).chars().take(160).collect();
    assert_eq!(hook.chars().count(), 160);
    write(&env.mem.join("MEMORY.md"), &format!("- [Build tips](build.md) — {hook}\n"));
    let out = env.run(&["check"]);
    out.assert_code(0);
    assert!(out.stdout.contains("warning: MEMORY.md:1: hook of"), "{}", out.stdout);
    assert_snapshot!("check_long_hook", env.transcript(&out));
}

#[test]
fn check_accepts_blank_lines_in_the_index() {
    let env = Env::new();
    tidy_memory(&env.mem);
    write(&env.mem.join("MEMORY.md"), "# Memory\n\n- [Build tips](build.md) — how the workspace is built\n");
    let out = env.run(&["check"]);
    out.assert_code(0);
    let status = env.run(&["status"]);
    status.assert_code(0);
    assert!(status.stdout.contains("MEMORY.md 3 lines, 1 topic files"), "{}", status.stdout);
}

#[test]
fn unknown_set_key_is_a_usage_error() {
    let env = Env::new();
    let out = env.run(&["--set", "colour=blue", "status"]);
    out.assert_code(2);
    assert!(out.stderr.contains("--set colour: unknown setting"), "{}", out.stderr);
    assert!(out.stderr.contains("min_hours"), "lists the known keys: {}", out.stderr);
    assert_eq!(out.stdout, "");
    let no_value = env.run(&["--set", "min_hours", "status"]);
    no_value.assert_code(2);
    assert!(no_value.stderr.contains("expected KEY=VALUE"), "{}", no_value.stderr);
    let bad_value = env.run(&["--set", "min_hours=-3", "status"]);
    bad_value.assert_code(2);
    assert!(bad_value.stderr.contains("min_hours"), "{}", bad_value.stderr);
    env.run(&["frobnicate"]).assert_code(2);
}

#[test]
fn missing_config_file_is_an_error_naming_it() {
    let env = Env::new();
    let out = env.run(&["--config", "no-such-config.toml", "status"]);
    out.assert_code(1);
    assert!(out.stderr.contains("no-such-config.toml"), "{}", out.stderr);
    assert_snapshot!("config_missing", env.transcript(&out));
}

#[test]
fn malformed_config_file_warns_with_file_and_line_and_the_command_still_works() {
    let env = Env::new();
    let file = env.xdg.join("autodream/config.toml");
    write(&file, "min_hours = 12\nmin_sessions = = 2\n");
    let out = env.run(&["log", "still", "works"]);
    out.assert_code(0);
    assert_snapshot!("config_malformed", env.transcript(&out));
    assert!(out.stderr.contains(&format!("{}: not valid TOML (line 2)", file.display())), "{}", out.stderr);
    assert_eq!(read(&env.mem.join("logs/2026/05/2026-05-08.md")), "- [13:56] still works\n");
    // The whole file is ignored: the defaults stand, and --json reports the warning.
    let v = env.status_json();
    assert_eq!(v["gates"][1]["threshold"], serde_json::json!(24.0));
    assert!(v["config_warnings"][0].as_str().unwrap().contains("(line 2)"), "{v}");

    // A wrong field falls back alone; the rest of the file applies.
    write(&file, "min_hours = 12\nmin_sessions = \"five\"\n");
    let v = env.status_json();
    assert_eq!(v["gates"][1]["threshold"], serde_json::json!(12.0));
    assert_eq!(v["gates"][3]["threshold"], 5);
    assert!(v["config_warnings"][0].as_str().unwrap().contains("min_sessions"), "{v}");
}

#[test]
fn garbage_clock_is_a_clear_error() {
    let mut env = Env::new();
    env.now = Some("garbage".into());
    let out = env.run(&["status"]);
    out.assert_code(1);
    assert!(out.stderr.contains("AUTODREAM_NOW=\"garbage\" is not an RFC 3339 instant"), "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_snapshot!("garbage_clock", env.transcript(&out));
    let log = env.run(&["log", "x"]);
    log.assert_code(1);
    assert!(!env.mem.join("logs").exists(), "nothing written on a bad clock");
}

#[test]
fn a_named_folder_that_is_not_there_is_an_error_naming_it_not_an_empty_memory() {
    let env = Env::new();
    let missing = env.root.join("no-such-sessions");
    let run = env.run(&["run", "--sessions-dir", missing.to_str().unwrap()]);
    run.assert_code(2);
    assert!(run.stderr.contains("no-such-sessions: no such file or directory"), "{}", run.stderr);
    assert!(!env.mem.exists(), "nothing written for a typo");
    let why = env.run(&["why", "anything"]);
    why.assert_code(1);
    assert!(why.stderr.contains("no memory folder at"), "{}", why.stderr);
    // A configured folder that does not exist yet is an empty history, as for the gates.
    std::fs::remove_dir_all(&env.sess).unwrap();
    let empty = env.run(&["run"]);
    empty.assert_code(0);
    assert!(empty.stdout.contains("Nothing to change"), "{}", empty.stdout);
}
