//! The dream as a transaction: staging copy, change set, journalled apply, recovery.
//!
//! ```text
//! <state>/staging/<task>/base/   the memory directory as the dream found it
//! <state>/staging/<task>/work/   the copy the engine edits
//! <state>/journal.json           present only while changes are being applied
//! ```
//! The staging copy holds the memory folder's files plus the engine data kept in
//! `<state>/data/` (`.engine/`, `.archive/`), at the same relative paths: an engine sees one
//! folder, and a change to engine data is applied, recorded and undone like a memory file,
//! only into `<state>/data/` instead of the memory folder ([`Roots::for_path`]).
//!
//! Apply order: originals and new versions into history, journal written, each file
//! renamed into place atomically, journal removed, staging removed. A crash before the
//! journal leaves the memory untouched; a crash after it is rolled forward by the next
//! command. A file that changed on disk during the dream keeps the disk version; the
//! dream's version is saved beside it as `<file>.conflict-<task>` and named in the summary.
//!
//! Symbolic links are never followed. The staging copy keeps them as links (so an engine
//! sees them, and its sandbox refuses to write through them as it would in the memory
//! folder), the change set lists regular files only, and every write into the memory folder
//! goes through [`MemoryRoot`], which walks each path without following links. A change
//! whose path passes through a link in the memory folder refuses the whole dream before
//! anything is written; a link swapped in while the changes are applied makes that write
//! fail, and the files already replaced are put back.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::history::{self, Action, Change, FileStamp, Manifest};
use super::{HISTORY_DIR, JOURNAL_FILE, LifecycleError, STAGING_DIR};
use crate::lock::LOCK_FILE;
use crate::memdir::{ENGINE_DATA_NAMES, LEGACY_STATE_DIR, LOGS_DIR, MemoryRoot};
use crate::paths::Locations;

/// Where an engine works during one dream.
#[derive(Debug, Clone)]
pub struct Staging {
    pub root: PathBuf,
    pub base: PathBuf,
    pub work: PathBuf,
}

/// The folders a dream writes: the memory folder, and the engine data in the state folder.
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
}

/// Whether a path of the staging copy is engine data (`.engine/…`, `.archive/…`).
pub fn is_engine_data(rel: &str) -> bool {
    rel.split('/').next().is_some_and(|top| ENGINE_DATA_NAMES.contains(&top))
}

/// Top-level names of the memory folder never copied into staging nor touched by apply.
fn is_excluded_top(name: &str) -> bool {
    name == LOGS_DIR || name == LEGACY_STATE_DIR || name == LOCK_FILE || ENGINE_DATA_NAMES.contains(&name)
}

/// `staging`, relative to the state folder.
fn staging_rel() -> PathBuf {
    PathBuf::from(STAGING_DIR)
}

/// Copies the memory directory (minus `logs/`, the lock and temporary files) and the engine
/// data into a fresh staging area in the state folder. Symbolic links are copied as links,
/// never followed.
pub fn prepare(loc: &Locations, task: &str) -> Result<Staging, LifecycleError> {
    let mem = MemoryRoot::create(&loc.memory_dir)?;
    let state = MemoryRoot::create(&loc.state_dir)?;
    let data = MemoryRoot::create(&loc.engine_data_dir())?;
    let rel = staging_rel().join(task);
    state.remove_dir_all(&rel)?;
    let root = loc.state_dir.join(&rel);
    let staging = Staging { base: root.join("base"), work: root.join("work"), root };
    let skip_memory = |path: &Path| {
        let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        (path.parent() == Some(Path::new("")) && is_excluded_top(&name)) || is_temp_file(&name)
    };
    let skip_data = |path: &Path| {
        let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        (path.parent() == Some(Path::new("")) && !ENGINE_DATA_NAMES.contains(&name.as_ref()))
            || is_temp_file(&name)
    };
    for sub in ["base", "work"] {
        mem.copy_tree_into("", &state, rel.join(sub), &skip_memory)?;
        data.copy_tree_into("", &state, rel.join(sub), &skip_data)?;
    }
    Ok(staging)
}

