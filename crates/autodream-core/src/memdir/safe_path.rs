//! Writing inside the memory folder without ever following a symbolic link.
//!
//! The memory folder belongs to the user, and a symbolic link in it may lead anywhere. So
//! every write autodream makes below the memory folder — applying a dream, the hygiene pass,
//! undo, conflict files, `init`, the daily log, the lock, the staging copy and the engine's
//! state in `.dream/` — goes through a [`MemoryRoot`]: a descriptor of the memory folder,
//! opened once, from which each path is walked component by component with
//! `openat(O_NOFOLLOW | O_DIRECTORY)`. The memory folder itself may be a link (where memory
//! lives is the user's choice); anything below it that is a symbolic link refuses the
//! operation with [`SafePathError::Symlink`], which names the path and the link.
//!
//! Every step is taken relative to a descriptor that is already open, so a folder swapped for
//! a link after a check cannot redirect a write: the write lands in the folder that was opened,
//! or it is refused. It never lands outside.
//!
//! Writes are atomic: a temporary file created with `openat(O_CREAT | O_EXCL | O_NOFOLLOW)` in
//! the opened parent folder, `fsync`, `renameat` within that folder (which replaces a link
//! rather than following it), then `fsync` of the folder. A reader sees the old bytes or the
//! new bytes, never a mix, and a crash never leaves a half-written file.
//!
//! Paths are relative to the memory folder, `/`-separated: an absolute path, `..`, `.` or an
//! empty component (`a//b`, a trailing `/`) is refused.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use rustix::fs::{AtFlags, Dir, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;

/// Why a path inside the memory folder was refused or could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SafePathError {
    /// A component below the memory folder is a symbolic link.
    #[error("{path}: refused: {component} is a symbolic link, and autodream never writes through links")]
    Symlink {
        /// The whole path that was to be used.
        path: PathBuf,
        /// The link: the path up to and including the offending component.
        component: PathBuf,
    },
    /// A component that must be a folder is something else.
    #[error("{path}: {component} is not a folder")]
    NotADirectory { path: PathBuf, component: PathBuf },
    /// Not a relative path of plain components.
    #[error("{path}: {reason}")]
    InvalidPath { path: PathBuf, reason: &'static str },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

impl SafePathError {
    /// Was the path refused because of a symbolic link?
    pub fn is_symlink(&self) -> bool {
        matches!(self, SafePathError::Symlink { .. })
    }

    /// The I/O error kind (`NotFound`, …) of an ordinary failure.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        match self {
            SafePathError::Io { source, .. } => Some(source.kind()),
            _ => None,
        }
    }
}

impl From<SafePathError> for std::io::Error {
    fn from(e: SafePathError) -> Self {
        let kind = match &e {
            SafePathError::Io { source, .. } => source.kind(),
            SafePathError::InvalidPath { .. } => std::io::ErrorKind::InvalidInput,
            SafePathError::NotADirectory { .. } => std::io::ErrorKind::NotADirectory,
            SafePathError::Symlink { .. } => std::io::ErrorKind::PermissionDenied,
        };
        std::io::Error::new(kind, e)
    }
}

/// How [`MemoryRoot::write_atomic_with`] writes.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions<'a> {
    /// The modification time the file gets (default: now).
    pub mtime: Option<SystemTime>,
    /// A fixed name for the temporary file (default: `.<name>.<pid>.<n>.tmp`); a leftover of
    /// that name is removed first.
    pub temp_name: Option<&'a str>,
}

const DIR_FLAGS: OFlags =
    OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A folder descriptor on a walk: the root's own, or one opened below it.
enum DirFd<'a> {
    Root(BorrowedFd<'a>),
    Owned(OwnedFd),
}

impl AsFd for DirFd<'_> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            DirFd::Root(fd) => *fd,
            DirFd::Owned(fd) => fd.as_fd(),
        }
    }
}

/// The memory folder, open; every path below it is walked without following links.
#[derive(Debug)]
pub struct MemoryRoot {
    path: PathBuf,
    fd: OwnedFd,
}

impl AsFd for MemoryRoot {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl MemoryRoot {
    /// Opens an existing memory folder (the folder itself may be reached through links).
    pub fn open(path: &Path) -> Result<MemoryRoot, SafePathError> {
        let fd = rustix::fs::open(path, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| SafePathError::Io { path: path.to_path_buf(), source: e.into() })?;
        Ok(MemoryRoot { path: path.to_path_buf(), fd })
    }

