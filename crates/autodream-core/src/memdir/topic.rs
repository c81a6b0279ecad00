//! Topic files: Markdown with an optional YAML front matter and bullet facts.
//!
//! ```text
//! ---
//! name: Testing preferences
//! description: how the user wants tests written and run
//! type: feedback
//! updated: 2026-05-08
//! ---
//! # Testing preferences
//! - 2026-05-07: run the integration tests against a real database, never mocks.
//! ```
//! A front matter that does not parse is reported with its file and line and otherwise
//! ignored: the file is still memory, never an error that stops anything.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The four kinds of memory the coding agent knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum MemoryType {
    User,
    Feedback,
    Project,
    Reference,
}

impl MemoryType {
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::User => "user",
            MemoryType::Feedback => "feedback",
            MemoryType::Project => "project",
            MemoryType::Reference => "reference",
        }
    }

    pub fn parse(s: &str) -> Option<MemoryType> {
        match s.trim().to_ascii_lowercase().as_str() {
            "user" => Some(MemoryType::User),
            "feedback" => Some(MemoryType::Feedback),
            "project" => Some(MemoryType::Project),
            "reference" => Some(MemoryType::Reference),
            _ => None,
        }
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The front matter fields autodream reads and writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontMatter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// The client's current form keeps the type under `metadata`; parsing folds it into
    /// `kind` and leaves this empty.
    #[serde(default, skip_serializing)]
    pub metadata: Option<Metadata>,
}

/// The `metadata` block of the client's current front matter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

impl FrontMatter {
    pub fn memory_type(&self) -> Option<MemoryType> {
        self.kind.as_deref().and_then(MemoryType::parse)
    }

    /// Renders `---\n…---\n` with the fields that are set, in a fixed order, the type
    /// under `metadata` as the agent's client writes it now.
    pub fn render(&self) -> String {
        let mut out = String::from("---\n");
        for (k, v) in [("name", &self.name), ("description", &self.description)] {
            if let Some(v) = v {
                out.push_str(&format!("{k}: {}\n", yaml_scalar(v)));
            }
        }
        if let Some(kind) = &self.kind {
            out.push_str(&format!("metadata:\n  type: {}\n", yaml_scalar(kind)));
        }
        if let Some(updated) = &self.updated {
            out.push_str(&format!("updated: {}\n", yaml_scalar(updated)));
        }
        out.push_str("---\n");
        out
    }
}

/// A one-line YAML scalar: plain when safe, double-quoted otherwise.
fn yaml_scalar(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    let plain_ok = !s.is_empty()
        && !s.starts_with([
            ' ', '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@',
            '`',
        ])
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with([' ', ':'])
        && !s.contains(needs_escape)
        && !matches!(s.to_ascii_lowercase().as_str(), "true" | "false" | "null" | "yes" | "no" | "~");
    if plain_ok {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A character YAML would trim, fold or refuse unescaped: controls, whitespace other than
/// the space (tabs, NEL, line and paragraph separators), the byte-order mark and the two
/// non-characters. All are in the Basic Multilingual Plane, so `\uXXXX` escapes them.
fn needs_escape(c: char) -> bool {
    c.is_control() || (c.is_whitespace() && c != ' ') || matches!(c, '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// A front matter problem, located in its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrontMatterProblem {
    /// 1-based line in the file.
    pub line: usize,
    pub message: String,
}

/// A parsed topic file.
#[derive(Debug, Clone, PartialEq)]
pub struct Topic<'a> {
    pub front: Option<FrontMatter>,
    pub problems: Vec<FrontMatterProblem>,
    /// Everything after the front matter.
    pub body: &'a str,
    /// 1-based line where the body starts.
    pub body_line: usize,
}

impl<'a> Topic<'a> {
    pub fn parse(text: &'a str) -> Topic<'a> {
        let Some((yaml, body, body_line)) = split_front_matter(text) else {
            return Topic { front: None, problems: vec![], body: text, body_line: 1 };
        };
        let mut problems = Vec::new();
        let front = if yaml.trim().is_empty() {
            Some(FrontMatter::default())
        } else {
            match serde_saphyr::from_str::<FrontMatter>(yaml) {
                // The older form has `type` at the top; the current one under `metadata`.
                Ok(mut f) => {
                    let nested = f.metadata.take().and_then(|m| m.kind);
                    if f.kind.is_none() {
                        f.kind = nested;
                    }
                    Some(f)
                }
                Err(e) => {
                    let line = e.location().map_or(2, |l| l.line() as usize + 1);
                    let first = e.to_string().lines().next().unwrap_or_default().to_string();
                    problems.push(FrontMatterProblem {
                        line,
                        message: format!("front matter is not valid YAML: {first}"),
                    });
                    None
                }
            }
        };
        if let Some(f) = &front {
            if let Some(k) = &f.kind
                && MemoryType::parse(k).is_none()
            {
                let line = line_of_key(yaml, "type").map_or(2, |l| l + 1);
                problems.push(FrontMatterProblem {
                    line,
                    message: format!("type {k:?} is not one of user, feedback, project, reference"),
                });
            }
            if let Some(u) = &f.updated
                && u.parse::<jiff::civil::Date>().is_err()
            {
                let line = line_of_key(yaml, "updated").map_or(2, |l| l + 1);
                problems.push(FrontMatterProblem {
                    line,
                    message: format!("updated {u:?} is not a date (YYYY-MM-DD)"),
                });
            }
        }
        Topic { front, problems, body, body_line }
    }

    /// The first Markdown heading of the body.
    pub fn heading(&self) -> Option<&'a str> {
        self.body.lines().find_map(|l| l.strip_prefix("# ").map(str::trim)).filter(|s| !s.is_empty())
    }

    /// The first non-heading, non-empty line of prose (for a hook when there is no description).
    pub fn first_sentence(&self) -> Option<String> {
        self.body
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| l.trim_start_matches(['-', '*', ' ']).to_string())
    }

    /// Bullet facts in the body (`- …` or `* …` at the start of a line).
    pub fn facts(&self) -> impl Iterator<Item = &'a str> {
        self.body.lines().filter_map(|l| {
            let t = l.trim_start();
            t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).map(str::trim).filter(|s| !s.is_empty())
        })
    }
}

