//! The dream engines by name.

use autodream_core::engine::Engine;
use autodream_core::hygiene::HygieneEngine;

use crate::exit;

/// Every engine name `--engine` accepts (`agent` is the API engine's former name, still
/// accepted as the same engine and not listed).
pub const NAMES: &[&str] = &["offline", "hygiene", "api", "claude"];

pub fn by_name(name: &str) -> anyhow::Result<Box<dyn Engine>> {
    match name {
        "hygiene" => Ok(Box::new(HygieneEngine)),
        "offline" => Ok(Box::new(autodream_offline::OfflineEngine::default())),
        // The engine reports the name it was chosen by, so status and history show it as configured.
        "api" => Ok(Box::new(autodream_llm::ApiEngine::default())),
        "agent" => Ok(Box::new(autodream_llm::ApiEngine::default().named(autodream_llm::api::FORMER_NAME))),
        "claude" => Ok(Box::new(autodream_llm::ClaudeEngine::default())),
        "exec" => Err(exit::usage(
            "the exec engine was replaced by --engine claude (the Claude Code client in print mode, \
             sandboxed; set claude.command to its binary)",
        )),
        other => {
            Err(exit::usage(format!("unknown engine {other:?} (expected one of: {})", NAMES.join(", "))))
        }
    }
}
