//! Transcript parsing and session listing against real transcripts from three agents
//! (`tests/fixtures/transcripts/`, see `SOURCES.md` there) and against damaged input.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use autodream_core::sessions::{
    ParsedSession, Role, SessionFile, SessionFormat, TurnKind, count_touched_since, detect_format,
    parse_session, parse_session_file, session_file_for, touched_since,
};
use filetime::FileTime;
use proptest::prelude::*;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts")
}

fn fixture_text(name: &str) -> String {
    let path = fixtures_dir().join(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", path.display()))
}

fn parse_fixture(name: &str, format: SessionFormat) -> ParsedSession {
    let file = session_file_for(&fixtures_dir().join(name)).expect("fixture exists");
    parse_session_file(&file, format).expect("fixture is readable")
}

/// A session record for text that lives only in memory.
fn in_memory(id: &str) -> SessionFile {
    SessionFile {
        id: id.to_string(),
        path: PathBuf::from(format!("{id}.jsonl")),
        modified_at: jiff::Timestamp::UNIX_EPOCH,
    }
}

/// (conversation, tool, meta) turn counts.
fn kind_counts(parsed: &ParsedSession) -> (usize, usize, usize) {
    let count = |kind| parsed.turns.iter().filter(|t| t.kind == kind).count();
    (count(TurnKind::Conversation), count(TurnKind::ToolNoise), count(TurnKind::Meta))
}

fn non_blank_lines(text: &str) -> usize {
    text.lines().filter(|l| !l.trim().is_empty()).count()
}

const CLAUDE_V1: &str = "claude_real_v1.0.98_init_session_1af7fc5e.jsonl";
const CLAUDE_SHORT: &str = "claude_real_v2.1.38_short.jsonl";
const CLAUDE_TOOLS: &str = "claude_real_v2.1.38_tool_heavy.jsonl";
const CODEX: &str = "codex_rollout_real_cli0.66.0_codex_session.jsonl";
const GEMINI: &str = "gemini_cli_session_real_gemini_session.json";

// Expected turn counts for the real samples.
//
// They were derived outside this crate: a throwaway Python script loaded every line with
// `json.loads` and applied the classification rules as written in the module docs of
// `claude.rs` and `codex.rs` (text blocks → conversation unless `isMeta`/`isCompactSummary`,
// command/local-command markup or an "[Request interrupted by user" marker → meta; blank text
// dropped; consecutive text blocks of one line → one turn; each `tool_use`/`tool_result`
// block → one tool turn; `thinking` dropped; `system` with content → meta; Codex `message`
// parts → conversation, `<environment_context>`/`<user_instructions>` user text → meta,
// `function_call`/`custom_tool_call`/`*_output` → tool, everything else no turn). The tool
// counts were cross-checked with `grep -o '"type":"tool_use"'` / `'"type":"tool_result"'`
// (12+12, 2+2 and 6+6) and, for Codex, 5 calls + 5 outputs. The conversation and meta lines
// were also checked by reading each file:
// - v1.0.98: conversation = the 3 assistant text lines (3, 24, 29); meta = the `/init`
//   command line and its `isMeta` expansion.
// - 2.1.38 short: conversation = the user prompt (line 4) and the assistant text of line 7
//   (line 5 is a blank "\n\n" block); meta = the interruption marker and 2 `local_command`
//   system entries.
// - 2.1.38 tool heavy: conversation = 2 user prompts + 1 assistant text; meta = 2 interruption
//   markers, the `/mcp` caveat, command and stdout user lines, and 2 system entries.
// - Codex: conversation = 2 user + 2 assistant messages; meta = the environment context.
const CLAUDE_V1_COUNTS: (usize, usize, usize) = (3, 24, 2);
const CLAUDE_SHORT_COUNTS: (usize, usize, usize) = (2, 4, 3);
const CLAUDE_TOOLS_COUNTS: (usize, usize, usize) = (3, 12, 7);
const CODEX_COUNTS: (usize, usize, usize) = (4, 10, 1);
/// The Gemini session is one pretty-printed JSON document of 318 non-blank lines, none of
/// which is a JSON object on its own (`grep -c . file`).
const GEMINI_LINES: usize = 318;

#[test]
fn every_real_sample_parses_with_the_expected_turn_counts() {
    for (name, format, counts) in [
        (CLAUDE_V1, SessionFormat::Claude, CLAUDE_V1_COUNTS),
        (CLAUDE_SHORT, SessionFormat::Claude, CLAUDE_SHORT_COUNTS),
        (CLAUDE_TOOLS, SessionFormat::Claude, CLAUDE_TOOLS_COUNTS),
        (CODEX, SessionFormat::Codex, CODEX_COUNTS),
    ] {
        let auto = parse_fixture(name, SessionFormat::Auto);
        assert_eq!(auto.format, format, "{name}");
        assert_eq!(auto.skipped_lines, 0, "{name}");
        assert_eq!(kind_counts(&auto), counts, "{name}");
        // Naming the format gives the same result as detecting it.
        assert_eq!(parse_fixture(name, format), auto, "{name}");
        // Every entry of these files is timestamped, and turns come in file order.
        assert!(auto.turns.iter().all(|t| t.time.is_some()), "{name}");
        assert!(auto.turns.windows(2).all(|w| w[0].line <= w[1].line), "{name}");
        assert!(auto.turns.iter().all(|t| t.session == auto.file.id), "{name}");
    }
}

#[test]
fn real_turns_carry_the_said_text_and_the_tool_calls() {
    let short = parse_fixture(CLAUDE_SHORT, SessionFormat::Auto);
    let conversation: Vec<_> = short
        .turns
        .iter()
        .filter(|t| t.is_conversation())
        .map(|t| (t.role, t.text.as_str(), t.line))
        .collect();
    assert_eq!(
        conversation,
        [
            (Role::User, "mix phx.server doesnt seem to start", 4),
            (
                Role::Assistant,
                "Let me check the project structure and try running the server to see the error.",
                7
            ),
        ]
    );
    let first_tool = short.turns.iter().find(|t| t.kind == TurnKind::ToolNoise).expect("a tool turn");
    assert_eq!(first_tool.line, 8);
    assert!(first_tool.text.starts_with("Bash: {"), "{}", first_tool.text);
    assert_eq!(first_tool.time.map(|t| t.to_string()).as_deref(), Some("2026-02-10T21:12:01.117Z"));

    let v1 = parse_fixture(CLAUDE_V1, SessionFormat::Auto);
    let meta: Vec<_> = v1.turns.iter().filter(|t| t.kind == TurnKind::Meta).map(|t| t.line).collect();
    assert_eq!(meta, [1, 2]);
    assert!(v1.turns.iter().any(|t| t.text.starts_with("TodoWrite: {\"todos\":[")));
    // The thinking of the 2.1.38 session never reaches a turn; its tool results are bounded.
    let heavy = parse_fixture(CLAUDE_TOOLS, SessionFormat::Auto);
    assert!(heavy.turns.iter().all(|t| t.text.chars().count() <= 2001));
    assert!(heavy.turns.iter().any(|t| t.text.ends_with('…')), "the Read result is longer than the cap");

    let codex = parse_fixture(CODEX, SessionFormat::Auto);
    let said: Vec<_> = codex.turns.iter().filter(|t| t.is_conversation()).map(|t| t.text.as_str()).collect();
    assert_eq!(said[0], "add myapp directory and create myapp/hoge.py which shows result of print(1+1).");
    assert_eq!(said[2], "cd to myapp and run python hoge.py");
    assert!(codex.turns.iter().any(|t| t.text.starts_with("apply_patch: *** Begin Patch")));
}

#[test]
fn detect_format_picks_the_format_of_each_sample() {
    assert_eq!(detect_format(&fixture_text(CLAUDE_V1)), Some(SessionFormat::Claude));
    assert_eq!(detect_format(&fixture_text(CLAUDE_SHORT)), Some(SessionFormat::Claude));
    assert_eq!(detect_format(&fixture_text(CLAUDE_TOOLS)), Some(SessionFormat::Claude));
    assert_eq!(detect_format(&fixture_text(CODEX)), Some(SessionFormat::Codex));
    assert_eq!(detect_format(&fixture_text(GEMINI)), Some(SessionFormat::Gemini));
    assert_eq!(
        detect_format(r#"{"timestamp":"2026-01-01T00:00:00Z","role":"user","content":"hi"}"#),
        Some(SessionFormat::Generic)
    );
    assert_eq!(detect_format(""), None);
}

#[test]
fn a_json_document_read_as_a_json_lines_format_is_skipped_line_by_line() {
    // Auto-detection reads Gemini CLI's pretty-printed chat whole (the `gemini` reader).
    let gemini = parse_fixture(GEMINI, SessionFormat::Auto);
    assert_eq!(gemini.format, SessionFormat::Gemini);
    assert_eq!(gemini.skipped_lines, 0);
    assert!(!gemini.turns.is_empty());
    // Forced to a JSON Lines format, no line of it is an entry: all skipped, never fatal.
    for format in [SessionFormat::Claude, SessionFormat::Codex, SessionFormat::Generic] {
        let forced = parse_fixture(GEMINI, format);
        assert_eq!((forced.turns.len(), forced.skipped_lines), (0, GEMINI_LINES), "{format}");
    }
}

#[test]
fn reading_a_file_as_the_wrong_format_skips_its_lines_instead_of_inventing_turns() {
    let claude_as_codex = parse_fixture(CLAUDE_TOOLS, SessionFormat::Codex);
    assert!(claude_as_codex.turns.is_empty());
    assert_eq!(claude_as_codex.skipped_lines, non_blank_lines(&fixture_text(CLAUDE_TOOLS)));
    let codex_as_claude = parse_fixture(CODEX, SessionFormat::Claude);
    assert!(codex_as_claude.turns.is_empty());
    assert_eq!(codex_as_claude.skipped_lines, non_blank_lines(&fixture_text(CODEX)));
}

#[test]
fn a_transcript_cut_mid_line_loses_only_that_line() {
    let text = fixture_text(CLAUDE_SHORT);
    // The last line is a `local_command` system entry (one meta turn); cut it in half.
    let last_start = text.trim_end().rfind('\n').expect("several lines") + 1;
    let cut = last_start + (text.len() - last_start) / 2;
    let parsed = parse_session(in_memory("cut"), &text[..cut], SessionFormat::Auto);
    assert_eq!(parsed.skipped_lines, 1);
    let (conversation, tool, meta) = CLAUDE_SHORT_COUNTS;
    assert_eq!(kind_counts(&parsed), (conversation, tool, meta - 1));
}

#[test]
fn malformed_and_unknown_lines_are_counted_and_the_rest_still_parses() {
    let text = [
        r#"{"type":"user","message":{"role":"user","content":"first"},"timestamp":"2026-01-01T10:00:00Z"}"#,
        "not json at all",
        r#"{"type":"user","message":{"role":"user","content":"unterminated"#,
        r#"{"type":"hologram","uuid":"x"}"#,
        r#"{"type":"user","uuid":"no-message"}"#,
        "",
        "   ",
        "[]",
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"second"}]}}"#,
    ]
    .join("\n");
    let parsed = parse_session(in_memory("damaged"), &text, SessionFormat::Claude);
    assert_eq!(parsed.skipped_lines, 5);
    let texts: Vec<_> = parsed.turns.iter().map(|t| (t.text.as_str(), t.line)).collect();
    assert_eq!(texts, [("first", 1), ("second", 9)]);
}

