//! The dream as a transaction: staging copy, change set, journalled apply, recovery.
//!
//! ```text
//! .dream/staging/<task>/base/   the memory directory as the dream found it
//! .dream/staging/<task>/work/   the copy the engine edits
//! .dream/journal.json           present only while changes are being applied
//! ```
//! Apply order: originals and new versions into history, journal written, each file
//! renamed into place atomically, journal removed, staging removed. A crash before the
//! journal leaves the memory untouched; a crash after it is rolled forward by the next
//! command. A file that changed on disk during the dream keeps the disk version; the
//! dream's version is saved beside it as `<file>.conflict-<task>` and named in the summary.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::history::{self, Action, Change, FileStamp, Manifest};
use super::{JOURNAL_FILE, LifecycleError, STAGING_DIR};
use crate::lock::LOCK_FILE;
use crate::memdir::{LOGS_DIR, STATE_DIR, write_atomic};
use crate::paths::Locations;

/// Where an engine works during one dream.
#[derive(Debug, Clone)]
pub struct Staging {
    pub root: PathBuf,
    pub base: PathBuf,
    pub work: PathBuf,
}

/// Top-level names never copied into staging nor touched by apply.
fn is_excluded_top(name: &str) -> bool {
    name == LOGS_DIR || name == STATE_DIR || name == LOCK_FILE
}

/// Copies the memory directory (minus `logs/`, `.dream/`, the lock, and symbolic links,
/// which autodream never follows) into a fresh staging area.
pub fn prepare(loc: &Locations, task: &str) -> Result<Staging, LifecycleError> {
    let root = loc.state_dir().join(STAGING_DIR).join(task);
    if root.exists() {
        std::fs::remove_dir_all(&root).map_err(|e| LifecycleError::io(&root, e))?;
    }
    let staging = Staging { base: root.join("base"), work: root.join("work"), root };
    for dst in [&staging.base, &staging.work] {
        std::fs::create_dir_all(dst).map_err(|e| LifecycleError::io(dst, e))?;
        copy_tree(&loc.memory_dir, dst, true)?;
    }
    Ok(staging)
}

fn copy_tree(src: &Path, dst: &Path, top: bool) -> Result<(), LifecycleError> {
    let entries = std::fs::read_dir(src).map_err(|e| LifecycleError::io(src, e))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name_str = name.to_string_lossy();
        if top && is_excluded_top(&name_str) {
            continue;
        }
        // Temporary files of an atomic write in progress are not memory.
        if name_str.ends_with(".tmp") && name_str.starts_with('.') {
            continue;
        }
        let Ok(ft) = entry.file_type() else { continue };
        let from = entry.path();
        let to = dst.join(&name);
        if ft.is_dir() {
            std::fs::create_dir_all(&to).map_err(|e| LifecycleError::io(&to, e))?;
            copy_tree(&from, &to, false)?;
        } else if ft.is_file() {
            std::fs::copy(&from, &to).map_err(|e| LifecycleError::io(&from, e))?;
        }
    }
    Ok(())
}

/// Every regular file under `dir`, relative, `/`-separated (symlinks skipped).
pub fn files_under(dir: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                walk(root, &p, out);
            } else if ft.is_file()
                && let Ok(rel) = p.strip_prefix(root)
            {
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

/// A change the engine made in staging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub path: String,
    pub base: Option<Vec<u8>>,
    pub work: Option<Vec<u8>>,
}

/// What differs between `base` and `work`.
pub fn plan(staging: &Staging) -> Vec<Planned> {
    let mut paths = files_under(&staging.base);
    paths.extend(files_under(&staging.work));
    paths
        .into_iter()
        .filter(|p| !p.split('/').next().is_some_and(is_excluded_top))
        .filter_map(|p| {
            let base = std::fs::read(staging.base.join(&p)).ok();
            let work = std::fs::read(staging.work.join(&p)).ok();
            (base != work).then_some(Planned { path: p, base, work })
        })
        .collect()
}

