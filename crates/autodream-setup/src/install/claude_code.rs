//! Claude Code: the hook, `autoDreamEnabled: false`, the `/dream` command and, on request, the
//! MCP server, in the settings of one scope.
//!
//! | scope   | settings file                        | `/dream` command file                   | MCP server (`--mcp`)                        |
//! |---------|--------------------------------------|-----------------------------------------|---------------------------------------------|
//! | user    | `<config home>/settings.json`        | `<config home>/commands/dream.md`       | `mcpServers` in `~/.claude.json`            |
//! | project | `<project>/.claude/settings.json`    | `<project>/.claude/commands/dream.md`   | `mcpServers` in `<project>/.mcp.json`       |
//! | local   | `<project>/.claude/settings.local.json` | `<project>/.claude/commands/dream.md` | `projects.<project>.mcpServers` in `~/.claude.json` |
//!
//! The config home is `$CLAUDE_CONFIG_DIR`, else `~/.claude`; `~/.claude.json` moves with
//! `$CLAUDE_CONFIG_DIR` too, as the client reads it. The hook runs the small `autodream-hook`
//! binary by absolute path on `Stop` (which shows a finished dream's announcement) and on
//! `SessionEnd` (which catches the last turn). `autoDreamEnabled: false` keeps the client's
//! own dream off; autodream's own switch is its config's `enabled`.
//!
//! Every change is recorded in the install [`Manifest`] so that [`uninstall`] takes out
//! exactly what [`install`] put in; without a record, uninstall recognises autodream's
//! entries by their commands.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Value, json};

use super::{
    FileAction, FileChange, FileRecord, InstallError, JsonDoc, JsonEdit, Manifest, Record, Report, backup,
    commit_json, read_optional, remove_file, revert_json, write_atomic,
};
use autodream_core::dream::history::sha256_hex;

/// The target's name in the manifest and on the command line.
pub const TARGET: &str = "claude-code";
/// The hook events autodream registers for.
pub const HOOK_EVENTS: [&str; 2] = ["Stop", "SessionEnd"];
/// The MCP server's name in the client's configuration.
pub const MCP_NAME: &str = "autodream";
/// The small hook binary's file name.
pub const HOOK_BIN: &str = "autodream-hook";
/// A line every `/dream` command file autodream writes carries (how it is recognised).
pub const COMMAND_MARKER: &str = "autodream run";

/// Which of the client's settings files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
    Local,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::User, Scope::Project, Scope::Local];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        }
    }
}

impl std::str::FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "user" => Ok(Scope::User),
            "project" => Ok(Scope::Project),
            "local" => Ok(Scope::Local),
            _ => Err(format!("unknown scope {s:?}: expected user, project or local")),
        }
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the client's and autodream's files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Homes {
    /// The client's config home: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub config_home: PathBuf,
    /// The client's global config file (`~/.claude.json`), see [`global_config_path`].
    pub global_config: PathBuf,
    /// autodream's install record.
    pub manifest: PathBuf,
}

impl Homes {
    /// From the environment, as the client and autodream find them.
    pub fn from_env() -> Result<Homes, InstallError> {
        Ok(Homes {
            config_home: autodream_core::paths::agent_base_dir()?,
            global_config: global_config_path()?,
            manifest: Manifest::default_path()?,
        })
    }
}

/// What to install, and from where.
#[derive(Debug, Clone)]
pub struct Options {
    pub homes: Homes,
    pub scope: Scope,
    /// The project (project and local scopes; also the key of `~/.claude.json`'s `projects`).
    pub project_dir: PathBuf,
    /// Register the MCP server too.
    pub mcp: bool,
    pub dry_run: bool,
    /// The `autodream` binary (absolute).
    pub autodream_exe: PathBuf,
    /// The `autodream-hook` binary (absolute); `None` runs `autodream hook` instead.
    pub hook_exe: Option<PathBuf>,
    /// Options baked into the hook command (`--memory-dir DIR`, `--config FILE`, …).
    pub hook_args: Vec<String>,
    pub now: Timestamp,
}

impl Options {
    /// `autodream-hook` next to `autodream_exe` when it is there.
    pub fn hook_beside(autodream_exe: &Path) -> Option<PathBuf> {
        let name = if cfg!(windows) { "autodream-hook.exe" } else { HOOK_BIN };
        Some(autodream_exe.with_file_name(name)).filter(|p| p.is_file())
    }

