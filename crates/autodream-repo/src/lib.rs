//! The project as autodream checks facts against it ([`ProjectIndex`], the core's
//! `referents::ProjectChecker`).
//!
//! One walk of the project with ripgrep's `ignore` crate, honouring `.gitignore` (and
//! `.git/info/exclude`, `.ignore`), never following links, bounded by a file count and a
//! time. Contents are read only where a check needs them: the `package.json` files (their
//! `scripts`), the root `Makefile` and `justfile` (their targets), `.cargo/config.toml` (its
//! `[alias]`), the git refs (for branches), and, only when a fact names an environment
//! variable, the source files, scanned for those names and no more once all are found.
//!
//! A walk cut short by its bound declares nothing gone: every referent it did not find is
//! [`Status::Unknown`].

mod scripts;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use autodream_core::referents::{Checked, ProjectChecker, Referent, Status};

/// The bounds of one check.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Files the walk may visit before it stops.
    pub max_files: usize,
    /// Time the walk and the scans may take.
    pub max_time: Duration,
    /// Bytes the environment-variable scan may read in all.
    pub max_scan_bytes: u64,
    /// Larger source files are not scanned.
    pub max_file_bytes: u64,
}

impl Bounds {
    /// 200,000 files, 3 s, 256 MiB scanned, files up to 1 MiB.
    pub const DEFAULT: Bounds = Bounds {
        max_files: 200_000,
        max_time: Duration::from_secs(3),
        max_scan_bytes: 256 << 20,
        max_file_bytes: 1 << 20,
    };
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds::DEFAULT
    }
}

/// The checker every binary registers.
#[derive(Debug, Default)]
pub struct ProjectIndex {
    pub bounds: Bounds,
}

impl ProjectIndex {
    /// The index with the default bounds (for a `static`).
    pub const fn new() -> ProjectIndex {
        ProjectIndex { bounds: Bounds::DEFAULT }
    }
}

/// What one walk saw.
struct Walk {
    files: Vec<String>,
    dirs: HashSet<String>,
    complete: bool,
}