#[test]
fn what_no_reader_looks_at_is_checked_but_changes_nothing() {
    // A tool's structured result (`toolUseResult`), a progress payload (`data`): skipped
    // unbuilt, before or after the keys that are read; still checked as JSON.
    let bare = r#"{"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"timestamp":"2026-01-01T10:00:00Z"}"#;
    let with_result = r#"{"toolUseResult":{"stdout":"ok","file":{"content":"x\ny","lines":[1,2]}},"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"timestamp":"2026-01-01T10:00:00Z","data":[1,{"a":null}]}"#;
    let turns = |text: &str| parse_session(in_memory("lean"), text, SessionFormat::Claude);
    let (a, b) = (turns(bare), turns(with_result));
    assert_eq!(a.turns, b.turns);
    assert_eq!((a.turns.len(), b.skipped_lines), (1, 0));
    let broken = r#"{"type":"user","message":{"role":"user","content":"hi"},"toolUseResult":{"stdout":"ok""#;
    let progress = r#"{"type":"progress","data":{"message":{"type":"user","content":"not a turn"}}}"#;
    let parsed = turns(&[broken, progress].join("\n"));
    assert_eq!((parsed.turns.len(), parsed.skipped_lines), (0, 1));
}

#[test]
fn string_or_array_content_reads_the_same() {
    let text = [
        r#"{"type":"user","message":{"role":"user","content":"use tabs in Makefiles"}}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"use tabs in Makefiles"}]}}"#,
    ]
    .join("\n");
    let parsed = parse_session(in_memory("content"), &text, SessionFormat::Auto);
    assert_eq!(parsed.turns.len(), 2);
    assert_eq!(parsed.turns[0].text, parsed.turns[1].text);
    assert_eq!(parsed.turns[0].kind, TurnKind::Conversation);
    assert_eq!(parsed.turns[1].kind, TurnKind::Conversation);
}

