//! Checking a command line before anything runs: the program must be allowed and named bare,
//! every option must pass its program's [`rules`](super::rules), `find`'s expression must not
//! write or run programs, and every operand that names a file is resolved by the [`Sandbox`]
//! like any tool path (memory paths become their staging copies).

use std::ffi::OsString;

use super::rules::{NO_LINKS, READS_LIST, rules};
use super::words::split_words;
use super::{ALLOWED_PROGRAMS, CheckedCommand};
use crate::sandbox::{Access, AccessError, Denial, Sandbox};

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
