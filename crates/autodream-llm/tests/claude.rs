//! The `claude` engine against a fake Claude Code client: a shell script in a temp folder
//! that prints recorded stream-json and does to its working directory what the real client's
//! Write and Edit would. It also tries to write outside the staging copy (Landlock must stop
//! it), saves a session unless told not to, hangs (cancellation and the time limit must stop
//! it and what it started), and fails in the ways a client fails.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use autodream_core::config::Config;
use autodream_core::engine::{CancelToken, DreamContext, Engine, EngineError, EngineSummary, TokenUsage};
use autodream_llm::{ClaudeEngine, ClaudeOptions, LandlockStatus, landlock_status};

use common::*;

const RELEASE_TOPIC: &str = "---\nname: Release process\ndescription: When and how the shop is deployed\ntype: project\nupdated: 2026-05-07\n---\n- Deploys go out on Tuesdays (2026-05-06).\n";
const INDEX_LINE: &str = "- [Release process](project_release.md) — deploy day\n";

/// The fake client. `$FAKE_MODE` picks what it does; `$NOTES` is where it leaves notes for
/// the test (its arguments, its cwd, the PID of what it started).
const FAKE_CLIENT: &str = r#"#!/bin/sh
printf '%s\n' "$@" > "$NOTES/fake-args.txt"
pwd > "$NOTES/fake-cwd.txt"
case " $* " in
  *" --no-session-persistence "*) ;;
  *) mkdir -p "$CLAUDE_CONFIG_DIR/projects/fake" && echo '{}' > "$CLAUDE_CONFIG_DIR/projects/fake/s.jsonl" ;;
esac
echo '{"type":"system","subtype":"init","cwd":".","session_id":"s1","tools":["Edit","Glob","Grep","Read","Write"],"model":"claude-fake"}'
case "$FAKE_MODE" in
dream)
  echo '{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Recording the release day."},{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"project_release.md","content":"..."}}],"usage":{"input_tokens":1500,"output_tokens":200,"cache_read_input_tokens":0,"cache_creation_input_tokens":900}}}'
  printf '%s' "$TOPIC" > project_release.md
  echo '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"File created successfully at: project_release.md"}]}}'
  echo '{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"MEMORY.md","old_string":"x","new_string":"y"}}],"usage":{"input_tokens":1700,"output_tokens":80,"cache_read_input_tokens":900,"cache_creation_input_tokens":0}}}'
  printf '%s' "$INDEX_LINE" >> MEMORY.md
  echo '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"The file MEMORY.md has been updated."}]}}'
  echo '{"type":"assistant","message":{"id":"m3","role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":"/etc/autodream-fake.md","content":"x"}}],"usage":{"input_tokens":1800,"output_tokens":30,"cache_read_input_tokens":900,"cache_creation_input_tokens":0}}}'
  echo '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","is_error":true,"content":"Claude requested permissions to write to /etc/autodream-fake.md, but you have not granted it yet."}]}}'
  echo '{"type":"assistant","message":{"id":"m4","role":"assistant","content":[{"type":"text","text":"Added project_release.md and its index line."}],"usage":{"input_tokens":1900,"output_tokens":20,"cache_read_input_tokens":900,"cache_creation_input_tokens":0}}}'
  echo '{"type":"result","subtype":"success","is_error":false,"num_turns":4,"result":"Added project_release.md and its index line.","total_cost_usd":0.0421,"usage":{"input_tokens":6900,"output_tokens":330,"cache_read_input_tokens":2700,"cache_creation_input_tokens":900},"permission_denials":[{"tool_name":"Write"}]}'
  ;;
escape)
  echo pwned > "$OUTSIDE/pwned.txt" 2>/dev/null
  echo pwned > "$PWD/../sibling.txt" 2>/dev/null
  echo pwned > "$MEMORY/pwned.md" 2>/dev/null
  echo pwned > "$USER_CONFIG/projects-escape.txt" 2>/dev/null
  echo pwned > "$(dirname "$TMPDIR")/shared-tmp.txt" 2>/dev/null
  conf="${CLAUDE_CONFIG_DIR:-$USER_CONFIG}"
  echo "$conf" > "$NOTES/config-dir.txt"
  cat "$conf/settings.json" > "$NOTES/settings-seen.txt"
  echo '{"refreshed":1}' > "$conf/.credentials.json.tmp.1" && mv "$conf/.credentials.json.tmp.1" "$conf/.credentials.json"
  echo '{"ok":1}' > "$TMPDIR/scratch.json" && echo "$TMPDIR" > "$NOTES/tmpdir.txt"
  echo inside > inside.md
  echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"Tried.","total_cost_usd":0.001,"usage":{"input_tokens":10,"output_tokens":1}}'
  ;;
