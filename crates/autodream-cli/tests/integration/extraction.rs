//! Per-turn extraction through real processes: `autodream hook` fed a `Stop` JSON on stdin
//! starts the detached extractor, which writes the user's durable statements to today's log
//! as `- [HH:MM] text (session xxxxxxxx)`: once, even with two hooks racing; never a
//! one-off request or a secret; never again after the transcript is rewritten or cut; never
//! from a turn in which the agent wrote into the memory folder itself. With
//! `extract = "agent"` and no key, the offline rules stand in and the worker log says why.
//! A dream then consolidates the entries into topic files without the suffix and leaves the
//! log as it was.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::*;

const SESSION: &str = "5e55a0b1-0000-4000-8000-000000000001";
/// `NOW` is 13:56 UTC on 2026-05-08.
const TODAY_LOG: &str = "logs/2026/05/2026-05-08.md";

fn user(k: usize, text: &str) -> String {
    serde_json::json!({
        "type": "user", "sessionId": SESSION, "uuid": format!("u{k}"),
        "timestamp": format!("2026-05-08T13:{:02}:00Z", 10 + k),
        "message": {"role": "user", "content": text},
    })
    .to_string()
        + "\n"
}

fn assistant(k: usize, text: &str) -> String {
    serde_json::json!({
        "type": "assistant", "sessionId": SESSION, "uuid": format!("a{k}"),
        "timestamp": format!("2026-05-08T13:{:02}:30Z", 10 + k),
        "message": {"id": format!("m{k}"), "role": "assistant", "content": [{"type": "text", "text": text}]},
    })
    .to_string()
        + "\n"
}

/// An assistant entry writing `file` with the Write tool.
fn assistant_writes(k: usize, file: &Path) -> String {
    serde_json::json!({
        "type": "assistant", "sessionId": SESSION, "uuid": format!("w{k}"),
        "timestamp": format!("2026-05-08T13:{:02}:40Z", 10 + k),
        "message": {"id": format!("mw{k}"), "role": "assistant", "content": [{
            "type": "tool_use", "id": format!("t{k}"), "name": "Write",
            "input": {"file_path": file, "content": "---\nname: x\n---\nsaved\n"},
        }]},
    })
    .to_string()
        + "\n"
}

/// A transcript of (user, assistant) turns.
fn turns(list: &[&str]) -> String {
    list.iter().enumerate().map(|(k, t)| user(k, t) + &assistant(k, "Done.")).collect()
}

fn stop_json(transcript: &Path, cwd: &Path) -> Vec<u8> {
    serde_json::json!({
        "session_id": SESSION, "transcript_path": transcript, "cwd": cwd, "hook_event_name": "Stop",
    })
    .to_string()
    .into_bytes()
}

fn transcript_env(body: &str) -> (Env, PathBuf) {
    let env = Env::new();
    env.run(&["init"]).assert_code(0);
    let path = env.sess.join(format!("{SESSION}.jsonl"));
    write(&path, body);
    (env, path)
}

fn today_log(env: &Env) -> String {
    std::fs::read_to_string(env.mem.join(TODAY_LOG)).unwrap_or_default()
}

/// Runs the Stop hook, then waits until extraction settled: an extractor run of our own
/// finds nothing new (it waits for the detached one first).
fn stop_and_settle(env: &Env, transcript: &Path) {
    let out = env.run_with_stdin(&["hook"], &stop_json(transcript, &env.cwd));
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "the hook failed");
    settle(env, transcript);
}

fn settle(env: &Env, transcript: &Path) {
    let t = transcript.to_str().unwrap();
    let settled = wait_until(Duration::from_secs(20), || {
        env.run(&["__capture", "--transcript", t, "--current-session", SESSION]).code == 0
    });
    assert!(settled, "extraction did not settle within 20 s");
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.lines().filter(|l| l.contains(needle)).count()
}

const DURABLE: &str = "We use pnpm in this repo, never npm.";
const ONE_OFF: &str = "Add a retry to the webhook sender in src/hooks.ts.";
const SECRET: &str =
    "The staging deploy token is ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 for the CI runner.";

