//! Registering autodream with the agents people use, and taking exactly that back out.
//!
//! Each target (one file per agent: [`claude_code`], [`codex`], [`gemini`]) decides what to change; this room holds
//! what the JSON-settings targets share:
//! - the report of what changed, file by file ([`Report`], [`FileChange`]), printed the same
//!   way whether the run was real or `--dry-run`;
//! - a timestamped backup next to a file before its change ([`backup`]) and atomic writes
//!   that follow a linked settings file to its target instead of replacing the link
//!   ([`write_atomic`]);
//! - the record of what was installed ([`Manifest`], in autodream's state folder), so that
//!   an uninstall removes exactly that and nothing else;
//! - format-preserving edits of JSON settings files ([`settings_json`]): every other key keeps
//!   its place and the file its indentation.

pub mod claude_code;
pub mod codex;
pub mod gemini;
pub mod settings_json;
pub mod settings_toml;

use std::io::Write;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

pub use settings_json::{JsonDoc, JsonEdit, SettingsError};

/// The manifest's file name inside [`state_dir`].
pub use autodream_core::paths::state::INSTALL_MANIFEST_FILE as MANIFEST_FILE;

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error("no home directory: set HOME")]
    NoHome,
    #[error(transparent)]
    Paths(#[from] autodream_core::paths::PathError),
    #[error("{path}: the install record is not valid ({message}); move it away and run again")]
    Manifest { path: PathBuf, message: String },
}

impl InstallError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        InstallError::Io { path: path.into(), source }
    }
}

/// What happens to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    Create,
    Update,
    Delete,
    Unchanged,
}

/// One file's change, with the keys or entries touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    pub path: PathBuf,
    pub action: FileAction,
    /// One line per key or entry: "set autoDreamEnabled = false (was true)".
    pub items: Vec<String>,
    /// Where the file was copied before the change (none for a created file or a dry run).
    pub backup: Option<PathBuf>,
}

/// What an install or uninstall changed (or, with `dry_run`, would change).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    pub dry_run: bool,
    pub files: Vec<FileChange>,
    /// What the user should know that changed nothing: "another autodream hook is…".
    pub notes: Vec<String>,
}

impl Report {
    /// True when no file changes.
    pub fn is_noop(&self) -> bool {
        self.files.iter().all(|f| f.action == FileAction::Unchanged)
    }

    /// The report as lines for a terminal: `done` heads a real run that changed something
    /// ("installed autodream into Claude Code (user scope)"), `nothing` one that did not.
    pub fn render(&self, done: &str, nothing: &str) -> String {
        let mut out = String::new();
        if self.is_noop() {
            out.push_str(nothing);
        } else if self.dry_run {
            out.push_str("dry run, nothing written; these changes would be made:");
        } else {
            out.push_str(done);
        }
        out.push('\n');
        for f in self.files.iter().filter(|f| f.action != FileAction::Unchanged) {
            let verb = match (f.action, self.dry_run) {
                (FileAction::Create, false) => "created",
                (FileAction::Create, true) => "would create",
                (FileAction::Update, false) => "changed",
                (FileAction::Update, true) => "would change",
                (FileAction::Delete, false) => "removed",
                (FileAction::Delete, true) => "would remove",
                (FileAction::Unchanged, _) => "unchanged",
            };
            out.push_str(&format!("  {verb} {}\n", f.path.display()));
            for item in &f.items {
                out.push_str(&format!("    - {item}\n"));
            }
            if let Some(b) = &f.backup {
                out.push_str(&format!("    backup: {}\n", b.display()));
            }
        }
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out
    }
}

/// `<file>.autodream-backup-<UTC stamp>` next to `path` (with `-1`, `-2`, … when taken).
pub fn backup_path(path: &Path, now: Timestamp) -> PathBuf {
    let stamp = now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".autodream-backup-{stamp}"));
    let first = path.with_file_name(&name);
    if !first.exists() {
        return first;
    }
    (1..)
        .map(|n| {
            let mut alt = name.clone();
            alt.push(format!("-{n}"));
            path.with_file_name(alt)
        })
        .find(|p| !p.exists())
        .expect("some free name")
}