hang)
  sleep 300 &
  echo $! > "$NOTES/grandchild.pid"
  echo $$ > "$NOTES/child.pid"
  echo '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Thinking for a long time."}],"usage":{"input_tokens":5,"output_tokens":1}}}'
  sleep 300
  ;;
linger)
  sleep 300 &
  echo $! > "$NOTES/grandchild.pid"
  echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"Nothing to change.","total_cost_usd":0.002,"usage":{"input_tokens":30,"output_tokens":3}}'
  exit 0
  ;;
error)
  echo '{"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"Invalid API key · Please run /login","total_cost_usd":0}'
  ;;
crash)
  echo 'fatal: cannot reach the API' >&2
  exit 3
  ;;
esac
"#;

struct Fake {
    fx: Fixture,
    /// The client's own state folder (`CLAUDE_CONFIG_DIR`).
    config_dir: PathBuf,
    /// The shared temp folder (the client gets a private folder inside).
    tmp: PathBuf,
    /// Where the fake client leaves notes for the test.
    notes: PathBuf,
    /// A folder the client must not write.
    outside: PathBuf,
    client: PathBuf,
}

impl Fake {
    fn new() -> Fake {
        let fx = Fixture::new();
        let base = fx.base();
        let config_dir = base.join("client-home/.claude");
        let tmp = base.join("client-tmp");
        let outside = base.join("outside");
        let notes = base.join("notes");
        for d in [&config_dir, &tmp, &outside, &notes] {
            std::fs::create_dir_all(d).unwrap();
        }
        let client = base.join("bin/claude");
        std::fs::create_dir_all(client.parent().unwrap()).unwrap();
        std::fs::write(&client, FAKE_CLIENT).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&client, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(config_dir.join(".credentials.json"), "{}").unwrap();
        std::fs::write(config_dir.join("settings.json"), "{\"model\":\"sonnet\"}").unwrap();
        Fake { fx, config_dir, tmp, notes, outside, client }
    }

    fn engine(&self, mode: &str) -> ClaudeEngine {
        let (config_dir, tmp) = (self.config_dir.clone(), self.tmp.clone());
        let home = self.config_dir.parent().unwrap().to_path_buf();
        let env_of = move |name: &str| match name {
            "CLAUDE_CONFIG_DIR" => Some(config_dir.display().to_string()),
            "TMPDIR" => Some(tmp.display().to_string()),
            "HOME" => Some(home.display().to_string()),
            "PATH" => Some("/usr/bin:/bin".into()),
            _ => None,
        };
        let extra = [
            ("FAKE_MODE", mode.to_string()),
            ("USER_CONFIG", self.config_dir.display().to_string()),
            ("NOTES", self.notes.display().to_string()),
            ("MEMORY", self.fx.memory.display().to_string()),
            ("OUTSIDE", self.outside.display().to_string()),
            ("TOPIC", RELEASE_TOPIC.to_string()),
            ("INDEX_LINE", INDEX_LINE.to_string()),
        ];
        ClaudeEngine::with_options(ClaudeOptions {
            env: Arc::new(env_of),
            extra_env: extra.iter().map(|(k, v)| (k.into(), v.into())).collect(),
            poll: Duration::from_millis(20),
            kill_grace: Duration::from_millis(500),
            landlock: true,
            extra_writable: vec![self.notes.clone()],
        })
    }

    fn config(&self) -> Config {
        let mut config = Config::default();
        config.claude.command = self.client.display().to_string();
        config.engine = "claude".into();
        config
    }

    fn run(
        &self,
        engine: &ClaudeEngine,
        config: &Config,
        progress: &Recorder,
        cancel: &CancelToken,
    ) -> Result<EngineSummary, EngineError> {
        let sessions = self.fx.sessions_parsed();
        let entries = self.fx.log_entries();
        engine.dream(&DreamContext {
            staging: &self.fx.staging,
            memory_dir: &self.fx.memory,
            sessions_dir: &self.fx.sessions,
            project_dir: &self.fx.project,
            sessions: &sessions,
            log_entries: &entries,
            last_consolidated_at: Some("2026-05-05T22:00:00Z".parse().unwrap()),
            now: NOW.parse().unwrap(),
            config,
            progress,
            cancel,
        })
    }