/// A unified diff of a plan (dry runs).
pub fn plan_diff(planned: &[Planned]) -> String {
    planned
        .iter()
        .map(|p| {
            let action = match (&p.base, &p.work) {
                (None, _) => Action::Added,
                (_, None) => Action::Deleted,
                _ => Action::Changed,
            };
            history::unified(
                &p.path,
                action,
                p.base.as_deref().unwrap_or_default(),
                p.work.as_deref().unwrap_or_default(),
            )
        })
        .collect()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct JournalOp {
    path: String,
    /// The staged new content (`None`: delete).
    staged: Option<PathBuf>,
    /// Hash of the disk file when the op was decided (`None`: absent).
    expect_before: Option<String>,
    /// Hash of the new content (`None`: deleted).
    after: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Journal {
    task: String,
    staging: PathBuf,
    ops: Vec<JournalOp>,
}

/// The outcome of applying a plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    pub changes: Vec<Change>,
    pub conflicts: Vec<String>,
}

fn fault_delay() {
    // A test hook: slows the apply loop so fault-injection tests can kill mid-apply.
    if let Some(ms) = std::env::var("AUTODREAM_FAULT_DELAY_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        std::thread::sleep(Duration::from_millis(ms));
    }
}

/// Applies a plan to the memory directory with a journal, recording history.
/// `manifest` gives the metadata; its `changes` and `conflicts` are filled in here.
pub fn apply(
    loc: &Locations,
    staging: &Staging,
    planned: Vec<Planned>,
    mut manifest: Manifest,
) -> Result<Applied, LifecycleError> {
    let mem = &loc.memory_dir;
    let mut ops = Vec::new();
    let mut changes = Vec::new();
    let mut contents = Vec::new();
    let mut conflicts = Vec::new();
    for p in planned {
        let disk_path = mem.join(&p.path);
        if std::fs::symlink_metadata(&disk_path).is_ok_and(|m| m.file_type().is_symlink()) {
            conflicts.push(format!("{} (a symbolic link on disk: left alone)", p.path));
            continue;
        }
        let disk = std::fs::read(&disk_path).ok();
        if disk != p.base {
            // Written during the dream: the disk wins; keep the dream's version beside it.
            if disk != p.work {
                if let Some(w) = &p.work {
                    let beside = mem.join(format!("{}.conflict-{}", p.path, manifest.task));
                    write_atomic(&beside, w).map_err(|e| LifecycleError::io(&beside, e))?;
                }
                conflicts.push(p.path.clone());
            }
            continue;
        }
        let action = match (&p.base, &p.work) {
            (None, _) => Action::Added,
            (_, None) => Action::Deleted,
            _ => Action::Changed,
        };
        changes.push(Change {
            path: p.path.clone(),
            action,
            before: p.base.as_deref().map(FileStamp::of),
            after: p.work.as_deref().map(FileStamp::of),
        });
        ops.push(JournalOp {
            path: p.path.clone(),
            staged: p.work.as_ref().map(|_| staging.work.join(&p.path)),
            expect_before: p.base.as_deref().map(history::sha256_hex),
            after: p.work.as_deref().map(history::sha256_hex),
        });
        contents.push((p.base, p.work));
    }
    manifest.changes = changes.clone();
    manifest.conflicts = conflicts.clone();
    history::record(mem, &manifest, &contents)?;
    if ops.is_empty() {
        return Ok(Applied { changes, conflicts });
    }
    let journal = Journal { task: manifest.task.clone(), staging: staging.root.clone(), ops };
    let journal_path = loc.state_dir().join(JOURNAL_FILE);
    let json = serde_json::to_vec_pretty(&journal).map_err(|e| LifecycleError::Invalid(e.to_string()))?;
    write_atomic(&journal_path, &json).map_err(|e| LifecycleError::io(&journal_path, e))?;
    fault_delay();
    for op in &journal.ops {
        apply_op(mem, op)?;
        fault_delay();
    }
    std::fs::remove_file(&journal_path).map_err(|e| LifecycleError::io(&journal_path, e))?;
    Ok(Applied { changes, conflicts })
}

/// Applies one journalled op; idempotent, so recovery can run it again.
fn apply_op(mem: &Path, op: &JournalOp) -> Result<(), LifecycleError> {
    let dest = mem.join(&op.path);
    match &op.staged {
        Some(staged) => {
            let bytes = std::fs::read(staged).map_err(|e| LifecycleError::io(staged, e))?;
            write_atomic(&dest, &bytes).map_err(|e| LifecycleError::io(&dest, e))?;
        }
        None => match std::fs::remove_file(&dest) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(LifecycleError::io(&dest, e)),
        },
    }
    // Empty folders left by a deleted file are removed (never the memory root).
    if op.staged.is_none() {
        let mut dir = dest.parent();
        while let Some(d) = dir {
            if d == mem || std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }
    Ok(())
}

/// Finishes an apply interrupted by a crash: each op is rolled forward when the file is
/// still as the dream found it (or already done); a file changed since keeps the disk
/// version. Returns a sentence when there was a journal.
pub fn recover_journal(loc: &Locations) -> Result<Option<String>, LifecycleError> {
    let journal_path = loc.state_dir().join(JOURNAL_FILE);
    let Ok(text) = std::fs::read_to_string(&journal_path) else { return Ok(None) };
    let journal: Journal = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(_) => {
            // A journal is written atomically, so a broken one was never acted on.
            let _ = std::fs::remove_file(&journal_path);
            return Ok(Some("removed an unreadable journal (no change had been applied)".into()));
        }
    };
    let mem = &loc.memory_dir;
    let mut forward = 0;
    let mut kept = Vec::new();
    for op in &journal.ops {
        let disk = std::fs::read(mem.join(&op.path)).ok().map(|b| history::sha256_hex(&b));
        if disk == op.after {
            continue;
        }
        let staged_ok = op.staged.as_ref().is_none_or(|s| s.exists());
        if disk == op.expect_before && staged_ok {
            apply_op(mem, op)?;
            forward += 1;
        } else {
            kept.push(op.path.clone());
        }
    }
    std::fs::remove_file(&journal_path).map_err(|e| LifecycleError::io(&journal_path, e))?;
    let _ = std::fs::remove_dir_all(&journal.staging);
    let mut s = format!("finished applying dream {} after a crash ({forward} files)", journal.task);
    if !kept.is_empty() {
        s.push_str(&format!("; kept newer versions of {}", kept.join(", ")));
    }
    Ok(Some(s))
}

