//! Grep: a regular-expression search over files, with ripgrep's searcher.
//!
//! Transcript lines are long JSON; a matching line is shown as an excerpt around the match,
//! and the number of lines (and the total output) is capped so a broad pattern cannot flood
//! the model's context. Files are opened through the sandbox, never by a path that could
//! have been swapped for a link.

use std::io;

use globset::{Glob, GlobMatcher};
use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use serde::Deserialize;

use super::walk::{walk_files, walk_note};
use super::{ToolBox, ToolOutcome, cap_output, excerpt_around, parse_input};
use crate::sandbox::{Access, AccessError};

const DEFAULT_HEAD_LIMIT: usize = 50;
const MAX_HEAD_LIMIT: usize = 500;
/// Characters of a matching line shown around the match.
const EXCERPT_CHARS: usize = 400;

#[derive(Deserialize)]
struct Input {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    glob: Option<String>,
    #[serde(default)]
    case_insensitive: bool,
    #[serde(default)]
    context: Option<usize>,
    #[serde(default)]
    output_mode: Option<String>,
    #[serde(default)]
    head_limit: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Content,
    Files,
    Count,
}

pub(super) fn run(tools: &ToolBox, input: &serde_json::Value) -> ToolOutcome {
    let input: Input =
        match parse_input("Grep", input, "{\"pattern\": string, \"path\"?: string, \"glob\"?: string}") {
            Ok(i) => i,
            Err(outcome) => return outcome,
        };
    let mode = match input.output_mode.as_deref() {
        None | Some("content") => Mode::Content,
        Some("files_with_matches") => Mode::Files,
        Some("count") => Mode::Count,
        Some(other) => {
            return ToolOutcome::error(format!(
                "unknown output_mode {other:?}; use content, files_with_matches or count"
            ));
        }
    };
    let matcher = match RegexMatcherBuilder::new()
        .case_insensitive(input.case_insensitive)
        .line_terminator(Some(b'\n'))
        .build(&input.pattern)
    {
        Ok(m) => m,
        Err(e) => return ToolOutcome::error(format!("invalid regular expression: {e}")),
    };
    let filter = match input.glob.as_deref().map(Glob::new).transpose() {
        Ok(g) => g.map(|g| g.compile_matcher()),
        Err(e) => return ToolOutcome::error(format!("invalid glob: {e}")),
    };
    let default_path = tools.sandbox.memory_root().display.to_string_lossy().into_owned();
    let base = match tools.sandbox.resolve(input.path.as_deref().unwrap_or(&default_path), Access::Read) {
        Ok(r) => r,
        Err(e) => return ToolOutcome::from_access(e),
    };
    let head_limit = input.head_limit.unwrap_or(DEFAULT_HEAD_LIMIT).clamp(1, MAX_HEAD_LIMIT);
    let context = input.context.unwrap_or(0).min(5);
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .before_context(if mode == Mode::Content { context } else { 0 })
        .after_context(if mode == Mode::Content { context } else { 0 })
        .binary_detection(BinaryDetection::quit(0))
        .build();

    let mut out = String::new();
    let mut reported = 0usize;
    let mut files_matched = 0usize;
    let mut truncated = false;
    let mut denial = None;
    let end = walk_files(tools, &base, |file, _meta| {
        if !passes(&filter, &base.backing, &file.backing) {
            return true;
        }
        let handle = match tools.sandbox.open_file(file) {
            Ok(h) => h,
            Err(AccessError::Denied(d)) => {
                denial = Some(d);
                return true;
            }
            Err(AccessError::Failed(_)) => return true,
        };
        let mut sink = Collector {
            matcher: &matcher,
            mode,
            display: file.display.display().to_string(),
            out: &mut out,
            remaining: head_limit - reported,
            matched: 0,
            started: false,
        };
        if searcher.search_file(&matcher, &handle, &mut sink).is_err() {
            return true;
        }
        let matched = sink.matched;
        if matched > 0 {
            files_matched += 1;
            match mode {
                Mode::Content => reported += matched,
                Mode::Files => {
                    out.push_str(&format!("{}\n", file.display.display()));
                    reported += 1;
                }
                Mode::Count => {
                    out.push_str(&format!("{}:{matched}\n", file.display.display()));
                    reported += 1;
                }
            }
        }
        if reported >= head_limit {
            truncated = true;
            return false;
        }
        true
    });
    if let Some(d) = &denial
        && out.is_empty()
    {
        return ToolOutcome::denied(d.clone());
    }
    if let Some(d) = &denial {
        out.push_str(&format!("[a file was skipped: {d}]\n"));
    }
    if out.is_empty() {
        out = "No matches.".into();
    } else if truncated {
        out.push_str(&format!(
            "[stopped at head_limit {head_limit}: {files_matched} file(s) so far; narrow the pattern or the path]\n"
        ));
    }
    if let Some(note) = walk_note(end) {
        out.push_str(note);
        out.push('\n');
    }
    let (content, redactions) = tools.present(&cap_output(out, "narrow the pattern or lower head_limit"));
    ToolOutcome { content, redactions, denied: denial.map(|d| d.0), ..ToolOutcome::default() }
}

/// Whether a file passes the `glob` filter (matched on its name, or its path below the base).
fn passes(filter: &Option<GlobMatcher>, base: &std::path::Path, file: &std::path::Path) -> bool {
    let Some(glob) = filter else { return true };
    let name_matches = file.file_name().is_some_and(|n| glob.is_match(n));
    name_matches || file.strip_prefix(base).is_ok_and(|rel| glob.is_match(rel))
}

/// Collects matching lines (and context) of one file.
struct Collector<'a> {
    matcher: &'a RegexMatcher,
    mode: Mode,
    display: String,
    out: &'a mut String,
    /// Matching lines still allowed before head_limit.
    remaining: usize,
    matched: usize,
    started: bool,
}

impl Collector<'_> {
    fn line_text(&self, bytes: &[u8], with_hit: bool) -> String {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let hit = if with_hit {
            self.matcher.find(text.as_bytes()).ok().flatten().map(|m| (m.start(), m.end()))
        } else {
            None
        };
        excerpt_around(text, hit, EXCERPT_CHARS)
    }
}

impl Sink for Collector<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, found: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.matched += 1;
        match self.mode {
            Mode::Files => return Ok(false),
            Mode::Count => return Ok(true),
            Mode::Content => {}
        }
        let line = self.line_text(found.bytes(), true);
        let number = found.line_number().unwrap_or(0);
        self.out.push_str(&format!("{}:{number}:{line}\n", self.display));
        self.started = true;
        Ok(self.matched < self.remaining)
    }

    fn context(&mut self, _searcher: &Searcher, context: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.mode == Mode::Content {
            let line = self.line_text(context.bytes(), false);
            let number = context.line_number().unwrap_or(0);
            self.out.push_str(&format!("{}-{number}-{line}\n", self.display));
        }
        Ok(true)
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, io::Error> {
        if self.mode == Mode::Content && self.started {
            self.out.push_str("--\n");
        }
        Ok(true)
    }
}
