//! The journal: how a set of file changes reaches the memory folder all or nothing.
//!
//! A dream's apply and an undo are the same operation on different change sets, so both go
//! through [`commit`]:
//!
//! 1. the bytes of every change, before and after, are saved under `<state>/history/<task>/`;
//! 2. `<state>/journal.json` is written atomically, naming each file's expected current hash,
//!    its new hash, and where its new bytes wait (the history's `after/`), with the record
//!    (`manifest.json`) that the change set makes;
//! 3. each file is replaced atomically (or deleted);
//! 4. the record is saved, the journal removed.
//!
//! A kill before step 2 leaves the memory folder untouched and no record (a history folder
//! without `manifest.json` is not a dream). A kill after it is rolled forward by the next
//! command ([`recover_journal`]): every file still as it was is replaced, every file already
//! replaced is left, and the record is saved. So the memory folder holds the state before or
//! the state after, never a mix, and history never names a change that did not happen.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::history::{self, BeforeAfter, Manifest};
use super::{HISTORY_DIR, JOURNAL_FILE, LifecycleError, STAGING_DIR};
use crate::memdir::{MemoryRoot, is_engine_data};
use crate::paths::Locations;
use crate::paths::state::PENDING_DIR;

/// The folders a change set writes: the memory folder, and the engine data in the state folder.
pub(crate) struct Roots {
    pub memory: MemoryRoot,
    pub data: MemoryRoot,
}

impl Roots {
    /// Opens the memory folder (which must exist) and the engine data folder (created).
    pub fn open(loc: &Locations) -> Result<Roots, LifecycleError> {
        Ok(Roots {
            memory: MemoryRoot::open(&loc.memory_dir)?,
            data: MemoryRoot::create(&loc.engine_data_dir())?,
        })
    }

    /// The root a relative path of the staging copy belongs to.
    pub fn for_path(&self, rel: &str) -> &MemoryRoot {
        if is_engine_data(rel) { &self.data } else { &self.memory }
    }

