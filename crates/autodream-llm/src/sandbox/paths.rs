//! The paths room of the sandbox: which file a path names, and opening it without being
//! fooled. Every tool of the API engine goes through it.
//!
//! The model names files by the paths it was told about: the real memory dir, the sessions
//! dir and (when enabled) the project dir. The memory dir is virtual: everything under it is
//! served from — and written to — the staging copy the lifecycle handed us, so the real
//! memory dir is never touched while a dream runs.
//!
//! A path is resolved component by component against the real file system:
//! - a NUL byte, an over-long path or component, `~` and `..` are refused outright;
//! - the absolute path must lie under one of the roots, compared by whole components (so
//!   `memory-evil/` is not inside `memory/`); the longest matching root wins, because the
//!   memory dir usually sits inside the sessions dir;
//! - every existing component is `lstat`ed: inside the memory dir a symbolic link is never
//!   followed; elsewhere a link is followed only when its target stays inside the same root
//!   (`/proc/self/root/...` and friends therefore fall outside and are refused);
//! - the real memory dir and the staging folder are not reachable through another root.
//!
//! The staging copy keeps the memory dir's symbolic links as links, so a link planted in the
//! memory dir is refused here exactly as it would be in the real folder (a write never turns
//! a linked folder into a real one in staging). What the dream leaves in staging is applied
//! by the lifecycle through `autodream_core::memdir::MemoryRoot`, which refuses links too.
//!
//! Resolution yields a path relative to the root's backing folder that contains no links.
//! Opening then walks that path again with `openat(O_NOFOLLOW)` from a descriptor of the
//! root, so a component swapped for a symbolic link between the check and the use makes the
//! open fail instead of escaping. Writes are atomic (temporary file, `fsync`, `renameat`)
//! and happen only inside the staging copy.
//!
//! The two halves have a file each: `resolve` (which file a path names) and `open` (opening
//! and writing it); this file holds the roots and the types they share.

use std::fmt;
use std::path::{Path, PathBuf};

mod open;
mod resolve;

/// Longest path (in bytes) a tool accepts; Linux's own limit.
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest single path component (in bytes).
pub const MAX_COMPONENT_BYTES: usize = 255;
/// Symbolic links followed while resolving one path, like the kernel's limit.
const MAX_LINK_HOPS: usize = 40;

/// Which readable folder a path belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootKind {
    /// The memory dir (backed by the staging copy; the only writable root).
    Memory,
    /// The folder of session transcripts.
    Sessions,
    /// The project the agent works in.
    Project,
    /// The daily logs (`<memory>/logs/`): the lifecycle does not copy them into staging, so
    /// they are read from the real memory dir, and never written.
    Logs,
}

impl RootKind {
    pub fn label(self) -> &'static str {
        match self {
            RootKind::Memory => "memory dir",
            RootKind::Sessions => "sessions dir",
            RootKind::Project => "project dir",
            RootKind::Logs => "daily logs folder",
        }
    }
}

/// One readable folder.
#[derive(Debug, Clone)]
pub struct Root {
    pub kind: RootKind,
    /// The path the model is told about (as configured).
    pub display: PathBuf,
    /// Other spellings that name the same folder (its canonical path; for the memory dir
    /// also the staging path, which may leak into command output).
    aliases: Vec<PathBuf>,
    /// Where the bytes are, canonical: the staging copy for the memory dir.
    pub backing: PathBuf,
}

/// The folders a dream may touch.
#[derive(Debug, Clone)]
pub struct SandboxRoots<'a> {
    pub memory_dir: &'a Path,
    pub staging: &'a Path,
    pub sessions_dir: &'a Path,
    /// `None` when the project is not readable in this dream.
    pub project_dir: Option<&'a Path>,
}

/// What the caller wants to do with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read a file or list a folder that must exist.
    Read,
    /// Create or replace a file (memory dir only); the file and its parents may be missing.
    Write,
}

/// A refused path or operation, phrased so the model can act on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial(pub String);

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Denial {}

/// Why a file operation on a resolved path failed.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// The sandbox refused (counts as a denial).
    #[error("{0}")]
    Denied(Denial),
    /// An ordinary failure (missing file, not UTF-8, …): reported to the model, not a denial.
    #[error("{0}")]
    Failed(String),
}

impl From<Denial> for AccessError {
    fn from(d: Denial) -> Self {
        AccessError::Denied(d)
    }
}

