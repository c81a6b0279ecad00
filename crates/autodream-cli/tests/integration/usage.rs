//! What the agent reads from memory, counted from the real client's transcripts: `status`
//! (text and `--json`) and `doctor` show the follow rate, and a dream orders the index by
//! use (snapshot).

use crate::support::*;

/// The real client's transcript of a session that reads memory (2.1.332), with its memory
/// folder made `mem`.
fn reading_session(env: &Env, id: &str, secs: i64) {
    let fixture = read(&transcripts_dir().join("claude_real_v2.1.332_memory_reads.jsonl"));
    let text = fixture
        .replace("/home/dev/home/.claude/projects/-home-dev-proj/memory", &env.mem.display().to_string());
    env.session(id, &text, at(secs));
}

fn memory(env: &Env) {
    write(
        &env.mem.join("MEMORY.md"),
        "# Memory\n- [Billing](billing.md) — who owns billing\n- [Testing](testing.md) — how tests run\n\
         - [Deploy](deploy.md) — how a release reaches production\n",
    );
    for (f, body) in [
        ("deploy.md", "- deploys go out on Tuesdays"),
        ("testing.md", "- use cargo nextest"),
        ("billing.md", "- Priya owns billing"),
    ] {
        write(&env.mem.join(f), &format!("---\nname: {f}\n---\n{body}\n"));
    }
}

#[test]
fn reads_in_the_transcript_are_counted_and_the_dream_orders_the_index_by_use() {
    let env = Env::new();
    memory(&env);
    reading_session(&env, "6ba5e94d-e928-4db2-9dc6-af41ff332988", 1_000);
    let v = env.status_json();
    let u = &v["usage"];
    assert_eq!(u["follow_rate"], "1 of 3 topics read in the last session");
    assert_eq!(u["files"]["deploy.md"], serde_json::json!({"read": 2, "glob": 1, "lines": {"7": 1, "8": 1}}));
    assert_eq!(u["files"]["billing.md"], serde_json::json!({"grep": 1, "glob": 1, "lines": {"8": 1}}));
    assert_eq!(u["unread"], serde_json::json!(["billing.md", "testing.md"]));
    let text = env.run(&["status"]);
    assert!(text.stdout.contains("          1 of 3 topics read in the last session\n"), "{}", text.stdout);
    // status only looks: the counts are saved by a dream.
    assert!(!env.state_file("usage.json").exists());

    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
    insta::assert_snapshot!("usage_index_ordered_by_use", read(&env.mem.join("MEMORY.md")));
    let saved: serde_json::Value = serde_json::from_str(&read(&env.state_file("usage.json"))).unwrap();
    assert_eq!(saved["totals"]["deploy.md"]["read"], 2);
    assert_eq!(saved["sessions"].as_array().unwrap().len(), 1);
    // The topic files are untouched.
    assert_eq!(read(&env.mem.join("billing.md")), "---\nname: billing.md\n---\n- Priya owns billing\n");
}
