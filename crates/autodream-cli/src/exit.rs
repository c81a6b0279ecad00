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
