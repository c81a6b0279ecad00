//! The one-time announcement of a finished dream ("Improved 3 files").
//!
//! The worker leaves `.dream/announce` behind; the next hook claims it with a rename (so
//! two hooks at once print it once) and prints it as the agent's system message. The hook
//! pays one failed `rename` per turn for this. Both sides walk `.dream/` from the memory
//! folder without following links.

use std::path::Path;

use super::task;
use crate::memdir::{MemoryRoot, STATE_DIR};

const ANNOUNCE_FILE: &str = "announce";

/// Leaves a message for the next hook.
pub fn post(memory_dir: &Path, message: &str) -> std::io::Result<()> {
    MemoryRoot::create(memory_dir)?
        .write_atomic(Path::new(STATE_DIR).join(ANNOUNCE_FILE), message.as_bytes())?;
    Ok(())
}

/// Takes the pending message, if any (at most once across concurrent callers), and marks
/// the task announced.
pub fn take(memory_dir: &Path) -> Option<String> {
    let root = MemoryRoot::open(memory_dir).ok()?;
    let state = Path::new(STATE_DIR);
    let claimed = state.join(format!("{ANNOUNCE_FILE}.{}", std::process::id()));
    root.rename(state.join(ANNOUNCE_FILE), &claimed).ok()?;
    let message = root.read(&claimed).ok().flatten().and_then(|b| String::from_utf8(b).ok());
    let _ = root.remove_file(&claimed);
    let _ = task::mark_announced(memory_dir);
    message.filter(|m| !m.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::Locations;
    use std::os::unix::fs::symlink;

    #[test]
    fn posts_and_takes_a_message_once() {
        let tmp = tempfile::tempdir().unwrap();
        post(tmp.path(), "Improved 2 files").unwrap();
        assert_eq!(take(tmp.path()).as_deref(), Some("Improved 2 files"));
        assert_eq!(take(tmp.path()), None);
    }

    #[test]
    fn no_state_file_is_written_through_a_linked_state_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let mem = tmp.path().join("memory");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&mem).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("announce"), "outside\n").unwrap();
        symlink(&outside, mem.join(STATE_DIR)).unwrap();
        let loc = Locations {
            memory_dir: mem.clone(),
            sessions_dir: tmp.path().into(),
            project_dir: tmp.path().into(),
        };
        let now = "2026-05-08T12:00:00Z".parse().unwrap();

        let err = post(&mem, "Improved 1 file").unwrap_err();
        assert!(err.to_string().contains(".dream is a symbolic link"), "{err}");
        assert_eq!(take(&mem), None, "the message outside is not claimed");
        let task = task::Task::new("t1".into(), "test", std::process::id(), now);
        assert!(task::save(&mem, &task).is_err());
        assert!(crate::gates::touch_scan_stamp(&loc, std::time::SystemTime::now()).is_err());
        let worker_log = std::path::Path::new(STATE_DIR).join(super::super::WORKER_LOG);
        assert!(crate::memdir::MemoryRoot::create(&mem).and_then(|r| r.open_append(worker_log)).is_err());
        let manifest = super::super::history::Manifest {
            task: "t1".into(),
            engine: "test".into(),
            started_at: now,
            ended_at: None,
            summary: String::new(),
            changes: vec![],
            conflicts: vec![],
            undo_of: None,
            tokens: Default::default(),
            cost_usd: None,
            sessions_reviewed: 0,
        };
        assert!(super::super::history::save_manifest(&mem, &manifest).is_err());
        assert!(super::super::transaction::prepare(&loc, "t1").is_err());
        super::super::transaction::remove_stale_staging(&loc);

        let mut names: Vec<_> =
            std::fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["announce"]);
        assert_eq!(std::fs::read_to_string(outside.join("announce")).unwrap(), "outside\n");
    }
}
