//! Codex CLI rollouts (placeholder: being filled in).

use serde_json::Value;

use super::Turn;
use super::parse::LineOutcome;

pub(crate) fn parse_line(_v: &Value, _session: &str, _line: usize, _out: &mut Vec<Turn>) -> LineOutcome {
    LineOutcome::Unknown
}
