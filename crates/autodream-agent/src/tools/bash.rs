//! Bash, read-only, without a shell.
//!
//! The model writes a command line as it would for a shell; no shell ever sees it. The line is
//! split into words (single and double quotes, backslash escapes); any shell operator
//! (`; | & < > ( )`, backquotes, newlines), any expansion (`$`, unquoted `* ? [ ] { }`, a
//! leading `~`) or comment refuses it. The program must be in [`ALLOWED_PROGRAMS`], named
//! bare; options that write, run other programs, follow links or read lists of files from
//! elsewhere are refused per program; every operand that names a file is resolved by the
//! [`Sandbox`] like any tool path (memory paths become their staging copies). The program is
//! then executed directly, with an empty environment, from the staging folder, and — where the
//! kernel has Landlock — through the sandbox launcher so the process itself can write nowhere.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use tokio::io::AsyncReadExt;

use super::{ToolBox, ToolOutcome, cap_output, parse_input};
use crate::sandbox::{Access, AccessError, Denial, Sandbox};

/// The programs Bash runs.
pub const ALLOWED_PROGRAMS: &[&str] =
    &["ls", "cat", "head", "tail", "wc", "grep", "find", "stat", "file", "sort", "uniq", "du"];

/// Bytes of stdout (and of stderr) kept from a command.
const MAX_CAPTURE_BYTES: usize = 64 * 1024;

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
    match execute(tools, &program, &checked.args).await {
        Ok(outcome) => outcome,
        Err(message) => ToolOutcome::error(message),
    }
}

// ---- splitting ---------------------------------------------------------------------------

/// Splits a command line into words the way a POSIX shell would for the plain cases, and
/// refuses everything a shell would treat specially.
pub fn split_words(line: &str) -> Result<Vec<String>, Denial> {
    #[derive(PartialEq)]
    enum Quote {
        None,
        Single,
        Double,
    }
    let refuse = |what: &str| {
        Err(Denial(format!(
            "{what}: Bash here is not a shell and runs exactly one read-only program; no pipes, \
             redirections, command lists, substitutions, variables or unquoted globs. Use one command, \
             quote patterns, or use the Grep, Glob and Read tools"
        )))
    };
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote = Quote::None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Quote::Single => {
                if c == '\'' {
                    quote = Quote::None;
                } else {
                    word.push(c);
                }
            }
            Quote::Double => match c {
                '"' => quote = Quote::None,
                '$' => return refuse("`$` expands variables or commands even inside double quotes"),
                '`' => return refuse("backquotes run commands"),
                '\\' => match chars.next() {
                    Some(next @ ('"' | '\\' | '$' | '`')) => word.push(next),
                    Some('\n') => return refuse("a line continuation"),
                    Some(next) => {
                        word.push('\\');
                        word.push(next);
                    }
                    None => return refuse("an unterminated double quote"),
                },
                _ => word.push(c),
            },
            Quote::None => match c {
                ' ' | '\t' => {
                    if in_word {
                        words.push(std::mem::take(&mut word));
                        in_word = false;
                    }
                }
                '\n' | '\r' => return refuse("a line break (more than one command)"),
                '\'' => {
                    quote = Quote::Single;
                    in_word = true;
                }
                '"' => {
                    quote = Quote::Double;
                    in_word = true;
                }
                '\\' => match chars.next() {
                    Some('\n') | None => return refuse("a trailing backslash"),
                    Some(next) => {
                        word.push(next);
                        in_word = true;
                    }
                },
                ';' => return refuse("`;` (a command list)"),
                '|' => return refuse("`|` (a pipe)"),
                '&' => return refuse("`&` (background or `&&`)"),
                '>' => return refuse("`>` (an output redirection)"),
                '<' => return refuse("`<` (an input redirection)"),
                '(' | ')' => return refuse("parentheses (a subshell)"),
                '`' => return refuse("backquotes (command substitution)"),
                '$' => return refuse("`$` (a variable or substitution)"),
                '*' | '?' | '[' | ']' => return refuse("an unquoted glob character"),
                '{' | '}' => return refuse("braces (brace expansion)"),
                '~' if !in_word => return refuse("`~` (home directory expansion)"),
                '#' if !in_word => return refuse("`#` (a comment)"),
                _ => {
                    word.push(c);
                    in_word = true;
                }
            },
        }
    }
    if quote != Quote::None {
        return refuse("an unterminated quote");
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

// ---- per-program rules -------------------------------------------------------------------

/// What one program's options look like.
struct Rules {
    /// Short options that take an argument.
    short_with_arg: &'static str,
    /// Long options that take an argument (`--name VALUE` or `--name=VALUE`).
    long_with_arg: &'static [&'static str],
    /// Short options refused, with the reason.
    refused_short: &'static [(char, &'static str)],
    /// Long options refused (GNU tools accept unambiguous abbreviations, so any prefix of
    /// these is refused too), with the reason.
    refused_long: &'static [(&'static str, &'static str)],
    /// Most operands (uniq's second operand is an output file).
    max_operands: Option<usize>,
    /// grep: the first operand is the pattern unless `-e` was given.
    pattern_operand: bool,
}