    fn project_key(&self) -> Option<&Path> {
        (self.scope != Scope::User).then_some(self.project_dir.as_path())
    }
}

/// The settings file of a scope.
pub fn settings_path(homes: &Homes, scope: Scope, project_dir: &Path) -> PathBuf {
    match scope {
        Scope::User => homes.config_home.join("settings.json"),
        Scope::Project => project_dir.join(".claude").join("settings.json"),
        Scope::Local => project_dir.join(".claude").join("settings.local.json"),
    }
}

/// The `/dream` command file of a scope.
pub fn command_path(homes: &Homes, scope: Scope, project_dir: &Path) -> PathBuf {
    match scope {
        Scope::User => homes.config_home.join("commands").join("dream.md"),
        Scope::Project | Scope::Local => project_dir.join(".claude").join("commands").join("dream.md"),
    }
}

/// The client's global config file (`~/.claude.json`): `<config home>/.config.json` when it
/// exists (a legacy name the client still prefers), else `.claude.json` in
/// `$CLAUDE_CONFIG_DIR` or the home folder.
pub fn global_config_path() -> Result<PathBuf, InstallError> {
    let base = autodream_core::paths::agent_base_dir()?;
    let legacy = base.join(".config.json");
    if legacy.is_file() {
        return Ok(legacy);
    }
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir).join(".claude.json")),
        None => autodream_core::paths::home_dir().map(|h| h.join(".claude.json")).ok_or(InstallError::NoHome),
    }
}

/// Where the MCP server is registered for a scope: the file and the key path of the entry.
pub fn mcp_location(homes: &Homes, scope: Scope, project_dir: &Path) -> (PathBuf, Vec<String>) {
    match scope {
        Scope::User => (homes.global_config.clone(), vec!["mcpServers".into(), MCP_NAME.into()]),
        Scope::Project => (project_dir.join(".mcp.json"), vec!["mcpServers".into(), MCP_NAME.into()]),
        Scope::Local => (
            homes.global_config.clone(),
            vec![
                "projects".into(),
                project_dir.to_string_lossy().into_owned(),
                "mcpServers".into(),
                MCP_NAME.into(),
            ],
        ),
    }
}

fn quote(s: &str) -> String {
    shlex::try_quote(s).map_or_else(|_| s.to_string(), |q| q.into_owned())
}

/// The hook's shell command: the binary's absolute path (quoted when needed) and the baked
/// options.
pub fn hook_command(opts: &Options) -> String {
    let mut words = Vec::new();
    match &opts.hook_exe {
        Some(h) => words.push(quote(&h.to_string_lossy())),
        None => {
            words.push(quote(&opts.autodream_exe.to_string_lossy()));
            words.push("hook".into());
        }
    }
    words.extend(opts.hook_args.iter().map(|a| quote(a)));
    words.join(" ")
}

/// A hook command split into words, when it is autodream's: `autodream-hook …` or
/// `autodream hook …` by any path.
pub fn parse_autodream_hook(command: &str) -> Option<(PathBuf, Vec<String>)> {
    let words = shlex::split(command)?;
    let (first, rest) = words.split_first()?;
    let name = Path::new(first).file_name()?.to_string_lossy().into_owned();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    if name == HOOK_BIN {
        return Some((PathBuf::from(first), rest.to_vec()));
    }
    if name == "autodream" && rest.first().is_some_and(|w| w == "hook") {
        return Some((PathBuf::from(first), rest[1..].to_vec()));
    }
    None
}

/// The `/dream` command file: it runs a dream with the client's `!` command syntax and asks
/// the model to report what changed.
pub fn command_file(autodream_exe: &Path) -> String {
    let exe = quote(&autodream_exe.to_string_lossy());
    format!(
        "---\n\
         description: Dream now - consolidate recent sessions into memory (autodream)\n\
         allowed-tools: Bash({exe} run:*)\n\
         ---\n\
         Output of `{COMMAND_MARKER}`:\n\
         \n\
         !`{exe} run`\n\
         \n\
         This is the output of autodream's dream for this project, which just ran. Tell the user \
         in two or three sentences what it changed in memory (files improved, facts added or \
         retired), or, if it was refused or failed, why and what to do. Do not run it again.\n"
    )
}

