//! Access: opening what [`resolve`](Sandbox::resolve) returned without following a link
//! swapped in since (`openat(O_NOFOLLOW)` from a descriptor of the root), and atomic writes
//! inside the staging copy.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::{AccessError, Denial, Resolved, RootKind, Sandbox};

impl Sandbox {
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
