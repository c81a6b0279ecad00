//! MEMORY.md, the index the agent loads at every start.
//!
//! Each entry is one line, `- [Title](file.md) — one-line hook`; any other line is kept as
//! it is. The agent loads only the first 200 lines or 25,000 UTF-16 code units, measured
//! after front matter and HTML comments are stripped, so [`measure`] counts exactly that
//! way, [`check`] reports what would be cut, dangling pointers and forgotten topics, and
//! [`context_cost`] is what the loaded part adds to every session (bytes, ~tokens).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::topic::{Topic, split_front_matter};
use super::{INDEX_FILE, MemdirError, list_topic_files};

/// A hook this long or longer draws a warning.
pub const HOOK_WARN_CHARS: usize = 150;
/// An index line longer than this is an error.
pub const LINE_MAX_CHARS: usize = 200;

static ENTRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*[-*+]\s+\[(?P<title>(?:[^\]\\]|\\.)*)\]\((?P<target>[^)\s]+)\)\s*(?:(?:—|–|-{1,2}|:)\s*(?P<hook>.*?))?\s*$")
        .expect("valid regex")
});
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)"#)
        .expect("valid regex")
});
static COMMENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?s)<!--.*?-->").expect("valid regex"));

/// One line of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IndexLine {
    Entry { title: String, file: String, hook: String },
    Other { text: String },
}

impl IndexLine {
    /// The canonical form of an entry: `- [Title](file.md) — hook`.
    pub fn render(&self) -> String {
        match self {
            IndexLine::Entry { title, file, hook } if hook.is_empty() => format!("- [{title}]({file})"),
            IndexLine::Entry { title, file, hook } => format!("- [{title}]({file}) — {hook}"),
            IndexLine::Other { text } => text.clone(),
        }
    }
}

/// Parses the index into entries and other lines (nothing is dropped).
pub fn parse(text: &str) -> Vec<IndexLine> {
    text.lines().map(parse_line).collect()
}

/// Parses one line of the index.
pub fn parse_line(line: &str) -> IndexLine {
    match ENTRY.captures(line) {
        Some(c) => IndexLine::Entry {
            title: trim_title(&c["title"]).to_string(),
            file: c["target"].to_string(),
            hook: c.name("hook").map_or("", |m| m.as_str()).trim().to_string(),
        },
        None => IndexLine::Other { text: line.to_string() },
    }
}

/// A title without its surrounding blanks, except a blank escaped by a backslash: trimming
/// `[a\ ]` to `a\` would render as `[a\]`, whose bracket is escaped, and no longer parse.
fn trim_title(title: &str) -> &str {
    let start = title.trim_start();
    let trimmed = start.trim_end();
    let backslashes = trimmed.len() - trimmed.trim_end_matches('\\').len();
    match start[trimmed.len()..].chars().next() {
        Some(blank) if backslashes % 2 == 1 => &start[..trimmed.len() + blank.len_utf8()],
        _ => trimmed,
    }
}

/// Renders index lines back to text (one trailing newline).
pub fn render(lines: &[IndexLine]) -> String {
    let mut out: String = lines.iter().map(|l| l.render() + "\n").collect();
    while out.ends_with("\n\n") {
        out.pop();
    }
    if out.trim().is_empty() { String::new() } else { out }
}

/// What the agent actually loads, measured its way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Measure {
    pub lines: usize,
    /// UTF-16 code units (JavaScript string length).
    pub units: usize,
}

/// Strips front matter and HTML comments, trims, then counts lines and UTF-16 units.
pub fn measure(raw: &str) -> Measure {
    measure_stripped(&stripped(raw))
}

/// What the agent reads of an index before its limits: front matter and HTML comments
/// out, surrounding blanks trimmed.
fn stripped(raw: &str) -> String {
    let body = split_front_matter(raw).map_or(raw, |(_, body, _)| body);
    COMMENT.replace_all(body, "").trim().to_string()
}

fn measure_stripped(text: &str) -> Measure {
    if text.is_empty() {
        return Measure { lines: 0, units: 0 };
    }
    Measure { lines: text.split('\n').count(), units: text.encode_utf16().count() }
}

