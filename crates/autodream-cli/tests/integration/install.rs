//! `autodream install claude-code` and `uninstall claude-code` as a user runs them: a copy of
//! the binary (with an `autodream-hook` beside it) in a sealed HOME, every scope, what is
//! printed, what is written, the backups, a second run that changes nothing, a dry run that
//! writes nothing, and an uninstall that leaves every file as it was, byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::*;

/// A sealed environment with `autodream` copied to `[TMP]/bin/` and a stand-in
/// `autodream-hook` beside it (install records the hook's path; it never runs it).
pub struct Installed {
    pub env: Env,
    pub bin: PathBuf,
}

impl Installed {
    pub fn new() -> Installed {
        let mut env = Env::new();
        // The agent's own layout under HOME, as a user has it.
        env.explicit_dirs = false;
        let bin = env.root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        // A hard link where it can be (a copy being written while another test forks would
        // leave the file busy for exec), else a copy.
        if std::fs::hard_link(crate::support::bin(), bin.join("autodream")).is_err() {
            std::fs::copy(crate::support::bin(), bin.join("autodream")).unwrap();
        }
        write(&bin.join("autodream-hook"), "#!/bin/sh\nexit 0\n");
        set_mode(&bin.join("autodream-hook"), 0o755);
        Installed { env, bin }
    }

    pub fn with_var(mut self, k: &str, v: &str) -> Installed {
        self.env = self.env.var(k, v);
        self
    }

    /// The copied `autodream ARGS…` in the sealed environment.
    pub fn run(&self, args: &[&str]) -> Out {
        let e = &self.env;
        let mut c = Command::new(self.bin.join("autodream"));
        c.args(args).env_clear().current_dir(&e.cwd);
        if let Some(path) = std::env::var_os("PATH") {
            c.env("PATH", path);
        }
        c.env("HOME", &e.home).env("XDG_CONFIG_HOME", &e.xdg).env("TZ", "UTC");
        if let Some(now) = &e.now {
            c.env("AUTODREAM_NOW", now);
        }
        for (k, v) in &e.vars {
            c.env(k, v);
        }
        c.stdin(Stdio::null());
        // A copied binary can be busy for a moment while another test's child still holds
        // the copy's file descriptor between its fork and its exec.
        for _ in 0..50 {
            match c.output() {
                Err(e) if e.raw_os_error() == Some(26) => {
                    std::thread::sleep(std::time::Duration::from_millis(20))
                }
                other => return Out::from_output(other.expect("run autodream")),
            }
        }
        Out::from_output(c.output().expect("run autodream"))
    }

    /// A snapshot-ready transcript: the temporary folder as `[TMP]`, and its name as the
    /// client folds it into a project folder's name as `[TMP-KEY]`.
    pub fn transcript(&self, out: &Out) -> String {
        self.redact(&out.transcript())
    }

    pub fn redact(&self, text: &str) -> String {
        let root = self.env.root.to_string_lossy().into_owned();
        let key: String = root.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        text.replace(&root, "[TMP]").replace(&key, "[TMP-KEY]")
    }

    pub fn user_settings(&self) -> PathBuf {
        self.env.home.join(".claude/settings.json")
    }

    /// Every file under HOME and the project with its bytes, backups left out.
    pub fn files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        for dir in [&self.env.home, &self.env.cwd] {
            walk(dir, &mut out);
        }
        out.retain(|p, _| !p.to_string_lossy().contains(".autodream-backup-"));
        out
    }

    pub fn backups(&self) -> Vec<String> {
        let mut all = BTreeMap::new();
        for dir in [&self.env.home, &self.env.cwd] {
            walk(dir, &mut all);
        }
        all.keys()
            .filter(|p| p.to_string_lossy().contains(".autodream-backup-"))
            .map(|p| self.redact(&p.to_string_lossy()))
            .collect()
    }
}

fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
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

pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A user's settings: keys in an order of their own, four-space indentation, a hook of theirs.
const USER_SETTINGS: &str = r#"{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(cargo test:*)"]
    },
    "hooks": {
        "Stop": [
            {
                "matcher": "",
                "hooks": [{"type": "command", "command": "notify-send 'turn done'"}]
            }
        ]
    },
    "env": {"Z_LAST": "1", "A_FIRST": "2"},
    "autoDreamEnabled": true
}
"#;

