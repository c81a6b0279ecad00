//! Where memory and sessions live.
//!
//! autodream drops into the coding agent's own layout: transcripts under
//! `<base>/projects/<sanitised cwd>/` and memory under
//! `<base>/projects/<sanitised git root>/memory/`, where `<base>` is `$CLAUDE_CONFIG_DIR` or
//! `~/.claude`. The two keys differ on purpose: every worktree of a repository shares one
//! memory, while transcripts are filed by the directory the agent was started in.
//! Flags and `AUTODREAM_*` variables override both.

use std::path::{Path, PathBuf};

/// Sanitised names longer than this are cut and given a hash suffix, like the agent does.
pub const MAX_SANITISED_LEN: usize = 200;

/// Explicit choices from flags; `None` falls through to the environment, then the layout.
#[derive(Debug, Clone, Default)]
pub struct PathOverrides {
    pub memory_dir: Option<PathBuf>,
    pub sessions_dir: Option<PathBuf>,
    pub project_dir: Option<PathBuf>,
}

/// The resolved locations autodream works with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// The memory directory (MEMORY.md, topic files, logs/, .dream/).
    pub memory_dir: PathBuf,
    /// The folder holding this project's session transcripts.
    pub sessions_dir: PathBuf,
    /// The project the agent works in (`--project`, else the working directory).
    pub project_dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("cannot determine the working directory: {0}")]
    Cwd(#[source] std::io::Error),
    #[error("no home directory: set HOME, or pass --memory-dir and --sessions-dir")]
    NoHome,
    #[error("project directory {0} does not exist")]
    MissingProject(PathBuf),
}

/// Replaces every character outside `[A-Za-z0-9]` with `-`, as the agent names its project
/// folders; over-long names are cut at 200 characters and given a hash suffix.
pub fn sanitise(path: &str) -> String {
    let s: String = path.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    if s.chars().count() <= MAX_SANITISED_LEN {
        return s;
    }
    let head: String = s.chars().take(MAX_SANITISED_LEN).collect();
    format!("{head}-{}", to_base36(djb2(path).unsigned_abs() as u64))
}

/// The 32-bit djb2 string hash over UTF-16 units, as JavaScript computes it.
fn djb2(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, u| h.wrapping_shl(5).wrapping_sub(h).wrapping_add(u as i32))
}

fn to_base36(mut n: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).expect("ascii digits")
}

/// The agent's configuration home: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn agent_base_dir() -> Result<PathBuf, PathError> {
    if let Some(dir) = non_empty_env("CLAUDE_CONFIG_DIR") {
        return Ok(PathBuf::from(dir));
    }
    home_dir().map(|h| h.join(".claude")).ok_or(PathError::NoHome)
}

pub fn home_dir() -> Option<PathBuf> {
    non_empty_env("HOME").map(PathBuf::from)
}

fn non_empty_env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

/// The canonical root of the git repository holding `dir`: for a linked worktree, the main
/// repository's root, so every worktree shares one memory. `None` outside git.
pub fn canonical_git_root(dir: &Path) -> Option<PathBuf> {
    let mut cur = Some(dir);
    while let Some(d) = cur {
        let dot_git = d.join(".git");
        if let Ok(meta) = std::fs::metadata(&dot_git) {
            if meta.is_dir() {
                return Some(d.to_path_buf());
            }
            if meta.is_file() {
                return Some(worktree_main_root(&dot_git).unwrap_or_else(|| d.to_path_buf()));
            }
        }
        cur = d.parent();
    }
    None
}

/// `.git` as a file (`gitdir: …`): follow `commondir` back to the main repository.
fn worktree_main_root(dot_git_file: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git_file).ok()?;
    let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let base = dot_git_file.parent()?;
    let gitdir = base.join(gitdir);
    let common = std::fs::read_to_string(gitdir.join("commondir")).ok()?;
    let common_dir = gitdir.join(common.trim());
    let common_dir = common_dir.canonicalize().unwrap_or(common_dir);
    common_dir.parent().map(Path::to_path_buf)
}

