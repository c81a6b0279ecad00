//! Codex CLI: autodream's hook as Codex's `notify` program.
//!
//! Codex reads `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`). Its top-level
//! `notify` is a command line (an array: program, then arguments) that Codex runs after every
//! agent turn, adding one more argument: a JSON object
//! `{"type": "agent-turn-complete", "thread-id", "turn-id", "cwd", "input-messages",
//! "last-assistant-message"}`. `autodream-hook` reads that argument (see
//! [`autodream_core::hook::HookInput::from_argument`]) exactly as it reads the hook JSON other agents
//! send on stdin, so the install is one key:
//!
//! ```toml
//! notify = ["/abs/path/autodream-hook", "--sessions-format", "codex", "--sessions-dir", "/home/ada/.codex/sessions"]
//! ```
//!
//! The file is edited with `toml_edit`, so its comments, key order and formatting survive.
//! Codex runs one notify program: a `notify` that is not autodream's is never overwritten; the
//! install is refused and says what is set. Codex does not read `MEMORY.md`, so the install
//! also names the project's `AGENTS.md` in autodream's `mirror_index` setting: after each dream
//! the memory index is kept there in a managed block (`autodream_core::agents_md`).

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde_json::json;

use super::{FileAction, FileChange, InstallError, Manifest, Record, Report, settings_toml};

/// The target's name on the command line and in the install record.
pub const TARGET: &str = "codex";
/// The key of `config.toml` that names the notify program.
pub const NOTIFY: &str = "notify";
/// autodream's setting that lists the files the index is mirrored into.
pub const MIRROR_KEY: &str = "mirror_index";

/// Codex's home: `$CODEX_HOME`, else `~/.codex`.
pub fn codex_home() -> Result<PathBuf, InstallError> {
    match std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
        Some(h) => Ok(PathBuf::from(h)),
        None => autodream_core::paths::home_dir().map(|h| h.join(".codex")).ok_or(InstallError::NoHome),
    }
}

/// What to install, resolved by the caller.
#[derive(Debug, Clone)]
pub struct Options {
    /// Codex's home (`config.toml` and `sessions/` are in it).
    pub codex_home: PathBuf,
    /// The absolute path of `autodream-hook`; `None` runs `autodream hook` instead.
    pub hook_exe: Option<PathBuf>,
    /// The `autodream` binary (absolute).
    pub autodream_exe: PathBuf,
    /// Options baked into the command line after the sessions options (`--memory-dir DIR`, …).
    pub hook_args: Vec<String>,
    /// autodream's install record.
    pub manifest: PathBuf,
    /// The project whose `AGENTS.md` mirrors the index.
    pub project_dir: PathBuf,
    /// autodream's config file (where `mirror_index` is kept); `None`: no mirror.
    pub autodream_config: Option<PathBuf>,
    pub dry_run: bool,
    pub now: Timestamp,
}

impl Options {
    pub fn config_file(&self) -> PathBuf {
        self.codex_home.join("config.toml")
    }

    /// The project's `AGENTS.md`.
    pub fn agents_md(&self) -> PathBuf {
        self.project_dir.join("AGENTS.md")
    }

    /// The `notify` command line: the hook, told where Codex keeps its rollouts.
    pub fn notify_argv(&self) -> Vec<String> {
        let mut argv = match &self.hook_exe {
            Some(h) => vec![h.to_string_lossy().into_owned()],
            None => vec![self.autodream_exe.to_string_lossy().into_owned(), "hook".into()],
        };
        argv.extend([
            "--sessions-format".into(),
            "codex".into(),
            "--sessions-dir".into(),
            self.codex_home.join("sessions").to_string_lossy().into_owned(),
        ]);
        argv.extend(self.hook_args.iter().cloned());
        argv
    }
}

/// Is this `notify` command line autodream's? Its program is an `autodream-hook` binary, or
/// `autodream hook`.
pub fn is_ours(argv: &[String]) -> bool {
    let name = |p: &String| {
        Path::new(p).file_name().map(|n| n.to_string_lossy().trim_end_matches(".exe").to_string())
    };
    match argv.first().and_then(name).as_deref() {
        Some("autodream-hook") => true,
        Some("autodream") => argv.get(1).is_some_and(|a| a == "hook"),
        _ => false,
    }
}

