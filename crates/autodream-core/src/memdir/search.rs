//! Reading the memory from outside the engine (the MCP server, any agent): a ranked search
//! over the lines of the memory files, the list of memory files, and one memory file read by
//! name — never leaving the memory folder.
//!
//! **Search.** The query is split into words (Unicode letters and digits, case folded). Each
//! line of MEMORY.md, of every topic file and (optionally) of every daily log is scored by
//! the words it contains: a whole-word match counts 2, a word that only starts with a query
//! word (`deploy` in `deployment`) counts 1, and a line holding the whole query as a phrase
//! gets 1 more. Words of scripts written without spaces (Chinese, Japanese) match anywhere.
//! Lines and query are both folded with Unicode NFKC first, so a full-width `ＱＷＥＮ ＡＰＩ`
//! finds `Qwen API` (and half-width katakana their full-width forms). A word of one Chinese,
//! Japanese or Korean character (`部`, `認`, `배`) is too vague to search for: it is dropped,
//! and a query of nothing else finds nothing.
//! Lines that score nothing are left out; the rest come best first, then MEMORY.md before
//! topic files before logs (newest log first), then in file order.
//!
//! **Reading.** A path is relative to the memory folder (an absolute path inside it is
//! accepted too). `..`, a hidden component (engine state, temporary files), anything but a
//! `.md` file, and a symbolic link anywhere on the path are refused with the reason; every
//! file is opened through [`MemoryRoot`] without following links.

use std::path::{Component, Path, PathBuf};

use regex::Regex;
use serde::Serialize;
use unicode_normalization::UnicodeNormalization;

use super::topic::Topic;
use super::{INDEX_FILE, MemoryRoot, SafePathError, daily_log, list_topic_files};

/// The longest line text a search hit carries (longer lines are cut, with `…`).
pub const MAX_HIT_CHARS: usize = 400;

/// What to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// At most this many hits.
    pub limit: usize,
    /// Search the daily logs too (notes not yet consolidated by a dream).
    pub include_logs: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { limit: 20, include_logs: true }
    }
}

/// Which kind of memory file a line is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    Index,
    Topic,
    Log,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    /// The file, relative to the memory folder (`MEMORY.md`, `testing.md`,
    /// `logs/2026/05/2026-05-08.md`).
    pub file: String,
    /// 1-based line number in that file.
    pub line: usize,
    /// The line, trimmed (cut at [`MAX_HIT_CHARS`]).
    pub text: String,
    pub score: u32,
    /// The query words the line contains (whole or as a word's start), in query order.
    pub matched: Vec<String>,
    pub kind: FileKind,
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("the query has no words to search for")]
    EmptyQuery,
    #[error(transparent)]
    Path(#[from] SafePathError),
}

/// One query word and its two patterns.
struct Term {
    word: String,
    whole: Regex,
    prefix: Option<Regex>,
}

/// Letters of scripts written without spaces between words: a query word in them matches
/// anywhere in a line.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FFFF  // CJK Extensions B…
        | 0x0E00..=0x0E7F    // Thai
    )
}

/// A Chinese, Japanese or Korean letter (Hangul included): one of them alone is too vague a
/// query word.
fn cjk(c: char) -> bool {
    unspaced(c) && !matches!(c as u32, 0x0E00..=0x0E7F)
        || matches!(c as u32,
            0x1100..=0x11FF      // Hangul Jamo
            | 0x3130..=0x318F    // Hangul Compatibility Jamo
            | 0xAC00..=0xD7AF    // Hangul Syllables
            | 0xFF66..=0xFF9F    // Half-width Katakana (before NFKC)
        )
}

/// `text` folded with Unicode NFKC (full-width letters to ASCII, compatibility forms to
/// their plain ones); borrowed when it is ASCII already.
fn nfkc(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.nfkc().collect())
    }
}

/// The query's words: runs of letters, digits and `_` after NFKC folding, lower-cased, each
/// once, in order. A one-letter ASCII word is dropped when the query has longer ones; a
/// one-letter CJK word is always dropped (see [`search`]).
pub fn query_words(query: &str) -> Vec<String> {
    let query = nfkc(query);
    let mut words: Vec<String> = Vec::new();
    for w in query.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let w = w.to_lowercase();
        let mut chars = w.chars();
        let one_cjk = matches!((chars.next(), chars.next()), (Some(c), None) if cjk(c));
        if !w.is_empty() && !one_cjk && !words.contains(&w) {
            words.push(w);
        }
    }
    if words.iter().any(|w| w.chars().count() > 1) {
        words.retain(|w| w.chars().count() > 1 || !w.is_ascii());
    }
    words
}