    fn note(&self, name: &str) -> String {
        std::fs::read_to_string(self.notes.join(name)).unwrap_or_default()
    }
}

fn landlock_or_note() -> bool {
    match landlock_status() {
        LandlockStatus::Available { abi } => {
            println!("landlock: ABI {abi}");
            true
        }
        other => {
            println!("note: {other}; the Landlock assertions are skipped");
            false
        }
    }
}

#[test]
fn the_client_dreams_in_the_staging_copy_and_reports_progress_and_cost() {
    let fake = Fake::new();
    let progress = Recorder::default();
    let summary = fake
        .run(&fake.engine("dream"), &fake.config(), &progress, &CancelToken::new())
        .expect("the dream succeeds");

    // The client ran in the staging copy, with the read/search/edit tools and no shell.
    assert_eq!(fake.note("fake-cwd.txt").trim(), fake.fx.staging.display().to_string());
    let args = fake.note("fake-args.txt");
    let lines: Vec<&str> = args.lines().collect();
    let after = |flag: &str| lines.iter().position(|l| *l == flag).map(|i| lines[i + 1]);
    assert_eq!(lines[0], "-p");
    assert_eq!(after("--tools"), Some("Read,Grep,Glob,Edit,Write"));
    assert_eq!(after("--allowedTools"), Some("Read,Grep,Glob"));
    assert_eq!(after("--permission-mode"), Some("acceptEdits"));
    assert_eq!(after("--output-format"), Some("stream-json"));
    assert!(lines.contains(&"--no-session-persistence") && lines.contains(&"--verbose"));
    assert!(args.contains("Sessions since the last consolidation (1)"), "the task names the session");
    assert!(args.contains(&format!("Memory dir: `{}`", fake.fx.staging.display())));

    // Its writes landed in staging, and nowhere else.
    assert_eq!(std::fs::read_to_string(fake.fx.staging.join("project_release.md")).unwrap(), RELEASE_TOPIC);
    assert_eq!(
        std::fs::read_to_string(fake.fx.staging.join("MEMORY.md")).unwrap(),
        format!("{INITIAL_INDEX}{INDEX_LINE}")
    );
    assert_eq!(std::fs::read_to_string(fake.fx.memory.join("MEMORY.md")).unwrap(), INITIAL_INDEX);

    // The summary: the client's text, its cost, its token totals, the refused write.
    assert_eq!(summary.text, "Added project_release.md and its index line.");
    assert_eq!(summary.cost_usd, Some(0.0421));
    assert_eq!(summary.tokens, TokenUsage { input: 6900, output: 330, cache_read: 2700, cache_write: 900 });
    assert_eq!(summary.tool_uses, 3);
    assert!(summary.notes.iter().any(|n| n.contains("1 tool call(s) refused")), "{:?}", summary.notes);

    // Progress: one turn per assistant message, the files written, the denial, rising tokens.
    let turns = progress.turns.lock().unwrap().clone();
    let texts: Vec<&str> = turns.iter().map(|t| t.0.as_str()).filter(|t| !t.is_empty()).collect();
    assert_eq!(texts, ["Recording the release day.", "Added project_release.md and its index line."]);
    let touched: Vec<PathBuf> = turns.iter().flat_map(|t| t.2.clone()).collect();
    assert_eq!(touched, [PathBuf::from("project_release.md"), PathBuf::from("MEMORY.md")]);
    assert_eq!(turns.iter().map(|t| t.1).sum::<u32>(), 3);
    let denials = progress.denials.lock().unwrap().clone();
    assert_eq!(denials.len(), 1);
    assert!(denials[0].contains("/etc/autodream-fake.md"), "{denials:?}");
    let tokens = progress.tokens.lock().unwrap().clone();
    assert_eq!(tokens.first().unwrap().input, 1500);
    assert_eq!(tokens.last().unwrap().input, 6900);
    // Print mode without persistence: the client saved no session.
    assert!(Fixture::files_under(&fake.config_dir.join("projects")).is_empty());
}