/// Copies `path` to its backup name (see [`backup_path`]) and returns it.
pub fn backup(path: &Path, now: Timestamp) -> Result<PathBuf, InstallError> {
    let target = resolve_link(path);
    let dest = backup_path(path, now);
    std::fs::copy(&target, &dest).map_err(|e| InstallError::io(&dest, e))?;
    Ok(dest)
}

/// A linked file's final target (dotfile managers link settings files); else `path`.
pub fn resolve_link(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Replaces `path` with `bytes` atomically (a temporary file in the same folder, synced, then
/// renamed over it), creating parent folders and keeping an existing file's permissions. A
/// link at `path` stays a link: its target is what gets replaced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    let target = resolve_link(path);
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| InstallError::io(dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".autodream-tmp-")
        .tempfile_in(dir)
        .map_err(|e| InstallError::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| InstallError::io(tmp.path(), e))?;
    tmp.as_file().sync_all().map_err(|e| InstallError::io(tmp.path(), e))?;
    if let Ok(meta) = std::fs::metadata(&target) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    } else {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644));
        }
    }
    tmp.persist(&target).map_err(|e| InstallError::io(&target, e.error))?;
    autodream_core::memdir::atomic_write::sync_dir(dir);
    Ok(())
}

/// Removes a file; a missing one is fine.
pub fn remove_file(path: &Path) -> Result<(), InstallError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(InstallError::io(path, e)),
        _ => Ok(()),
    }
}

/// Reads a file; `None` when it does not exist.
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, InstallError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(InstallError::io(path, e)),
    }
}

/// autodream's own state folder: `$AUTODREAM_STATE_DIR`, else `$XDG_STATE_HOME/autodream`,
/// else `~/.local/state/autodream`.
pub fn state_dir() -> Result<PathBuf, InstallError> {
    if let Some(x) = std::env::var_os("AUTODREAM_STATE_DIR").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(x));
    }
    if let Some(x) = std::env::var_os("XDG_STATE_HOME").filter(|v| Path::new(v).is_absolute()) {
        return Ok(PathBuf::from(x).join("autodream"));
    }
    autodream_core::paths::home_dir().map(|h| h.join(".local/state/autodream")).ok_or(InstallError::NoHome)
}

/// One file an install touched, and how to take the change back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: PathBuf,
    /// The install created the file: an uninstall that leaves it empty removes it.
    pub created: bool,
    /// The copy taken before the change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<PathBuf>,
    /// The JSON edits made (JSON files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<JsonEdit>,
    /// SHA-256 of the file as written, for files written whole (a command file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Anything else a target needs to undo its change (its own format).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub data: serde_json::Value,
}

/// What one `install <target>` put in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// `claude-code`, …
    pub target: String,
    /// `user`, `project`, `local`, or the target's own word.
    pub scope: String,
    /// The project for project and local scopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<PathBuf>,
    pub installed_at: Timestamp,
    pub files: Vec<FileRecord>,
}

impl Record {
    pub fn file(&self, path: &Path) -> Option<&FileRecord> {
        self.files.iter().find(|f| f.path == path)
    }
}

/// Every install still in place (`installed.json` in [`state_dir`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    pub records: Vec<Record>,
}

impl Manifest {
    /// `installed.json` in [`state_dir`].
    pub fn default_path() -> Result<PathBuf, InstallError> {
        Ok(state_dir()?.join(MANIFEST_FILE))
    }

    /// Loads the manifest at `path` (empty when there is none).
    pub fn load(path: &Path) -> Result<Manifest, InstallError> {
        match read_optional(path)? {
            None => Ok(Manifest { version: 1, records: Vec::new() }),
            Some(b) => serde_json::from_slice(&b)
                .map_err(|e| InstallError::Manifest { path: path.to_path_buf(), message: e.to_string() }),
        }
    }