/// Bytes per token in [`estimate_tokens`].
pub const BYTES_PER_TOKEN: usize = 4;

/// A rough token count for `bytes` of text: one token per [`BYTES_PER_TOKEN`] bytes, rounded up.
pub fn estimate_tokens(bytes: usize) -> usize {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// What MEMORY.md costs every session (`status` and `doctor` show it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ContextCost {
    /// Bytes of MEMORY.md the agent loads (front matter and comments out, cut at its limits).
    pub bytes: usize,
    /// [`estimate_tokens`] of `bytes`.
    pub tokens: usize,
    pub lines: usize,
    /// The agent cuts the file (too many lines or units).
    pub truncated: bool,
}

/// What the agent loads of MEMORY.md at `memory_dir`, stripped as [`measure`] strips it and
/// cut where the agent cuts it; `None` when there is no MEMORY.md.
pub fn context_cost(memory_dir: &Path, max_lines: usize, max_units: usize) -> Option<ContextCost> {
    let raw = std::fs::read_to_string(memory_dir.join(INDEX_FILE)).ok()?;
    let text = stripped(&raw);
    let m = measure_stripped(&text);
    let loaded = cut_at_limits(&text, max_lines, max_units);
    Some(ContextCost {
        bytes: loaded.len(),
        tokens: estimate_tokens(loaded.len()),
        lines: m.lines.min(max_lines),
        truncated: m.lines > max_lines || m.units > max_units,
    })
}

/// The first `max_lines` lines of `text`, then, over `max_units` UTF-16 units, cut at the
/// last newline before the limit, as the agent cuts it.
fn cut_at_limits(text: &str, max_lines: usize, max_units: usize) -> String {
    let loaded: String = text.split('\n').take(max_lines).collect::<Vec<_>>().join("\n");
    if loaded.encode_utf16().count() <= max_units {
        return loaded;
    }
    let mut units = 0;
    let end = loaded
        .char_indices()
        .find(|(_, c)| {
            units += c.len_utf16();
            units > max_units
        })
        .map_or(loaded.len(), |(i, _)| i);
    let cut = &loaded[..end];
    match cut.rfind('\n') {
        Some(i) if i > 0 => cut[..i].to_string(),
        _ => cut.to_string(),
    }
}