/// Building a sandbox failed (a root does not exist).
#[derive(Debug, thiserror::Error)]
#[error("cannot use {what} {path}: {source}")]
pub struct SandboxError {
    pub what: &'static str,
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// A path the sandbox accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Index into [`Sandbox::roots`].
    pub root: usize,
    pub kind: RootKind,
    /// Components below the root's backing folder; no links, no `..`.
    pub rel: PathBuf,
    /// The path in the model's terms.
    pub display: PathBuf,
    /// The real location (under the staging copy for memory paths).
    pub backing: PathBuf,
    /// Whether the path existed at resolution time.
    pub exists: bool,
}

/// The resolver and opener every tool goes through.
#[derive(Debug, Clone)]
pub struct Sandbox {
    roots: Vec<Root>,
    /// Canonical folders that no root other than the memory root may reach into: the real
    /// memory dir (served from staging instead) and the staging copy itself.
    fenced: Vec<PathBuf>,
}

fn canonical(what: &'static str, path: &Path) -> Result<PathBuf, SandboxError> {
    std::fs::canonicalize(path).map_err(|source| SandboxError { what, path: path.to_path_buf(), source })
}

impl Sandbox {
    /// Builds the sandbox; every root must exist.
    pub fn new(roots: SandboxRoots<'_>) -> Result<Sandbox, SandboxError> {
        let staging = canonical("staging folder", roots.staging)?;
        let memory_real = std::fs::canonicalize(roots.memory_dir).ok();
        let mut memory_aliases = vec![staging.clone()];
        if let Some(real) = &memory_real {
            memory_aliases.push(real.clone());
        }
        let mut list = vec![Root {
            kind: RootKind::Memory,
            display: roots.memory_dir.to_path_buf(),
            aliases: memory_aliases,
            backing: staging.clone(),
        }];
        // The daily logs stay in the real memory dir (a real folder, never a link).
        let logs_display = roots.memory_dir.join(autodream_core::memdir::LOGS_DIR);
        if std::fs::symlink_metadata(&logs_display).is_ok_and(|m| m.is_dir())
            && let Ok(logs_real) = std::fs::canonicalize(&logs_display)
        {
            list.push(Root {
                kind: RootKind::Logs,
                display: logs_display,
                aliases: vec![logs_real.clone(), staging.join(autodream_core::memdir::LOGS_DIR)],
                backing: logs_real,
            });
        }
        let sessions = canonical("sessions dir", roots.sessions_dir)?;
        list.push(Root {
            kind: RootKind::Sessions,
            display: roots.sessions_dir.to_path_buf(),
            aliases: vec![sessions.clone()],
            backing: sessions,
        });
        if let Some(project) = roots.project_dir {
            let real = canonical("project dir", project)?;
            list.push(Root {
                kind: RootKind::Project,
                display: project.to_path_buf(),
                aliases: vec![real.clone()],
                backing: real,
            });
        }
        let mut fenced = vec![staging];
        fenced.extend(memory_real);
        Ok(Sandbox { roots: list, fenced })
    }

    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    pub fn root(&self, kind: RootKind) -> Option<&Root> {
        self.roots.iter().find(|r| r.kind == kind)
    }

    /// The index of the root of `kind`, if there is one.
    pub fn root_index(&self, kind: RootKind) -> Option<usize> {
        self.roots.iter().position(|r| r.kind == kind)
    }

    /// The root folder of `kind` itself, as a resolved path.
    pub fn resolved_root(&self, kind: RootKind) -> Option<Resolved> {
        let index = self.root_index(kind)?;
        let root = &self.roots[index];
        Some(Resolved {
            root: index,
            kind,
            rel: PathBuf::new(),
            display: root.display.clone(),
            backing: root.backing.clone(),
            exists: true,
        })
    }

    /// The memory root (always present).
    pub fn memory_root(&self) -> &Root {
        &self.roots[0]
    }

    /// Canonical folders other roots must not reach into (see [`Sandbox::is_fenced`]).
    pub fn fenced(&self) -> &[PathBuf] {
        &self.fenced
    }

    /// Whether `backing_path` (under root `root`) lies inside a folder fenced off from it: the
    /// sessions and project roots may not reach the memory dir or the staging copy.
    pub fn is_fenced(&self, root: usize, backing_path: &Path) -> bool {
        matches!(self.roots[root].kind, RootKind::Sessions | RootKind::Project)
            && self.fenced.iter().any(|f| backing_path.starts_with(f))
    }

