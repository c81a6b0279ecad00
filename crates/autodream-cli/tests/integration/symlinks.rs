//! Symbolic links in the memory folder are never written through, end to end: an `agent`
//! dream driven by a fake LLM server (wiremock, speaking the Messages API) that tries to
//! write through links planted in the memory folder is refused by the sandbox, and a dream
//! whose change would land in a folder swapped for a link while it ran refuses to apply.
//! Either way the folder the links lead to is untouched.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::*;

const KEY_ENV: &str = "AUTODREAM_TEST_LLM_KEY";
const KEY: &str = "test-key-0123456789";

/// Answers requests from a script, in order; a request past the end gets a 500.
struct Script(std::sync::Mutex<std::collections::VecDeque<ResponseTemplate>>);

impl Respond for Script {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        self.0.lock().unwrap().pop_front().unwrap_or_else(|| {
            ResponseTemplate::new(500).set_body_json(json!({"error": {"message": "script exhausted"}}))
        })
    }
}

/// A Messages API answer.
fn answer(content: Value, stop_reason: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "msg_test", "type": "message", "role": "assistant", "model": "test-model",
        "content": content, "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": 100, "output_tokens": 20,
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    }))
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// A multi-threaded runtime, so the fake server answers while the test waits on a process.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap()
}

/// Serves `script` to every Messages API request, in order.
fn mount(rt: &tokio::runtime::Runtime, server: &MockServer, script: Vec<ResponseTemplate>) {
    rt.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(Script(std::sync::Mutex::new(script.into())))
            .mount(server),
    );
}

/// A sealed environment whose `agent` engine talks to `server`, a memory folder with one
/// topic, an outside folder, and one session to review.
fn agent_env(server: &MockServer) -> (Env, PathBuf) {
    let env = Env::new()
        .var("AUTODREAM_AGENT_PROVIDER", "anthropic")
        .var("AUTODREAM_AGENT_MODEL", "test-model")
        .var("AUTODREAM_AGENT_BASE_URL", &server.uri())
        .var("AUTODREAM_AGENT_API_KEY_ENV", KEY_ENV)
        .var("AUTODREAM_AGENT_MAX_RETRIES", "0")
        .var(KEY_ENV, KEY);
    tidy_memory(&env.mem);
    let outside = env.root.join("outside");
    write(&outside.join("target.md"), "outside\n");
    write(&outside.join("notes/deploy.md"), "# Deploy\n- staging first\n");
    env.session(
        "00000000-0000-4000-8000-000000000001",
        &(json!({"type": "user", "uuid": "u1", "sessionId": "00000000-0000-4000-8000-000000000001",
                 "timestamp": "2026-05-08T12:00:00Z",
                 "message": {"role": "user", "content": "We deploy on Tuesdays now."}})
        .to_string()
            + "\n"),
        at(-3600),
    );
    (env, outside)
}

/// Every entry under `dir` with its bytes (links as their target).
fn tree(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            let ft = e.file_type().unwrap();
            if ft.is_symlink() {
                out.insert(rel, format!("-> {}", std::fs::read_link(&p).unwrap().display()));
            } else if ft.is_dir() {
                out.insert(rel, "<dir>".into());
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    out
}

/// The user's memory with its links (everything but `.dream/`, `logs/` and the lock).
fn memory_tree(mem: &Path) -> BTreeMap<String, String> {
    tree(mem)
        .into_iter()
        .filter(|(k, _)| !k.starts_with(".dream") && !k.starts_with("logs") && !k.starts_with(LOCK))
        .collect()
}

/// The tool results the engine sent back to the model, by tool-use id.
fn tool_results(rt: &tokio::runtime::Runtime, server: &MockServer) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for r in rt.block_on(server.received_requests()).unwrap_or_default() {
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        for m in body["messages"].as_array().into_iter().flatten() {
            for b in m["content"].as_array().into_iter().flatten() {
                if b["type"] == "tool_result" {
                    out.insert(b["tool_use_id"].as_str().unwrap().to_string(), b["content"].to_string());
                }
            }
        }
    }
    out
}

