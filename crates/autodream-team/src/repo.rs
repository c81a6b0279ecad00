//! The local clone of the memory branch, kept in autodream's state folder (never a worktree
//! inside the project): a bare repository with one remote-tracking ref.
//!
//! Only plumbing is used, so nothing is ever checked out: `fetch` the branch, read a
//! commit's files (`ls-tree` + `cat-file --batch`), write a whole commit in one
//! `fast-import`, and `push` it without force, so that git's fast-forward rule decides
//! between machines that push at once.

use std::collections::BTreeMap;
use std::path::Path;

use crate::git::{Git, GitError, LOCAL_TIMEOUT, NETWORK_TIMEOUT};

/// A tree's files: branch path → bytes.
pub type Files = BTreeMap<String, Vec<u8>>;

/// The ref a fetch updates (`refs/remotes/origin/<branch>` in any clone's terms).
pub const TRACKING_REF: &str = "refs/remotes/team/memory";
/// The ref fast-import writes each new commit to before it is pushed.
const WORK_REF: &str = "refs/autodream/work";

/// How a push ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Pushed {
    Accepted,
    /// The branch moved since our parent: not a fast-forward.
    Rejected(String),
}

/// The local clone.
#[derive(Debug, Clone)]
pub struct Repo {
    pub git: Git,
    pub url: String,
    pub branch: String,
}

impl Repo {
    /// Opens (creating when missing) the bare clone at `dir`.
    pub fn open(dir: &Path, url: &str, branch: &str) -> Result<Repo, GitError> {
        let git = Git::new(dir);
        if !dir.join("HEAD").is_file() {
            std::fs::create_dir_all(dir)?;
            git.run(&["init", "--quiet", "--bare"], None, LOCAL_TIMEOUT)?;
        }
        Ok(Repo { git, url: url.to_string(), branch: branch.to_string() })
    }

    fn remote_ref(&self) -> String {
        format!("refs/heads/{}", self.branch)
    }

    /// Fetches the branch; `Ok(None)` when the remote has no such branch.
    pub fn fetch(&self) -> Result<Option<String>, GitError> {
        let spec = format!("+{}:{TRACKING_REF}", self.remote_ref());
        let out = self.git.run_raw(
            &["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", &self.url, &spec],
            None,
            NETWORK_TIMEOUT,
        )?;
        if !out.status.success() {
            if out.stderr.contains("couldn't find remote ref") {
                let _ = self.git.run_raw(&["update-ref", "-d", TRACKING_REF], None, LOCAL_TIMEOUT);
                return Ok(None);
            }
            return Err(GitError::Failed {
                args: format!("fetch {}", self.url),
                code: out.status.code(),
                message: first_lines(&out.stderr),
            });
        }
        self.tracking()
    }

    /// The commit the last fetch saw, if any.
    pub fn tracking(&self) -> Result<Option<String>, GitError> {
        self.resolve(TRACKING_REF)
    }

    /// A ref or revision's commit, `None` when it does not exist.
    pub fn resolve(&self, rev: &str) -> Result<Option<String>, GitError> {
        let spec = format!("{rev}^{{commit}}");
        let out = self.git.run_raw(&["rev-parse", "--verify", "--quiet", &spec], None, LOCAL_TIMEOUT)?;
        Ok(out.status.success().then(|| out.stdout_text()).filter(|s| !s.is_empty()))
    }