#[test]
fn a_durable_statement_is_logged_once_after_two_racing_hooks_and_nothing_else_is() {
    let (env, transcript) = transcript_env(&turns(&[ONE_OFF, DURABLE, SECRET]));
    // Two Stop hooks at once, as two quick turns' hooks can be.
    let json = stop_json(&transcript, &env.cwd);
    let racing: Vec<_> = (0..2)
        .map(|_| {
            let mut c = env.cmd(&["hook"]);
            c.stdin(std::process::Stdio::piped());
            let mut child = c.spawn().unwrap();
            std::io::Write::write_all(&mut child.stdin.take().unwrap(), &json).unwrap();
            child
        })
        .collect();
    for child in racing {
        assert!(child.wait_with_output().unwrap().status.success());
    }
    settle(&env, &transcript);
    let log = today_log(&env);
    assert_eq!(
        log, "- [13:56] We use pnpm in this repo, never npm. (session 5e55a0b1)\n",
        "the log holds exactly the durable statement"
    );
    for never in ["retry", "ghp_", "AbCdEf", "deploy token"] {
        assert!(!log.contains(never), "{never:?} reached the log:\n{log}");
    }
    // Nothing new: the hook starts nothing, and the log stays as it is.
    stop_and_settle(&env, &transcript);
    assert_eq!(today_log(&env), log);
    // `status` counts it: an entry since the last dream, one written today by extraction.
    let status = env.status_json();
    assert_eq!(status["extraction"]["log_entries_since_last_dream"], 1, "{status:#}");
    assert_eq!(status["extraction"]["written_today"], 1, "{status:#}");
    assert_eq!(status["extraction"]["sessions"][0]["session"], SESSION, "{status:#}");
    assert_eq!(status["extraction"]["sessions"][0]["last_written"], 1, "{status:#}");
    let totals = "offline · 1 entry in the logs since the last dream · 1 written today";
    let human = env.run(&["status"]);
    assert!(human.stdout.contains(&format!("extract   {totals}\n")), "{}", human.stdout);
    assert!(human.stdout.contains("          5e55a0b1  "), "{}", human.stdout);
    let watch = env.run(&["watch"]);
    watch.assert_code(0);
    assert!(watch.stdout.contains(&format!("extraction: {totals}\n")), "{}", watch.stdout);
}

#[test]
fn new_turns_are_read_from_where_extraction_stopped() {
    let (env, transcript) = transcript_env(&turns(&[DURABLE]));
    stop_and_settle(&env, &transcript);
    // The next turn, and the same statement said again in it: memory has it already.
    let more = user(1, "Priya owns the billing service and approves every pricing change.")
        + &assistant(1, "Noted.")
        + &user(2, DURABLE)
        + &assistant(2, "Yes.");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .and_then(|mut f| std::io::Write::write_all(&mut f, more.as_bytes()))
        .unwrap();
    stop_and_settle(&env, &transcript);
    let log = today_log(&env);
    assert_eq!(count(&log, "pnpm"), 1, "{log}");
    assert_eq!(count(&log, "Priya owns the billing service"), 1, "{log}");
    assert_eq!(log.lines().count(), 2, "{log}");
}

#[test]
fn a_truncated_or_rewritten_transcript_is_read_again_without_duplicates() {
    let first = turns(&[DURABLE, "The API gateway listens on port 8443 in every environment."]);
    let (env, transcript) = transcript_env(&first);
    stop_and_settle(&env, &transcript);
    assert_eq!(today_log(&env).lines().count(), 2);
    // Cut short (shorter than where extraction stopped): read again from the start.
    write(&transcript, &turns(&[DURABLE]));
    stop_and_settle(&env, &transcript);
    assert_eq!(today_log(&env).lines().count(), 2, "{}", today_log(&env));
    // Rewritten with a new head and a longer body: read again, only the new fact is added.
    let rewritten = user(0, "Context first: the monorepo uses Turborepo for every build.")
        + &assistant(0, "OK.")
        + &first;
    write(&transcript, &rewritten);
    stop_and_settle(&env, &transcript);
    let log = today_log(&env);
    assert_eq!(count(&log, "pnpm"), 1, "{log}");
    assert_eq!(count(&log, "port 8443"), 1, "{log}");
    assert_eq!(count(&log, "Turborepo"), 1, "{log}");
    assert_eq!(log.lines().count(), 3, "{log}");
}

#[test]
fn a_turn_in_which_the_agent_wrote_to_memory_is_skipped() {
    let (env, _) = transcript_env("");
    let saved_by_agent = "Our release branch is release/next and it is cut every Thursday.";
    let body = user(0, saved_by_agent)
        + &assistant_writes(0, &env.mem.join("project_release.md"))
        + &assistant(0, "Saved to memory.")
        // The agent wrote outside the memory folder: the turn is read as usual.
        + &user(1, DURABLE)
        + &assistant_writes(1, &env.cwd.join("package.json"))
        + &assistant(1, "Done.");
    let transcript = env.sess.join(format!("{SESSION}.jsonl"));
    write(&transcript, &body);
    stop_and_settle(&env, &transcript);
    let log = today_log(&env);
    assert!(!log.contains("release/next"), "{log}");
    assert_eq!(count(&log, "pnpm"), 1, "{log}");
}

#[test]
fn an_unanswered_prompt_waits_for_its_turn_to_end() {
    let (env, transcript) =
        transcript_env(&(turns(&[DURABLE]) + &user(1, "Staging runs on Fly.io in the ams region.")));
    stop_and_settle(&env, &transcript);
    assert!(!today_log(&env).contains("Fly.io"), "{}", today_log(&env));
    std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .and_then(|mut f| std::io::Write::write_all(&mut f, assistant(1, "OK.").as_bytes()))
        .unwrap();
    stop_and_settle(&env, &transcript);
    assert_eq!(count(&today_log(&env), "Fly.io"), 1, "{}", today_log(&env));
}

