//! The one-time announcement of a finished dream ("Improved 3 files").
//!
//! The worker leaves `.dream/announce` behind; the next hook claims it with a rename (so
//! two hooks at once print it once) and prints it as the agent's system message. The hook
//! pays one failed `rename` per turn for this.

use std::path::Path;

use super::task;
use crate::memdir::STATE_DIR;

const ANNOUNCE_FILE: &str = "announce";

/// Leaves a message for the next hook.
pub fn post(memory_dir: &Path, message: &str) -> std::io::Result<()> {
    crate::memdir::write_atomic(&memory_dir.join(STATE_DIR).join(ANNOUNCE_FILE), message.as_bytes())
}

/// Takes the pending message, if any (at most once across concurrent callers), and marks
/// the task announced.
pub fn take(memory_dir: &Path) -> Option<String> {
    let state = memory_dir.join(STATE_DIR);
    let claimed = state.join(format!("{ANNOUNCE_FILE}.{}", std::process::id()));
    std::fs::rename(state.join(ANNOUNCE_FILE), &claimed).ok()?;
    let message = std::fs::read_to_string(&claimed).ok();
    let _ = std::fs::remove_file(&claimed);
    let _ = task::mark_announced(memory_dir);
    message.filter(|m| !m.trim().is_empty())
}
