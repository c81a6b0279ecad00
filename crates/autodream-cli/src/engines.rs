//! The dream engines by name.

use autodream_core::engine::Engine;
use autodream_core::hygiene::HygieneEngine;

use crate::exit;

/// Every engine name `--engine` accepts.
pub const NAMES: &[&str] = &["offline", "hygiene", "agent"];

pub fn by_name(name: &str) -> anyhow::Result<Box<dyn Engine>> {
    match name {
        "hygiene" => Ok(Box::new(HygieneEngine)),
        "offline" => Ok(Box::new(autodream_offline::OfflineEngine::default())),
        "agent" => Ok(Box::new(autodream_agent::AgentEngine::default())),
        other => {
            Err(exit::usage(format!("unknown engine {other:?} (expected one of: {})", NAMES.join(", "))))
        }
    }
}
