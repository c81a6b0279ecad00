//! A burst of Stop hooks before the client has written the session's transcript: every hook
//! starts an extractor (a transcript not written yet counts as changed), but only one of them
//! may wait for the file; the rest leave at once. When the transcript appears, the one that
//! waited extracts it, and each statement reaches the log once.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::*;

const SESSION: &str = "c0ffee00-0000-4000-8000-000000000042";
const HOOKS: usize = 30;
const STATEMENT: &str = "We use pnpm in this repo, never npm.";

/// Live extractor processes of `transcript` (their command line names it).
fn extractors_of(transcript: &Path) -> usize {
    let needle = transcript.to_string_lossy().into_owned();
    let Ok(procs) = std::fs::read_dir("/proc") else { return 0 };
    procs
        .flatten()
        .filter_map(|p| std::fs::read(p.path().join("cmdline")).ok())
        .map(|raw| {
            raw.split(|b| *b == 0).map(|w| String::from_utf8_lossy(w).into_owned()).collect::<Vec<_>>()
        })
        .filter(|words| words.iter().any(|w| w == "__capture") && words.contains(&needle))
        .count()
}

#[test]
fn a_burst_of_hooks_before_the_transcript_exists_leaves_one_waiting_extractor() {
    if !Path::new("/proc/self/cmdline").exists() {
        eprintln!("skipped: no /proc to count processes with");
        return;
    }
    let env = Env::new();
    env.run(&["init"]).assert_code(0);
    let transcript = env.sess.join(format!("{SESSION}.jsonl"));
    let stop = serde_json::json!({
        "session_id": SESSION, "transcript_path": transcript, "cwd": env.cwd, "hook_event_name": "Stop",
    })
    .to_string();
    for _ in 0..HOOKS {
        let out = env.run_with_stdin(&["hook"], stop.as_bytes());
        assert_eq!((out.code, out.stderr.as_str()), (0, ""), "the hook failed");
    }
    // The ones that found a waiter have left; the waiter waits (up to 5 s) for the file.
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut waiting = extractors_of(&transcript);
    while waiting > 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        waiting = extractors_of(&transcript);
    }
    assert!(waiting <= 1, "{waiting} extractors wait for one transcript after {HOOKS} hooks");
    assert_eq!(waiting, 1, "the first extractor should still be waiting for the transcript");

    let turn = [
        serde_json::json!({
            "type": "user", "uuid": "u1", "timestamp": "2026-05-08T13:00:00Z",
            "message": {"role": "user", "content": STATEMENT},
        }),
        serde_json::json!({
            "type": "assistant", "uuid": "a1", "timestamp": "2026-05-08T13:00:10Z",
            "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
        }),
    ];
    write(&transcript, &turn.iter().map(|e| format!("{e}\n")).collect::<String>());
    let log = env.mem.join("logs/2026/05/2026-05-08.md");
    let mut nudged = false;
    let written = wait_until(Duration::from_secs(20), || {
        let alive = extractors_of(&transcript);
        // On a machine slow enough that the burst outlasted the waiter's 5 s, the client's
        // next hook (SessionEnd, at the latest) starts the capture: one more hook stands in.
        if alive == 0 && !nudged && !read(&log).contains("pnpm") {
            nudged = true;
            env.run_with_stdin(&["hook"], stop.as_bytes());
        }
        alive == 0 && read(&log).contains("pnpm")
    });
    assert!(written, "the waiting extractor did not extract the transcript once it appeared");
    assert_eq!(read(&log).lines().filter(|l| l.contains("pnpm")).count(), 1, "{}", read(&log));
}
