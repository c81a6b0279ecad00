//! Resolution: which file a path given by the model names, checked component by component
//! against the real file system (see the parent module for the rules).

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use super::{
    Access, AccessError, Denial, MAX_COMPONENT_BYTES, MAX_LINK_HOPS, MAX_PATH_BYTES, Resolved, RootKind,
    Sandbox, deny, join_rel,
};

impl Sandbox {
    /// Resolves a path given by the model (absolute, or relative to the memory dir).
    /// A missing file (when reading) is an ordinary failure, not a denial.
    pub fn resolve(&self, raw: &str, access: Access) -> Result<Resolved, AccessError> {
        let path = self.lexical_check(raw)?;
        let (root_index, rel) = self.match_root(&path).ok_or_else(|| {
            deny(format!(
                "{raw}: outside the folders this dream may use. Readable: {}. Relative paths are taken \
                 from the memory dir.",
                self.describe_roots()
            ))
        })?;
        let root = &self.roots[root_index];
        if access == Access::Write && root.kind == RootKind::Logs {
            return Err(deny(format!(
                "{raw}: the daily logs are an append-only input and are not rewritten by a dream; put what \
                 they teach into topic files"
            )));
        }
        if access == Access::Write && root.kind != RootKind::Memory {
            return Err(deny(format!(
                "{raw}: writes are allowed only inside the memory dir {} (this path is in the {}, which is \
                 read-only)",
                self.memory_root().display.display(),
                root.kind.label()
            )));
        }
        let (rel, exists) = self.walk(root_index, raw, rel, access)?;
        if access == Access::Write {
            self.check_memory_write_policy(raw, &rel)?;
        }
        Ok(Resolved {
            root: root_index,
            kind: root.kind,
            display: join_rel(&root.display, &rel),
            backing: join_rel(&root.backing, &rel),
            rel,
            exists,
        })
    }

    /// Refusals that need no file system access.
    fn lexical_check(&self, raw: &str) -> Result<PathBuf, Denial> {
        if raw.trim().is_empty() {
            return Err(Denial("empty path: name a file, e.g. MEMORY.md or an absolute path".into()));
        }
        if raw.contains('\0') {
            return Err(Denial("the path contains a NUL byte; paths must be plain text".into()));
        }
        if raw.len() > MAX_PATH_BYTES {
            return Err(Denial(format!(
                "the path is {} bytes long; the limit is {MAX_PATH_BYTES}",
                raw.len()
            )));
        }
        if raw.starts_with('~') {
            return Err(Denial(format!(
                "{raw}: `~` is not expanded here; use the absolute path (memory dir: {})",
                self.memory_root().display.display()
            )));
        }
        let given = Path::new(raw);
        let absolute =
            if given.is_absolute() { given.to_path_buf() } else { self.memory_root().display.join(given) };
        let mut clean = PathBuf::new();
        for component in absolute.components() {
            match component {
                Component::RootDir | Component::Prefix(_) => clean.push(component.as_os_str()),
                Component::CurDir => {}
                Component::ParentDir => {
                    return Err(Denial(format!(
                        "{raw}: `..` is not allowed in paths; name the file by its path inside the memory \
                         dir or by its absolute path"
                    )));
                }
                Component::Normal(name) => {
                    if name.len() > MAX_COMPONENT_BYTES {
                        return Err(Denial(format!(
                            "{raw}: a path component is {} bytes long; the limit is {MAX_COMPONENT_BYTES}",
                            name.len()
                        )));
                    }
                    clean.push(name);
                }
            }
        }
        Ok(clean)
    }

    /// The root containing `path` (longest match over every spelling of every root), and the
    /// components below it.
    fn match_root(&self, path: &Path) -> Option<(usize, PathBuf)> {
        let mut best: Option<(usize, usize, PathBuf)> = None;
        for (index, root) in self.roots.iter().enumerate() {
            for form in std::iter::once(&root.display).chain(root.aliases.iter()) {
                if let Ok(rest) = path.strip_prefix(form) {
                    let depth = form.components().count();
                    if best.as_ref().is_none_or(|(_, d, _)| depth > *d) {
                        best = Some((index, depth, rest.to_path_buf()));
                    }
                }
            }
        }
        best.map(|(index, _, rest)| (index, rest))
    }