    /// Creates the memory folder (and its parents) when missing, then opens it.
    pub fn create(path: &Path) -> Result<MemoryRoot, SafePathError> {
        std::fs::create_dir_all(path)
            .map_err(|e| SafePathError::Io { path: path.to_path_buf(), source: e })?;
        Self::open(path)
    }

    /// The folder as it was named when opened.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `rel` under the folder, for messages.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        let rel = rel.as_ref();
        if rel.as_os_str().is_empty() { self.path.clone() } else { self.path.join(rel) }
    }

    /// Splits `rel` into its components, refusing anything but plain names.
    /// `allow_root`: the empty path names the memory folder itself.
    fn components<'r>(&self, rel: &'r Path, allow_root: bool) -> Result<Vec<&'r OsStr>, SafePathError> {
        let bytes = rel.as_os_str().as_bytes();
        let invalid = |reason| Err(SafePathError::InvalidPath { path: self.join(rel), reason });
        if bytes.is_empty() {
            return if allow_root { Ok(Vec::new()) } else { invalid("an empty path names no file") };
        }
        if bytes.starts_with(b"/") {
            return invalid("an absolute path; paths inside the memory folder are relative to it");
        }
        let mut out = Vec::new();
        for part in bytes.split(|&b| b == b'/') {
            match part {
                b"" => return invalid("an empty path component (`//` or a trailing `/`)"),
                b"." => return invalid("`.` is not allowed in a path inside the memory folder"),
                b".." => return invalid("`..` is not allowed in a path inside the memory folder"),
                p if p.contains(&0) => return invalid("the path contains a NUL byte"),
                p => out.push(OsStr::from_bytes(p)),
            }
        }
        Ok(out)
    }

    /// The error for `errno` at component `index` of `comps` (opened in `parent`): a link,
    /// not a folder, or an ordinary failure.
    fn classify(
        &self,
        parent: &impl AsFd,
        rel: &Path,
        comps: &[&OsStr],
        index: usize,
        errno: Errno,
        want_dir: bool,
    ) -> SafePathError {
        let component = || comps[..=index].iter().collect::<PathBuf>();
        match errno {
            Errno::LOOP | Errno::MLINK | Errno::NOTDIR => {
                match rustix::fs::statat(parent, comps[index], AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Symlink => {
                        SafePathError::Symlink { path: self.join(rel), component: component() }
                    }
                    Ok(st) if want_dir && FileType::from_raw_mode(st.st_mode) != FileType::Directory => {
                        SafePathError::NotADirectory { path: self.join(rel), component: component() }
                    }
                    // `O_NOFOLLOW` said "a link" and the entry has changed since: still a link.
                    _ if errno != Errno::NOTDIR => {
                        SafePathError::Symlink { path: self.join(rel), component: component() }
                    }
                    _ => SafePathError::Io { path: self.join(rel), source: errno.into() },
                }
            }
            other => SafePathError::Io { path: self.join(rel), source: other.into() },
        }
    }

    /// Opens the folders `comps` one by one from the root, never following a link;
    /// `create` makes missing ones.
    fn open_dirs(&self, rel: &Path, comps: &[&OsStr], create: bool) -> Result<DirFd<'_>, SafePathError> {
        let mut fd = DirFd::Root(self.fd.as_fd());
        for (i, name) in comps.iter().enumerate() {
            let next = match rustix::fs::openat(&fd, *name, DIR_FLAGS, Mode::empty()) {
                Err(Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&fd, *name, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(self.classify(&fd, rel, comps, i, e, true)),
                    }
                    rustix::fs::openat(&fd, *name, DIR_FLAGS, Mode::empty())
                }
                other => other,
            };
            fd = DirFd::Owned(next.map_err(|e| self.classify(&fd, rel, comps, i, e, true))?);
        }
        Ok(fd)
    }

    /// Refuses when the last component of `comps` (in `dir`) is a symbolic link.
    fn refuse_link_at(
        &self,
        dir: &impl AsFd,
        rel: &Path,
        comps: &[&OsStr],
    ) -> Result<Option<rustix::fs::Stat>, SafePathError> {
        let last = comps.len() - 1;
        match rustix::fs::statat(dir, comps[last], AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Symlink => {
                Err(SafePathError::Symlink { path: self.join(rel), component: rel.to_path_buf() })
            }
            Ok(st) => Ok(Some(st)),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(SafePathError::Io { path: self.join(rel), source: e.into() }),
        }
    }

    /// The first component of `rel` that is a symbolic link (as the path up to it), walking
    /// no further than what exists. `None`: no link on the path.
    pub fn find_link(&self, rel: impl AsRef<Path>) -> Result<Option<PathBuf>, SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (_, dirs) = comps.split_last().expect("components are not empty");
        let dir = match self.open_dirs(rel, dirs, false) {
            Ok(d) => d,
            Err(SafePathError::Symlink { component, .. }) => return Ok(Some(component)),
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => return Ok(None),
            Err(e) => return Err(e),
        };
        match self.refuse_link_at(&dir, rel, &comps) {
            Ok(_) => Ok(None),
            Err(SafePathError::Symlink { component, .. }) => Ok(Some(component)),
            Err(e) => Err(e),
        }
    }

    /// Atomically creates or replaces the file `rel` with `contents`, creating missing folders.
    pub fn write_atomic(&self, rel: impl AsRef<Path>, contents: &[u8]) -> Result<(), SafePathError> {
        self.write_atomic_with(rel, contents, &WriteOptions::default())
    }

    /// [`MemoryRoot::write_atomic`] with a set modification time or temporary-file name.
    pub fn write_atomic_with(
        &self,
        rel: impl AsRef<Path>,
        contents: &[u8],
        opts: &WriteOptions<'_>,
    ) -> Result<(), SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (name, dirs) = comps.split_last().expect("components are not empty");
        let dir = self.open_dirs(rel, dirs, true)?;
        self.refuse_link_at(&dir, rel, &comps)?;
        let temp: OsString = match opts.temp_name {
            Some(t) => {
                let _ = rustix::fs::unlinkat(&dir, t, AtFlags::empty());
                t.into()
            }
            None => temp_name(name),
        };
        let io = |e: std::io::Error| SafePathError::Io { path: self.join(rel), source: e };
        let fd = rustix::fs::openat(
            &dir,
            temp.as_os_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
        .map_err(|e| io(e.into()))?;
        let mut file = File::from(fd);
        let written = (|| {
            file.write_all(contents)?;
            if let Some(t) = opts.mtime {
                file.set_modified(t)?;
            }
            file.sync_all()
        })();
        drop(file);
        let renamed = written
            .and_then(|()| rustix::fs::renameat(&dir, temp.as_os_str(), &dir, *name).map_err(Into::into));
        if let Err(e) = renamed {
            let _ = rustix::fs::unlinkat(&dir, temp.as_os_str(), AtFlags::empty());
            return Err(io(e));
        }
        let _ = rustix::fs::fsync(&dir);
        Ok(())
    }

    /// Creates the folder `rel` and its missing parents; a link on the way is refused.
    pub fn create_dir_all(&self, rel: impl AsRef<Path>) -> Result<(), SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, true)?;
        self.open_dirs(rel, &comps, true).map(drop)
    }

    /// Creates the folder `rel` (parents too) unless it exists; returns whether it was created.
    /// An existing link in its place is refused, never taken for the folder.
    pub fn ensure_dir(&self, rel: impl AsRef<Path>) -> Result<bool, SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (name, dirs) = comps.split_last().expect("components are not empty");
        let parent = self.open_dirs(rel, dirs, true)?;
        let created = match rustix::fs::mkdirat(&parent, *name, Mode::from_raw_mode(0o777)) {
            Ok(()) => true,
            Err(Errno::EXIST) => false,
            Err(e) => return Err(self.classify(&parent, rel, &comps, comps.len() - 1, e, true)),
        };
        rustix::fs::openat(&parent, *name, DIR_FLAGS, Mode::empty())
            .map_err(|e| self.classify(&parent, rel, &comps, comps.len() - 1, e, true))?;
        Ok(created)
    }

    /// Creates the file `rel` with `contents` unless something of that name exists (a link
    /// included: it is left alone, never written through); returns whether it was created.
    pub fn create_new(&self, rel: impl AsRef<Path>, contents: &[u8]) -> Result<bool, SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (name, dirs) = comps.split_last().expect("components are not empty");
        let dir = self.open_dirs(rel, dirs, true)?;
        let fd = match rustix::fs::openat(
            &dir,
            *name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(fd) => fd,
            Err(Errno::EXIST) => return Ok(false),
            Err(e) => return Err(SafePathError::Io { path: self.join(rel), source: e.into() }),
        };
        let mut file = File::from(fd);
        file.write_all(contents)
            .and_then(|()| file.sync_all())
            .map_err(|e| SafePathError::Io { path: self.join(rel), source: e })?;
        let _ = rustix::fs::fsync(&dir);
        Ok(true)
    }

    /// Opens a regular file for appending (`O_APPEND`), creating it and its folders.
    pub fn open_append(&self, rel: impl AsRef<Path>) -> Result<File, SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (name, dirs) = comps.split_last().expect("components are not empty");
        let dir = self.open_dirs(rel, dirs, true)?;
        // O_NONBLOCK: a FIFO in the file's place cannot hang the open (and it changes nothing
        // for a regular file).
        let fd = rustix::fs::openat(
            &dir,
            *name,
            OFlags::WRONLY
                | OFlags::APPEND
                | OFlags::CREATE
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
        .map_err(|e| self.classify(&dir, rel, &comps, comps.len() - 1, e, false))?;
        self.regular(fd, rel)
    }

    /// Appends `bytes` in one `write` under an advisory lock, creating the file and its folders.
    pub fn append(&self, rel: impl AsRef<Path>, bytes: &[u8]) -> Result<(), SafePathError> {
        let rel = rel.as_ref();
        let mut f = self.open_append(rel)?;
        let io = |e| SafePathError::Io { path: self.join(rel), source: e };
        // The advisory lock keeps cooperating writers (and readers taking a cursor) in order;
        // O_APPEND plus a single write already keeps each line whole.
        f.lock().map_err(io)?;
        let res = f.write_all(bytes);
        let _ = f.unlock();
        res.map_err(io)
    }

    /// Checks that an opened descriptor is a regular file.
    fn regular(&self, fd: OwnedFd, rel: &Path) -> Result<File, SafePathError> {
        let st = rustix::fs::fstat(&fd)
            .map_err(|e| SafePathError::Io { path: self.join(rel), source: e.into() })?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(SafePathError::Io {
                path: self.join(rel),
                source: std::io::Error::other("not a regular file"),
            });
        }
        Ok(File::from(fd))
    }

    /// Reads the regular file `rel`; `None` when it (or a folder on its path) does not exist,
    /// or is not a regular file. A link on the path is refused.
    pub fn read(&self, rel: impl AsRef<Path>) -> Result<Option<Vec<u8>>, SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (name, dirs) = comps.split_last().expect("components are not empty");
        let dir = match self.open_dirs(rel, dirs, false) {
            Ok(d) => d,
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => return Ok(None),
            Err(e) => return Err(e),
        };
        let fd = match rustix::fs::openat(
            &dir,
            *name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(self.classify(&dir, rel, &comps, comps.len() - 1, e, false)),
        };
        let st = rustix::fs::fstat(&fd)
            .map_err(|e| SafePathError::Io { path: self.join(rel), source: e.into() })?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        File::from(fd)
            .read_to_end(&mut bytes)
            .map_err(|e| SafePathError::Io { path: self.join(rel), source: e })?;
        Ok(Some(bytes))
    }

    /// Removes the file `rel`; returns whether there was one. A link on the path, or in the
    /// file's place, is refused.
    pub fn remove_file(&self, rel: impl AsRef<Path>) -> Result<bool, SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (name, dirs) = comps.split_last().expect("components are not empty");
        let dir = match self.open_dirs(rel, dirs, false) {
            Ok(d) => d,
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => return Ok(false),
            Err(e) => return Err(e),
        };
        if self.refuse_link_at(&dir, rel, &comps)?.is_none() {
            return Ok(false);
        }
        match rustix::fs::unlinkat(&dir, *name, AtFlags::empty()) {
            Ok(()) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(SafePathError::Io { path: self.join(rel), source: e.into() }),
        }
    }

    /// Removes the folders above `rel` that are empty, deepest first, never the memory folder
    /// itself; stops at the first that is not empty (best effort).
    pub fn remove_empty_parents(&self, rel: impl AsRef<Path>) {
        let rel = rel.as_ref();
        let Ok(comps) = self.components(rel, false) else { return };
        let dirs = &comps[..comps.len() - 1];
        let mut chain = vec![DirFd::Root(self.fd.as_fd())];
        for name in dirs {
            match rustix::fs::openat(chain.last().expect("not empty"), *name, DIR_FLAGS, Mode::empty()) {
                Ok(fd) => chain.push(DirFd::Owned(fd)),
                Err(_) => return,
            }
        }
        for i in (0..dirs.len()).rev() {
            chain.truncate(i + 1);
            if rustix::fs::unlinkat(&chain[i], dirs[i], AtFlags::REMOVEDIR).is_err() {
                break;
            }
        }
    }

    /// The names in the folder `rel` (`""`: the memory folder), sorted; empty when it does
    /// not exist. A link on the path is refused.
    pub fn list(&self, rel: impl AsRef<Path>) -> Result<Vec<OsString>, SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, true)?;
        let dir = match self.open_dirs(rel, &comps, false) {
            Ok(d) => d,
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        names(&dir).map_err(|e| SafePathError::Io { path: self.join(rel), source: e })
    }

    /// Renames `from` to `to` (both files inside the memory folder; `to`'s folder must exist).
    /// A link on either folder path is refused; a link named `from` is moved, not followed.
    pub fn rename(&self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> Result<(), SafePathError> {
        let (from, to) = (from.as_ref(), to.as_ref());
        let from_comps = self.components(from, false)?;
        let to_comps = self.components(to, false)?;
        let (from_name, from_dirs) = from_comps.split_last().expect("components are not empty");
        let (to_name, to_dirs) = to_comps.split_last().expect("components are not empty");
        let from_dir = self.open_dirs(from, from_dirs, false)?;
        // Within one folder (the usual case) the folder is walked once.
        let other_dir = if from_dirs == to_dirs { None } else { Some(self.open_dirs(to, to_dirs, false)?) };
        let to_dir = other_dir.as_ref().unwrap_or(&from_dir);
        rustix::fs::renameat(&from_dir, *from_name, to_dir, *to_name)
            .map_err(|e| SafePathError::Io { path: self.join(from), source: e.into() })?;
        let _ = rustix::fs::fsync(to_dir);
        Ok(())
    }

    /// Sets the modification time of the existing regular file `rel` (never of a link's target).
    pub fn set_mtime(&self, rel: impl AsRef<Path>, mtime: SystemTime) -> Result<(), SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (name, dirs) = comps.split_last().expect("components are not empty");
        let dir = self.open_dirs(rel, dirs, false)?;
        let fd = rustix::fs::openat(
            &dir,
            *name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| self.classify(&dir, rel, &comps, comps.len() - 1, e, false))?;
        self.regular(fd, rel)?
            .set_modified(mtime)
            .map_err(|e| SafePathError::Io { path: self.join(rel), source: e })
    }

    /// Creates the regular file `rel` when missing (folders too) and sets its modification time.
    pub fn touch(&self, rel: impl AsRef<Path>, mtime: SystemTime) -> Result<(), SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (name, dirs) = comps.split_last().expect("components are not empty");
        let dir = self.open_dirs(rel, dirs, true)?;
        let fd = rustix::fs::openat(
            &dir,
            *name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
        .map_err(|e| self.classify(&dir, rel, &comps, comps.len() - 1, e, false))?;
        self.regular(fd, rel)?
            .set_modified(mtime)
            .map_err(|e| SafePathError::Io { path: self.join(rel), source: e })
    }
}

