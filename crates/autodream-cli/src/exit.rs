//! Exit codes, and errors that carry one.

pub const OK: u8 = 0;
pub const ERROR: u8 = 1;
pub const USAGE: u8 = 2;
pub const REFUSED: u8 = 3;

/// An error with a specific exit code (usage mistakes, refusals by a gate or the lock).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CodedError {
    pub code: u8,
    pub message: String,
}

pub fn refused(message: impl Into<String>) -> anyhow::Error {
    CodedError { code: REFUSED, message: message.into() }.into()
}

/// A dream's result as the CLI reports it: refused by the lock or a gate exits 3, any other
/// failure 1.
pub fn dream_outcome(
    result: Result<autodream_core::dream::DreamOutcome, autodream_core::dream::DreamError>,
) -> anyhow::Result<autodream_core::dream::DreamOutcome> {
    match result {
        Ok(outcome) => Ok(outcome),
        Err(autodream_core::dream::DreamError::Refused(msg)) => Err(refused(msg)),
        Err(e) => Err(e.into()),
    }
}

pub fn usage(message: impl Into<String>) -> anyhow::Error {
    CodedError { code: USAGE, message: message.into() }.into()
}

/// The process's exit for a command's result: its code; a reader of standard output that went
/// away (`autodream status | head -1`) is done (0, nothing said); any other error is printed
/// on one line with the code it carries. Text still buffered is flushed first, so a closed
/// reader is found while errors can still be told apart.
pub fn finish(result: anyhow::Result<u8>) -> std::process::ExitCode {
    let result = result.and_then(|code| crate::output::flush().map(|()| code).map_err(Into::into));
    match result {
        Ok(code) => std::process::ExitCode::from(code),
        Err(e) if crate::output::is_closed_stdout(&e) => std::process::ExitCode::from(OK),
        Err(e) => {
            eprintln!("error: {}", render(&e));
            std::process::ExitCode::from(code_of(&e))
        }
    }
}

/// The exit for a command line clap refused, or for its `--help` and `--version`: the message
/// (to a reader that went away, nothing), exit 2 for a usage mistake, 0 for help.
pub fn usage_error(e: &clap::Error) -> std::process::ExitCode {
    let code = if e.use_stderr() { USAGE } else { OK };
    let _ = crate::output::clap_message(e);
    std::process::ExitCode::from(code)
}

pub fn code_of(e: &anyhow::Error) -> u8 {
    e.downcast_ref::<CodedError>().map_or(ERROR, |c| c.code)
}

/// The error and its causes on one line: "cannot read X: permission denied".
pub fn render(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    parts.join(": ")
}