    /// Writes the manifest atomically; an empty one removes the file.
    pub fn save(&self, path: &Path) -> Result<(), InstallError> {
        if self.records.is_empty() {
            return remove_file(path);
        }
        let mut text = serde_json::to_string_pretty(self).expect("serialisable");
        text.push('\n');
        write_atomic(path, text.as_bytes())
    }

    fn position(&self, target: &str, scope: &str, project: Option<&Path>) -> Option<usize> {
        self.records
            .iter()
            .position(|r| r.target == target && r.scope == scope && r.project.as_deref() == project)
    }

    pub fn find(&self, target: &str, scope: &str, project: Option<&Path>) -> Option<&Record> {
        self.position(target, scope, project).map(|i| &self.records[i])
    }

    /// Takes the record out (for an uninstall).
    pub fn take(&mut self, target: &str, scope: &str, project: Option<&Path>) -> Option<Record> {
        self.position(target, scope, project).map(|i| self.records.remove(i))
    }

    /// Adds `record`, or merges its files into the one already there (a later install that
    /// added something: its edits come after the earlier ones).
    /// Keeps what an install changed (nothing on a dry run, or when it changed nothing).
    pub fn keep(&mut self, record: Record, path: &Path, dry_run: bool) -> Result<(), InstallError> {
        if dry_run || record.files.is_empty() {
            return Ok(());
        }
        self.upsert(record);
        self.save(path)
    }

    pub fn upsert(&mut self, record: Record) {
        match self.position(&record.target, &record.scope, record.project.as_deref()) {
            None => self.records.push(record),
            Some(i) => {
                let existing = &mut self.records[i];
                for f in record.files {
                    match existing.files.iter_mut().find(|e| e.path == f.path) {
                        Some(e) => {
                            e.edits.extend(f.edits);
                            if f.sha256.is_some() {
                                e.sha256 = f.sha256;
                            }
                            if e.backup.is_none() {
                                e.backup = f.backup;
                            }
                        }
                        None => existing.files.push(f),
                    }
                }
            }
        }
    }
}

/// Writes a JSON document edited by an install: the backup first (when the file existed),
/// then the new text atomically. With `dry_run` nothing is written.
pub fn commit_json(
    path: &Path,
    before: Option<&[u8]>,
    doc: &JsonDoc,
    edits: &[JsonEdit],
    now: Timestamp,
    dry_run: bool,
) -> Result<FileChange, InstallError> {
    let items: Vec<String> = edits.iter().map(JsonEdit::describe).collect();
    if edits.is_empty() {
        return Ok(FileChange {
            path: path.to_path_buf(),
            action: FileAction::Unchanged,
            items,
            backup: None,
        });
    }
    let action = if before.is_some() { FileAction::Update } else { FileAction::Create };
    let mut text = doc.text();
    if before.is_none() && !text.ends_with('\n') {
        text.push('\n');
    }
    let mut backup_file = None;
    if !dry_run {
        if before.is_some() {
            backup_file = Some(backup(path, now)?);
        }
        write_atomic(path, text.as_bytes())?;
    }
    Ok(FileChange { path: path.to_path_buf(), action, items, backup: backup_file })
}

