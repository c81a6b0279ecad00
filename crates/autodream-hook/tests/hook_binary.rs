//! The small hook binary runs the gates like `autodream hook`: silent, exit 0, and the
//! scan throttle's stamp is touched only when the time gate is open.

use std::io::Write;
use std::process::{Command, Stdio};

/// The state folder of `mem` (set explicitly, so the test need not know the default).
fn state_of(mem: &std::path::Path) -> std::path::PathBuf {
    mem.parent().unwrap().join("state")
}

fn run_hook(mem: &std::path::Path, sessions: &std::path::Path, stdin: &[u8]) -> std::process::Output {
    run_hook_with(&[], mem, sessions, stdin)
}

/// The hook with `extra` arguments before its folders.
fn run_hook_with(
    extra: &[&str],
    mem: &std::path::Path,
    sessions: &std::path::Path,
    stdin: &[u8],
) -> std::process::Output {
    let home = mem.parent().unwrap().join("home");
    let mut child = Command::new(env!("CARGO_BIN_EXE_autodream-hook"))
        .args(extra)
        .args(["--memory-dir".as_ref(), mem.as_os_str(), "--sessions-dir".as_ref(), sessions.as_os_str()])
        .env_clear()
        .env("HOME", &home)
        .env("AUTODREAM_STATE_DIR", state_of(mem))
        .env("TZ", "UTC")
        .env("AUTODREAM_NOW", "2026-05-08T12:00:00Z")
        .env("AUTODREAM_BIN", "/nonexistent/autodream")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn closed_gates_are_silent_and_the_time_gate_keeps_the_scan_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let mem = tmp.path().join("memory");
    let sessions = tmp.path().join("sessions");
    std::fs::create_dir_all(&mem).unwrap();
    // Consolidated an hour before "now": the time gate is closed.
    let lock = mem.join(".consolidate-lock");
    std::fs::write(&lock, "").unwrap();
    let hour_before: jiff::Timestamp = "2026-05-08T11:00:00Z".parse().unwrap();
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(std::time::SystemTime::from(hour_before))
        .unwrap();
    let out = run_hook(&mem, &sessions, br#"{"session_id":"s","cwd":"/","hook_event_name":"Stop"}"#);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    let stamp =
        state_of(&mem).join(autodream_core::paths::sanitise(&mem.to_string_lossy())).join("scan-stamp");
    assert!(!stamp.exists(), "the scan ran with the time gate closed");

    // A day later the time gate opens: the scan runs (stamp touched), the sessions gate
    // closes (no sessions), still silent.
    std::fs::remove_file(&lock).unwrap();
    let out = run_hook(&mem, &sessions, b"not json at all");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert!(stamp.exists(), "the gates did not reach the scan");
    assert!(!mem.join(".dream").exists(), "engine state stays out of the memory folder");
}

#[test]
fn a_pending_announcement_is_printed_once() {
    let tmp = tempfile::tempdir().unwrap();
    let mem = tmp.path().join("memory");
    let state = state_of(&mem).join(autodream_core::paths::sanitise(&mem.to_string_lossy()));
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("announce"), "Improved 3 files").unwrap();
    // SessionEnd output is discarded by the client: it leaves the message for a Stop hook.
    let ended =
        run_hook(&mem, &tmp.path().join("s"), br#"{"hook_event_name":"SessionEnd","reason":"other"}"#);
    assert!(ended.stdout.is_empty(), "{ended:?}");
    let out = run_hook(&mem, &tmp.path().join("s"), br#"{"hook_event_name":"Stop"}"#);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"systemMessage\":\"Improved 3 files\"}\n");
    let again = run_hook(&mem, &tmp.path().join("s"), br#"{"hook_event_name":"Stop"}"#);
    assert!(again.stdout.is_empty());
}

#[test]
fn an_unknown_option_is_skipped_and_named_while_the_known_ones_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let mem = tmp.path().join("memory");
    let state = state_of(&mem).join(autodream_core::paths::sanitise(&mem.to_string_lossy()));
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("announce"), "Improved 2 files").unwrap();
    let out = run_hook_with(
        &["--bogus", "--memmory-dir=/typo"],
        &mem,
        &tmp.path().join("s"),
        br#"{"hook_event_name":"Stop"}"#,
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{out:?}");
    // The announcement of *this* memory folder was found: --memory-dir was kept.
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"systemMessage\":\"Improved 2 files\"}\n");
    let log = std::fs::read_to_string(state.join("worker.log")).unwrap();
    assert!(log.contains("hook: skipped arguments it does not know: --bogus --memmory-dir=/typo"), "{log}");
}

#[test]
fn the_help_lists_every_global_option_of_the_table() {
    let out = Command::new(env!("CARGO_BIN_EXE_autodream-hook")).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for f in autodream_core::overrides::GLOBAL_FLAGS {
        assert!(help.contains(&format!("{} {}", f.long, f.value_name)), "{} missing:\n{help}", f.long);
    }
}
