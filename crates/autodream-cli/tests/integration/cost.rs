//! `--engine claude` with a fake Claude Code client, what memory costs in `status`, the
//! daily budget (`max_cost_per_day`) for `run` and the background worker, and the retired
//! `exec` engine.

use std::path::PathBuf;
use std::time::Duration;

use insta::assert_snapshot;

use crate::support::*;

const TOPIC: &str = "---\nname: Release process\ndescription: When and how the shop is deployed\ntype: project\nupdated: 2026-05-08\n---\n- Deploys go out on Tuesdays (2026-05-06).\n";
const INDEX_LINE: &str = "- [Release process](project_release.md) — deploy day\n";

/// A client that writes one topic file and its index line in its working directory, and
/// reports $0.0421 and its token usage the way `claude -p --output-format stream-json` does.
/// With `FAKE_MODE=hang` it starts a `sleep`, says both PIDs, and waits.
const FAKE_CLIENT: &str = r#"#!/bin/sh
echo '{"type":"system","subtype":"init","model":"claude-fake"}'
if [ "$FAKE_MODE" = hang ]; then
  sleep 300 &
  echo "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"text\",\"text\":\"pids $$ $!\"}]}}"
  wait
  exit 0
fi
echo '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Recording the release day."},{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"project_release.md"}}],"usage":{"input_tokens":1500,"output_tokens":200}}}'
printf '%s' "$FAKE_TOPIC" > project_release.md
printf '%s' "$FAKE_INDEX_LINE" >> MEMORY.md
echo '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"File created"}]}}'
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"Added the release process.","total_cost_usd":0.0421,"usage":{"input_tokens":6900,"output_tokens":330,"cache_read_input_tokens":2700,"cache_creation_input_tokens":900}}'
"#;

fn claude_env() -> Env {
    let env = Env::new();
    let client: PathBuf = env.root.join("bin/claude");
    write(&client, FAKE_CLIENT);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&client, std::fs::Permissions::from_mode(0o755)).unwrap();
    let client = client.display().to_string();
    env.var("AUTODREAM_CLAUDE_COMMAND", &client).var("FAKE_TOPIC", TOPIC).var("FAKE_INDEX_LINE", INDEX_LINE)
}

/// The `cost` block of `status`.
fn cost_block(stdout: &str) -> String {
    let mut out = Vec::new();
    let mut inside = false;
    for line in stdout.lines() {
        if line.starts_with("cost ") {
            inside = true;
        } else if inside && !line.starts_with("          ") {
            break;
        }
        if inside {
            out.push(line);
        }
    }
    out.join("\n")
}

#[test]
fn a_claude_dream_is_applied_and_its_cost_shows_in_status() {
    let env = claude_env();
    let before = env.run(&["status"]);
    before.assert_code(0);
    assert_snapshot!("status_cost_before", cost_block(&before.stdout));

    let out = env.run(&["run", "--engine", "claude"]);
    out.assert_code(0);
    assert!(out.stdout.contains("Improved 2 files"), "{}", out.transcript());
    // The client's file as it wrote it, stamped `modified` as the client stamps a write.
    let stamped =
        TOPIC.replace("updated: 2026-05-08\n", "updated: 2026-05-08\nmodified: 2026-05-08T13:56:00.000Z\n");
    assert_eq!(read(&env.mem.join("project_release.md")), stamped);
    assert!(read(&env.mem.join("MEMORY.md")).contains(INDEX_LINE));
    let task = env.task().expect("task.json");
    assert_eq!(task["engine"], "claude");
    assert_eq!(task["cost_usd"], 0.0421);

    let after = env.run(&["status"]);
    after.assert_code(0);
    assert_snapshot!("status_cost_after", cost_block(&after.stdout));
    let json = env.status_json();
    assert_eq!(json["cost"]["today"]["dreams"], 1);
    assert_eq!(json["cost"]["today"]["usd"], 0.0421);
    assert_eq!(json["cost"]["last"]["engine"], "claude");
    assert_eq!(json["cost"]["context"]["bytes"].as_u64().unwrap(), INDEX_LINE.trim().len() as u64);
    // The ledger is in the state folder; the memory folder keeps only memory files.
    assert!(env.state_file("cost.json").is_file());
    assert!(!env.mem.join("cost.json").exists());
}