/// Removes staging copies left by dreams that are no longer running.
///
/// The folders are listed before the task is read: a dream saves its task before it creates
/// its staging copy, so a copy created after the listing is never touched, and one created
/// before it belongs to a task this reads as running.
pub fn remove_stale_staging(loc: &Locations) {
    let dir = loc.state_dir().join(STAGING_DIR);
    if loc.state_dir().join(JOURNAL_FILE).exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    let listed: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    let live = super::task::load(&loc.memory_dir)
        .filter(|t| t.state == super::task::TaskState::Running && crate::lock::pid_alive(t.pid))
        .map(|t| t.id);
    for path in listed {
        if path.file_name().and_then(|n| n.to_str()) != live.as_deref() {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;

    fn loc(tmp: &Path) -> Locations {
        Locations {
            memory_dir: tmp.join("memory"),
            sessions_dir: tmp.join("s"),
            project_dir: tmp.to_path_buf(),
        }
    }

    fn manifest(task: &str) -> Manifest {
        let now: Timestamp = "2026-05-08T12:00:00Z".parse().unwrap();
        Manifest {
            task: task.into(),
            engine: "test".into(),
            started_at: now,
            ended_at: Some(now),
            summary: String::new(),
            changes: vec![],
            conflicts: vec![],
            undo_of: None,
            tokens: Default::default(),
            cost_usd: None,
            sessions_reviewed: 0,
        }
    }

    #[test]
    fn staging_skips_logs_state_lock_and_symlinks() {
        let tmp = tempfile::tempdir().unwrap();
        let l = loc(tmp.path());
        std::fs::create_dir_all(l.memory_dir.join("logs/2026/05")).unwrap();
        std::fs::create_dir_all(l.memory_dir.join(".dream")).unwrap();
        std::fs::write(l.memory_dir.join("MEMORY.md"), "x").unwrap();
        std::fs::write(l.memory_dir.join("a.md"), "a").unwrap();
        std::fs::write(l.memory_dir.join(LOCK_FILE), "").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", l.memory_dir.join("link.md")).unwrap();
        let s = prepare(&l, "t1").unwrap();
        assert_eq!(files_under(&s.work).into_iter().collect::<Vec<_>>(), ["MEMORY.md", "a.md"]);
    }

    #[test]
    fn apply_records_history_and_a_write_during_the_dream_survives() {
        let tmp = tempfile::tempdir().unwrap();
        let l = loc(tmp.path());
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
        let applied = apply(&l, &s, planned, manifest("t1")).unwrap();
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "dream a\n");
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("b.md")).unwrap(), "user b\n");
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("b.md.conflict-t1")).unwrap(), "dream b\n");
        assert_eq!(applied.conflicts, ["b.md"]);
        assert_eq!(applied.changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(), ["a.md", "c.md"]);
        let m = history::find(&l.memory_dir, None).unwrap();
        assert!(history::diff(&l.memory_dir, &m).contains("-old a\n+dream a\n"));
        // Undo restores byte-identically and removes the added file.
        let undone = history::undo(&l.memory_dir, &m, "u1", m.started_at, false).unwrap().unwrap();
        assert_eq!(undone.undo_of.as_deref(), Some("t1"));
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "old a\n");
        assert!(!l.memory_dir.join("c.md").exists());
    }

    #[test]
    fn undo_refuses_when_files_changed_since() {
        let tmp = tempfile::tempdir().unwrap();
        let l = loc(tmp.path());
        std::fs::create_dir_all(&l.memory_dir).unwrap();
        std::fs::write(l.memory_dir.join("a.md"), "old\n").unwrap();
        let s = prepare(&l, "t1").unwrap();
        std::fs::write(s.work.join("a.md"), "dream\n").unwrap();
        apply(&l, &s, plan(&s), manifest("t1")).unwrap();
        std::fs::write(l.memory_dir.join("a.md"), "edited after\n").unwrap();
        let m = history::find(&l.memory_dir, Some("t1")).unwrap();
        let refused = history::undo(&l.memory_dir, &m, "u1", m.started_at, false).unwrap().unwrap_err();
        assert_eq!(refused[0].path, "a.md");
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "edited after\n");
        history::undo(&l.memory_dir, &m, "u1", m.started_at, true).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "old\n");
    }

    #[test]
    fn an_interrupted_apply_rolls_forward() {
        let tmp = tempfile::tempdir().unwrap();
        let l = loc(tmp.path());
        std::fs::create_dir_all(&l.memory_dir).unwrap();
        std::fs::write(l.memory_dir.join("a.md"), "old a\n").unwrap();
        std::fs::write(l.memory_dir.join("b.md"), "old b\n").unwrap();
        let s = prepare(&l, "t1").unwrap();
        std::fs::write(s.work.join("a.md"), "new a\n").unwrap();
        std::fs::remove_file(s.work.join("b.md")).unwrap();
        // Simulate a crash right after the journal was written and one op was done.
        let journal = Journal {
            task: "t1".into(),
            staging: s.root.clone(),
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
}
