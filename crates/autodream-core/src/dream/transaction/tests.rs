//! The transaction against links, concurrent edits, crashes and undo.

use super::*;
use crate::dream::journal::{BEFORE_APPLY_OP, Journal, JournalOp, recover_journal};
use crate::dream::undo::restore;
use crate::lock::LOCK_FILE;
use std::os::unix::fs::symlink;

#[test]
fn staging_skips_logs_state_and_lock_and_keeps_links_as_links() {
    let tmp = tempfile::tempdir().unwrap();
    let l = Locations::under(tmp.path());
    std::fs::create_dir_all(l.memory_dir.join("logs/2026/05")).unwrap();
    std::fs::create_dir_all(l.memory_dir.join(".dream")).unwrap();
    std::fs::write(l.memory_dir.join("MEMORY.md"), "x").unwrap();
    std::fs::write(l.memory_dir.join("a.md"), "a").unwrap();
    std::fs::write(l.memory_dir.join(LOCK_FILE), "").unwrap();
    std::fs::write(l.memory_dir.join(".a.md.1.2.tmp"), "half").unwrap();
    symlink("/etc/hostname", l.memory_dir.join("link.md")).unwrap();
    let s = prepare(&l, "t1").unwrap();
    assert_eq!(files_under(&s.work).into_iter().collect::<Vec<_>>(), ["MEMORY.md", "a.md"]);
    let mut names: Vec<String> = std::fs::read_dir(&s.work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["MEMORY.md", "a.md", "link.md"]);
    assert_eq!(std::fs::read_link(s.work.join("link.md")).unwrap(), Path::new("/etc/hostname"));
}

/// A memory folder next to an outside folder with a file and a subfolder.
fn linked_world(tmp: &Path) -> (Locations, PathBuf) {
    let l = Locations::under(tmp);
    let outside = tmp.join("outside");
    std::fs::create_dir_all(outside.join("sub")).unwrap();
    std::fs::write(outside.join("target.md"), "outside\n").unwrap();
    std::fs::write(outside.join("sub/b.md"), "old b\n").unwrap();
    std::fs::create_dir_all(&l.memory_dir).unwrap();
    std::fs::write(l.memory_dir.join("MEMORY.md"), "- [A](a.md) — a\n").unwrap();
    std::fs::write(l.memory_dir.join("a.md"), "old a\n").unwrap();
    (l, outside)
}