#[test]
fn binary_bytes_are_skipped_and_never_fatal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("binary.jsonl");
    let mut bytes = Vec::new();
    bytes.extend_from_slice(br#"{"type":"user","message":{"content":"before"}}"#);
    bytes.push(b'\n');
    bytes.extend_from_slice(&[0x00, 0x01, 0xff, 0xfe, 0x00, b'{', 0x80, b'\n']);
    bytes.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"nul \x00 inside\"}}\n");
    // An invalid UTF-8 byte inside a string is replaced, and the line still counts.
    bytes.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"caf\xe9 after\"}}\n");
    fs::write(&path, &bytes).expect("write");
    let file = session_file_for(&path).expect("stat");
    assert_eq!(file.id, "binary");
    let parsed = parse_session_file(&file, SessionFormat::Auto).expect("read");
    assert_eq!(parsed.format, SessionFormat::Claude);
    assert_eq!(parsed.skipped_lines, 2);
    let texts: Vec<_> = parsed.turns.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["before", "caf\u{fffd} after"]);
}

#[test]
fn the_file_writes_of_a_sessions_sub_agents_are_read_into_it_where_they_happened() {
    let dir = tempfile::tempdir().expect("temp dir");
    let id = "0ea9b4b6-40e9-407b-8bb5-a31903367d21";
    let main = dir.path().join(format!("{id}.jsonl"));
    let line = |time: &str, body: &str| format!(r#"{{"type":"{body}","timestamp":"{time}""#);
    let user = |time: &str, text: &str| {
        format!(r#"{},"uuid":"{time}","message":{{"role":"user","content":"{text}"}}}}"#, line(time, "user"))
    };
    let edit = |time: &str, path: &str, added: &str| {
        format!(
            r#"{},"uuid":"e{time}","message":{{"content":[{{"type":"tool_use","id":"t{time}","name":"Edit","input":{{"file_path":"{path}","old_string":"","new_string":"{added}"}}}}]}}}}"#,
            line(time, "assistant")
        )
    };
    fs::write(
        &main,
        [
            user("2026-02-21T01:00:00Z", "document it and reference it in memory"),
            // A client of 2.1.4x records the executor's write in the session too: once is enough.
            format!(
                r#"{},"data":{{"type":"agent_progress","message":{}}}}}"#,
                line("2026-02-21T01:20:00Z", "progress"),
                edit("2026-02-21T01:20:00Z", "/p/memory/MEMORY.md", "- Always consult docs/X.md")
            ),
            user("2026-02-21T02:00:00Z", "thanks, now open a PR"),
        ]
        .join("\n"),
    )
    .expect("write");
    let agents = dir.path().join(id).join("subagents");
    fs::create_dir_all(agents.join("workflow-1")).expect("mkdir");
    // The executor reads, then writes the memory file; a workflow's agent one folder deeper.
    fs::write(
        agents.join("agent-a1.jsonl"),
        [
            format!(
                r#"{},"uuid":"r1","message":{{"content":[{{"type":"tool_use","id":"r","name":"Read","input":{{"file_path":"/p/memory/MEMORY.md"}}}}]}}}}"#,
                line("2026-02-21T01:10:00Z", "assistant")
            ),
            edit("2026-02-21T01:20:00Z", "/p/memory/MEMORY.md", "- Always consult docs/X.md"),
            "{not json".to_string(),
        ]
        .join("\n"),
    )
    .expect("write");
    fs::write(
        agents.join("workflow-1").join("agent-b2.jsonl"),
        edit("2026-02-21T03:00:00Z", "/p/src/lib.rs", "fn main() {}"),
    )
    .expect("write");
    // Not a sub-agent's transcript: left alone.
    fs::write(agents.join("notes.jsonl"), edit("2026-02-21T01:30:00Z", "/p/x.md", "no")).expect("write");

    let parsed =
        parse_session_file(&session_file_for(&main).expect("stat"), SessionFormat::Auto).expect("read");
    let seen: Vec<(Role, TurnKind, usize, &str)> =
        parsed.turns.iter().map(|t| (t.role, t.kind, t.line, &t.text[..t.text.len().min(20)])).collect();
    assert_eq!(
        seen,
        [
            (Role::User, TurnKind::Conversation, 1, "document it and refe"),
            (Role::Assistant, TurnKind::ToolNoise, 2, "Edit: {\"file_path\":\""),
            (Role::User, TurnKind::Conversation, 3, "thanks, now open a P"),
            (Role::Assistant, TurnKind::ToolNoise, 3, "Edit: {\"file_path\":\""),
        ]
    );
    assert!(parsed.turns[1].text.contains("Always consult docs/X.md"));
    assert!(parsed.turns[3].text.contains("/p/src/lib.rs"));
    assert!(parsed.turns.iter().all(|t| t.session == id));
    // The session's own lines are what is counted: the sub-agent's bad line is not the session's.
    assert_eq!(parsed.skipped_lines, 0);
}

#[test]
fn a_missing_file_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("temp dir");
    assert!(session_file_for(&dir.path().join("gone.jsonl")).is_err());
    let ghost = SessionFile { path: dir.path().join("gone.jsonl"), ..in_memory("gone") };
    assert!(parse_session_file(&ghost, SessionFormat::Auto).is_err());
}

const CURRENT: &str = "11111111-2222-4333-8444-555555555555";
const FRESH: &str = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const STALE: &str = "99999999-8888-4777-8666-555555555555";

/// A sessions folder: two fresh UUID transcripts (one of them the current session), one
/// stale one, and fresh files that must never count for the agent's layout.
fn sessions_folder() -> (tempfile::TempDir, SystemTime) {
    let dir = tempfile::tempdir().expect("temp dir");
    let now = SystemTime::now();
    let since = now - Duration::from_secs(3600);
    let fresh = FileTime::from_system_time(now - Duration::from_secs(60));
    let stale = FileTime::from_system_time(now - Duration::from_secs(7200));
    let root = dir.path();
    let write = |rel: &str, mtime: FileTime| {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        fs::write(&path, "{}\n").expect("write");
        filetime::set_file_mtime(&path, mtime).expect("set mtime");
    };
    write(&format!("{CURRENT}.jsonl"), fresh);
    write(&format!("{FRESH}.jsonl"), fresh);
    write(&format!("{STALE}.jsonl"), stale);
    write("agent-1af7fc5e.jsonl", fresh);
    write("notes.jsonl", fresh);
    write(&format!("{FRESH}.json"), fresh);
    // Subagent transcripts live in sub-folders; a folder named like a transcript is not one.
    write(&format!("{FRESH}/subagents/agent-42.jsonl"), fresh);
    write(&format!("nested/{STALE}.jsonl"), fresh);
    fs::create_dir(root.join(format!("{}.jsonl", "12345678-1234-4234-8234-123456789abc"))).expect("mkdir");
    (dir, since)
}

#[test]
fn touched_since_counts_fresh_uuid_transcripts_minus_the_current_session() {
    let (dir, since) = sessions_folder();
    let ids = |format, since, exclude| {
        touched_since(dir.path(), format, since, exclude)
            .expect("listing")
            .into_iter()
            .map(|f| f.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(SessionFormat::Claude, Some(since), Some(CURRENT)), [FRESH]);
    assert_eq!(
        count_touched_since(dir.path(), SessionFormat::Claude, Some(since), Some(CURRENT)).expect("count"),
        1
    );
    // Without the exclusion the current session counts; without `since`, the stale one too.
    assert_eq!(count_touched_since(dir.path(), SessionFormat::Claude, Some(since), None).expect("count"), 2);
    let mut all = ids(SessionFormat::Claude, None, None);
    all.sort();
    assert_eq!(all, [CURRENT, STALE, FRESH]);
    // Oldest first.
    assert_eq!(ids(SessionFormat::Claude, None, Some(CURRENT)), [STALE, FRESH]);
    // Other formats accept any `*.jsonl` name, but never `agent-*` files or sub-folders.
    let mut generic = ids(SessionFormat::Generic, Some(since), Some(CURRENT));
    generic.sort();
    assert_eq!(generic, ["aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "notes"]);
    assert_eq!(
        count_touched_since(dir.path(), SessionFormat::Generic, Some(since), Some(CURRENT)).expect("count"),
        2
    );
}

#[test]
fn a_missing_sessions_folder_counts_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("no-such-project");
    assert_eq!(count_touched_since(&missing, SessionFormat::Claude, None, None).expect("count"), 0);
    assert!(touched_since(&missing, SessionFormat::Claude, None, None).expect("list").is_empty());
}

const FORMATS: [SessionFormat; 4] =
    [SessionFormat::Auto, SessionFormat::Claude, SessionFormat::Codex, SessionFormat::Generic];

/// Checks what must hold for any input: no line is both skipped and a source of turns, turns
/// point at real lines in order, and never more lines are skipped than there are.
fn assert_consistent(text: &str, parsed: &ParsedSession) {
    let lines: Vec<&str> = text.lines().collect();
    let non_blank = non_blank_lines(text);
    assert!(parsed.skipped_lines <= non_blank);
    assert_ne!(parsed.format, SessionFormat::Auto);
    assert!(parsed.turns.windows(2).all(|w| w[0].line <= w[1].line));
    for turn in &parsed.turns {
        assert!(turn.line >= 1 && turn.line <= lines.len());
        assert!(!lines[turn.line - 1].trim().is_empty());
    }
    let lines_with_turns: std::collections::BTreeSet<usize> = parsed.turns.iter().map(|t| t.line).collect();
    assert!(lines_with_turns.len() + parsed.skipped_lines <= non_blank);
}

/// The words the parsers look at: entry and block types, roles, markers.
const PARSER_WORDS: &[&str] = &[
    "user",
    "assistant",
    "system",
    "attachment",
    "summary",
    "progress",
    "agent-name",
    "marble-origami-commit",
    "text",
    "thinking",
    "tool_use",
    "tool_result",
    "server_tool_use",
    "image",
    "response_item",
    "event_msg",
    "session_meta",
    "compacted",
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "reasoning",
    "input_text",
    "output_text",
    "developer",
    "<environment_context>",
    "<command-name>",
    "[Request interrupted by user]",
    "2026-02-10T21:16:12.381Z",
    "<synthetic>",
    "",
];

/// Any small JSON value, biased towards the words the parsers look at.
fn json_leaf() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        1 => Just(serde_json::Value::Null),
        1 => any::<bool>().prop_map(serde_json::Value::Bool),
        1 => any::<i64>().prop_map(serde_json::Value::from),
        3 => prop::sample::select(PARSER_WORDS).prop_map(serde_json::Value::from),
        1 => ".{0,40}".prop_map(serde_json::Value::from),
        1 => prop::collection::vec(any::<u8>(), 0..3).prop_map(|b| serde_json::json!(b)),
    ]
}

/// A content block or a Codex content part: a typed object with random fields.
fn json_block() -> impl Strategy<Value = serde_json::Value> {
    (prop::sample::select(PARSER_WORDS), json_leaf(), json_leaf(), json_leaf(), any::<bool>()).prop_map(
        |(block_type, text, input, content, typed)| {
            let mut block =
                serde_json::json!({ "text": text, "name": text, "input": input, "content": content });
            if typed {
                block["type"] = serde_json::Value::from(block_type);
            }
            block
        },
    )
}

/// Message content in any of the shapes the formats allow, and some they do not.
fn json_content() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        1 => json_leaf(),
        3 => prop::collection::vec(json_block(), 0..4).prop_map(serde_json::Value::Array),
    ]
}

