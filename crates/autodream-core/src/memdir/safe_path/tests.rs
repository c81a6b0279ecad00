//! Every writer against links on the path, swapped folders, and interrupted writes.

use super::*;
use std::collections::BTreeMap;
use std::os::unix::fs::symlink;

/// A memory folder and an outside folder holding one file.
struct World {
    _tmp: tempfile::TempDir,
    mem: PathBuf,
    outside: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let mem = tmp.path().join("memory");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("target.md"), "outside\n").unwrap();
    World { _tmp: tmp, mem, outside }
}

/// Every entry under `dir` with its contents (links as their target).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let ft = e.file_type().unwrap();
        if ft.is_symlink() {
            out.insert(p.clone(), format!("-> {}", std::fs::read_link(&p).unwrap().display()));
        } else if ft.is_dir() {
            out.insert(p.clone(), "<dir>".into());
            out.extend(snapshot(&p));
        } else {
            out.insert(p.clone(), std::fs::read_to_string(&p).unwrap());
        }
    }
    out
}

fn assert_link_refused(result: Result<impl std::fmt::Debug, SafePathError>, component: &str) {
    match result {
        Err(SafePathError::Symlink { component: c, path }) => {
            assert_eq!(c, Path::new(component));
            let message = SafePathError::Symlink { component: c, path }.to_string();
            assert!(message.contains(&format!("{component} is a symbolic link")), "{message}");
        }
        other => panic!("expected a refused link at {component}, got {other:?}"),
    }
}

#[test]
fn every_writer_refuses_a_link_to_a_folder_on_the_path() {
    let w = world();
    symlink(&w.outside, w.mem.join("linkdir")).unwrap();
    let before = snapshot(&w.outside);
    let root = MemoryRoot::open(&w.mem).unwrap();
    let now = SystemTime::now();
    assert_link_refused(root.write_atomic("linkdir/x.md", b"pwned"), "linkdir");
    assert_link_refused(root.write_atomic("linkdir/target.md", b"pwned"), "linkdir");
    assert_link_refused(root.create_dir_all("linkdir/sub"), "linkdir");
    assert_link_refused(root.ensure_dir("linkdir"), "linkdir");
    assert_link_refused(root.create_new("linkdir/new.md", b"pwned"), "linkdir");
    assert_link_refused(root.append("linkdir/target.md", b"pwned"), "linkdir");
    assert_link_refused(root.remove_file("linkdir/target.md"), "linkdir");
    assert_link_refused(root.remove_dir_all("linkdir"), "linkdir");
    assert_link_refused(root.touch("linkdir/stamp", now), "linkdir");
    assert_link_refused(root.set_mtime("linkdir/target.md", now), "linkdir");
    assert_link_refused(root.read("linkdir/target.md"), "linkdir");
    assert_link_refused(root.copy_tree("", "linkdir/copy", &|_| false), "linkdir");
    assert_eq!(root.find_link("linkdir/deeper/x.md").unwrap(), Some(PathBuf::from("linkdir")));
    // A link deeper down is named by its whole path.
    std::fs::create_dir_all(w.mem.join("a/b")).unwrap();
    symlink(&w.outside, w.mem.join("a/b/c")).unwrap();
    assert_link_refused(root.write_atomic("a/b/c/x.md", b"pwned"), "a/b/c");
    assert_eq!(snapshot(&w.outside), before);
}

#[test]
fn every_writer_refuses_a_link_to_a_file() {
    let w = world();
    symlink(w.outside.join("target.md"), w.mem.join("link.md")).unwrap();
    let root = MemoryRoot::open(&w.mem).unwrap();
    let now = SystemTime::now();
    assert_link_refused(root.write_atomic("link.md", b"pwned"), "link.md");
    assert_link_refused(root.append("link.md", b"pwned"), "link.md");
    assert_link_refused(root.remove_file("link.md"), "link.md");
    assert_link_refused(root.touch("link.md", now), "link.md");
    assert_link_refused(root.set_mtime("link.md", now), "link.md");
    assert_link_refused(root.read("link.md"), "link.md");
    assert_link_refused(root.create_dir_all("link.md/x"), "link.md");
    // Creating a file that exists as a link writes nothing.
    assert!(!root.create_new("link.md", b"pwned").unwrap());
    assert_eq!(std::fs::read_to_string(w.outside.join("target.md")).unwrap(), "outside\n");
    assert!(std::fs::symlink_metadata(w.mem.join("link.md")).unwrap().file_type().is_symlink());
    // A dangling link is no different.
    symlink(w.outside.join("missing.md"), w.mem.join("dangling.md")).unwrap();
    assert_link_refused(root.write_atomic("dangling.md", b"pwned"), "dangling.md");
    assert_link_refused(root.append("dangling.md", b"pwned"), "dangling.md");
    assert!(!w.outside.join("missing.md").exists());
}