#[test]
fn landlock_keeps_the_client_to_staging_and_its_own_state() {
    let fake = Fake::new();
    let summary = fake
        .run(&fake.engine("escape"), &fake.config(), &Recorder::default(), &CancelToken::new())
        .expect("the dream succeeds");
    // What it may write, it wrote: its working directory and its own temp folder (inside the
    // shared one, and removed after the dream). A login it refreshed reaches the user's folder.
    assert_eq!(std::fs::read_to_string(fake.fx.staging.join("inside.md")).unwrap(), "inside\n");
    assert_eq!(
        std::fs::read_to_string(fake.config_dir.join(".credentials.json")).unwrap(),
        "{\"refreshed\":1}\n"
    );
    assert_eq!(
        fake.note("settings-seen.txt"),
        "{\"model\":\"sonnet\"}",
        "the client sees the user's settings"
    );
    let private_tmp = PathBuf::from(fake.note("tmpdir.txt").trim());
    assert_eq!(private_tmp.parent(), Some(fake.tmp.as_path()), "the client's TMPDIR is private");
    assert!(!private_tmp.exists(), "the private temp folder is removed after the dream");
    if !landlock_or_note() {
        assert!(summary.notes.iter().any(|n| n.starts_with("Landlock")), "{:?}", summary.notes);
        return;
    }
    // Nothing else: not outside, not beside staging, not the live memory folder, not the rest
    // of the client's config folder (where memory folders and transcripts live), not the shared
    // temp folder.
    for refused in [
        fake.outside.join("pwned.txt"),
        fake.fx.staging.parent().unwrap().join("sibling.txt"),
        fake.fx.memory.join("pwned.md"),
        fake.config_dir.join("projects-escape.txt"),
        fake.tmp.join("shared-tmp.txt"),
    ] {
        assert!(!refused.exists(), "{} was written", refused.display());
    }
    assert!(summary.notes.iter().all(|n| !n.starts_with("Landlock")), "{:?}", summary.notes);
    // Confined, it ran on a private copy of its config folder, and the refreshed login was
    // copied back.
    let private_config = PathBuf::from(fake.note("config-dir.txt").trim());
    assert!(private_config.starts_with(&private_tmp), "{}", private_config.display());
    assert!(
        summary.notes.iter().any(|n| n.contains("refreshed your login; it was saved back")),
        "{:?}",
        summary.notes
    );
}

fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // A zombie has exited; only its parent's wait is missing.
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

