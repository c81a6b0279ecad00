//! Whole dreams against wiremock servers that speak each provider's documented wire format:
//! multi-turn tool use that reads a transcript, writes a topic file and updates the index;
//! retries, failures, malformed arguments, budgets, cancellation; and one dream applied by
//! the real lifecycle.

mod common;

use std::time::{Duration, Instant};

use autodream_core::engine::{CancelToken, EngineError, TokenUsage};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use common::*;

const RELEASE_TOPIC: &str = "---\nname: Release process\ndescription: When and how the shop is deployed\ntype: project\nupdated: 2026-05-07\n---\n- Deploys go out on Tuesdays (2026-05-06).\n- A release freeze starts on 2026-05-11 (2026-05-06).\n";
const INDEX_LINE: &str = "- [Release process](project_release.md) — deploy day and the current freeze\n";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap()
}

fn start(rt: &tokio::runtime::Runtime, route: &str, script: Script, auth: (&str, String)) -> MockServer {
    let server = rt.block_on(MockServer::start());
    rt.block_on(
        Mock::given(method("POST"))
            .and(path(route))
            .and(header(auth.0, auth.1.as_str()))
            .respond_with(script)
            .mount(&server),
    );
    server
}

fn anthropic_server(rt: &tokio::runtime::Runtime, script: Vec<ResponseTemplate>) -> MockServer {
    start(rt, "/v1/messages", Script::new(script), ("x-api-key", KEY.to_string()))
}

fn openai_server(rt: &tokio::runtime::Runtime, script: Vec<ResponseTemplate>) -> MockServer {
    start(rt, "/v1/chat/completions", Script::new(script), ("authorization", format!("Bearer {KEY}")))
}

/// The content blocks of the last user message of a Messages API request.
fn last_tool_results(body: &Value) -> Vec<Value> {
    let messages = body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"].as_array().unwrap().clone()
}

fn result_for<'a>(blocks: &'a [Value], id: &str) -> &'a Value {
    blocks
        .iter()
        .find(|b| b["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id} in {blocks:?}"))
}