#[test]
fn only_plain_relative_paths_are_accepted() {
    let w = world();
    let root = MemoryRoot::open(&w.mem).unwrap();
    for bad in ["", "/etc/passwd", "../outside/x.md", "a/../../x.md", "./x.md", "a//x.md", "a/", "a/."] {
        let err = root.write_atomic(bad, b"x").unwrap_err();
        assert!(matches!(err, SafePathError::InvalidPath { .. }), "{bad:?}: {err}");
    }
    assert_eq!(snapshot(&w.mem), BTreeMap::new());
    assert_eq!(snapshot(&w.outside).len(), 1);
}

#[test]
fn a_folder_swapped_for_a_link_after_it_was_opened_is_never_written_through() {
    let w = world();
    std::fs::create_dir_all(w.mem.join("notes")).unwrap();
    let before = snapshot(&w.outside);
    // The memory folder is opened, then a folder below it becomes a link: refused.
    let root = MemoryRoot::open(&w.mem).unwrap();
    assert_eq!(root.find_link("notes/a.md").unwrap(), None);
    std::fs::rename(w.mem.join("notes"), w.mem.join("notes-real")).unwrap();
    symlink(&w.outside, w.mem.join("notes")).unwrap();
    assert_link_refused(root.write_atomic("notes/a.md", b"pwned"), "notes");
    assert_link_refused(root.append("notes/a.md", b"pwned"), "notes");
    // The memory folder itself is moved away and a link put in its place after it was
    // opened: the write lands in the real folder, through the descriptor.
    let real = w.mem.with_file_name("memory-real");
    std::fs::rename(&w.mem, &real).unwrap();
    symlink(&w.outside, &w.mem).unwrap();
    root.write_atomic("fresh.md", b"inside\n").unwrap();
    root.append("notes-real/log.md", b"- line\n").unwrap();
    assert_eq!(std::fs::read_to_string(real.join("fresh.md")).unwrap(), "inside\n");
    assert_eq!(std::fs::read_to_string(real.join("notes-real/log.md")).unwrap(), "- line\n");
    assert_eq!(snapshot(&w.outside), before);
}

#[test]
fn writes_are_atomic_create_folders_and_leave_no_temporary_files() {
    let w = world();
    let root = MemoryRoot::open(&w.mem).unwrap();
    root.write_atomic("sub/deeper/topic.md", b"one").unwrap();
    root.write_atomic("sub/deeper/topic.md", b"two").unwrap();
    assert_eq!(root.read("sub/deeper/topic.md").unwrap().as_deref(), Some(&b"two"[..]));
    assert_eq!(root.list("sub/deeper").unwrap(), [OsString::from("topic.md")]);
    assert_eq!(root.read("sub/missing.md").unwrap(), None);
    assert_eq!(root.read("nowhere/missing.md").unwrap(), None);
    let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    let opts = WriteOptions { mtime: Some(t), temp_name: Some(".stamp.tmp") };
    std::fs::write(w.mem.join(".stamp.tmp"), "leftover").unwrap();
    root.write_atomic_with("stamp", b"", &opts).unwrap();
    assert_eq!(std::fs::metadata(w.mem.join("stamp")).unwrap().modified().unwrap(), t);
    assert!(!w.mem.join(".stamp.tmp").exists());
    assert!(root.remove_file("sub/deeper/topic.md").unwrap());
    assert!(!root.remove_file("sub/deeper/topic.md").unwrap());
    root.remove_empty_parents("sub/deeper/topic.md");
    assert!(!w.mem.join("sub").exists());
    assert!(w.mem.exists());
}

#[test]
fn copies_keep_links_as_links_and_removal_never_follows_them() {
    let w = world();
    std::fs::create_dir_all(w.mem.join("notes")).unwrap();
    std::fs::write(w.mem.join("notes/a.md"), "a\n").unwrap();
    std::fs::write(w.mem.join("skip.md"), "skipped\n").unwrap();
    symlink(&w.outside, w.mem.join("linkdir")).unwrap();
    symlink(w.outside.join("target.md"), w.mem.join("notes/link.md")).unwrap();
    let before = snapshot(&w.outside);
    let root = MemoryRoot::open(&w.mem).unwrap();
    root.copy_tree("", "copy", &|p| p == Path::new("skip.md") || p == Path::new("copy")).unwrap();
    let copy = w.mem.join("copy");
    assert_eq!(std::fs::read_to_string(copy.join("notes/a.md")).unwrap(), "a\n");
    assert_eq!(std::fs::read_link(copy.join("linkdir")).unwrap(), w.outside);
    assert_eq!(std::fs::read_link(copy.join("notes/link.md")).unwrap(), w.outside.join("target.md"));
    assert!(!copy.join("skip.md").exists());
    assert!(root.remove_dir_all("copy").unwrap());
    assert!(!copy.exists());
    assert_eq!(snapshot(&w.outside), before);
}
