//! Path resolution and file access for the agent's tools: the part of the sandbox that
//! decides which file a path names, and opens it without being fooled.
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

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::fmt;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

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

    /// Resolves a path given by the model (absolute, or relative to the memory dir).
    /// A missing file (when reading) is an ordinary failure, not a denial.
    pub fn resolve(&self, raw: &str, access: Access) -> Result<Resolved, AccessError> {
        let path = self.lexical_check(raw)?;
        let (root_index, rel) = self.match_root(&path).ok_or_else(|| {
            deny(format!(
                "{raw}: outside the folders this dream may use. Readable: {}. Relative paths are taken \
                 from the memory dir.",
                self.describe_roots()
            ))
        })?;
        let root = &self.roots[root_index];
        if access == Access::Write && root.kind == RootKind::Logs {
            return Err(deny(format!(
                "{raw}: the daily logs are an append-only input and are not rewritten by a dream; put what \
                 they teach into topic files"
            )));
        }
        if access == Access::Write && root.kind != RootKind::Memory {
            return Err(deny(format!(
                "{raw}: writes are allowed only inside the memory dir {} (this path is in the {}, which is \
                 read-only)",
                self.memory_root().display.display(),
                root.kind.label()
            )));
        }
        let (rel, exists) = self.walk(root_index, raw, rel, access)?;
        if access == Access::Write {
            self.check_memory_write_policy(raw, &rel)?;
        }
        Ok(Resolved {
            root: root_index,
            kind: root.kind,
            display: join_rel(&root.display, &rel),
            backing: join_rel(&root.backing, &rel),
            rel,
            exists,
        })
    }

    /// Refusals that need no file system access.
    fn lexical_check(&self, raw: &str) -> Result<PathBuf, Denial> {
        if raw.trim().is_empty() {
            return Err(Denial("empty path: name a file, e.g. MEMORY.md or an absolute path".into()));
        }
        if raw.contains('\0') {
            return Err(Denial("the path contains a NUL byte; paths must be plain text".into()));
        }
        if raw.len() > MAX_PATH_BYTES {
            return Err(Denial(format!(
                "the path is {} bytes long; the limit is {MAX_PATH_BYTES}",
                raw.len()
            )));
        }
        if raw.starts_with('~') {
            return Err(Denial(format!(
                "{raw}: `~` is not expanded here; use the absolute path (memory dir: {})",
                self.memory_root().display.display()
            )));
        }
        let given = Path::new(raw);
        let absolute =
            if given.is_absolute() { given.to_path_buf() } else { self.memory_root().display.join(given) };
        let mut clean = PathBuf::new();
        for component in absolute.components() {
            match component {
                Component::RootDir | Component::Prefix(_) => clean.push(component.as_os_str()),
                Component::CurDir => {}
                Component::ParentDir => {
                    return Err(Denial(format!(
                        "{raw}: `..` is not allowed in paths; name the file by its path inside the memory \
                         dir or by its absolute path"
                    )));
                }
                Component::Normal(name) => {
                    if name.len() > MAX_COMPONENT_BYTES {
                        return Err(Denial(format!(
                            "{raw}: a path component is {} bytes long; the limit is {MAX_COMPONENT_BYTES}",
                            name.len()
                        )));
                    }
                    clean.push(name);
                }
            }
        }
        Ok(clean)
    }

    /// The root containing `path` (longest match over every spelling of every root), and the
    /// components below it.
    fn match_root(&self, path: &Path) -> Option<(usize, PathBuf)> {
        let mut best: Option<(usize, usize, PathBuf)> = None;
        for (index, root) in self.roots.iter().enumerate() {
            for form in std::iter::once(&root.display).chain(root.aliases.iter()) {
                if let Ok(rest) = path.strip_prefix(form) {
                    let depth = form.components().count();
                    if best.as_ref().is_none_or(|(_, d, _)| depth > *d) {
                        best = Some((index, depth, rest.to_path_buf()));
                    }
                }
            }
        }
        best.map(|(index, _, rest)| (index, rest))
    }

    /// Walks `rel` under the root's backing folder against the file system, following only
    /// the links the policy allows. Returns the link-free relative path and whether it exists.
    fn walk(
        &self,
        root_index: usize,
        raw: &str,
        rel: PathBuf,
        access: Access,
    ) -> Result<(PathBuf, bool), AccessError> {
        let root = &self.roots[root_index];
        let mut pending: VecDeque<PathBuf> = rel.components().map(|c| PathBuf::from(c.as_os_str())).collect();
        let mut done = PathBuf::new();
        let mut hops = 0usize;
        while let Some(name) = pending.pop_front() {
            let name_os = name.as_os_str();
            if name_os == "." {
                continue;
            }
            if name_os == ".." {
                // Only link targets can bring `..` here; `done` has no links, so popping is exact.
                if !done.pop() {
                    return Err(deny(format!(
                        "{raw}: a symbolic link on this path leads outside the {} {}",
                        root.kind.label(),
                        root.display.display()
                    )));
                }
                continue;
            }
            let candidate = root.backing.join(&done).join(name_os);
            if self.is_fenced(root_index, &candidate) {
                return Err(deny(format!(
                    "{raw}: memory files are reached through the memory dir {} only",
                    self.memory_root().display.display()
                )));
            }
            match std::fs::symlink_metadata(&candidate) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if access == Access::Read {
                        return Err(AccessError::Failed(format!("{raw}: no such file or folder")));
                    }
                    done.push(name_os);
                    for rest in pending.drain(..) {
                        let rest_os = rest.as_os_str();
                        if rest_os == ".." || rest_os == "." {
                            return Err(deny(format!(
                                "{raw}: a symbolic link on this path points at a missing place"
                            )));
                        }
                        done.push(rest_os);
                    }
                    return Ok((done, false));
                }
                Err(e) => return Err(deny(format!("{raw}: cannot inspect: {e}"))),
                Ok(meta) if meta.file_type().is_symlink() => {
                    if matches!(root.kind, RootKind::Memory | RootKind::Logs) {
                        return Err(deny(format!(
                            "{raw}: is or passes through a symbolic link; memory files are never read or \
                             written through links"
                        )));
                    }
                    hops += 1;
                    if hops > MAX_LINK_HOPS {
                        return Err(deny(format!("{raw}: too many symbolic links")));
                    }
                    let target = std::fs::read_link(&candidate)
                        .map_err(|e| deny(format!("{raw}: cannot read a symbolic link: {e}")))?;
                    let mut replacement: Vec<PathBuf> = Vec::new();
                    if target.is_absolute() {
                        let inside = std::iter::once(&root.display)
                            .chain(root.aliases.iter())
                            .find_map(|form| target.strip_prefix(form).ok());
                        let Some(inside) = inside else {
                            return Err(deny(format!(
                                "{raw}: a symbolic link on this path leads outside the {} {}",
                                root.kind.label(),
                                root.display.display()
                            )));
                        };
                        done = PathBuf::new();
                        replacement.extend(inside.components().map(|c| PathBuf::from(c.as_os_str())));
                    } else {
                        replacement.extend(target.components().map(|c| PathBuf::from(c.as_os_str())));
                    }
                    for part in replacement.into_iter().rev() {
                        pending.push_front(part);
                    }
                }
                Ok(meta) => {
                    if !pending.is_empty() && !meta.is_dir() {
                        return Err(AccessError::Failed(format!(
                            "{raw}: {} is not a folder",
                            join_rel(&root.display, &done.join(name_os)).display()
                        )));
                    }
                    done.push(name_os);
                }
            }
        }
        Ok((done, true))
    }

    /// What may be written inside the memory dir: Markdown files, not the daily logs (an
    /// append-only input), not hidden engine state.
    fn check_memory_write_policy(&self, raw: &str, rel: &Path) -> Result<(), Denial> {
        let mut components = rel.components();
        let Some(first) = components.next() else {
            return Err(Denial(format!("{raw}: this is the memory dir itself; name a file inside it")));
        };
        let first = first.as_os_str().to_string_lossy();
        if first.starts_with('.')
            || rel.components().any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        {
            return Err(Denial(format!(
                "{raw}: hidden files and folders (like .dream/ and .consolidate-lock) belong to the engine; \
                 write topic files at the top level of the memory dir"
            )));
        }
        if first == "logs" {
            return Err(Denial(format!(
                "{raw}: the daily logs are an append-only input and are not rewritten by a dream; put what \
                 they teach into topic files"
            )));
        }
        if rel.extension().and_then(OsStr::to_str) != Some("md") {
            return Err(Denial(format!("{raw}: memory files are Markdown; use a name ending in .md")));
        }
        Ok(())
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

    // ---- access -------------------------------------------------------------------------

    /// Opens the folder of root `root` itself.
    fn open_root(&self, root: usize) -> Result<OwnedFd, AccessError> {
        rustix::fs::open(
            &self.roots[root].backing,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| AccessError::Failed(format!("cannot open {}: {e}", self.roots[root].display.display())))
    }

    /// Walks `dirs` from `start` without following links; `create` makes missing folders.
    fn walk_dirs(
        &self,
        start: OwnedFd,
        dirs: &Path,
        display: &Path,
        create: bool,
    ) -> Result<OwnedFd, AccessError> {
        let mut fd = start;
        for component in dirs.components() {
            let name = component.as_os_str();
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let next = match rustix::fs::openat(&fd, name, flags, Mode::empty()) {
                Err(Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&fd, name, Mode::from_raw_mode(0o755)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => {
                            return Err(AccessError::Failed(format!(
                                "{}: cannot create folder: {e}",
                                display.display()
                            )));
                        }
                    }
                    rustix::fs::openat(&fd, name, flags, Mode::empty())
                }
                other => other,
            };
            fd = next.map_err(|e| swapped_or_failed(display, e))?;
        }
        Ok(fd)
    }

    /// Opens an existing regular file for reading, refusing links on every component.
    pub fn open_file(&self, resolved: &Resolved) -> Result<File, AccessError> {
        let root_fd = self.open_root(resolved.root)?;
        let parent = resolved.rel.parent().unwrap_or(Path::new(""));
        let Some(name) = resolved.rel.file_name() else {
            return Err(AccessError::Failed(format!(
                "{}: is a folder, not a file",
                resolved.display.display()
            )));
        };
        let dir = self.walk_dirs(root_fd, parent, &resolved.display, false)?;
        // O_NONBLOCK so a FIFO cannot hang the open; it has no effect on regular files.
        let fd = rustix::fs::openat(
            &dir,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| swapped_or_failed(&resolved.display, e))?;
        let stat = rustix::fs::fstat(&fd)
            .map_err(|e| AccessError::Failed(format!("{}: {e}", resolved.display.display())))?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => {}
            FileType::Directory => {
                return Err(AccessError::Failed(format!(
                    "{}: is a folder; use List or Glob",
                    resolved.display.display()
                )));
            }
            _ => {
                return Err(AccessError::Denied(Denial(format!(
                    "{}: not a regular file",
                    resolved.display.display()
                ))));
            }
        }
        self.verify_opened(&fd, resolved)?;
        Ok(File::from(fd))
    }

    /// Opens an existing folder (for listing), refusing links on every component.
    pub fn open_dir(&self, resolved: &Resolved) -> Result<OwnedFd, AccessError> {
        let root_fd = self.open_root(resolved.root)?;
        let fd = self.walk_dirs(root_fd, &resolved.rel, &resolved.display, false)?;
        self.verify_opened(&fd, resolved)?;
        Ok(fd)
    }

    /// Re-checks where an opened descriptor really is (Linux: `/proc/self/fd`), as a second
    /// line of defence behind the `O_NOFOLLOW` walk.
    fn verify_opened(&self, fd: &impl AsFd, resolved: &Resolved) -> Result<(), AccessError> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let link = format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd());
            if let Ok(real) = std::fs::read_link(link) {
                let backing = &self.roots[resolved.root].backing;
                if !real.starts_with(backing) {
                    return Err(AccessError::Denied(Denial(format!(
                        "{}: the file turned out to be outside the {} when opened",
                        resolved.display.display(),
                        self.roots[resolved.root].kind.label()
                    ))));
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (fd, resolved);
        Ok(())
    }

    /// Reads a whole file as UTF-8 text, refusing files over `max_bytes`.
    pub fn read_to_string(&self, resolved: &Resolved, max_bytes: u64) -> Result<String, AccessError> {
        use std::io::Read;
        let file = self.open_file(resolved)?;
        let mut text = String::new();
        let read = file.take(max_bytes + 1).read_to_string(&mut text).map_err(|e| {
            AccessError::Failed(format!("{}: cannot read as UTF-8 text: {e}", resolved.display.display()))
        })?;
        if read as u64 > max_bytes {
            return Err(AccessError::Failed(format!(
                "{}: larger than {max_bytes} bytes; read it in parts with offset and limit",
                resolved.display.display()
            )));
        }
        Ok(text)
    }

    /// Atomically creates or replaces a memory file: temporary file in the same folder,
    /// `fsync`, `renameat` (which replaces a link rather than following it), `fsync` the folder.
    pub fn write_file(&self, resolved: &Resolved, contents: &[u8]) -> Result<(), AccessError> {
        if resolved.kind != RootKind::Memory {
            return Err(AccessError::Denied(Denial(format!(
                "{}: writes are allowed only inside the memory dir",
                resolved.display.display()
            ))));
        }
        let Some(name) = resolved.rel.file_name() else {
            return Err(AccessError::Failed("cannot write the memory dir itself".into()));
        };
        let root_fd = self.open_root(resolved.root)?;
        let parent = resolved.rel.parent().unwrap_or(Path::new(""));
        let dir = self.walk_dirs(root_fd, parent, &resolved.display, true)?;
        self.verify_opened(&dir, &Resolved { rel: parent.to_path_buf(), ..resolved.clone() })?;
        let temp_name =
            format!(".{}.tmp-{}-{:08x}", name.to_string_lossy(), std::process::id(), rand::random::<u32>());
        let fd = rustix::fs::openat(
            &dir,
            temp_name.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .map_err(|e| AccessError::Failed(format!("{}: cannot create: {e}", resolved.display.display())))?;
        let mut file = File::from(fd);
        let written = file.write_all(contents).and_then(|()| file.sync_all());
        if let Err(e) = written {
            let _ = rustix::fs::unlinkat(&dir, temp_name.as_str(), AtFlags::empty());
            return Err(AccessError::Failed(format!("{}: cannot write: {e}", resolved.display.display())));
        }
        drop(file);
        if let Err(e) = rustix::fs::renameat(&dir, temp_name.as_str(), &dir, name) {
            let _ = rustix::fs::unlinkat(&dir, temp_name.as_str(), AtFlags::empty());
            return Err(AccessError::Failed(format!("{}: cannot replace: {e}", resolved.display.display())));
        }
        let _ = rustix::fs::fsync(&dir);
        Ok(())
    }
}

fn deny(message: String) -> AccessError {
    AccessError::Denied(Denial(message))
}

fn swapped_or_failed(display: &Path, errno: Errno) -> AccessError {
    match errno {
        Errno::LOOP | Errno::NOTDIR | Errno::MLINK => AccessError::Denied(Denial(format!(
            "{}: a symbolic link appeared on this path while it was being opened; refused",
            display.display()
        ))),
        Errno::NOENT => AccessError::Failed(format!("{}: no such file or folder", display.display())),
        other => AccessError::Failed(format!("{}: {other}", display.display())),
    }
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
