//! autodream-setup: putting autodream where the agents and the service manager find it.
//!
//! Everything here runs once, from the `autodream` command line, when a person sets
//! autodream up or checks that it is set up; nothing runs at an agent's turn end, so the
//! hook binary does not link this crate or the format-preserving editors it needs.
//! - [`install`]: register the hook with Claude Code, Codex and Gemini CLI, and take exactly
//!   that back out (`install` / `uninstall`), editing their settings files in place.
//! - [`doctor`]: everything that would stop dreams from reaching the agent, each with its fix.
//! - [`daemon_unit`]: the systemd user unit or launchd agent that runs `autodream daemon`.
//!
//! The engine itself (paths, config, memory folder, gates, the daemon's runtime) is
//! `autodream-core`'s; this crate depends on it, never the other way round.

pub mod daemon_unit;
pub mod doctor;
pub mod install;
