//! The one-time move of engine state out of the memory folder.
//!
//! Older versions kept their state in `<memory>/.dream/` and the offline engine's records
//! and archive in `<memory>/.engine/` and `<memory>/.archive/`. The client reads every
//! `*.md` below the memory folder as a memory, so copies of memory files in history and
//! staging, and archived facts, would come back as duplicate memories. [`legacy_state`]
//! moves them where they belong now: `.dream/*` into the state folder, `.engine/` and
//! `.archive/` into its `data/` folder. Nothing is lost: an entry the state folder already
//! has is kept as it is there (newer), the rest is copied (links as links, never followed),
//! and the old folders are removed only after every copy succeeded. Concurrent callers are
//! serialised by a lock on the state folder; the second finds nothing left to move.

use std::path::Path;

use crate::dream::{JOURNAL_FILE, LifecycleError};
use crate::memdir::{ENGINE_DATA_DIR, ENGINE_DATA_NAMES, LEGACY_STATE_DIR, MemoryRoot};
use crate::paths::Locations;

/// Moves legacy state out of the memory folder; returns a sentence when it moved anything.
/// Costs three `lstat`s when there is nothing to move.
pub fn legacy_state(loc: &Locations) -> Result<Option<String>, LifecycleError> {
    let legacy: Vec<&str> = std::iter::once(LEGACY_STATE_DIR)
        .chain(ENGINE_DATA_NAMES.iter().copied())
        .filter(|name| loc.memory_dir.join(name).symlink_metadata().is_ok())
        .collect();
    if legacy.is_empty() {
        return Ok(None);
    }
    let mem = MemoryRoot::open(&loc.memory_dir)?;
    let state = MemoryRoot::create(&loc.state_dir)?;
    let _serialised = state.lock()?;
    let mut moved = Vec::new();
    for name in legacy {
        let meta = match loc.memory_dir.join(name).symlink_metadata() {
            Ok(m) => m,
            Err(_) => continue, // moved by another process meanwhile
        };
        if !meta.is_dir() {
            // A link (or a file) in place of a state folder was never ours to follow.
            continue;
        }
        let (dest, below) = if name == LEGACY_STATE_DIR {
            (&state, String::new())
        } else {
            (&state, format!("{ENGINE_DATA_DIR}/{name}"))
        };
        let dest_dir = loc.state_dir.join(&below);
        let keep_existing = |rel: &Path| dest_dir.join(rel).symlink_metadata().is_ok_and(|m| !m.is_dir());
        mem.copy_tree_into(name, dest, &below, &keep_existing)?;
        if name == LEGACY_STATE_DIR {
            retarget_journal(loc)?;
        }
        mem.remove_dir_all(name)?;
        moved.push(format!("{name}/"));
    }
    Ok((!moved.is_empty()).then(|| {
        format!("moved {} out of the memory folder into {}", moved.join(", "), loc.state_dir.display())
    }))
}