fn wait_gone(pid: i32) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn wait_for_note(fake: &Fake, name: &str) -> i32 {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(pid) = fake.note(name).trim().parse() {
            return pid;
        }
        assert!(Instant::now() < until, "the fake client never wrote {name}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn cancelling_the_dream_stops_the_client_and_what_it_started() {
    let fake = Fake::new();
    let cancel = CancelToken::new();
    let engine = fake.engine("hang");
    let config = fake.config();
    let started = Instant::now();
    let result = std::thread::scope(|s| {
        let run = s.spawn(|| fake.run(&engine, &config, &Recorder::default(), &cancel));
        wait_for_note(&fake, "grandchild.pid");
        cancel.cancel();
        run.join().unwrap()
    });
    assert!(matches!(result, Err(EngineError::Cancelled)), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(20));
    let child = wait_for_note(&fake, "child.pid");
    let grandchild = wait_for_note(&fake, "grandchild.pid");
    assert!(wait_gone(child), "the client survived the cancellation");
    assert!(wait_gone(grandchild), "a process the client started survived the cancellation");
}

#[test]
fn the_time_limit_stops_a_client_that_runs_too_long() {
    let fake = Fake::new();
    let mut config = fake.config();
    config.claude.timeout_minutes = 0.01;
    let started = Instant::now();
    let err = fake.run(&fake.engine("hang"), &config, &Recorder::default(), &CancelToken::new()).unwrap_err();
    assert!(err.to_string().contains("claude.timeout_minutes"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(wait_gone(wait_for_note(&fake, "grandchild.pid")));
}

#[test]
fn a_client_that_exits_while_its_children_hold_its_output_finishes_the_dream() {
    let fake = Fake::new();
    let mut config = fake.config();
    config.claude.timeout_minutes = 1.0;
    let started = Instant::now();
    let summary =
        fake.run(&fake.engine("linger"), &config, &Recorder::default(), &CancelToken::new()).unwrap();
    assert_eq!(summary.text, "Nothing to change.");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "waited {:?} for the output to close",
        started.elapsed()
    );
    assert!(wait_gone(wait_for_note(&fake, "grandchild.pid")));
}

#[test]
fn client_failures_are_engine_errors_that_say_why() {
    let fake = Fake::new();
    let err = fake
        .run(&fake.engine("error"), &fake.config(), &Recorder::default(), &CancelToken::new())
        .unwrap_err();
    assert!(err.to_string().contains("Invalid API key"), "{err}");
    let err = fake
        .run(&fake.engine("crash"), &fake.config(), &Recorder::default(), &CancelToken::new())
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("without a result") && text.contains("cannot reach the API"), "{text}");
    let mut config = fake.config();
    config.claude.command = "no-such-claude-client".into();
    let err =
        fake.run(&fake.engine("dream"), &config, &Recorder::default(), &CancelToken::new()).unwrap_err();
    assert!(matches!(err, EngineError::Config(_)) && err.to_string().contains("claude.command"), "{err}");
}

#[test]
fn the_lifecycle_applies_a_claude_dream_records_its_cost_and_keeps_the_daily_budget() {
    use autodream_core::clock::Clock;
    use autodream_core::config::LoadedConfig;
    use autodream_core::dream::{DreamError, DreamOptions, cost, run_dream, task};
    use autodream_core::paths::Locations;

    let fake = Fake::new();
    std::fs::remove_dir_all(fake.fx.memory.join(".dream")).unwrap();
    let sessions_before = Fixture::files_under(&fake.fx.sessions);
    let mut config = fake.config();
    config.max_cost_per_day = 0.05;
    let loaded = LoadedConfig {
        config,
        warnings: vec![],
        file: None,
        auto_memory_off: None,
        client_auto_dream: None,
        enabled_source: "test".into(),
    };
    let loc = Locations {
        memory_dir: fake.fx.memory.clone(),
        state_dir: fake.fx.base().join("state"),
        sessions_dir: fake.fx.sessions.clone(),
        project_dir: fake.fx.project.clone(),
    };
    let engine = fake.engine("dream");
    let clock = Clock::Fixed(NOW.parse().unwrap());
    let outcome = run_dream(&loc, &loaded, clock, DreamOptions::new(&engine)).expect("applied");
    assert_eq!(outcome.files, ["MEMORY.md", "project_release.md"]);
    // As the client wrote it, stamped `modified` as the client stamps a write.
    let stamped = RELEASE_TOPIC
        .replace("updated: 2026-05-07\n", "updated: 2026-05-07\nmodified: 2026-05-07T09:00:00.000Z\n");
    assert_eq!(std::fs::read_to_string(fake.fx.memory.join("project_release.md")).unwrap(), stamped);
    let t = task::load(&loc).expect("task");
    assert_eq!((t.engine.as_str(), t.cost_usd), ("claude", Some(0.0421)));
    assert_eq!(t.files_touched, ["MEMORY.md", "project_release.md"]);
    // The dream's own session is nowhere among the user's sessions.
    let sessions_after: Vec<String> =
        Fixture::files_under(&fake.fx.sessions).into_iter().filter(|f| !f.starts_with("memory/")).collect();
    let sessions_before: Vec<String> =
        sessions_before.into_iter().filter(|f| !f.starts_with("memory/")).collect();
    assert_eq!(sessions_after, sessions_before);
    assert!(Fixture::files_under(&fake.config_dir.join("projects")).is_empty());

    // The ledger has today's spend; a second LLM dream today is refused under a $0.04 budget.
    let ledger = cost::load(&loc);
    let today = ledger.day("2026-05-07".parse().unwrap());
    assert_eq!((today.dreams, today.usd), (1, 0.0421));
    assert_eq!(ledger.last.as_ref().unwrap().source, "client");
    let mut tight = loaded.clone();
    tight.config.max_cost_per_day = 0.04;
    match run_dream(&loc, &tight, clock, DreamOptions::new(&engine)) {
        Err(DreamError::Refused(why)) => assert!(why.contains("max_cost_per_day"), "{why}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(cost::load(&loc).day("2026-05-07".parse().unwrap()).dreams, 1);
}