/// `(yaml, body, body_line)` when the text starts with a `---` front matter block.
pub fn split_front_matter(text: &str) -> Option<(&str, &str, usize)> {
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        if line.trim_end() == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Some((yaml, body, i + 3));
        }
        offset += line.len();
    }
    None
}

fn line_of_key(yaml: &str, key: &str) -> Option<usize> {
    yaml.lines()
        .position(|l| l.trim_start().strip_prefix(key).is_some_and(|r| r.trim_start().starts_with(':')))
        .map(|i| i + 1)
}

/// Counts bullet facts in a file's text.
pub fn count_facts(text: &str) -> usize {
    Topic::parse(text).facts().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_front_matter_heading_and_facts() {
        let t = Topic::parse(
            "---\nname: Tests\ndescription: how to test\ntype: feedback\nupdated: 2026-05-08\n---\n# Testing\n- use real db\n* no mocks\ntext\n",
        );
        let f = t.front.as_ref().unwrap();
        assert_eq!(f.memory_type(), Some(MemoryType::Feedback));
        assert_eq!(f.name.as_deref(), Some("Tests"));
        assert_eq!(t.heading(), Some("Testing"));
        assert_eq!(t.facts().collect::<Vec<_>>(), ["use real db", "no mocks"]);
        assert_eq!(t.body_line, 7);
        assert!(t.problems.is_empty());
    }

    #[test]
    fn bad_front_matter_is_reported_with_a_line_and_is_not_fatal() {
        let t = Topic::parse("---\nname: ok\ntype: opinion\nupdated: someday\n---\n- fact\n");
        let lines: Vec<_> = t.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [3, 4]);
        assert_eq!(t.facts().count(), 1);
        let broken = Topic::parse("---\nname: [unclosed\n---\n- fact\n");
        assert!(broken.front.is_none());
        assert_eq!(broken.problems.len(), 1);
        assert!(broken.problems[0].message.contains("not valid YAML"));
        assert_eq!(broken.facts().count(), 1);
    }

    #[test]
    fn no_front_matter_is_fine() {
        let t = Topic::parse("# Title\n- a\n");
        assert!(t.front.is_none() && t.problems.is_empty());
        assert_eq!(t.heading(), Some("Title"));
    }

    #[test]
    fn rendered_front_matter_parses_back() {
        let f = FrontMatter {
            name: Some("Caroline: notes".into()),
            description: Some("what she said: #1".into()),
            kind: Some("user".into()),
            updated: Some("2026-05-08".into()),
            metadata: None,
        };
        let text = format!("{}# x\n", f.render());
        assert!(text.contains("\nmetadata:\n  type: user\n"), "{text}");
        assert_eq!(Topic::parse(&text).front.unwrap(), f);
    }

    #[test]
    fn the_older_top_level_type_is_still_read() {
        let old = "---\nname: a\ntype: feedback\n---\n- x\n";
        assert_eq!(Topic::parse(old).front.unwrap().memory_type(), Some(MemoryType::Feedback));
        let new = "---\nname: a\nmetadata:\n  type: reference\n---\n- x\n";
        assert_eq!(Topic::parse(new).front.unwrap().memory_type(), Some(MemoryType::Reference));
    }
}