/// Takes an install's JSON edits back out of `path`, then lets `extra` take out what the
/// record does not cover. When what is left says the same, in the same order, as the backup
/// taken before the install, the backup's exact bytes are written back; when the install
/// created the file and nothing is left in it, the file is removed. Returns the change and
/// notes on what could not be undone.
pub fn revert_json(
    path: &Path,
    record: Option<&FileRecord>,
    extra: impl FnOnce(&JsonDoc) -> Vec<String>,
    now: Timestamp,
    dry_run: bool,
) -> Result<(FileChange, Vec<String>), InstallError> {
    let unchanged =
        FileChange { path: path.to_path_buf(), action: FileAction::Unchanged, items: vec![], backup: None };
    let Some(bytes) = read_optional(path)? else {
        return Ok((unchanged, Vec::new()));
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let doc = JsonDoc::parse(path, &text)?;
    let edits = record.map_or(&[][..], |r| &r.edits[..]);
    let mut notes = doc.revert(edits);
    let mut items: Vec<String> = edits.iter().rev().map(|e| format!("undid: {}", e.describe())).collect();
    items.extend(extra(&doc));
    let after = doc.text();
    if after == text {
        return Ok((unchanged, notes));
    }
    let created = record.is_some_and(|r| r.created);
    let mut action = FileAction::Update;
    let mut new_bytes = after.into_bytes();
    if created && doc.is_empty_object() {
        action = FileAction::Delete;
    } else if let Some(b) = record.and_then(|r| r.backup.as_ref())
        && let Ok(Some(orig)) = read_optional(b)
        && settings_json::canonical(&String::from_utf8_lossy(&orig))
            == settings_json::canonical(&String::from_utf8_lossy(&new_bytes))
    {
        new_bytes = orig;
    } else if record.is_some_and(|r| r.backup.is_some()) {
        notes.push(format!(
            "{} was edited since the install: only autodream's entries were taken out",
            path.display()
        ));
    }
    let mut backup_file = None;
    if !dry_run {
        // A file the install created and nothing else filled goes without a copy.
        if action != FileAction::Delete {
            backup_file = Some(backup(path, now)?);
        }
        if action == FileAction::Delete {
            remove_file(path)?;
        } else {
            write_atomic(path, &new_bytes)?;
        }
    }
    Ok((FileChange { path: path.to_path_buf(), action, items, backup: backup_file }, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backup_names_carry_a_utc_stamp_and_never_collide() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("settings.json");
        std::fs::write(&f, "{}").unwrap();
        let now: Timestamp = "2026-05-08T13:56:00Z".parse().unwrap();
        let b1 = backup(&f, now).unwrap();
        assert_eq!(b1.file_name().unwrap(), "settings.json.autodream-backup-20260508T135600Z");
        let b2 = backup(&f, now).unwrap();
        assert_eq!(b2.file_name().unwrap(), "settings.json.autodream-backup-20260508T135600Z-1");
        assert_eq!(std::fs::read(&b2).unwrap(), b"{}");
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_settings_file_stays_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("dotfiles/settings.json");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, "{}").unwrap();
        let link = tmp.path().join("settings.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"{\"a\": 1}").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "{\"a\": 1}");
    }

    #[test]
    fn manifest_merges_a_later_install_and_takes_a_record_out() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state/installed.json");
        let now: Timestamp = "2026-05-08T13:56:00Z".parse().unwrap();
        let rec = |edits: Vec<JsonEdit>| Record {
            target: "t".into(),
            scope: "user".into(),
            project: None,
            installed_at: now,
            files: vec![FileRecord {
                path: "/s.json".into(),
                created: false,
                backup: None,
                edits,
                sha256: None,
                data: serde_json::Value::Null,
            }],
        };
        let set = JsonEdit::Set { path: vec!["a".into()], value: 1.into(), before: None, created: 0 };
        let mut m = Manifest::load(&path).unwrap();
        m.upsert(rec(vec![set.clone()]));
        m.upsert(rec(vec![set.clone()]));
        m.save(&path).unwrap();
        let mut m = Manifest::load(&path).unwrap();
        assert_eq!(m.records.len(), 1);
        assert_eq!(m.records[0].files[0].edits.len(), 2);
        assert!(m.take("t", "user", None).is_some());
        m.save(&path).unwrap();
        assert!(!path.exists());
        std::fs::write(&path, "not json").unwrap();
        let err = Manifest::load(&path).unwrap_err().to_string();
        assert!(err.contains("installed.json: the install record is not valid"), "{err}");
    }
}
