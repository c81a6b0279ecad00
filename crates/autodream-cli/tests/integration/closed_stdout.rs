//! A reader that goes away (`autodream status | head -1`) is "done": every command that
//! prints exits 0 without a panic or a word on stderr, and what it changed is finished or
//! rolled back as usual.
//!
//! The commands come from the binary's own `--help` (recursively), so a new one fails
//! [`every_command_is_covered_or_excused`] until it is added to [`cases`] or to [`EXCUSED`]
//! with a reason. (The hidden internal commands are checked by a unit test in `main.rs`.)

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use crate::support::*;

/// Linux's default pipe capacity (macOS's is at most this): an output longer than this cannot
/// all be written before the reader goes away.
const PIPE_BUFFER: usize = 64 * 1024;

/// How the reading end of standard output goes away.
#[derive(Debug, Clone, Copy)]
enum Reader {
    /// Closed before the command starts: its first write fails.
    Closed,
    /// One line read, then closed (`| head -1`): with more than a pipe buffer to write, a
    /// later write fails.
    OneLine,
}

/// Runs `autodream ARGS…` with standard output a pipe whose reader goes away as `reader`
/// says; returns the exit and stderr, and the line read.
fn run_into_leaving_reader(
    env: &Env,
    args: &[String],
    stdin: Option<&[u8]>,
    reader: Reader,
) -> (Out, String) {
    let (read_end, write_end) = std::io::pipe().expect("a pipe");
    let mut cmd = env.cmd(args);
    cmd.stdout(write_end).stderr(Stdio::piped());
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut read_end = Some(read_end);
    if let Reader::Closed = reader {
        drop(read_end.take());
    }
    let mut child = cmd.spawn().expect("spawn autodream");
    // The parent's copy of the writing end goes with the command, so the reader sees EOF
    // when the child exits.
    drop(cmd);
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        use std::io::Write;
        let _ = pipe.write_all(input);
    }
    let mut line = String::new();
    if let Some(r) = read_end.take() {
        BufReader::new(r).read_line(&mut line).expect("read one line");
    }
    let out = wait_with_deadline(child, Duration::from_secs(60))
        .unwrap_or_else(|| panic!("{args:?} never ended after its reader left"));
    (out, line)
}

/// One command line to run into a leaving reader.
struct Case {
    args: Vec<String>,
    /// Prepares the environment (a fresh one per case).
    fixture: fn(&Env),
    /// Standard input, for `hook`.
    stdin: Option<&'static str>,
    /// The fixture makes it write more than a pipe buffer: also run with [`Reader::OneLine`].
    big: bool,
    /// What must hold afterwards (its changes finished or rolled back), given the full state
    /// of the memory before it ran.
    after: fn(&Env, &FullState),
}

fn case(args: &str, fixture: fn(&Env)) -> Case {
    Case {
        args: args.split_whitespace().map(str::to_string).collect(),
        fixture,
        stdin: None,
        big: false,
        after: |_, _| {},
    }
}

impl Case {
    fn big(mut self) -> Case {
        self.big = true;
        self
    }

    fn stdin(mut self, input: &'static str) -> Case {
        self.stdin = Some(input);
        self
    }

    fn after(mut self, check: fn(&Env, &FullState)) -> Case {
        self.after = check;
        self
    }
}

/// Commands of `--help` with no case here, and why.
const EXCUSED: &[(&str, &str)] = &[
    ("mcp", "a server on stdio: the_mcp_server_ends_with_exit_0_when_its_client_stops_reading"),
    ("help", "clap's own; `help status` is a case, and every `--help` goes the same way"),
];

const LINES: usize = 1500;

/// A memory folder that makes the reporting commands write far more than a pipe buffer:
/// an index of long lines pointing at missing files (`check`'s findings, a hygiene dream's
/// diff) and a topic file of facts that all mention "deploy" (`why`, `forget`).
fn big_memory(env: &Env) {
    let mut index = String::from("# Memory\n- [Deploy](deploy.md) — how a release reaches production\n");
    let mut topic = String::from("# Deploy\n\n");
    for i in 0..LINES {
        index.push_str(&format!(
            "- [Area {i}](area-{i}.md) — area {i} covers the ingestion service, its retry queue, the nightly \
             compaction job, the dashboards on call watches, the runbook for paging, and the escalation path\n"
        ));
        topic.push_str(&format!("- the deploy of service {i} goes through staging, then the canary\n"));
    }
    write(&env.mem.join("MEMORY.md"), &index);
    write(&env.mem.join("deploy.md"), &topic);
    env.lock_at(at(-3 * 24 * 3600));
}

