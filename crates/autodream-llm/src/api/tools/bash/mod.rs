//! Bash, read-only, without a shell.
//!
//! The model writes a command line as it would for a shell; no shell ever sees it. The line is
//! split into words (single and double quotes, backslash escapes); any shell operator
//! (`; | & < > ( )`, backquotes, newlines), any expansion (`$`, unquoted `* ? [ ] { }`, a
//! leading `~`) or comment refuses it. The program must be in [`ALLOWED_PROGRAMS`], named
//! bare; options that write, run other programs, follow links or read lists of files from
//! elsewhere are refused per program; every operand that names a file is resolved by the
//! [`Sandbox`](crate::sandbox::Sandbox) like any tool path (memory paths become their staging copies). The program is
//! then executed directly, with an empty environment, from the staging folder, and — where the
//! kernel has Landlock — through the sandbox launcher so the process itself can write nowhere.
//!
//! One file per step: `words` (splitting the line), `rules` (each program's options), `check`
//! (the whole check, operands resolved) and `exec` (running it).

mod check;
mod exec;
mod rules;
mod words;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::{ToolBox, ToolOutcome, parse_input};

pub use check::check_command;
pub use exec::find_program;
pub use words::split_words;

/// The programs Bash runs.
pub const ALLOWED_PROGRAMS: &[&str] =
    &["ls", "cat", "head", "tail", "wc", "grep", "find", "stat", "file", "sort", "uniq", "du"];

/// How Bash runs programs.
#[derive(Debug, Clone)]
pub struct BashSettings {
    /// The binary that restricts itself with Landlock and then execs the program
    /// (`<launcher> __sandbox-exec --read DIR… -- PROGRAM ARGS…`). `None`: run directly.
    pub launcher: Option<PathBuf>,
    /// Longest a command may run.
    pub timeout: Duration,
    /// Folders searched, in order, for the allowed programs.
    pub program_dirs: Vec<PathBuf>,
}

impl Default for BashSettings {
    fn default() -> Self {
        BashSettings {
            launcher: None,
            timeout: Duration::from_secs(20),
            program_dirs: vec![PathBuf::from("/usr/bin"), PathBuf::from("/bin")],
        }
    }
}

/// A command line that passed every check, ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedCommand {
    /// The bare program name.
    pub program: String,
    /// Arguments, with file operands replaced by their real (staging) paths.
    pub args: Vec<OsString>,
}

#[derive(Deserialize)]
struct Input {
    command: String,
}

pub(super) async fn run(tools: &ToolBox, input: &serde_json::Value) -> ToolOutcome {
    let input: Input = match parse_input("Bash", input, "{\"command\": string}") {
        Ok(i) => i,
        Err(outcome) => return outcome,
    };
    let checked = match check_command(&tools.sandbox, &input.command) {
        Ok(c) => c,
        Err(e) => return ToolOutcome::from_access(e),
    };
    let Some(program) = find_program(&tools.bash.program_dirs, &checked.program) else {
        return ToolOutcome::error(format!("{} is not installed on this machine", checked.program));
    };
    match exec::execute(tools, &program, &checked.args).await {
        Ok(outcome) => outcome,
        Err(message) => ToolOutcome::error(message),
    }
}