/// One transcript line shaped like an entry of the agent's format, a Codex rollout line, or
/// a generic line, with random types, flags and content: lines that reach deep into the
/// readers instead of failing at the first key.
fn transcript_like_json() -> impl Strategy<Value = serde_json::Value> {
    // Mostly the words one reader dispatches on at that spot, sometimes any word.
    let likely = |words: &'static [&'static str]| {
        prop_oneof![
            3 => prop::sample::select(words),
            1 => prop::sample::select(PARSER_WORDS),
        ]
    };
    prop_oneof![
        (
            likely(&["user", "assistant", "system", "attachment"]),
            json_content(),
            json_leaf(),
            any::<bool>(),
            any::<bool>(),
            json_leaf(),
        )
            .prop_map(|(entry_type, content, uuid, meta, synthetic, timestamp)| {
                serde_json::json!({
                    "type": entry_type,
                    "uuid": uuid,
                    "timestamp": timestamp,
                    "isMeta": meta,
                    "isApiErrorMessage": synthetic,
                    "message": { "role": entry_type, "content": content },
                    "content": "system text",
                    "attachment": { "content": "attached" },
                })
            }),
        (
            likely(&["response_item", "event_msg", "compacted"]),
            likely(&["message", "function_call", "custom_tool_call", "function_call_output", "reasoning"]),
            likely(&["user", "assistant", "developer"]),
            json_content(),
            json_leaf(),
            json_leaf(),
        )
            .prop_map(|(entry_type, item_type, role, content, name, output)| {
                serde_json::json!({
                    "timestamp": "2025-12-09T19:55:16.295Z",
                    "type": entry_type,
                    "payload": {
                        "type": item_type, "role": role, "content": content, "name": name,
                        "arguments": output, "input": output, "output": output, "message": output,
                    },
                })
            }),
        (likely(&["user", "assistant", "tool", "system"]), json_content(), json_leaf()).prop_map(
            |(role, content, name)| { serde_json::json!({ "role": role, "content": content, "name": name }) }
        ),
        json_leaf(),
    ]
}

