//! Review under SIGKILL: an `autodream review --accept` killed at seeded random moments.
//! After the next command's recovery the memory is exactly as before the dream (the accept
//! did not happen: the dream still waits, and accepting it again works) or exactly the
//! dream's result (accepted, recorded once, nothing left pending) — never a mix.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::*;
use crate::undo_kill::many_long_hooks;

/// Accepts to SIGKILL by default; `AUTODREAM_FAULT_REVIEWS` sets another count.
const DEFAULT_REVIEWS: usize = 40;
const SEED: u64 = 0x0A07_0D2E_A3F0_0E71;
/// The apply step waits this long before and after each of its thirteen files.
const OP_DELAY_MS: &str = "3";
const MAX_KILL_DELAY_MS: u64 = 80;
const BUDGET: Duration = Duration::from_secs(60);

#[test]
fn sigkilled_accepts_leave_the_pending_dream_or_its_result() {
    let prior = at(-3 * 24 * 3600);
    let reviews = crate::env_count("AUTODREAM_FAULT_REVIEWS", DEFAULT_REVIEWS);
    let budget = if std::env::var_os("AUTODREAM_FAULT_REVIEWS").is_some() { None } else { Some(BUDGET) };
    let mut rng = SplitMix64(SEED);
    let started = Instant::now();
    let (mut accepted, mut waiting, mut killed, mut recovered) = (0, 0, 0, 0);
    for i in 0..reviews {
        if budget.is_some_and(|b| started.elapsed() > b) {
            eprintln!("review fault injection: stopped after {i} accepts (time budget)");
            break;
        }
        let env = Env::new();
        many_long_hooks(&env.mem);
        let pre = memory_files(&env.mem);
        env.lock_at(prior);
        env.run(&["run", "--engine", "hygiene", "--review"]).assert_code(0);
        assert_eq!(memory_files(&env.mem), pre, "a dream for review changed the memory");

        let mut child = env
            .cmd(&["review", "--accept"])
            .env("AUTODREAM_FAULT_DELAY_MS", OP_DELAY_MS)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn autodream review --accept");
        let early = rng.below_or_eq(3) == 0;
        let delay = rng.below_or_eq(MAX_KILL_DELAY_MS);
        if !early {
            let journal = env.state_file("journal.json");
            let deadline = Instant::now() + Duration::from_secs(10);
            while !journal.exists() && Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_micros(500));
            }
        }
        std::thread::sleep(Duration::from_millis(delay));
        if !matches!(child.try_wait(), Ok(Some(_))) {
            killed += 1;
        }
        sigkill(&mut child);

        let status = env.status_json(); // recovery
        if status["recovered"].as_str().is_some_and(|r| r.contains("finished applying")) {
            recovered += 1;
        }
        let what = format!(
            "accept {i} (killed {delay} ms {})",
            if early { "from its start" } else { "after its journal" }
        );
        assert!(!env.state_file("journal.json").exists(), "{what}: journal left behind");
        assert_eq!(status["gates"][4]["pass"], true, "{what}: lock still held after recovery");
        assert_eq!(read(&env.mem.join(LOCK)), "", "{what}: lock body left behind");
        assert_eq!(status["last_consolidated_at"], NOW, "{what}: the time gate moved");
        let memory = memory_files(&env.mem);
        let history = env.history();
        if memory == pre {
            waiting += 1;
            assert!(history.is_empty(), "{what}: recorded an accept that did not happen");
            assert!(status["pending_review"].is_object(), "{what}: the pending dream was lost");
            env.run(&["review", "--accept"]).assert_code(0);
            assert_ne!(memory_files(&env.mem), pre, "{what}: the second accept");
        } else {
            accepted += 1;
            assert_eq!(history.len(), 1, "{what}: accepted but not recorded once");
            assert!(status["pending_review"].is_null(), "{what}: still pending after it was applied");
            let changed = differing(&pre, &memory).len();
            assert_eq!(changed, 13, "{what}: half-applied memory ({changed} of 13 files)");
        }
        // Whichever it was, undo brings back the memory as it was before the dream.
        env.run(&["undo"]).assert_code(0);
        assert_eq!(memory_files(&env.mem), pre, "{what}: undo after accept");
    }
    eprintln!(
        "review fault injection: {} accepts, {killed} killed mid-run, {recovered} finished by recovery; \
         applied {accepted}, still pending {waiting}, half-applied 0; {:?}",
        accepted + waiting,
        started.elapsed()
    );
    assert!(accepted + waiting >= 10, "too few accepts ran to mean anything");
    assert!(recovered > 0, "no accept was killed mid-apply: the kills miss the apply step");
}
