//! The memory directory: the user's data, which autodream must never lose.
//!
//! ```text
//! <memory>/
//!   MEMORY.md                   the index, loaded by the agent at every start
//!   <topic>.md                  topic files with optional YAML front matter
//!   logs/YYYY/MM/YYYY-MM-DD.md  append-only daily logs
//!   .consolidate-lock           the lock; its mtime is "last consolidated at"
//! ```
//! Nothing else: the client reads every `*.md` below the memory folder as a memory, so the
//! engine's state lives in its own folder ([`crate::paths::Locations::state_dir`]); a
//! `.dream/` left by an older autodream is moved there once ([`crate::dream::migrate`]).
//!
//! Nothing below the memory folder is ever written through a symbolic link: every writer
//! goes through [`safe_path::MemoryRoot`], which walks each path from the memory folder with
//! `openat(O_NOFOLLOW)` and refuses a link with an error naming it.

pub mod atomic_write;
pub mod daily_log;
pub mod index;
pub mod modified;
pub mod safe_path;
pub mod search;
pub mod topic;

use std::path::{Path, PathBuf};

pub use atomic_write::write_atomic;
pub use safe_path::{MemoryRoot, SafePathError};

/// The index file's name.
pub const INDEX_FILE: &str = "MEMORY.md";
/// Where hygiene moves index entries when the index is over its limits.
pub const OVERFLOW_FILE: &str = "index-overflow.md";
/// The daily logs folder.
pub const LOGS_DIR: &str = "logs";
/// The state folder older versions kept inside the memory folder (moved out once).
pub const LEGACY_STATE_DIR: &str = ".dream";
/// Inside the state folder: engine data a dream changes along with the memory (the offline
/// engine's `.engine/` records and `.archive/`), applied and undone in the same transaction.
pub use crate::paths::state::ENGINE_DATA_DIR;
/// The top-level names in a staging copy that belong to [`ENGINE_DATA_DIR`], not to the
/// memory folder.
pub const ENGINE_DATA_NAMES: &[&str] = &[".engine", ".archive"];

/// Whether a path of a staging copy (or of a dream's change set) is engine data
/// (`.engine/…`, `.archive/…`) rather than a memory file the agent reads.
pub fn is_engine_data(rel: &str) -> bool {
    rel.split('/').next().is_some_and(|top| ENGINE_DATA_NAMES.contains(&top))
}

/// The index a fresh memory directory starts with.
pub const INITIAL_INDEX: &str = "";

#[derive(Debug, thiserror::Error)]
pub enum MemdirError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Path(#[from] SafePathError),
}

impl MemdirError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        MemdirError::Io { path: path.into(), source }
    }
}

/// What `init` did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct InitReport {
    pub created: Vec<PathBuf>,
    pub existing: Vec<PathBuf>,
}

/// Creates MEMORY.md and `logs/` where missing; never overwrites anything.
/// A symbolic link in place of `logs/` is refused (autodream would write through it
/// later); a linked MEMORY.md is left alone.
pub fn init(memory_dir: &Path) -> Result<InitReport, MemdirError> {
    let mut report = InitReport::default();
    let root = MemoryRoot::create(memory_dir)?;
    let logs = memory_dir.join(LOGS_DIR);
    if root.ensure_dir(LOGS_DIR)? {
        report.created.push(logs);
    } else {
        report.existing.push(logs);
    }
    let index = memory_dir.join(INDEX_FILE);
    if root.create_new(INDEX_FILE, INITIAL_INDEX.as_bytes())? {
        report.created.push(index);
    } else {
        report.existing.push(index);
    }
    Ok(report)
}

/// Topic files: every `*.md` of the memory directory except MEMORY.md, `logs/` and
/// dot-folders, as paths relative to `memory_dir` with `/` separators, sorted.
/// Symbolic links are listed in `symlinks` and never followed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TopicListing {
    pub topics: Vec<String>,
    pub symlinks: Vec<String>,
}

pub fn list_topic_files(memory_dir: &Path) -> Result<TopicListing, MemdirError> {
    let mut out = TopicListing::default();
    walk(memory_dir, memory_dir, &mut out)?;
    out.topics.sort();
    out.symlinks.sort();
    Ok(out)
}

fn walk(root: &Path, dir: &Path, out: &mut TopicListing) -> Result<(), MemdirError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(MemdirError::io(dir, e)),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_symlink() {
            out.symlinks.push(rel);
        } else if ft.is_dir() {
            if dir == root && name == LOGS_DIR {
                continue;
            }
            walk(root, &path, out)?;
        } else if ft.is_file() && name.to_ascii_lowercase().ends_with(".md") && rel != INDEX_FILE {
            out.topics.push(rel);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let mem = tmp.path().join("memory");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&mem).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("keep.md"), "keep\n").unwrap();
        (tmp, mem, outside)
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn init_creates_what_is_missing_and_nothing_more() {
        let (_tmp, mem, _) = dirs();
        let first = init(&mem).unwrap();
        assert_eq!(first.created.len(), 2);
        assert_eq!(entries(&mem), ["MEMORY.md", "logs"]);
        let again = init(&mem).unwrap();
        assert!(again.created.is_empty());
        assert_eq!(again.existing.len(), 2);
    }

    #[test]
    fn init_refuses_a_linked_logs_folder() {
        let (_tmp, mem, outside) = dirs();
        symlink(&outside, mem.join(LOGS_DIR)).unwrap();
        let err = init(&mem).unwrap_err();
        assert!(
            matches!(&err, MemdirError::Path(e) if e.is_symlink())
                && err.to_string().contains(&format!("{LOGS_DIR} is a symbolic link")),
            "{err}"
        );
        assert_eq!(entries(&outside), ["keep.md"]);
    }

    #[test]
    fn init_leaves_a_linked_index_or_a_folder_linked_to_a_file_alone() {
        let (_tmp, mem, outside) = dirs();
        symlink(outside.join("keep.md"), mem.join(INDEX_FILE)).unwrap();
        let report = init(&mem).unwrap();
        assert!(report.existing.contains(&mem.join(INDEX_FILE)));
        assert_eq!(std::fs::read_to_string(outside.join("keep.md")).unwrap(), "keep\n");
        // `logs` as a link to a file is refused like a link to a folder.
        let (_tmp2, mem2, outside2) = dirs();
        symlink(outside2.join("keep.md"), mem2.join(LOGS_DIR)).unwrap();
        assert!(init(&mem2).is_err());
        assert_eq!(std::fs::read_to_string(outside2.join("keep.md")).unwrap(), "keep\n");
        assert_eq!(entries(&outside2), ["keep.md"]);
    }
}
