//! Whole folders inside a root: removing one and copying one (the staging copies), never
//! following a link on either side.

use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::{DIR_FLAGS, MemoryRoot, SafePathError, names};

impl MemoryRoot {
    /// Removes the folder `rel` and everything in it, without following a link anywhere.
    /// Returns whether it existed. A link in its place, or on its path, is refused.
    pub fn remove_dir_all(&self, rel: impl AsRef<Path>) -> Result<bool, SafePathError> {
        let rel = rel.as_ref();
        let comps = self.components(rel, false)?;
        let (name, dirs) = comps.split_last().expect("components are not empty");
        let parent = match self.open_dirs(rel, dirs, false) {
            Ok(d) => d,
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => return Ok(false),
            Err(e) => return Err(e),
        };
        if self.refuse_link_at(&parent, rel, &comps)?.is_none() {
            return Ok(false);
        }
        remove_tree(&parent, name).map_err(|e| SafePathError::Io { path: self.join(rel), source: e })?;
        Ok(true)
    }

    /// Copies the folder `from` into the folder `to` (created when missing), both inside the
    /// memory folder. Files keep their permissions; symbolic links are copied as links (the
    /// same target text) and never followed; other kinds of entries are left out, and so is
    /// every entry for which `skip` (given the path below `from`) says so.
    pub fn copy_tree(
        &self,
        from: impl AsRef<Path>,
        to: impl AsRef<Path>,
        skip: &dyn Fn(&Path) -> bool,
    ) -> Result<(), SafePathError> {
        self.copy_tree_into(from, self, to, skip)
    }

    /// [`copy_tree`](Self::copy_tree) into a folder below another root (`to` may be empty:
    /// the root itself), with the same guarantees on both sides.
    pub fn copy_tree_into(
        &self,
        from: impl AsRef<Path>,
        dest: &MemoryRoot,
        to: impl AsRef<Path>,
        skip: &dyn Fn(&Path) -> bool,
    ) -> Result<(), SafePathError> {
        let (from, to) = (from.as_ref(), to.as_ref());
        let from_comps = self.components(from, true)?;
        let to_comps = dest.components(to, true)?;
        let src = self.open_dirs(from, &from_comps, false)?;
        let dst = dest.open_dirs(to, &to_comps, true)?;
        copy_dir(&src, &dst, Path::new(""), skip)
            .map_err(|(below, e)| SafePathError::Io { path: self.join(from).join(below), source: e })
    }
}

/// Removes `name` (a folder in `parent`) and everything in it, never following a link.
fn remove_tree(parent: &impl AsFd, name: &OsStr) -> std::io::Result<()> {
    let dir = match rustix::fs::openat(parent, name, DIR_FLAGS, Mode::empty()) {
        Ok(d) => d,
        Err(Errno::NOENT) => return Ok(()),
        // Not a folder (any more): remove the entry itself.
        Err(Errno::LOOP | Errno::NOTDIR | Errno::MLINK) => {
            return match rustix::fs::unlinkat(parent, name, AtFlags::empty()) {
                Ok(()) | Err(Errno::NOENT) => Ok(()),
                Err(e) => Err(e.into()),
            };
        }
        Err(e) => return Err(e.into()),
    };
    for child in names(&dir)? {
        match rustix::fs::statat(&dir, child.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => {
                remove_tree(&dir, &child)?;
            }
            Ok(_) => match rustix::fs::unlinkat(&dir, child.as_os_str(), AtFlags::empty()) {
                Ok(()) | Err(Errno::NOENT) => {}
                Err(e) => return Err(e.into()),
            },
            Err(Errno::NOENT) => {}
            Err(e) => return Err(e.into()),
        }
    }
    drop(dir);
    match rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Copies the entries of `src` into `dst`; an error carries the path below the copied folder.
fn copy_dir(
    src: &impl AsFd,
    dst: &impl AsFd,
    below: &Path,
    skip: &dyn Fn(&Path) -> bool,
) -> Result<(), (PathBuf, std::io::Error)> {
    for name in names(src).map_err(|e| (below.to_path_buf(), e))? {
        let rel = below.join(&name);
        if skip(&rel) {
            continue;
        }
        let errno = |e: Errno| (rel.clone(), std::io::Error::from(e));
        let st = match rustix::fs::statat(src, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => st,
            Err(Errno::NOENT) => continue,
            Err(e) => return Err(errno(e)),
        };
        match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => {
                let from = match rustix::fs::openat(src, name.as_os_str(), DIR_FLAGS, Mode::empty()) {
                    Ok(fd) => fd,
                    // Gone, or swapped for something else since the `stat`: left out.
                    Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR | Errno::MLINK) => continue,
                    Err(e) => return Err(errno(e)),
                };
                match rustix::fs::mkdirat(dst, name.as_os_str(), Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(errno(e)),
                }
                let to =
                    rustix::fs::openat(dst, name.as_os_str(), DIR_FLAGS, Mode::empty()).map_err(errno)?;
                copy_dir(&from, &to, &rel, skip)?;
            }
            FileType::RegularFile => {
                let from = match rustix::fs::openat(
                    src,
                    name.as_os_str(),
                    OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                    Mode::empty(),
                ) {
                    Ok(fd) => fd,
                    Err(Errno::NOENT | Errno::LOOP | Errno::MLINK) => continue,
                    Err(e) => return Err(errno(e)),
                };
                let opened = rustix::fs::fstat(&from).map_err(errno)?;
                if FileType::from_raw_mode(opened.st_mode) != FileType::RegularFile {
                    continue;
                }
                let mode = Mode::from_raw_mode(opened.st_mode);
                let to = rustix::fs::openat(
                    dst,
                    name.as_os_str(),
                    OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    mode,
                )
                .map_err(errno)?;
                // The permissions exactly, whatever the umask.
                rustix::fs::fchmod(&to, mode).map_err(errno)?;
                std::io::copy(&mut File::from(from), &mut File::from(to)).map_err(|e| (rel.clone(), e))?;
            }
            FileType::Symlink => {
                let target = rustix::fs::readlinkat(src, name.as_os_str(), Vec::new()).map_err(errno)?;
                rustix::fs::symlinkat(target.as_c_str(), dst, name.as_os_str()).map_err(errno)?;
            }
            _ => {}
        }
    }
    Ok(())
}
