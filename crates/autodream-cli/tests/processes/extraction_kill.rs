//! The per-turn extractor SIGKILLed while it writes a long transcript's statements to the
//! daily log (each run killed once the log holds a further share of them): the log only ever
//! holds whole lines, never the same entry twice, and a last run completes it, every
//! statement exactly once.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::env_count;
use crate::support::*;

const SESSION: &str = "5e55a0b1-0000-4000-8000-00000000000k";

fn statement(i: usize) -> String {
    format!("The service svc-{i} listens on port {} in staging.", 10_000 + i)
}

fn transcript(turns: usize) -> String {
    let mut body = String::new();
    for i in 0..turns {
        for entry in [
            serde_json::json!({
                "type": "user", "uuid": format!("u{i}"), "timestamp": "2026-05-08T13:00:00Z",
                "message": {"role": "user", "content": statement(i)},
            }),
            serde_json::json!({
                "type": "assistant", "uuid": format!("a{i}"), "timestamp": "2026-05-08T13:00:10Z",
                "message": {"id": format!("m{i}"), "role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
            }),
        ] {
            body.push_str(&entry.to_string());
            body.push('\n');
        }
    }
    body
}

/// The statements in the log, with their counts; panics on a line that is not a whole entry.
fn entries(log: &str) -> BTreeMap<String, usize> {
    assert!(
        log.is_empty() || log.ends_with('\n'),
        "the log ends in half a line: {:?}",
        &log[log.len().saturating_sub(80)..]
    );
    let mut out = BTreeMap::new();
    for line in log.lines() {
        let body = line
            .strip_prefix("- [13:56] ")
            .and_then(|l| l.strip_suffix(" (session 5e55a0b1)"))
            .unwrap_or_else(|| panic!("not a whole entry: {line:?}"));
        assert!(
            body.starts_with("The service svc-") && body.ends_with(" in staging."),
            "not a whole entry: {line:?}"
        );
        *out.entry(body.to_string()).or_default() += 1;
    }
    out
}

#[test]
fn a_sigkilled_extractor_leaves_whole_lines_and_a_rerun_completes_without_duplicates() {
    let turns = env_count("AUTODREAM_EXTRACT_TURNS", 400);
    let kills = env_count("AUTODREAM_EXTRACT_KILLS", 6);
    let env = Env::new();
    env.run(&["init"]).assert_code(0);
    let path = env.sess.join(format!("{SESSION}.jsonl"));
    write(&path, &transcript(turns));
    let log_path = env.mem.join("logs/2026/05/2026-05-08.md");
    let args = ["__capture", "--transcript", path.to_str().unwrap(), "--current-session", SESSION];
    // While the extractor runs, a read can land in the middle of its one append (a reader
    // does not wait for a write in progress): count the whole lines read so far. After a kill
    // the log is checked whole.
    let count = || {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        entries(&log[..log.rfind('\n').map_or(0, |i| i + 1)]).len()
    };
    let mut killed_mid_run = 0;
    for k in 1..=kills {
        // Each run is killed once the log holds a further share of the statements: a kill
        // while the extractor is between (or inside) its appends, however fast it runs.
        let target = turns * k / (kills + 1);
        let mut child = env.spawn(&args);
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while count() < target && child.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_micros(300));
        }
        let still_running = child.try_wait().unwrap().is_none();
        sigkill(&mut child);
        let seen = entries(&std::fs::read_to_string(&log_path).unwrap_or_default());
        assert!(seen.values().all(|&n| n == 1), "an entry was written twice after a kill");
        if still_running && seen.len() < turns {
            killed_mid_run += 1;
        }
    }
    assert!(
        killed_mid_run * 2 >= kills,
        "only {killed_mid_run} of {kills} kills landed while the extractor was writing"
    );
    env.run(&args).assert_code(0);
    let seen = entries(&std::fs::read_to_string(&log_path).unwrap());
    assert_eq!(seen.len(), turns, "statements missing after the last run");
    assert!(seen.values().all(|&n| n == 1), "an entry was written twice");
    for i in [0, turns / 2, turns - 1] {
        assert_eq!(seen.get(&statement(i)), Some(&1), "{}", statement(i));
    }
}
