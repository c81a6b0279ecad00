//! `autodream mcp` driven by rmcp's client over a child process: the real binary on stdio,
//! the `initialize` handshake real clients use, every tool and the resources, checked
//! against the files on disk.

use std::process::Stdio;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ErrorCode, ErrorData, ReadResourceRequestParams};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::support::*;

/// A connected client and the server process it started.
struct Mcp {
    rt: tokio::runtime::Runtime,
    client: Option<RunningService<RoleClient, ()>>,
}

impl Mcp {
    /// `autodream mcp` in `env`, with `extra` arguments, connected.
    fn start(env: &Env, extra: &[&str]) -> Mcp {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let mut args = vec!["mcp"];
        args.extend_from_slice(extra);
        let cmd = tokio::process::Command::from(env.cmd(&args));
        let client = rt.block_on(async {
            let (transport, _) =
                TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().expect("spawn autodream mcp");
            ().serve(transport).await.expect("the MCP handshake")
        });
        Mcp { rt, client: Some(client) }
    }

    fn client(&self) -> &RunningService<RoleClient, ()> {
        self.client.as_ref().expect("connected")
    }

    fn call(&self, tool: &str, args: Value) -> Result<CallToolResult, ServiceError> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        self.rt.block_on(self.client().call_tool(params))
    }

    /// The text of a successful call.
    fn text(&self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args.clone()).unwrap_or_else(|e| panic!("{tool} {args}: {e}"));
        assert_ne!(result.is_error, Some(true), "{tool} {args}: {result:?}");
        text_of(&result)
    }

    /// The JSON of a successful call.
    fn json(&self, tool: &str, args: Value) -> Value {
        let text = self.text(tool, args);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool}: not JSON ({e}): {text}"))
    }

    /// The MCP error of a call that must fail.
    fn error(&self, tool: &str, args: Value) -> ErrorData {
        match self.call(tool, args.clone()) {
            Err(ServiceError::McpError(e)) => e,
            other => panic!("{tool} {args}: expected an MCP error, got {other:?}"),
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        if let Some(mut client) = self.client.take() {
            let _ = self.rt.block_on(client.close());
        }
    }
}

fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect::<Vec<_>>().join("")
}

/// A memory folder with an index, two topic files and a log, and a file outside it.
fn memory_env() -> Env {
    let env = Env::new();
    write(
        &env.mem.join("MEMORY.md"),
        "# Memory\n- [Deploy](deploy.md) — how a release reaches production\n\
         - [Testing](testing.md) — how tests run\n",
    );
    write(
        &env.mem.join("deploy.md"),
        "---\nname: Deploy\ndescription: how a release reaches production\ntype: project\n---\n# Deploy\n\n\
         - deployments go out on Thursday\n- the deploy goes to staging first, then to the canary\n",
    );
    write(&env.mem.join("testing.md"), "# Testing\n\n- integration tests run against a real database\n");
    write(&env.mem.join("logs/2026/05/2026-05-07.md"), "- [09:00] the staging deploy failed twice\n");
    write(&env.root.join("outside.md"), "a secret outside the memory\n");
    env
}

