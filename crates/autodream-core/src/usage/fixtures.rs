//! The real client's transcripts of a session that reads memory (2.1.197 and 2.1.332, made by
//! `scripts/real-client/usage.sh`; `tests/fixtures/transcripts/SOURCES.md`), counted exactly,
//! and parsed with no line skipped and no injected text taken for the user's words.

use std::collections::BTreeMap;
use std::path::Path;

use super::Counts;
use super::transcript::{MemoryPrefix, count};
use crate::sessions::{SessionFile, SessionFormat, TurnKind, parse_session};

const V197: &str =
    include_str!("../../../../tests/fixtures/transcripts/claude_real_v2.1.197_memory_reads.jsonl");
const V332: &str =
    include_str!("../../../../tests/fixtures/transcripts/claude_real_v2.1.332_memory_reads.jsonl");
/// The memory folder as the fixtures name it.
const MEMORY: &str = "/home/dev/home/.claude/projects/-home-dev-proj/memory";

fn counts(read: u64, grep: u64, glob: u64, lines: &[usize]) -> Counts {
    Counts { read, grep, glob, search: 0, lines: lines.iter().map(|l| (*l, 1)).collect() }
}

#[test]
fn the_real_clients_reads_of_memory_are_counted_exactly() {
    // The scripted model: Read deploy.md; Grep "nextest" (files); Grep "Priya" (content, -n);
    // Glob *.md; Read deploy.md offset 7 limit 2.
    let want = BTreeMap::from([
        ("deploy.md".to_string(), counts(2, 0, 1, &[7, 8])),
        ("testing.md".to_string(), counts(0, 1, 1, &[])),
        ("billing.md".to_string(), counts(0, 1, 1, &[8])),
        ("MEMORY.md".to_string(), counts(0, 0, 1, &[])),
    ]);
    let memory = MemoryPrefix::new(Path::new(MEMORY));
    for (name, text) in [("2.1.197", V197), ("2.1.332", V332)] {
        let u = count(text, &memory);
        assert_eq!(u.files, want, "{name}");
        assert!(u.last_at.is_some(), "{name}");
    }
    // Another memory folder finds nothing in them.
    assert!(count(V332, &MemoryPrefix::new(Path::new("/home/dev/other/memory"))).files.is_empty());
}

#[test]
fn the_real_clients_transcripts_parse_with_no_line_skipped_and_blobs_are_not_the_user() {
    for (name, text, lines) in [("2.1.197", V197, 17), ("2.1.332", V332, 46)] {
        let file = SessionFile {
            id: "s".into(),
            path: format!("{name}.jsonl").into(),
            modified_at: jiff::Timestamp::UNIX_EPOCH,
        };
        let parsed = parse_session(file, text, SessionFormat::Auto);
        assert_eq!(text.lines().count(), lines, "{name}");
        assert_eq!((parsed.format, parsed.skipped_lines), (SessionFormat::Claude, 0), "{name}");
        let said: Vec<(crate::sessions::Role, &str)> =
            parsed.turns.iter().filter(|t| t.is_conversation()).map(|t| (t.role, t.text.as_str())).collect();
        assert_eq!(
            said,
            [
                (crate::sessions::Role::User, "when do we deploy?"),
                (crate::sessions::Role::Assistant, "Deploys go out on Tuesdays.")
            ],
            "{name}"
        );
        // The loaded MEMORY.md (in 2.1.332's api-request-blob) is in no turn at all.
        assert!(parsed.turns.iter().all(|t| !t.text.contains("user's auto-memory")), "{name}");
        assert_eq!(parsed.turns.iter().filter(|t| t.kind == TurnKind::ToolNoise).count(), 10, "{name}");
    }
    // The blob is there, and does hold MEMORY.md: it is left out on purpose.
    assert!(V332.lines().any(|l| l.contains("\"api-request-blob\"") && l.contains("user's auto-memory")));
}
