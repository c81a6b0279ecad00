//! The consolidation lock between real processes: never two holders, concurrent `run`s
//! that exit 0 or 3 and never overlap, and a SIGKILLed holder cleaned up by the next
//! command ("this dream never happened").

use std::collections::BTreeSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use autodream_core::Clock;
use autodream_core::lock::{Acquire, ConsolidationLock, parse_body};

use crate::support::*;

const DAY: i64 = 24 * 3600;

const CHILD_DIR_VAR: &str = "AUTODREAM_IT_LOCK_CHILD_DIR";
const CHILD_MODE_VAR: &str = "AUTODREAM_IT_LOCK_CHILD_MODE";
const CHILD_ROUNDS_VAR: &str = "AUTODREAM_IT_LOCK_CHILD_ROUNDS";
/// Processes racing for the lock (and threads running `autodream run` at once).
const DEFAULT_CHILDREN: usize = 8;
/// Lock rounds per racing process.
const DEFAULT_ROUNDS: usize = 25;

/// `AUTODREAM_RACE_PROCS`, else 8: how many processes race.
fn children() -> usize {
    crate::env_count("AUTODREAM_RACE_PROCS", DEFAULT_CHILDREN)
}

/// `AUTODREAM_RACE_ROUNDS`, else 25: how many times each process takes the lock.
fn rounds() -> usize {
    crate::env_count("AUTODREAM_RACE_ROUNDS", DEFAULT_ROUNDS)
}

/// One child of the lock-race tests: this test binary, run again. It waits for the `go`
/// file (so all children start together), then each round takes the lock (retrying while
/// it is held), claims a witness file with `O_EXCL`, checks the lock names it, holds it a
/// moment and releases it. A second holder at the same time finds the witness taken, or
/// loses the lock before its release. In `bypass` mode it skips the lock, to prove the
/// witness sees overlaps. It reports "acquired refused overlaps" in `results/<pid>`.
#[test]
#[ignore = "not a test on its own: the child process of the lock-race tests"]
fn lock_child() {
    let Some(dir) = std::env::var_os(CHILD_DIR_VAR).map(PathBuf::from) else { return };
    let bypass = std::env::var(CHILD_MODE_VAR).as_deref() == Ok("bypass");
    let rounds: usize =
        std::env::var(CHILD_ROUNDS_VAR).ok().and_then(|r| r.parse().ok()).unwrap_or(DEFAULT_ROUNDS);
    let mem = dir.join("mem");
    let witness = dir.join("witness");
    let lock = ConsolidationLock::new(&mem, Clock::System, Duration::from_secs(3600));
    let me = std::process::id();
    let mut rng = SplitMix64(u64::from(me));
    let (mut acquired, mut refused, mut overlaps) = (0u32, 0u32, 0u32);
    assert!(wait_until(Duration::from_secs(30), || dir.join("go").exists()), "no go signal");
    for _ in 0..rounds {
        let deadline = Instant::now() + Duration::from_secs(30);
        let token = if bypass {
            None
        } else {
            loop {
                match lock.try_acquire(me).expect("lock I/O") {
                    Acquire::Acquired(t) => break Some(t),
                    Acquire::Held { .. } | Acquire::LostRace => {
                        refused += 1;
                        assert!(Instant::now() < deadline, "never got the lock in 30 s");
                        std::thread::sleep(Duration::from_micros(200 + rng.below_or_eq(1500)));
                    }
                }
            }
        };
        acquired += 1;
        let owns_witness = match OpenOptions::new().write(true).create_new(true).open(&witness) {
            Ok(mut f) => {
                let _ = writeln!(f, "{me}");
                true
            }
            Err(_) => {
                overlaps += 1;
                false
            }
        };
        if token.is_some() {
            let body = std::fs::read_to_string(lock.path()).unwrap_or_default();
            if parse_body(&body).map(|h| h.pid) != Some(me) {
                overlaps += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
        if owns_witness {
            std::fs::remove_file(&witness).expect("remove our witness");
        }
        // Another holder took the lock from under us: release finds it not ours.
        if let Some(t) = token
            && !lock.release_success(&t).expect("release")
        {
            overlaps += 1;
        }
    }
    let results = dir.join("results");
    std::fs::create_dir_all(&results).expect("results folder");
    std::fs::write(results.join(me.to_string()), format!("{acquired} {refused} {overlaps}"))
        .expect("write results");
}

/// Runs the children on `dir/mem` and sums (acquired, refused, overlaps).
fn run_lock_children(dir: &Path, mode: &str, rounds: usize) -> (u32, u32, u32) {
    std::fs::create_dir_all(dir.join("mem")).unwrap();
    let exe = std::env::current_exe().expect("this test binary");
    let procs = children();
    let spawned: Vec<_> = (0..procs)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "lock_races::lock_child",
                    "--ignored",
                    "--nocapture",
                    "--test-threads=1",
                    "-q",
                ])
                .env(CHILD_DIR_VAR, dir)
                .env(CHILD_MODE_VAR, mode)
                .env(CHILD_ROUNDS_VAR, rounds.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn lock child")
        })
        .collect();
    // Let every child reach the starting line, then start them together.
    std::thread::sleep(Duration::from_millis(100));
    write(&dir.join("go"), "");
    for c in spawned {
        let out = Out::from_output(c.wait_with_output().expect("lock child exits"));
        assert_eq!(out.code, 0, "lock child failed:\n{}", out.transcript());
    }
    let mut sums = (0, 0, 0);
    let entries: Vec<_> = std::fs::read_dir(dir.join("results")).expect("results").flatten().collect();
    assert_eq!(entries.len(), procs, "every child reported");
    for e in entries {
        let text = std::fs::read_to_string(e.path()).unwrap();
        let n: Vec<u32> = text.split_whitespace().map(|x| x.parse().unwrap()).collect();
        sums = (sums.0 + n[0], sums.1 + n[1], sums.2 + n[2]);
    }
    sums
}

