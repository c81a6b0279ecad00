//! The one-time announcement of a finished dream ("Improved 3 files").
//!
//! The worker leaves `announce` in the state folder; the next `Stop` hook claims it with a
//! rename (so two hooks at once print it once) and prints it as the agent's system message.
//! Only a hook whose message the client shows claims it (Claude Code's `Stop`, Gemini CLI's
//! `AfterAgent`: `hook::shows_announcements`); Claude Code discards `SessionEnd` output. The
//! hook pays one failed `rename` per turn for this. Both sides walk the state folder without
//! following links.

use super::task;
use crate::memdir::MemoryRoot;
use crate::paths::Locations;

use crate::paths::state::ANNOUNCE_FILE;

/// Leaves a message for the next hook.
pub fn post(loc: &Locations, message: &str) -> std::io::Result<()> {
    MemoryRoot::create(&loc.state_dir)?.write_atomic(ANNOUNCE_FILE, message.as_bytes())?;
    Ok(())
}

/// Takes the pending message, if any (at most once across concurrent callers), and marks
/// the task announced.
pub fn take(loc: &Locations) -> Option<String> {
    let root = MemoryRoot::open(&loc.state_dir).ok()?;
    let claimed = format!("{ANNOUNCE_FILE}.{}", std::process::id());
    root.rename(ANNOUNCE_FILE, &claimed).ok()?;
    let message = root.read(&claimed).ok().flatten().and_then(|b| String::from_utf8(b).ok());
    let _ = root.remove_file(&claimed);
    let _ = task::mark_announced(loc);
    message.filter(|m| !m.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::path::Path;

    fn loc(tmp: &Path) -> Locations {
        Locations {
            memory_dir: tmp.join("memory"),
            state_dir: tmp.join("state"),
            sessions_dir: tmp.into(),
            project_dir: tmp.into(),
        }
    }

    #[test]
    fn posts_and_takes_a_message_once() {
        let tmp = tempfile::tempdir().unwrap();
        let l = loc(tmp.path());
        post(&l, "Improved 2 files").unwrap();
        assert_eq!(take(&l).as_deref(), Some("Improved 2 files"));
        assert_eq!(take(&l), None);
    }

    #[test]
    fn no_state_file_is_written_through_a_link_in_the_state_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let l = loc(tmp.path());
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&l.state_dir).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("keep"), "outside\n").unwrap();
        // Every state file a link to a file outside, every state folder a link to a folder.
        for name in
            [ANNOUNCE_FILE, super::super::TASK_FILE, crate::gates::SCAN_STAMP, super::super::WORKER_LOG]
        {
            symlink(outside.join("keep"), l.state_dir.join(name)).unwrap();
        }
        for name in [super::super::HISTORY_DIR, super::super::STAGING_DIR] {
            symlink(&outside, l.state_dir.join(name)).unwrap();
        }
        std::fs::create_dir_all(&l.memory_dir).unwrap();
        let now = "2026-05-08T12:00:00Z".parse().unwrap();

        assert!(post(&l, "Improved 1 file").is_err());
        assert_eq!(take(&l), None, "the message outside is not claimed");
        let task = task::Task::new("t1".into(), "test", std::process::id(), now);
        assert!(task::save(&l, &task).is_err());
        assert!(crate::gates::touch_scan_stamp(&l, std::time::SystemTime::now()).is_err());
        assert!(
            MemoryRoot::create(&l.state_dir).and_then(|r| r.open_append(super::super::WORKER_LOG)).is_err()
        );
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
        assert!(super::super::history::save_manifest(&l, &manifest).is_err());
        assert!(super::super::transaction::prepare(&l, "t1").is_err());
        let lock = crate::lock::ConsolidationLock::new(
            &l.memory_dir,
            crate::clock::Clock::System,
            std::time::Duration::from_secs(3600),
        );
        super::super::transaction::remove_stale_staging(&l, &lock);

        let names: Vec<_> = std::fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["keep"]);
        assert_eq!(std::fs::read_to_string(outside.join("keep")).unwrap(), "outside\n");
    }
}