const NO_LINKS: &str = "it follows symbolic links, which may lead outside the readable folders";
const READS_LIST: &str = "it reads names or patterns from another file; name files as operands instead";

fn rules(program: &str) -> Option<Rules> {
    let none: &[(char, &str)] = &[];
    Some(match program {
        "ls" => Rules {
            short_with_arg: "ITw",
            long_with_arg: &[
                "--block-size",
                "--format",
                "--hide",
                "--ignore",
                "--indicator-style",
                "--quoting-style",
                "--sort",
                "--tabsize",
                "--time",
                "--time-style",
                "--width",
            ],
            refused_short: &[('L', NO_LINKS)],
            refused_long: &[("--dereference", NO_LINKS)],
            max_operands: None,
            pattern_operand: false,
        },
        "cat" => Rules {
            short_with_arg: "",
            long_with_arg: &[],
            refused_short: none,
            refused_long: &[],
            max_operands: None,
            pattern_operand: false,
        },
        "head" => Rules {
            short_with_arg: "nc",
            long_with_arg: &["--lines", "--bytes"],
            refused_short: none,
            refused_long: &[],
            max_operands: None,
            pattern_operand: false,
        },
        "tail" => Rules {
            short_with_arg: "ncs",
            long_with_arg: &["--lines", "--bytes", "--sleep-interval", "--max-unchanged-stats"],
            refused_short: &[('f', "it never ends"), ('F', "it never ends")],
            refused_long: &[
                ("--follow", "it never ends"),
                ("--retry", "it never ends"),
                ("--pid", "it never ends"),
            ],
            max_operands: None,
            pattern_operand: false,
        },
        "wc" => Rules {
            short_with_arg: "",
            long_with_arg: &[],
            refused_short: none,
            refused_long: &[("--files0-from", READS_LIST)],
            max_operands: None,
            pattern_operand: false,
        },
        "grep" => Rules {
            short_with_arg: "eABCmdD",
            long_with_arg: &[
                "--regexp",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--label",
                "--include",
                "--exclude",
                "--exclude-dir",
                "--binary-files",
                "--devices",
                "--directories",
                "--group-separator",
            ],
            refused_short: &[('f', READS_LIST), ('R', NO_LINKS)],
            refused_long: &[
                ("--file", READS_LIST),
                ("--exclude-from", READS_LIST),
                ("--dereference-recursive", NO_LINKS),
            ],
            max_operands: None,
            pattern_operand: true,
        },
        "stat" => Rules {
            short_with_arg: "c",
            long_with_arg: &["--format", "--printf"],
            refused_short: &[('L', NO_LINKS)],
            refused_long: &[("--dereference", NO_LINKS)],
            max_operands: None,
            pattern_operand: false,
        },
        "file" => Rules {
            short_with_arg: "FeP",
            long_with_arg: &["--separator", "--exclude", "--exclude-quiet", "--parameter"],
            refused_short: &[
                ('C', "it compiles a magic file, which writes"),
                ('m', READS_LIST),
                ('f', READS_LIST),
                ('L', NO_LINKS),
            ],
            refused_long: &[
                ("--compile", "it writes a compiled magic file"),
                ("--magic-file", READS_LIST),
                ("--files-from", READS_LIST),
                ("--dereference", NO_LINKS),
            ],
            max_operands: None,
            pattern_operand: false,
        },
        "sort" => Rules {
            short_with_arg: "ktS",
            long_with_arg: &[
                "--key",
                "--field-separator",
                "--buffer-size",
                "--parallel",
                "--batch-size",
                "--sort",
            ],
            refused_short: &[('o', "it writes its output to a file"), ('T', "it writes temporary files")],
            refused_long: &[
                ("--output", "it writes its output to a file"),
                ("--temporary-directory", "it writes temporary files"),
                ("--compress-program", "it runs another program"),
                ("--files0-from", READS_LIST),
                ("--random-source", READS_LIST),
            ],
            max_operands: None,
            pattern_operand: false,
        },
        "uniq" => Rules {
            short_with_arg: "fsw",
            long_with_arg: &["--skip-fields", "--skip-chars", "--check-chars"],
            refused_short: none,
            refused_long: &[],
            max_operands: Some(1),
            pattern_operand: false,
        },
        "du" => Rules {
            short_with_arg: "Bdt",
            long_with_arg: &["--block-size", "--max-depth", "--threshold", "--exclude", "--time-style"],
            refused_short: &[('L', NO_LINKS), ('X', READS_LIST), ('D', NO_LINKS), ('H', NO_LINKS)],
            refused_long: &[
                ("--dereference", NO_LINKS),
                ("--dereference-args", NO_LINKS),
                ("--files0-from", READS_LIST),
                ("--exclude-from", READS_LIST),
            ],
            max_operands: None,
            pattern_operand: false,
        },
        _ => return None,
    })
}