    /// A short description of the readable folders, for denial messages.
    pub fn describe_roots(&self) -> String {
        let parts: Vec<String> =
            self.roots.iter().map(|r| format!("the {} {}", r.kind.label(), r.display.display())).collect();
        parts.join(", ")
    }

    /// Maps a real path (e.g. printed by a command) back to the model's terms.
    pub fn display_for_backing(&self, path: &Path) -> Option<PathBuf> {
        self.roots
            .iter()
            .filter_map(|r| path.strip_prefix(&r.backing).ok().map(|rest| (r, rest)))
            .max_by_key(|(r, _)| r.backing.components().count())
            .map(|(r, rest)| join_rel(&r.display, rest))
    }

    /// Replaces every backing-folder prefix in `text` with the folder the model knows.
    pub fn display_text(&self, text: &str) -> String {
        let mut pairs: Vec<(String, String)> = self
            .roots
            .iter()
            .filter(|r| r.backing != r.display)
            .map(|r| (r.backing.to_string_lossy().into_owned(), r.display.to_string_lossy().into_owned()))
            .collect();
        // Longest first, so a staging folder inside the sessions dir is mapped as a whole.
        pairs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        let mut out = text.to_string();
        for (from, to) in pairs {
            if !from.is_empty() {
                out = out.replace(&from, &to);
            }
        }
        out
    }
}

fn deny(message: String) -> AccessError {
    AccessError::Denied(Denial(message))
}

/// `base/rel`, without a trailing separator when `rel` is empty.
fn join_rel(base: &Path, rel: &Path) -> PathBuf {
    if rel.as_os_str().is_empty() { base.to_path_buf() } else { base.join(rel) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> (tempfile::TempDir, Sandbox) {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        std::fs::create_dir_all(base.join("projects/p/memory")).unwrap();
        std::fs::create_dir_all(base.join("staging")).unwrap();
        std::fs::write(base.join("staging/MEMORY.md"), "- [A](a.md) — a\n").unwrap();
        std::fs::write(base.join("projects/p/s1.jsonl"), "{}\n").unwrap();
        let sandbox = Sandbox::new(SandboxRoots {
            memory_dir: &base.join("projects/p/memory"),
            staging: &base.join("staging"),
            sessions_dir: &base.join("projects/p"),
            project_dir: None,
        })
        .unwrap();
        (tmp, sandbox)
    }

    #[test]
    fn memory_paths_map_to_staging_and_relative_paths_start_at_the_memory_dir() {
        let (tmp, sb) = fixture();
        let r = sb.resolve("MEMORY.md", Access::Read).unwrap();
        assert_eq!(r.kind, RootKind::Memory);
        assert_eq!(r.display, tmp.path().join("projects/p/memory/MEMORY.md"));
        assert!(r.backing.ends_with("staging/MEMORY.md"));
        let text = sb.read_to_string(&r, 1000).unwrap();
        assert!(text.contains("[A](a.md)"));
    }

    #[test]
    fn the_memory_dir_wins_over_the_sessions_dir_that_contains_it() {
        let (tmp, sb) = fixture();
        let raw = tmp.path().join("projects/p/memory/MEMORY.md");
        let r = sb.resolve(raw.to_str().unwrap(), Access::Read).unwrap();
        assert_eq!(r.kind, RootKind::Memory);
        let s = sb.resolve(tmp.path().join("projects/p/s1.jsonl").to_str().unwrap(), Access::Read).unwrap();
        assert_eq!(s.kind, RootKind::Sessions);
    }

    #[test]
    fn display_text_maps_staging_back_to_the_memory_dir() {
        let (tmp, sb) = fixture();
        let staging = std::fs::canonicalize(tmp.path().join("staging")).unwrap();
        let line = format!("{}/MEMORY.md:1:- [A](a.md)", staging.display());
        let shown = sb.display_text(&line);
        assert_eq!(
            shown,
            format!("{}/MEMORY.md:1:- [A](a.md)", tmp.path().join("projects/p/memory").display())
        );
    }

    #[test]
    fn writes_create_parents_inside_staging_only() {
        let (tmp, sb) = fixture();
        let r = sb.resolve("notes/new.md", Access::Write).unwrap();
        assert!(!r.exists);
        sb.write_file(&r, b"hello").unwrap();
        assert_eq!(std::fs::read_to_string(tmp.path().join("staging/notes/new.md")).unwrap(), "hello");
        assert!(!tmp.path().join("projects/p/memory/notes").exists());
    }
}