    /// Every file of `commit`.
    pub fn files(&self, commit: &str) -> Result<Files, GitError> {
        let out = self.git.run(&["ls-tree", "-r", "-z", "--full-tree", commit], None, LOCAL_TIMEOUT)?;
        let mut entries: Vec<(String, String)> = Vec::new();
        for record in out.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
            let text = String::from_utf8_lossy(record);
            let Some((meta, path)) = text.split_once('\t') else { continue };
            let mut parts = meta.split(' ');
            let (_mode, kind, sha) = (parts.next(), parts.next(), parts.next());
            if kind == Some("blob")
                && let Some(sha) = sha
            {
                entries.push((path.to_string(), sha.to_string()));
            }
        }
        let mut files = Files::new();
        if entries.is_empty() {
            return Ok(files);
        }
        let input: String = entries.iter().map(|(_, sha)| format!("{sha}\n")).collect();
        let out = self.git.run(&["cat-file", "--batch"], Some(input.as_bytes()), LOCAL_TIMEOUT)?;
        let mut rest: &[u8] = &out.stdout;
        for (path, _) in entries {
            let Some(nl) = rest.iter().position(|&b| b == b'\n') else { break };
            let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
            let size: usize = header.rsplit(' ').next().and_then(|s| s.parse().ok()).unwrap_or(0);
            let start = nl + 1;
            let end = (start + size).min(rest.len());
            files.insert(path, rest[start..end].to_vec());
            rest = rest.get(end + 1..).unwrap_or_default();
        }
        Ok(files)
    }

    /// Writes a commit holding exactly `files`, on top of `parent`, and returns its id.
    pub fn commit(
        &self,
        parent: Option<&str>,
        files: &Files,
        message: &str,
        who: &str,
        at_unix: i64,
    ) -> Result<String, GitError> {
        let mut s: Vec<u8> = Vec::new();
        let ident = format!("autodream ({who}) <autodream@{who}> {at_unix} +0000");
        s.extend_from_slice(format!("commit {WORK_REF}\nauthor {ident}\ncommitter {ident}\n").as_bytes());
        s.extend_from_slice(format!("data {}\n{message}\n", message.len()).as_bytes());
        if let Some(p) = parent {
            s.extend_from_slice(format!("from {p}\n").as_bytes());
        }
        s.extend_from_slice(b"deleteall\n");
        for (path, bytes) in files {
            s.extend_from_slice(format!("M 100644 inline {path}\ndata {}\n", bytes.len()).as_bytes());
            s.extend_from_slice(bytes);
            s.push(b'\n');
        }
        s.extend_from_slice(b"done\n");
        self.git.run(&["fast-import", "--quiet", "--done", "--force"], Some(&s), LOCAL_TIMEOUT)?;
        self.resolve(WORK_REF)?.ok_or_else(|| GitError::Failed {
            args: "fast-import".into(),
            code: None,
            message: "wrote no commit".into(),
        })
    }

    /// Pushes `commit` to the branch, never forcing: the remote takes it only when it is a
    /// fast-forward of what the branch holds.
    pub fn push(&self, commit: &str) -> Result<Pushed, GitError> {
        let spec = format!("{commit}:{}", self.remote_ref());
        let out =
            self.git.run_raw(&["push", "--quiet", "--porcelain", &self.url, &spec], None, NETWORK_TIMEOUT)?;
        if out.status.success() {
            let _ = self.git.run_raw(&["update-ref", TRACKING_REF, commit], None, LOCAL_TIMEOUT);
            return Ok(Pushed::Accepted);
        }
        let all = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), out.stderr);
        // Another push won: not a fast-forward any more, or (on a local or busy remote) the
        // remote's ref was locked by the winner's update at that moment.
        let lost = [
            "[rejected]",
            "[remote rejected]",
            "non-fast-forward",
            "fetch first",
            "cannot lock ref",
            "failed to update ref",
        ];
        if lost.iter().any(|m| all.contains(m)) {
            return Ok(Pushed::Rejected(first_lines(&all)));
        }
        Err(GitError::Failed {
            args: format!("push {}", self.url),
            code: out.status.code(),
            message: first_lines(&all),
        })
    }

    /// How many commits `to` has that `from` lacks.
    pub fn count_between(&self, from: Option<&str>, to: &str) -> Result<u64, GitError> {
        let range = match from {
            Some(f) => format!("{f}..{to}"),
            None => to.to_string(),
        };
        let out = self.git.run(&["rev-list", "--count", &range], None, LOCAL_TIMEOUT)?;
        Ok(out.stdout_text().parse().unwrap_or(0))
    }
}

/// Whether the remote answers, and whether it has the branch: `ls-remote`, read-only.
pub fn probe(url: &str, branch: &str) -> Result<bool, GitError> {
    let out = crate::git::run_anywhere(&["ls-remote", "--heads", url, branch], NETWORK_TIMEOUT)?;
    let wanted = format!("refs/heads/{branch}");
    Ok(out.stdout_text().lines().any(|l| l.split('\t').nth(1) == Some(wanted.as_str())))
}

fn first_lines(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("hint:") && *l != "Done")
        .take(4)
        .collect::<Vec<_>>()
        .join("; ")
}
