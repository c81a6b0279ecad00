//! Running the `git` command line: the user's own credentials, SSH agent and configuration,
//! never a transport of our own.
//!
//! Every call runs with a timeout (the child is killed when it passes), with no prompt
//! (`GIT_TERMINAL_PROMPT=0`, SSH in batch mode unless the user chose an SSH command), no
//! pager and the C locale, so that a missing credential or a dead remote is an error the
//! caller records rather than a hang.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

/// How long a local git command may take.
pub const LOCAL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a network command (fetch, push, ls-remote) may take.
pub const NETWORK_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git is not installed (or not on PATH): {0}")]
    Missing(#[source] std::io::Error),
    #[error("`git {args}` did not finish within {secs} s; it was stopped")]
    Timeout { args: String, secs: u64 },
    #[error("`git {args}` failed: {message}")]
    Failed { args: String, code: Option<i32>, message: String },
    #[error("git: {0}")]
    Io(#[from] std::io::Error),
}

/// What a finished git command returned.
#[derive(Debug)]
pub struct GitOutput {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl GitOutput {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).trim().to_string()
    }
}

/// A git directory (bare) that every command runs against.
#[derive(Debug, Clone)]
pub struct Git {
    git_dir: PathBuf,
}

impl Git {
    pub fn new(git_dir: &Path) -> Git {
        Git { git_dir: git_dir.to_path_buf() }
    }

    pub fn dir(&self) -> &Path {
        &self.git_dir
    }

    /// `git ARGS` in this repository; a non-zero exit is an error with git's own message.
    pub fn run(&self, args: &[&str], stdin: Option<&[u8]>, timeout: Duration) -> Result<GitOutput, GitError> {
        let out = self.run_raw(args, stdin, timeout)?;
        if out.status.success() { Ok(out) } else { Err(failed(args, &out)) }
    }

    /// `git ARGS` in this repository; the exit status is the caller's to read.
    pub fn run_raw(
        &self,
        args: &[&str],
        stdin: Option<&[u8]>,
        timeout: Duration,
    ) -> Result<GitOutput, GitError> {
        let mut cmd = command(Some(&self.git_dir));
        cmd.args(args);
        spawn_with_timeout(cmd, args, stdin, timeout)
    }
}

/// `git ARGS` outside any repository (or with `-C DIR` in `args`).
pub fn run_anywhere(args: &[&str], timeout: Duration) -> Result<GitOutput, GitError> {
    let mut cmd = command(None);
    cmd.args(args);
    let out = spawn_with_timeout(cmd, args, None, timeout)?;
    if out.status.success() { Ok(out) } else { Err(failed(args, &out)) }
}

fn failed(args: &[&str], out: &GitOutput) -> GitError {
    let message = out
        .stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("hint:"))
        .collect::<Vec<_>>()
        .join("; ");
    let message = if message.is_empty() { format!("exit status {}", out.status) } else { message };
    GitError::Failed { args: args.join(" "), code: out.status.code(), message }
}

fn command(git_dir: Option<&Path>) -> Command {
    let mut cmd = Command::new("git");
    if let Some(dir) = git_dir {
        cmd.env("GIT_DIR", dir);
    }
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("PAGER", "cat")
        .env("LC_ALL", "C")
        .env("LANGUAGE", "C")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    if std::env::var_os("GIT_SSH_COMMAND").is_none() && std::env::var_os("GIT_SSH").is_none() {
        cmd.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    }
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd
}

fn spawn_with_timeout(
    mut cmd: Command,
    args: &[&str],
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Result<GitOutput, GitError> {
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => GitError::Missing(e),
        _ => GitError::Io(e),
    })?;
    let input = stdin.map(<[u8]>::to_vec).unwrap_or_default();
    let mut child_in = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(pipe) = child_in.as_mut() {
            let _ = pipe.write_all(&input);
        }
        drop(child_in);
    });
    let mut out_pipe = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    let mut err_pipe = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    // The child is waited for on a thread of its own, so a quick command returns at once;
    // past the timeout it is killed by its PID.
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = match rx.recv_timeout(timeout) {
        Ok(status) => status?,
        Err(_) => {
            if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
            let _ = rx.recv_timeout(Duration::from_secs(5));
            return Err(GitError::Timeout { args: args.join(" "), secs: timeout.as_secs() });
        }
    };
    let _ = writer.join();
    let stdout = reader.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    Ok(GitOutput { status, stdout, stderr })
}
