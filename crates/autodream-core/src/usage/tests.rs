use std::path::PathBuf;

use crate::memdir::index;

use super::*;

fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

/// A test layout: memory with `topics`, an empty sessions folder, a state folder.
fn layout(topics: &[&str]) -> (tempfile::TempDir, Locations) {
    let tmp = tempfile::tempdir().unwrap();
    let loc = Locations {
        memory_dir: tmp.path().join("memory"),
        state_dir: tmp.path().join("state"),
        sessions_dir: tmp.path().join("sessions"),
        project_dir: tmp.path().to_path_buf(),
    };
    std::fs::create_dir_all(&loc.sessions_dir).unwrap();
    std::fs::create_dir_all(&loc.memory_dir).unwrap();
    let mut index = String::new();
    for t in topics {
        std::fs::write(loc.memory_dir.join(t), format!("---\nname: {t}\n---\n- about {t}\n")).unwrap();
        index.push_str(&format!(
            "- [{t}]({t}) — all about {t}, in detail; with more words after the clause\n"
        ));
    }
    std::fs::write(loc.memory_dir.join("MEMORY.md"), index).unwrap();
    (tmp, loc)
}

/// A session transcript at `at` that reads `files` of the memory folder with the Read tool.
fn session(loc: &Locations, n: usize, at: &str, files: &[&str]) -> PathBuf {
    let mut lines = vec![
        serde_json::json!({"type": "user", "timestamp": at,
        "message": {"role": "user", "content": format!("session {n} in {}", loc.memory_dir.display())}})
        .to_string(),
    ];
    for (i, f) in files.iter().enumerate() {
        lines.push(
            serde_json::json!({"type": "assistant", "timestamp": at, "message": {"content": [
                {"type": "tool_use", "id": format!("t{n}-{i}"), "name": "Read",
                 "input": {"file_path": loc.memory_dir.join(f)}}]}})
            .to_string(),
        );
    }
    let path = loc.sessions_dir.join(format!("{:08}-0000-4000-8000-000000000000.jsonl", n));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn refresh_counts_each_session_once_and_recounts_a_grown_one() {
    let (_tmp, loc) = layout(&["a.md", "b.md", "c.md"]);
    session(&loc, 1, "2026-05-01T10:00:00Z", &["a.md", "b.md"]);
    let p = session(&loc, 2, "2026-05-02T10:00:00Z", &["a.md"]);
    let u = refresh(&loc, SessionFormat::Auto, ts("2026-05-03T00:00:00Z"));
    assert_eq!(u.sessions.len(), 2);
    assert_eq!((u.totals["a.md"].read, u.totals["b.md"].read), (2, 1));
    assert!(!u.totals.contains_key("c.md"));
    save(&loc, &u).unwrap();
    // Unchanged transcripts are taken from usage.json; a grown one is counted again, whole.
    let again = refresh(&loc, SessionFormat::Auto, ts("2026-05-04T00:00:00Z"));
    assert_eq!(again.totals, u.totals);
    assert_eq!(again.first_seen["a.md"], ts("2026-05-03T00:00:00Z"));
    let mut text = std::fs::read_to_string(&p).unwrap();
    text.push_str(
        &serde_json::json!({"type": "assistant", "timestamp": "2026-05-02T11:00:00Z", "message": {"content": [
            {"type": "tool_use", "id": "late", "name": "Read", "input": {"file_path": loc.memory_dir.join("c.md")}}]}})
        .to_string(),
    );
    std::fs::write(&p, text + "\n").unwrap();
    let grown = refresh(&loc, SessionFormat::Auto, ts("2026-05-04T00:00:00Z"));
    assert_eq!((grown.totals["a.md"].read, grown.totals["c.md"].read), (2, 1));
    // Other formats' sessions are not the client's: nothing is counted from them.
    let (_t2, other) = layout(&["a.md"]);
    session(&other, 1, "2026-05-01T10:00:00Z", &["a.md"]);
    assert!(refresh(&other, SessionFormat::Codex, ts("2026-05-03T00:00:00Z")).totals.is_empty());
}

#[test]
fn mcp_reads_and_searches_are_counted_from_the_log() {
    let (_tmp, loc) = layout(&["a.md", "b.md"]);
    let at = ts("2026-05-01T10:00:00Z");
    mcp::record(&loc, &[McpCall { at, tool: McpTool::MemoryRead, file: "a.md".into(), lines: None }])
        .unwrap();
    mcp::record(&loc, &mcp::search_calls(at, &[("b.md".into(), 4), ("b.md".into(), 9), ("a.md".into(), 1)]))
        .unwrap();
    let u = refresh(&loc, SessionFormat::Auto, at);
    assert_eq!(u.mcp_calls, 3);
    assert_eq!((u.totals["a.md"].read, u.totals["a.md"].search), (1, 1));
    assert_eq!(u.totals["b.md"].search, 1);
    assert_eq!(u.totals["b.md"].lines, BTreeMap::from([(4, 1), (9, 1)]));
    // A torn last line is left out, the rest still counts.
    let log = loc.state_dir.join(USAGE_LOG_FILE);
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("{\"at\":\"2026-05-01T1");
    std::fs::write(&log, text).unwrap();
    assert_eq!(refresh(&loc, SessionFormat::Auto, at).mcp_calls, 3);
    // A search read nothing whole: only memory_read follows a topic.
    let rate = follow_rate(&u, &loc.memory_dir, FOLLOW_WINDOW);
    assert_eq!((rate.read, rate.topics), (1, 2));
}

#[test]
fn the_follow_rate_looks_at_the_last_twenty_sessions() {
    let (_tmp, loc) = layout(&["a.md", "b.md", "c.md", "d.md"]);
    // Session 1 read d.md; 21 more sessions follow, two of which read a.md and b.md.
    session(&loc, 1, "2026-04-01T10:00:00Z", &["d.md"]);
    for n in 2..=22 {
        let files: &[&str] = match n {
            5 => &["a.md", "a.md"],
            20 => &["b.md"],
            _ => &[],
        };
        session(&loc, n, &format!("2026-04-{n:02}T12:00:00Z"), files);
    }
    let u = refresh(&loc, SessionFormat::Auto, ts("2026-03-01T00:00:00Z"));
    let rate = follow_rate(&u, &loc.memory_dir, FOLLOW_WINDOW);
    assert_eq!((rate.sessions, rate.topics, rate.read), (20, 4, 2));
    assert_eq!(rate.read_topics, BTreeMap::from([("a.md".into(), 2), ("b.md".into(), 1)]));
    assert_eq!(rate.unread, ["c.md", "d.md"]);
    assert_eq!(rate.sentence(), "2 of 4 topics read in the last 20 sessions");
    // d.md was read in session 1: 21 sessions since; c.md never, 22.
    assert_eq!((u.sessions_unread("d.md"), u.sessions_unread("c.md")), (Some(21), Some(22)));
    assert_eq!(u.sessions_unread("b.md"), Some(2));
    assert_eq!(u.sessions_unread("nope.md"), None);
    let empty = Usage::default();
    assert_eq!(follow_rate(&empty, &loc.memory_dir, 20).sentence(), "0 of 4 topics read in no session yet");
}

#[test]
fn sessions_before_a_topic_was_first_seen_do_not_count_against_it() {
    let (_tmp, loc) = layout(&["a.md"]);
    for n in 1..=25 {
        session(&loc, n, &format!("2026-04-{n:02}T12:00:00Z"), &[]);
    }
    // First seen after session 20: only the 5 sessions after it count.
    let u = refresh(&loc, SessionFormat::Auto, ts("2026-04-20T13:00:00Z"));
    assert_eq!(u.sessions_unread("a.md"), Some(5));
}

#[test]
fn short_hooks_keep_the_first_clause() {
    use order::short_hook;
    assert_eq!(short_hook("all about a.md, in detail; with more"), "all about a.md");
    assert_eq!(
        short_hook("deploys go out on Tuesdays. Rollback is one command"),
        "deploys go out on Tuesdays"
    );
    assert_eq!(short_hook("short"), "short");
    let long = "a very long clause without any separator that goes on and on past sixty characters for sure";
    let s = short_hook(long);
    assert!(s.ends_with('…') && s.chars().count() <= order::SHORT_HOOK_CHARS, "{s}");
}

#[test]
fn the_index_is_ordered_by_reads_and_unread_topics_are_shortened_never_dropped() {
    let (_tmp, loc) = layout(&["a.md", "b.md", "c.md", "d.md"]);
    let index = "# Memory\n- [a](a.md) — all about a, in detail\n- [b](b.md) — all about b, in detail\n\
                 - [c](c.md) — all about c, in detail\n## Later\n- [d](d.md) — all about d, in detail\n\
                 - [More](index-overflow.md) — older entries\n";
    std::fs::write(loc.memory_dir.join("MEMORY.md"), index).unwrap();
    std::fs::write(loc.memory_dir.join("index-overflow.md"), "- [x](x.md)\n").unwrap();
    let mut u = refresh(&loc, SessionFormat::Auto, ts("2026-01-01T00:00:00Z"));
    // No reads at all: nothing moves, nothing is written.
    assert_eq!(order::order_index(&loc.memory_dir, &u).unwrap(), order::OrderReport::default());
    for n in 1..=22 {
        let files: &[&str] = match n {
            5 | 6 => &["c.md"],
            10 | 22 => &["b.md"],
            _ => &[],
        };
        session(&loc, n, &format!("2026-04-{n:02}T12:00:00Z"), files);
    }
    u = refresh(&loc, SessionFormat::Auto, ts("2026-01-01T00:00:00Z"));
    let report = order::order_index(&loc.memory_dir, &u).unwrap();
    let after = std::fs::read_to_string(loc.memory_dir.join("MEMORY.md")).unwrap();
    // b and c were read twice each in the last 20 sessions, b last (session 22): b, c, then a.
    // The heading and d's section stay; a and d, unread for 22 sessions, are shortened; c,
    // unread for 16, is not.
    assert_eq!(
        after,
        "# Memory\n- [b](b.md) — all about b, in detail\n- [c](c.md) — all about c, in detail\n\
         - [a](a.md) — all about a\n## Later\n- [d](d.md) — all about d\n\
         - [More](index-overflow.md) — older entries\n"
    );
    assert_eq!(report.moved, 3);
    assert_eq!(report.shortened, ["a.md", "d.md"]);
    // Every entry is still there, and the topic files are untouched.
    assert_eq!(index::parse(&after).len(), index::parse(index).len());
    assert_eq!(
        std::fs::read_to_string(loc.memory_dir.join("a.md")).unwrap(),
        "---\nname: a.md\n---\n- about a.md\n"
    );
    // A second pass finds nothing more to do.
    assert_eq!(order::order_index(&loc.memory_dir, &u).unwrap(), order::OrderReport::default());
}