impl Locations {
    /// Resolves the locations: flags, then `AUTODREAM_MEMORY_DIR` / `AUTODREAM_SESSIONS_DIR`,
    /// then the agent's layout keyed on the project directory.
    pub fn resolve(overrides: &PathOverrides) -> Result<Locations, PathError> {
        let project_dir = match &overrides.project_dir {
            Some(p) => {
                let p = absolute(p)?;
                if !p.is_dir() {
                    return Err(PathError::MissingProject(p));
                }
                p
            }
            None => std::env::current_dir().map_err(PathError::Cwd)?,
        };
        let memory_dir = match overrides
            .memory_dir
            .clone()
            .or_else(|| non_empty_env("AUTODREAM_MEMORY_DIR").map(PathBuf::from))
        {
            Some(p) => absolute(&p)?,
            None => {
                let key_dir = canonical_git_root(&project_dir).unwrap_or_else(|| project_dir.clone());
                agent_base_dir()?.join("projects").join(sanitise(&key_dir.to_string_lossy())).join("memory")
            }
        };
        let sessions_dir = match overrides
            .sessions_dir
            .clone()
            .or_else(|| non_empty_env("AUTODREAM_SESSIONS_DIR").map(PathBuf::from))
        {
            Some(p) => absolute(&p)?,
            None => agent_base_dir()?.join("projects").join(sanitise(&project_dir.to_string_lossy())),
        };
        Ok(Locations { memory_dir, sessions_dir, project_dir })
    }

    /// The sessions folder of another working directory (the hook's `cwd`).
    pub fn with_cwd(mut self, cwd: &Path, overrides: &PathOverrides) -> Result<Locations, PathError> {
        let o = PathOverrides { project_dir: Some(cwd.to_path_buf()), ..overrides.clone() };
        if cwd.is_dir() {
            self = Locations::resolve(&o)?;
        }
        Ok(self)
    }

    pub fn index_path(&self) -> PathBuf {
        self.memory_dir.join(crate::memdir::INDEX_FILE)
    }

    pub fn lock_path(&self) -> PathBuf {
        self.memory_dir.join(crate::lock::LOCK_FILE)
    }

    /// `.dream/`: the engine's own state (task, scan stamp, history, staging).
    pub fn state_dir(&self) -> PathBuf {
        self.memory_dir.join(crate::memdir::STATE_DIR)
    }
}

fn absolute(p: &Path) -> Result<PathBuf, PathError> {
    if p.is_absolute() {
        Ok(p.to_path_buf())
    } else {
        Ok(std::env::current_dir().map_err(PathError::Cwd)?.join(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitise_matches_the_agent_layout() {
        assert_eq!(
            sanitise("/home/marco/projects/spotter-worktrees/spotter-4te"),
            "-home-marco-projects-spotter-worktrees-spotter-4te"
        );
        assert_eq!(sanitise("C:\\Users\\a b"), "C--Users-a-b");
        assert_eq!(sanitise("/tmp/é"), "-tmp--");
    }

    #[test]
    fn long_names_are_cut_and_hashed() {
        let long = format!("/{}", "a".repeat(300));
        let s = sanitise(&long);
        assert!(s.starts_with(&format!("-{}", "a".repeat(199))));
        assert!(s.len() > 201 && s.len() < 215, "{s}");
        assert_ne!(sanitise(&long), sanitise(&format!("/{}", "a".repeat(301))));
    }

    #[test]
    fn djb2_matches_javascript() {
        // ((h << 5) - h + c) | 0 over "abc" in JavaScript gives 96354.
        assert_eq!(djb2("abc"), 96354);
        assert_eq!(to_base36(96354), "22ci");
    }

    #[test]
    fn worktrees_share_the_main_repository_root() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("repo");
        std::fs::create_dir_all(main.join(".git/worktrees/wt")).unwrap();
        std::fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        let wt = tmp.path().join("wt");
        std::fs::create_dir_all(wt.join("sub")).unwrap();
        std::fs::write(wt.join(".git"), format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()))
            .unwrap();
        assert_eq!(canonical_git_root(&wt.join("sub")).unwrap(), main.canonicalize().unwrap());
        assert_eq!(canonical_git_root(&main).unwrap(), main);
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(canonical_git_root(outside.path()), None);
    }
}