#[test]
fn an_anthropic_dream_reads_a_transcript_writes_a_topic_and_updates_the_index() {
    let rt = runtime();
    let fx = Fixture::new();
    let memory_index = fx.memory.join("MEMORY.md").display().to_string();
    let script = vec![
        anthropic(
            json!([
                text("Orienting."),
                tool_use("t1", "List", json!({})),
                tool_use("t2", "Read", json!({"file_path": "MEMORY.md"}))
            ]),
            "tool_use",
            [1200, 80, 3000, 0],
        ),
        anthropic(
            json!([
                tool_use(
                    "t3",
                    "Grep",
                    json!({"pattern": "Tuesdays", "path": fx.sessions.display().to_string(), "glob": "*.jsonl"})
                ),
                tool_use("t4", "Read", json!({"file_path": fx.transcript.display().to_string()})),
            ]),
            "tool_use",
            [300, 60, 0, 3500],
        ),
        anthropic(
            json!([
                text("Writing the release facts."),
                tool_use("t5", "Write", json!({"file_path": "project_release.md", "content": RELEASE_TOPIC})),
                tool_use(
                    "t6",
                    "Edit",
                    json!({"file_path": memory_index, "old_string": INITIAL_INDEX,
                                               "new_string": format!("{INITIAL_INDEX}{INDEX_LINE}")})
                ),
            ]),
            "tool_use",
            [500, 400, 0, 4000],
        ),
        anthropic(
            json!([text("Added project_release.md (deploy day, freeze) and indexed it.")]),
            "end_turn",
            [200, 50, 0, 4800],
        ),
    ];
    let server = anthropic_server(&rt, script);
    let config = agent_config("anthropic", &server.uri());
    let recorder = Recorder::default();
    let summary = run(&engine(), &fx, &config, &recorder, &CancelToken::new()).expect("the dream succeeds");

    // What the dream wrote, in staging only.
    let topic = std::fs::read_to_string(fx.staging.join("project_release.md")).unwrap();
    let index = std::fs::read_to_string(fx.staging.join("MEMORY.md")).unwrap();
    insta::assert_snapshot!("anthropic_staging_index", index);
    assert_eq!(topic, RELEASE_TOPIC);
    assert_eq!(std::fs::read_to_string(fx.memory.join("MEMORY.md")).unwrap(), INITIAL_INDEX);
    assert!(!fx.memory.join("project_release.md").exists());

    // Summary: text, tools, tokens, cost.
    assert_eq!(summary.text, "Added project_release.md (deploy day, freeze) and indexed it.");
    assert_eq!(summary.tool_uses, 6);
    let usage = TokenUsage { input: 2200, output: 590, cache_read: 12300, cache_write: 3000 };
    assert_eq!(summary.tokens, usage);
    let cost = (2200.0 * 3.0 + 590.0 * 15.0 + 12300.0 * 0.3 + 3000.0 * 3.75) / 1e6;
    assert!((summary.cost_usd.unwrap() - cost).abs() < 1e-12, "{:?} vs {cost}", summary.cost_usd);

    // Progress: one event per assistant message, writes reported at the turn that made them.
    let turns = recorder.turns.lock().unwrap().clone();
    let counts: Vec<u32> = turns.iter().map(|t| t.1).collect();
    assert_eq!(counts, [2, 2, 2, 0]);
    assert_eq!(turns[0].0, "Orienting.");
    assert!(turns[0].2.is_empty() && turns[1].2.is_empty());
    assert_eq!(
        turns[2].2,
        [std::path::PathBuf::from("project_release.md"), std::path::PathBuf::from("MEMORY.md")]
    );
    let tokens = recorder.tokens.lock().unwrap().clone();
    assert_eq!(tokens.len(), 4);
    assert!(tokens.windows(2).all(|w| w[1].total() > w[0].total()));
    assert_eq!(tokens[3], usage);
    assert!(recorder.denials.lock().unwrap().is_empty());

    // The wire: documented request shape, caching, tool results carrying real file content.
    let bodies = bodies(&rt, &server);
    assert_eq!(bodies.len(), 4);
    for body in &bodies {
        assert_eq!(body["model"], "test-model");
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        let tools = body["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 7);
        assert_eq!(tools[6]["cache_control"]["type"], "ephemeral");
        assert!(tools.iter().all(|t| t["input_schema"]["type"] == "object"));
    }
    let task = bodies[0]["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(task.contains(SESSION_ID) && task.contains("Thursday 2026-05-07"), "{task}");
    assert!(task.contains("release freeze starts next Monday"));
    let first = last_tool_results(&bodies[1]);
    assert!(result_for(&first, "t1")["content"].as_str().unwrap().contains("feedback_testing.md"));
    assert!(result_for(&first, "t1")["content"].as_str().unwrap().contains("logs/"));
    assert!(result_for(&first, "t2")["content"].as_str().unwrap().contains("[Testing](feedback_testing.md)"));
    let second = last_tool_results(&bodies[2]);
    let grep = result_for(&second, "t3")["content"].as_str().unwrap();
    assert!(grep.contains(&format!("{}:1:", fx.transcript.display())) && grep.contains("Tuesdays"), "{grep}");
    let read = result_for(&second, "t4")["content"].as_str().unwrap();
    assert!(read.contains("[L1] 2026-05-06 10:00 UTC user: From now on we deploy on Tuesdays"), "{read}");
    assert!(!read.contains("\"sessionId\""), "the transcript is shown as turns, not JSON");
    // Transcript text passes the redactor before it reaches the model.
    assert!(read.contains("STAGING_PASSWORD=[REDACTED:") && !read.contains("hunter2-staging"), "{read}");
    assert!(bodies.iter().all(|b| !b.to_string().contains("hunter2-staging")));
    assert!(summary.redactions >= 1);
    let third = last_tool_results(&bodies[3]);
    assert!(third.iter().all(|b| b.get("is_error").is_none()), "{third:?}");
    assert!(result_for(&third, "t5")["content"].as_str().unwrap().starts_with("Created"));
}

#[test]
fn an_openai_compatible_dream_answers_malformed_arguments_with_an_error_and_goes_on() {
    let rt = runtime();
    let fx = Fixture::new();
    let write_args = json!({"file_path": "project_release.md", "content": RELEASE_TOPIC}).to_string();
    let edit_args = json!({"file_path": "MEMORY.md", "old_string": INITIAL_INDEX,
                           "new_string": format!("{INITIAL_INDEX}{INDEX_LINE}")})
    .to_string();
    let script = vec![
        openai(
            None,
            &[
                ("call_1", "Read", r#"{"file_path":"MEMORY.md"}"#),
                ("call_2", "Grep", r#"{"pattern": "Tuesdays""#),
            ],
            "tool_calls",
            [1500, 40, 0],
        ),
        openai(
            Some("Now the files."),
            &[("call_3", "Write", &write_args), ("call_4", "Edit", &edit_args)],
            "tool_calls",
            [1800, 300, 1500],
        ),
        openai(Some("Recorded the Tuesday deploys."), &[], "stop", [2200, 20, 1800]),
    ];
    let server = openai_server(&rt, script);
    let config = agent_config("openai", &format!("{}/v1", server.uri()));
    let recorder = Recorder::default();
    let summary = run(&engine(), &fx, &config, &recorder, &CancelToken::new()).expect("the dream succeeds");

    assert_eq!(std::fs::read_to_string(fx.staging.join("project_release.md")).unwrap(), RELEASE_TOPIC);
    let index = std::fs::read_to_string(fx.staging.join("MEMORY.md")).unwrap();
    assert_eq!(index, format!("{INITIAL_INDEX}{INDEX_LINE}"));
    assert_eq!(summary.text, "Recorded the Tuesday deploys.");
    assert_eq!(summary.tool_uses, 4);
    // prompt_tokens include the cached ones: input = prompt - cached.
    assert_eq!(summary.tokens, TokenUsage { input: 2200, output: 360, cache_read: 3300, cache_write: 0 });

    let bodies = bodies(&rt, &server);
    assert_eq!(bodies.len(), 3);
    assert_eq!(bodies[0]["messages"][0]["role"], "system");
    assert_eq!(bodies[0]["max_tokens"], 2048);
    assert_eq!(bodies[0]["tools"][0]["type"], "function");
    let messages = bodies[1]["messages"].as_array().unwrap();
    let assistant = &messages[2];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["tool_calls"][1]["function"]["arguments"], r#"{"pattern": "Tuesdays""#);
    let tool_1 = &messages[3];
    let tool_2 = &messages[4];
    assert_eq!((tool_1["role"].as_str(), tool_1["tool_call_id"].as_str()), (Some("tool"), Some("call_1")));
    assert!(tool_1["content"].as_str().unwrap().contains("[Testing](feedback_testing.md)"));
    assert_eq!(tool_2["tool_call_id"], "call_2");
    let malformed = tool_2["content"].as_str().unwrap();
    assert!(malformed.starts_with("Error: the arguments for Grep are not valid JSON"), "{malformed}");
    assert_eq!(recorder.turns.lock().unwrap().iter().map(|t| t.1).collect::<Vec<_>>(), [2, 2, 0]);
}

#[test]
fn a_429_with_retry_after_is_waited_out_then_the_dream_succeeds() {
    let rt = runtime();
    let fx = Fixture::new();
    let limited = ResponseTemplate::new(429).insert_header("retry-after", "1").set_body_json(
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
    );
    let server = anthropic_server(
        &rt,
        vec![limited, anthropic(json!([text("Nothing new.")]), "end_turn", [100, 5, 0, 0])],
    );
    let config = agent_config("anthropic", &server.uri());
    let started = Instant::now();
    let summary = run(&engine(), &fx, &config, &Recorder::default(), &CancelToken::new()).expect("retried");
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(950), "retry-after ignored: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert_eq!(bodies(&rt, &server).len(), 2);
    assert_eq!(summary.text, "Nothing new.");
    assert!(summary.notes.iter().any(|n| n.contains("retried")), "{:?}", summary.notes);
}

#[test]
fn three_server_errors_fail_the_dream_after_retrying() {
    let rt = runtime();
    let fx = Fixture::new();
    let failure = || {
        ResponseTemplate::new(500)
            .set_body_json(json!({"error": {"message": "upstream broke", "type": "server_error"}}))
    };
    let server = openai_server(
        &rt,
        vec![failure(), failure(), failure(), openai(Some("too late"), &[], "stop", [1, 1, 0])],
    );
    let config = agent_config("openai", &format!("{}/v1", server.uri()));
    let err = run(&engine(), &fx, &config, &Recorder::default(), &CancelToken::new()).unwrap_err();
    let EngineError::Provider(message) = err else { panic!("expected a provider error, got {err:?}") };
    assert!(message.contains("HTTP 500") && message.contains("gave up after 3 attempts"), "{message}");
    assert_eq!(bodies(&rt, &server).len(), 3, "max_retries = 2 means three attempts");
    assert_eq!(Fixture::files_under(&fx.staging), ["MEMORY.md", "feedback_testing.md"]);
}

#[test]
fn an_overloaded_answer_is_retried_and_a_silent_server_times_out() {
    let rt = runtime();
    let fx = Fixture::new();
    let overloaded = ResponseTemplate::new(529).set_body_json(
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    );
    let server =
        anthropic_server(&rt, vec![overloaded, anthropic(json!([text("ok")]), "end_turn", [10, 2, 0, 0])]);
    let config = agent_config("anthropic", &server.uri());
    let summary = run(&engine(), &fx, &config, &Recorder::default(), &CancelToken::new()).expect("retried");
    assert_eq!((summary.text.as_str(), bodies(&rt, &server).len()), ("ok", 2));

    let slow =
        || anthropic(json!([text("late")]), "end_turn", [1, 1, 0, 0]).set_delay(Duration::from_millis(1500));
    let server = anthropic_server(&rt, vec![slow(), slow()]);
    let mut config = agent_config("anthropic", &server.uri());
    config.agent.request_timeout_secs = 1;
    config.agent.max_retries = 1;
    let started = Instant::now();
    let err = run(&engine(), &fx, &config, &Recorder::default(), &CancelToken::new()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("agent.request_timeout_secs") && message.contains("gave up after 2 attempts"),
        "{message}"
    );
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
}

#[test]
fn a_401_names_the_key_setting_and_is_not_retried() {
    let rt = runtime();
    let fx = Fixture::new();
    let denied = ResponseTemplate::new(401).set_body_json(
        json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
    );
    let server = anthropic_server(&rt, vec![denied]);
    let config = agent_config("anthropic", &server.uri());
    let err = run(&engine(), &fx, &config, &Recorder::default(), &CancelToken::new()).unwrap_err();
    let message = err.to_string();
    assert!(message.contains(KEY_ENV) && message.contains("agent.api_key_env"), "{message}");
    assert!(!message.contains(KEY), "the key itself must never be shown");
    assert_eq!(bodies(&rt, &server).len(), 1);
}

#[test]
fn a_404_names_the_model_and_base_url_settings() {
    let rt = runtime();
    let fx = Fixture::new();
    let missing = ResponseTemplate::new(404)
        .set_body_json(json!({"error": "model \"test-model\" not found, try pulling it first"}));
    let server = openai_server(&rt, vec![missing]);
    let config = agent_config("openai", &format!("{}/v1", server.uri()));
    let message =
        run(&engine(), &fx, &config, &Recorder::default(), &CancelToken::new()).unwrap_err().to_string();
    assert!(message.contains("agent.model") && message.contains("agent.base_url"), "{message}");
}

#[test]
fn a_missing_key_is_a_config_error_before_any_request() {
    let fx = Fixture::new();
    let mut config = agent_config("anthropic", "http://127.0.0.1:9");
    config.agent.base_url = None;
    config.agent.api_key_env = Some("AUTODREAM_TEST_UNSET_KEY".into());
    let err = run(&engine(), &fx, &config, &Recorder::default(), &CancelToken::new()).unwrap_err();
    assert!(matches!(&err, EngineError::Config(m) if m.contains("AUTODREAM_TEST_UNSET_KEY")), "{err:?}");
}

#[test]
fn a_kill_during_a_slow_response_returns_cancelled_at_once() {
    let rt = runtime();
    let fx = Fixture::new();
    let slow =
        anthropic(json!([text("too late")]), "end_turn", [1, 1, 0, 0]).set_delay(Duration::from_secs(2));
    let server = anthropic_server(&rt, vec![slow]);
    let config = agent_config("anthropic", &server.uri());
    let cancel = CancelToken::new();
    let killer = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            cancel.cancel();
            Instant::now()
        })
    };
    let err = run(&engine(), &fx, &config, &Recorder::default(), &cancel).unwrap_err();
    let returned = Instant::now();
    let cancelled_at = killer.join().unwrap();
    assert!(matches!(err, EngineError::Cancelled), "{err:?}");
    let reaction = returned.duration_since(cancelled_at);
    assert!(reaction < Duration::from_secs(1), "took {reaction:?} to notice the kill");
}

#[test]
fn the_token_budget_ends_the_dream_cleanly_with_what_it_has() {
    let rt = runtime();
    let fx = Fixture::new();
    let script = vec![
        anthropic(
            json!([tool_use(
                "w1",
                "Write",
                json!({"file_path": "project_release.md", "content": RELEASE_TOPIC})
            )]),
            "tool_use",
            [2500, 600, 0, 0],
        ),
        anthropic(json!([text("never asked")]), "end_turn", [1, 1, 0, 0]),
    ];
    let server = anthropic_server(&rt, script);
    let mut config = agent_config("anthropic", &server.uri());
    config.agent.max_tokens_per_dream = 3000;
    let summary =
        run(&engine(), &fx, &config, &Recorder::default(), &CancelToken::new()).expect("ends cleanly");
    assert_eq!(bodies(&rt, &server).len(), 1, "no request after the budget is spent");
    assert_eq!(std::fs::read_to_string(fx.staging.join("project_release.md")).unwrap(), RELEASE_TOPIC);
    assert!(
        summary.notes.iter().any(|n| n.contains("token budget") && n.contains("3100 of 3000")),
        "{:?}",
        summary.notes
    );
    assert_eq!(summary.tokens.total(), 3100);
}

#[test]
fn max_turns_bounds_the_conversation() {
    let rt = runtime();
    let fx = Fixture::new();
    let looping = || anthropic(json!([tool_use("l", "List", json!({}))]), "tool_use", [10, 10, 0, 0]);
    let server = anthropic_server(&rt, vec![looping(), looping(), looping(), looping()]);
    let mut config = agent_config("anthropic", &server.uri());
    config.agent.max_turns = 2;
    let summary =
        run(&engine(), &fx, &config, &Recorder::default(), &CancelToken::new()).expect("ends cleanly");
    assert_eq!(bodies(&rt, &server).len(), 2);
    assert!(summary.notes.iter().any(|n| n.contains("agent.max_turns")), "{:?}", summary.notes);
}

#[test]
fn bad_inputs_and_refusals_go_back_to_the_model_and_are_counted() {
    let rt = runtime();
    let fx = Fixture::new();
    let outside = fx.base().join("escape.md");
    let script = vec![
        anthropic(
            json!([
                tool_use("b1", "Read", json!({"path": "MEMORY.md"})),
                tool_use("b2", "Write", json!({"file_path": "../../escape.md", "content": "x"})),
                tool_use("b3", "Write", json!({"file_path": outside.display().to_string(), "content": "x"})),
                tool_use("b4", "Bash", json!({"command": "cat MEMORY.md > copy.md"})),
                tool_use("b5", "Frobnicate", json!({})),
            ]),
            "tool_use",
            [100, 10, 0, 0],
        ),
        anthropic(json!([text("Done.")]), "end_turn", [100, 10, 0, 0]),
    ];
    let server = anthropic_server(&rt, script);
    let config = agent_config("anthropic", &server.uri());
    let recorder = Recorder::default();
    let summary = run(&engine(), &fx, &config, &recorder, &CancelToken::new()).expect("the dream goes on");
    let bodies = bodies(&rt, &server);
    let results = last_tool_results(&bodies[1]);
    assert!(results.iter().all(|r| r["is_error"] == true), "{results:?}");
    assert!(result_for(&results, "b1")["content"].as_str().unwrap().contains("bad arguments for Read"));
    assert!(result_for(&results, "b2")["content"].as_str().unwrap().contains("`..`"));
    assert!(result_for(&results, "b3")["content"].as_str().unwrap().contains("outside the folders"));
    assert!(result_for(&results, "b4")["content"].as_str().unwrap().contains("redirection"));
    assert!(result_for(&results, "b5")["content"].as_str().unwrap().contains("no tool named"));
    assert_eq!(recorder.denials.lock().unwrap().len(), 3);
    assert!(summary.notes.iter().any(|n| n.contains("3 tool call(s) refused")), "{:?}", summary.notes);
    assert!(!outside.exists());
    assert_eq!(Fixture::files_under(&fx.staging), ["MEMORY.md", "feedback_testing.md"]);
}

#[test]
fn the_lifecycle_applies_an_api_dream_to_the_memory_dir() {
    use autodream_core::clock::Clock;
    use autodream_core::config::LoadedConfig;
    use autodream_core::dream::{DreamOptions, run_dream, task};
    use autodream_core::paths::Locations;

    let rt = runtime();
    let fx = Fixture::new();
    // The lifecycle makes its own staging copy.
    std::fs::remove_dir_all(fx.memory.join(".dream")).unwrap();
    let script = vec![
        anthropic(
            json!([tool_use(
                "g1",
                "Grep",
                json!({"pattern": "deploy", "path": fx.sessions.display().to_string(),
                                                 "glob": "*.jsonl", "case_insensitive": true})
            )]),
            "tool_use",
            [900, 40, 2000, 0],
        ),
        anthropic(
            json!([
                tool_use("w1", "Write", json!({"file_path": "project_release.md", "content": RELEASE_TOPIC})),
                tool_use(
                    "e1",
                    "Edit",
                    json!({"file_path": "MEMORY.md", "old_string": INITIAL_INDEX,
                                               "new_string": format!("{INITIAL_INDEX}{INDEX_LINE}")})
                ),
            ]),
            "tool_use",
            [300, 350, 0, 2900],
        ),
        anthropic(json!([text("Added the release process.")]), "end_turn", [100, 20, 0, 3300]),
    ];
    let server = anthropic_server(&rt, script);
    let mut config = agent_config("anthropic", &server.uri());
    config.engine = "api".into();
    let loaded = LoadedConfig {
        config,
        warnings: vec![],
        file: None,
        auto_memory_off: None,
        client_auto_dream: None,
        enabled_source: "test".into(),
    };
    let loc = Locations {
        memory_dir: fx.memory.clone(),
        state_dir: fx.memory.with_file_name("state"),
        sessions_dir: fx.sessions.clone(),
        project_dir: fx.project.clone(),
    };
    let engine = engine();
    let outcome = run_dream(&loc, &loaded, Clock::Fixed(NOW.parse().unwrap()), DreamOptions::new(&engine))
        .expect("the lifecycle applies the dream");

    assert_eq!(outcome.files, ["MEMORY.md", "project_release.md"]);
    assert_eq!(outcome.message, "Improved 2 files");
    insta::assert_snapshot!(
        "lifecycle_memory_index",
        std::fs::read_to_string(fx.memory.join("MEMORY.md")).unwrap()
    );
    insta::assert_snapshot!(
        "lifecycle_release_topic",
        std::fs::read_to_string(fx.memory.join("project_release.md")).unwrap()
    );
    let task = task::load(&loc).expect("task.json");
    assert_eq!(task.engine, "api");
    // Its cost is counted like every LLM dream's, under the engine's name.
    let ledger = autodream_core::dream::cost::load(&loc);
    assert_eq!(ledger.last.as_ref().map(|l| l.engine.as_str()), Some("api"));
    assert!(ledger.last.unwrap().usd > 0.0);
    assert_eq!(task.tokens, TokenUsage { input: 1300, output: 410, cache_read: 6200, cache_write: 2000 });
    assert!(task.cost_usd.unwrap() > 0.0);
    assert_eq!(task.tool_uses, 3);
    assert_eq!(task.files_touched, ["MEMORY.md", "project_release.md"]);
    // The daily logs were not rewritten, and nothing was left in staging.
    assert_eq!(
        std::fs::read_to_string(fx.memory.join("logs/2026/05/2026-05-06.md")).unwrap(),
        "- [09:15] release freeze starts next Monday\n"
    );
}
