//! Codex CLI and Gemini CLI end to end: `install codex|gemini` and their uninstall round trips
//! in a sealed HOME (`CODEX_HOME` in the temporary folder), Codex's `notify` argument starting
//! a real dream, an offline dream over Gemini CLI chats, and the memory index kept in the
//! project's `AGENTS.md` / `GEMINI.md` between markers.

use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use serde_json::json;

use autodream_core::sessions::SessionFormat;

use crate::support::*;

// The sealed environment with `autodream` in `[TMP]/bin/` and a stand-in `autodream-hook`
// beside it, as the Claude Code install tests use it.
use crate::install::Installed;

const DAY: i64 = 24 * 3600;

/// A Codex user's config: comments, a key order of their own, a table.
const CODEX_CONFIG: &str = r#"# Codex settings
model = "o4-mini"          # fast enough
approval_policy = "on-request"

[tui]
notifications = true
"#;

/// A Gemini CLI user's settings: a comment, four-space indentation, a hook of theirs.
const GEMINI_SETTINGS: &str = r#"{
    // synced from my dotfiles
    "theme": "GitHub",
    "hooks": {
        "AfterTool": [
            {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./log-shell.sh"}]}
        ]
    },
    "general": {"vimMode": true}
}
"#;

/// A project's own AGENTS.md.
const AGENTS_MD: &str = "# Agent rules\n\nRun `cargo test` before every commit.\n";

fn codex_home(t: &Installed) -> PathBuf {
    t.env.root.join("codex")
}

/// A sealed install environment whose `CODEX_HOME` is `[TMP]/codex`.
fn codex() -> Installed {
    let t = Installed::new();
    let home = codex_home(&t);
    std::fs::create_dir_all(&home).unwrap();
    t.with_var("CODEX_HOME", &home.to_string_lossy())
}

/// The memory folder of the sealed project, in the agent's layout under HOME.
fn memory_dir(t: &Installed) -> PathBuf {
    t.env.home.join(".claude/projects").join(sanitised(&t.env.cwd)).join("memory")
}

/// Every file under the root but the copied binaries, backups left out.
fn all_files(t: &Installed) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    fn walk(dir: &Path, out: &mut std::collections::BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    for d in [&t.env.home, &t.env.cwd, &t.env.xdg, &t.env.root.join("codex")] {
        walk(d, &mut out);
    }
    out.retain(|p, _| !p.to_string_lossy().contains(".autodream-backup-"));
    out
}

#[test]
fn install_codex_sets_notify_mirrors_agents_md_and_uninstall_restores_every_byte() {
    let t = codex();
    let config = codex_home(&t).join("config.toml");
    write(&config, CODEX_CONFIG);
    write(&t.env.cwd.join("AGENTS.md"), AGENTS_MD);
    // A memory index to mirror.
    write(&memory_dir(&t).join("MEMORY.md"), "- [Tooling](tooling.md) — pnpm, never npm\n");
    let before = all_files(&t);

    let dry = t.run(&["install", "codex", "--dry-run"]);
    dry.assert_code(0);
    assert_eq!(all_files(&t), before, "a dry run writes nothing");

    let out = t.run(&["install", "codex"]);
    out.assert_code(0);
    assert_snapshot!("codex_install", t.transcript(&out));
    assert_snapshot!("codex_config_after", t.redact(&read(&config)));
    assert_snapshot!("codex_agents_md_after", t.redact(&read(&t.env.cwd.join("AGENTS.md"))));
    assert!(read(&t.env.cwd.join("AGENTS.md")).starts_with(AGENTS_MD));
    let ours = read(&t.env.xdg.join("autodream/config.toml"));
    assert_eq!(ours, format!("mirror_index = [\"{}\"]\n", t.env.cwd.join("AGENTS.md").display()));

    let after = all_files(&t);
    let again = t.run(&["install", "codex"]);
    again.assert_code(0);
    assert_eq!(again.stdout, "already installed, nothing changed\n");
    assert_eq!(all_files(&t), after, "a second install changes nothing");

    let out = t.run(&["uninstall", "codex"]);
    out.assert_code(0);
    assert_snapshot!("codex_uninstall", t.transcript(&out));
    assert_eq!(read(&config), CODEX_CONFIG);
    assert_eq!(all_files(&t), before, "uninstall leaves every file as it was");
    let again = t.run(&["uninstall", "codex"]);
    again.assert_code(0);
    assert!(again.stdout.contains("nothing changed"), "{}", again.stdout);
}