/// `.<name>.<pid>.<n>.tmp`: hidden, unique in this process, recognisable as a temporary file.
fn temp_name(name: &OsStr) -> OsString {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut t = OsString::from(".");
    t.push(name);
    t.push(format!(".{}.{n}.tmp", std::process::id()));
    t
}

/// The entry names of an open folder, without `.` and `..`, sorted.
fn names(dir: &impl AsFd) -> std::io::Result<Vec<OsString>> {
    let mut out = Vec::new();
    for entry in Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            out.push(OsString::from_vec(name.to_vec()));
        }
    }
    out.sort();
    Ok(out)
}

/// Locks a folder (`flock`) for the life of the returned guard.
pub struct FolderLock<'a>(BorrowedFd<'a>);

impl MemoryRoot {
    /// Takes an exclusive advisory lock on the memory folder itself until the guard drops.
    pub fn lock(&self) -> Result<FolderLock<'_>, SafePathError> {
        rustix::fs::flock(&self.fd, FlockOperation::LockExclusive)
            .map_err(|e| SafePathError::Io { path: self.path.clone(), source: e.into() })?;
        Ok(FolderLock(self.fd.as_fd()))
    }
}

impl Drop for FolderLock<'_> {
    fn drop(&mut self) {
        let _ = rustix::fs::flock(self.0, FlockOperation::Unlock);
    }
}

mod tree;

#[cfg(test)]
mod tests;