/// `notify` as a list of strings; `Err` with its text when it is set to something else.
fn notify_of(doc: &toml_edit::DocumentMut) -> Option<Result<Vec<String>, String>> {
    let item = doc.get(NOTIFY)?;
    Some(match item.as_array() {
        Some(a) if a.iter().all(|v| v.as_str().is_some()) => {
            Ok(a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        }
        _ => Err(item.to_string().trim().to_string()),
    })
}

fn show(argv: &[String]) -> String {
    format!("[{}]", argv.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", "))
}

/// Why an install or uninstall for Codex did not happen.
#[derive(Debug, thiserror::Error)]
pub enum CodexError {
    /// Installing would overwrite what is not autodream's; nothing was changed.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Install(#[from] InstallError),
}

fn refused(message: String) -> CodexError {
    CodexError::Refused(message)
}

/// Registers the hook as Codex's `notify` and the project's `AGENTS.md` as a mirror of the
/// index; with `dry_run`, only says what it would change.
pub fn install(opts: &Options) -> Result<Report, CodexError> {
    let mut manifest = Manifest::load(&opts.manifest)?;
    let mut report = Report { dry_run: opts.dry_run, ..Default::default() };
    let mut record = Record {
        target: TARGET.into(),
        scope: "user".into(),
        project: Some(opts.project_dir.clone()),
        installed_at: opts.now,
        files: Vec::new(),
    };

    // 1. Codex's config.toml: notify.
    let path = opts.config_file();
    let before = super::read_optional(&path)?;
    let mut doc = settings_toml::parse(&path, before.as_deref())?;
    let wanted = opts.notify_argv();
    let item = match notify_of(&doc) {
        Some(Ok(current)) if current == wanted => None,
        Some(Ok(current)) if !is_ours(&current) => {
            return Err(refused(format!(
                "{}: Codex already runs a notify program, {}; it runs only one, so autodream leaves it \
                 alone. Remove that `notify` line (or make that program also run {}), then run \
                 `autodream install codex` again",
                path.display(),
                show(&current),
                show(&wanted)
            )));
        }
        Some(Err(other)) => {
            return Err(refused(format!(
                "{}: `notify` is {other}, not a command line; fix it by hand, then run again",
                path.display()
            )));
        }
        Some(Ok(current)) => Some(format!("set notify = {} (was {})", show(&wanted), show(&current))),
        None => Some(format!("set notify = {}", show(&wanted))),
    };
    if item.is_some() {
        let mut array = toml_edit::Array::new();
        for a in &wanted {
            array.push(a.as_str());
        }
        match doc.get_mut(NOTIFY) {
            Some(v) => *v = toml_edit::value(array),
            None => {
                doc.insert(NOTIFY, toml_edit::value(array));
            }
        }
    }
    let items: Vec<String> = item.into_iter().collect();
    let data = json!({ NOTIFY: wanted });
    let (change, file) =
        settings_toml::commit(&path, before.as_deref(), &doc, items, data, opts.now, opts.dry_run)?;
    report.files.push(change);
    record.files.extend(file);

    // 2. autodream's config: AGENTS.md as a mirror of the index.
    if let Some(config) = &opts.autodream_config {
        let mirror =
            Mirror { config, file: &opts.agents_md(), agent: "Codex", now: opts.now, dry_run: opts.dry_run };
        mirror.add(&mut report, &mut record)?;
    }
    manifest.keep(record, &opts.manifest, opts.dry_run)?;
    Ok(report)
}

/// `mirror_index` in autodream's config naming the file an agent that does not load
/// MEMORY.md reads instead (`AGENTS.md`, `GEMINI.md`).
pub(crate) struct Mirror<'a> {
    pub config: &'a Path,
    pub file: &'a Path,
    /// The agent, for the note ("Codex", "Gemini CLI").
    pub agent: &'a str,
    pub now: Timestamp,
    pub dry_run: bool,
}

