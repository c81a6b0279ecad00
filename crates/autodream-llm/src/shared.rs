//! What both engines share beyond the prompt: how the environment is read, the one place
//! text passes through the secret redactor, how long text is cut, and how the facts a dream
//! archived are counted. Neither engine reaches into the other; both come here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Reads an environment variable (injectable so tests need not touch the process environment).
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The process environment, as an [`EnvLookup`].
pub fn process_env() -> EnvLookup {
    Arc::new(|name| std::env::var(name).ok())
}

/// Redacts `text`; returns the text to show and how many secrets were replaced.
///
/// Transcripts, daily logs and project files can hold keys and passwords: anything read from
/// them is redacted before it reaches a model (see [`autodream_core::redact`]), and the
/// replacements are counted for the dream summary.
pub fn redact_text(text: &str) -> (String, usize) {
    let redaction = autodream_core::redact::redact(text);
    (redaction.text.into_owned(), redaction.count)
}

/// Cuts `text` to `max_chars` characters, saying how much was left out and what to do (`hint`).
pub fn cap_chars(text: String, max_chars: usize, hint: &str) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text;
    }
    let cut: String = text.chars().take(max_chars).collect();
    format!("{cut}\n[output cut: {} more characters not shown; {hint}]", total - max_chars)
}

/// The longest summary an engine reports (characters).
pub const MAX_SUMMARY_CHARS: usize = 2_000;

/// Headings under which the prompt tells the model to keep contradicted facts.
const ARCHIVE_HEADINGS: &[&str] = &["superseded", "archive", "archived"];

/// Bullets the dream moved into archive sections: per touched file, the archived bullets in
/// staging minus those the real file already had. Validation lets files shrink by this much.
pub fn archived_facts(touched: &BTreeSet<PathBuf>, staging: &Path, memory_dir: &Path) -> usize {
    touched
        .iter()
        .map(|rel| {
            let after = std::fs::read_to_string(staging.join(rel)).map(|t| count_archived(&t)).unwrap_or(0);
            let before =
                std::fs::read_to_string(memory_dir.join(rel)).map(|t| count_archived(&t)).unwrap_or(0);
            after.saturating_sub(before)
        })
        .sum()
}

/// Top-level bullets under an archive heading (`## Superseded`, `## Archive`).
pub fn count_archived(text: &str) -> usize {
    let mut in_archive = false;
    let mut count = 0;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("#") {
            let title = heading.trim_start_matches('#').trim().to_ascii_lowercase();
            in_archive = ARCHIVE_HEADINGS.iter().any(|h| title.starts_with(h));
            continue;
        }
        if in_archive && (line.starts_with("- ") || line.starts_with("* ")) {
            count += 1;
        }
    }
    count
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

    #[test]
    fn long_text_is_cut_with_a_note_of_what_is_left_out() {
        assert_eq!(cap_chars("short".into(), 10, "x"), "short");
        let cut = cap_chars("abcdefghij".into(), 4, "narrow it");
        assert_eq!(cut, "abcd\n[output cut: 6 more characters not shown; narrow it]");
    }

    #[test]
    fn archived_bullets_are_counted_under_archive_headings_only() {
        let text = "---\nname: x\n---\n- live fact\n## Superseded\n- old one (2026-01-01)\n  **Why:** x\n- old two\n## Notes\n- not archived\n";
        assert_eq!(count_archived(text), 2);
        assert_eq!(count_archived("- a\n- b\n"), 0);
    }

    #[test]
    fn only_bullets_archived_by_this_dream_count() {
        let tmp = tempfile::tempdir().unwrap();
        let (staging, memory) = (tmp.path().join("staging"), tmp.path().join("memory"));
        std::fs::create_dir_all(&staging).unwrap();
        std::fs::create_dir_all(&memory).unwrap();
        std::fs::write(memory.join("a.md"), "## Superseded\n- old\n").unwrap();
        std::fs::write(staging.join("a.md"), "## Superseded\n- old\n- older\n- oldest\n").unwrap();
        std::fs::write(staging.join("new.md"), "## Archive\n- gone\n").unwrap();
        let touched: BTreeSet<PathBuf> = ["a.md", "new.md"].into_iter().map(PathBuf::from).collect();
        assert_eq!(archived_facts(&touched, &staging, &memory), 3);
    }
}
