//! The slow tests of the `autodream` binary between many real processes: the lock raced by
//! many processes, dreams SIGKILLed at random moments, `autodream kill`, and daily-log
//! appends from many writers at once. They share the sealed environment of the
//! `integration` tests (`../integration/support.rs`) and live in their own test binary so
//! that the quick tests can be run alone (`cargo test --test integration`) while
//! `cargo test --workspace` still runs both.
//!
//! The process counts default to small values that keep CI quick; raise them to measure:
//! `AUTODREAM_RACE_PROCS` (processes racing for the lock), `AUTODREAM_RACE_ROUNDS` (lock
//! rounds per process), `AUTODREAM_FAULT_DREAMS` (SIGKILLed dreams), and for team memory
//! `AUTODREAM_TEAM_MACHINES` and `AUTODREAM_TEAM_KILLS`. The figures of a
//! large run are in `docs/reliability.md`.

mod daemon;
mod extraction_crowd;
mod extraction_kill;
mod fault_injection;
mod kill;
mod lock_races;
mod review_kill;
mod team;
mod undo_kill;
// The helpers of the `integration` binary; this one uses only some of them.
#[path = "../integration/support.rs"]
#[allow(dead_code)]
mod support;

/// A count from the environment, or `default` when the variable is unset or not a
/// positive whole number.
pub fn env_count(var: &str, default: usize) -> usize {
    std::env::var(var).ok().and_then(|v| v.trim().parse().ok()).filter(|n| *n > 0).unwrap_or(default)
}
