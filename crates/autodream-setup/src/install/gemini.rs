//! Gemini CLI: autodream's hook in its settings, the MCP server, and the index in `GEMINI.md`.
//!
//! Gemini CLI reads `~/.gemini/settings.json` (user) and `<project>/.gemini/settings.json`
//! (project). Recent releases run hooks from them, in the shape Claude Code uses:
//!
//! ```json
//! "hooks": {
//!   "AfterAgent": [{"hooks": [{"name": "autodream", "type": "command", "command": "/abs/autodream-hook --sessions-format gemini"}]}],
//!   "SessionEnd": [ … the same … ]
//! }
//! ```
//!
//! and give the hook the same JSON on stdin (`session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`), so `autodream-hook` runs unchanged: `AfterAgent` ends every turn,
//! `SessionEnd` catches the last one. `--sessions-format gemini` points the hook at the
//! project's chats (`~/.gemini/tmp/<SHA-256 of the project path>/chats`). For releases without
//! hooks, `--no-hooks` registers only the MCP server (`mcpServers.autodream = {command:
//! "<abs>/autodream", args: ["mcp"]}`), through which the agent can search and log memory;
//! `--mcp` adds it next to the hooks.
//!
//! The settings file is edited through `settings_json` (every other key keeps its place and
//! the file its indentation, comments included) and recorded in the install manifest, so the
//! uninstall takes out exactly what the install put in. Gemini CLI does not load `MEMORY.md`;
//! the install names the project's `GEMINI.md` in `mirror_index` so that each dream keeps the
//! index there between markers (`autodream_core::agents_md`).

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Value, json};

use super::codex::{Mirror, remove_mirror};
use super::{
    FileAction, InstallError, JsonDoc, JsonEdit, Manifest, Record, Report, commit_json, revert_json,
};

/// The target's name on the command line and in the install record.
pub const TARGET: &str = "gemini";
/// The hook events autodream registers for.
pub const HOOK_EVENTS: [&str; 2] = ["AfterAgent", "SessionEnd"];
/// The name of autodream's hook entries and of its MCP server.
pub const NAME: &str = "autodream";
/// The first Gemini CLI release whose settings carry hooks as written here.
pub const HOOKS_SINCE: (u64, u64, u64) = (0, 26, 0);

/// Which settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// Gemini CLI's home: `~/.gemini`.
pub fn gemini_home() -> Result<PathBuf, InstallError> {
    autodream_core::paths::home_dir().map(|h| h.join(".gemini")).ok_or(InstallError::NoHome)
}

/// What to install, resolved by the caller.
#[derive(Debug, Clone)]
pub struct Options {
    pub gemini_home: PathBuf,
    pub scope: Scope,
    pub project_dir: PathBuf,
    /// Register the hooks (the default; off for releases without hooks).
    pub hooks: bool,
    /// Register the MCP server (always when `hooks` is off).
    pub mcp: bool,
    /// The `autodream` binary (absolute): the MCP server.
    pub autodream_exe: PathBuf,
    /// The `autodream-hook` binary (absolute); `None` runs `autodream hook` instead.
    pub hook_exe: Option<PathBuf>,
    /// Options baked into the hook command after `--sessions-format gemini`.
    pub hook_args: Vec<String>,
    /// autodream's install record.
    pub manifest: PathBuf,
    /// autodream's config file (where `mirror_index` is kept); `None`: no mirror.
    pub autodream_config: Option<PathBuf>,
    pub dry_run: bool,
    pub now: Timestamp,
}

impl Options {
    pub fn settings_file(&self) -> PathBuf {
        match self.scope {
            Scope::User => self.gemini_home.join("settings.json"),
            Scope::Project => self.project_dir.join(".gemini").join("settings.json"),
        }
    }

    /// The project's `GEMINI.md`.
    pub fn gemini_md(&self) -> PathBuf {
        self.project_dir.join("GEMINI.md")
    }

    /// The hook's shell command.
    pub fn hook_command(&self) -> String {
        let mut words = match &self.hook_exe {
            Some(h) => vec![quote(&h.to_string_lossy())],
            None => vec![quote(&self.autodream_exe.to_string_lossy()), "hook".into()],
        };
        words.push("--sessions-format".into());
        words.push("gemini".into());
        words.extend(self.hook_args.iter().map(|a| quote(a)));
        words.join(" ")
    }