/// Every entry under `dir` with its contents (links as their target), for "unchanged" checks.
fn snapshot(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let ft = e.file_type().unwrap();
            if ft.is_symlink() {
                out.push((p.clone(), format!("-> {}", std::fs::read_link(&p).unwrap().display())));
            } else if ft.is_dir() {
                out.push((p.clone(), "<dir>".into()));
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read_to_string(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

fn memory_snapshot(l: &Locations) -> Vec<(PathBuf, String)> {
    snapshot(&l.memory_dir).into_iter().filter(|(p, _)| !p.starts_with(l.state_dir())).collect()
}

fn is_link_error(e: &LifecycleError, component: &str) -> bool {
    matches!(e, LifecycleError::Path(p) if p.is_symlink())
        && e.to_string().contains(&format!("{component} is a symbolic link"))
}

#[test]
fn the_staging_copy_keeps_links_to_folders_and_files_and_never_reads_through_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (l, outside) = linked_world(tmp.path());
    symlink(&outside, l.memory_dir.join("linkdir")).unwrap();
    symlink(outside.join("target.md"), l.memory_dir.join("link.md")).unwrap();
    let before = snapshot(&outside);
    let s = prepare(&l, "t1").unwrap();
    for side in [&s.base, &s.work] {
        assert_eq!(std::fs::read_link(side.join("linkdir")).unwrap(), outside);
        assert_eq!(std::fs::read_link(side.join("link.md")).unwrap(), outside.join("target.md"));
        assert_eq!(files_under(side).into_iter().collect::<Vec<_>>(), ["MEMORY.md", "a.md"]);
    }
    assert!(plan(&s).is_empty());
    // Preparing again (a retried task id) removes the old copy without following its links.
    prepare(&l, "t1").unwrap();
    assert_eq!(snapshot(&outside), before);
}

#[test]
fn a_change_through_a_linked_folder_refuses_the_whole_apply() {
    // The reported escape: the live folder holds a link to an outside folder, the engine
    // wrote `<link>/x.md` in staging, and the change set names it.
    let tmp = tempfile::tempdir().unwrap();
    let (l, outside) = linked_world(tmp.path());
    symlink(&outside, l.memory_dir.join("linkdir")).unwrap();
    let s = prepare(&l, "t1").unwrap();
    std::fs::write(s.work.join("a.md"), "dream a\n").unwrap();
    std::fs::remove_file(s.work.join("linkdir")).unwrap();
    std::fs::create_dir_all(s.work.join("linkdir/sub")).unwrap();
    std::fs::write(s.work.join("linkdir/x.md"), "escaped\n").unwrap();
    std::fs::write(s.work.join("linkdir/sub/b.md"), "escaped\n").unwrap();
    let before = snapshot(&outside);
    let memory_before = memory_snapshot(&l);
    let planned = plan(&s);
    assert_eq!(
        planned.iter().map(|p| p.path.as_str()).collect::<Vec<_>>(),
        ["a.md", "linkdir/sub/b.md", "linkdir/x.md"]
    );
    let err = check_plan(&l, &planned).unwrap_err();
    assert!(is_link_error(&err, "linkdir"), "{err}");
    let err = apply(&l, &s, planned, Manifest::for_test("t1")).unwrap_err();
    assert!(is_link_error(&err, "linkdir"), "{err}");
    assert!(err.to_string().contains("linkdir/sub/b.md"), "the error names the path: {err}");
    assert_eq!(snapshot(&outside), before);
    assert_eq!(memory_snapshot(&l), memory_before, "nothing was applied, a.md included");
    assert!(!l.state_dir().join(JOURNAL_FILE).exists());
    assert!(history::list(&l).is_empty());
}

#[test]
fn a_changed_file_that_is_a_link_on_disk_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let (l, outside) = linked_world(tmp.path());
    symlink(outside.join("target.md"), l.memory_dir.join("link.md")).unwrap();
    symlink(&outside, l.memory_dir.join("linked-folder.md")).unwrap();
    let s = prepare(&l, "t1").unwrap();
    for name in ["link.md", "linked-folder.md"] {
        std::fs::remove_file(s.work.join(name)).unwrap();
        std::fs::write(s.work.join(name), "dream\n").unwrap();
    }
    let before = snapshot(&outside);
    let applied = apply(&l, &s, plan(&s), Manifest::for_test("t1")).unwrap();
    assert_eq!(
        applied.conflicts,
        [
            "link.md (a symbolic link on disk: left alone)",
            "linked-folder.md (a symbolic link on disk: left alone)"
        ]
    );
    assert!(applied.changes.is_empty());
    assert_eq!(snapshot(&outside), before);
    assert!(std::fs::symlink_metadata(l.memory_dir.join("link.md")).unwrap().file_type().is_symlink());
}

#[test]
fn a_conflict_file_is_never_written_through_a_link() {
    for link_to_folder in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let (l, outside) = linked_world(tmp.path());
        let s = prepare(&l, "t1").unwrap();
        std::fs::write(s.work.join("a.md"), "dream a\n").unwrap();
        // The user edits a.md during the dream, and `a.md.conflict-t1` is a link.
        std::fs::write(l.memory_dir.join("a.md"), "user a\n").unwrap();
        let target = if link_to_folder { outside.clone() } else { outside.join("target.md") };
        symlink(&target, l.memory_dir.join("a.md.conflict-t1")).unwrap();
        let before = snapshot(&outside);
        let err = apply(&l, &s, plan(&s), Manifest::for_test("t1")).unwrap_err();
        assert!(is_link_error(&err, "a.md.conflict-t1"), "{err}");
        assert_eq!(snapshot(&outside), before);
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "user a\n");
    }
}