/// A journal moved from `.dream/` names staged files under the old folder: point it at
/// the state folder, so recovery can still finish the apply it describes.
fn retarget_journal(loc: &Locations) -> Result<(), LifecycleError> {
    let path = loc.state_dir.join(JOURNAL_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(()) };
    let Ok(mut journal) = serde_json::from_str::<serde_json::Value>(&text) else { return Ok(()) };
    let old = loc.memory_dir.join(LEGACY_STATE_DIR);
    let retarget = |v: &mut serde_json::Value| {
        if let Some(p) = v.as_str().and_then(|s| Path::new(s).strip_prefix(&old).ok()) {
            *v = serde_json::Value::String(loc.state_dir.join(p).to_string_lossy().into_owned());
        }
    };
    if let Some(s) = journal.get_mut("staging") {
        retarget(s);
    }
    if let Some(ops) = journal.get_mut("ops").and_then(|o| o.as_array_mut()) {
        for op in ops {
            if let Some(s) = op.get_mut("staged") {
                retarget(s);
            }
        }
    }
    let json = serde_json::to_vec_pretty(&journal).map_err(|e| LifecycleError::Invalid(e.to_string()))?;
    MemoryRoot::open(&loc.state_dir)?.write_atomic(JOURNAL_FILE, &json)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(p: &Path, text: &str) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn moves_every_legacy_folder_once_and_keeps_newer_state() {
        let tmp = tempfile::tempdir().unwrap();
        let l = Locations::under(tmp.path());
        let m = &l.memory_dir;
        write(&m.join("MEMORY.md"), "- [A](a.md) — a\n");
        write(&m.join("a.md"), "a\n");
        write(&m.join(".dream/task.json"), "{\"old\":1}");
        write(&m.join(".dream/history/t1/before/a.md"), "old a\n");
        write(&m.join(".dream/scan-stamp"), "");
        write(&m.join(".engine/offline/coding.json"), "{}");
        write(&m.join(".archive/forgotten.md"), "- gone\n");
        write(&m.join(".consolidate-lock"), "");
        // The state folder already has a newer task: it wins.
        write(&l.state_dir.join("task.json"), "{\"new\":1}");

        let said = legacy_state(&l).unwrap().unwrap();
        assert!(
            said.contains(".dream/") && said.contains(".engine/") && said.contains(".archive/"),
            "{said}"
        );
        let mut left: Vec<_> = fs::read_dir(m).unwrap().map(|e| e.unwrap().file_name()).collect();
        left.sort();
        assert_eq!(left, [".consolidate-lock", "MEMORY.md", "a.md"]);
        let s = &l.state_dir;
        assert_eq!(fs::read_to_string(s.join("task.json")).unwrap(), "{\"new\":1}");
        assert_eq!(fs::read_to_string(s.join("history/t1/before/a.md")).unwrap(), "old a\n");
        assert!(s.join("scan-stamp").is_file());
        assert_eq!(fs::read_to_string(s.join("data/.engine/offline/coding.json")).unwrap(), "{}");
        assert_eq!(fs::read_to_string(s.join("data/.archive/forgotten.md")).unwrap(), "- gone\n");
        assert_eq!(legacy_state(&l).unwrap(), None, "nothing left to move");
    }

    #[test]
    fn a_moved_journal_points_at_the_moved_staging_copy() {
        let tmp = tempfile::tempdir().unwrap();
        let l = Locations::under(tmp.path());
        let old = l.memory_dir.join(".dream");
        let staged = old.join("staging/t1/work/a.md");
        write(&staged, "new a\n");
        let journal = serde_json::json!({
            "task": "t1",
            "staging": old.join("staging/t1"),
            "ops": [{"path": "a.md", "staged": staged, "expect_before": null, "after": "x"}],
        });
        write(&old.join("journal.json"), &journal.to_string());
        legacy_state(&l).unwrap();
        let moved: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(l.state_dir.join("journal.json")).unwrap()).unwrap();
        assert_eq!(moved["staging"], serde_json::json!(l.state_dir.join("staging/t1")));
        assert_eq!(moved["ops"][0]["staged"], serde_json::json!(l.state_dir.join("staging/t1/work/a.md")));
        assert_eq!(fs::read_to_string(l.state_dir.join("staging/t1/work/a.md")).unwrap(), "new a\n");
    }

    #[test]
    fn a_link_in_place_of_a_legacy_folder_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let l = Locations::under(tmp.path());
        let outside = tmp.path().join("outside");
        write(&outside.join("task.json"), "outside");
        fs::create_dir_all(&l.memory_dir).unwrap();
        std::os::unix::fs::symlink(&outside, l.memory_dir.join(".dream")).unwrap();
        assert_eq!(legacy_state(&l).unwrap(), None);
        assert!(!l.state_dir.join("task.json").exists());
        assert_eq!(fs::read_to_string(outside.join("task.json")).unwrap(), "outside");
    }
}