/// Enough session transcripts that `sessions` lists more than a pipe buffer.
fn many_sessions(env: &Env) {
    initialised(env);
    for i in 0..1200 {
        env.session(
            &format!("session-{i:05}"),
            "{\"role\":\"user\",\"content\":\"hello\",\"timestamp\":\"2026-05-07T10:00:00Z\"}\n",
            at(-3600),
        );
    }
}

/// [`big_memory`] after a hygiene dream: `history`, `diff` and `undo` have one to show.
fn big_memory_dreamt(env: &Env) {
    big_memory(env);
    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
}

/// [`big_memory`] with a hygiene dream waiting for review: `review` shows its long diff.
fn big_memory_pending(env: &Env) {
    big_memory(env);
    env.run(&["run", "--engine", "hygiene", "--review"]).assert_code(0);
    assert!(
        env.state_dir().join("pending").read_dir().is_ok_and(|mut d| d.next().is_some()),
        "no pending dream"
    );
}

/// [`big_memory`] in a git project whose files its facts name: `check --stale` lists them.
fn big_memory_in_a_repository(env: &Env) {
    big_memory(env);
    std::fs::create_dir_all(env.cwd.join(".git")).unwrap();
    let mut topic = String::from("# Scripts\n\n");
    for i in 0..LINES {
        topic.push_str(&format!(
            "- service {i} deploys with `scripts/deploy-{i}.sh` from the release folder\n"
        ));
    }
    write(&env.mem.join("scripts.md"), &topic);
}

fn nothing(_: &Env) {}

fn initialised(env: &Env) {
    env.run(&["init"]).assert_code(0);
}

/// A finished dream's announcement waiting for the next hook.
fn announcement(env: &Env) {
    initialised(env);
    write(&env.state_file("announce"), "Improved 2 files");
}

/// The last dream's task says it runs, under a PID that is gone: `kill` cleans up and says so.
fn dead_dream(env: &Env) {
    tidy_memory(&env.mem);
    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
    let mut gone = std::process::Command::new("true").spawn().expect("spawn true");
    let pid = gone.id();
    gone.wait().expect("reap true");
    let mut task = env.task().expect("a task");
    task["state"] = "running".into();
    task["pid"] = pid.into();
    task.as_object_mut().unwrap().remove("ended_at");
    write(&env.state_file("task.json"), &task.to_string());
}

/// A tiny LoCoMo conversation for `eval locomo`.
fn locomo(env: &Env) {
    write(
        &env.root.join("locomo.json"),
        r#"[{"sample_id":"conv-1","conversation":{"speaker_a":"Ana","speaker_b":"Ben",
            "session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[
            {"speaker":"Ana","dia_id":"D1:1","text":"I adopted a dog named Rex last week."},
            {"speaker":"Ben","dia_id":"D1:2","text":"Nice! What breed is Rex?"}]},
            "qa":[{"question":"What is the name of Ana's dog?","answer":"Rex","category":1}]}]"#,
    );
}

fn unchanged(env: &Env, before: &FullState) {
    assert_eq!(&full_state(&env.mem), before, "a dry run changed something, or its lock stayed");
}

fn lock_released(env: &Env, _: &FullState) {
    assert_eq!(read(&env.mem.join(LOCK)), "", "the dream's lock was not released");
}

/// The daemon stopped as it does on SIGTERM: its state says so (when its first line, before
/// the schedule, did not already fail), and its PID lock is free.
fn daemon_stopped(env: &Env, _: &FullState) {
    let daemon = &env.status_json()["daemon"];
    if !daemon.is_null() {
        assert_eq!(daemon["running"], false, "{daemon}");
        assert!(daemon["stopped_at"].is_string(), "the daemon did not record its stop: {daemon}");
    }
    env.run(&["daemon", "--once"]).assert_code(0);
}

