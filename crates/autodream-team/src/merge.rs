//! Merging the branch into this machine's memory, file by file, three ways.
//!
//! Between dreams only daily logs and hand edits change. For every path the last synced
//! commit is the base, this machine's files are "ours" and the branch's are "theirs": a
//! side that did not change takes the other's version; two changed logs are joined line by
//! line (each machine appends only to its own, so this is rare); two changed topic files are
//! merged with `git merge-file`, and when the same lines changed on both sides this
//! machine's version stays in place and the branch's is kept beside it as a conflict file
//! (`<name>.conflict-<machine>.md`). Nothing is ever dropped: a file deleted on one side and
//! edited on the other keeps the edit.

use std::collections::BTreeSet;

use crate::git::{GitError, LOCAL_TIMEOUT, run_anywhere};
use crate::layout::LEASE_FILE;
use crate::repo::Files;

/// The result of merging three trees.
#[derive(Debug, Default)]
pub struct Merge {
    /// The files the merged tree holds (the lease excluded).
    pub files: Files,
    /// Paths merged from both sides' edits.
    pub merged: Vec<String>,
    /// Conflict files written (branch paths), each beside the file it is about.
    pub conflicts: Vec<String>,
}

/// Merges `ours` and `theirs` over `base`. `who` names the other side in conflict files.
pub fn three_way(base: &Files, ours: &Files, theirs: &Files, who: &str) -> Result<Merge, GitError> {
    let mut out = Merge::default();
    let paths: BTreeSet<&String> = base.keys().chain(ours.keys()).chain(theirs.keys()).collect();
    for path in paths {
        if path == LEASE_FILE {
            continue;
        }
        let (b, o, t) = (base.get(path), ours.get(path), theirs.get(path));
        let result = if o == t || t == b {
            o.cloned()
        } else if o == b {
            t.cloned()
        } else {
            match (o, t) {
                (Some(o), None) | (None, Some(o)) => Some(o.clone()),
                (Some(o), Some(t)) if path.starts_with(crate::layout::LOGS_PREFIX) => {
                    out.merged.push(path.clone());
                    Some(join_lines(o, t))
                }
                (Some(o), Some(t)) => match merge_file(b.map(Vec::as_slice).unwrap_or_default(), o, t)? {
                    Some(m) => {
                        out.merged.push(path.clone());
                        Some(m)
                    }
                    None => {
                        let name =
                            conflict_name(path, who, |p| ours.contains_key(p) || theirs.contains_key(p));
                        out.files.insert(name.clone(), t.clone());
                        out.conflicts.push(name);
                        Some(o.clone())
                    }
                },
                (None, None) => None,
            }
        };
        if let Some(bytes) = result {
            out.files.insert(path.clone(), bytes);
        }
    }
    Ok(out)
}

/// `ours`, then every line of `theirs` that `ours` does not have, in order.
fn join_lines(ours: &[u8], theirs: &[u8]) -> Vec<u8> {
    let mut out = ours.to_vec();
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    let have: BTreeSet<&[u8]> = ours.split(|&b| b == b'\n').collect();
    for line in theirs.split_inclusive(|&b| b == b'\n') {
        let bare = line.strip_suffix(b"\n").unwrap_or(line);
        if !bare.is_empty() && !have.contains(bare) {
            out.extend_from_slice(bare);
            out.push(b'\n');
        }
    }
    out
}

/// `git merge-file`: the clean merge, or `None` when the same lines changed on both sides.
fn merge_file(base: &[u8], ours: &[u8], theirs: &[u8]) -> Result<Option<Vec<u8>>, GitError> {
    let dir = tempfile::Builder::new().prefix("autodream-merge").tempdir()?;
    let [o, b, t] = ["ours", "base", "theirs"].map(|n| dir.path().join(n));
    std::fs::write(&o, ours)?;
    std::fs::write(&b, base)?;
    std::fs::write(&t, theirs)?;
    let args = [
        "merge-file",
        "-p",
        "-q",
        o.to_str().unwrap_or(""),
        b.to_str().unwrap_or(""),
        t.to_str().unwrap_or(""),
    ];
    match run_anywhere(&args, LOCAL_TIMEOUT) {
        Ok(out) => Ok(Some(out.stdout)),
        Err(GitError::Failed { code: Some(c), .. }) if c > 0 => Ok(None),
        Err(e) => Err(e),
    }
}

/// `memory/deploy.md` → `memory/deploy.conflict-<who>.md` (then `-2`, `-3`… when taken).
fn conflict_name(path: &str, who: &str, taken: impl Fn(&str) -> bool) -> String {
    let (stem, ext) = match path.rsplit_once('.') {
        Some((s, e)) if !e.contains('/') => (s, format!(".{e}")),
        _ => (path, String::new()),
    };
    (1..)
        .map(|n| {
            if n == 1 {
                format!("{stem}.conflict-{who}{ext}")
            } else {
                format!("{stem}.conflict-{who}-{n}{ext}")
            }
        })
        .find(|p| !taken(p))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> Files {
        pairs.iter().map(|(k, v)| (k.to_string(), v.as_bytes().to_vec())).collect()
    }

    #[test]
    fn one_sided_changes_are_taken_and_disjoint_edits_merge() {
        let base = files(&[("memory/a.md", "1\n2\n3\n4\n5\n"), ("memory/gone.md", "x\n")]);
        let ours = files(&[
            ("memory/a.md", "one\n2\n3\n4\n5\n"),
            ("memory/gone.md", "x\n"),
            ("memory/new.md", "n\n"),
        ]);
        let theirs = files(&[("memory/a.md", "1\n2\n3\n4\nfive\n")]);
        let m = three_way(&base, &ours, &theirs, "desk").unwrap();
        assert_eq!(m.files["memory/a.md"], b"one\n2\n3\n4\nfive\n");
        assert!(!m.files.contains_key("memory/gone.md"), "deleted there, unchanged here");
        assert_eq!(m.files["memory/new.md"], b"n\n");
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn the_same_line_edited_twice_keeps_both_versions() {
        let base = files(&[("memory/a.md", "- deploy on fridays\n")]);
        let ours = files(&[("memory/a.md", "- deploy on mondays\n")]);
        let theirs = files(&[("memory/a.md", "- deploy on tuesdays\n")]);
        let m = three_way(&base, &ours, &theirs, "desk").unwrap();
        assert_eq!(m.files["memory/a.md"], b"- deploy on mondays\n");
        assert_eq!(m.conflicts, vec!["memory/a.conflict-desk.md".to_string()]);
        assert_eq!(m.files["memory/a.conflict-desk.md"], b"- deploy on tuesdays\n");
    }

    #[test]
    fn logs_are_joined_and_a_deleted_but_edited_file_stays() {
        let base = files(&[("logs/m/2026/05/2026-05-08.md", "- a\n"), ("memory/t.md", "t\n")]);
        let ours = files(&[("logs/m/2026/05/2026-05-08.md", "- a\n- b\n"), ("memory/t.md", "t2\n")]);
        let theirs = files(&[("logs/m/2026/05/2026-05-08.md", "- a\n- c\n")]);
        let m = three_way(&base, &ours, &theirs, "x").unwrap();
        assert_eq!(m.files["logs/m/2026/05/2026-05-08.md"], b"- a\n- b\n- c\n");
        assert_eq!(m.files["memory/t.md"], b"t2\n");
    }
}