#[test]
fn the_daily_budget_skips_llm_dreams_for_run_and_the_worker() {
    let env = claude_env().var("AUTODREAM_MAX_COST_PER_DAY", "0.04");
    env.run(&["run", "--engine", "claude"]).assert_code(0);
    let memory = memory_files(&env.mem);

    // Today's $0.0421 is past the $0.04 budget: the next LLM dream is refused with exit 3.
    let refused = env.run(&["run", "--engine", "claude"]);
    refused.assert_code(3);
    assert_snapshot!("budget_refuses_run", env.transcript(&refused));
    assert_eq!(memory_files(&env.mem), memory, "a refused dream changes nothing");
    let status = env.run(&["status"]);
    assert_snapshot!("status_cost_budget_reached", cost_block(&status.stdout));

    // The background worker says so in its log.
    let worker = env
        .var("AUTODREAM_ENGINE", "claude")
        .var("AUTODREAM_MIN_HOURS", "0")
        .var("AUTODREAM_MIN_SESSIONS", "0");
    worker.run(&["__worker"]).assert_code(3);
    assert!(
        worker.worker_log().contains("no dream: daily budget reached"),
        "worker log: {}",
        worker.worker_log()
    );

    // Engines that cost nothing are not limited, and tomorrow the budget is fresh.
    worker.run(&["run", "--engine", "hygiene"]).assert_code(0);
    let tomorrow = worker.var("AUTODREAM_NOW", "2026-05-09T13:56:00Z");
    let next = tomorrow.run(&["run", "--engine", "claude"]);
    assert_ne!(next.code, 3, "{}", next.transcript());
}

fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn autodream_kill_stops_a_claude_dream_and_its_client() {
    let env = claude_env().var("FAKE_MODE", "hang");
    env.run(&["init"]).assert_code(0);
    let memory = memory_files(&env.mem);
    let mut run = env.spawn(&["run", "--engine", "claude"]);
    let mut pids: Vec<i32> = Vec::new();
    assert!(
        wait_until(Duration::from_secs(20), || {
            let turns = env.task().map(|t| t["turns"].clone()).unwrap_or_default();
            let text = turns
                .as_array()
                .into_iter()
                .flatten()
                .find_map(|t| t["text"].as_str()?.strip_prefix("pids "));
            pids = text.map(|t| t.split(' ').filter_map(|p| p.parse().ok()).collect()).unwrap_or_default();
            pids.len() == 2
        }),
        "the client never reported its PIDs"
    );
    let kill = env.run(&["kill"]);
    kill.assert_code(0);
    let status = run.wait().unwrap();
    assert!(!status.success(), "a killed dream does not succeed");
    for pid in &pids {
        assert!(wait_until(Duration::from_secs(5), || gone(*pid)), "process {pid} survived the kill");
    }
    assert_eq!(env.task_state().as_deref(), Some("killed"));
    assert_eq!(memory_files(&env.mem), memory, "a killed dream changes nothing");
}

#[test]
fn the_exec_engine_is_retired_with_a_pointer_to_claude() {
    let env = Env::new();
    let cli = env.run(&["run", "--engine", "exec"]);
    cli.assert_code(2);
    assert_snapshot!("exec_engine_flag", env.transcript(&cli));
    write(&env.xdg.join("autodream/config.toml"), "engine = \"exec\"\nexec_command = \"my-llm --stdin\"\n");
    let status = env.run(&["status"]);
    status.assert_code(0);
    let warnings: Vec<&str> = status.stderr.lines().filter(|l| l.contains("exec")).collect();
    assert_snapshot!("exec_engine_config", env.redact(&warnings.join("\n")));
    // The engine falls back to the default.
    assert_eq!(env.status_json()["config_warnings"].as_array().unwrap().len(), 2);
}
