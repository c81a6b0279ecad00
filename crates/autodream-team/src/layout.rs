//! How the memory folder maps onto the branch's tree, and back.
//!
//! | on the branch | on this machine |
//! |---|---|
//! | `memory/<file>` | `<memory>/<file>`: MEMORY.md, topic files, hand-made files |
//! | `logs/<machine>/YYYY/MM/YYYY-MM-DD.md` | `<memory>/logs/YYYY/MM/YYYY-MM-DD.md` for this machine, `…/YYYY-MM-DD.<machine>.md` for another |
//! | `engine/<file>` | `<state>/data/<file>`: the engines' shared record (provenance, candidates, archive) |
//! | `lease.json` | nowhere: the lease lives on the branch only |
//!
//! Daily logs are per machine on the branch, so concurrent extraction on many machines
//! never edits the same file. Nothing else leaves the machine: not the lock, not the
//! transcripts, not the state folder's history, staging or worker log, not a hidden file.

use std::path::{Path, PathBuf};

use autodream_core::paths::Locations;

use crate::repo::Files;

pub const MEMORY_PREFIX: &str = "memory/";
pub const LOGS_PREFIX: &str = "logs/";
pub const ENGINE_PREFIX: &str = "engine/";
pub const LEASE_FILE: &str = "lease.json";

/// Where a branch file lives on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Local {
    /// Relative to the memory folder.
    Memory(String),
    /// Relative to the state folder's engine data.
    Engine(String),
}

impl Local {
    pub fn path(&self, loc: &Locations) -> PathBuf {
        match self {
            Local::Memory(rel) => loc.memory_dir.join(rel),
            Local::Engine(rel) => loc.engine_data_dir().join(rel),
        }
    }
}

/// The mapping for one machine.
#[derive(Debug, Clone)]
pub struct Layout {
    pub machine: String,
}

/// A path component that may travel: no `.`/`..`, no hidden name, nothing a fast-import
/// stream would need to quote.
fn plain_component(c: &str) -> bool {
    !c.is_empty() && !c.starts_with('.') && !c.contains(['\n', '\r', '"', '\\', '\0'])
}

fn plain_path(rel: &str) -> bool {
    rel.split('/').all(plain_component)
}

/// Engine data lives in hidden folders (`.engine/`, `.archive/`): only `.` and `..` and
/// names a stream would quote are refused there.
fn engine_path(rel: &str) -> bool {
    rel.split('/')
        .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains(['\n', '\r', '"', '\\', '\0']))
}

/// `YYYY/MM/YYYY-MM-DD.md` (with `.<machine>` before `.md` for another machine's log).
fn split_log(rel_in_logs: &str) -> Option<(String, Option<String>)> {
    let parts: Vec<&str> = rel_in_logs.split('/').collect();
    let [y, m, file] = parts.as_slice() else { return None };
    let stem = file.strip_suffix(".md")?;
    let (day, machine) = match stem.split_once('.') {
        Some((day, machine)) => (day, Some(machine.to_string())),
        None => (stem, None),
    };
    let ok = y.len() == 4
        && m.len() == 2
        && day.len() == 10
        && day.starts_with(&format!("{y}-{m}-"))
        && day.chars().all(|c| c.is_ascii_digit() || c == '-');
    if !ok || machine.as_deref().is_some_and(|m| !valid_machine(m)) {
        return None;
    }
    Some((format!("{y}/{m}/{day}.md"), machine))
}

