//! List: the entries of one folder, read through a descriptor opened without following links.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use rustix::fs::{AtFlags, Dir, FileType};
use serde::Deserialize;

use super::{ToolBox, ToolOutcome, cap_output, parse_input};
use crate::sandbox::Access;

/// Most entries listed.
const MAX_ENTRIES: usize = 500;

#[derive(Deserialize)]
struct Input {
    #[serde(default)]
    path: Option<String>,
}

pub(super) fn run(tools: &ToolBox, input: &serde_json::Value) -> ToolOutcome {
    let input: Input = match parse_input("List", input, "{\"path\"?: string}") {
        Ok(i) => i,
        Err(outcome) => return outcome,
    };
    let default_path = tools.sandbox.memory_root().display.to_string_lossy().into_owned();
    let resolved = match tools.sandbox.resolve(input.path.as_deref().unwrap_or(&default_path), Access::Read) {
        Ok(r) => r,
        Err(e) => return ToolOutcome::from_access(e),
    };
    let dir_fd = match tools.sandbox.open_dir(&resolved) {
        Ok(fd) => fd,
        Err(e) => return ToolOutcome::from_access(e),
    };
    let dir = match Dir::read_from(&dir_fd) {
        Ok(d) => d,
        Err(e) => return ToolOutcome::error(format!("{}: cannot list: {e}", resolved.display.display())),
    };
    let mut rows: Vec<(String, String)> = Vec::new();
    for entry in dir {
        let Ok(entry) = entry else { continue };
        let name_bytes = entry.file_name().to_bytes();
        if name_bytes == b"." || name_bytes == b".." {
            continue;
        }
        let name = OsStr::from_bytes(name_bytes).to_string_lossy().into_owned();
        let child = resolved.backing.join(&name);
        // Entries of the real memory dir reached through another root stay hidden.
        if tools.sandbox.is_fenced(resolved.root, &child) {
            continue;
        }
        let stat = rustix::fs::statat(&dir_fd, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW);
        let row = match stat {
            Ok(st) => {
                let modified = jiff::Timestamp::from_second(st.st_mtime)
                    .map(|t| {
                        t.to_zoned(autodream_core::clock::local_tz()).strftime("%Y-%m-%d %H:%M").to_string()
                    })
                    .unwrap_or_default();
                match FileType::from_raw_mode(st.st_mode) {
                    FileType::Directory => format!("{name}/\t-\t{modified}"),
                    FileType::Symlink => format!("{name}@\t(link, not followed)\t{modified}"),
                    _ => format!("{name}\t{} bytes\t{modified}", st.st_size),
                }
            }
            Err(_) => format!("{name}\t?"),
        };
        rows.push((name, row));
    }
    // The daily logs are not in the staging copy; show where they are.
    if resolved.kind == crate::sandbox::RootKind::Memory
        && resolved.rel.as_os_str().is_empty()
        && tools.sandbox.root_index(crate::sandbox::RootKind::Logs).is_some()
        && !rows.iter().any(|(name, _)| name == "logs")
    {
        rows.push(("logs".into(), "logs/\t-\t(daily logs, read-only)".into()));
    }
    rows.sort();
    let total = rows.len();
    let mut out = format!("{} ({total} entries)\n", resolved.display.display());
    for (_, row) in rows.iter().take(MAX_ENTRIES) {
        out.push_str(row);
        out.push('\n');
    }
    if total > MAX_ENTRIES {
        out.push_str(&format!("[{} more not shown; use Glob to narrow]\n", total - MAX_ENTRIES));
    }
    ToolOutcome::ok(cap_output(out, "use Glob to narrow"))
}