impl Mirror<'_> {
    /// Adds the file to `mirror_index`, with the change and a note in the report.
    pub fn add(&self, report: &mut Report, record: &mut Record) -> Result<(), InstallError> {
        let (change, file) = add_mirror(self.config, self.file, self.now, self.dry_run)?;
        if change.action != FileAction::Unchanged {
            report.notes.push(format!(
                "{} does not load MEMORY.md: after each dream the memory index is kept in {} between \
                 the autodream markers (nothing else in that file is touched)",
                self.agent,
                self.file.display()
            ));
        }
        report.files.push(change);
        record.files.extend(file);
        Ok(())
    }
}

/// Adds `file` to `mirror_index` in autodream's config file.
pub(crate) fn add_mirror(
    config: &Path,
    file: &Path,
    now: Timestamp,
    dry_run: bool,
) -> Result<(FileChange, Option<super::FileRecord>), InstallError> {
    let before = super::read_optional(config)?;
    let mut doc = settings_toml::parse(config, before.as_deref())?;
    let entry = file.to_string_lossy();
    let items: Vec<String> =
        settings_toml::add_to_array(&mut doc, config, MIRROR_KEY, &entry)?.into_iter().collect();
    settings_toml::commit(config, before.as_deref(), &doc, items, json!({ MIRROR_KEY: entry }), now, dry_run)
}

/// Takes `file` out of `mirror_index` again (the config restored byte for byte when nobody
/// edited it since), then the managed block out of `file`.
pub(crate) fn remove_mirror(
    record: Option<&Record>,
    config: &Path,
    file: &Path,
    now: Timestamp,
    dry_run: bool,
    report: &mut Report,
) -> Result<(), InstallError> {
    let entry = file.to_string_lossy().into_owned();
    let (change, notes) = settings_toml::revert(
        config,
        record.and_then(|r| r.file(config)),
        |doc| settings_toml::remove_from_array(doc, MIRROR_KEY, &entry).into_iter().collect(),
        now,
        dry_run,
    )?;
    report.files.push(change);
    report.notes.extend(notes);
    let has_block = std::fs::read_to_string(file)
        .is_ok_and(|t| t.lines().any(|l| l.trim() == autodream_core::agents_md::BEGIN));
    if has_block {
        let mut action = FileAction::Update;
        if !dry_run {
            autodream_core::agents_md::remove_block(file)
                .map_err(|e| InstallError::io(file, std::io::Error::other(e.to_string())))?;
            if !file.exists() {
                action = FileAction::Delete;
            }
        }
        report.files.push(FileChange {
            path: file.to_path_buf(),
            action,
            items: vec!["removed the autodream index block".into()],
            backup: None,
        });
    }
    Ok(())
}

/// Takes out what [`install`] put in: `notify` (the file restored byte for byte when nobody
/// edited it since), the `mirror_index` entry and the managed block of `AGENTS.md`.
pub fn uninstall(opts: &Options) -> Result<Report, CodexError> {
    let mut manifest = Manifest::load(&opts.manifest)?;
    let record = manifest.take(TARGET, "user", Some(&opts.project_dir));
    let mut report = Report { dry_run: opts.dry_run, ..Default::default() };
    let path = opts.config_file();
    let (change, notes) = settings_toml::revert(
        &path,
        record.as_ref().and_then(|r| r.file(&path)),
        |doc| match notify_of(doc) {
            Some(Ok(current)) if is_ours(&current) => {
                doc.remove(NOTIFY);
                vec![format!("removed notify = {}", show(&current))]
            }
            _ => vec![],
        },
        opts.now,
        opts.dry_run,
    )?;
    report.files.push(change);
    report.notes.extend(notes);
    if let Some(config) = &opts.autodream_config {
        remove_mirror(record.as_ref(), config, &opts.agents_md(), opts.now, opts.dry_run, &mut report)?;
    }
    if !opts.dry_run {
        manifest.save(&opts.manifest)?;
    }
    Ok(report)
}

