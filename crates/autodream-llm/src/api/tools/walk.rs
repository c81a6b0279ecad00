//! Walking a folder for Grep and Glob without leaving the sandbox.
//!
//! The walk never follows symbolic links, skips hidden entries and git-ignored files, and
//! does not descend into folders fenced off from the root being walked (the real memory dir
//! and the staging copy, when walking the sessions or project dir). Files are handed over as
//! [`Resolved`] paths so they are opened through the sandbox's link-refusing opener.

use std::fs::Metadata;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::ToolBox;
use crate::sandbox::{Resolved, RootKind};

/// Why a walk ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WalkEnd {
    /// Every file was visited.
    Complete,
    /// The visitor asked to stop.
    Stopped,
    /// The time limit ran out.
    TimedOut,
    /// The dream was cancelled.
    Cancelled,
}

/// Visits every regular file under `base` (or `base` itself when it is a file) in name
/// order. `visit` returns `false` to stop. A walk of the whole memory dir includes the daily
/// logs, which live outside the staging copy.
pub(crate) fn walk_files(
    tools: &ToolBox,
    base: &Resolved,
    mut visit: impl FnMut(&Resolved, &Metadata) -> bool,
) -> WalkEnd {
    let end = walk_one(tools, base, &mut visit);
    if end == WalkEnd::Complete
        && base.kind == RootKind::Memory
        && base.rel.as_os_str().is_empty()
        && let Some(logs) = tools.sandbox.resolved_root(RootKind::Logs)
    {
        return walk_one(tools, &logs, &mut visit);
    }
    end
}

fn walk_one(
    tools: &ToolBox,
    base: &Resolved,
    visit: &mut impl FnMut(&Resolved, &Metadata) -> bool,
) -> WalkEnd {
    let sandbox = &tools.sandbox;
    let root = &sandbox.roots()[base.root];
    let started = Instant::now();
    if let Ok(meta) = std::fs::symlink_metadata(&base.backing)
        && meta.is_file()
    {
        return if visit(base, &meta) { WalkEnd::Complete } else { WalkEnd::Stopped };
    }
    let fenced: Vec<std::path::PathBuf> =
        if sandbox.is_fenced(base.root, &base.backing) { Vec::new() } else { sandbox.fenced().to_vec() };
    let walk_root = base.root;
    let fence_applies = matches!(base.kind, RootKind::Sessions | RootKind::Project);
    let walker = ignore::WalkBuilder::new(&base.backing)
        .follow_links(false)
        .hidden(true)
        .parents(false)
        .git_global(false)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            let fenced_off = fence_applies && fenced.iter().any(|f| entry.path().starts_with(f));
            !fenced_off && !entry.path_is_symlink()
        })
        .build();
    for entry in walker {
        if tools.cancel.load(Ordering::Relaxed) {
            return WalkEnd::Cancelled;
        }
        if started.elapsed() > tools.walk_time_limit {
            return WalkEnd::TimedOut;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(&root.backing) else { continue };
        let Ok(meta) = entry.metadata() else { continue };
        let resolved = resolved_child(base, walk_root, &root.display, &root.backing, rel);
        if !visit(&resolved, &meta) {
            return WalkEnd::Stopped;
        }
    }
    WalkEnd::Complete
}

fn resolved_child(base: &Resolved, root: usize, display: &Path, backing: &Path, rel: &Path) -> Resolved {
    Resolved {
        root,
        kind: base.kind,
        rel: rel.to_path_buf(),
        display: display.join(rel),
        backing: backing.join(rel),
        exists: true,
    }
}

/// A note for the model about an incomplete walk.
pub(crate) fn walk_note(end: WalkEnd) -> Option<&'static str> {
    match end {
        WalkEnd::TimedOut => Some("[the search ran out of time; narrow the path or the pattern]"),
        WalkEnd::Cancelled => Some("[cancelled]"),
        WalkEnd::Complete | WalkEnd::Stopped => None,
    }
}
