//! Integration tests of the `autodream` binary: every test runs the real executable as a
//! separate process in a sealed temporary environment (HOME, XDG_CONFIG_HOME, memory and
//! sessions folders, `AUTODREAM_NOW`, `TZ`), so nothing of the machine leaks in.
//!
//! Snapshots (insta) live in `snapshots/`, with the temporary folder shown as `[TMP]`.
//! A test that reproduces a defect in `src/` is marked `#[ignore = "bug: …"]` until it is fixed.

mod cli_basics;
mod dream_lifecycle;
mod fault_injection;
mod hook;
mod kill;
mod lock_races;
mod support;
mod symlinks;
