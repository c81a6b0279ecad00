//! The memory directory as the scorer reads it: its `*.md` files, the index's links and
//! limits, and the scored text.

use super::*;

/// Relative paths of the memory's `*.md` files: MEMORY.md first, then sorted. Skips the
/// top-level `logs/`, dot-folders, dot-files and symbolic links.
pub fn memory_files(memdir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    walk(memdir, memdir, &mut out);
    out.sort_by(|a, b| (a != "MEMORY.md", a).cmp(&(b != "MEMORY.md", b)));
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_symlink() || name.starts_with('.') {
            continue;
        }
        if ft.is_dir() {
            if dir == root && name == "logs" {
                continue;
            }
            walk(root, &e.path(), out);
        } else if ft.is_file() && name.to_lowercase().ends_with(".md") {
            let rel =
                e.path().strip_prefix(root).map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or(name);
            out.push(rel);
        }
    }
}

static LINK_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)"#)
        .expect("valid regex")
});
static SCHEME_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-zA-Z][a-zA-Z0-9+.-]*:").expect("valid regex"));

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz"), 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Local link targets of a Markdown line (URLs, `mailto:` and `#anchors` excluded).
pub fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for c in LINK_RE.captures_iter(line) {
        let t = c[1].trim_matches(['<', '>']).trim();
        if t.is_empty() || t.starts_with('#') || SCHEME_RE.is_match(t) {
            continue;
        }
        let t = t.split('#').next().unwrap_or("").split('?').next().unwrap_or("");
        let t = percent_decode(t);
        if !t.is_empty() {
            out.push(t);
        }
    }
    out
}

/// MEMORY.md limits, dangling index lines and orphan topic files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexCheck {
    pub exists: bool,
    pub lines: usize,
    pub utf16_units: usize,
    pub links: usize,
    pub dangling_lines: usize,
    pub dangling: Vec<String>,
    pub orphans: Vec<String>,
    pub ok: bool,
}

pub fn check_index(memdir: &Path, md_files: &[String]) -> IndexCheck {
    let path = memdir.join("MEMORY.md");
    let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
    let mut res = IndexCheck { exists: path.is_file() && !is_link, ..Default::default() };
    let mut linked = BTreeSet::new();
    if res.exists {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
        res.lines = text.matches('\n').count() + usize::from(!(text.is_empty() || text.ends_with('\n')));
        res.utf16_units = text.encode_utf16().count();
        let root = std::fs::canonicalize(memdir).unwrap_or_else(|_| memdir.to_path_buf());
        for line in text.split('\n') {
            let mut bad = false;
            for t in link_targets(line) {
                res.links += 1;
                let real = std::fs::canonicalize(memdir.join(&t)).ok();
                match real {
                    Some(real) if real.starts_with(&root) && real.is_file() => {
                        if let Ok(rel) = real.strip_prefix(&root) {
                            linked.insert(rel.to_string_lossy().replace('\\', "/"));
                        }
                    }
                    _ => {
                        bad = true;
                        res.dangling.push(t);
                    }
                }
            }
            res.dangling_lines += usize::from(bad);
        }
    }
    res.ok = res.exists && res.lines <= INDEX_MAX_LINES && res.utf16_units <= INDEX_MAX_UTF16;
    res.orphans =
        md_files.iter().filter(|f| f.as_str() != "MEMORY.md" && !linked.contains(*f)).cloned().collect();
    res
}

/// The scored text of one memory directory.
pub struct Memory {
    pub files: Vec<String>,
    pub bytes: usize,
    pub text: String,
    pub index: IndexCheck,
}

impl Memory {
    pub fn read(memdir: &Path) -> Memory {
        let files = memory_files(memdir);
        let mut parts = Vec::new();
        let mut bytes = 0;
        for rel in &files {
            let b = std::fs::read(memdir.join(rel)).unwrap_or_default();
            bytes += b.len();
            parts.push(String::from_utf8_lossy(&b).into_owned());
        }
        let index = check_index(memdir, &files);
        Memory { files, bytes, text: parts.join("\n"), index }
    }
}