#[test]
fn user_scope_round_trip_keeps_every_other_key_and_restores_the_file_byte_for_byte() {
    let t = Installed::new();
    write(&t.user_settings(), USER_SETTINGS);
    let before = t.files();

    let dry = t.run(&["install", "claude-code", "--dry-run"]);
    dry.assert_code(0);
    assert_eq!(t.files(), before, "a dry run writes nothing");
    assert!(t.backups().is_empty());

    let out = t.run(&["install", "claude-code"]);
    out.assert_code(0);
    // The dry run printed the same changes, announced differently.
    let body = |s: &str| {
        s.lines()
            .skip(1)
            .filter(|l| !l.starts_with("    backup:") && !l.starts_with("next:"))
            .map(|l| l.replace("would create", "created").replace("would change", "changed"))
            .collect::<Vec<_>>()
    };
    assert_eq!(body(&dry.stdout), body(&out.stdout));
    insta::assert_snapshot!("install_user_dry_run", t.transcript(&dry));
    insta::assert_snapshot!("install_user", t.transcript(&out));
    insta::assert_snapshot!("install_user_settings_after", t.redact(&read(&t.user_settings())));
    insta::assert_snapshot!(
        "install_user_dream_command",
        t.redact(&read(&t.env.home.join(".claude/commands/dream.md")))
    );
    assert_eq!(
        t.backups(),
        vec!["[TMP]/home/.claude/settings.json.autodream-backup-20260508T135600Z".to_string()]
    );

    let after_install = t.files();
    let again = t.run(&["install", "claude-code"]);
    again.assert_code(0);
    assert_eq!(again.stdout, "already installed, nothing changed\n");
    assert_eq!(t.files(), after_install, "a second install changes nothing");
    assert_eq!(t.backups().len(), 1, "and takes no new backup");

    let dry = t.run(&["uninstall", "claude-code", "--dry-run"]);
    dry.assert_code(0);
    assert_eq!(t.files(), after_install);
    let out = t.run(&["uninstall", "claude-code"]);
    out.assert_code(0);
    insta::assert_snapshot!("uninstall_user", t.transcript(&out));
    assert_eq!(read(&t.user_settings()), USER_SETTINGS);
    assert_eq!(t.files(), before, "uninstall leaves every file as it was");

    let again = t.run(&["uninstall", "claude-code"]);
    again.assert_code(0);
    assert_eq!(again.stdout, "not installed in the user scope, nothing changed\n");
}

#[test]
fn project_and_local_scopes_from_no_file_to_no_file() {
    for (scope, file) in [("project", ".claude/settings.json"), ("local", ".claude/settings.local.json")] {
        let t = Installed::new();
        let before = t.files();
        let out = t.run(&["install", "claude-code", "--scope", scope]);
        out.assert_code(0);
        insta::assert_snapshot!(format!("install_{scope}"), t.transcript(&out));
        let settings: serde_json::Value = serde_json::from_str(&read(&t.env.cwd.join(file))).unwrap();
        assert_eq!(settings["autoDreamEnabled"], false);
        assert_eq!(
            settings["hooks"]["Stop"][0]["hooks"][0]["command"],
            t.bin.join("autodream-hook").to_string_lossy().as_ref()
        );
        assert!(t.env.cwd.join(".claude/commands/dream.md").is_file());
        assert!(!t.user_settings().exists(), "{scope}: the user's settings are not touched");
        assert!(t.run(&["install", "claude-code", "--scope", scope]).stdout.starts_with("already installed"));
        t.run(&["uninstall", "claude-code", "--scope", scope]).assert_code(0);
        assert_eq!(t.files(), before, "{scope}");
        assert!(t.backups().is_empty(), "{scope}: a file install created goes without a copy");
    }
}

#[test]
fn mcp_is_registered_where_the_client_reads_it_and_config_dir_moves_everything() {
    let t = Installed::new();
    let config = t.env.root.join("cfg");
    let t = t.with_var("CLAUDE_CONFIG_DIR", &config.to_string_lossy());
    write(&config.join(".claude.json"), "{\n  \"numStartups\": 4,\n  \"projects\": {}\n}\n");
    let before = t.files();
    let out = t.run(&["install", "claude-code", "--mcp"]);
    out.assert_code(0);
    insta::assert_snapshot!("install_user_mcp_config_dir", t.transcript(&out));
    let global: serde_json::Value = serde_json::from_str(&read(&config.join(".claude.json"))).unwrap();
    assert_eq!(global["mcpServers"]["autodream"]["args"], serde_json::json!(["mcp"]));
    assert_eq!(global["numStartups"], 4);
    assert!(config.join("settings.json").is_file());
    assert!(!t.user_settings().exists());

    let out = t.run(&["install", "claude-code", "--mcp", "--scope", "project"]);
    out.assert_code(0);
    let mcp: serde_json::Value = serde_json::from_str(&read(&t.env.cwd.join(".mcp.json"))).unwrap();
    assert_eq!(mcp["mcpServers"]["autodream"]["command"], t.bin.join("autodream").to_string_lossy().as_ref());

    t.run(&["uninstall", "claude-code", "--scope", "project"]).assert_code(0);
    t.run(&["uninstall", "claude-code"]).assert_code(0);
    assert_eq!(read(&config.join(".claude.json")), "{\n  \"numStartups\": 4,\n  \"projects\": {}\n}\n");
    assert_eq!(t.files(), before);
}

#[test]
fn a_settings_file_that_is_not_json_is_named_and_left_alone() {
    let t = Installed::new();
    write(&t.user_settings(), "{\n  \"model\": \"opus\",\n  \"hooks\": \n}\n");
    let before = t.files();
    let out = t.run(&["install", "claude-code"]);
    out.assert_code(1);
    assert!(out.stderr.contains(&format!("{}: not JSON", t.user_settings().display())), "{}", out.stderr);
    assert_eq!(t.files(), before);
    assert!(t.backups().is_empty());

    write(&t.user_settings(), "{\"hooks\": []}");
    let out = t.run(&["install", "claude-code"]);
    out.assert_code(1);
    insta::assert_snapshot!("install_hooks_not_an_object", t.transcript(&out));
}