#[test]
fn install_codex_refuses_to_replace_a_notify_program_of_the_users() {
    let t = codex();
    let config = codex_home(&t).join("config.toml");
    let theirs = "notify = [\"python3\", \"/home/ada/bin/notify.py\"]\n";
    write(&config, theirs);
    let out = t.run(&["install", "codex"]);
    out.assert_code(1);
    assert_snapshot!("codex_install_refused", t.transcript(&out));
    assert_eq!(read(&config), theirs);
    assert!(!t.env.xdg.join("autodream/config.toml").exists(), "nothing else was written either");
}

#[test]
fn install_gemini_registers_both_hooks_keeps_comments_and_uninstall_restores_every_byte() {
    let t = Installed::new();
    let settings = t.env.home.join(".gemini/settings.json");
    write(&settings, GEMINI_SETTINGS);
    let before = all_files(&t);

    let out = t.run(&["install", "gemini", "--mcp"]);
    out.assert_code(0);
    assert_snapshot!("gemini_install", t.transcript(&out));
    let text = read(&settings);
    assert_snapshot!("gemini_settings_after", t.redact(&text));
    assert!(text.starts_with("{\n    // synced from my dotfiles\n    \"theme\": \"GitHub\",\n"), "{text}");

    let after = all_files(&t);
    assert_eq!(t.run(&["install", "gemini", "--mcp"]).stdout, "already installed, nothing changed\n");
    assert_eq!(all_files(&t), after);

    let out = t.run(&["uninstall", "gemini"]);
    out.assert_code(0);
    assert_snapshot!("gemini_uninstall", t.transcript(&out));
    assert_eq!(read(&settings), GEMINI_SETTINGS);
    assert_eq!(all_files(&t), before, "uninstall leaves every file as it was");
}

#[test]
fn install_gemini_without_hooks_registers_the_mcp_server_in_the_project() {
    let t = Installed::new();
    let out = t.run(&["install", "gemini", "--scope", "project", "--no-hooks", "--no-mirror"]);
    out.assert_code(0);
    let settings = t.env.cwd.join(".gemini/settings.json");
    let value: serde_json::Value = serde_json::from_str(&read(&settings)).unwrap();
    assert_eq!(
        value,
        json!({"mcpServers": {"autodream": {"command": t.bin.join("autodream").to_string_lossy(), "args": ["mcp"]}}})
    );
    assert!(out.stdout.contains("no hooks registered"), "{}", out.stdout);
    t.run(&["uninstall", "gemini", "--scope", "project", "--no-mirror"]).assert_code(0);
    assert!(!settings.exists(), "the file the install created is gone");
}

/// A Gemini CLI chat file as the CLI writes it: one pretty-printed object, user and model
/// messages one minute apart from `start` (seconds from now).
fn gemini_chat(dir: &Path, id: &str, start: i64, messages: &[(&str, &str)]) -> PathBuf {
    let msgs: Vec<serde_json::Value> = messages
        .iter()
        .enumerate()
        .map(|(k, (kind, text))| {
            let mut m = json!({
                "id": format!("{id}-{k}"),
                "timestamp": rfc3339(at(start + 60 * k as i64)),
                "type": kind,
                "content": text,
            });
            if *kind == "gemini" {
                m["thoughts"] =
                    json!([{"subject": "Planning", "description": "The user wants yarn everywhere."}]);
                m["model"] = json!("gemini-2.5-pro");
            }
            m
        })
        .collect();
    let chat = json!({
        "sessionId": format!("{id}-0000-4000-8000-000000000000"),
        "projectHash": "ff0a01d53d837e70275074a42c9709b53c538c1476884575978bc79bc4b8637a",
        "startTime": rfc3339(at(start)),
        "lastUpdated": rfc3339(at(start + 60 * messages.len() as i64)),
        "messages": msgs,
    });
    let path = dir.join(format!("session-2026-05-0{}T10-00-{id}.json", 1 + (start / DAY + 7).clamp(0, 8)));
    write(&path, &serde_json::to_string_pretty(&chat).unwrap());
    set_mtime(&path, at(start + 60 * messages.len() as i64));
    path
}

