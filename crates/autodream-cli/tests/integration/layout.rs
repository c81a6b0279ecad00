//! Where things live: the memory folder by the client's own rules (its environment
//! overrides, `autoMemoryDirectory`, the remote base, NFC), the client's switches for auto
//! memory, and autodream's own state kept out of the memory folder (with the one-time move
//! of an older `.dream/`).

use crate::support::*;

const HOUR: i64 = 3600;

/// An environment on the client's layout (no AUTODREAM_MEMORY_DIR), with a git project.
fn layout_env() -> Env {
    let mut env = Env::new();
    env.explicit_dirs = false;
    std::fs::create_dir_all(env.cwd.join(".git")).unwrap();
    env
}

fn memory_of(env: &Env) -> (String, String) {
    let v = env.status_json();
    (v["memory_dir"].as_str().unwrap().to_string(), v["memory_source"].as_str().unwrap_or("").to_string())
}

fn home_path(env: &Env, rel: &str) -> String {
    env.home.join(rel).display().to_string()
}

#[test]
fn the_memory_folder_is_the_one_the_client_loads() {
    let env = layout_env();
    let key = sanitised(&env.cwd);
    let default = home_path(&env, &format!(".claude/projects/{key}/memory"));
    assert_eq!(memory_of(&env), (default.clone(), "the client's layout under its config home".into()));

    // autoMemoryDirectory in the user's settings, with `~` expanded.
    write(&env.home.join(".claude/settings.json"), r#"{"autoMemoryDirectory": "~/notes/memory/"}"#);
    let (dir, source) = memory_of(&env);
    assert_eq!(dir, home_path(&env, "notes/memory"));
    assert!(
        source.starts_with("autoMemoryDirectory in ") && source.ends_with(".claude/settings.json"),
        "{source}"
    );

    // The project's local settings beat the user's.
    let local = env.root.join("local-memory");
    write(
        &env.cwd.join(".claude/settings.local.json"),
        &serde_json::json!({ "autoMemoryDirectory": local }).to_string(),
    );
    assert_eq!(memory_of(&env).0, local.display().to_string());

    // The client's environment override beats every setting; AUTODREAM_MEMORY_DIR beats it.
    let cowork = env.root.join("cowork");
    let env = env.var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", &cowork.display().to_string());
    assert_eq!(memory_of(&env), (cowork.display().to_string(), "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE".into()));
    let ours = env.root.join("ours");
    let env = env.var("AUTODREAM_MEMORY_DIR", &ours.display().to_string());
    assert_eq!(memory_of(&env), (ours.display().to_string(), "AUTODREAM_MEMORY_DIR".into()));
}

#[test]
fn values_the_client_refuses_are_ignored_and_paths_are_nfc() {
    let env = layout_env();
    let default = home_path(&env, &format!(".claude/projects/{}/memory", sanitised(&env.cwd)));
    for refused in ["~", "~/", "~/..", "relative/memory", "/a"] {
        write(
            &env.home.join(".claude/settings.json"),
            &serde_json::json!({ "autoMemoryDirectory": refused }).to_string(),
        );
        assert_eq!(memory_of(&env).0, default, "{refused:?} was accepted");
    }
    // "é" written as e + combining acute comes back composed, as the client normalises it.
    let decomposed = env.root.join("cafe\u{301}");
    write(
        &env.home.join(".claude/settings.json"),
        &serde_json::json!({ "autoMemoryDirectory": decomposed }).to_string(),
    );
    assert_eq!(memory_of(&env).0, env.root.join("caf\u{e9}").display().to_string());
}

#[test]
fn the_remote_base_and_the_config_home_move_the_layout() {
    let env = layout_env();
    let key = sanitised(&env.cwd);
    let config_home = env.root.join("config-home");
    let env = env.var("CLAUDE_CONFIG_DIR", &config_home.display().to_string());
    assert_eq!(memory_of(&env).0, config_home.join(format!("projects/{key}/memory")).display().to_string());
    let remote = env.root.join("remote");
    let env = env.var("CLAUDE_CODE_REMOTE_MEMORY_DIR", &remote.display().to_string());
    assert_eq!(
        memory_of(&env),
        (
            remote.join(format!("projects/{key}/memory")).display().to_string(),
            "the client's layout under CLAUDE_CODE_REMOTE_MEMORY_DIR".into()
        )
    );
}

#[test]
fn a_pinned_project_folder_name_moves_memory_and_transcripts() {
    let env = layout_env();
    let config_home = env.root.join("config-home");
    // Without CLAUDE_CONFIG_DIR the client ignores the pin, and so do we.
    let env = env.var("CLAUDE_CODE_PROJECT_DIR_NAME", "shared-notes");
    assert_eq!(
        memory_of(&env).0,
        home_path(&env, &format!(".claude/projects/{}/memory", sanitised(&env.cwd)))
    );
    let env = env.var("CLAUDE_CONFIG_DIR", &config_home.display().to_string());
    let v = env.status_json();
    assert_eq!(v["memory_dir"], config_home.join("projects/shared-notes/memory").display().to_string());
    assert_eq!(v["sessions_dir"], config_home.join("projects/shared-notes").display().to_string(), "{v}");
    // A name the client refuses (a slash, over 64 characters) leaves the usual layout.
    let env = env.var("CLAUDE_CODE_PROJECT_DIR_NAME", "../escape");
    let key = sanitised(&env.cwd);
    assert_eq!(memory_of(&env).0, config_home.join(format!("projects/{key}/memory")).display().to_string());
}

#[test]
fn auto_memory_off_in_the_client_closes_gate_one_with_the_reason() {
    for (var, reason) in [
        ("CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SIMPLE is set"),
        ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "CLAUDE_CODE_DISABLE_AUTO_MEMORY is set"),
    ] {
        let env = Env::new().var(var, "1");
        let v = env.status_json();
        assert_eq!(v["gates"][0]["pass"], false, "{var}");
        assert!(v["gates"][0]["detail"].as_str().unwrap_or("").contains(reason), "{var}: {}", v["gates"][0]);
    }
    let env = Env::new();
    write(&env.cwd.join(".claude/settings.json"), r#"{"autoMemoryEnabled": false}"#);
    let v = env.status_json();
    assert_eq!(v["gates"][0]["pass"], false);
    assert!(
        v["gates"][0]["detail"].as_str().unwrap_or("").contains("autoMemoryEnabled is false"),
        "{}",
        v["gates"][0]
    );
    // The client's memory stores own memory: gate 1 closes with that reason, and the hook
    // stays silent. An empty list is no store; a value that does not parse is a warning.
    let stores = r#"[{"path": "/stores/user", "mode": "rw", "scope": "user"}]"#;
    let v = Env::new().var("CLAUDE_MEMORY_STORES", stores).status_json();
    assert_eq!(v["gates"][0]["pass"], false);
    let detail = v["gates"][0]["detail"].as_str().unwrap_or("");
    assert!(detail.contains("CLAUDE_MEMORY_STORES is set (1 store)"), "{detail}");
    assert_eq!(Env::new().var("CLAUDE_MEMORY_STORES", "[]").status_json()["gates"][0]["pass"], true);
    let env = Env::new().var("CLAUDE_MEMORY_STORES", "{oops");
    let out = env.run(&["status"]);
    assert!(
        out.stderr.contains("CLAUDE_MEMORY_STORES") && out.stderr.contains("memory_stores"),
        "{}",
        out.stderr
    );
    assert_eq!(env.status_json()["gates"][0]["pass"], true);
    // The client's own dream switch is the client's: autodream stays on.
    let env = Env::new();
    write(&env.home.join(".claude/settings.json"), r#"{"autoDreamEnabled": false}"#);
    assert_eq!(env.status_json()["gates"][0]["pass"], true);
}

/// Every path below `dir`, relative.
fn tree(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_dream_leaves_only_memory_in_the_memory_folder() {
    let env = Env::new();
    std::fs::create_dir_all(&env.mem).unwrap();
    for (i, name) in ["one", "two"].iter().enumerate() {
        let body = format!(
            "{{\"type\":\"user\",\"sessionId\":\"{name}\",\"timestamp\":\"2026-05-0{}T10:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"We use pnpm, never npm, in this repository.\"}}}}\n",
            i + 1
        );
        env.session(&format!("00000000-0000-4000-8000-00000000000{i}"), &body, at(-(i as i64 + 1) * HOUR));
    }
    env.run(&["run", "--engine", "offline"]).assert_code(0);
    env.run(&["forget", "pnpm"]).assert_code(0);
    // The client reads every *.md below the memory folder: only memory is there.
    let files = tree(&env.mem);
    assert!(
        files.iter().all(|f| f == "MEMORY.md" || f == "logs" || f == LOCK || !f.starts_with('.')),
        "{files:?}"
    );
    assert!(files.iter().any(|f| f.ends_with(".md") && f != "MEMORY.md"), "no topic file: {files:?}");
    // History, the engine's record and the archive are in the state folder.
    let state = tree(&env.state_dir());
    for wanted in ["history", "task.json", "data/.engine/offline/coding.json", "data/.archive/forgotten.md"] {
        assert!(state.iter().any(|f| f == wanted), "{wanted} missing from {state:?}");
    }
    // And undo brings the forgotten fact back from there.
    env.run(&["undo"]).assert_code(0);
    let archive = std::fs::read_to_string(env.state_file("data/.archive/forgotten.md")).unwrap_or_default();
    assert!(!archive.contains("pnpm"), "{archive}");
    assert!(tree(&env.mem).iter().any(|f| f.ends_with(".md") && f != "MEMORY.md"));
}

#[test]
fn an_older_state_folder_moves_out_once() {
    let env = Env::new();
    write(&env.mem.join("MEMORY.md"), "- [Tools](tools.md) — We use pnpm.\n");
    write(&env.mem.join("tools.md"), "- We use pnpm.\n");
    write(&env.mem.join(".dream/history/20260501T000000Z/before/tools.md"), "- We use npm.\n");
    write(
        &env.mem.join(".dream/history/20260501T000000Z/manifest.json"),
        r#"{"task":"20260501T000000Z","engine":"offline","started_at":"2026-05-01T00:00:00Z","ended_at":"2026-05-01T00:00:01Z","summary":"Improved 1 file","changes":[],"conflicts":[]}"#,
    );
    write(&env.mem.join(".archive/tools.md"), "- an archived fact\n");
    write(&env.mem.join(".engine/offline/coding.json"), "{}");

    let out = env.run(&["history"]);
    out.assert_code(0);
    assert!(
        out.stderr.contains("moved .dream/, .engine/, .archive/ out of the memory folder"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("20260501T000000Z"), "{}", out.stdout);
    assert_eq!(tree(&env.mem), ["MEMORY.md", "tools.md"]);
    assert_eq!(read(&env.state_file("data/.archive/tools.md")), "- an archived fact\n");
    let again = env.run(&["history"]);
    assert!(!again.stderr.contains("moved"), "{}", again.stderr);
}