/// Checks a command line and rewrites its file operands to real paths.
/// A missing operand file is an ordinary failure ([`AccessError::Failed`]); everything else
/// refused is a denial.
pub fn check_command(sandbox: &Sandbox, line: &str) -> Result<CheckedCommand, AccessError> {
    if line.contains('\0') {
        return Err(denied("the command contains a NUL byte".into()));
    }
    let words = split_words(line)?;
    let Some((program, args)) = words.split_first() else {
        return Err(denied("empty command".into()));
    };
    if program.contains('/') {
        return Err(denied(format!(
            "{program}: name the program bare (one of: {}), not by path",
            ALLOWED_PROGRAMS.join(", ")
        )));
    }
    if !ALLOWED_PROGRAMS.contains(&program.as_str()) {
        return Err(denied(format!(
            "{program} is not allowed: Bash runs only the read-only programs {}; memory files are changed \
             with Edit and Write",
            ALLOWED_PROGRAMS.join(", ")
        )));
    }
    let args =
        if program == "find" { check_find(sandbox, args)? } else { check_generic(sandbox, program, args)? };
    Ok(CheckedCommand { program: program.clone(), args })
}

fn refused_option(program: &str, option: &str, why: &str) -> AccessError {
    denied(format!("{program} {option} is refused: {why}"))
}

fn denied(message: String) -> AccessError {
    AccessError::Denied(Denial(message))
}

fn check_generic(sandbox: &Sandbox, program: &str, args: &[String]) -> Result<Vec<OsString>, AccessError> {
    let rules = rules(program).ok_or_else(|| denied(format!("{program} is not allowed")))?;
    let mut out = Vec::new();
    let mut operands = 0usize;
    let mut pattern_given = false;
    let mut only_operands = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if !only_operands && arg == "--" {
            only_operands = true;
            out.push(OsString::from(arg));
            continue;
        }
        if !only_operands && arg.starts_with("--") {
            let name = arg.split_once('=').map_or(arg.as_str(), |(n, _)| n);
            // An exact known option is itself; anything shorter may abbreviate a refused one.
            let exact_known = rules.long_with_arg.contains(&name);
            if let Some((full, why)) = rules
                .refused_long
                .iter()
                .find(|(full, _)| *full == name || (!exact_known && full.starts_with(name)))
            {
                return Err(refused_option(program, full, why));
            }
            out.push(OsString::from(arg));
            let takes_arg = rules.long_with_arg.iter().any(|l| l.starts_with(name));
            if takes_arg && !arg.contains('=') {
                let value = iter.next().ok_or_else(|| denied(format!("{program} {arg} needs a value")))?;
                out.push(OsString::from(value));
            }
            if matches!(name, "--regexp") {
                pattern_given = true;
            }
            continue;
        }
        if !only_operands && arg.starts_with('-') && arg.len() > 1 {
            out.push(OsString::from(arg));
            for (index, flag) in arg.char_indices().skip(1) {
                if let Some((_, why)) = rules.refused_short.iter().find(|(c, _)| *c == flag) {
                    return Err(refused_option(program, &format!("-{flag}"), why));
                }
                if rules.short_with_arg.contains(flag) {
                    if flag == 'e' {
                        pattern_given = true;
                    }
                    if index + flag.len_utf8() == arg.len() {
                        let value =
                            iter.next().ok_or_else(|| denied(format!("{program} -{flag} needs a value")))?;
                        out.push(OsString::from(value));
                    }
                    break;
                }
            }
            continue;
        }
        // An operand.
        if rules.pattern_operand && !pattern_given {
            pattern_given = true;
            out.push(OsString::from(arg));
            continue;
        }
        operands += 1;
        if let Some(max) = rules.max_operands
            && operands > max
        {
            return Err(denied(format!(
                "{program} takes at most {max} file here (a further operand would be written to)"
            )));
        }
        out.push(resolve_operand(sandbox, arg)?);
    }
    Ok(out)
}