#[test]
fn the_shaped_json_generator_reaches_turns_of_every_format() {
    // Guards the robustness property below: it only means something if generated lines get
    // past the first checks of each reader and produce turns.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = transcript_like_json();
    let mut turns_by_format = std::collections::HashMap::new();
    for _ in 0..2000 {
        let line = strategy.new_tree(&mut runner).expect("a value").current().to_string();
        for format in [SessionFormat::Claude, SessionFormat::Codex, SessionFormat::Generic] {
            let parsed = parse_session(in_memory("gen"), &line, format);
            for turn in parsed.turns {
                *turns_by_format.entry((format, turn.kind)).or_insert(0usize) += 1;
            }
        }
    }
    for format in [SessionFormat::Claude, SessionFormat::Codex] {
        for kind in [TurnKind::Conversation, TurnKind::ToolNoise, TurnKind::Meta] {
            assert!(turns_by_format.get(&(format, kind)).copied().unwrap_or(0) > 0, "{format} {kind:?}");
        }
    }
    assert!(turns_by_format.get(&(SessionFormat::Generic, TurnKind::Conversation)).copied().unwrap_or(0) > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_lines_never_panic(lines in prop::collection::vec(".*", 0..12)) {
        let text = lines.join("\n");
        for format in FORMATS {
            let parsed = parse_session(in_memory("prop"), &text, format);
            assert_consistent(&text, &parsed);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        // The same lossy decoding `parse_session_file` applies to what it reads.
        let text = String::from_utf8_lossy(&bytes);
        for format in FORMATS {
            let parsed = parse_session(in_memory("bytes"), &text, format);
            assert_consistent(&text, &parsed);
        }
    }

    #[test]
    fn transcript_shaped_json_never_panics(values in prop::collection::vec(transcript_like_json(), 1..8)) {
        let text = values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("\n");
        for format in FORMATS {
            let parsed = parse_session(in_memory("shaped"), &text, format);
            assert_consistent(&text, &parsed);
        }
    }

    #[test]
    fn a_real_transcript_cut_anywhere_loses_at_most_the_cut_line(
        which in 0usize..4,
        fraction in 0.0f64..1.0,
    ) {
        let (name, counts) = [
            (CLAUDE_V1, CLAUDE_V1_COUNTS),
            (CLAUDE_SHORT, CLAUDE_SHORT_COUNTS),
            (CLAUDE_TOOLS, CLAUDE_TOOLS_COUNTS),
            (CODEX, CODEX_COUNTS),
        ][which];
        let bytes = fixture_text(name).into_bytes();
        // Truncating at a byte offset may split a UTF-8 character, as a crash mid-write would.
        let cut = (bytes.len() as f64 * fraction) as usize;
        let text = String::from_utf8_lossy(&bytes[..cut]);
        let parsed = parse_session(in_memory("cut"), &text, SessionFormat::Auto);
        assert_consistent(&text, &parsed);
        prop_assert!(parsed.skipped_lines <= 1);
        let (c, t, m) = kind_counts(&parsed);
        prop_assert!(c <= counts.0 && t <= counts.1 && m <= counts.2);
    }
}
