//! The one place tool output passes through the secret redactor before it reaches the model.
//!
//! Transcripts and project files can hold keys and passwords; anything a tool returns from
//! them is redacted first, and the number of replacements is counted for the dream summary.

/// Redacts `text`; returns the text to show and how many secrets were replaced.
pub fn redact_text(text: &str) -> (String, usize) {
    // PENDING: autodream_core::redact::redact is being written in the core crate; until it
    // lands this passes the text through unchanged (see the crate report).
    (text.to_string(), 0)
}