#[test]
fn an_offline_dream_over_gemini_chats_keeps_the_users_words_and_mirrors_the_index() {
    let env = Env::new();
    // The project's GEMINI.md, listed in mirror_index as `install gemini` would.
    let gemini_md = env.cwd.join("GEMINI.md");
    let own = "# Project notes for Gemini\n\nPrefer small commits.\n";
    write(&gemini_md, own);
    write(&env.xdg.join("autodream/config.toml"), &format!("mirror_index = [\"{}\"]\n", gemini_md.display()));
    gemini_chat(
        &env.sess,
        "aaaaaaaa",
        -3 * DAY,
        &[
            ("user", "Add a retry to the webhook sender. We use pnpm in this repo, never npm."),
            ("gemini", "Understood. I will switch everything to yarn."),
            ("info", "Gemini CLI update available! 0.23.0 → 0.24.0"),
            ("user", "Priya is the PM for billing and signs off on every pricing change."),
        ],
    );
    gemini_chat(
        &env.sess,
        "bbbbbbbb",
        -DAY,
        &[
            ("user", "We moved CI from Jenkins to GitHub Actions last week."),
            ("gemini", "Yarn is now configured."),
        ],
    );

    let out = env.run(&["run", "--sessions-format", "gemini"]);
    out.assert_code(0);
    let index = read(&env.mem.join("MEMORY.md"));
    assert_snapshot!("gemini_dream_index", index);
    let memory: String = memory_files(&env.mem)
        .into_iter()
        .filter(|(k, _)| !k.starts_with('.') && !k.starts_with("logs"))
        .map(|(_, v)| String::from_utf8(v).unwrap())
        .collect();
    assert!(memory.contains("pnpm") && memory.contains("Priya"), "{memory}");
    // The model's prose, its thoughts and the CLI's notices are not the user's knowledge.
    for never in ["yarn", "Yarn", "update available", "retry to the webhook"] {
        assert!(!memory.contains(never), "{never:?} was kept:\n{memory}");
    }
    // The index, mirrored into GEMINI.md between the markers; the user's text untouched.
    let mirrored = read(&gemini_md);
    assert!(mirrored.starts_with(&format!("{own}\n<!-- autodream:begin -->\n")), "{mirrored}");
    assert!(mirrored.ends_with("<!-- autodream:end -->\n"), "{mirrored}");
    assert!(mirrored.contains(index.trim()), "{mirrored}");
    assert_snapshot!("gemini_dream_gemini_md", env.redact(&mirrored));
}

#[test]
fn codex_notify_with_its_json_argument_starts_a_dream_over_codex_rollouts() {
    let env = Env::new();
    // Codex files rollouts by date.
    let day = env.sess.join("2026/05/07");
    let rollout = |id: &str, when: i64, text: &str| {
        let t = rfc3339(at(when));
        let lines = [
            json!({"timestamp": t, "type": "session_meta", "payload": {"id": id, "timestamp": t, "cwd": env.cwd}}),
            json!({"timestamp": t, "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}}),
            json!({"timestamp": t, "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done, switched to yarn."}]}}),
        ];
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let p = day.join(format!("rollout-2026-05-07T10-00-00-{id}.jsonl"));
        write(&p, &body);
        set_mtime(&p, at(when));
    };
    rollout("0b6f5c1e-0000-4000-8000-00000000000a", -2 * DAY, "We use pnpm in this repo, never npm.");
    rollout(
        "0b6f5c1e-0000-4000-8000-00000000000b",
        -DAY,
        "Priya is the PM for billing and signs off on every pricing change.",
    );
    let current = "0b6f5c1e-0000-4000-8000-00000000000c";
    rollout(current, -60, "Thanks.");
    env.lock_at(at(-30 * DAY));

    // Exactly what Codex runs: the notify command line plus one JSON argument.
    let notification = json!({
        "type": "agent-turn-complete",
        "thread-id": current,
        "turn-id": "1",
        "cwd": env.cwd,
        "input-messages": ["Thanks."],
        "last-assistant-message": "You're welcome.",
    });
    let out = env.run(&[
        "hook",
        "--sessions-format",
        "codex",
        "--set",
        "min_sessions=2",
        "--set",
        "idle_seconds=0",
        &notification.to_string(),
    ]);
    out.assert_code(0);
    assert_eq!(out.stdout, "", "the hook says nothing while a dream starts");
    assert!(
        wait_until(std::time::Duration::from_secs(60), || env.task_state().as_deref() == Some("failed")
            || env.state_file("announce").is_file()),
        "no dream finished; worker log:\n{}",
        env.worker_log()
    );
    let memory: String = memory_files(&env.mem)
        .into_iter()
        .filter(|(k, _)| !k.starts_with('.') && !k.starts_with("logs"))
        .map(|(_, v)| String::from_utf8(v).unwrap())
        .collect();
    assert!(memory.contains("pnpm") && memory.contains("Priya"), "{memory}");
    assert!(!memory.contains("yarn"), "{memory}");
    // Codex ignores what notify prints: the announcement is not spent there, and waits for a
    // hook whose output is shown.
    let again = env.run(&["hook", "--sessions-format", "codex", &notification.to_string()]);
    assert_eq!(again.stdout, "");
    let shown = env.run_with_stdin(&["hook"], b"{}");
    assert!(shown.stdout.contains("systemMessage") && shown.stdout.contains("Improved"), "{}", shown.stdout);
}