#[test]
fn lists_the_five_tools_and_search_ranks_the_better_line_first() {
    let env = memory_env();
    let mcp = Mcp::start(&env, &[]);
    let mut tools = mcp.rt.block_on(mcp.client().list_all_tools()).unwrap();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["dream_run", "dream_status", "memory_log", "memory_read", "memory_search"]);
    // The tools' names, descriptions and argument schemas are the server's interface.
    insta::assert_json_snapshot!("mcp_tools", tools);

    let result = mcp.json("memory_search", json!({"query": "Staging deploy"}));
    let hits = result["hits"].as_array().unwrap();
    let at = |i: usize| (hits[i]["file"].as_str().unwrap().to_string(), hits[i]["line"].as_u64().unwrap());
    // Both words, in query order: the log's line; both words apart: the topic's line; then
    // lines with one word.
    assert_eq!(at(0), ("logs/2026/05/2026-05-07.md".to_string(), 1));
    assert_eq!(at(1), ("deploy.md".to_string(), 9));
    assert!(hits[0]["score"].as_u64() > hits[1]["score"].as_u64(), "{result}");
    assert!(hits[1]["score"].as_u64() > hits[2]["score"].as_u64(), "{result}");
    // Each hit is the line as it is in the file.
    for h in hits {
        let file = read(&env.mem.join(h["file"].as_str().unwrap()));
        let line = file.lines().nth(h["line"].as_u64().unwrap() as usize - 1).unwrap();
        assert_eq!(line.trim(), h["text"], "{h}");
    }
    assert!(!result.to_string().contains("secret"));

    let one = mcp.json("memory_search", json!({"query": "deploy", "limit": 1}));
    assert_eq!(one["hits"].as_array().unwrap().len(), 1);
    let none = mcp.json("memory_search", json!({"query": "kubernetes"}));
    assert_eq!(none["hits"], json!([]));

    let e = mcp.error("memory_search", json!({"query": " ... "}));
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    assert!(e.message.contains("the query has no words"), "{e:?}");
    assert_eq!(mcp.error("memory_search", json!({"query": "x", "limit": 0})).code, ErrorCode::INVALID_PARAMS);
    // A wrong type is the SDK's tool error, which the model sees and can correct.
    let wrong = mcp.call("memory_search", json!({"query": 3})).unwrap();
    assert_eq!(wrong.is_error, Some(true));
    assert!(text_of(&wrong).contains("expected a string"), "{wrong:?}");
    assert!(matches!(
        mcp.error("no_such_tool", json!({})).code,
        ErrorCode::INVALID_PARAMS | ErrorCode::METHOD_NOT_FOUND
    ));
    // Still answering.
    assert_eq!(mcp.json("memory_search", json!({"query": "database"}))["hits"][0]["file"], "testing.md");
}

#[test]
fn memory_read_never_leaves_the_memory_folder_and_the_server_keeps_answering() {
    let env = memory_env();
    std::os::unix::fs::symlink(env.root.join("outside.md"), env.mem.join("linked.md")).unwrap();
    std::os::unix::fs::symlink(&env.root, env.mem.join("up")).unwrap();
    let mcp = Mcp::start(&env, &[]);
    assert_eq!(mcp.text("memory_read", json!({"path": "MEMORY.md"})), read(&env.mem.join("MEMORY.md")));
    assert_eq!(mcp.text("memory_read", json!({"path": "deploy.md"})), read(&env.mem.join("deploy.md")));
    let outside = env.root.join("outside.md");
    let cases = [
        ("../outside.md", "`..` leads out of the memory folder"),
        ("/etc/passwd", "an absolute path outside the memory folder"),
        (outside.to_str().unwrap(), "an absolute path outside the memory folder"),
        ("linked.md", "linked.md is a symbolic link"),
        ("up/outside.md", "up is a symbolic link"),
        ("missing.md", "missing.md: no such memory file"),
        ("deploy", "only Markdown memory files (.md) can be read"),
    ];
    for (path, message) in cases {
        let e = mcp.error("memory_read", json!({ "path": path }));
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{path}: {e:?}");
        assert!(e.message.contains(message), "{path}: {e:?}");
        assert!(!e.message.contains("a secret"), "{path}: {e:?}");
        // The server is still there after every refusal.
        assert_eq!(mcp.text("memory_read", json!({"path": "testing.md"})), read(&env.mem.join("testing.md")));
    }
    let e = mcp.call("memory_read", json!({})).unwrap();
    assert_eq!(e.is_error, Some(true), "a missing argument: {e:?}");
}

