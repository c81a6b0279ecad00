//! Fault injection: content-changing dreams SIGKILLed at seeded random moments. After the
//! next command's recovery the memory must be exactly as before the dream or exactly as an
//! uninterrupted dream leaves it — never half-way — and when it is as before, the time gate
//! must be open again.

use std::time::{Duration, Instant};

use crate::support::*;

/// Dreams to SIGKILL by default; `AUTODREAM_FAULT_DREAMS` sets another count.
const DEFAULT_DREAMS: usize = 40;
const SEED: u64 = 0x0A07_0D2E_A3F0_0001;
const MAX_KILL_DELAY_MS: u64 = 300;
/// With the default count the whole loop stays well inside a minute even on a loaded
/// machine; an explicit `AUTODREAM_FAULT_DREAMS` runs every dream it asks for.
const BUDGET: Duration = Duration::from_secs(50);

#[test]
fn sigkilled_dreams_leave_the_pre_or_the_post_state() {
    let prior = at(-3 * 24 * 3600);
    let post = post_state_of(busy_memory);
    let pristine = Env::new();
    busy_memory(&pristine.mem);
    let pre = memory_files(&pristine.mem);
    assert_ne!(pre, post, "the fixture dream must change something");

    let dreams = crate::env_count("AUTODREAM_FAULT_DREAMS", DEFAULT_DREAMS);
    let budget = if std::env::var_os("AUTODREAM_FAULT_DREAMS").is_some() { None } else { Some(BUDGET) };
    let mut rng = SplitMix64(SEED);
    let started = Instant::now();
    let (mut pre_count, mut post_count, mut killed, mut finished, mut recovered) = (0, 0, 0, 0, 0);
    let mut temp_files: Vec<String> = Vec::new();
    for i in 0..dreams {
        if budget.is_some_and(|b| started.elapsed() > b) {
            eprintln!("fault injection: stopped after {i} dreams (time budget)");
            break;
        }
        let env = Env::new().var("AUTODREAM_FAULT_DELAY_MS", "5");
        busy_memory(&env.mem);
        env.lock_at(prior);
        let delay = rng.below_or_eq(MAX_KILL_DELAY_MS);
        let mut child = env.spawn(&["run", "--engine", "hygiene"]);
        std::thread::sleep(Duration::from_millis(delay));
        let ran_to_the_end = matches!(child.try_wait(), Ok(Some(_)));
        sigkill(&mut child);
        if ran_to_the_end {
            finished += 1;
        } else {
            killed += 1;
        }

        let status = env.status_json(); // recovery
        if status["recovered"].is_string() {
            recovered += 1;
        }
        let memory = memory_files(&env.mem);
        let what = format!("dream {i} (kill after {delay} ms)");
        assert_eq!(status["gates"][4]["pass"], true, "{what}: lock still held after recovery");
        assert_eq!(read(&env.mem.join(LOCK)), "", "{what}: lock body left behind");
        assert!(!env.state_file("journal.json").exists(), "{what}: journal left behind");
        assert_eq!(env.staging_copies(), Vec::<String>::new(), "{what}: staging left behind");
        assert_ne!(status["task"]["state"], "running", "{what}: a dead dream shown running");
        temp_files.extend(leftover_temp_files(&env.mem).iter().map(|p| env.redact(p)));
        if memory == pre {
            pre_count += 1;
            assert_eq!(status["last_consolidated_at"], rfc3339(prior), "{what}: pre-state but gate moved");
            assert_eq!(status["gates"][1]["pass"], true, "{what}: pre-state but the time gate is closed");
        } else if memory == post {
            post_count += 1;
            // The dream's start (released), or the prior mtime (rolled forward by recovery).
            let last = status["last_consolidated_at"].as_str().unwrap_or_default().to_string();
            assert!(
                last == rfc3339(prior) || last == NOW,
                "{what}: post-state with last consolidated at {last}"
            );
        } else {
            panic!("{what}: half-applied memory, {:?} differ from the pre-state", differing(&pre, &memory));
        }
    }
    eprintln!(
        "fault injection: {} dreams, {killed} killed mid-run, {finished} finished first; \
         {recovered} recovered by the next command; pre-state {pre_count}, post-state {post_count}; \
         {} temporary files left {temp_files:?}; {:?}",
        pre_count + post_count,
        temp_files.len(),
        started.elapsed()
    );
    assert!(pre_count + post_count >= 10, "too few dreams ran to mean anything");
    assert!(killed > 0, "no dream was killed mid-run: the delays miss the dream");
}

/// SIGKILLs a dry run the moment its lock body is emptied (the first step of the lock's
/// rollback), then lets `status` recover. Returns the "last consolidated at" it reports.
fn kill_a_dry_run_inside_its_rollback(prior: std::time::SystemTime) -> Option<String> {
    let env = Env::new();
    messy_memory(&env.mem);
    env.lock_at(prior);
    let before = memory_files(&env.mem);
    let lock = env.mem.join(LOCK);
    let mut child = env.spawn(&["run", "--engine", "hygiene", "--dry-run"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut held = false;
    while Instant::now() < deadline {
        let body = std::fs::read_to_string(&lock).unwrap_or_default();
        if !body.is_empty() {
            held = true;
        } else if held {
            break;
        }
        if matches!(child.try_wait(), Ok(Some(_))) {
            return None; // finished before we saw the rollback start
        }
    }
    sigkill(&mut child);
    let status = env.status_json();
    assert_eq!(memory_files(&env.mem), before, "a dry run never changes the memory");
    status["last_consolidated_at"].as_str().map(str::to_string)
}

#[test]
fn a_dry_run_killed_inside_its_lock_rollback_keeps_the_time_gate() {
    let prior = at(-3 * 24 * 3600);
    let mut seen = Vec::new();
    for _ in 0..10 {
        if let Some(last) = kill_a_dry_run_inside_its_rollback(prior) {
            seen.push(last);
        }
    }
    eprintln!("last consolidated after a kill inside the rollback: {seen:?}");
    assert!(!seen.is_empty(), "never caught a rollback");
    assert!(seen.iter().all(|l| *l == rfc3339(prior)), "the time gate moved: {seen:?}");
}

#[test]
fn recovery_removes_the_lock_temp_file_of_a_killed_process() {
    let mut leftovers = Vec::new();
    let mut caught = 0;
    for _ in 0..10 {
        let env = Env::new();
        messy_memory(&env.mem);
        env.lock_at(at(-3 * 24 * 3600));
        let mut child = env.spawn(&["run", "--engine", "hygiene", "--dry-run"]);
        let deadline = Instant::now() + Duration::from_secs(10);
        // SIGKILL the moment a lock temp file exists: between its creation and its rename.
        let mut seen = false;
        while Instant::now() < deadline && !matches!(child.try_wait(), Ok(Some(_))) {
            let temp = std::fs::read_dir(&env.mem).into_iter().flatten().flatten().any(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.starts_with(".consolidate-lock.") && n.ends_with(".tmp")
            });
            if temp {
                seen = true;
                break;
            }
        }
        sigkill(&mut child);
        if !seen {
            continue;
        }
        caught += 1;
        env.status_json(); // recovery
        env.run(&["run", "--engine", "hygiene"]).assert_code(0);
        leftovers.extend(leftover_temp_files(&env.mem).iter().map(|p| env.redact(p)));
    }
    eprintln!(
        "lock temp files: caught {caught} writers mid-replace, {} left after recovery",
        leftovers.len()
    );
    assert!(caught > 0, "never caught a lock temp file");
    assert_eq!(leftovers, Vec::<String>::new());
}