fn terms(words: &[String]) -> Vec<Term> {
    words
        .iter()
        .map(|w| {
            let escaped = regex::escape(w);
            if w.chars().any(unspaced) {
                let whole = Regex::new(&format!("(?i){escaped}")).expect("an escaped word is a regex");
                Term { word: w.clone(), whole, prefix: None }
            } else {
                let whole = Regex::new(&format!(r"(?i)\b{escaped}\b")).expect("an escaped word is a regex");
                let prefix = Regex::new(&format!(r"(?i)\b{escaped}")).expect("an escaped word is a regex");
                Term { word: w.clone(), whole, prefix: Some(prefix) }
            }
        })
        .collect()
}

/// The query's words joined by single spaces, for the phrase bonus.
fn phrase(words: &[String]) -> Option<Regex> {
    (words.len() > 1).then(|| {
        let parts: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
        Regex::new(&format!(r"(?i){}", parts.join(r"[^\p{L}\p{N}_]+"))).expect("escaped words are a regex")
    })
}

/// Scores one line: (score, matched words).
fn score_line(line: &str, terms: &[Term], phrase: Option<&Regex>) -> (u32, Vec<String>) {
    let mut score = 0;
    let mut matched = Vec::new();
    for t in terms {
        if t.whole.is_match(line) {
            score += 2;
            matched.push(t.word.clone());
        } else if t.prefix.as_ref().is_some_and(|p| p.is_match(line)) {
            score += 1;
            matched.push(t.word.clone());
        }
    }
    if score > 0 && phrase.is_some_and(|p| p.is_match(line)) {
        score += 1;
    }
    (score, matched)
}

fn cut(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= MAX_HIT_CHARS {
        return line.to_string();
    }
    let mut s: String = line.chars().take(MAX_HIT_CHARS).collect();
    s.push('…');
    s
}

/// The files a search reads, in their tie-break order: MEMORY.md, the topic files, then
/// the daily logs newest first.
fn searched_files(memory_dir: &Path, include_logs: bool) -> Vec<(String, FileKind)> {
    let mut files = vec![(INDEX_FILE.to_string(), FileKind::Index)];
    if let Ok(listing) = list_topic_files(memory_dir) {
        files.extend(listing.topics.into_iter().map(|t| (t, FileKind::Topic)));
    }
    if include_logs {
        let mut logs = daily_log::log_files(memory_dir);
        logs.reverse();
        files.extend(logs.into_iter().map(|(_, rel)| (rel, FileKind::Log)));
    }
    files
}

/// Searches the memory for `query`; the best `opts.limit` lines, best first. A memory
/// folder that does not exist has nothing to find.
pub fn search(memory_dir: &Path, query: &str, opts: SearchOptions) -> Result<Vec<SearchHit>, SearchError> {
    let words = query_words(query);
    if words.is_empty() {
        // Only one-letter CJK words: a query, but too vague to match anything.
        if nfkc(query).chars().any(cjk) {
            return Ok(Vec::new());
        }
        return Err(SearchError::EmptyQuery);
    }
    let root = match MemoryRoot::open(memory_dir) {
        Ok(r) => r,
        Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let terms = terms(&words);
    let phrase = phrase(&words);
    // (hit, order of its file) so that ties keep the files' order.
    let mut hits: Vec<(SearchHit, usize)> = Vec::new();
    for (order, (rel, kind)) in searched_files(memory_dir, opts.include_logs).into_iter().enumerate() {
        // A file behind a link, or gone since it was listed, is not searched.
        let Ok(Some(bytes)) = root.read(&rel) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        for (i, line) in text.lines().enumerate() {
            let (score, matched) = score_line(&nfkc(line), &terms, phrase.as_ref());
            if score == 0 {
                continue;
            }
            let hit = SearchHit { file: rel.clone(), line: i + 1, text: cut(line), score, matched, kind };
            hits.push((hit, order));
        }
    }
    hits.sort_by(|(a, ao), (b, bo)| b.score.cmp(&a.score).then(ao.cmp(bo)).then(a.line.cmp(&b.line)));
    Ok(hits.into_iter().take(opts.limit).map(|(h, _)| h).collect())
}

/// A memory file, as listed for a reader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryFileInfo {
    /// Relative to the memory folder.
    pub file: String,
    pub kind: FileKind,
    /// The front matter's `name`, else the first heading.
    pub title: Option<String>,
    /// The front matter's `description`.
    pub description: Option<String>,
    pub size: u64,
}

