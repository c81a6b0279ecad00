//! Shared test fixtures: a memory dir with a staging copy, a sessions dir with one transcript,
//! a project dir, a progress recorder, and scripted provider responses for wiremock.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use autodream_core::config::{AgentConfig, Config};
use autodream_core::engine::{
    CancelToken, DreamContext, Engine, EngineError, EngineSummary, ProgressSink, TokenUsage,
};
use autodream_core::memdir::daily_log::{self, LogEntry};
use autodream_core::sessions::{ParsedSession, SessionFormat, list_sessions, parse_session_file};
use autodream_llm::{ApiEngine, ApiOptions, Launcher};
use serde_json::{Value, json};
use wiremock::{Request, Respond, ResponseTemplate};

pub const SESSION_ID: &str = "4f1c2b9e-8d3a-4c5e-9f60-7a1b2c3d4e5f";
pub const KEY_ENV: &str = "AUTODREAM_TEST_KEY";
pub const KEY: &str = "test-key-0123456789";
pub const NOW: &str = "2026-05-07T09:00:00Z";

pub const INITIAL_INDEX: &str = "- [Testing](feedback_testing.md) — how the user wants tests run\n";
pub const TESTING_TOPIC: &str = "---\nname: Testing\ndescription: How the user wants tests run\ntype: feedback\nupdated: 2026-04-01\n---\n- Run the integration tests against a real database (2026-04-01).\n";

/// A temporary world: `<tmp>/projects/p/` (sessions) holding `memory/` (the memory dir),
/// `<tmp>/project/`, and a staging copy of the memory dir as the lifecycle makes it.
pub struct Fixture {
    pub tmp: tempfile::TempDir,
    pub memory: PathBuf,
    pub sessions: PathBuf,
    pub project: PathBuf,
    pub staging: PathBuf,
    pub transcript: PathBuf,
}

fn line(kind: &str, text: &str, ts: &str, uuid: &str) -> String {
    let content = if kind == "user" { json!(text) } else { json!([{"type": "text", "text": text}]) };
    json!({
        "type": kind, "uuid": uuid, "sessionId": SESSION_ID, "timestamp": ts, "isSidechain": false,
        "message": {"role": kind, "content": content},
    })
    .to_string()
}

impl Fixture {
    pub fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let sessions = base.join("projects").join("p");
        let memory = sessions.join("memory");
        let project = base.join("project");
        std::fs::create_dir_all(memory.join("logs/2026/05")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("README.md"), "# shop\nA web shop.\n").unwrap();
        std::fs::write(memory.join("MEMORY.md"), INITIAL_INDEX).unwrap();
        std::fs::write(memory.join("feedback_testing.md"), TESTING_TOPIC).unwrap();
        std::fs::write(
            memory.join("logs/2026/05/2026-05-06.md"),
            "- [09:15] release freeze starts next Monday\n",
        )
        .unwrap();
        let transcript = sessions.join(format!("{SESSION_ID}.jsonl"));
        let lines = [
            line("user", "From now on we deploy on Tuesdays, not Fridays.", "2026-05-06T10:00:00Z", "u1"),
            line("assistant", "Understood: deploys move to Tuesdays.", "2026-05-06T10:00:05Z", "a1"),
            line("user", "Keep this handy: STAGING_PASSWORD=hunter2-staging", "2026-05-06T10:01:00Z", "u2"),
        ];
        std::fs::write(&transcript, lines.join("\n") + "\n").unwrap();
        let staging = memory.join(".dream/staging/t1/work");
        std::fs::create_dir_all(&staging).unwrap();
        std::fs::copy(memory.join("MEMORY.md"), staging.join("MEMORY.md")).unwrap();
        std::fs::copy(memory.join("feedback_testing.md"), staging.join("feedback_testing.md")).unwrap();
        Fixture { tmp, memory, sessions, project, staging, transcript }
    }

    pub fn base(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap()
    }

    pub fn sessions_parsed(&self) -> Vec<ParsedSession> {
        list_sessions(&self.sessions, SessionFormat::Auto)
            .unwrap()
            .iter()
            .map(|f| parse_session_file(f, SessionFormat::Auto).unwrap())
            .collect()
    }

    pub fn log_entries(&self) -> Vec<LogEntry> {
        daily_log::read_since(&self.memory, None).unwrap().0
    }

    /// Every file under `dir`, relative, sorted (for "nothing written elsewhere" checks).
    pub fn files_under(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for e in entries.flatten() {
                let p = e.path();
                let ft = e.file_type().unwrap();
                if ft.is_dir() {
                    walk(&p, base, out);
                } else {
                    out.push(p.strip_prefix(base).unwrap().display().to_string());
                }
            }
        }
        walk(dir, dir, &mut out);
        out.sort();
        out
    }
}

