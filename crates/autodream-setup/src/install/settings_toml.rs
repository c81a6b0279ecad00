//! Editing a TOML settings file (Codex CLI's `config.toml`, autodream's own `config.toml`)
//! in place with `toml_edit`: comments, key order and formatting survive every change.
//!
//! TOML files are recorded whole rather than edit by edit: the install keeps the SHA-256 of
//! the text it wrote ([`super::FileRecord::sha256`]) and the backup taken before. An uninstall
//! that finds the file exactly as the install left it writes the backup's bytes back (or
//! removes the file the install created); one that finds it edited since takes out only
//! autodream's entries and keeps every other edit.

use std::path::Path;

use jiff::Timestamp;
use serde_json::Value;

use super::{
    FileAction, FileChange, FileRecord, InstallError, backup, read_optional, remove_file, write_atomic,
};
use autodream_core::dream::history::sha256_hex;

/// A TOML file that is not valid TOML, named with its line.
fn invalid(path: &Path, message: impl std::fmt::Display) -> InstallError {
    InstallError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not valid TOML, nothing was changed: {}", message.to_string().trim().replace('\n', " ")),
        ),
    }
}

/// Parses `bytes` (absent or empty: an empty document).
pub fn parse(path: &Path, bytes: Option<&[u8]>) -> Result<toml_edit::DocumentMut, InstallError> {
    let text = std::str::from_utf8(bytes.unwrap_or_default()).map_err(|_| invalid(path, "not UTF-8 text"))?;
    text.parse::<toml_edit::DocumentMut>().map_err(|e| invalid(path, e))
}

/// Writes `doc` to `path` (whose bytes were `before`) with a backup first; `items` say what
/// changed. With no items nothing is written. Returns the change and, when something was
/// (or would be) written, the record of it.
pub fn commit(
    path: &Path,
    before: Option<&[u8]>,
    doc: &toml_edit::DocumentMut,
    items: Vec<String>,
    data: Value,
    now: Timestamp,
    dry_run: bool,
) -> Result<(FileChange, Option<FileRecord>), InstallError> {
    if items.is_empty() {
        return Ok((
            FileChange { path: path.to_path_buf(), action: FileAction::Unchanged, items, backup: None },
            None,
        ));
    }
    let text = doc.to_string();
    let action = if before.is_some() { FileAction::Update } else { FileAction::Create };
    let mut backup_file = None;
    if !dry_run {
        if before.is_some() {
            backup_file = Some(backup(path, now)?);
        }
        write_atomic(path, text.as_bytes())?;
    }
    let record = FileRecord {
        path: path.to_path_buf(),
        created: before.is_none(),
        backup: backup_file.clone(),
        edits: Vec::new(),
        sha256: Some(sha256_hex(text.as_bytes())),
        data,
    };
    Ok((FileChange { path: path.to_path_buf(), action, items, backup: backup_file }, Some(record)))
}

/// Takes an install out of `path`: the backup's bytes (or the file's removal) when the file is
/// as the install left it, else `remove` (autodream's entries out of the document, a line per
/// entry). Returns the change and notes.
pub fn revert(
    path: &Path,
    record: Option<&FileRecord>,
    remove: impl FnOnce(&mut toml_edit::DocumentMut) -> Vec<String>,
    now: Timestamp,
    dry_run: bool,
) -> Result<(FileChange, Vec<String>), InstallError> {
    let unchanged =
        FileChange { path: path.to_path_buf(), action: FileAction::Unchanged, items: vec![], backup: None };
    let Some(current) = read_optional(path)? else {
        return Ok((unchanged, Vec::new()));
    };
    let mut notes = Vec::new();
    let as_installed = record.and_then(|r| r.sha256.as_deref()) == Some(sha256_hex(&current).as_str());
    let (action, new_bytes, items) = match record {
        Some(r) if as_installed && r.created => {
            (FileAction::Delete, None, vec!["autodream had created it".to_string()])
        }
        Some(r) if as_installed && r.backup.as_ref().is_some_and(|b| b.is_file()) => {
            let b = r.backup.as_ref().expect("checked");
            let orig = std::fs::read(b).map_err(|e| InstallError::io(b, e))?;
            (
                FileAction::Update,
                Some(orig),
                vec![format!("restored as it was before the install ({})", b.display())],
            )
        }
        _ => {
            let mut doc = parse(path, Some(&current))?;
            let items = remove(&mut doc);
            if items.is_empty() {
                return Ok((unchanged, notes));
            }
            if record.is_some() {
                notes.push(format!(
                    "{} was edited since the install: only autodream's entries were taken out",
                    path.display()
                ));
            }
            (FileAction::Update, Some(doc.to_string().into_bytes()), items)
        }
    };
    let mut backup_file = None;
    if !dry_run {
        backup_file = Some(backup(path, now)?);
        match &new_bytes {
            None => remove_file(path)?,
            Some(b) => write_atomic(path, b)?,
        }
    }
    Ok((FileChange { path: path.to_path_buf(), action, items, backup: backup_file }, notes))
}