/// A machine name as the branch may hold it.
pub fn valid_machine(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A host name made usable as a machine name.
pub fn machine_from_hostname(host: &str) -> String {
    let short = host.split('.').next().unwrap_or(host);
    let name: String = short
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
        .take(64)
        .collect();
    if name.is_empty() { "machine".into() } else { name }
}

impl Layout {
    pub fn new(machine: &str) -> Layout {
        Layout { machine: machine.to_string() }
    }

    /// Where the branch file `path` lives here; `None` for the lease and anything that
    /// does not map (a hostile or foreign name is never written).
    pub fn local_of(&self, path: &str) -> Option<Local> {
        if let Some(rel) = path.strip_prefix(ENGINE_PREFIX) {
            return engine_path(rel).then(|| Local::Engine(rel.to_string()));
        }
        if !plain_path(path) {
            return None;
        }
        if let Some(rel) = path.strip_prefix(MEMORY_PREFIX) {
            let top = rel.split('/').next().unwrap_or_default();
            return (top != "logs").then(|| Local::Memory(rel.to_string()));
        }
        if let Some(rest) = path.strip_prefix(LOGS_PREFIX) {
            let (machine, rel) = rest.split_once('/')?;
            if !valid_machine(machine) {
                return None;
            }
            let (rel, suffix) = split_log(rel)?;
            if suffix.is_some() {
                return None;
            }
            return Some(Local::Memory(if machine == self.machine {
                format!("logs/{rel}")
            } else {
                let stem = rel.strip_suffix(".md").unwrap_or(&rel);
                format!("logs/{stem}.{machine}.md")
            }));
        }
        None
    }

    /// The branch path of a memory-folder file, `None` when it does not travel.
    pub fn branch_of_memory(&self, rel: &str) -> Option<String> {
        if !plain_path(rel) {
            return None;
        }
        if let Some(in_logs) = rel.strip_prefix("logs/") {
            let (rel, machine) = split_log(in_logs)?;
            let machine = machine.unwrap_or_else(|| self.machine.clone());
            return Some(format!("{LOGS_PREFIX}{machine}/{rel}"));
        }
        if rel == "logs" {
            return None;
        }
        Some(format!("{MEMORY_PREFIX}{rel}"))
    }

    /// What this machine holds, as branch files: the memory folder and the engine data.
    pub fn export(&self, loc: &Locations) -> std::io::Result<Files> {
        let mut files = Files::new();
        for rel in walk(&loc.memory_dir, false)? {
            if let Some(path) = self.branch_of_memory(&rel) {
                files.insert(path, std::fs::read(loc.memory_dir.join(&rel))?);
            }
        }
        let data = loc.engine_data_dir();
        for rel in walk(&data, true)? {
            if engine_path(&rel) {
                files.insert(format!("{ENGINE_PREFIX}{rel}"), std::fs::read(data.join(&rel))?);
            }
        }
        Ok(files)
    }
}

/// Every regular file below `root` (relative, `/`-separated), never through a link, and
/// into hidden names only when `hidden`.
fn walk(root: &Path, hidden: bool) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && prefix.is_empty() => return Ok(out),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && !hidden {
                continue;
            }
            let rel = if prefix.is_empty() { name } else { format!("{prefix}/{}", name) };
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push((entry.path(), rel));
            } else if kind.is_file() {
                out.push(rel);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_map_per_machine_both_ways() {
        let l = Layout::new("laptop");
        assert_eq!(
            l.branch_of_memory("logs/2026/05/2026-05-08.md").as_deref(),
            Some("logs/laptop/2026/05/2026-05-08.md")
        );
        assert_eq!(
            l.branch_of_memory("logs/2026/05/2026-05-08.desk.md").as_deref(),
            Some("logs/desk/2026/05/2026-05-08.md")
        );
        assert_eq!(
            l.local_of("logs/laptop/2026/05/2026-05-08.md"),
            Some(Local::Memory("logs/2026/05/2026-05-08.md".into()))
        );
        assert_eq!(
            l.local_of("logs/desk/2026/05/2026-05-08.md"),
            Some(Local::Memory("logs/2026/05/2026-05-08.desk.md".into()))
        );
        assert_eq!(l.local_of("memory/MEMORY.md"), Some(Local::Memory("MEMORY.md".into())));
        assert_eq!(l.local_of("engine/.engine/x.json"), Some(Local::Engine(".engine/x.json".into())));
        assert_eq!(l.local_of("memory/.hidden.md"), None, "hidden memory names never travel");
        assert_eq!(l.local_of("engine/../x"), None);
        assert_eq!(l.local_of("memory/../x"), None);
        assert_eq!(l.local_of("memory/logs/2026/05/2026-05-08.md"), None);
        assert_eq!(l.local_of(LEASE_FILE), None);
        assert_eq!(l.branch_of_memory(".consolidate-lock"), None);
        assert_eq!(l.branch_of_memory("logs/notes.md"), None);
    }
}