#[test]
fn a_folder_swapped_for_a_link_mid_apply_is_refused_and_the_applied_files_are_put_back() {
    let tmp = tempfile::tempdir().unwrap();
    let (l, outside) = linked_world(tmp.path());
    std::fs::create_dir_all(l.memory_dir.join("sub")).unwrap();
    std::fs::write(l.memory_dir.join("sub/b.md"), "old b\n").unwrap();
    let s = prepare(&l, "t1").unwrap();
    std::fs::write(s.work.join("a.md"), "dream a\n").unwrap();
    std::fs::write(s.work.join("sub/b.md"), "dream b\n").unwrap();
    let planned = plan(&s);
    let before = snapshot(&outside);
    // After the checks, just before `sub/b.md` is written, `sub` becomes a link to an
    // outside folder holding a file with the same name and bytes.
    let (mem, out) = (l.memory_dir.clone(), outside.clone());
    BEFORE_APPLY_OP.with(|h| {
        *h.borrow_mut() = Some(Box::new(move |path: &str| {
            if path == "sub/b.md" {
                std::fs::rename(mem.join("sub"), mem.join("sub-real")).unwrap();
                symlink(out.join("sub"), mem.join("sub")).unwrap();
            }
        }))
    });
    let result = apply(&l, &s, planned, Manifest::for_test("t1"));
    BEFORE_APPLY_OP.with(|h| *h.borrow_mut() = None);
    let err = result.unwrap_err();
    assert!(is_link_error(&err, "sub"), "{err}");
    assert_eq!(snapshot(&outside), before);
    // a.md, already replaced, is back as it was; the real folder was never touched.
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "old a\n");
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("sub-real/b.md")).unwrap(), "old b\n");
    assert!(!l.state_dir().join(JOURNAL_FILE).exists());
    assert!(history::list(&l).is_empty());
}

#[test]
fn recovery_leaves_a_path_through_a_link_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let (l, outside) = linked_world(tmp.path());
    let s = prepare(&l, "t1").unwrap();
    std::fs::create_dir_all(s.work.join("sub")).unwrap();
    std::fs::write(s.work.join("sub/b.md"), "new b\n").unwrap();
    std::fs::write(s.work.join("a.md"), "new a\n").unwrap();
    let journal = Journal {
        task: "t1".into(),
        staging: Some(s.root.clone()),
        ops: vec![
            JournalOp {
                path: "a.md".into(),
                staged: Some(s.work.join("a.md")),
                expect_before: Some(history::sha256_hex(b"old a\n")),
                after: Some(history::sha256_hex(b"new a\n")),
            },
            JournalOp {
                path: "sub/b.md".into(),
                staged: Some(s.work.join("sub/b.md")),
                expect_before: Some(history::sha256_hex(b"old b\n")),
                after: Some(history::sha256_hex(b"new b\n")),
            },
            // A journal naming a staged file outside the staging area is not followed.
            JournalOp {
                path: "c.md".into(),
                staged: Some(outside.join("target.md")),
                expect_before: None,
                after: Some(history::sha256_hex(b"outside\n")),
            },
        ],
        manifest: None,
    };
    std::fs::create_dir_all(l.state_dir()).unwrap();
    std::fs::write(l.state_dir().join(JOURNAL_FILE), serde_json::to_vec(&journal).unwrap()).unwrap();
    // `sub` is a link to an outside folder whose b.md matches what the dream expected.
    symlink(&outside, l.memory_dir.join("sub")).unwrap();
    let before = snapshot(&outside);
    let said = recover_journal(&l).unwrap().unwrap();
    assert!(said.contains("1 files") && said.contains("left sub/b.md alone"), "{said}");
    assert!(said.contains("kept newer versions of c.md"), "{said}");
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "new a\n");
    assert!(!l.memory_dir.join("c.md").exists());
    assert_eq!(snapshot(&outside), before);
}

