//! The memory index mirrored into a project's `AGENTS.md` (Codex CLI) or `GEMINI.md`
//! (Gemini CLI), for agents that load those files but never `MEMORY.md`.
//!
//! The index lives in one managed block between [`BEGIN`] and [`END`]; everything outside
//! the markers is the user's and is never touched, byte for byte. A file without the
//! markers gets the block appended at its end; a file with them gets the block replaced.
//! Writes are atomic (a temporary file in the same folder, then a rename) and keep the
//! file's permissions; a file that is a symbolic link is refused, never written through.
//!
//! Which files to keep in sync is the `mirror_index` setting (absolute paths, written by
//! `autodream install codex|gemini`); after every applied dream [`sync_after_dream`] brings
//! the ones that belong to the dream's project up to date.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::paths::Locations;

/// The line that opens the managed block.
pub const BEGIN: &str = "<!-- autodream:begin -->";
/// The line that closes the managed block.
pub const END: &str = "<!-- autodream:end -->";

/// What a sync did to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Changed {
    /// The file did not exist; it now holds only the block.
    Created,
    /// The block was added at the end of the file.
    Appended,
    /// The block was rewritten in place.
    Replaced,
    /// The block was taken out (see [`remove_block`]).
    Removed,
    /// The file already said exactly this; nothing was written.
    Unchanged,
}

#[derive(Debug, thiserror::Error)]
pub enum AgentsMdError {
    #[error(
        "{0} is a symbolic link; autodream does not write through links (point mirror_index at the real file)"
    )]
    Symlink(PathBuf),
    #[error("{path}: {reason}; fix or remove the autodream markers by hand, nothing was written")]
    Markers { path: PathBuf, reason: String },
    #[error("cannot {action} {path}: {source}")]
    Io { action: &'static str, path: PathBuf, source: std::io::Error },
}

/// Where the markers are: byte ranges of the whole block (from the start of the begin line
/// to the end of the end line, its newline included).
fn find_block(path: &Path, text: &str) -> Result<Option<std::ops::Range<usize>>, AgentsMdError> {
    let marker_lines = |marker: &str| -> Vec<(usize, usize)> {
        let mut at = 0;
        let mut out = Vec::new();
        for line in text.split_inclusive('\n') {
            if line.trim_end_matches(['\n', '\r']).trim() == marker {
                out.push((at, at + line.len()));
            }
            at += line.len();
        }
        out
    };
    let begins = marker_lines(BEGIN);
    let ends = marker_lines(END);
    let line_of = |byte: usize| text[..byte].matches('\n').count() + 1;
    let bad = |reason: String| Err(AgentsMdError::Markers { path: path.to_path_buf(), reason });
    match (begins.as_slice(), ends.as_slice()) {
        ([], []) => Ok(None),
        ([(b, _)], [(e_start, e_end)]) if b < e_start => Ok(Some(*b..*e_end)),
        ([(b, _)], [(e, _)]) => bad(format!(
            "the end marker (line {}) comes before the begin marker (line {})",
            line_of(*e),
            line_of(*b)
        )),
        ([(b, _)], []) => bad(format!("the begin marker on line {} has no end marker", line_of(*b))),
        ([], [(e, _)]) => bad(format!("the end marker on line {} has no begin marker", line_of(*e))),
        _ => bad(format!("{} begin and {} end markers; expected one of each", begins.len(), ends.len())),
    }
}

/// The block for `index_text`, with `newline` line endings.
fn render_block(index_text: &str, memory_dir: Option<&Path>, newline: &str) -> String {
    let mut lines = vec![BEGIN.to_string()];
    let mut note = "<!-- Kept by autodream after each dream: the memory index (MEMORY.md). \
                    Edits between these markers are replaced."
        .to_string();
    if let Some(dir) = memory_dir {
        note.push_str(&format!(" Topic files named below are in {}.", display_home(dir)));
    }
    note.push_str(" -->");
    lines.push(note);
    // A marker inside the index would end the block early: leave such lines out.
    lines.extend(
        index_text
            .trim_matches(['\n', '\r'])
            .lines()
            .filter(|l| !l.contains("<!-- autodream:"))
            .map(|l| l.trim_end_matches('\r').to_string()),
    );
    lines.push(END.to_string());
    let mut out = lines.join(newline);
    out.push_str(newline);
    out
}

/// `~/x` for a path under the home folder, else the path.
fn display_home(p: &Path) -> String {
    if let Some(home) = crate::paths::home_dir()
        && let Ok(rest) = p.strip_prefix(&home)
    {
        return format!("~/{}", rest.display());
    }
    p.display().to_string()
}