#[test]
fn extraction_off_writes_nothing() {
    let (env, transcript) = transcript_env(&turns(&[DURABLE]));
    let env = env.var("AUTODREAM_EXTRACT", "off");
    let out = env.run_with_stdin(&["hook"], &stop_json(&transcript, &env.cwd));
    out.assert_code(0);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(today_log(&env), "");
}

#[test]
fn extract_agent_without_a_key_extracts_with_the_offline_rules_and_logs_why() {
    let (env, transcript) = transcript_env(&turns(&[ONE_OFF, DURABLE]));
    let env = env.var("AUTODREAM_EXTRACT", "agent");
    let out = env.run(&["status", "--json"]);
    out.assert_code(0);
    stop_and_settle(&env, &transcript);
    assert_eq!(today_log(&env), "- [13:56] We use pnpm in this repo, never npm. (session 5e55a0b1)\n");
    let worker = env.worker_log();
    let notes: Vec<&str> = worker.lines().filter(|l| l.contains("extract = \"agent\"")).collect();
    assert_eq!(notes.len(), 1, "the reason is logged once:\n{worker}");
    assert!(
        notes[0].contains("ANTHROPIC_API_KEY") && notes[0].contains("the offline rules extract"),
        "{worker}"
    );
}

#[test]
fn extract_max_tokens_out_of_range_is_refused_naming_the_field() {
    let (env, _) = transcript_env(&turns(&[DURABLE]));
    let out = env.run(&["--set", "extract_max_tokens=8", "status"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("extract_max_tokens") && out.stderr.contains("16..=4000"), "{}", out.stderr);
    env.run(&["--set", "extract_max_tokens=4000", "status"]).assert_code(0);
}

#[test]
fn a_dream_consolidates_extracted_entries_without_the_suffix_and_never_rewrites_the_log() {
    let (env, transcript) = transcript_env(&turns(&[
        DURABLE,
        "Priya owns the billing service and approves every pricing change.",
    ]));
    stop_and_settle(&env, &transcript);
    let log_before = std::fs::read(env.mem.join(TODAY_LOG)).unwrap();
    assert_eq!(String::from_utf8_lossy(&log_before).lines().count(), 2);
    env.run(&["run"]).assert_code(0);
    let topics: String = memory_files(&env.mem)
        .into_iter()
        .filter(|(k, _)| !k.starts_with('.') && !k.starts_with("logs") && k != "MEMORY.md")
        .map(|(_, v)| String::from_utf8(v).unwrap())
        .collect();
    assert!(topics.contains("pnpm"), "{topics}");
    assert!(topics.contains("Priya"), "{topics}");
    assert!(!topics.contains("(session"), "the provenance suffix became part of a fact:\n{topics}");
    assert_eq!(std::fs::read(env.mem.join(TODAY_LOG)).unwrap(), log_before, "the log was rewritten");
    assert_eq!(env.status_json()["extraction"]["log_entries_since_last_dream"], 0);
}

#[test]
fn a_transcript_written_late_is_read_when_it_appears_and_its_last_turn_at_session_end() {
    let env = Env::new();
    env.run(&["init"]).assert_code(0);
    let transcript = env.sess.join(format!("{SESSION}.jsonl"));
    // The client writes its transcript asynchronously: a session's first Stop can come before
    // the file exists. The extractor waits for it.
    let out = env.run_with_stdin(&["hook"], &stop_json(&transcript, &env.cwd));
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    std::thread::sleep(Duration::from_millis(300));
    write(&transcript, &turns(&[DURABLE]));
    assert!(
        wait_until(Duration::from_secs(15), || today_log(&env).contains(DURABLE)),
        "the statement never reached the log: {:?}",
        today_log(&env)
    );
    // The last turn reaches the file after its Stop hook ran: SessionEnd reads it.
    let owner = "Priya Raman owns the billing service and reviews every change to it.";
    write(&transcript, &turns(&[DURABLE, owner]));
    let mut end: serde_json::Value = serde_json::from_slice(&stop_json(&transcript, &env.cwd)).unwrap();
    end["hook_event_name"] = "SessionEnd".into();
    let out = env.run_with_stdin(&["hook"], end.to_string().as_bytes());
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""));
    assert!(
        wait_until(Duration::from_secs(15), || today_log(&env).contains("Priya Raman")),
        "SessionEnd did not extract the last turn: {:?}",
        today_log(&env)
    );
    assert_eq!(count(&today_log(&env), "pnpm"), 1, "{}", today_log(&env));
}

#[test]
fn the_former_name_of_the_capture_command_still_runs_it() {
    // A hook binary installed before the rename starts `__extract`.
    let (env, transcript) = transcript_env(&turns(&[DURABLE]));
    let t = transcript.to_str().unwrap();
    env.run(&["__extract", "--transcript", t, "--current-session", SESSION]).assert_code(0);
    assert!(today_log(&env).contains("We use pnpm in this repo"), "{}", today_log(&env));
}
