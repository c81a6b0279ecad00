//! Undo under SIGKILL: an `autodream undo` killed at seeded random moments. After the next
//! command's recovery the memory must be exactly as the dream left it (the undo did not
//! happen, and a second undo still can) or exactly as it was before the dream (the undo
//! happened and is recorded) — never a mix — and the time gate never moves.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::*;

/// Undos to SIGKILL by default; `AUTODREAM_FAULT_UNDOS` sets another count.
const DEFAULT_UNDOS: usize = 100;
const SEED: u64 = 0x0A07_0D2E_A3F0_00D0;
/// The undo's apply step waits this long before and after each of its files.
const OP_DELAY_MS: &str = "3";
/// Thirteen files, each with a delay before and after: the apply step lasts about 80 ms.
const MAX_KILL_DELAY_MS: u64 = 80;
/// Keeps the default run inside CI's patience on a loaded machine; an explicit count runs
/// every undo it asks for.
const BUDGET: Duration = Duration::from_secs(75);

#[test]
fn sigkilled_undos_leave_the_dream_or_the_state_before_it() {
    let prior = at(-3 * 24 * 3600);
    let undos = crate::env_count("AUTODREAM_FAULT_UNDOS", DEFAULT_UNDOS);
    let budget = if std::env::var_os("AUTODREAM_FAULT_UNDOS").is_some() { None } else { Some(BUDGET) };
    let mut rng = SplitMix64(SEED);
    let started = Instant::now();
    let (mut undone, mut not_undone, mut killed, mut recovered) = (0, 0, 0, 0);
    for i in 0..undos {
        if budget.is_some_and(|b| started.elapsed() > b) {
            eprintln!("undo fault injection: stopped after {i} undos (time budget)");
            break;
        }
        let env = Env::new();
        many_long_hooks(&env.mem);
        let pre = memory_files(&env.mem);
        env.lock_at(prior);
        env.run(&["run", "--engine", "hygiene"]).assert_code(0);
        let dreamt = memory_files(&env.mem);
        let changed = differing(&pre, &dreamt).len();
        assert!(changed >= 10, "the fixture dream must change many files ({changed})");

        let mut child = env
            .cmd(&["undo"])
            .env("AUTODREAM_FAULT_DELAY_MS", OP_DELAY_MS)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn autodream undo");
        // One kill in four lands anywhere from the start; the others inside the apply step,
        // a random time after the journal appears.
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
        if status["recovered"].as_str().is_some_and(|r| r.contains("finished undoing")) {
            recovered += 1;
        }
        let when = if early { "from its start" } else { "after its journal" };
        let what = format!("undo {i} (killed {delay} ms {when})");
        assert!(!env.state_file("journal.json").exists(), "{what}: journal left behind");
        assert_eq!(status["gates"][4]["pass"], true, "{what}: lock still held after recovery");
        assert_eq!(read(&env.mem.join(LOCK)), "", "{what}: lock body left behind");
        assert_eq!(status["last_consolidated_at"], NOW, "{what}: an undo moved the time gate");
        let undo_records = undo_records(&env);
        let memory = memory_files(&env.mem);
        if memory == pre {
            undone += 1;
            assert_eq!(undo_records, 1, "{what}: undone but not recorded");
        } else if memory == dreamt {
            not_undone += 1;
            assert_eq!(undo_records, 0, "{what}: recorded an undo that did not happen");
            // Nothing was lost: the dream can still be undone.
            env.run(&["undo"]).assert_code(0);
            assert_eq!(memory_files(&env.mem), pre, "{what}: the second undo");
        } else {
            panic!("{what}: half-restored memory, {:?} differ from the dream", differing(&dreamt, &memory));
        }
    }
    eprintln!(
        "undo fault injection: {} undos, {killed} killed mid-run, {recovered} finished by recovery; \
         restored {undone}, left as the dream {not_undone}, half-restored 0; {:?}",
        undone + not_undone,
        started.elapsed()
    );
    assert!(undone + not_undone >= 20, "too few undos ran to mean anything");
    assert!(recovered > 0, "no undo was killed mid-apply: the kills miss the apply step");
}

/// Twelve topics whose index hooks are too long: a hygiene dream moves each hook's detail
/// into its topic file, so it changes thirteen files and an undo restores as many.
pub(crate) fn many_long_hooks(mem: &std::path::Path) {
    let mut index = String::from("# Memory\n");
    for i in 0..12 {
        write(&mem.join(format!("area-{i}.md")), &format!("# Area {i}\n\n- owned by team {i}\n"));
        index.push_str(&format!(
            "- [Area {i}](area-{i}.md) — area {i} covers the ingestion service, its retry queue, the \
             nightly compaction job, the dashboards the on-call engineer watches, the paging runbook and \
             the quarterly capacity review\n"
        ));
    }
    write(&mem.join("MEMORY.md"), &index);
}

/// Undo records in the history (read from disk: one process fewer per round).
fn undo_records(env: &Env) -> usize {
    let Ok(entries) = std::fs::read_dir(env.state_file("history")) else { return 0 };
    entries
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("manifest.json")).ok())
        .filter_map(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .filter(|m| m["undo_of"].is_string())
        .count()
}