    /// Refuses a change set any of whose paths passes through a symbolic link, before
    /// anything is written.
    pub fn refuse_links<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Result<(), LifecycleError> {
        for path in paths {
            let root = self.for_path(path);
            if let Some(link) = root.find_link(path)? {
                return Err(
                    crate::memdir::SafePathError::Symlink { path: root.join(path), component: link }.into()
                );
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct JournalOp {
    pub path: String,
    /// Where the new content waits (`None`: delete).
    pub staged: Option<PathBuf>,
    /// Hash of the disk file when the op was decided (`None`: absent).
    pub expect_before: Option<String>,
    /// Hash of the new content (`None`: deleted).
    pub after: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Journal {
    pub task: String,
    /// A staging copy to remove once the journal is done (a dream's; an undo has none).
    #[serde(default)]
    pub staging: Option<PathBuf>,
    pub ops: Vec<JournalOp>,
    /// The record the change set makes, saved when the changes are in place. Journals
    /// written before the record moved here have none (theirs was saved first).
    #[serde(default)]
    pub manifest: Option<Manifest>,
}

fn fault_delay() {
    // A test hook: slows the apply loop so fault-injection tests can kill mid-apply.
    if let Some(ms) = std::env::var("AUTODREAM_FAULT_DELAY_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        std::thread::sleep(Duration::from_millis(ms));
    }
}

/// A unit-test hook run before each file is applied (to change the disk mid-apply).
#[cfg(test)]
pub(crate) type ApplyHook = Box<dyn FnMut(&str)>;

#[cfg(test)]
thread_local! {
    pub(crate) static BEFORE_APPLY_OP: std::cell::RefCell<Option<ApplyHook>> =
        const { std::cell::RefCell::new(None) };
}

fn before_apply_op(_path: &str) {
    #[cfg(test)]
    BEFORE_APPLY_OP.with(|h| {
        if let Some(hook) = h.borrow_mut().as_mut() {
            hook(_path);
        }
    });
}

/// Applies the change set `manifest.changes` (with each change's bytes in `contents`) under
/// the journal, and records it in history. `staging` is removed by a recovery that finishes
/// the job. On a refused write the files already replaced are put back and nothing is recorded.
pub(crate) fn commit(
    loc: &Locations,
    roots: &Roots,
    manifest: &Manifest,
    contents: &[BeforeAfter],
    staging: Option<&Path>,
) -> Result<(), LifecycleError> {
    let state = MemoryRoot::create(&loc.state_dir)?;
    history::record_contents(loc, manifest, contents)?;
    if manifest.changes.is_empty() {
        return history::save_manifest(loc, manifest);
    }
    let ops = manifest
        .changes
        .iter()
        .zip(contents)
        .map(|(change, (before, after))| JournalOp {
            path: change.path.clone(),
            staged: after.as_ref().map(|_| history::side_path(loc, &manifest.task, "after", &change.path)),
            expect_before: before.as_deref().map(history::sha256_hex),
            after: after.as_deref().map(history::sha256_hex),
        })
        .collect();
    let journal = Journal {
        task: manifest.task.clone(),
        staging: staging.map(Path::to_path_buf),
        ops,
        manifest: Some(manifest.clone()),
    };
    let json = serde_json::to_vec_pretty(&journal).map_err(|e| LifecycleError::Invalid(e.to_string()))?;
    state.write_atomic(JOURNAL_FILE, &json)?;
    fault_delay();
    for (i, op) in journal.ops.iter().enumerate() {
        before_apply_op(&op.path);
        if let Err(e) = apply_op(roots.for_path(&op.path), &op.path, contents[i].1.as_deref()) {
            put_back(roots, &state, &journal, &contents[..i]);
            return Err(e);
        }
        fault_delay();
    }
    history::save_manifest(loc, manifest)?;
    state.remove_file(JOURNAL_FILE)?;
    Ok(())
}

/// An apply failed part-way (a write refused): restores the files already replaced, then
/// forgets the journal and the history entry. When a file cannot be restored the journal
/// stays, and the next command finishes the apply instead.
fn put_back(roots: &Roots, state: &MemoryRoot, journal: &Journal, done: &[BeforeAfter]) {
    let restored = journal
        .ops
        .iter()
        .zip(done)
        .all(|(op, (before, _))| apply_op(roots.for_path(&op.path), &op.path, before.as_deref()).is_ok());
    if restored {
        let _ = state.remove_file(JOURNAL_FILE);
        let _ = state.remove_dir_all(Path::new(HISTORY_DIR).join(&journal.task));
    }
}

/// Writes `new` to `path` (`None`: deletes it); idempotent, so recovery can run it again.
pub(crate) fn apply_op(root: &MemoryRoot, path: &str, new: Option<&[u8]>) -> Result<(), LifecycleError> {
    match new {
        Some(bytes) => root.write_atomic(path, bytes)?,
        None => {
            root.remove_file(path)?;
            // Empty folders left by a deleted file are removed (never the memory root).
            root.remove_empty_parents(path);
        }
    }
    Ok(())
}

/// A file named by a journal, relative to the state folder: only files inside the staging
/// area, a pending dream's copy or the history are read back.
pub(crate) fn staged_rel<'a>(state_dir: &Path, staged: &'a Path) -> Option<&'a Path> {
    staged
        .strip_prefix(state_dir)
        .ok()
        .filter(|rel| {
            rel.starts_with(STAGING_DIR) || rel.starts_with(HISTORY_DIR) || rel.starts_with(PENDING_DIR)
        })
        .filter(|rel| !rel.components().any(|c| matches!(c, std::path::Component::ParentDir)))
}

/// Finishes a change set interrupted by a crash: each op is rolled forward when the file is
/// still as it was found (or already done); a file changed since keeps the disk version, and
/// so does a path that now passes through a symbolic link. The record is saved. Returns a
/// sentence when there was a journal.
pub fn recover_journal(loc: &Locations) -> Result<Option<String>, LifecycleError> {
    let journal_path = loc.state_dir.join(JOURNAL_FILE);
    let Ok(text) = std::fs::read_to_string(&journal_path) else { return Ok(None) };
    let state = MemoryRoot::open(&loc.state_dir)?;
    let journal: Journal = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(_) => {
            // A journal is written atomically, so a broken one was never acted on.
            let _ = state.remove_file(JOURNAL_FILE);
            return Ok(Some("removed an unreadable journal (no change had been applied)".into()));
        }
    };
    let roots = Roots::open(loc)?;
    let mut forward = 0;
    let mut kept = Vec::new();
    let mut refused = Vec::new();
    for op in &journal.ops {
        let root = roots.for_path(&op.path);
        let disk = match root.read(&op.path) {
            Ok(bytes) => bytes.map(|b| history::sha256_hex(&b)),
            Err(e) if e.is_symlink() => {
                refused.push(op.path.clone());
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        if disk == op.after {
            continue;
        }
        let staged = match &op.staged {
            None => Some(None),
            Some(s) => staged_rel(&loc.state_dir, s)
                .and_then(|rel| state.read(rel).ok().flatten())
                .filter(|bytes| op.after.as_deref() == Some(history::sha256_hex(bytes).as_str()))
                .map(Some),
        };
        match staged {
            Some(new) if disk == op.expect_before => match apply_op(root, &op.path, new.as_deref()) {
                Ok(()) => forward += 1,
                Err(LifecycleError::Path(e)) if e.is_symlink() => refused.push(op.path.clone()),
                Err(e) => return Err(e),
            },
            _ => kept.push(op.path.clone()),
        }
    }
    if let Some(manifest) = &journal.manifest {
        history::save_manifest(loc, manifest)?;
    }
    state.remove_file(JOURNAL_FILE)?;
    if let Some(rel) = journal.staging.as_deref().and_then(|s| staged_rel(&loc.state_dir, s)) {
        let _ = state.remove_dir_all(rel);
    }
    let what = match journal.manifest.as_ref().and_then(|m| m.undo_of.as_deref()) {
        Some(undone) => format!("finished undoing dream {undone} after a crash"),
        None => format!("finished applying dream {} after a crash", journal.task),
    };
    let mut s = format!("{what} ({forward} files)");
    if !kept.is_empty() {
        s.push_str(&format!("; kept newer versions of {}", kept.join(", ")));
    }
    if !refused.is_empty() {
        s.push_str(&format!("; left {} alone (a symbolic link on the path)", refused.join(", ")));
    }
    Ok(Some(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dream::transaction::{apply, plan, prepare};
    use crate::dream::undo::restore;

    /// The memory folder's files and their text, sorted.
    type Files = Vec<(String, String)>;

    fn files(l: &Locations) -> Files {
        let mut out: Vec<_> = crate::dream::transaction::files_under(&l.memory_dir)
            .into_iter()
            .map(|p| {
                let text = std::fs::read_to_string(l.memory_dir.join(&p)).unwrap();
                (p, text)
            })
            .collect();
        out.sort();
        out
    }

    /// A memory of three files and a dream that changes one, deletes one and adds one.
    fn dreamt(l: &Locations) -> (Files, Files) {
        std::fs::create_dir_all(&l.memory_dir).unwrap();
        std::fs::write(l.memory_dir.join("a.md"), "old a\n").unwrap();
        std::fs::write(l.memory_dir.join("b.md"), "old b\n").unwrap();
        std::fs::write(l.memory_dir.join("MEMORY.md"), "index\n").unwrap();
        let pre = files(l);
        let s = prepare(l, "t1").unwrap();
        std::fs::write(s.work.join("a.md"), "dream a\n").unwrap();
        std::fs::remove_file(s.work.join("b.md")).unwrap();
        std::fs::write(s.work.join("c.md"), "dream c\n").unwrap();
        apply(l, &s, plan(&s), Manifest::for_test("t1")).unwrap();
        (pre, files(l))
    }

    /// Runs `f`, stopping it dead (a panic, so nothing after that point runs: no put-back)
    /// just before the `n`-th file is written.
    fn crash_before_op<T>(n: usize, f: impl FnOnce() -> T) -> bool {
        let mut seen = 0;
        BEFORE_APPLY_OP.with(|h| {
            *h.borrow_mut() = Some(Box::new(move |_| {
                seen += 1;
                if seen == n {
                    panic!("simulated crash");
                }
            }))
        });
        let crashed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
        BEFORE_APPLY_OP.with(|h| *h.borrow_mut() = None);
        crashed
    }

    #[test]
    fn an_undo_stopped_between_two_files_is_finished_by_recovery_and_recorded() {
        for n in 1..=3 {
            let tmp = tempfile::tempdir().unwrap();
            let l = Locations::under(tmp.path());
            let (pre, post) = dreamt(&l);
            let m = history::find(&l, Some("t1")).unwrap();
            assert!(crash_before_op(n, || restore(&l, &m, "undo-t1", m.started_at, false)), "op {n}");
            let now = files(&l);
            assert!(now != pre && (n == 1 || now != post), "op {n}: the crash left a half state to recover");
            assert!(
                history::list(&l).iter().all(|m| m.undo_of.is_none()),
                "op {n}: an undo is recorded only once it is in place"
            );
            let said = recover_journal(&l).unwrap().unwrap();
            assert!(said.starts_with("finished undoing dream t1 after a crash"), "{said}");
            assert_eq!(files(&l), pre, "op {n}: recovery finishes the undo");
            let undo = history::find(&l, Some("undo-t1")).unwrap();
            assert_eq!(undo.undo_of.as_deref(), Some("t1"));
            assert!(!l.state_dir.join(JOURNAL_FILE).exists());
            // The dream counts as undone: a plain undo finds nothing left.
            assert!(history::latest_undoable(&l).is_err());
        }
    }

    #[test]
    fn a_change_set_stopped_before_its_journal_is_not_recorded_and_leaves_the_memory_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let l = Locations::under(tmp.path());
        let (_, post) = dreamt(&l);
        let m = history::find(&l, Some("t1")).unwrap();
        // Contents saved, then a crash before the journal: as if the undo never started.
        let contents: Vec<BeforeAfter> = vec![(Some(b"dream a\n".to_vec()), Some(b"old a\n".to_vec()))];
        let mut undo = Manifest::for_test("undo-t1");
        undo.undo_of = Some("t1".into());
        undo.changes = vec![m.changes[0].clone()];
        history::record_contents(&l, &undo, &contents).unwrap();
        assert_eq!(files(&l), post);
        assert_eq!(history::list(&l).len(), 1, "a history folder without its manifest is no record");
        assert_eq!(recover_journal(&l).unwrap(), None);
        history::remove_unrecorded(&l);
        assert!(!history::entry_dir(&l, "undo-t1").exists());
        assert!(history::entry_dir(&l, "t1").exists());
        assert_eq!(history::latest_undoable(&l).unwrap().task, "t1");
    }

    #[test]
    fn a_dream_stopped_mid_apply_is_recorded_only_by_the_recovery_that_finishes_it() {
        let tmp = tempfile::tempdir().unwrap();
        let l = Locations::under(tmp.path());
        std::fs::create_dir_all(&l.memory_dir).unwrap();
        std::fs::write(l.memory_dir.join("a.md"), "old a\n").unwrap();
        std::fs::write(l.memory_dir.join("b.md"), "old b\n").unwrap();
        let s = prepare(&l, "t1").unwrap();
        std::fs::write(s.work.join("a.md"), "dream a\n").unwrap();
        std::fs::write(s.work.join("b.md"), "dream b\n").unwrap();
        assert!(crash_before_op(2, || apply(&l, &s, plan(&s), Manifest::for_test("t1"))));
        assert!(history::list(&l).is_empty());
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("b.md")).unwrap(), "old b\n");
        recover_journal(&l).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "dream a\n");
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("b.md")).unwrap(), "dream b\n");
        assert_eq!(history::list(&l).len(), 1);
        assert!(!s.root.exists(), "the staging copy goes with the journal");
    }

    #[test]
    fn a_staged_file_whose_bytes_are_not_the_journals_is_never_written() {
        let tmp = tempfile::tempdir().unwrap();
        let l = Locations::under(tmp.path());
        let (_, post) = dreamt(&l);
        let m = history::find(&l, Some("t1")).unwrap();
        assert!(crash_before_op(1, || restore(&l, &m, "undo-t1", m.started_at, false)));
        // Something replaced the waiting bytes of a.md in the history.
        std::fs::write(history::side_path(&l, "undo-t1", "after", "a.md"), "tampered\n").unwrap();
        let said = recover_journal(&l).unwrap().unwrap();
        assert!(said.contains("kept newer versions of a.md"), "{said}");
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "dream a\n");
        assert_ne!(files(&l), post, "the other files were restored");
    }
}
