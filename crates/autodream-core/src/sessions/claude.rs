//! The coding agent's transcripts (placeholder: being filled in).

use serde_json::Value;

use super::Turn;
use super::parse::LineOutcome;

#[derive(Debug, Default)]
pub(crate) struct State {}

pub(crate) fn parse_line(_v: &Value, _session: &str, _line: usize, _state: &mut State, _out: &mut Vec<Turn>) -> LineOutcome {
    LineOutcome::Unknown
}