/// Refuses a symbolic link; reads the file (`None` when it does not exist).
fn read_plain(file: &Path) -> Result<Option<String>, AgentsMdError> {
    match std::fs::symlink_metadata(file) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(AgentsMdError::Symlink(file.to_path_buf())),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(AgentsMdError::Io { action: "inspect", path: file.to_path_buf(), source }),
    }
    let bytes = std::fs::read(file).map_err(|source| AgentsMdError::Io {
        action: "read",
        path: file.to_path_buf(),
        source,
    })?;
    String::from_utf8(bytes).map(Some).map_err(|_| AgentsMdError::Markers {
        path: file.to_path_buf(),
        reason: "the file is not UTF-8 text".into(),
    })
}

/// Replaces `file` with `text` atomically (never through a link) and keeps its permissions.
fn write_atomic(file: &Path, text: &str) -> Result<(), AgentsMdError> {
    let permissions = std::fs::metadata(file).ok().map(|m| m.permissions());
    crate::memdir::write_atomic(file, text.as_bytes()).map_err(|source| AgentsMdError::Io {
        action: "write",
        path: file.to_path_buf(),
        source,
    })?;
    if let Some(p) = permissions {
        let _ = std::fs::set_permissions(file, p);
    }
    Ok(())
}

/// Writes `index_text` into the managed block of `file`: appended at the end when the file
/// has no markers (created when it does not exist), replaced between them when it has.
pub fn sync_block(file: &Path, index_text: &str) -> Result<Changed, AgentsMdError> {
    sync_block_for(file, index_text, None)
}

/// [`sync_block`], naming the memory folder in the block's note so the agent can open the
/// topic files the index links to.
pub fn sync_block_for(
    file: &Path,
    index_text: &str,
    memory_dir: Option<&Path>,
) -> Result<Changed, AgentsMdError> {
    let Some(text) = read_plain(file)? else {
        write_atomic(file, &render_block(index_text, memory_dir, "\n"))?;
        return Ok(Changed::Created);
    };
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let block = render_block(index_text, memory_dir, newline);
    let (new, changed) = match find_block(file, &text)? {
        Some(range) => {
            let mut new = String::with_capacity(text.len() + block.len());
            new.push_str(&text[..range.start]);
            new.push_str(&block);
            new.push_str(&text[range.end..]);
            (new, Changed::Replaced)
        }
        None => {
            let mut new = text.clone();
            if !new.is_empty() {
                if !new.ends_with('\n') {
                    new.push_str(newline);
                }
                new.push_str(newline);
            }
            new.push_str(&block);
            (new, Changed::Appended)
        }
    };
    if new == text {
        return Ok(Changed::Unchanged);
    }
    write_atomic(file, &new)?;
    Ok(changed)
}

/// Takes the managed block out of `file`, with the blank line [`sync_block`] put before it.
/// A file that then holds nothing is removed. `Unchanged` when there is no block.
pub fn remove_block(file: &Path) -> Result<Changed, AgentsMdError> {
    let Some(text) = read_plain(file)? else { return Ok(Changed::Unchanged) };
    let Some(range) = find_block(file, &text)? else { return Ok(Changed::Unchanged) };
    let mut before = &text[..range.start];
    let after = &text[range.end..];
    if after.is_empty() {
        // The separator sync_block added before an appended block.
        before = before.strip_suffix("\r\n").or_else(|| before.strip_suffix('\n')).unwrap_or(before);
    }
    let new = format!("{before}{after}");
    if new.is_empty() {
        std::fs::remove_file(file).map_err(|source| AgentsMdError::Io {
            action: "remove",
            path: file.to_path_buf(),
            source,
        })?;
    } else {
        write_atomic(file, &new)?;
    }
    Ok(Changed::Removed)
}

/// The `mirror_index` files that belong to the project at `loc`: those in its folder or in
/// the root of the repository holding it.
pub fn mirrors_for<'a>(cfg: &'a Config, loc: &Locations) -> impl Iterator<Item = &'a PathBuf> {
    let project = loc.project_dir.clone();
    let root = crate::paths::canonical_git_root(&project);
    cfg.mirror_index.iter().filter(move |f| {
        let parent = f.parent();
        parent == Some(project.as_path()) || (root.is_some() && parent == root.as_deref())
    })
}

