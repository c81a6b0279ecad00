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
//! The changes reach the memory folder through [`journal::commit`]: a crash before the
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

use super::history::{self, Action, Change, FileStamp, Manifest};
use super::journal::{self, Roots};
use super::{JOURNAL_FILE, LifecycleError, STAGING_DIR};
use crate::lock::{ConsolidationLock, LOCK_FILE};
use crate::memdir::{ENGINE_DATA_NAMES, LEGACY_STATE_DIR, LOGS_DIR, MemoryRoot};
use crate::paths::Locations;

/// Where an engine works during one dream.
#[derive(Debug, Clone)]
pub struct Staging {
    pub root: PathBuf,
    pub base: PathBuf,
    pub work: PathBuf,
}

/// Top-level names of the memory folder never copied into staging nor touched by apply.
fn is_excluded_top(name: &str) -> bool {
    name == LOGS_DIR || name == LEGACY_STATE_DIR || name == LOCK_FILE || ENGINE_DATA_NAMES.contains(&name)
}

/// `staging`, relative to the state folder.
fn staging_rel() -> PathBuf {
    PathBuf::from(STAGING_DIR)
}

/// Where the staging copy of task `task` lives.
pub(crate) fn staging_dir(loc: &Locations, task: &str) -> PathBuf {
    loc.state_dir.join(staging_rel()).join(task)
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

/// A unified diff of a plan (dry runs): memory files in full, engine data in one line each.
pub fn plan_diff(planned: &[Planned]) -> String {
    let changes: Vec<history::ChangedFile<'_>> = planned
        .iter()
        .map(|p| history::ChangedFile {
            path: &p.path,
            action: Action::between(&p.base, &p.work),
            before: p.base.as_deref().unwrap_or_default(),
            after: p.work.as_deref().unwrap_or_default(),
        })
        .collect();
    history::render_changes(&changes, history::EngineData::Summary { all_flag: false })
}

/// The outcome of applying a plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    pub changes: Vec<Change>,
    pub conflicts: Vec<String>,
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
    // Nothing is written before every path has been checked.
    let linked = check_plan_in(&roots, &planned)?;
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
        let action = Action::between(&p.base, &p.work);
        changes.push(Change {
            path: p.path.clone(),
            action,
            before: p.base.as_deref().map(FileStamp::of),
            after: p.work.as_deref().map(FileStamp::of),
        });
        contents.push((p.base, p.work));
    }
    manifest.changes = changes.clone();
    manifest.conflicts = conflicts.clone();
    journal::commit(loc, &roots, &manifest, &contents, Some(&staging.root))?;
    Ok(Applied { changes, conflicts })
}

/// Removes staging copies left by dreams that are no longer running.
///
/// The folders are listed before the lock is read: a dream creates its staging copy only
/// while it holds the lock and removes it before it lets go, so a copy created after the
/// listing is never touched, and one listed while a live holder has the lock is left to it.
/// The task alone cannot say which copy is live: a dream writes its final state into the task
/// file after it lets go of the lock, so for a moment the file can name a finished dream
/// while the next one already stages.
pub fn remove_stale_staging(loc: &Locations, lock: &ConsolidationLock) {
    if loc.state_dir.join(JOURNAL_FILE).exists() {
        return;
    }
    let Ok(state) = MemoryRoot::open(&loc.state_dir) else { return };
    let Ok(listed) = state.list(staging_rel()) else { return };
    if listed.is_empty() || lock.state().is_held() {
        return;
    }
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
mod tests;