    /// Walks `rel` under the root's backing folder against the file system, following only
    /// the links the policy allows. Returns the link-free relative path and whether it exists.
    fn walk(
        &self,
        root_index: usize,
        raw: &str,
        rel: PathBuf,
        access: Access,
    ) -> Result<(PathBuf, bool), AccessError> {
        let root = &self.roots[root_index];
        let mut pending: VecDeque<PathBuf> = rel.components().map(|c| PathBuf::from(c.as_os_str())).collect();
        let mut done = PathBuf::new();
        let mut hops = 0usize;
        while let Some(name) = pending.pop_front() {
            let name_os = name.as_os_str();
            if name_os == "." {
                continue;
            }
            if name_os == ".." {
                // Only link targets can bring `..` here; `done` has no links, so popping is exact.
                if !done.pop() {
                    return Err(deny(format!(
                        "{raw}: a symbolic link on this path leads outside the {} {}",
                        root.kind.label(),
                        root.display.display()
                    )));
                }
                continue;
            }
            let candidate = root.backing.join(&done).join(name_os);
            if self.is_fenced(root_index, &candidate) {
                return Err(deny(format!(
                    "{raw}: memory files are reached through the memory dir {} only",
                    self.memory_root().display.display()
                )));
            }
            match std::fs::symlink_metadata(&candidate) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if access == Access::Read {
                        return Err(AccessError::Failed(format!("{raw}: no such file or folder")));
                    }
                    done.push(name_os);
                    for rest in pending.drain(..) {
                        let rest_os = rest.as_os_str();
                        if rest_os == ".." || rest_os == "." {
                            return Err(deny(format!(
                                "{raw}: a symbolic link on this path points at a missing place"
                            )));
                        }
                        done.push(rest_os);
                    }
                    return Ok((done, false));
                }
                Err(e) => return Err(deny(format!("{raw}: cannot inspect: {e}"))),
                Ok(meta) if meta.file_type().is_symlink() => {
                    if matches!(root.kind, RootKind::Memory | RootKind::Logs) {
                        return Err(deny(format!(
                            "{raw}: is or passes through a symbolic link; memory files are never read or \
                             written through links"
                        )));
                    }
                    hops += 1;
                    if hops > MAX_LINK_HOPS {
                        return Err(deny(format!("{raw}: too many symbolic links")));
                    }
                    let target = std::fs::read_link(&candidate)
                        .map_err(|e| deny(format!("{raw}: cannot read a symbolic link: {e}")))?;
                    let mut replacement: Vec<PathBuf> = Vec::new();
                    if target.is_absolute() {
                        let inside = std::iter::once(&root.display)
                            .chain(root.aliases.iter())
                            .find_map(|form| target.strip_prefix(form).ok());
                        let Some(inside) = inside else {
                            return Err(deny(format!(
                                "{raw}: a symbolic link on this path leads outside the {} {}",
                                root.kind.label(),
                                root.display.display()
                            )));
                        };
                        done = PathBuf::new();
                        replacement.extend(inside.components().map(|c| PathBuf::from(c.as_os_str())));
                    } else {
                        replacement.extend(target.components().map(|c| PathBuf::from(c.as_os_str())));
                    }
                    for part in replacement.into_iter().rev() {
                        pending.push_front(part);
                    }
                }
                Ok(meta) => {
                    if !pending.is_empty() && !meta.is_dir() {
                        return Err(AccessError::Failed(format!(
                            "{raw}: {} is not a folder",
                            join_rel(&root.display, &done.join(name_os)).display()
                        )));
                    }
                    done.push(name_os);
                }
            }
        }
        Ok((done, true))
    }

    /// What may be written inside the memory dir: Markdown files, not the daily logs (an
    /// append-only input), not hidden engine state.
    fn check_memory_write_policy(&self, raw: &str, rel: &Path) -> Result<(), Denial> {
        let mut components = rel.components();
        let Some(first) = components.next() else {
            return Err(Denial(format!("{raw}: this is the memory dir itself; name a file inside it")));
        };
        let first = first.as_os_str().to_string_lossy();
        if first.starts_with('.')
            || rel.components().any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        {
            return Err(Denial(format!(
                "{raw}: hidden files and folders (like .dream/ and .consolidate-lock) belong to the engine; \
                 write topic files at the top level of the memory dir"
            )));
        }
        if first == "logs" {
            return Err(Denial(format!(
                "{raw}: the daily logs are an append-only input and are not rewritten by a dream; put what \
                 they teach into topic files"
            )));
        }
        if rel.extension().and_then(OsStr::to_str) != Some("md") {
            return Err(Denial(format!("{raw}: memory files are Markdown; use a name ending in .md")));
        }
        Ok(())
    }
}