#[test]
fn an_agent_dream_cannot_write_through_links_planted_in_the_memory_folder() {
    let rt = runtime();
    let server = rt.block_on(MockServer::start());
    let (env, outside) = agent_env(&server);
    symlink(&outside, env.mem.join("linkdir")).unwrap();
    symlink(outside.join("target.md"), env.mem.join("link.md")).unwrap();
    let mem = env.mem.display().to_string();
    mount(
        &rt,
        &server,
        vec![
            answer(
                json!([
                    text("Saving what I learned."),
                    tool_use("w1", "Write", json!({"file_path": "linkdir/x.md", "content": "- escaped\n"})),
                    tool_use(
                        "w2",
                        "Write",
                        json!({"file_path": format!("{mem}/linkdir/target.md"), "content": "x\n"})
                    ),
                    tool_use("w3", "Write", json!({"file_path": "link.md", "content": "- escaped\n"})),
                    tool_use(
                        "e1",
                        "Edit",
                        json!({"file_path": "link.md", "old_string": "outside", "new_string": "x"})
                    ),
                ]),
                "tool_use",
            ),
            answer(json!([text("Improved linkdir/x.md and link.md.")]), "end_turn"),
        ],
    );
    let outside_before = tree(&outside);
    let memory_before = memory_tree(&env.mem);

    let out = env.run(&["run", "--engine", "agent", "--json"]);
    out.assert_code(0);
    let json: Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.transcript()));
    let files: Vec<&str> = json["files"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(files.iter().all(|f| !f.contains("linkdir") && !f.contains("link.md")), "{files:?}");
    let results = tool_results(&rt, &server);
    for id in ["w1", "w2", "w3", "e1"] {
        let r = results.get(id).unwrap_or_else(|| panic!("no result for {id}: {results:?}"));
        assert!(r.contains("Refused") && r.contains("symbolic link"), "{id}: {r}");
    }
    assert_eq!(tree(&outside), outside_before, "the folder the links lead to changed");
    assert_eq!(memory_tree(&env.mem), memory_before, "the memory folder changed");
    assert!(env.staging_copies().is_empty());
}

#[test]
fn a_folder_swapped_for_a_link_while_an_agent_dream_runs_refuses_the_dream() {
    let rt = runtime();
    let script = vec![
        answer(
            json!([tool_use(
                "w1",
                "Write",
                json!({"file_path": "notes/deploy.md", "content": "# Deploy\n- staging first\n- deploys on Tuesdays\n"})
            )]),
            "tool_use",
        ),
        // The last answer is slow: the folder is swapped while the engine waits for it.
        answer(json!([text("Improved notes/deploy.md.")]), "end_turn").set_delay(Duration::from_secs(2)),
    ];
    let server = rt.block_on(MockServer::start());
    mount(&rt, &server, script);
    let (env, outside) = agent_env(&server);
    write(&env.mem.join("notes/deploy.md"), "# Deploy\n- staging first\n");
    write(
        &env.mem.join("MEMORY.md"),
        "# Memory\n- [Build tips](build.md) — how the workspace is built\n- [Deploy](notes/deploy.md) — how we deploy\n",
    );
    let outside_before = tree(&outside);

    let child = env.spawn(&["run", "--engine", "agent"]);
    let asked_twice = wait_until(Duration::from_secs(30), || {
        rt.block_on(server.received_requests()).is_some_and(|r| r.len() >= 2)
    });
    assert!(asked_twice, "the engine never asked for its second turn");
    // The real folder moves away and a link to the outside folder (holding a file with the
    // very bytes the dream expects) takes its place.
    std::fs::rename(env.mem.join("notes"), env.mem.join("notes-real")).unwrap();
    symlink(outside.join("notes"), env.mem.join("notes")).unwrap();
    let memory_before = memory_tree(&env.mem);

    let out = wait_with_deadline(child, Duration::from_secs(60)).expect("the dream finishes");
    out.assert_code(1);
    assert!(
        out.stderr.contains("notes/deploy.md") && out.stderr.contains("notes is a symbolic link"),
        "{}",
        out.transcript()
    );
    assert_eq!(tree(&outside), outside_before, "the folder the link leads to changed");
    assert_eq!(memory_tree(&env.mem), memory_before, "the memory folder changed");
    assert_eq!(read(&env.mem.join("notes-real/deploy.md")), "# Deploy\n- staging first\n");
    assert!(env.history().is_empty(), "a refused dream records no history");
    assert_eq!(env.task_state().as_deref(), Some("failed"));
    assert!(!env.state_file("journal.json").exists() && env.staging_copies().is_empty());
}