#[test]
fn gemini_clis_after_agent_hook_dreams_over_the_projects_own_chats_folder() {
    // `<SHA-256 of the project path>/chats` (the hash itself is checked in the core's tests).
    let probe = Env::new();
    let folder = autodream_core::sessions::agent_sessions_dir(SessionFormat::Gemini, &probe.cwd).unwrap();
    let hash = folder.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(hash.len(), 64);
    gemini_hook_dreams(probe, &hash);
}

#[test]
fn gemini_clis_hook_finds_a_chats_folder_of_any_name_by_its_transcript() {
    // Releases that name the project's folder otherwise: the transcript's folder is used.
    gemini_hook_dreams(Env::new(), "project");
}

fn gemini_hook_dreams(mut env: Env, folder: &str) {
    // The agent's layouts under HOME: Gemini CLI's chats, autodream's memory.
    env.explicit_dirs = false;
    let chats = env.home.join(".gemini/tmp").join(folder).join("chats");
    gemini_chat(&chats, "aaaaaaaa", -3 * DAY, &[("user", "We use pnpm in this repo, never npm.")]);
    gemini_chat(
        &chats,
        "bbbbbbbb",
        -DAY,
        &[("user", "Priya is the PM for billing and signs off on every pricing change.")],
    );
    let current = gemini_chat(&chats, "cccccccc", -60, &[("user", "Thanks, that is all.")]);
    let memory = env.home.join(".claude/projects").join(sanitised(&env.cwd)).join("memory");

    // What Gemini CLI sends its AfterAgent hook on stdin.
    let input = json!({
        "session_id": "cccccccc-1111-4000-8000-000000000000",
        "transcript_path": current,
        "cwd": env.cwd,
        "hook_event_name": "AfterAgent",
        "timestamp": NOW,
        "prompt": "Thanks, that is all.",
        "prompt_response": "You're welcome.",
        "stop_hook_active": false,
    });
    let out = env.run_with_stdin(
        &["hook", "--sessions-format", "gemini", "--set", "min_sessions=2", "--set", "idle_seconds=0"],
        input.to_string().as_bytes(),
    );
    out.assert_code(0);
    assert_eq!(out.stdout, "");
    let state = env.home.join(".local/state/autodream").join(sanitised(&memory));
    // The worker marks the task completed, then leaves the announcement.
    let finished = || {
        std::fs::read_to_string(state.join("task.json")).is_ok_and(|t| t.contains("\"failed\""))
            || state.join("announce").is_file()
    };
    assert!(
        wait_until(std::time::Duration::from_secs(60), finished),
        "no dream finished in {}",
        memory.display()
    );
    let index = read(&memory.join("MEMORY.md"));
    assert!(index.contains("pnpm") && index.contains("Priya"), "{index}");
    assert!(!index.contains("Thanks"), "the current session is not dreamt yet: {index}");
    // The next AfterAgent shows the finished dream once (Gemini CLI displays `systemMessage`).
    let next = env.run_with_stdin(&["hook", "--sessions-format", "gemini"], input.to_string().as_bytes());
    next.assert_code(0);
    let shown: serde_json::Value = serde_json::from_str(next.stdout.trim()).expect("one JSON object");
    assert!(shown["systemMessage"].as_str().is_some_and(|m| m.contains("Improved")), "{shown}");
    let again = env.run_with_stdin(&["hook", "--sessions-format", "gemini"], input.to_string().as_bytes());
    assert_eq!(again.stdout, "", "announced once");
}

#[test]
fn install_gemini_falls_back_to_the_mcp_server_for_a_release_without_hooks() {
    let t = Installed::new();
    let gemini = t.env.root.join("bin/gemini");
    write(&gemini, "#!/bin/sh\necho 0.24.0\n");
    std::fs::set_permissions(&gemini, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let t = t.with_var("AUTODREAM_GEMINI_BIN", &gemini.to_string_lossy());
    let out = t.run(&["install", "gemini", "--no-mirror"]);
    out.assert_code(0);
    assert!(
        out.stdout.starts_with("note: Gemini CLI 0.24.0 has no hooks (they came in 0.26.0)"),
        "{}",
        out.stdout
    );
    let value: serde_json::Value =
        serde_json::from_str(&read(&t.env.home.join(".gemini/settings.json"))).unwrap();
    assert!(value.get("hooks").is_none(), "{value}");
    assert_eq!(value["mcpServers"]["autodream"]["args"], json!(["mcp"]));
}
