//! Integration tests of the `autodream` binary: every test runs the real executable as a
//! separate process in a sealed temporary environment (HOME, XDG_CONFIG_HOME, memory and
//! sessions folders, `AUTODREAM_NOW`, `TZ`), so nothing of the machine leaks in.
//!
//! Snapshots (insta) live in `snapshots/`, with the temporary folder shown as `[TMP]`.
//! A test that reproduces a defect in `src/` is marked `#[ignore = "bug: …"]` until it is fixed.
//!
//! The slow tests between many processes (lock races, SIGKILL fault injection, `kill`) are
//! in the `processes` test binary, which shares `support.rs`.

mod agents;
mod cli_basics;
mod closed_stdout;
mod coding_memory;
mod cost;
mod daemon;
mod doctor;
mod dream_lifecycle;
mod extraction;
mod hook;
mod install;
mod layout;
mod mcp;
mod review;
mod stale;
// Shared with the `processes` binary: each binary uses only some of the helpers.
#[allow(dead_code)]
mod support;
mod symlinks;
mod usage;
