//! placeholder
pub const LOCK_FILE: &str = ".consolidate-lock";