#[test]
fn resources_are_the_index_and_the_topic_files() {
    let env = memory_env();
    std::os::unix::fs::symlink(env.root.join("outside.md"), env.mem.join("linked.md")).unwrap();
    let mcp = Mcp::start(&env, &[]);
    let resources = mcp.rt.block_on(mcp.client().list_all_resources()).unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["memory://MEMORY.md", "memory://deploy.md", "memory://testing.md"]);
    assert_eq!(resources[1].description.as_deref(), Some("how a release reaches production"));
    assert_eq!(resources[1].mime_type.as_deref(), Some("text/markdown"));
    for r in &resources {
        let got = mcp
            .rt
            .block_on(mcp.client().read_resource(ReadResourceRequestParams::new(r.uri.clone())))
            .unwrap();
        let text = match &got.contents[0] {
            rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(text, read(&env.mem.join(&r.name)), "{}", r.uri);
    }
    for uri in ["memory://../outside.md", "memory://linked.md", "file:///etc/passwd", "memory://gone.md"] {
        match mcp.rt.block_on(mcp.client().read_resource(ReadResourceRequestParams::new(uri))) {
            Err(ServiceError::McpError(e)) => assert!(!e.message.contains("a secret"), "{uri}: {e:?}"),
            other => panic!("{uri}: expected an MCP error, got {other:?}"),
        }
    }
}

#[test]
fn memory_log_appends_exactly_one_entry_to_today_s_log() {
    let env = memory_env();
    let mcp = Mcp::start(&env, &[]);
    let result = mcp.json("memory_log", json!({"text": "use rebase,\n  not merge, on main"}));
    // NOW is 2026-05-08T13:56:00Z and TZ is UTC.
    assert_eq!(
        result,
        json!({"file": "logs/2026/05/2026-05-08.md", "line": 1, "entry": "- [13:56] use rebase, not merge, on main"})
    );
    assert_eq!(
        read(&env.mem.join("logs/2026/05/2026-05-08.md")),
        "- [13:56] use rebase, not merge, on main\n"
    );
    let second = mcp.json("memory_log", json!({"text": "the API key is sk-live-4f9a8b7c6d5e"}));
    assert_eq!(second["line"], 2);
    let log = read(&env.mem.join("logs/2026/05/2026-05-08.md"));
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(!log.contains("4f9a8b7c6d5e") && !second.to_string().contains("4f9a8b7c6d5e"), "{log}");
    assert_eq!(log.lines().nth(1), second["entry"].as_str());
    // The other day's log is untouched.
    assert_eq!(
        read(&env.mem.join("logs/2026/05/2026-05-07.md")),
        "- [09:00] the staging deploy failed twice\n"
    );
    let e = mcp.error("memory_log", json!({"text": " \n "}));
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(read(&env.mem.join("logs/2026/05/2026-05-08.md")), log, "a refused note writes nothing");
    // A note is found by search before any dream.
    let hits = mcp.json("memory_search", json!({"query": "rebase"}));
    assert_eq!(hits["hits"][0]["file"], "logs/2026/05/2026-05-08.md");
}

