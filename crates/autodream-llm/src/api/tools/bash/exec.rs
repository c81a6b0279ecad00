//! Running a checked command: found in the system's program folders, executed directly (no
//! shell) with an empty environment from the staging folder, through the Landlock launcher
//! where the kernel has it, with a time limit and capped output.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::AsyncReadExt;

use super::super::{ToolBox, ToolOutcome, cap_output};
use crate::sandbox::Sandbox;

/// Bytes of stdout (and of stderr) kept from a command.
const MAX_CAPTURE_BYTES: usize = 64 * 1024;

/// The program's absolute path in the first folder of `dirs` that has it.
pub fn find_program(dirs: &[PathBuf], name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    dirs.iter()
        .map(|d| d.join(name))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

// ---- running -----------------------------------------------------------------------------

/// Folders a Landlocked child may read: every root's real folder.
fn read_roots(sandbox: &Sandbox) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = sandbox.roots().iter().map(|r| r.backing.clone()).collect();
    roots.dedup();
    roots
}

pub(super) async fn execute(
    tools: &ToolBox,
    program: &Path,
    args: &[OsString],
) -> Result<ToolOutcome, String> {
    let sandbox = &tools.sandbox;
    let staging = &sandbox.memory_root().backing;
    let use_launcher =
        tools.bash.launcher.as_ref().filter(|_| crate::sandbox::landlock::landlock_status().is_available());
    let mut command = match use_launcher {
        Some(launcher) => {
            let mut c = tokio::process::Command::new(launcher);
            c.arg(crate::sandbox::landlock::SANDBOX_EXEC_SUBCOMMAND);
            for root in read_roots(sandbox) {
                c.arg("--read").arg(root);
            }
            c.arg("--").arg(program).args(args);
            c
        }
        None => {
            let mut c = tokio::process::Command::new(program);
            c.args(args);
            c
        }
    };
    command
        .current_dir(staging)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LC_ALL", "C")
        // sort spills to temporary files on huge inputs: give it nowhere to write.
        .env("TMPDIR", "/nonexistent/autodream-no-temp")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    let collect = async {
        let (out, err) = tokio::join!(read_capped(&mut stdout), read_capped(&mut stderr));
        let status = child.wait().await;
        (out, err, status)
    };
    let (out, err, status) = match tokio::time::timeout(tools.bash.timeout, collect).await {
        Ok(result) => result,
        Err(_) => {
            return Ok(ToolOutcome::error(format!(
                "the command ran longer than {} s and was stopped; narrow it",
                tools.bash.timeout.as_secs()
            )));
        }
    };
    let status = status.map_err(|e| format!("waiting for the command failed: {e}"))?;
    let (stdout_text, stdout_cut) = out;
    let (stderr_text, stderr_cut) = err;
    let code = status.code();
    let mut text = stdout_text;
    if stdout_cut {
        text.push_str("\n[output cut at 64 KB]\n");
    }
    if !stderr_text.trim().is_empty() {
        text.push_str(&format!("\n[stderr]\n{stderr_text}"));
        if stderr_cut {
            text.push_str("\n[stderr cut]\n");
        }
    }
    let failed = match code {
        Some(0) => false,
        // grep, and the like: 1 means "nothing found", not a failure.
        Some(1) => text.trim().is_empty() && !stderr_text.trim().is_empty(),
        _ => true,
    };
    if code != Some(0) {
        let how = code.map_or("was stopped by a signal".to_string(), |c| format!("exit status {c}"));
        text.push_str(&format!("\n[{how}]"));
    }
    if text.trim().is_empty() {
        text = "(no output)".into();
    }
    let (content, redactions) = tools.present(&cap_output(text, "narrow the command"));
    Ok(ToolOutcome { content, is_error: failed, redactions, ..ToolOutcome::default() })
}

/// Reads up to [`MAX_CAPTURE_BYTES`], then drains the rest so the child never blocks.
async fn read_capped(stream: &mut (impl tokio::io::AsyncRead + Unpin)) -> (String, bool) {
    let mut kept = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut cut = false;
    loop {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = MAX_CAPTURE_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
                if n > room {
                    cut = true;
                }
            }
        }
    }
    (String::from_utf8_lossy(&kept).into_owned(), cut)
}