/// The MCP server's entry.
pub fn mcp_entry(autodream_exe: &Path) -> Value {
    json!({"type": "stdio", "command": autodream_exe.to_string_lossy(), "args": ["mcp"], "env": {}})
}

fn key(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

/// Every hook handler's command under `hooks.<event>` of a settings value.
fn handler_commands(settings: &Value, event: &str) -> Vec<String> {
    let mut out = Vec::new();
    for group in settings.pointer(&format!("/hooks/{event}")).and_then(Value::as_array).into_iter().flatten()
    {
        for h in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
            if let Some(c) = h.get("command").and_then(Value::as_str) {
                out.push(c.to_string());
            }
        }
    }
    out
}

/// Installs into the scope's files; with `dry_run`, only says what it would change.
pub fn install(opts: &Options) -> Result<Report, InstallError> {
    let mut manifest = Manifest::load(&opts.homes.manifest)?;
    let mut report = Report { dry_run: opts.dry_run, ..Default::default() };
    let mut record = Record {
        target: TARGET.into(),
        scope: opts.scope.as_str().into(),
        project: opts.project_key().map(Path::to_path_buf),
        installed_at: opts.now,
        files: Vec::new(),
    };

    // 1. The settings file: the hooks and autoDreamEnabled.
    let settings = settings_path(&opts.homes, opts.scope, &opts.project_dir);
    let before = read_optional(&settings)?;
    let doc = JsonDoc::parse(&settings, &String::from_utf8_lossy(before.as_deref().unwrap_or_default()))?;
    let command = hook_command(opts);
    let mut edits = Vec::new();
    let current = doc.value();
    for event in HOOK_EVENTS {
        let commands = handler_commands(&current, event);
        if commands.contains(&command) {
            continue;
        }
        for other in commands.iter().filter(|c| parse_autodream_hook(c).is_some()) {
            report.notes.push(format!(
                "{} already runs another autodream hook on {event}: {other} (remove it with \
                 `autodream uninstall claude-code` from that binary, or by hand)",
                settings.display()
            ));
        }
        let group = json!({"hooks": [{"type": "command", "command": command}]});
        edits.push(doc.append(&key(&["hooks", event]), &group)?);
    }
    if doc.get(&key(&["autoDreamEnabled"])) != Some(Value::Bool(false)) {
        edits.push(doc.set(&key(&["autoDreamEnabled"]), &Value::Bool(false))?);
    }
    let change = commit_json(&settings, before.as_deref(), &doc, &edits, opts.now, opts.dry_run)?;
    if !edits.is_empty() {
        record.files.push(FileRecord {
            path: settings.clone(),
            created: before.is_none(),
            backup: change.backup.clone(),
            edits,
            sha256: None,
            data: Value::Null,
        });
    }
    report.files.push(change);

    // 2. The /dream command.
    let cmd_path = command_path(&opts.homes, opts.scope, &opts.project_dir);
    let body = command_file(&opts.autodream_exe);
    let existing = read_optional(&cmd_path)?;
    let action = match &existing {
        Some(b) if *b == body.as_bytes() => FileAction::Unchanged,
        Some(b) if !String::from_utf8_lossy(b).contains(COMMAND_MARKER) => {
            report.notes.push(format!(
                "{} exists and is not autodream's: left alone, so /dream is not installed",
                cmd_path.display()
            ));
            FileAction::Unchanged
        }
        Some(_) => FileAction::Update,
        None => FileAction::Create,
    };
    let mut cmd_backup = None;
    if action != FileAction::Unchanged && !opts.dry_run {
        if action == FileAction::Update {
            cmd_backup = Some(backup(&cmd_path, opts.now)?);
        }
        write_atomic(&cmd_path, body.as_bytes())?;
    }
    if action != FileAction::Unchanged {
        record.files.push(FileRecord {
            path: cmd_path.clone(),
            created: action == FileAction::Create,
            backup: cmd_backup.clone(),
            edits: Vec::new(),
            sha256: Some(sha256_hex(body.as_bytes())),
            data: Value::Null,
        });
    }
    report.files.push(FileChange {
        path: cmd_path,
        action,
        items: if action == FileAction::Unchanged { vec![] } else { vec!["the /dream command".into()] },
        backup: cmd_backup,
    });

    // 3. The MCP server.
    if opts.mcp {
        let (path, entry_key) = mcp_location(&opts.homes, opts.scope, &opts.project_dir);
        let before = read_optional(&path)?;
        let doc = JsonDoc::parse(&path, &String::from_utf8_lossy(before.as_deref().unwrap_or_default()))?;
        let entry = mcp_entry(&opts.autodream_exe);
        let mut edits = Vec::new();
        if doc.get(&entry_key).as_ref() != Some(&entry) {
            edits.push(doc.set(&entry_key, &entry)?);
        }
        let change = commit_json(&path, before.as_deref(), &doc, &edits, opts.now, opts.dry_run)?;
        if !edits.is_empty() {
            record.files.push(FileRecord {
                path: path.clone(),
                created: before.is_none(),
                backup: change.backup.clone(),
                edits,
                sha256: None,
                data: Value::Null,
            });
        }
        report.files.push(change);
    }

    manifest.keep(record, &opts.homes.manifest, opts.dry_run)?;
    Ok(report)
}