#[test]
fn hostile_arguments_are_invalid_params_that_name_the_problem_and_write_nothing() {
    let env = memory_env();
    write(&env.mem.join("notes/a.md"), "# A\n- a note in a folder\n");
    std::fs::create_dir_all(env.mem.join("folder.md")).unwrap();
    let today = env.mem.join("logs/2026/05/2026-05-08.md");
    let mcp = Mcp::start(&env, &[]);
    // One accepted note first: the refusals below must leave its log exactly as it is.
    mcp.json("memory_log", json!({"text": "the first note"}));
    let before = full_state(&env.mem);
    let log_before = read(&today);

    let long_path = format!("{}.md", "x".repeat(5000));
    let long_name = format!("notes/{}.md", "y".repeat(300));
    let reads = [
        ("a\0b.md", "contains a NUL byte"),
        ("MEMORY.md\0/../../outside.md", "contains a NUL byte"),
        (long_path.as_str(), "5003 bytes long; a memory file's path is at most 1024 bytes"),
        (long_name.as_str(), "is 303 bytes long; a file name is at most 255 bytes"),
        ("MEMORY.md/", "not a file"),
        ("MEMORY.md/.", "not a file"),
        ("notes/", "not a file"),
        ("folder.md", "folder.md: not a file: it is a folder"),
        ("MEMORY.md/deploy.md", "not a file: MEMORY.md is not a folder"),
        ("", "the path is empty"),
        ("   ", "the path is empty"),
    ];
    for (path, message) in reads {
        let e = mcp.error("memory_read", json!({ "path": path }));
        let shown: String = path.chars().take(40).collect();
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{shown:?}: {e:?}");
        assert!(e.message.contains(message), "{shown:?}: {e:?}");
        // The message repeats a long argument in part only, and never the machine's paths.
        assert!(e.message.len() < 400, "{shown:?}: a message of {} bytes", e.message.len());
        assert!(!e.message.contains(env.root.to_str().unwrap()), "{shown:?}: {e:?}");
    }
    for uri in ["memory://MEMORY.md/", "memory://a\0b.md", &format!("memory://{long_path}")] {
        match mcp.rt.block_on(mcp.client().read_resource(ReadResourceRequestParams::new(uri))) {
            Err(ServiceError::McpError(e)) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{e:?}"),
            other => panic!("expected an MCP error, got {other:?}"),
        }
    }

    // A note over 4 KB of UTF-8 (2 MB here, then 4098 bytes in 1366 characters) is refused whole.
    for text in ["z".repeat(2 * 1024 * 1024), "€".repeat(1366)] {
        let e = mcp.error("memory_log", json!({ "text": text }));
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{e:?}");
        assert!(e.message.contains("a log entry holds at most 4096 bytes (4 KB) of UTF-8"), "{e:?}");
        assert!(e.message.contains(&format!("the note is {} bytes", text.len())), "{e:?}");
    }
    assert_eq!(read(&today), log_before, "a refused note wrote to the log");
    assert_eq!(full_state(&env.mem), before, "a refused call changed the memory folder");

    // Exactly 4 KB is one entry; the server answered every refusal and is still there.
    let at_limit = mcp.json("memory_log", json!({ "text": "w".repeat(4096) }));
    assert_eq!(at_limit["line"], 2, "{at_limit}");
    assert_eq!(read(&today).lines().count(), 2);
    assert_eq!(mcp.text("memory_read", json!({"path": "notes/a.md"})), read(&env.mem.join("notes/a.md")));
}

/// Polls `dream_status` until the last dream is `id` and no longer running.
fn wait_for_dream(mcp: &Mcp, id: &str) -> Value {
    let mut last = Value::Null;
    let done = wait_until(Duration::from_secs(60), || {
        last = mcp.json("dream_status", json!({}));
        last["last_dream"]["id"] == id && last["last_dream"]["state"] != "running"
    });
    assert!(done, "dream {id} did not finish: {last}");
    last
}