/// After an applied dream: brings every mirror of this project up to date with MEMORY.md.
/// Never fails the dream; returns one line for each file that could not be written.
pub fn sync_after_dream(loc: &Locations, cfg: &Config) -> Vec<String> {
    let mut problems = Vec::new();
    let mut mirrors = mirrors_for(cfg, loc).peekable();
    if mirrors.peek().is_none() {
        return problems;
    }
    let index = std::fs::read_to_string(loc.index_path()).unwrap_or_default();
    for file in mirrors {
        if let Err(e) = sync_block_for(file, &index, Some(&loc.memory_dir)) {
            problems.push(format!("index not mirrored: {e}"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "# Memory\n\n- [Deploys](deploys.md) — make ship, never Fridays\n";

    #[test]
    fn a_file_without_markers_gets_the_block_at_its_end_and_keeps_the_rest() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("AGENTS.md");
        let original = "# Project rules\n\nRun `cargo test` before every commit.";
        std::fs::write(&f, original).unwrap();
        assert_eq!(sync_block(&f, INDEX).unwrap(), Changed::Appended);
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.starts_with(&format!("{original}\n\n{BEGIN}\n")), "{text}");
        assert!(text.contains("- [Deploys](deploys.md) — make ship, never Fridays\n"));
        assert!(text.ends_with(&format!("{END}\n")));
        // The same index again writes nothing.
        let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
        assert_eq!(sync_block(&f, INDEX).unwrap(), Changed::Unchanged);
        assert_eq!(std::fs::metadata(&f).unwrap().modified().unwrap(), mtime);
        // Removing the block gives back the file byte for byte (newline added before it too).
        assert_eq!(remove_block(&f).unwrap(), Changed::Removed);
        assert_eq!(std::fs::read_to_string(&f).unwrap(), format!("{original}\n"));
    }

    #[test]
    fn an_existing_block_is_replaced_and_text_outside_stays_byte_identical() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("GEMINI.md");
        let head = "Intro with trailing spaces   \r\nand a CRLF line.\n\n";
        let tail = "\n## After the block\n\n<!-- a comment of the user's -->\nlast line without newline";
        std::fs::write(&f, format!("{head}{BEGIN}\nold index\n{END}\n{tail}")).unwrap();
        assert_eq!(sync_block(&f, INDEX).unwrap(), Changed::Replaced);
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.starts_with(head), "{text}");
        assert!(text.ends_with(tail), "{text}");
        assert!(!text.contains("old index"));
        let inside = &text[head.len()..text.len() - tail.len()];
        assert!(inside.starts_with(BEGIN) && inside.trim_end().ends_with(END));
        assert!(inside.contains("never Fridays"));
        // A second index replaces the first, still only inside.
        assert_eq!(sync_block(&f, "- [Ci](ci.md) — CI runs on push\n").unwrap(), Changed::Replaced);
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.starts_with(head) && text.ends_with(tail));
        assert!(!text.contains("Fridays") && text.contains("CI runs on push"));
    }

    #[test]
    fn a_missing_file_is_created_and_a_marker_in_the_index_cannot_end_the_block() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("AGENTS.md");
        let sneaky = format!("- a\n{END}\n- b\n");
        assert_eq!(sync_block_for(&f, &sneaky, Some(Path::new("/srv/mem"))).unwrap(), Changed::Created);
        let text = std::fs::read_to_string(&f).unwrap();
        assert_eq!(text.matches(END).count(), 1);
        assert!(text.contains("Topic files named below are in /srv/mem."));
        assert!(text.contains("- a\n- b\n"));
        // A file holding only the block is removed with it.
        assert_eq!(remove_block(&f).unwrap(), Changed::Removed);
        assert!(!f.exists());
        assert_eq!(remove_block(&f).unwrap(), Changed::Unchanged);
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_refused_and_its_target_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("real.md");
        std::fs::write(&target, "mine\n").unwrap();
        let link = tmp.path().join("AGENTS.md");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = sync_block(&link, INDEX).unwrap_err();
        assert!(matches!(err, AgentsMdError::Symlink(_)), "{err}");
        assert!(err.to_string().contains("symbolic link"));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }

    #[test]
    fn damaged_markers_are_refused_with_their_line_and_nothing_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("AGENTS.md");
        for (text, says) in [
            (format!("a\n{BEGIN}\nb\n"), "line 2 has no end marker"),
            (format!("{END}\nx\n{BEGIN}\n"), "end marker (line 1) comes before"),
            (format!("{BEGIN}\n{END}\n{BEGIN}\n{END}\n"), "2 begin and 2 end markers"),
        ] {
            std::fs::write(&f, &text).unwrap();
            let err = sync_block(&f, INDEX).unwrap_err().to_string();
            assert!(err.contains(says), "{err}");
            assert!(err.contains("AGENTS.md"), "{err}");
            assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
        }
    }

    #[test]
    fn only_the_mirrors_of_the_dreams_project_are_synced() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("shop");
        let other = tmp.path().join("blog");
        let memory = tmp.path().join("memory");
        for d in [&project, &other, &memory] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(memory.join("MEMORY.md"), INDEX).unwrap();
        let loc = Locations::resolve(&crate::paths::PathOverrides {
            memory_dir: Some(memory.clone()),
            sessions_dir: Some(tmp.path().join("s")),
            project_dir: Some(project.clone()),
        })
        .unwrap();
        let cfg = Config {
            mirror_index: vec![project.join("AGENTS.md"), other.join("GEMINI.md")],
            ..Config::default()
        };
        assert!(sync_after_dream(&loc, &cfg).is_empty());
        assert!(std::fs::read_to_string(project.join("AGENTS.md")).unwrap().contains("never Fridays"));
        assert!(!other.join("GEMINI.md").exists());
    }
}