/// MEMORY.md (when it exists) and every topic file, in that order. Links are not listed.
pub fn memory_files(memory_dir: &Path) -> Result<Vec<MemoryFileInfo>, SafePathError> {
    let root = match MemoryRoot::open(memory_dir) {
        Ok(r) => r,
        Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for (rel, kind) in searched_files(memory_dir, false) {
        let Ok(Some(bytes)) = root.read(&rel) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        let topic = Topic::parse(&text);
        let front = topic.front.as_ref();
        let title = front.and_then(|f| f.name.clone()).or_else(|| topic.heading().map(str::to_string));
        let description = front.and_then(|f| f.description.clone());
        out.push(MemoryFileInfo { file: rel, kind, title, description, size: bytes.len() as u64 });
    }
    Ok(out)
}

/// Why a memory file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The path is not one a reader may ask for.
    #[error("{path}: refused: {reason}")]
    Refused { path: String, reason: String },
    #[error("{path}: no such memory file")]
    NotFound { path: String },
    #[error("{path}: {source}")]
    Io { path: String, source: SafePathError },
}

/// A memory file's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryFile {
    /// Relative to the memory folder.
    pub file: String,
    pub text: String,
}

/// `path` as a plain relative path inside `memory_dir`: `./` parts dropped, an absolute path
/// inside the memory folder made relative, anything else refused.
pub fn memory_relative_path(memory_dir: &Path, path: &str) -> Result<String, ReadError> {
    let refused = |reason: &str| ReadError::Refused { path: path.to_string(), reason: reason.to_string() };
    let raw = Path::new(path.trim());
    if raw.as_os_str().is_empty() {
        return Err(refused("an empty path names no file"));
    }
    let rel: PathBuf = if raw.is_absolute() {
        // The folder as named, or as the file system resolves it (a linked memory folder).
        let canonical = memory_dir.canonicalize().ok();
        let inside = raw
            .strip_prefix(memory_dir)
            .ok()
            .or_else(|| canonical.as_deref().and_then(|c| raw.strip_prefix(c).ok()))
            .map(Path::to_path_buf);
        inside.ok_or_else(|| refused("an absolute path outside the memory folder"))?
    } else {
        raw.to_path_buf()
    };
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::CurDir => {}
            Component::Normal(p) => {
                let p = p.to_str().ok_or_else(|| refused("the path is not valid UTF-8"))?;
                if p.starts_with('.') {
                    return Err(refused("a hidden file or folder is not memory"));
                }
                parts.push(p);
            }
            Component::ParentDir => return Err(refused("`..` leads out of the memory folder")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(refused("an absolute path outside the memory folder"));
            }
        }
    }
    let rel = parts.join("/");
    if rel.is_empty() {
        return Err(refused("the path names the memory folder itself, not a file"));
    }
    if !rel.to_ascii_lowercase().ends_with(".md") {
        return Err(refused("only Markdown memory files (.md) can be read"));
    }
    Ok(rel)
}

/// Reads the memory file `path` (see the module docs for what is refused).
pub fn read_memory_file(memory_dir: &Path, path: &str) -> Result<MemoryFile, ReadError> {
    let rel = memory_relative_path(memory_dir, path)?;
    let root = MemoryRoot::open(memory_dir).map_err(|source| match source.io_kind() {
        Some(std::io::ErrorKind::NotFound) => ReadError::NotFound { path: rel.clone() },
        _ => ReadError::Io { path: rel.clone(), source },
    })?;
    match root.read(&rel) {
        Ok(Some(bytes)) => Ok(MemoryFile { file: rel, text: String::from_utf8_lossy(&bytes).into_owned() }),
        Ok(None) => Err(ReadError::NotFound { path: rel }),
        Err(SafePathError::Symlink { component, .. }) => Err(ReadError::Refused {
            path: rel,
            reason: format!(
                "{} is a symbolic link, and reads stay inside the memory folder",
                component.display()
            ),
        }),
        Err(source) => Err(ReadError::Io { path: rel, source }),
    }
}

#[cfg(test)]
mod recall_eval;
#[cfg(test)]
mod tests;
