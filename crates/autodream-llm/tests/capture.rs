//! Per-turn capture with a model (`extract = "agent"`) against a wiremock server that
//! speaks the Messages API, through the real bookkeeping (`autodream_core::capture::run`):
//! the model chooses among the user's sentences and may not invent one; the request carries
//! no tools and the configured output budget; what memory or the log holds is not written
//! again; a failing provider, a missing key and a spent run budget fall back to the offline
//! rules, with the reason noted.

mod common;

use std::path::{Path, PathBuf};

use autodream_core::capture::{self, RunReport};
use autodream_core::config::Config;
use autodream_core::paths::Locations;
use autodream_llm::LlmCapture;
use autodream_offline::extract_turns::OfflineExtractor;
use jiff::Zoned;
use jiff::tz::TimeZone;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use common::{KEY, KEY_ENV, Script, agent_config, anthropic, bodies, text};

const SESSION: &str = "5e55a0b1-0000-4000-8000-000000000001";
const DURABLE: &str = "We use pnpm in this repo, never npm.";
const ONE_OFF: &str = "Add a retry to the webhook sender in src/hooks.ts.";
const INVENTED: &str = "Deploys always go out on Fridays at noon.";
const TODAY_LOG: &str = "logs/2026/05/2026-05-08.md";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap()
}

fn server(rt: &tokio::runtime::Runtime, script: Vec<ResponseTemplate>) -> MockServer {
    let server = rt.block_on(MockServer::start());
    rt.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .and(header("x-api-key", KEY))
            .respond_with(Script::new(script))
            .mount(&server),
    );
    server
}

fn line(v: Value) -> String {
    format!("{v}\n")
}

fn user(text: &str) -> String {
    line(json!({"type": "user", "sessionId": SESSION, "message": {"role": "user", "content": text}}))
}

fn answer() -> String {
    line(json!({"type": "assistant", "sessionId": SESSION,
        "message": {"id": "m", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}}))
}

/// A memory folder, a state folder and a transcript of `prompts`, each answered.
struct World {
    _tmp: tempfile::TempDir,
    loc: Locations,
    transcript: PathBuf,
}

fn world(prompts: &[&str]) -> World {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let loc = Locations {
        memory_dir: base.join("memory"),
        state_dir: base.join("state"),
        sessions_dir: base.clone(),
        project_dir: base.clone(),
    };
    std::fs::create_dir_all(&loc.memory_dir).unwrap();
    let transcript = base.join(format!("{SESSION}.jsonl"));
    std::fs::write(&transcript, prompts.iter().map(|p| user(p) + &answer()).collect::<String>()).unwrap();
    World { _tmp: tmp, loc, transcript }
}

fn with_key(name: &str) -> Option<String> {
    (name == KEY_ENV).then(|| KEY.to_string())
}

/// One capture run with the model's rules; the report and the rules (for their notes).
fn capture(w: &World, config: &Config, env: &dyn Fn(&str) -> Option<String>) -> (RunReport, LlmCapture) {
    let now: Zoned = "2026-05-08T13:56:00+00:00[UTC]".parse().unwrap();
    let offline = OfflineExtractor::new(&w.loc.memory_dir, None, now.timestamp(), TimeZone::UTC);
    let mut rules = LlmCapture::new(offline, config, env);
    let report = capture::run(&w.loc, &w.transcript, SESSION, &now, &mut rules).unwrap();
    (report, rules)
}

fn log(memory: &Path) -> String {
    std::fs::read_to_string(memory.join(TODAY_LOG)).unwrap_or_default()
}

fn durable_line() -> String {
    format!("- [13:56] {DURABLE} (session 5e55a0b1)\n")
}