/// Records every progress event.
#[derive(Default)]
pub struct Recorder {
    pub turns: Mutex<Vec<(String, u32, Vec<PathBuf>)>>,
    pub tokens: Mutex<Vec<TokenUsage>>,
    pub denials: Mutex<Vec<String>>,
}

impl ProgressSink for Recorder {
    fn turn(&self, text: &str, tool_uses: u32, touched: &[PathBuf]) {
        self.turns.lock().unwrap().push((text.to_string(), tool_uses, touched.to_vec()));
    }
    fn tokens(&self, usage: TokenUsage) {
        self.tokens.lock().unwrap().push(usage);
    }
    fn denial(&self, reason: &str) {
        self.denials.lock().unwrap().push(reason.to_string());
    }
}

pub fn agent_config(provider: &str, base_url: &str) -> Config {
    Config {
        agent: AgentConfig {
            provider: provider.into(),
            model: "test-model".into(),
            base_url: Some(base_url.into()),
            api_key_env: Some(KEY_ENV.into()),
            max_turns: 10,
            max_tokens_per_dream: 1_000_000,
            max_output_tokens: 2048,
            request_timeout_secs: 10,
            max_retries: 2,
            ..AgentConfig::default()
        },
        ..Config::default()
    }
}

pub fn engine() -> ApiEngine {
    ApiEngine::with_options(ApiOptions {
        launcher: Launcher::Disabled,
        env: Arc::new(|name| (name == KEY_ENV).then(|| KEY.to_string())),
        retry_base_delay: Duration::from_millis(20),
        retry_max_delay: Duration::from_secs(3),
        cancel_poll: Duration::from_millis(20),
        bash_timeout: Duration::from_secs(10),
    })
}

/// Runs `engine` on the fixture with a fresh context.
pub fn run(
    engine: &ApiEngine,
    fx: &Fixture,
    config: &Config,
    progress: &dyn ProgressSink,
    cancel: &CancelToken,
) -> Result<EngineSummary, EngineError> {
    let sessions = fx.sessions_parsed();
    let entries = fx.log_entries();
    let ctx = DreamContext {
        staging: &fx.staging,
        memory_dir: &fx.memory,
        sessions_dir: &fx.sessions,
        project_dir: &fx.project,
        sessions: &sessions,
        log_entries: &entries,
        last_consolidated_at: Some("2026-05-05T22:00:00Z".parse().unwrap()),
        now: NOW.parse().unwrap(),
        config,
        progress,
        cancel,
    };
    engine.dream(&ctx)
}

/// Answers requests from a script, in order; a request past the end gets a 500.
pub struct Script(Mutex<VecDeque<ResponseTemplate>>);

impl Script {
    pub fn new(responses: Vec<ResponseTemplate>) -> Script {
        Script(Mutex::new(responses.into()))
    }
}

impl Respond for Script {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        self.0.lock().unwrap().pop_front().unwrap_or_else(|| {
            ResponseTemplate::new(500).set_body_json(json!({"error": {"message": "script exhausted"}}))
        })
    }
}

/// A Messages API answer.
pub fn anthropic(content: Value, stop_reason: &str, usage: [u64; 4]) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "msg_test", "type": "message", "role": "assistant", "model": "test-model",
        "content": content, "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1],
                  "cache_creation_input_tokens": usage[2], "cache_read_input_tokens": usage[3]},
    }))
}

pub fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

pub fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// A Chat Completions answer. `calls`: (id, name, arguments as the raw JSON string).
pub fn openai(
    content: Option<&str>,
    calls: &[(&str, &str, &str)],
    finish: &str,
    usage: [u64; 3],
) -> ResponseTemplate {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
        .collect();
    let mut message = json!({"role": "assistant", "content": content});
    if !tool_calls.is_empty() {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1_778_140_800, "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": usage[0] + usage[1],
                  "prompt_tokens_details": {"cached_tokens": usage[2]}},
    }))
}

/// The JSON bodies the server received, in order.
pub fn bodies(rt: &tokio::runtime::Runtime, server: &wiremock::MockServer) -> Vec<Value> {
    rt.block_on(server.received_requests())
        .unwrap_or_default()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

/// The path of the `sandbox_exec` example, built by `cargo test` next to the test binaries.
pub fn sandbox_exec_example() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let profile_dir = exe.parent()?.parent()?;
    let candidate = profile_dir.join("examples").join("sandbox_exec");
    candidate.is_file().then_some(candidate)
}