#[test]
fn undo_never_restores_through_a_link() {
    for link_to_folder in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let (l, outside) = linked_world(tmp.path());
        std::fs::create_dir_all(l.memory_dir.join("sub")).unwrap();
        std::fs::write(l.memory_dir.join("sub/b.md"), "old b\n").unwrap();
        let s = prepare(&l, "t1").unwrap();
        std::fs::write(s.work.join("sub/b.md"), "dream b\n").unwrap();
        std::fs::write(s.work.join("a.md"), "dream a\n").unwrap();
        apply(&l, &s, plan(&s), Manifest::for_test("t1")).unwrap();
        // After the dream, the file (or its folder) becomes a link to an outside copy
        // holding exactly what the dream wrote, so the undo's own checks pass.
        if link_to_folder {
            std::fs::write(outside.join("sub/b.md"), "dream b\n").unwrap();
            std::fs::rename(l.memory_dir.join("sub"), l.memory_dir.join("sub-real")).unwrap();
            symlink(outside.join("sub"), l.memory_dir.join("sub")).unwrap();
        } else {
            std::fs::write(outside.join("target.md"), "dream b\n").unwrap();
            std::fs::remove_file(l.memory_dir.join("sub/b.md")).unwrap();
            symlink(outside.join("target.md"), l.memory_dir.join("sub/b.md")).unwrap();
        }
        let before = snapshot(&outside);
        let m = history::find(&l, Some("t1")).unwrap();
        let err = restore(&l, &m, "u1", m.started_at, true).unwrap_err();
        let component = if link_to_folder { "sub" } else { "sub/b.md" };
        assert!(is_link_error(&err, component), "{err}");
        assert_eq!(snapshot(&outside), before);
        // Refused before anything was restored.
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "dream a\n");
    }
}

#[test]
fn apply_records_history_and_a_write_during_the_dream_survives() {
    let tmp = tempfile::tempdir().unwrap();
    let l = Locations::under(tmp.path());
    std::fs::create_dir_all(&l.memory_dir).unwrap();
    std::fs::write(l.memory_dir.join("a.md"), "old a\n").unwrap();
    std::fs::write(l.memory_dir.join("b.md"), "old b\n").unwrap();
    let s = prepare(&l, "t1").unwrap();
    std::fs::write(s.work.join("a.md"), "dream a\n").unwrap();
    std::fs::write(s.work.join("b.md"), "dream b\n").unwrap();
    std::fs::write(s.work.join("c.md"), "new c\n").unwrap();
    // The user edits b.md while the dream runs.
    std::fs::write(l.memory_dir.join("b.md"), "user b\n").unwrap();
    let planned = plan(&s);
    assert_eq!(planned.len(), 3);
    let applied = apply(&l, &s, planned, Manifest::for_test("t1")).unwrap();
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "dream a\n");
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("b.md")).unwrap(), "user b\n");
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("b.md.conflict-t1")).unwrap(), "dream b\n");
    assert_eq!(applied.conflicts, ["b.md"]);
    assert_eq!(applied.changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(), ["a.md", "c.md"]);
    let m = history::find(&l, None).unwrap();
    assert!(history::diff(&l, &m, false).contains("-old a\n+dream a\n"));
    // Undo restores byte-identically and removes the added file.
    let undone = restore(&l, &m, "u1", m.started_at, false).unwrap().unwrap();
    assert_eq!(undone.undo_of.as_deref(), Some("t1"));
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "old a\n");
    assert!(!l.memory_dir.join("c.md").exists());
}

