//! Gather: turns and daily-log entries become statements, with the noise taken out.
//!
//! Only conversation turns are signal. From them we drop what a memory must not hold:
//! fenced and indented code, injected tags (`<system-reminder>` …), tool chatter, file
//! paths, command lines and stack traces, and image placeholders that carry no
//! description. An image with a description keeps the description: it says what the
//! person showed ("a cup with a dog face on it"). Secrets are redacted here, on the whole
//! turn, before anything is split or stored.

use std::sync::LazyLock;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use regex::Regex;

use autodream_core::memdir::daily_log::LogEntry;
use autodream_core::sessions::{ParsedSession, Role, Turn, TurnKind};

/// Who said a statement, which decides where its facts go.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Voice {
    /// A named speaker (a conversation between people): facts go to that person's file.
    Person(String),
    /// The user of a coding agent (no name in the transcript).
    User,
    /// A daily-log note the agent chose to write: always salient.
    Note,
}

/// Where a statement was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementOrigin {
    Transcript,
    DailyLog,
}

/// One cleaned turn or log entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub voice: Voice,
    /// Cleaned, redacted text. Image descriptions are separate, in `images`.
    pub text: String,
    /// Descriptions of images the speaker shared.
    pub images: Vec<String>,
    pub at: Timestamp,
    /// The local day of `at`: the anchor for relative dates and the fact's date.
    pub date: Date,
    /// Session id, or the log file.
    pub source: String,
    /// 1-based line in the source (orders statements within a source).
    pub line: usize,
    pub origin: StatementOrigin,
    /// Secrets replaced in this statement.
    pub redactions: usize,
    /// The statement answers a question the other party just asked.
    pub replies_to_question: bool,
    /// The speaker's first turn in the session (their news since last time).
    pub opens_session: bool,
}

/// What gathering found.
#[derive(Debug, Default)]
pub struct Gathered {
    pub statements: Vec<Statement>,
    /// Bytes of input reviewed: conversation turns as a reader sees them (`speaker: text`,
    /// images as `[image: description]`) and log entries. The base of the memory budget.
    pub reviewed_bytes: u64,
    pub sessions: usize,
    pub turns: usize,
    pub log_entries: usize,
    /// Conversation turns that were pure noise once cleaned.
    pub dropped_turns: usize,
}