#[test]
fn lock_is_exclusive_between_processes() {
    let env = Env::new();
    let dir = env.root.join("locked");
    // A dream happened before: the lock file exists, empty, two days old.
    write(&dir.join("mem").join(LOCK), "");
    set_mtime(&dir.join("mem").join(LOCK), at(-2 * DAY));
    let started = Instant::now();
    let (acquired, refused, overlaps) = run_lock_children(&dir, "lock", rounds());
    eprintln!(
        "lock race: {} processes × {} rounds: {acquired} acquisitions, {refused} refusals, \
         {overlaps} overlaps, {:?}",
        children(),
        rounds(),
        started.elapsed()
    );
    assert_eq!(acquired, (children() * rounds()) as u32);
    assert_eq!(overlaps, 0, "two processes held the lock at once");
    assert_eq!(std::fs::read_to_string(dir.join("mem").join(LOCK)).unwrap(), "");
    // The detector is real: without the lock, the same children do overlap.
    let (_, _, unlocked_overlaps) = run_lock_children(&env.root.join("bypass"), "bypass", rounds());
    eprintln!("lock race without the lock: {unlocked_overlaps} overlaps");
    assert!(unlocked_overlaps > 0, "the witness cannot see two holders");
}

#[test]
fn lock_is_exclusive_for_the_very_first_dream() {
    let env = Env::new();
    let started = Instant::now();
    let mut overlaps = 0;
    for generation in 0..15 {
        // No lock file yet: the children race to create it.
        let (_, _, o) = run_lock_children(&env.root.join(format!("g{generation}")), "lock", 2);
        overlaps += o;
    }
    eprintln!(
        "first-dream lock race: {} processes, {overlaps} overlaps in 15 generations, {:?}",
        children(),
        started.elapsed()
    );
    assert_eq!(overlaps, 0, "two processes held a brand-new lock at once");
}