/// The local targets of the Markdown links in a line (URLs and `#anchors` excluded).
pub fn link_targets(line: &str) -> Vec<String> {
    LINK.captures_iter(line)
        .filter_map(|c| {
            let t = c[1].trim_matches(['<', '>']).trim();
            let is_url = t.split_once(':').is_some_and(|(scheme, _)| {
                !scheme.is_empty()
                    && scheme.chars().next().is_some_and(|ch| ch.is_ascii_alphabetic())
                    && scheme.chars().all(|ch| ch.is_ascii_alphanumeric() || "+.-".contains(ch))
            });
            if t.is_empty() || t.starts_with('#') || is_url {
                return None;
            }
            let t = t.split(['#', '?']).next().unwrap_or_default();
            Some(percent_decode(t)).filter(|s| !s.is_empty())
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Resolves a link target inside the memory directory; `None` when it leaves it (`..`,
/// absolute paths, symlinks out) or does not exist as a regular file.
pub fn resolve_target(memory_dir: &Path, target: &str) -> Option<String> {
    if target.contains('\0') || Path::new(target).is_absolute() {
        return None;
    }
    let root = memory_dir.canonicalize().ok()?;
    let real = memory_dir.join(target).canonicalize().ok()?;
    let rel = real.strip_prefix(&root).ok()?;
    if !real.is_file() || rel.as_os_str().is_empty() {
        return None;
    }
    // A link whose path crosses a symlink is refused: autodream never follows links.
    if std::fs::symlink_metadata(memory_dir.join(target)).is_ok_and(|m| m.file_type().is_symlink()) {
        return None;
    }
    Some(rel.to_string_lossy().replace('\\', "/"))
}

/// A problem found by [`check`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// `error` (exit 1) or `warning`.
    pub severity: Severity,
    /// A stable machine name: over_lines, over_units, long_line, dangling, long_hook,
    /// orphan, front_matter, symlink, missing_index.
    pub code: &'static str,
    /// The file, relative to the memory directory.
    pub file: String,
    /// 1-based line, when it applies.
    pub line: Option<usize>,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// The index and topic files, checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    pub index_exists: bool,
    pub lines: usize,
    pub units: usize,
    pub max_lines: usize,
    pub max_units: usize,
    pub entries: usize,
    pub topic_files: usize,
    pub findings: Vec<Finding>,
}

impl CheckReport {
    pub fn errors(&self) -> usize {
        self.findings.iter().filter(|f| f.severity == Severity::Error).count()
    }
    pub fn warnings(&self) -> usize {
        self.findings.iter().filter(|f| f.severity == Severity::Warning).count()
    }
}

/// Checks MEMORY.md against the agent's limits and the topic files against the index.
pub fn check(memory_dir: &Path, max_lines: usize, max_units: usize) -> Result<CheckReport, MemdirError> {
    let index_path = memory_dir.join(INDEX_FILE);
    let mut findings = Vec::new();
    let err = |code, file: &str, line, message| Finding {
        severity: Severity::Error,
        code,
        file: file.to_string(),
        line,
        message,
    };
    let index_is_link = std::fs::symlink_metadata(&index_path).is_ok_and(|m| m.file_type().is_symlink());
    let text = if index_is_link {
        findings.push(err(
            "symlink",
            INDEX_FILE,
            None,
            "MEMORY.md is a symbolic link; autodream does not follow links".into(),
        ));
        None
    } else {
        match std::fs::read(&index_path) {
            Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(MemdirError::io(&index_path, e)),
        }
    };
    let mut linked = std::collections::BTreeSet::new();
    let mut entries = 0;
    let m = text.as_deref().map_or(Measure { lines: 0, units: 0 }, measure);
    if let Some(text) = &text {
        if m.lines > max_lines {
            findings.push(err(
                "over_lines",
                INDEX_FILE,
                None,
                format!(
                    "{} lines, over the limit of {max_lines}: the agent loads only the first {max_lines}",
                    m.lines
                ),
            ));
        }
        if m.units > max_units {
            findings.push(err(
                "over_units",
                INDEX_FILE,
                None,
                format!("{} UTF-16 units, over the limit of {max_units}: the rest is not loaded", m.units),
            ));
        }
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let chars = line.chars().count();
            if chars > LINE_MAX_CHARS {
                findings.push(err(
                    "long_line",
                    INDEX_FILE,
                    Some(n),
                    format!(
                        "{chars} characters (limit {LINE_MAX_CHARS}): move the detail into the topic file"
                    ),
                ));
            }
            if let IndexLine::Entry { hook, .. } = parse_line(line) {
                entries += 1;
                let hook_chars = hook.chars().count();
                if hook_chars >= HOOK_WARN_CHARS && chars <= LINE_MAX_CHARS {
                    findings.push(Finding {
                        severity: Severity::Warning,
                        code: "long_hook",
                        file: INDEX_FILE.into(),
                        line: Some(n),
                        message: format!("hook of {hook_chars} characters (keep it under {HOOK_WARN_CHARS})"),
                    });
                }
            }
            for target in link_targets(line) {
                match resolve_target(memory_dir, &target) {
                    Some(rel) => {
                        linked.insert(rel);
                    }
                    None => findings.push(Finding {
                        severity: Severity::Error,
                        code: "dangling",
                        file: INDEX_FILE.into(),
                        line: Some(n),
                        message: format!(
                            "points to {target}, which is not a file inside the memory directory"
                        ),
                    }),
                }
            }
        }
    } else if !index_is_link {
        findings.push(Finding {
            severity: Severity::Warning,
            code: "missing_index",
            file: INDEX_FILE.into(),
            line: None,
            message: "no MEMORY.md yet (run `autodream init`)".into(),
        });
    }

    let listing = list_topic_files(memory_dir)?;
    for link in &listing.symlinks {
        findings.push(Finding {
            severity: Severity::Warning,
            code: "symlink",
            file: link.clone(),
            line: None,
            message: "symbolic link in the memory directory: never read or written through".into(),
        });
    }
    for topic in &listing.topics {
        let path = memory_dir.join(topic);
        let bytes = std::fs::read(&path).map_err(|e| MemdirError::io(&path, e))?;
        let text = String::from_utf8_lossy(&bytes);
        for p in Topic::parse(&text).problems {
            findings.push(Finding {
                severity: Severity::Warning,
                code: "front_matter",
                file: topic.clone(),
                line: Some(p.line),
                message: p.message,
            });
        }
        if !linked.contains(topic) {
            findings.push(Finding {
                severity: Severity::Warning,
                code: "orphan",
                file: topic.clone(),
                line: None,
                message: "topic file not mentioned in MEMORY.md".into(),
            });
        }
    }
    Ok(CheckReport {
        index_exists: text.is_some(),
        lines: m.lines,
        units: m.units,
        max_lines,
        max_units,
        entries,
        topic_files: listing.topics.len(),
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entries_and_keeps_other_lines() {
        let text = "# Memory\n- [Testing](feedback_testing.md) — real db, no mocks\n* [Role](user_role.md): backend dev\nfree text\n- [Bare](bare.md)\n";
        let lines = parse(text);
        assert_eq!(
            lines[1],
            IndexLine::Entry {
                title: "Testing".into(),
                file: "feedback_testing.md".into(),
                hook: "real db, no mocks".into()
            }
        );
        assert_eq!(lines[2].render(), "- [Role](user_role.md) — backend dev");
        assert_eq!(lines[3], IndexLine::Other { text: "free text".into() });
        assert_eq!(lines[4].render(), "- [Bare](bare.md)");
        assert_eq!(render(&lines).lines().count(), 5);
    }

    #[test]
    fn measures_like_the_agent() {
        assert_eq!(measure("---\nname: x\n---\n\n<!-- hidden\n-->a\nb\n\n"), Measure { lines: 2, units: 3 });
        // An astral character is two UTF-16 units.
        assert_eq!(measure("😀"), Measure { lines: 1, units: 2 });
        assert_eq!(measure(""), Measure { lines: 0, units: 0 });
    }

    #[test]
    fn tokens_are_about_four_bytes_each() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(4), 1);
        assert_eq!(estimate_tokens(4001), 1001);
    }

    #[test]
    fn context_cost_is_what_the_client_loads() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("MEMORY.md"),
            "<!-- note -->\n- [a](a.md) — one\n- [b](b.md) — two\n\n",
        )
        .unwrap();
        let c = context_cost(tmp.path(), 200, 25_000).unwrap();
        assert_eq!(c.bytes, "- [a](a.md) — one\n- [b](b.md) — two".len());
        assert_eq!(c.lines, 2);
        assert!(!c.truncated);
        let long: String = (0..300).map(|i| format!("- line {i}\n")).collect();
        std::fs::write(tmp.path().join("MEMORY.md"), &long).unwrap();
        let c = context_cost(tmp.path(), 200, 25_000).unwrap();
        assert!(c.truncated);
        assert_eq!(c.lines, 200);
        assert_eq!(c.bytes, long.lines().take(200).collect::<Vec<_>>().join("\n").len());
        assert!(context_cost(&tmp.path().join("none"), 200, 25_000).is_none());
    }

    #[test]
    fn context_cost_cuts_at_the_last_newline_before_the_unit_limit() {
        let tmp = tempfile::tempdir().unwrap();
        // Ten units a line with its newline; the limit falls inside the third line.
        std::fs::write(tmp.path().join("MEMORY.md"), "- aaaaaaa\n- bbbbbbb\n- ccccccc\n").unwrap();
        let c = context_cost(tmp.path(), 200, 25).unwrap();
        assert_eq!((c.bytes, c.truncated), ("- aaaaaaa\n- bbbbbbb".len(), true));
        // An astral character is two units: it is not split at the limit.
        std::fs::write(tmp.path().join("MEMORY.md"), "😀😀😀").unwrap();
        assert_eq!(context_cost(tmp.path(), 200, 5).unwrap().bytes, "😀😀".len());
    }

    #[test]
    fn context_cost_strips_comments_as_measure_does() {
        let tmp = tempfile::tempdir().unwrap();
        // A comment that is never closed is not a comment to the agent: it is loaded.
        let raw = "- [a](a.md) — one\n<!-- open\n- [b](b.md) — two\n";
        std::fs::write(tmp.path().join("MEMORY.md"), raw).unwrap();
        let c = context_cost(tmp.path(), 200, 25_000).unwrap();
        assert_eq!((c.bytes, c.lines), (raw.trim().len(), measure(raw).lines));
    }

    #[test]
    fn link_targets_skip_urls_and_anchors() {
        assert_eq!(
            link_targets("[a](a.md) [b](https://x.y) [c](#top) [d](<d e.md>) [e](f%20g.md#x)"),
            ["a.md", "d e.md", "f g.md"]
        );
    }

    #[test]
    fn check_finds_every_kind_of_problem() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::write(d.join("a.md"), "---\ntype: nonsense\n---\n- x\n").unwrap();
        std::fs::write(d.join("orphan.md"), "- y\n").unwrap();
        let long_hook = "h".repeat(160);
        let long_line = format!("- [L](a.md) — {}", "z".repeat(220));
        std::fs::write(
            d.join(INDEX_FILE),
            format!("- [A](a.md) — {long_hook}\n- [Gone](gone.md) — missing\n- [Out](../outside.md) — escape\n{long_line}\n"),
        )
        .unwrap();
        std::fs::write(tmp.path().parent().unwrap().join("outside.md"), "x").ok();
        let r = check(d, 200, 25_000).unwrap();
        let codes: Vec<_> = r.findings.iter().map(|f| (f.code, f.line)).collect();
        assert!(codes.contains(&("long_hook", Some(1))), "{codes:?}");
        assert!(codes.contains(&("dangling", Some(2))));
        assert!(codes.contains(&("dangling", Some(3))));
        assert!(codes.contains(&("long_line", Some(4))));
        assert!(codes.contains(&("front_matter", Some(2))));
        assert!(codes.contains(&("orphan", None)));
        assert_eq!(r.errors(), 3);
        assert_eq!(r.entries, 4);
    }

    #[test]
    fn blank_lines_in_the_index_are_fine() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.md"), "- x\n").unwrap();
        std::fs::write(tmp.path().join(INDEX_FILE), "# Memory\n\n- [A](a.md) — a\n\n").unwrap();
        let r = check(tmp.path(), 200, 25_000).unwrap();
        assert_eq!((r.entries, r.errors()), (1, 0));
    }

    #[test]
    fn the_limit_is_counted_without_front_matter_and_comments_as_the_client_counts_it() {
        let tmp = tempfile::tempdir().unwrap();
        // 200 entry lines after a front matter and a comment block: over 200 raw lines, 200
        // as the client (2.1.211+) counts them.
        let mut text =
            String::from("---\nname: index\ndescription: the index\n---\n<!--\nnotes for people\n-->\n");
        text.extend((0..200).map(|i| format!("line {i}\n")));
        std::fs::write(tmp.path().join(INDEX_FILE), &text).unwrap();
        assert!(text.lines().count() > 200);
        let r = check(tmp.path(), 200, 25_000).unwrap();
        assert_eq!(r.lines, 200);
        assert!(r.findings.iter().all(|f| f.code != "over_lines"), "{:?}", r.findings);
        let units: usize = (0..200).map(|i| format!("line {i}\n").len()).sum::<usize>() - 1;
        assert_eq!(r.units, units);
        // One more line is over.
        std::fs::write(tmp.path().join(INDEX_FILE), text + "line 200\n").unwrap();
        let r = check(tmp.path(), 200, 25_000).unwrap();
        assert_eq!(r.findings.iter().filter(|f| f.code == "over_lines").count(), 1);
    }

    #[test]
    fn check_counts_the_limits() {
        let tmp = tempfile::tempdir().unwrap();
        let text: String = (0..201).map(|i| format!("line {i}\n")).collect();
        std::fs::write(tmp.path().join(INDEX_FILE), text).unwrap();
        let r = check(tmp.path(), 200, 25_000).unwrap();
        assert_eq!(r.lines, 201);
        assert_eq!(r.findings.iter().filter(|f| f.code == "over_lines").count(), 1);
        let r = check(tmp.path(), 300, 1_000).unwrap();
        assert_eq!(r.findings.iter().filter(|f| f.code == "over_units").count(), 1);
    }
}