/// The `notify` value, for `doctor`: `Some(true)` when autodream's hook is Codex's notify
/// program, `Some(false)` when another program is, `None` when none is set or the file is
/// missing or unreadable.
pub fn notify_is_ours(codex_home: &Path) -> Option<bool> {
    let path = codex_home.join("config.toml");
    let bytes = super::read_optional(&path).ok()??;
    let doc = settings_toml::parse(&path, Some(&bytes)).ok()?;
    match notify_of(&doc)? {
        Ok(argv) => Some(is_ours(&argv)),
        Err(_) => Some(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(home: &Path) -> Options {
        Options {
            codex_home: home.join(".codex"),
            hook_exe: Some(PathBuf::from("/opt/autodream/bin/autodream-hook")),
            autodream_exe: PathBuf::from("/opt/autodream/bin/autodream"),
            hook_args: vec![],
            manifest: home.join("state/installed.json"),
            project_dir: home.join("shop"),
            autodream_config: Some(home.join("autodream/config.toml")),
            dry_run: false,
            now: "2026-03-01T12:00:00Z".parse().unwrap(),
        }
    }

    #[test]
    fn comments_and_key_order_survive_and_uninstall_takes_out_only_notify() {
        let tmp = tempfile::tempdir().unwrap();
        let o = opts(tmp.path());
        std::fs::create_dir_all(&o.codex_home).unwrap();
        let original = "# my codex settings\nmodel = \"o4-mini\" # fast\n\n[tui]\nnotifications = true\n";
        std::fs::write(o.config_file(), original).unwrap();
        let r = install(&o).unwrap();
        assert!(!r.is_noop());
        let text = std::fs::read_to_string(o.config_file()).unwrap();
        assert!(text.starts_with("# my codex settings\nmodel = \"o4-mini\" # fast\nnotify = ["), "{text}");
        assert!(text.ends_with("\n[tui]\nnotifications = true\n"), "{text}");
        let doc: toml::Table = text.parse().unwrap();
        assert_eq!(doc["notify"].as_array().unwrap()[0].as_str(), Some("/opt/autodream/bin/autodream-hook"));
        assert_eq!(notify_is_ours(&o.codex_home), Some(true));
        // A second install changes nothing.
        assert!(install(&o).unwrap().is_noop());
        // Someone edits the file afterwards: uninstall keeps their edit, takes out notify.
        std::fs::write(o.config_file(), text.replace("o4-mini", "o3")).unwrap();
        let r = uninstall(&o).unwrap();
        assert_eq!(r.files[0].action, FileAction::Update);
        assert_eq!(std::fs::read_to_string(o.config_file()).unwrap(), original.replace("o4-mini", "o3"));
        assert!(!o.manifest.exists());
    }

    #[test]
    fn a_notify_that_is_not_ours_is_refused_and_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let o = opts(tmp.path());
        std::fs::create_dir_all(&o.codex_home).unwrap();
        let original = "notify = [\"python3\", \"/home/ada/notify.py\"]\n";
        std::fs::write(o.config_file(), original).unwrap();
        let err = install(&o).unwrap_err().to_string();
        assert!(err.contains("already runs a notify program") && err.contains("notify.py"), "{err}");
        assert_eq!(std::fs::read_to_string(o.config_file()).unwrap(), original);
        assert_eq!(notify_is_ours(&o.codex_home), Some(false));
        // Uninstall does not take someone else's notify either.
        let r = uninstall(&o).unwrap();
        assert!(r.is_noop());
        assert_eq!(std::fs::read_to_string(o.config_file()).unwrap(), original);
    }

    #[test]
    fn a_broken_config_is_refused_with_its_line() {
        let tmp = tempfile::tempdir().unwrap();
        let o = opts(tmp.path());
        std::fs::create_dir_all(&o.codex_home).unwrap();
        std::fs::write(o.config_file(), "model = \"o3\"\nnotify = [\n").unwrap();
        let err = install(&o).unwrap_err().to_string();
        assert!(
            err.contains("config.toml") && err.contains("not valid TOML") && err.contains("line"),
            "{err}"
        );
    }
}