/// Temporary files of an atomic write in progress are not memory.
fn is_temp_file(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// Removes a staging copy (best effort), without following links.
pub fn discard(loc: &Locations, staging: &Staging) {
    if let Ok(rel) = staging.root.strip_prefix(&loc.state_dir)
        && let Ok(state) = MemoryRoot::open(&loc.state_dir)
    {
        let _ = state.remove_dir_all(rel);
    }
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
        .filter(|p| {
            !p.split('/')
                .next()
                .is_some_and(|top| top == LOGS_DIR || top == LEGACY_STATE_DIR || top == LOCK_FILE)
        })
        .filter_map(|p| {
            let base = std::fs::read(staging.base.join(&p)).ok();
            let work = std::fs::read(staging.work.join(&p)).ok();
            (base != work).then_some(Planned { path: p, base, work })
        })
        .collect()
}

/// Checks a plan against the memory directory before anything is written: a change whose
/// path passes through a symbolic link (a linked folder on the way) refuses the dream, with
/// an error naming the path and the link. Returns the changed paths that are links
/// themselves: those files are left alone (the link is kept, nothing is written through it).
pub fn check_plan(loc: &Locations, planned: &[Planned]) -> Result<Vec<String>, LifecycleError> {
    check_plan_in(&Roots::open(loc)?, planned)
}

fn check_plan_in(roots: &Roots, planned: &[Planned]) -> Result<Vec<String>, LifecycleError> {
    let mut linked = Vec::new();
    for p in planned {
        let root = roots.for_path(&p.path);
        let Some(link) = root.find_link(&p.path)? else { continue };
        if link == Path::new(&p.path) {
            linked.push(p.path.clone());
        } else {
            return Err(
                crate::memdir::SafePathError::Symlink { path: root.join(&p.path), component: link }.into()
            );
        }
    }
    Ok(linked)
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

/// A unit-test hook run before each file is applied (to change the disk mid-apply).
#[cfg(test)]
type ApplyHook = Box<dyn FnMut(&str)>;

#[cfg(test)]
thread_local! {
    static BEFORE_APPLY_OP: std::cell::RefCell<Option<ApplyHook>> = const { std::cell::RefCell::new(None) };
}

fn before_apply_op(_path: &str) {
    #[cfg(test)]
    BEFORE_APPLY_OP.with(|h| {
        if let Some(hook) = h.borrow_mut().as_mut() {
            hook(_path);
        }
    });
}

/// Applies a plan to the memory directory with a journal, recording history.
/// `manifest` gives the metadata; its `changes` and `conflicts` are filled in here.
pub fn apply(
    loc: &Locations,
    staging: &Staging,
    planned: Vec<Planned>,
    mut manifest: Manifest,
) -> Result<Applied, LifecycleError> {
    let roots = Roots::open(loc)?;
    let state = MemoryRoot::create(&loc.state_dir)?;
    // Nothing is written before every path has been checked.
    let linked = check_plan_in(&roots, &planned)?;
    let mut ops = Vec::new();
    let mut changes = Vec::new();
    let mut contents = Vec::new();
    let mut conflicts = Vec::new();
    for p in planned {
        if linked.contains(&p.path) {
            conflicts.push(format!("{} (a symbolic link on disk: left alone)", p.path));
            continue;
        }
        let root = roots.for_path(&p.path);
        let disk = root.read(&p.path)?;
        if disk != p.base {
            // Written during the dream: the disk wins; keep the dream's version beside it.
            if disk != p.work {
                if let Some(w) = &p.work {
                    root.write_atomic(format!("{}.conflict-{}", p.path, manifest.task), w)?;
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
    history::record(loc, &manifest, &contents)?;
    if ops.is_empty() {
        return Ok(Applied { changes, conflicts });
    }
    let journal = Journal { task: manifest.task.clone(), staging: staging.root.clone(), ops };
    let json = serde_json::to_vec_pretty(&journal).map_err(|e| LifecycleError::Invalid(e.to_string()))?;
    state.write_atomic(JOURNAL_FILE, &json)?;
    fault_delay();
    for (i, op) in journal.ops.iter().enumerate() {
        before_apply_op(&op.path);
        if let Err(e) = apply_op(roots.for_path(&op.path), &op.path, contents[i].1.as_deref()) {
            put_back(&roots, &state, &journal, &contents[..i]);
            return Err(e);
        }
        fault_delay();
    }
    state.remove_file(JOURNAL_FILE)?;
    Ok(Applied { changes, conflicts })
}

/// An apply failed part-way (a write refused): restores the files already replaced, then
/// forgets the journal and the history entry. When a file cannot be restored the journal
/// stays, and the next command finishes the apply instead.
fn put_back(roots: &Roots, state: &MemoryRoot, journal: &Journal, done: &[history::BeforeAfter]) {
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

/// A staged file named by a journal, relative to the state folder: only files inside its
/// staging area are read back.
fn staged_rel<'a>(state_dir: &Path, staged: &'a Path) -> Option<&'a Path> {
    staged.strip_prefix(state_dir).ok().filter(|rel| rel.starts_with(staging_rel()))
}

/// Finishes an apply interrupted by a crash: each op is rolled forward when the file is
/// still as the dream found it (or already done); a file changed since keeps the disk
/// version, and so does a path that now passes through a symbolic link. Returns a sentence
/// when there was a journal.
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
            Some(s) => staged_rel(&loc.state_dir, s).and_then(|rel| state.read(rel).ok().flatten()).map(Some),
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
    state.remove_file(JOURNAL_FILE)?;
    if let Some(rel) = staged_rel(&loc.state_dir, &journal.staging) {
        let _ = state.remove_dir_all(rel);
    }
    let mut s = format!("finished applying dream {} after a crash ({forward} files)", journal.task);
    if !kept.is_empty() {
        s.push_str(&format!("; kept newer versions of {}", kept.join(", ")));
    }
    if !refused.is_empty() {
        s.push_str(&format!("; left {} alone (a symbolic link on the path)", refused.join(", ")));
    }
    Ok(Some(s))
}

/// Removes staging copies left by dreams that are no longer running.
///
/// The folders are listed before the task is read: a dream saves its task before it creates
/// its staging copy, so a copy created after the listing is never touched, and one created
/// before it belongs to a task this reads as running.
pub fn remove_stale_staging(loc: &Locations) {
    if loc.state_dir.join(JOURNAL_FILE).exists() {
        return;
    }
    let Ok(state) = MemoryRoot::open(&loc.state_dir) else { return };
    let Ok(listed) = state.list(staging_rel()) else { return };
    let live = super::task::load(loc)
        .filter(|t| t.state == super::task::TaskState::Running && crate::lock::pid_alive(t.pid))
        .map(|t| t.id);
    for name in listed {
        if name.to_str() != live.as_deref() {
            let _ = state.remove_dir_all(staging_rel().join(name));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;
    use std::os::unix::fs::symlink;

    fn loc(tmp: &Path) -> Locations {
        Locations {
            memory_dir: tmp.join("memory"),
            state_dir: tmp.join("state"),
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
    fn staging_skips_logs_state_and_lock_and_keeps_links_as_links() {
        let tmp = tempfile::tempdir().unwrap();
        let l = loc(tmp.path());
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
        let l = loc(tmp);
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
        let err = apply(&l, &s, planned, manifest("t1")).unwrap_err();
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
        let applied = apply(&l, &s, plan(&s), manifest("t1")).unwrap();
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
            let err = apply(&l, &s, plan(&s), manifest("t1")).unwrap_err();
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
        let result = apply(&l, &s, planned, manifest("t1"));
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
            staging: s.root.clone(),
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
            apply(&l, &s, plan(&s), manifest("t1")).unwrap();
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
            let err = history::undo(&l, &m, "u1", m.started_at, true).unwrap_err();
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
        let m = history::find(&l, None).unwrap();
        assert!(history::diff(&l, &m).contains("-old a\n+dream a\n"));
        // Undo restores byte-identically and removes the added file.
        let undone = history::undo(&l, &m, "u1", m.started_at, false).unwrap().unwrap();
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
        let m = history::find(&l, Some("t1")).unwrap();
        let refused = history::undo(&l, &m, "u1", m.started_at, false).unwrap().unwrap_err();
        assert_eq!(refused[0].path, "a.md");
        assert_eq!(std::fs::read_to_string(l.memory_dir.join("a.md")).unwrap(), "edited after\n");
        history::undo(&l, &m, "u1", m.started_at, true).unwrap().unwrap();
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
