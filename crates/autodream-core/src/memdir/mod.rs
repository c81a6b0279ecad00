//! The memory directory: the user's data, which autodream must never lose.
//!
//! ```text
//! <memory>/
//!   MEMORY.md                   the index, loaded by the agent at every start
//!   <topic>.md                  topic files with optional YAML front matter
//!   logs/YYYY/MM/YYYY-MM-DD.md  append-only daily logs
//!   .consolidate-lock           the lock; its mtime is "last consolidated at"
//!   .dream/                     engine state: task, scan stamp, history, staging
//! ```

pub mod atomic_write;
pub mod daily_log;
pub mod index;
pub mod topic;

use std::path::{Path, PathBuf};

pub use atomic_write::write_atomic;

/// The index file's name.
pub const INDEX_FILE: &str = "MEMORY.md";
/// The daily logs folder.
pub const LOGS_DIR: &str = "logs";
/// autodream's own state folder.
pub const STATE_DIR: &str = ".dream";

/// The index a fresh memory directory starts with.
pub const INITIAL_INDEX: &str = "";

#[derive(Debug, thiserror::Error)]
pub enum MemdirError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Invalid(String),
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

/// Creates MEMORY.md, `logs/` and `.dream/` where missing; never overwrites anything.
pub fn init(memory_dir: &Path) -> Result<InitReport, MemdirError> {
    let mut report = InitReport::default();
    std::fs::create_dir_all(memory_dir).map_err(|e| MemdirError::io(memory_dir, e))?;
    for dir in [LOGS_DIR, STATE_DIR] {
        let p = memory_dir.join(dir);
        if p.is_dir() {
            report.existing.push(p);
        } else {
            std::fs::create_dir_all(&p).map_err(|e| MemdirError::io(&p, e))?;
            report.created.push(p);
        }
    }
    let index = memory_dir.join(INDEX_FILE);
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&index) {
        Ok(_) => report.created.push(index),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => report.existing.push(index),
        Err(e) => return Err(MemdirError::io(&index, e)),
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
