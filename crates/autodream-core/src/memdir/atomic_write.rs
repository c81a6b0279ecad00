//! Atomic writes by absolute path, for callers that hold a path rather than a
//! [`MemoryRoot`]: a temporary file in the same folder, `fsync`,
//! `rename` over the target, then `fsync` of the folder. A reader sees the old bytes or the
//! new bytes, never a mix, and a crash never leaves a half-written file.
//!
//! The walk never follows a symbolic link inside a staging copy: a path of the shape
//! `…/staging/<task>/work/…` (what an engine writes during a dream) is walked from the folder
//! above `staging`, component by component, so a link the copy kept from the memory folder
//! is refused; any other path has its parent folder opened as given and its file name
//! checked. Code that knows its memory folder uses [`MemoryRoot`] directly.

use std::fs::File;
use std::path::{Component, Path, PathBuf};

use super::safe_path::MemoryRoot;

/// The folder of staging copies inside the state folder.
use crate::paths::state::STAGING_DIR as STAGING;

/// Atomically replaces (or creates) `path` with `contents`, creating parent folders.
/// Refuses to write through a symbolic link at `path`, and through any link inside a
/// staging copy when `path` lies in one.
pub fn write_atomic(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let (root, rel) = split_at_trusted_folder(path)?;
    MemoryRoot::create(&root)?.write_atomic(&rel, contents)?;
    Ok(())
}

/// Splits `path` into the folder trusted as given and the part walked without following
/// links: at a `staging/<task>/{work,base}` run of components, else at the file name.
fn split_at_trusted_folder(path: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    let components: Vec<Component<'_>> = path.components().collect();
    let staging_at = components.iter().enumerate().position(|(i, c)| {
        c.as_os_str() == STAGING
            && components.get(i + 2).is_some_and(|w| w.as_os_str() == "work" || w.as_os_str() == "base")
    });
    let at = staging_at
        .or_else(|| components.len().checked_sub(1))
        .filter(|&i| matches!(components.last(), Some(Component::Normal(_))) && i < components.len())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{}: names no file", path.display()),
            )
        })?;
    let root: PathBuf = components[..at].iter().collect();
    let root = if root.as_os_str().is_empty() { PathBuf::from(".") } else { root };
    let rel: PathBuf = components[at..].iter().collect();
    Ok((root, rel))
}

/// Flushes a folder's entries (the rename) to disk; best effort.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn replaces_contents_and_leaves_no_temp_files() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("sub/topic.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> =
            fs::read_dir(p.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("topic.md")]);
    }

    #[test]
    fn refuses_to_write_through_a_symlink() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside.md");
        fs::write(&outside, "keep").unwrap();
        let link = tmp.path().join("link.md");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(write_atomic(&link, b"evil").is_err());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
    }

    #[test]
    fn inside_a_staging_copy_no_link_is_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let state = tmp.path().join("state");
        let outside = tmp.path().join("outside");
        fs::create_dir_all(state.join("staging/t1/work")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        // A link kept in a staging copy.
        std::os::unix::fs::symlink(&outside, state.join("staging/t1/work/.archive")).unwrap();
        let err = write_atomic(&state.join("staging/t1/work/.archive/a.md"), b"x").unwrap_err();
        assert!(err.to_string().contains("staging/t1/work/.archive is a symbolic link"), "{err}");
        // The staging folder itself swapped for a link.
        let state2 = tmp.path().join("state2");
        fs::create_dir_all(&state2).unwrap();
        std::os::unix::fs::symlink(&outside, state2.join("staging")).unwrap();
        assert!(write_atomic(&state2.join("staging/t1/work/a.md"), b"{}").is_err());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
        // The ordinary case still creates the folders it needs.
        write_atomic(&state.join("staging/t1/work/.engine/offline/state.json"), b"{}").unwrap();
        assert_eq!(fs::read(state.join("staging/t1/work/.engine/offline/state.json")).unwrap(), b"{}");
    }

    #[test]
    fn splits_at_the_staging_copy() {
        let (root, rel) = split_at_trusted_folder(Path::new("/s/staging/t/work/a.md")).unwrap();
        assert_eq!((root.as_path(), rel.as_path()), (Path::new("/s"), Path::new("staging/t/work/a.md")));
        let (root, rel) = split_at_trusted_folder(Path::new("/m/staging/a.md")).unwrap();
        assert_eq!((root.as_path(), rel.as_path()), (Path::new("/m/staging"), Path::new("a.md")));
        let (root, rel) = split_at_trusted_folder(Path::new("/m/sub/a.md")).unwrap();
        assert_eq!((root.as_path(), rel.as_path()), (Path::new("/m/sub"), Path::new("a.md")));
        let (root, rel) = split_at_trusted_folder(Path::new("a.md")).unwrap();
        assert_eq!((root.as_path(), rel.as_path()), (Path::new("."), Path::new("a.md")));
        assert!(split_at_trusted_folder(Path::new("/")).is_err());
        assert!(split_at_trusted_folder(Path::new("/m/..")).is_err());
    }
}