/// Adds `entry` to the string array `key` at the top of `doc` (created when absent); `None`
/// when it is there already. `Err` when `key` holds something else than an array.
pub fn add_to_array(
    doc: &mut toml_edit::DocumentMut,
    path: &Path,
    key: &str,
    entry: &str,
) -> Result<Option<String>, InstallError> {
    match doc.get_mut(key) {
        Some(item) => {
            let Some(a) = item.as_array_mut() else {
                return Err(invalid(
                    path,
                    format!("`{key}` is {}, expected an array of strings", item.type_name()),
                ));
            };
            if a.iter().any(|v| v.as_str() == Some(entry)) {
                return Ok(None);
            }
            a.push(entry);
        }
        None => {
            let mut a = toml_edit::Array::new();
            a.push(entry);
            doc.insert(key, toml_edit::value(a));
        }
    }
    Ok(Some(format!("added {entry:?} to {key}")))
}

/// Takes `entry` out of the string array `key`, and the key with it when nothing is left.
pub fn remove_from_array(doc: &mut toml_edit::DocumentMut, key: &str, entry: &str) -> Option<String> {
    let a = doc.get_mut(key)?.as_array_mut()?;
    let before = a.len();
    a.retain(|v| v.as_str() != Some(entry));
    if a.len() == before {
        return None;
    }
    if a.is_empty() {
        doc.remove(key);
    }
    Some(format!("removed {entry:?} from {key}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        "2026-03-01T12:00:00Z".parse().unwrap()
    }

    #[test]
    fn an_untouched_file_is_restored_byte_for_byte_and_an_edited_one_keeps_its_edits() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("config.toml");
        let original = "# comment\nmin_hours = 12   # spaced\n\n[agent]\nmodel = \"x\"\n";
        std::fs::write(&f, original).unwrap();
        let before = read_optional(&f).unwrap();
        let mut doc = parse(&f, before.as_deref()).unwrap();
        let item = add_to_array(&mut doc, &f, "mirror_index", "/p/AGENTS.md").unwrap().unwrap();
        assert_eq!(add_to_array(&mut doc, &f, "mirror_index", "/p/AGENTS.md").unwrap(), None);
        let (change, record) =
            commit(&f, before.as_deref(), &doc, vec![item], Value::Null, now(), false).unwrap();
        assert_eq!(change.action, FileAction::Update);
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(
            text.starts_with("# comment\nmin_hours = 12   # spaced\nmirror_index = [\"/p/AGENTS.md\"]\n"),
            "{text}"
        );
        assert!(text.ends_with("\n[agent]\nmodel = \"x\"\n"), "{text}");
        let record = record.unwrap();
        let remove = |d: &mut toml_edit::DocumentMut| {
            remove_from_array(d, "mirror_index", "/p/AGENTS.md").into_iter().collect()
        };
        let (change, notes) = revert(&f, Some(&record), remove, now(), false).unwrap();
        assert_eq!(change.action, FileAction::Update);
        assert!(notes.is_empty());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), original);

        // Edited after the install: only the entry goes.
        let (_, record) =
            commit(&f, Some(original.as_bytes()), &doc, vec!["x".into()], Value::Null, now(), false).unwrap();
        let edited = std::fs::read_to_string(&f).unwrap().replace("12", "6");
        std::fs::write(&f, &edited).unwrap();
        let (_, notes) = revert(&f, record.as_ref(), remove, now(), false).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), original.replace("12", "6"));
        assert!(notes[0].contains("edited since the install"));
    }

    #[test]
    fn a_file_the_install_created_is_removed_and_bad_toml_is_refused_with_its_line() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("new/config.toml");
        let mut doc = parse(&f, None).unwrap();
        let item = add_to_array(&mut doc, &f, "k", "v").unwrap().unwrap();
        let (change, record) = commit(&f, None, &doc, vec![item], Value::Null, now(), false).unwrap();
        assert_eq!(change.action, FileAction::Create);
        let (change, _) = revert(&f, record.as_ref(), |_| vec![], now(), false).unwrap();
        assert_eq!(change.action, FileAction::Delete);
        assert!(!f.exists());
        let err = parse(&f, Some(b"a = 1\nb = [\n")).unwrap_err().to_string();
        assert!(err.contains("not valid TOML") && err.contains("line"), "{err}");
        let mut doc = parse(&f, Some(b"k = 3\n")).unwrap();
        assert!(add_to_array(&mut doc, &f, "k", "v").unwrap_err().to_string().contains("expected an array"));
    }
}
