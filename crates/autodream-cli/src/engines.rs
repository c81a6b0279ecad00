//! The dream engines by name.

use autodream_core::engine::Engine;
use autodream_core::hygiene::HygieneEngine;

use crate::exit;

/// Every engine name `--engine` accepts.
pub const NAMES: &[&str] = &["offline", "hygiene", "agent", "claude"];

pub fn by_name(name: &str) -> anyhow::Result<Box<dyn Engine>> {
    match name {
        "hygiene" => Ok(Box::new(HygieneEngine)),
        "offline" => Ok(Box::new(autodream_offline::OfflineEngine::default())),
        "agent" => Ok(Box::new(autodream_agent::AgentEngine::default())),
        "claude" => Ok(Box::new(autodream_agent::ClaudeEngine::default())),
        "exec" => Err(exit::usage(
            "the exec engine was replaced by --engine claude (the Claude Code client in print mode, \
             sandboxed; set claude.command to its binary)",
        )),
        other => {
            Err(exit::usage(format!("unknown engine {other:?} (expected one of: {})", NAMES.join(", "))))
        }
    }
}