    fn wants_mcp(&self) -> bool {
        self.mcp || !self.hooks
    }
}

/// Why an install or uninstall for Gemini CLI did not happen.
#[derive(Debug, thiserror::Error)]
pub enum GeminiError {
    /// Installing would overwrite what is not autodream's; nothing was changed.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Install(#[from] InstallError),
}

/// Does a `gemini --version` output name a release with hooks? `None` when it names no
/// version.
pub fn hooks_supported(version_output: &str) -> Option<bool> {
    let v = version_output.split_whitespace().find_map(|w| {
        let mut parts = w.trim_start_matches('v').split(['.', '-', '+']);
        let major = parts.next()?.parse::<u64>().ok()?;
        let minor = parts.next()?.parse::<u64>().ok()?;
        let patch = parts.next().and_then(|p| p.parse::<u64>().ok()).unwrap_or(0);
        Some((major, minor, patch))
    })?;
    Some(v >= HOOKS_SINCE)
}

/// One shell word: quoted only when needed.
fn quote(s: &str) -> String {
    shlex::try_quote(s).map_or_else(|_| s.to_string(), |q| q.into_owned())
}

fn key(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

/// Is this hook handler autodream's? Named `autodream`, or running `autodream-hook` or
/// `autodream hook`.
fn is_our_handler(handler: &Value) -> bool {
    handler.get("name").and_then(Value::as_str) == Some(NAME)
        || handler
            .get("command")
            .and_then(Value::as_str)
            .and_then(super::claude_code::parse_autodream_hook)
            .is_some()
}

fn handlers(settings: &Value, event: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for group in settings.pointer(&format!("/hooks/{event}")).and_then(Value::as_array).into_iter().flatten()
    {
        out.extend(group.get("hooks").and_then(Value::as_array).into_iter().flatten().cloned());
    }
    out
}

/// The MCP server's entry.
pub fn mcp_entry(autodream_exe: &Path) -> Value {
    json!({"command": autodream_exe.to_string_lossy(), "args": ["mcp"]})
}

/// Registers the hooks (and, with `mcp` or without hooks, the MCP server) in the scope's
/// settings and `GEMINI.md` as a mirror of the index; with `dry_run`, only says what it would
/// change.
pub fn install(opts: &Options) -> Result<Report, GeminiError> {
    let mut manifest = Manifest::load(&opts.manifest)?;
    let mut report = Report { dry_run: opts.dry_run, ..Default::default() };
    let mut record = Record {
        target: TARGET.into(),
        scope: opts.scope.as_str().into(),
        project: Some(opts.project_dir.clone()),
        installed_at: opts.now,
        files: Vec::new(),
    };

    let settings = opts.settings_file();
    let before = super::read_optional(&settings)?;
    let doc = JsonDoc::parse(&settings, &String::from_utf8_lossy(before.as_deref().unwrap_or_default()))
        .map_err(InstallError::from)?;
    let current = doc.value();
    let mut edits: Vec<JsonEdit> = Vec::new();

    if opts.hooks {
        let command = opts.hook_command();
        for event in HOOK_EVENTS {
            let existing = handlers(&current, event);
            if existing.iter().any(|h| h.get("command").and_then(Value::as_str) == Some(command.as_str())) {
                continue;
            }
            for other in existing.iter().filter(|h| is_our_handler(h)) {
                report.notes.push(format!(
                    "{} already runs another autodream hook on {event}: {} (remove it with `autodream \
                     uninstall gemini` from that binary, or by hand)",
                    settings.display(),
                    other.get("command").and_then(Value::as_str).unwrap_or_default()
                ));
            }
            let group = json!({"hooks": [{
                "name": NAME,
                "type": "command",
                "command": command,
                "description": "autodream: consolidate memory when its gates pass",
            }]});
            edits.push(doc.append(&key(&["hooks", event]), &group).map_err(InstallError::from)?);
        }
        for switch in [["hooksConfig", "enabled"], ["hooks", "enabled"]] {
            if current.pointer(&format!("/{}/{}", switch[0], switch[1])) == Some(&Value::Bool(false)) {
                report.notes.push(format!(
                    "{}: {}.{} is false, so Gemini CLI will not run the hook until hooks are switched on",
                    settings.display(),
                    switch[0],
                    switch[1]
                ));
            }
        }
    }
    if opts.wants_mcp() {
        let entry = mcp_entry(&opts.autodream_exe);
        match current.pointer(&format!("/mcpServers/{NAME}")) {
            Some(v) if *v == entry => {}
            Some(v)
                if !v.get("command").and_then(Value::as_str).is_some_and(|c| c.ends_with("autodream")) =>
            {
                return Err(GeminiError::Refused(format!(
                    "{}: mcpServers.{NAME} is already set to {v}, which is not autodream's; rename or \
                     remove it, then run again",
                    settings.display()
                )));
            }
            _ => edits.push(doc.set(&key(&["mcpServers", NAME]), &entry).map_err(InstallError::from)?),
        }
    }
    let change = commit_json(&settings, before.as_deref(), &doc, &edits, opts.now, opts.dry_run)?;
    if !edits.is_empty() {
        record.files.push(super::FileRecord {
            path: settings.clone(),
            created: before.is_none(),
            backup: change.backup.clone(),
            edits,
            sha256: None,
            data: Value::Null,
        });
    }
    report.files.push(change);
    if !opts.hooks {
        report.notes.push(
            "no hooks registered: dreams start from `autodream run`, `autodream daemon`, or another agent's \
             hook; the agent reaches memory through the MCP server"
                .into(),
        );
    }

    if let Some(config) = &opts.autodream_config {
        let mirror = Mirror {
            config,
            file: &opts.gemini_md(),
            agent: "Gemini CLI",
            now: opts.now,
            dry_run: opts.dry_run,
        };
        mirror.add(&mut report, &mut record)?;
    }
    manifest.keep(record, &opts.manifest, opts.dry_run)?;
    Ok(report)
}

/// Takes out what [`install`] put in: the hooks and the MCP server (the settings restored
/// byte for byte when nobody edited them since), the `mirror_index` entry and the managed
/// block of `GEMINI.md`.
pub fn uninstall(opts: &Options) -> Result<Report, GeminiError> {
    let mut manifest = Manifest::load(&opts.manifest)?;
    let record = manifest.take(TARGET, opts.scope.as_str(), Some(&opts.project_dir));
    let mut report = Report { dry_run: opts.dry_run, ..Default::default() };
    let settings = opts.settings_file();
    let file_record = record.as_ref().and_then(|r| r.file(&settings));
    let (change, notes) = revert_json(
        &settings,
        file_record,
        // Without a record (or for entries edited since): every autodream hook and server.
        |doc| {
            let mut out = remove_our_handlers(doc);
            if doc.get(&key(&["mcpServers", NAME])).is_some_and(|v| {
                v.get("command").and_then(Value::as_str).is_some_and(|c| c.ends_with("autodream"))
            }) {
                doc.remove_key(&key(&["mcpServers", NAME]));
                doc.prune_empty(&key(&["mcpServers"]), 1);
                out.push(format!("removed mcpServers.{NAME}"));
            }
            out
        },
        opts.now,
        opts.dry_run,
    )?;
    report.files.push(change);
    report.notes.extend(notes);
    if let Some(config) = &opts.autodream_config {
        remove_mirror(record.as_ref(), config, &opts.gemini_md(), opts.now, opts.dry_run, &mut report)?;
    }
    if !opts.dry_run {
        manifest.save(&opts.manifest)?;
    }
    if report.files.iter().all(|f| f.action == FileAction::Unchanged) && record.is_none() {
        report.notes.push(format!("nothing of autodream's found in {}", settings.display()));
    }
    Ok(report)
}

/// Removes autodream's hook handlers, then the groups and event lists left empty.
fn remove_our_handlers(doc: &JsonDoc) -> Vec<String> {
    let mut out = Vec::new();
    let Some(Value::Object(events)) = doc.get(&key(&["hooks"])) else { return out };
    for (event, groups) in events {
        let Some(groups) = groups.as_array() else { continue };
        for group in groups {
            let all = group.get("hooks").and_then(Value::as_array).cloned().unwrap_or_default();
            let (ours, keep): (Vec<Value>, Vec<Value>) = all.into_iter().partition(is_our_handler);
            if ours.is_empty() {
                continue;
            }
            let path = key(&["hooks", &event]);
            doc.remove_element(&path, group);
            if !keep.is_empty() {
                let mut g = group.clone();
                g["hooks"] = Value::Array(keep);
                let _ = doc.append(&path, &g);
            }
            out.push(format!("removed the autodream hook from hooks.{event}"));
        }
        doc.prune_empty(&key(&["hooks", &event]), 2);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(home: &Path) -> Options {
        Options {
            gemini_home: home.join(".gemini"),
            scope: Scope::User,
            project_dir: home.join("shop"),
            hooks: true,
            mcp: false,
            autodream_exe: PathBuf::from("/opt/autodream/bin/autodream"),
            hook_exe: Some(PathBuf::from("/opt/autodream/bin/autodream-hook")),
            hook_args: vec![],
            manifest: home.join("state/installed.json"),
            autodream_config: None,
            dry_run: false,
            now: "2026-03-01T12:00:00Z".parse().unwrap(),
        }
    }

    #[test]
    fn versions_before_hooks_get_the_mcp_server() {
        assert_eq!(hooks_supported("0.26.0"), Some(true));
        assert_eq!(hooks_supported("gemini 0.31.2-nightly.20260101"), Some(true));
        assert_eq!(hooks_supported("0.24.0"), Some(false));
        assert_eq!(hooks_supported("1.0"), Some(true));
        assert_eq!(hooks_supported("command not found"), None);
    }

    #[test]
    fn comments_and_other_hooks_survive_and_uninstall_restores_the_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let o = opts(tmp.path());
        std::fs::create_dir_all(&o.gemini_home).unwrap();
        let original = "{\n    // my theme\n    \"theme\": \"GitHub\",\n    \"hooks\": {\n        \"AfterTool\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"./log.sh\"}]}\n        ]\n    }\n}\n";
        std::fs::write(o.settings_file(), original).unwrap();
        let r = install(&o).unwrap();
        assert!(!r.is_noop());
        let text = std::fs::read_to_string(o.settings_file()).unwrap();
        assert!(
            text.starts_with(
                "{\n    // my theme\n    \"theme\": \"GitHub\",\n    \"hooks\": {\n        \"AfterTool\""
            ),
            "{text}"
        );
        let doc = JsonDoc::parse(&o.settings_file(), &text).unwrap().value();
        assert_eq!(
            doc.pointer("/hooks/AfterAgent/0/hooks/0/command").and_then(Value::as_str),
            Some("/opt/autodream/bin/autodream-hook --sessions-format gemini")
        );
        assert!(doc.pointer("/hooks/SessionEnd/0/hooks/0").is_some());
        assert_eq!(
            doc.pointer("/hooks/AfterTool/0/hooks/0/command").and_then(Value::as_str),
            Some("./log.sh")
        );
        assert!(doc.get("mcpServers").is_none());
        assert!(install(&o).unwrap().is_noop());
        uninstall(&o).unwrap();
        assert_eq!(std::fs::read_to_string(o.settings_file()).unwrap(), original);
    }

    #[test]
    fn without_hooks_the_mcp_server_is_registered_and_a_foreign_one_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let mut o = opts(tmp.path());
        o.hooks = false;
        install(&o).unwrap();
        let text = std::fs::read_to_string(o.settings_file()).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            doc["mcpServers"]["autodream"],
            json!({"command": "/opt/autodream/bin/autodream", "args": ["mcp"]})
        );
        assert!(doc.get("hooks").is_none());
        // Created by the install: removed by the uninstall.
        uninstall(&o).unwrap();
        assert!(!o.settings_file().exists());

        std::fs::create_dir_all(&o.gemini_home).unwrap();
        let foreign = "{\"mcpServers\": {\"autodream\": {\"command\": \"npx\", \"args\": [\"other\"]}}}\n";
        std::fs::write(o.settings_file(), foreign).unwrap();
        let err = install(&o).unwrap_err().to_string();
        assert!(err.contains("not autodream's"), "{err}");
        assert_eq!(std::fs::read_to_string(o.settings_file()).unwrap(), foreign);
    }
}