fn cases() -> Vec<Case> {
    let mut cases = vec![
        case("--help", nothing),
        case("--version", nothing),
        case("help status", nothing),
        case("init", nothing),
        case("log the deploy goes out on Thursday", initialised),
        case("hook", announcement),
        case("hook", announcement).stdin("{\"hook_event_name\":\"Stop\"}"),
        case("status", big_memory),
        case("status --json", big_memory),
        case("sessions --all", many_sessions).big(),
        case("sessions --all --json", many_sessions).big(),
        case("check", big_memory).big(),
        case("check --json", big_memory).big(),
        case("check --stale", big_memory_in_a_repository).big(),
        case("check --stale --json", big_memory_in_a_repository).big(),
        case("run --engine hygiene --dry-run", big_memory).big().after(unchanged),
        case("run --engine hygiene", big_memory).after(lock_released),
        case("run --engine hygiene --json", big_memory).after(lock_released),
        case("watch", big_memory_dreamt),
        case("kill", dead_dream),
        case("history", big_memory_dreamt),
        case("history --json", big_memory_dreamt),
        case("diff", big_memory_dreamt).big(),
        case("undo", big_memory_dreamt).after(lock_released),
        case("review", big_memory_pending).big(),
        case("review --json", big_memory_pending).big(),
        case("review --accept", big_memory_pending).after(lock_released),
        case("why deploy", big_memory).big(),
        case("why deploy --json", big_memory).big(),
        case("forget --dry-run deploy", big_memory).big().after(unchanged),
        case("doctor", big_memory),
        case("doctor --json", big_memory),
        case("daemon --once", big_memory),
        case("daemon --once --json", big_memory),
        // A thousand ticks' lines are over 100 KB: the schedule meets the closed pipe mid-run.
        case("daemon --ticks 1000 --tick-seconds 0", initialised).big().after(daemon_stopped),
        case("eval --help", nothing),
        // Without a remote these end at once with an error; what they print to a closed
        // reader is the `--help` path, as with `eval`.
        case("team init --help", nothing),
        case("team sync --help", nothing),
        case("team status --help", nothing),
        case("team run --help", nothing),
        case("team leave", nothing),
        case("eval locomo --help", nothing),
    ];
    cases.push(Case {
        args: vec![
            "eval".into(),
            "locomo".into(),
            "[ROOT]/locomo.json".into(),
            "--out".into(),
            "[ROOT]/eval".into(),
        ],
        ..case("", locomo)
    });
    for target in ["claude-code", "codex", "gemini", "daemon"] {
        cases.push(case(&format!("install {target} --dry-run"), nothing));
        cases.push(case(&format!("uninstall {target} --dry-run"), nothing));
    }
    cases.push(case("install claude-code", nothing));
    cases
}

/// The subcommands `autodream ARGS… --help` lists (clap's `help` included).
fn subcommands(env: &Env, args: &[&str]) -> Vec<String> {
    let out = env.run(&[args, &["--help"]].concat());
    out.assert_code(0);
    let Some((_, listing)) = out.stdout.split_once("\nCommands:\n") else { return Vec::new() };
    listing
        .lines()
        .take_while(|l| !l.trim().is_empty())
        // A name is indented by two spaces; its description's next lines by more.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Every command path the help shows: `status`, `install codex`, … (leaves and parents).
fn command_tree(env: &Env) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = todo.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        for sub in subcommands(env, &args) {
            let mut child = path.clone();
            child.push(sub.clone());
            // clap's `help` below the top is the same `help` again.
            if sub == "help" && !path.is_empty() {
                continue;
            }
            found.insert(child.join(" "));
            if sub != "help" {
                todo.push(child);
            }
        }
    }
    found
}

/// The command path a case runs (its words up to the first option or free argument).
fn covers(case: &Case, path: &str) -> bool {
    let words: Vec<&str> = path.split(' ').collect();
    case.args.len() >= words.len() && case.args.iter().zip(&words).all(|(a, w)| a == w)
}

#[test]
fn every_command_is_covered_or_excused() {
    let env = Env::new();
    let tree = command_tree(&env);
    // The walk itself works: it found top-level, nested and clap's own commands.
    for expected in ["status", "install codex", "uninstall daemon", "eval locomo", "help"] {
        assert!(tree.contains(expected), "{expected} missing from the help's tree: {tree:?}");
    }
    let cases = cases();
    let excused: Vec<&str> = EXCUSED.iter().map(|(c, _)| *c).collect();
    let forgotten: Vec<&String> = tree
        .iter()
        .filter(|path| !excused.contains(&path.as_str()))
        // A parent (`install`) is covered by its children's cases.
        .filter(|path| !cases.iter().any(|c| covers(c, path)))
        .collect();
    assert!(
        forgotten.is_empty(),
        "commands with no closed-stdout case (add one to `cases`, or a reason to EXCUSED): {forgotten:?}"
    );
    for (name, _) in EXCUSED {
        assert!(tree.contains(*name), "EXCUSED names {name}, which is no longer a command");
    }
}