/// `find`: starting points, then an expression whose actions must not write or run programs.
fn check_find(sandbox: &Sandbox, args: &[String]) -> Result<Vec<OsString>, AccessError> {
    const REFUSED: &[(&str, &str)] = &[
        ("-delete", "it deletes files"),
        ("-exec", "it runs other programs"),
        ("-execdir", "it runs other programs"),
        ("-ok", "it runs other programs"),
        ("-okdir", "it runs other programs"),
        ("-fprint", "it writes to a file"),
        ("-fprint0", "it writes to a file"),
        ("-fprintf", "it writes to a file"),
        ("-fls", "it writes to a file"),
        ("-follow", NO_LINKS),
        ("-files0-from", READS_LIST),
    ];
    let mut out = Vec::new();
    let mut iter = args.iter().peekable();
    // Global options before the starting points.
    while let Some(arg) = iter.peek() {
        match arg.as_str() {
            "-L" | "-H" => return Err(refused_option("find", arg, NO_LINKS)),
            "-P" => out.push(OsString::from(iter.next().map(String::as_str).unwrap_or("-P"))),
            "-D" => {
                out.push(OsString::from("-D"));
                iter.next();
                let value = iter.next().ok_or_else(|| denied("find -D needs a value".into()))?;
                out.push(OsString::from(value));
            }
            a if a.starts_with("-O") && a.len() > 2 => {
                out.push(OsString::from(iter.next().map(String::as_str).unwrap_or(a)))
            }
            _ => break,
        }
    }
    // Starting points: words until the expression begins.
    while let Some(arg) = iter.peek() {
        if arg.starts_with('-') || matches!(arg.as_str(), "!" | "(" | ")" | ",") {
            break;
        }
        let arg = iter.next().map(String::as_str).unwrap_or_default();
        out.push(resolve_operand(sandbox, arg)?);
    }
    // The expression.
    while let Some(arg) = iter.next() {
        if arg.starts_with("-fprint") {
            return Err(refused_option("find", arg, "it writes to a file"));
        }
        if let Some((name, why)) = REFUSED.iter().find(|(name, _)| name == arg) {
            return Err(refused_option("find", name, why));
        }
        out.push(OsString::from(arg));
        // Tests whose argument names a file: resolve it like any path.
        let names_file = matches!(arg.as_str(), "-newer" | "-anewer" | "-cnewer" | "-samefile")
            || (arg.starts_with("-newer") && arg.len() == 8 && !arg.ends_with('t'));
        if names_file {
            let value = iter.next().ok_or_else(|| denied(format!("find {arg} needs a file")))?;
            out.push(resolve_operand(sandbox, value)?);
        }
    }
    Ok(out)
}

/// A file operand: `-` (standard input, which is empty) or a path the sandbox accepts.
fn resolve_operand(sandbox: &Sandbox, arg: &str) -> Result<OsString, AccessError> {
    if arg == "-" {
        return Ok(OsString::from(arg));
    }
    let resolved = sandbox.resolve(arg, Access::Read)?;
    Ok(resolved.backing.into_os_string())
}

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

async fn execute(tools: &ToolBox, program: &Path, args: &[OsString]) -> Result<ToolOutcome, String> {
    let sandbox = &tools.sandbox;
    let staging = &sandbox.memory_root().backing;
    let use_launcher =
        tools.bash.launcher.as_ref().filter(|_| crate::landlock::landlock_status().is_available());
    let mut command = match use_launcher {
        Some(launcher) => {
            let mut c = tokio::process::Command::new(launcher);
            c.arg(crate::landlock::SANDBOX_EXEC_SUBCOMMAND);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_follow_shell_quoting() {
        assert_eq!(
            split_words("grep -rn 'a b' \"c d\" e\\ f").unwrap(),
            ["grep", "-rn", "a b", "c d", "e f"]
        );
        assert_eq!(split_words("grep \"x|y\" 'a;b'").unwrap(), ["grep", "x|y", "a;b"]);
        assert_eq!(split_words("ls ''").unwrap(), ["ls", ""]);
        assert_eq!(split_words("grep 'it''s'").unwrap(), ["grep", "its"]);
        assert_eq!(split_words("  ls   -la  ").unwrap(), ["ls", "-la"]);
    }

    #[test]
    fn operators_and_expansions_outside_single_quotes_are_refused() {
        for line in [
            "ls; rm x",
            "ls | wc",
            "ls && ls",
            "ls > f",
            "cat < f",
            "ls $(pwd)",
            "ls `pwd`",
            "echo $HOME",
            "ls *.md",
            "ls {a,b}",
            "ls ~/x",
            "ls # c",
            "ls\nrm x",
            "grep \"$x\"",
            "ls 'unterminated",
            "(ls)",
            "ls &",
        ] {
            assert!(split_words(line).is_err(), "{line:?} should be refused");
        }
        assert_eq!(split_words("grep '$x' f").unwrap(), ["grep", "$x", "f"]);
        assert_eq!(split_words("grep 'a*' f").unwrap(), ["grep", "a*", "f"]);
    }
}