#[test]
fn the_model_chooses_among_the_users_sentences_and_its_inventions_are_dropped() {
    let rt = runtime();
    let chosen = json!([DURABLE, INVENTED]).to_string();
    let server = server(
        &rt,
        vec![
            anthropic(json!([text(&format!("```json\n{chosen}\n```"))]), "end_turn", [120, 30, 0, 0]),
            // The same statement again in a later turn: already in the log, not written twice.
            anthropic(json!([text(&json!([DURABLE]).to_string())]), "end_turn", [100, 12, 0, 0]),
        ],
    );
    let w = world(&[&format!("{DURABLE} {ONE_OFF}"), DURABLE]);
    let config = agent_config("anthropic", &server.uri());
    let (report, rules) = capture(&w, &config, &with_key);

    assert_eq!(log(&w.loc.memory_dir), durable_line(), "exactly the durable statement, once");
    assert_eq!((report.turns, report.written), (2, 1));
    assert_eq!((rules.requests(), rules.fallbacks()), (2, 0));
    assert_eq!(rules.usage().total(), 120 + 30 + 100 + 12);
    assert!(rules.notes().is_empty(), "{:?}", rules.notes());

    let sent = bodies(&rt, &server);
    assert_eq!(sent.len(), 2);
    for body in &sent {
        assert!(body.get("tools").is_none(), "the model was offered tools: {body}");
        assert_eq!(body["max_tokens"], config.extract_max_tokens);
        assert_eq!(body["max_tokens"], 400, "the default budget per request");
    }
    let first = sent[0]["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(first.contains(DURABLE) && first.contains(ONE_OFF), "the model saw both sentences:\n{first}");

    // Nothing new in the transcript: nothing is asked, nothing written.
    let (report, rules) = capture(&w, &config, &with_key);
    assert_eq!((report.turns, rules.requests()), (0, 0));
    assert_eq!(log(&w.loc.memory_dir), durable_line());
}

#[test]
fn a_failing_provider_gets_the_offline_verdict_for_its_turn_and_a_note() {
    let rt = runtime();
    // An empty script: every request gets a 500.
    let server = server(&rt, vec![]);
    let w = world(&[ONE_OFF, DURABLE]);
    let (report, rules) = capture(&w, &agent_config("anthropic", &server.uri()), &with_key);

    assert_eq!(log(&w.loc.memory_dir), durable_line(), "the offline rules kept the durable statement only");
    assert_eq!(report.written, 1);
    assert_eq!((rules.requests(), rules.fallbacks()), (2, 2));
    assert_eq!(rules.notes().len(), 1, "one note for the same failure: {:?}", rules.notes());
    assert!(rules.notes()[0].contains("500") && rules.notes()[0].contains("offline"), "{:?}", rules.notes());
}

#[test]
fn an_answer_that_is_not_a_json_array_falls_back_too() {
    let rt = runtime();
    let server =
        server(&rt, vec![anthropic(json!([text("Keep the pnpm rule.")]), "end_turn", [50, 5, 0, 0])]);
    let w = world(&[DURABLE]);
    let (_, rules) = capture(&w, &agent_config("anthropic", &server.uri()), &with_key);
    assert_eq!(log(&w.loc.memory_dir), durable_line());
    assert!(rules.notes()[0].contains("not a JSON array"), "{:?}", rules.notes());
}

#[test]
fn without_a_key_the_offline_rules_extract_and_say_why() {
    let w = world(&[ONE_OFF, DURABLE]);
    let mut config = agent_config("anthropic", "http://127.0.0.1:9");
    config.agent.base_url = None;
    let (report, rules) = capture(&w, &config, &|_| None);
    assert_eq!(log(&w.loc.memory_dir), durable_line());
    assert_eq!((report.written, rules.requests()), (1, 0));
    assert!(rules.notes()[0].contains(KEY_ENV), "{:?}", rules.notes());
}

#[test]
fn once_the_run_budget_is_spent_the_remaining_turns_are_judged_offline() {
    let rt = runtime();
    // 16 output tokens per request, 128 in all: the first answer spends them.
    let server = server(
        &rt,
        vec![
            anthropic(json!([text("[]")]), "end_turn", [150, 2, 0, 0]),
            anthropic(json!([text("[]")]), "end_turn", [1, 1, 0, 0]),
        ],
    );
    let w = world(&[DURABLE, "Priya owns the billing service and approves every pricing change."]);
    let config = Config { extract_max_tokens: 16, ..agent_config("anthropic", &server.uri()) };
    let (_, rules) = capture(&w, &config, &with_key);

    assert_eq!(bodies(&rt, &server).len(), 1, "no request past the budget");
    assert_eq!(bodies(&rt, &server)[0]["max_tokens"], 16);
    // The model kept nothing of the first turn; the second got the offline verdict.
    assert_eq!(
        log(&w.loc.memory_dir),
        "- [13:56] Priya owns the billing service and approves every pricing change. (session 5e55a0b1)\n"
    );
    assert_eq!((rules.requests(), rules.fallbacks()), (1, 1));
    assert!(rules.notes()[0].contains("152 tokens"), "{:?}", rules.notes());
}
