//! The one place tool output passes through the secret redactor before it reaches the model.
//!
//! Transcripts and project files can hold keys and passwords; anything a tool returns from
//! them is redacted first (see [`autodream_core::redact`]), and the number of replacements is
//! counted for the dream summary.

/// Redacts `text`; returns the text to show and how many secrets were replaced.
pub fn redact_text(text: &str) -> (String, usize) {
    let redaction = autodream_core::redact::redact(text);
    (redaction.text.into_owned(), redaction.count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_replaced_and_counted() {
        let (text, count) = redact_text(
            "user: the password=hunter2-staging; key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
        );
        assert_eq!(count, 2, "{text}");
        assert!(!text.contains("hunter2-staging") && !text.contains("abcdefghijklmnop"), "{text}");
        assert!(text.contains("[REDACTED:"), "{text}");
    }

    #[test]
    fn plain_text_passes_unchanged() {
        assert_eq!(redact_text("deploys move to Tuesdays"), ("deploys move to Tuesdays".to_string(), 0));
    }
}