fn walk(root: &Path, bounds: &Bounds, started: Instant) -> Walk {
    let mut files = Vec::new();
    let mut dirs = HashSet::new();
    let mut complete = true;
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .parents(false)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walker {
        let Ok(entry) = entry else { continue };
        if files.len() >= bounds.max_files || started.elapsed() >= bounds.max_time {
            complete = false;
            break;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else { continue };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel.is_empty() {
            continue;
        }
        match entry.file_type() {
            Some(ft) if ft.is_dir() => {
                dirs.insert(rel);
            }
            Some(_) => files.push(rel),
            None => {}
        }
    }
    Walk { files, dirs, complete }
}

impl ProjectChecker for ProjectIndex {
    fn check(&self, project: &Path, referents: &BTreeSet<Referent>) -> Checked {
        let started = Instant::now();
        let w = walk(project, &self.bounds, started);
        let gone_or_unknown = |complete: bool| if complete { Status::Gone } else { Status::Unknown };
        let mut status = BTreeMap::new();
        let mut manifests = scripts::Manifests::default();
        let env: Vec<&str> = referents
            .iter()
            .filter_map(|r| if let Referent::Env(v) = r { Some(v.as_str()) } else { None })
            .collect();
        let (env_found, env_complete) = if env.is_empty() {
            (HashSet::new(), true)
        } else {
            scan_env(project, &w.files, &env, &self.bounds, started)
        };
        for r in referents {
            let s = match r {
                Referent::Path(p) => {
                    if path_present(project, &w, p) {
                        Status::Present
                    } else {
                        gone_or_unknown(w.complete)
                    }
                }
                Referent::Script(runner, name) => {
                    manifests.status(project, &w.files, *runner, name, w.complete)
                }
                Referent::Env(v) => {
                    if env_found.contains(v.as_str()) {
                        Status::Present
                    } else {
                        gone_or_unknown(w.complete && env_complete)
                    }
                }
                Referent::Branch(b) => branch_status(project, b),
                Referent::Binary(b) => {
                    if binary_present(project, b) {
                        Status::Present
                    } else {
                        Status::Unknown
                    }
                }
            };
            status.insert(r.clone(), s);
        }
        let incomplete = (!w.complete).then(|| {
            format!(
                "the walk of the project stopped at its bound ({} files, {} ms)",
                w.files.len(),
                started.elapsed().as_millis()
            )
        });
        Checked { status, files: w.files.len(), incomplete, elapsed_ms: started.elapsed().as_millis() as u64 }
    }
}

/// A path exists: on disk (also when ignored), in the walk, or as the end of a walked path
/// (`src/lib.rs` of a crate in a sub-folder, a file name anywhere).
fn path_present(project: &Path, w: &Walk, p: &str) -> bool {
    let p = p.trim_end_matches('/');
    if std::fs::symlink_metadata(project.join(p)).is_ok() || w.dirs.contains(p) {
        return true;
    }
    let tail = format!("/{p}");
    w.files.iter().chain(w.dirs.iter()).any(|f| f == p || f.ends_with(&tail))
}

/// Which of `names` a source file mentions; the second value is false when the scan stopped
/// at a bound before reading every candidate.
fn scan_env<'a>(
    project: &Path,
    files: &[String],
    names: &[&'a str],
    bounds: &Bounds,
    started: Instant,
) -> (HashSet<&'a str>, bool) {
    let alternation: Vec<String> = names.iter().map(|n| regex::escape(n)).collect();
    let Ok(re) = regex::bytes::Regex::new(&format!(r"\b({})\b", alternation.join("|"))) else {
        return (HashSet::new(), false);
    };
    let mut found: HashSet<&str> = HashSet::new();
    let mut read = 0u64;
    for f in files {
        if found.len() == names.len() {
            return (found, true);
        }
        if !is_source(f) {
            continue;
        }
        if started.elapsed() >= bounds.max_time || read >= bounds.max_scan_bytes {
            return (found, false);
        }
        let path = project.join(f);
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        if meta.len() > bounds.max_file_bytes {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else { continue };
        read += bytes.len() as u64;
        for m in re.find_iter(&bytes) {
            if let Some(n) = names.iter().find(|n| n.as_bytes() == m.as_bytes()) {
                found.insert(n);
            }
        }
    }
    (found, true)
}

fn is_source(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if matches!(
        name,
        "Makefile" | "makefile" | "GNUmakefile" | "justfile" | "Justfile" | "Dockerfile" | "Procfile"
    ) || name.starts_with(".env")
    {
        return true;
    }
    name.rsplit_once('.').is_some_and(|(_, ext)| {
        autodream_core::referents::SOURCE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// The git folder that holds the refs (a linked work tree's common folder).
fn git_common_dir(project: &Path) -> Option<PathBuf> {
    let dot = project.join(".git");
    let meta = std::fs::symlink_metadata(&dot).ok()?;
    let gitdir = if meta.is_dir() {
        dot
    } else {
        let text = std::fs::read_to_string(&dot).ok()?;
        let rel = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
        project.join(rel)
    };
    match std::fs::read_to_string(gitdir.join("commondir")) {
        Ok(common) => Some(gitdir.join(common.trim())),
        Err(_) => Some(gitdir),
    }
}

/// A branch exists when a local or remote ref names it (loose or packed).
fn branch_status(project: &Path, branch: &str) -> Status {
    let Some(git) = git_common_dir(project) else { return Status::Unknown };
    if !git.join("refs").is_dir() {
        return Status::Unknown;
    }
    // A fresh repository's branch has no ref until its first commit, only HEAD naming it.
    let head = std::fs::read_to_string(git.join("HEAD")).unwrap_or_default();
    if git.join("refs/heads").join(branch).is_file()
        || head.trim().strip_prefix("ref: refs/heads/") == Some(branch)
    {
        return Status::Present;
    }
    if let Ok(remotes) = std::fs::read_dir(git.join("refs/remotes")) {
        for r in remotes.flatten() {
            if r.path().join(branch).is_file() {
                return Status::Present;
            }
        }
    }
    if let Ok(packed) = std::fs::read_to_string(git.join("packed-refs")) {
        for line in packed.lines() {
            let Some((_, name)) = line.split_once(' ') else { continue };
            if name.strip_prefix("refs/heads/") == Some(branch)
                || name
                    .strip_prefix("refs/remotes/")
                    .and_then(|r| r.split_once('/'))
                    .is_some_and(|(_, b)| b == branch)
            {
                return Status::Present;
            }
        }
    }
    Status::Gone
}

/// A command found on `PATH`, in the project's `bin/` or `node_modules/.bin/`.
fn binary_present(project: &Path, name: &str) -> bool {
    let in_project = ["bin", "node_modules/.bin"].iter().any(|d| project.join(d).join(name).is_file());
    in_project
        || std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|dir| dir.join(name).is_file()))
}

#[cfg(test)]
mod tests;