/// Runs `autodream run --engine hygiene` from [`children`] threads × `rounds`, each round
/// first calling `before_round(thread, round)`; a monitor checks that a PID named in the
/// lock is alive. Returns (exit code, stderr) of every run.
fn concurrent_runs(
    env: &Env,
    rounds: usize,
    before_round: impl Fn(usize, usize) + Sync,
) -> Vec<(i32, String)> {
    let results = Mutex::new(Vec::new());
    let done = AtomicBool::new(false);
    let dead_holders = Mutex::new(BTreeSet::new());
    std::thread::scope(|s| {
        s.spawn(|| {
            let lock = env.mem.join(LOCK);
            while !done.load(Ordering::SeqCst) {
                let body = std::fs::read_to_string(&lock).unwrap_or_default();
                if let Some(h) = parse_body(&body)
                    && !pid_alive(h.pid)
                {
                    // Released between the read and the check? Then the body changed.
                    let again = std::fs::read_to_string(&lock).unwrap_or_default();
                    if again == body {
                        dead_holders.lock().unwrap().insert(h.pid);
                    }
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let workers: Vec<_> = (0..children())
            .map(|t| {
                let results = &results;
                let before_round = &before_round;
                s.spawn(move || {
                    for r in 0..rounds {
                        before_round(t, r);
                        let out = env.run(&["run", "--engine", "hygiene"]);
                        results.lock().unwrap().push((out.code, out.stderr));
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().expect("runner thread");
        }
        done.store(true, Ordering::SeqCst);
    });
    let dead = dead_holders.into_inner().unwrap();
    assert!(dead.is_empty(), "the lock named dead processes while runs went on: {dead:?}");
    results.into_inner().unwrap()
}

/// Every run exited 0 or 3, and the history holds one entry per success with no two
/// dreams overlapping in time. Returns the count of successes.
fn assert_exclusive_runs(env: &Env, results: &[(i32, String)]) -> usize {
    for (code, stderr) in results {
        assert!(*code == 0 || *code == 3, "a concurrent run exited {code}: {stderr}");
        if *code == 3 {
            assert!(
                stderr.contains("already running") || stderr.contains("took the lock first"),
                "refusal without a reason: {stderr}"
            );
        }
    }
    let ok = results.iter().filter(|(c, _)| *c == 0).count();
    let history = env.history();
    assert_eq!(history.len(), ok, "history entries vs successful runs");
    let mut spans: Vec<(jiff::Timestamp, jiff::Timestamp)> = history
        .iter()
        .map(|m| {
            let start = m["started_at"].as_str().unwrap().parse().unwrap();
            let end = m["ended_at"].as_str().unwrap().parse().unwrap();
            (start, end)
        })
        .collect();
    spans.sort();
    for w in spans.windows(2) {
        assert!(w[1].0 >= w[0].1, "two dreams overlapped: {:?} and {:?}", w[0], w[1]);
    }
    assert_eq!(read(&env.mem.join(LOCK)), "", "the lock is free at the end");
    ok
}

#[test]
fn concurrent_runs_exit_0_or_3_and_never_overlap() {
    // The system clock, so every dream's span in the history is real.
    let env = Env::new().system_clock().var("AUTODREAM_FAULT_DELAY_MS", "20");
    tidy_memory(&env.mem);
    // A dream happened before (see lock_is_exclusive_for_the_very_first_dream for the
    // first one).
    env.lock_at(at(-2 * DAY));
    let tidy = memory_files(&env.mem);
    let started = Instant::now();
    let results = concurrent_runs(&env, rounds(), |_, _| {});
    let ok = assert_exclusive_runs(&env, &results);
    eprintln!(
        "concurrent runs: {} threads, {} runs, {ok} dreamed, {} refused, {:?}",
        children(),
        results.len(),
        results.len() - ok,
        started.elapsed()
    );
    assert!(ok >= 1);
    assert_eq!(memory_files(&env.mem), tidy);
}

#[test]
fn concurrent_content_changing_runs_exit_0_or_3_and_lose_nothing() {
    let env = Env::new().system_clock().var("AUTODREAM_FAULT_DELAY_MS", "20");
    tidy_memory(&env.mem);
    env.lock_at(at(-2 * DAY));
    let rounds = 6;
    let started = Instant::now();
    let results = concurrent_runs(&env, rounds, |t, r| {
        // A topic file the index does not mention yet: every dream has something to apply.
        write(&env.mem.join(format!("w{t}-r{r}.md")), &format!("# Topic {t}.{r}\n- fact {t}.{r}\n"));
    });
    let ok = assert_exclusive_runs(&env, &results);
    eprintln!(
        "concurrent content-changing runs: {} threads, {} runs, {ok} dreamed, {:?}",
        children(),
        results.len(),
        started.elapsed()
    );
    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
    let index = read(&env.mem.join("MEMORY.md"));
    for t in 0..children() {
        for r in 0..rounds {
            assert!(index.contains(&format!("(w{t}-r{r}.md)")), "w{t}-r{r}.md lost from the index:\n{index}");
        }
    }
    env.run(&["check"]).assert_code(0);
}

#[test]
fn a_sigkilled_holder_is_rolled_back_by_the_next_command() {
    let env = Env::new().var("AUTODREAM_FAULT_DELAY_MS", "5000");
    messy_memory(&env.mem);
    let prior = at(-3 * DAY);
    env.lock_at(prior);
    let before = memory_files(&env.mem);
    let post = post_state_of_messy_memory();
    assert_ne!(before, post);

    let mut child = env.spawn(&["run", "--engine", "hygiene"]);
    let pid = child.id();
    let applying = wait_until(Duration::from_secs(10), || env.state_file("journal.json").exists());
    assert!(applying, "the dream never reached its apply step");
    let body = read(&env.mem.join(LOCK));
    assert_eq!(parse_body(&body).map(|h| h.pid), Some(pid), "the running dream holds the lock");
    sigkill(&mut child);

    let status = env.status_json();
    assert!(status["recovered"].is_string(), "status did not recover: {status}");
    assert_eq!(status["gates"][4]["pass"], true, "lock still held: {}", status["gates"][4]);
    assert_eq!(status["last_consolidated_at"], rfc3339(prior), "the prior mtime, to the second");
    assert_eq!(status["gates"][1]["pass"], true, "the time gate is open again");
    assert_eq!(status["task"]["state"], "failed");
    assert_eq!(unix_secs(mtime(&env.mem.join(LOCK))), unix_secs(prior));
    assert_eq!(read(&env.mem.join(LOCK)), "");
    let now = memory_files(&env.mem);
    let which = if now == before {
        "pre-state"
    } else if now == post {
        "post-state (the journal was rolled forward)"
    } else {
        panic!("half-applied memory: {:?} differ from the pre-state", differing(&before, &now));
    };
    eprintln!("SIGKILLed holder: memory is in the {which}");
    assert!(!env.state_file("journal.json").exists());
    assert_eq!(env.staging_copies(), Vec::<String>::new(), "staging copies left behind");
    assert!(leftover_temp_files(&env.mem).is_empty(), "{:?}", leftover_temp_files(&env.mem));

    // Life goes on: the next dream runs and leaves the post-state.
    let again = env.var("AUTODREAM_FAULT_DELAY_MS", "0");
    again.run(&["run", "--engine", "hygiene"]).assert_code(0);
    assert_eq!(memory_files(&again.mem), post);
}

#[test]
fn status_during_an_apply_leaves_the_running_dream_alone() {
    let env = Env::new().var("AUTODREAM_FAULT_DELAY_MS", "1500");
    messy_memory(&env.mem);
    env.lock_at(at(-3 * DAY));
    let post = post_state_of_messy_memory();
    let child = env.spawn(&["run", "--engine", "hygiene"]);
    assert!(wait_until(Duration::from_secs(10), || env.state_file("journal.json").exists()));
    let status = env.status_json();
    assert_eq!(status["recovered"], serde_json::Value::Null, "status recovered a live dream: {status}");
    assert_eq!(status["gates"][4]["pass"], false, "the lock is held");
    let out = wait_with_deadline(child, Duration::from_secs(20)).expect("run finished");
    out.assert_code(0);
    assert_eq!(memory_files(&env.mem), post);
    assert_eq!(mtime(&env.mem.join(LOCK)), at(0));
    assert_eq!(env.task_state().as_deref(), Some("completed"));
}
