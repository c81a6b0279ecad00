//! The coding path never panics on what a user types: every stage that reads a sentence is
//! run on generated text made of the pieces that trip byte-slicing and pattern code (wide
//! colons and commas, dashes, quotes, parentheses, emoji, times, paths, code spans), and a
//! whole dream runs over sessions made of it.

use std::path::PathBuf;

use autodream_core::config::Config;
use autodream_core::engine::{CancelToken, DreamContext, Engine, NullProgress};
use autodream_core::sessions::{SessionFile, SessionFormat, parse_session};
use autodream_offline::OfflineEngine;
use autodream_offline::coding::{durable, moment, orders, said, tails};
use jiff::tz::TimeZone;
use proptest::prelude::*;

/// Pieces that have broken or could break slicing and patterns, mixed with plain words.
const PIECES: &[&str] = &[
    "：",
    "，",
    "。",
    "；",
    "！",
    "？",
    "—",
    "–",
    " - ",
    "\"",
    "'",
    "’",
    "(",
    ")",
    "（",
    "）",
    "[",
    "]",
    ":",
    ";",
    ",",
    ".",
    "!",
    "?",
    "…",
    "`",
    "```",
    "\n",
    "\n\n",
    "  ",
    "\t",
    "😀",
    "👍",
    "🎉",
    "02:30",
    "12:00:01",
    "v1.2.3",
    "https://x.example/a?b=c",
    "@src/main.rs",
    "~/.config/x",
    "it's",
    "there's",
    "we're",
    "don't",
    "I",
    "we",
    "you",
    "it",
    "this",
    "that",
    "the",
    "a",
    "no",
    "never",
    "always",
    "should",
    "must",
    "only",
    "use",
    "Use",
    "pnpm",
    "npm",
    "Ensure",
    "Spawn",
    "Session 1",
    "if",
    "If",
    "when",
    "When",
    "so",
    "but",
    "maybe",
    "password",
    "pw:",
    "token's",
    "密码是",
    "以后都用",
    "test3",
    "联调",
    "环境",
    "换了",
    "Q:",
    "1-",
    "2)",
    "- ",
    "* ",
    "#",
    "|",
    "<system-reminder>",
    "</system-reminder>",
    "<teammate-message teammate_id=\"x\">",
    "</teammate-message>",
    "<ide_opened_file>",
    "Implement the following plan:",
    "Chosen:",
    "Option A",
    "**Option B — x**",
    "+// Note:",
    "UserWarning:",
    "┃",
    "Создай",
    "ä",
    "é",
];

fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => prop::sample::select(PIECES).prop_map(str::to_string),
        1 => "\\PC{0,12}",
        2 => "[a-zA-Z0-9]{1,9}",
    ];
    // Pieces joined with and without a space: "test3：" breaks what "test3 ：" does not.
    prop::collection::vec((piece, any::<bool>()), 0..40).prop_map(|parts| {
        parts.into_iter().map(|(p, space)| if space { format!("{p} ") } else { p }).collect()
    })
}

fn day() -> jiff::civil::Date {
    jiff::civil::date(2026, 3, 10)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn no_stage_panics_on_what_a_user_types(s in text()) {
        let _ = durable::judge(&s, day(), false);
        let _ = durable::judge(&s, day(), true);
        let _ = durable::without_lead(&s);
        let _ = moment::of_the_moment(&s);
        let _ = orders::is_imperative(&s);
        let _ = orders::turns_to_order(&s);
        let _ = orders::is_order_form(&s);
        let _ = tails::trim_trailing_requests(&s);
        let (prose, _) = said::prose_of(&s);
        for sentence in autodream_offline::text::split_sentences(&prose) {
            let _ = durable::judge(sentence, day(), false);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn a_dream_over_generated_turns_finishes(turns in prop::collection::vec(text(), 1..6)) {
        let mut transcript = String::new();
        for (k, t) in turns.iter().enumerate() {
            let entry = serde_json::json!({
                "type": "user", "sessionId": "s", "timestamp": format!("2026-03-09T10:{k:02}:00Z"),
                "uuid": format!("u{k}"), "message": {"role": "user", "content": t},
            });
            transcript.push_str(&entry.to_string());
            transcript.push('\n');
        }
        let file = SessionFile {
            id: "s".into(),
            path: PathBuf::from("s.jsonl"),
            modified_at: "2026-03-09T11:00:00Z".parse().unwrap(),
        };
        let sessions = [parse_session(file, &transcript, SessionFormat::Claude)];
        let memory = tempfile::tempdir().unwrap();
        let project = memory.path().join("acme");
        let config = Config::default();
        let cancel = CancelToken::new();
        let ctx = DreamContext {
            staging: memory.path(),
            memory_dir: memory.path(),
            sessions_dir: memory.path(),
            project_dir: &project,
            sessions: &sessions,
            log_entries: &[],
            last_consolidated_at: None,
            now: "2026-03-10T00:00:00Z".parse().unwrap(),
            config: &config,
            progress: &NullProgress,
            cancel: &cancel,
        };
        prop_assert!(OfflineEngine::with_time_zone(TimeZone::UTC).dream(&ctx).is_ok());
    }
}