/// A fenced code block (closed or running to the end).
pub(crate) static FENCE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)```.*?(?:```|\z)|~~~.*?(?:~~~|\z)").expect("valid regex"));
static TAG_BLOCK_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<(system-reminder|command-name|command-message|command-args|local-command-stdout|local-command-stderr|bash-input|bash-stdout|bash-stderr|user-prompt-submit-hook|ide_selection|ide_opened_file)>.*?</(?:system-reminder|command-name|command-message|command-args|local-command-stdout|local-command-stderr|bash-input|bash-stdout|bash-stderr|user-prompt-submit-hook|ide_selection|ide_opened_file)>")
        .expect("valid regex")
});
/// `[shares a photo: a photo of X]`, `[image: X]`, `[Image #1]`, `<image>`.
static IMAGE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\[(?:(?:shares?|shared|sends?|sent|posts?|posted) (?:a |an )?)?(?:photo|picture|image|img|video|screenshot)(?:\s*#\d+)?(?::\s*([^\]]*))?\]|<image>")
        .expect("valid regex")
});
static CAPTION_LEAD_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:a |an )?(?:photo|picture|image|close up|closeup) of ").expect("valid regex")
});
static INLINE_CODE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`[^`\n]{1,200}`").expect("valid regex"));
/// Things that look like paths: `./x`, `~/.config`, `/usr/bin`, `a/b/c`, `main.rs`, `C:\\x`.
/// One slash between words ("sci-fi/fantasy", "24/7") is prose, not a path.
static PATH_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|\s)(?:~/|\.{1,2}/|/|[A-Za-z]:\\)[\w.-]+(?:[/\\][\w.-]*)*|(?:^|\s)[\w.-]+(?:/[\w.-]+){2,}/?|\b[\w-]+(?:/[\w-]+)*\.(?:rs|py|ts|tsx|js|jsx|go|java|c|h|cpp|hpp|toml|yaml|yml|json|md|lock|sh|txt|css|html|sql|rb|kt|swift)\b")
        .expect("valid regex")
});

/// Lines that are code, logs or commands rather than words to a person.
fn is_code_like_line(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return false;
    }
    if line.starts_with("    ") || line.starts_with('\t') {
        return true;
    }
    if t.starts_with("$ ") || (t.starts_with("at ") && t.contains(".js:")) {
        return true;
    }
    if t.starts_with("Traceback")
        || t.starts_with("File \"")
        || t.starts_with("error[")
        || t.starts_with("warning:")
    {
        return true;
    }
    let symbols = t
        .chars()
        .filter(|c| matches!(c, '{' | '}' | ';' | '=' | '<' | '>' | '(' | ')' | '[' | ']' | '|' | '\\'))
        .count();
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    symbols * 4 > letters.max(1) && symbols >= 3
}

/// Cleans a turn's text: code, tags, paths and empty image placeholders removed; image
/// descriptions returned apart.
pub fn clean_text(raw: &str) -> (String, Vec<String>) {
    let text = FENCE_RE.replace_all(raw, " ");
    let text = TAG_BLOCK_RE.replace_all(&text, " ");
    let mut images = Vec::new();
    let text = IMAGE_RE.replace_all(&text, |caps: &regex::Captures<'_>| {
        if let Some(c) = caps.get(1) {
            let caption = CAPTION_LEAD_RE.replace(c.as_str().trim(), "");
            let caption = caption.trim().trim_end_matches('.');
            if !caption.is_empty() {
                images.push(caption.to_string());
            }
        }
        " "
    });
    let mut kept_lines = Vec::new();
    for line in text.lines() {
        if is_code_like_line(line) {
            continue;
        }
        let line = INLINE_CODE_RE.replace_all(line, " ");
        let line = PATH_RE.replace_all(&line, " ");
        let squeezed = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if !squeezed.is_empty() {
            kept_lines.push(squeezed);
        }
    }
    (kept_lines.join("\n"), images)
}

/// The length of a turn's text with every image placeholder written `[image: description]`.
fn rendered_len(text: &str) -> usize {
    let mut len = text.len();
    for caps in IMAGE_RE.captures_iter(text) {
        let whole = caps.get(0).map_or(0, |m| m.len());
        let shown = caps.get(1).map_or(0, |c| "[image: ]".len() + c.as_str().trim().len());
        len = len - whole + shown;
    }
    len
}

fn local_date(at: Timestamp, tz: &TimeZone) -> Date {
    at.to_zoned(tz.clone()).date()
}

/// Gathers statements from the sessions (conversation turns only) and the log entries.
pub fn gather(
    sessions: &[ParsedSession],
    log_entries: &[LogEntry],
    now: Timestamp,
    tz: &TimeZone,
    redact: &dyn Fn(&str) -> (String, usize),
) -> Gathered {
    let mut g = Gathered::default();
    for session in sessions {
        let mut any = false;
        // The last turn by someone else, and who has spoken so far in this session.
        let mut previous: Option<(&str, bool)> = None;
        let mut spoken: Vec<&str> = Vec::new();
        for turn in &session.turns {
            if turn.kind != TurnKind::Conversation {
                continue;
            }
            any = true;
            g.turns += 1;
            let who = turn.speaker_or_role();
            g.reviewed_bytes += (who.len() + 2 + rendered_len(&turn.text) + 1) as u64;
            let asked = previous.is_some_and(|(p, q)| p != who && q);
            let opens = !spoken.contains(&who);
            match statement_from_turn(turn, session, now, tz, redact) {
                Some(mut s) => {
                    s.replies_to_question = asked;
                    s.opens_session = opens;
                    g.statements.push(s);
                }
                None => g.dropped_turns += 1,
            }
            if opens {
                spoken.push(who);
            }
            previous = Some((who, turn.text.contains('?') || turn.text.contains('？')));
        }
        if any {
            g.sessions += 1;
        }
    }
    for entry in log_entries {
        g.log_entries += 1;
        g.reviewed_bytes += (entry.text.len() + 11) as u64;
        let (cleaned, images) = clean_text(&entry.text);
        let (text, redactions) = redact(&cleaned);
        if text.trim().is_empty() {
            continue;
        }
        g.statements.push(Statement {
            voice: Voice::Note,
            text,
            images,
            at: entry.at,
            date: entry.date,
            source: entry.file.clone(),
            line: entry.line,
            origin: StatementOrigin::DailyLog,
            redactions,
            replies_to_question: false,
            opens_session: false,
        });
    }
    // Oldest first, then by source and line: the order facts are learned in.
    g.statements.sort_by(|a, b| {
        a.at.cmp(&b.at).then_with(|| a.source.cmp(&b.source)).then_with(|| a.line.cmp(&b.line))
    });
    g
}

fn statement_from_turn(
    turn: &Turn,
    session: &ParsedSession,
    now: Timestamp,
    tz: &TimeZone,
    redact: &dyn Fn(&str) -> (String, usize),
) -> Option<Statement> {
    let voice = match (&turn.speaker, turn.role) {
        (Some(name), _) if !name.trim().is_empty() => Voice::Person(name.trim().to_string()),
        (_, Role::User) => Voice::User,
        // The assistant's own words are not the user's knowledge; tool and system text is noise.
        _ => return None,
    };
    let (cleaned, images) = clean_text(&turn.text);
    let (text, redactions) = redact(&cleaned);
    if text.trim().is_empty() && images.is_empty() {
        return None;
    }
    let at = turn.time.unwrap_or(if session.file.modified_at > Timestamp::UNIX_EPOCH {
        session.file.modified_at
    } else {
        now
    });
    Some(Statement {
        voice,
        text,
        images,
        at,
        date: local_date(at, tz),
        source: session.file.id.clone(),
        line: turn.line,
        origin: StatementOrigin::Transcript,
        redactions,
        replies_to_question: false,
        opens_session: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_tags_paths_and_empty_images_are_removed_captions_kept() {
        let raw = "Look at this [shares a photo: a photo of a cup with a dog face on it]\n```rust\nfn main() {}\n```\n<system-reminder>ignore me</system-reminder>I edited src/main.rs today [Image #1]";
        let (text, images) = clean_text(raw);
        assert_eq!(text, "Look at this\nI edited today");
        assert_eq!(images, ["a cup with a dog face on it"]);
    }

    #[test]
    fn reviewed_length_counts_images_as_their_description() {
        assert_eq!(rendered_len("Look [shares a photo: a dog]"), "Look [image: a dog]".len());
        assert_eq!(rendered_len("[Image #1] done"), " done".len());
        assert_eq!(rendered_len("plain"), 5);
    }

    #[test]
    fn code_like_lines_are_dropped_prose_is_not() {
        assert!(is_code_like_line("    let x = foo(bar);"));
        assert!(is_code_like_line("if (a) { b(); } else { c(); }"));
        assert!(is_code_like_line("Traceback (most recent call last):"));
        assert!(!is_code_like_line("I love hiking (and camping) with my kids."));
    }
}