/// Takes out what [`install`] put into the scope's files (by its record; without one, the
/// entries recognised as autodream's).
pub fn uninstall(opts: &Options) -> Result<Report, InstallError> {
    let mut manifest = Manifest::load(&opts.homes.manifest)?;
    let record = manifest.take(TARGET, opts.scope.as_str(), opts.project_key());
    let mut report = Report { dry_run: opts.dry_run, ..Default::default() };
    let mut files: Vec<PathBuf> = Vec::new();

    // 1. The settings file.
    let settings = settings_path(&opts.homes, opts.scope, &opts.project_dir);
    files.push(settings.clone());
    let file_record = record.as_ref().and_then(|r| r.file(&settings));
    let installed: Vec<String> = file_record
        .map(|f| {
            f.edits
                .iter()
                .filter_map(|e| match e {
                    JsonEdit::Append { value, .. } => {
                        value.pointer("/hooks/0/command")?.as_str().map(str::to_string)
                    }
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let by_record = file_record.is_some();
    let (change, notes) = revert_json(
        &settings,
        file_record,
        |doc| {
            // Handlers the record does not cover: those it installed but that were moved or
            // edited since, and, without a record, every autodream hook.
            remove_hook_handlers(doc, |c| {
                if by_record { installed.iter().any(|i| i == c) } else { parse_autodream_hook(c).is_some() }
            })
        },
        opts.now,
        opts.dry_run,
    )?;
    report.files.push(change);
    report.notes.extend(notes);
    if !by_record && report.files[0].action != FileAction::Unchanged {
        report.notes.push(format!(
            "no install record for {}: removed the autodream hooks found; autoDreamEnabled left as it is",
            settings.display()
        ));
    }

    // 2. The /dream command.
    let cmd_path = command_path(&opts.homes, opts.scope, &opts.project_dir);
    files.push(cmd_path.clone());
    let cmd_record = record.as_ref().and_then(|r| r.file(&cmd_path));
    let mut action = FileAction::Unchanged;
    let mut items = Vec::new();
    if let Some(bytes) = read_optional(&cmd_path)? {
        let ours = match cmd_record.and_then(|r| r.sha256.as_deref()) {
            Some(sha) => sha256_hex(&bytes) == sha,
            None => record.is_none() && String::from_utf8_lossy(&bytes).contains(COMMAND_MARKER),
        };
        if ours {
            let restore = cmd_record.and_then(|r| r.backup.clone()).filter(|b| b.is_file());
            action = if restore.is_some() { FileAction::Update } else { FileAction::Delete };
            items.push("the /dream command".into());
            if !opts.dry_run {
                match &restore {
                    Some(b) => {
                        let orig = std::fs::read(b).map_err(|e| InstallError::io(b, e))?;
                        write_atomic(&cmd_path, &orig)?;
                    }
                    None => remove_file(&cmd_path)?,
                }
            }
        } else if cmd_record.is_some() {
            report.notes.push(format!("{} was edited since the install: left alone", cmd_path.display()));
        }
    }
    report.files.push(FileChange { path: cmd_path, action, items, backup: None });

    // 3. The MCP server, wherever a record or the scope says it is.
    let (mcp_path, entry_key) = mcp_location(&opts.homes, opts.scope, &opts.project_dir);
    files.push(mcp_path.clone());
    let mcp_record = record.as_ref().and_then(|r| r.file(&mcp_path));
    if mcp_record.is_some() || (record.is_none() && mcp_path.is_file()) {
        let by_record = mcp_record.is_some();
        let (change, notes) = revert_json(
            &mcp_path,
            mcp_record,
            |doc| {
                if by_record {
                    return Vec::new();
                }
                let ours = doc.get(&entry_key).is_some_and(|e| {
                    let cmd = e.get("command").and_then(Value::as_str).unwrap_or_default();
                    Path::new(cmd).file_name().is_some_and(|n| n == "autodream")
                        && e.get("args") == Some(&json!(["mcp"]))
                });
                if ours && doc.remove_key(&entry_key) {
                    doc.prune_empty(&entry_key[..entry_key.len() - 1], 1);
                    vec![format!("removed {}", entry_key.join("."))]
                } else {
                    Vec::new()
                }
            },
            opts.now,
            opts.dry_run,
        )?;
        report.files.push(change);
        report.notes.extend(notes);
    }

    // Records of files not visited above (none today) stay in the manifest.
    if let Some(mut r) = record
        && !opts.dry_run
    {
        r.files.retain(|f| !files.contains(&f.path));
        if !r.files.is_empty() {
            manifest.upsert(r);
        }
        manifest.save(&opts.homes.manifest)?;
    }
    Ok(report)
}

/// Removes every hook handler whose command `matches`, then the groups, event lists and
/// `hooks` object left empty by that. Returns a line per handler removed.
fn remove_hook_handlers(doc: &JsonDoc, matches: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let Some(hooks) = doc.get(&key(&["hooks"])) else { return out };
    let Some(events) = hooks.as_object() else { return out };
    for (event, groups) in events {
        let Some(groups) = groups.as_array() else { continue };
        for group in groups {
            let handlers = group.get("hooks").and_then(Value::as_array).cloned().unwrap_or_default();
            let (hit, keep): (Vec<Value>, Vec<Value>) = handlers
                .into_iter()
                .partition(|h| h.get("command").and_then(Value::as_str).is_some_and(&matches));
            if hit.is_empty() {
                continue;
            }
            let path = key(&["hooks", event]);
            doc.remove_element(&path, group);
            if !keep.is_empty() {
                let mut g = group.clone();
                g["hooks"] = Value::Array(keep);
                let _ = doc.append(&path, &g);
            }
            for h in hit {
                out.push(format!(
                    "removed hook {} from hooks.{event}",
                    h.get("command").and_then(Value::as_str).unwrap_or_default()
                ));
            }
        }
        doc.prune_empty(&key(&["hooks", event]), 2);
    }
    out
}

/// One autodream hook found in the client's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegisteredHook {
    pub scope: Scope,
    pub settings: PathBuf,
    pub event: String,
    pub command: String,
    /// The program the command runs (as written: absolute, or a name looked up on PATH).
    pub program: PathBuf,
    /// `--memory-dir` baked into the command, if any.
    pub memory_dir: Option<PathBuf>,
}

/// Every autodream hook registered in the user, project and local settings (a file that is not
/// JSON is skipped; its problem is the client's to report).
pub fn registered_hooks(homes: &Homes, project_dir: &Path) -> Vec<RegisteredHook> {
    let mut out = Vec::new();
    for scope in Scope::ALL {
        let path = settings_path(homes, scope, project_dir);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let Ok(value) = serde_json::from_str::<Value>(&text) else { continue };
        for event in value.get("hooks").and_then(Value::as_object).into_iter().flat_map(|o| o.keys()) {
            for command in handler_commands(&value, event) {
                let Some((program, args)) = parse_autodream_hook(&command) else { continue };
                let memory_dir = args
                    .iter()
                    .position(|a| a == "--memory-dir")
                    .and_then(|i| args.get(i + 1))
                    .map(PathBuf::from)
                    .or_else(|| args.iter().find_map(|a| a.strip_prefix("--memory-dir=")).map(PathBuf::from));
                out.push(RegisteredHook {
                    scope,
                    settings: path.clone(),
                    event: event.clone(),
                    command,
                    program,
                    memory_dir,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