#[test]
fn dream_run_starts_a_dream_in_the_background_under_the_lock() {
    let env = Env::new();
    env.run(&["init"]).assert_code(0);
    let mcp = Mcp::start(&env, &[]);
    let status = mcp.json("dream_status", json!({}));
    let gates: Vec<&str> =
        status["gates"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(gates, ["enabled", "time", "scan_throttle", "sessions", "lock"]);
    assert_eq!(status["failed_gate"], "sessions", "{status}");
    assert_eq!(status["would_dream"], false);
    assert_eq!(status["last_dream"], Value::Null);
    assert_eq!(status["running_pid"], Value::Null);

    mcp.json(
        "memory_log",
        json!({"text": "Decided: production deploys happen only on Tuesdays after the standup"}),
    );
    // The sessions gate is closed: dream_run does not need it.
    let started = mcp.json("dream_run", json!({}));
    assert_eq!(started["started"], true, "{started}");
    let id = started["task_id"].as_str().unwrap().to_string();
    assert_eq!(id, "20260508T135600Z");
    let status = wait_for_dream(&mcp, &id);
    assert_eq!(status["last_dream"]["state"], "completed", "{status}");
    assert_eq!(status["last_dream"]["engine"], "offline", "{status}");
    assert_eq!(status["last_consolidated_at"], NOW, "{status}");
    assert!(status["last_dream"]["summary"].as_str().unwrap().starts_with("Improved"), "{status}");
    // The note is now in a topic file the index points to, and search finds it there.
    let hits = mcp.json("memory_search", json!({"query": "Tuesdays"}));
    let topic =
        hits["hits"].as_array().unwrap().iter().find(|h| h["kind"] == "topic").expect("in a topic file");
    let file = topic["file"].as_str().unwrap();
    assert!(read(&env.mem.join(file)).contains("Tuesdays"));
    assert!(read(&env.mem.join("MEMORY.md")).contains(&format!("]({file})")));
}

#[test]
fn dream_run_says_which_process_holds_the_lock() {
    let env = Env::new();
    env.run(&["init"]).assert_code(0);
    // This test process is alive: a fresh lock naming it is held.
    let pid = std::process::id();
    write(&env.mem.join(LOCK), &format!("{pid}\n"));
    set_mtime(&env.mem.join(LOCK), at(-60));
    let before = full_state(&env.mem);
    let mcp = Mcp::start(&env, &[]);
    let result = mcp.call("dream_run", json!({})).unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let body: Value = serde_json::from_str(&text_of(&result)).unwrap();
    assert_eq!(body["started"], false);
    assert_eq!(body["running_pid"], pid);
    assert!(body["message"].as_str().unwrap().contains(&format!("already running (PID {pid})")), "{body}");
    assert_eq!(mcp.json("dream_status", json!({}))["running_pid"], pid);
    assert_eq!(full_state(&env.mem), before, "nothing moved, the holder keeps its lock");
}

#[test]
fn global_options_choose_the_memory_folder_and_a_bad_one_is_refused_before_serving() {
    let env = memory_env();
    let other = env.root.join("other-memory");
    write(&other.join("MEMORY.md"), "- the other memory mentions Thursday\n");
    let mcp = Mcp::start(&env, &["--memory-dir", other.to_str().unwrap()]);
    let hits = mcp.json("memory_search", json!({"query": "thursday"}));
    assert_eq!(hits["hits"].as_array().unwrap().len(), 1, "{hits}");
    assert_eq!(hits["hits"][0]["text"], "- the other memory mentions Thursday");
    drop(mcp);
    let out = env.run(&["mcp", "--set", "bogus=1"]);
    out.assert_code(2);
    assert!(out.stderr.contains("--set bogus: unknown setting"), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "nothing but protocol on stdout: {}", out.stdout);
}

#[test]
fn reads_and_searches_are_counted_for_usage_and_status_shows_the_follow_rate() {
    let env = memory_env();
    let mcp = Mcp::start(&env, &[]);
    mcp.text("memory_read", json!({"path": "deploy.md"}));
    mcp.text("memory_read", json!({"path": "./deploy.md"}));
    let hits = mcp.json("memory_search", json!({"query": "database"}));
    assert_eq!(hits["hits"][0]["file"], "testing.md");
    // A refused read counts nothing.
    mcp.error("memory_read", json!({"path": "../outside.md"}));
    let r = ReadResourceRequestParams::new("memory://testing.md");
    mcp.rt.block_on(mcp.client().read_resource(r)).unwrap();
    drop(mcp);
    let log = read(&env.state_file("usage-mcp.jsonl"));
    assert_eq!(log.lines().count(), 4, "{log}");
    let usage = &env.status_json()["usage"];
    assert_eq!(usage["files"]["deploy.md"], json!({"read": 2}));
    assert_eq!(usage["files"]["testing.md"], json!({"read": 1, "search": 1, "lines": {"3": 1}}));
    assert_eq!(usage["follow_rate"], "2 of 2 topics read in no session yet");
    assert_eq!(usage["mcp_calls"], 4);
}