/// Runs one case with one kind of reader; panics with what went wrong.
fn check_case(case: &Case, reader: Reader) {
    let prepare = || {
        let env = Env::new();
        (case.fixture)(&env);
        let root = env.root.display().to_string();
        let args: Vec<String> = case.args.iter().map(|a| a.replace("[ROOT]", &root)).collect();
        (env, args)
    };
    let what = format!("autodream {} ({reader:?} reader)", case.args.join(" "));
    if let Reader::OneLine = reader {
        // The fixture is big enough to matter: the whole output is more than a pipe holds.
        let (env, args) = prepare();
        let full = env.run(&args);
        assert!(
            full.stdout.len() > PIPE_BUFFER,
            "{what}: only {} bytes of output, a pipe buffer takes it all",
            full.stdout.len()
        );
    }
    // Fresh again: the full run above may have changed it.
    let (env, args) = prepare();
    let before = full_state(&env.mem);
    let (out, line) = run_into_leaving_reader(&env, &args, case.stdin.map(str::as_bytes), reader);
    assert!(!out.stderr.contains("panicked"), "{what}: {}", out.stderr);
    assert_eq!(out.code, 0, "{what}: {}", out.stderr);
    assert!(!out.stderr.contains("Broken pipe"), "{what}: said {:?}", out.stderr);
    if let Reader::OneLine = reader {
        assert!(!line.trim().is_empty(), "{what}: the first line was empty");
    }
    (case.after)(&env, &before);
}

#[test]
fn every_command_treats_a_closed_stdout_as_done() {
    let mut failed = Vec::new();
    for case in cases() {
        let readers: &[Reader] =
            if case.big { &[Reader::Closed, Reader::OneLine] } else { &[Reader::Closed] };
        for &reader in readers {
            // Every case runs, so one report names every command that misbehaves.
            if std::panic::catch_unwind(|| check_case(&case, reader)).is_err() {
                failed.push(format!("{} ({reader:?})", case.args.join(" ")));
            }
        }
    }
    assert!(failed.is_empty(), "these commands fail when their reader leaves: {failed:#?}");
}

/// One JSON-RPC message, as a line for the server's standard input.
fn rpc_line(message: serde_json::Value) -> Vec<u8> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;

/// `autodream mcp` with stdin kept open and stdout into a pipe: the server must end because
/// its client stopped reading, not because its input ended.
#[test]
fn the_mcp_server_ends_with_exit_0_when_its_client_stops_reading() {
    use std::io::Write;
    let env = Env::new();
    initialised(&env);
    let initialize: serde_json::Value = serde_json::from_str(INITIALIZE).unwrap();
    for after_handshake in [false, true] {
        let (read_end, write_end) = std::io::pipe().expect("a pipe");
        let mut cmd = env.cmd(&["mcp"]);
        cmd.stdin(Stdio::piped()).stdout(write_end).stderr(Stdio::piped());
        let mut read_end = Some(read_end);
        if !after_handshake {
            drop(read_end.take());
        }
        let mut child = cmd.spawn().expect("spawn autodream mcp");
        drop(cmd);
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin.write_all(&rpc_line(initialize.clone())).unwrap();
        if let Some(r) = read_end.take() {
            let mut answer = String::new();
            BufReader::new(r).read_line(&mut answer).expect("the handshake's answer");
            assert!(answer.contains("\"serverInfo\""), "{answer}");
            stdin
                .write_all(&rpc_line(
                    serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
                ))
                .unwrap();
            // The reader is gone now; the next answer has nowhere to go.
            stdin
                .write_all(&rpc_line(serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/list"})))
                .unwrap();
        }
        // Standard input stays open until the server has ended by itself.
        let out = wait_with_deadline(child, Duration::from_secs(20));
        drop(stdin);
        let out =
            out.unwrap_or_else(|| panic!("the server kept running (after handshake: {after_handshake})"));
        assert_eq!(out.code, 0, "after handshake: {after_handshake}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
        assert!(!out.stderr.contains("error"), "after handshake: {after_handshake}: {}", out.stderr);
    }
}