#[test]
fn undo_refuses_when_files_changed_since() {
    let tmp = tempfile::tempdir().unwrap();
    let l = Locations::under(tmp.path());
    std::fs::create_dir_all(&l.memory_dir).unwrap();
    std::fs::write(l.memory_dir.join("a.md"), "old\n").unwrap();
    let s = prepare(&l, "t1").unwrap();
    std::fs::write(s.work.join("a.md"), "dream\n").unwrap();
    apply(&l, &s, plan(&s), Manifest::for_test("t1")).unwrap();
    std::fs::write(l.memory_dir.join("a.md"), "edited after\n").unwrap();
    let m = history::find(&l, Some("t1")).unwrap();
    let refused = restore(&l, &m, "u1", m.started_at, false).unwrap().unwrap_err();
    assert_eq!(refused[0].path, "a.md");
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "edited after\n");
    restore(&l, &m, "u1", m.started_at, true).unwrap().unwrap();
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "old\n");
}

#[test]
fn an_interrupted_apply_rolls_forward() {
    let tmp = tempfile::tempdir().unwrap();
    let l = Locations::under(tmp.path());
    std::fs::create_dir_all(&l.memory_dir).unwrap();
    std::fs::write(l.memory_dir.join("a.md"), "old a\n").unwrap();
    std::fs::write(l.memory_dir.join("b.md"), "old b\n").unwrap();
    let s = prepare(&l, "t1").unwrap();
    std::fs::write(s.work.join("a.md"), "new a\n").unwrap();
    std::fs::remove_file(s.work.join("b.md")).unwrap();
    // Simulate a crash right after the journal was written and one op was done.
    let journal = Journal {
        task: "t1".into(),
        staging: Some(s.root.clone()),
        ops: vec![
            JournalOp {
                path: "a.md".into(),
                staged: Some(s.work.join("a.md")),
                expect_before: Some(history::sha256_hex(b"old a\n")),
                after: Some(history::sha256_hex(b"new a\n")),
            },
            JournalOp {
                path: "b.md".into(),
                staged: None,
                expect_before: Some(history::sha256_hex(b"old b\n")),
                after: None,
            },
        ],
        manifest: None,
    };
    std::fs::create_dir_all(l.state_dir()).unwrap();
    std::fs::write(l.state_dir().join(JOURNAL_FILE), serde_json::to_vec(&journal).unwrap()).unwrap();
    std::fs::write(l.memory_dir.join("a.md"), "new a\n").unwrap();
    let said = recover_journal(&l).unwrap().unwrap();
    assert!(said.contains("1 files"), "{said}");
    assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "new a\n");
    assert!(!l.memory_dir.join("b.md").exists());
    assert!(!l.state_dir().join(JOURNAL_FILE).exists());
    assert_eq!(recover_journal(&l).unwrap(), None);
}

#[test]
fn a_staging_copy_is_left_to_the_live_holder_of_the_lock_whatever_the_task_file_says() {
    use crate::clock::Clock;
    use crate::dream::task::{self, Task, TaskState};
    use crate::lock::{Acquire, ConsolidationLock};
    let tmp = tempfile::tempdir().unwrap();
    let l = Locations::under(tmp.path());
    std::fs::create_dir_all(&l.memory_dir).unwrap();
    std::fs::write(l.memory_dir.join("MEMORY.md"), "- [A](a.md) — a\n").unwrap();
    std::fs::write(l.memory_dir.join("a.md"), "a\n").unwrap();
    let lock = ConsolidationLock::new(&l.memory_dir, Clock::System, std::time::Duration::from_secs(3600));
    let Acquire::Acquired(token) = lock.try_acquire(std::process::id()).unwrap() else {
        panic!("the lock is free")
    };
    // The dream holding the lock stages; the dream before it, which let go of the lock a
    // moment ago, writes its final state into the task file after this one saved its own.
    let staging = prepare(&l, "t3").unwrap();
    let mut finished = Task::new("t2".into(), "test", std::process::id(), jiff::Timestamp::now());
    finished.state = TaskState::Completed;
    task::save(&l, &finished).unwrap();

    remove_stale_staging(&l, &lock);
    assert!(staging.work.join("MEMORY.md").exists(), "the live dream's staging copy was removed");

    // Once the holder has let go, a copy left behind is stale.
    lock.rollback(&token).unwrap();
    remove_stale_staging(&l, &lock);
    assert!(!staging.root.exists(), "a copy with no live dream behind it stays");
}
