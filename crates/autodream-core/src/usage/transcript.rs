//! What one of the client's transcripts says the agent read from the memory folder.
//!
//! | entry | counted as |
//! |---|---|
//! | a `Read` call whose `file_path` is in the memory folder | `read` of that file; `offset`/`limit` give its lines |
//! | a `Grep` call whose `path` is the memory folder or in it | `grep` of every file its result names (`filenames`, or in `content` mode each `path:line:`, with its line), once a call |
//! | a `Glob` call whose `path` is the memory folder or in it | `glob` of every file its result lists |
//! | a `nested_memory` attachment whose `path` is in the memory folder | `read` of that file |
//!
//! Only lines that name the memory folder are parsed at all. A call is counted once, however
//! often its entry is written again (by its `tool_use` id). Hidden files and anything but a
//! Markdown file are not memory and are not counted.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use jiff::Timestamp;
use serde_json::{Map, Value};

use super::Counts;

/// One transcript's reads, by memory file (relative to the memory folder).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct TranscriptUsage {
    pub files: BTreeMap<String, Counts>,
    /// The newest entry's time.
    pub last_at: Option<Timestamp>,
}

/// What a pending Grep or Glob call will count when its result comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    Grep,
    Glob,
}

/// The memory folder as transcripts name it: its path, and its resolved path when that differs.
pub struct MemoryPrefix {
    prefixes: Vec<String>,
}

impl MemoryPrefix {
    pub fn new(memory_dir: &Path) -> MemoryPrefix {
        let mut prefixes = vec![memory_dir.to_string_lossy().trim_end_matches('/').to_string()];
        if let Ok(c) = memory_dir.canonicalize() {
            let c = c.to_string_lossy().trim_end_matches('/').to_string();
            if !prefixes.contains(&c) {
                prefixes.push(c);
            }
        }
        MemoryPrefix { prefixes }
    }

    fn named_in(&self, line: &str) -> bool {
        self.prefixes.iter().any(|p| line.contains(p.as_str()))
    }

    /// `path` relative to the memory folder when it is a memory file in it.
    pub fn memory_file(&self, path: &str) -> Option<String> {
        let rel = self.relative(path)?;
        let memory = !rel.is_empty()
            && rel.to_ascii_lowercase().ends_with(".md")
            && rel.split('/').all(|c| !c.is_empty() && !c.starts_with('.') && c != "..");
        memory.then_some(rel)
    }

    /// Whether `path` is the memory folder or inside it.
    fn covers(&self, path: &str) -> bool {
        self.relative(path).is_some()
    }

    fn relative(&self, path: &str) -> Option<String> {
        let path = path.trim_end_matches('/');
        self.prefixes.iter().find_map(|p| {
            let rest = path.strip_prefix(p.as_str())?;
            if rest.is_empty() { Some(String::new()) } else { rest.strip_prefix('/').map(str::to_string) }
        })
    }
}

/// Counts what `text`, one transcript of the client, read from the memory folder.
pub fn count(text: &str, memory: &MemoryPrefix) -> TranscriptUsage {
    let mut out = TranscriptUsage::default();
    let mut pending: HashMap<String, Pending> = HashMap::new();
    let mut counted: HashSet<String> = HashSet::new();
    for line in text.lines() {
        if !memory.named_in(line) {
            continue;
        }
        let Ok(Value::Object(entry)) = serde_json::from_str::<Value>(line) else { continue };
        if let Some(t) = entry.get("timestamp").and_then(Value::as_str).and_then(|s| s.parse().ok()) {
            out.last_at = out.last_at.max(Some(t));
        }
        match entry.get("type").and_then(Value::as_str) {
            Some("assistant") => calls(&entry, memory, &mut pending, &mut counted, &mut out),
            Some("user") => results(&entry, memory, &mut pending, &mut out),
            Some("attachment") => {
                let a = entry.get("attachment").and_then(Value::as_object);
                if let Some(a) = a.filter(|a| a.get("type").and_then(Value::as_str) == Some("nested_memory"))
                    && let Some(rel) =
                        a.get("path").and_then(Value::as_str).and_then(|p| memory.memory_file(p))
                {
                    out.files.entry(rel).or_default().read += 1;
                }
            }
            _ => {}
        }
    }
    out
}

fn blocks(entry: &Map<String, Value>) -> &[Value] {
    entry.get("message").and_then(|m| m.get("content")).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The assistant's tool calls on the memory folder.
fn calls(
    entry: &Map<String, Value>,
    memory: &MemoryPrefix,
    pending: &mut HashMap<String, Pending>,
    counted: &mut HashSet<String>,
    out: &mut TranscriptUsage,
) {
    for b in blocks(entry) {
        if b.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let id = b.get("id").and_then(Value::as_str).unwrap_or_default().to_string();
        if !id.is_empty() && !counted.insert(id.clone()) {
            continue; // the same call written again
        }
        let input = b.get("input");
        let arg = |k: &str| input.and_then(|i| i.get(k));
        match b.get("name").and_then(Value::as_str) {
            Some("Read") => {
                let Some(rel) = arg("file_path").and_then(Value::as_str).and_then(|p| memory.memory_file(p))
                else {
                    continue;
                };
                let c = out.files.entry(rel).or_default();
                c.read += 1;
                let offset = arg("offset").and_then(Value::as_u64);
                let limit = arg("limit").and_then(Value::as_u64);
                if offset.is_some() || limit.is_some() {
                    let from = offset.unwrap_or(1).max(1);
                    // A limit the call does not give is the tool's own (2,000 lines): not shown.
                    if let Some(limit) = limit.filter(|l| *l > 0 && *l <= 2000) {
                        for n in from..from + limit {
                            *c.lines.entry(n as usize).or_default() += 1;
                        }
                    } else {
                        *c.lines.entry(from as usize).or_default() += 1;
                    }
                }
            }
            Some(name @ ("Grep" | "Glob"))
                if arg("path").and_then(Value::as_str).is_some_and(|p| memory.covers(p))
                    && !id.is_empty() =>
            {
                pending.insert(id, if name == "Grep" { Pending::Grep } else { Pending::Glob });
            }
            _ => {}
        }
    }
}

/// The results of pending Grep and Glob calls.
fn results(
    entry: &Map<String, Value>,
    memory: &MemoryPrefix,
    pending: &mut HashMap<String, Pending>,
    out: &mut TranscriptUsage,
) {
    let Some(result) = entry.get("toolUseResult").and_then(Value::as_object) else { return };
    for b in blocks(entry) {
        let Some(id) = b.get("tool_use_id").and_then(Value::as_str) else { continue };
        let Some(kind) = pending.remove(id) else { continue };
        // Each file a call names counts once for the call; each line it shows, once.
        let mut named: HashSet<String> = HashSet::new();
        let mut bump = |rel: String, line: Option<usize>| {
            let c = out.files.entry(rel.clone()).or_default();
            if named.insert(rel) {
                match kind {
                    Pending::Grep => c.grep += 1,
                    Pending::Glob => c.glob += 1,
                }
            }
            if let Some(n) = line {
                *c.lines.entry(n).or_default() += 1;
            }
        };
        let names = result.get("filenames").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for rel in names.iter().filter_map(Value::as_str).filter_map(|p| memory.memory_file(p)) {
            bump(rel, None);
        }
        if kind == Pending::Grep
            && result.get("mode").and_then(Value::as_str) == Some("content")
            && let Some(content) = result.get("content").and_then(Value::as_str)
        {
            for l in content.lines() {
                if let Some((rel, n)) = grep_hit(l, memory) {
                    bump(rel, n);
                }
            }
        }
    }
}

/// `path:line:text` (or `path:text` without line numbers) of Grep's content mode.
fn grep_hit(line: &str, memory: &MemoryPrefix) -> Option<(String, Option<usize>)> {
    // The path ends at the first `.md:`; a path holding `.md:` earlier is not a memory file.
    let at = line.find(".md:")? + 3;
    let rel = memory.memory_file(&line[..at])?;
    let rest = &line[at + 1..];
    let n = rest.split_once(':').and_then(|(n, _)| n.parse::<usize>().ok());
    Some((rel, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEM: &str = "/home/dev/.claude/projects/-home-dev-proj/memory";

    fn prefix() -> MemoryPrefix {
        MemoryPrefix { prefixes: vec![MEM.to_string()] }
    }

    fn tool_use(id: &str, name: &str, input: Value) -> String {
        serde_json::json!({"type": "assistant", "timestamp": "2026-05-08T10:00:00Z",
            "message": {"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}})
        .to_string()
    }

    fn tool_result(id: &str, result: Value) -> String {
        serde_json::json!({"type": "user", "timestamp": "2026-05-08T10:00:01Z",
            "message": {"content": [{"type": "tool_result", "tool_use_id": id, "content": "x"}]},
            "toolUseResult": result})
        .to_string()
    }

    #[test]
    fn memory_files_are_relative_markdown_outside_hidden_folders() {
        let p = prefix();
        assert_eq!(p.memory_file(&format!("{MEM}/deploy.md")).as_deref(), Some("deploy.md"));
        assert_eq!(
            p.memory_file(&format!("{MEM}/logs/2026/05/2026-05-08.md")).as_deref(),
            Some("logs/2026/05/2026-05-08.md")
        );
        for no in [
            MEM.to_string(),
            format!("{MEM}/notes.txt"),
            format!("{MEM}/.dream/x.md"),
            format!("{MEM}x/a.md"),
            "/etc/a.md".into(),
        ] {
            assert_eq!(p.memory_file(&no), None, "{no}");
        }
        assert!(p.covers(MEM) && p.covers(&format!("{MEM}/")) && !p.covers(&format!("{MEM}2")));
    }

    #[test]
    fn reads_greps_globs_and_nested_memory_are_counted_once_each() {
        let d = format!("{MEM}/deploy.md");
        let t = format!("{MEM}/testing.md");
        let lines = [
            tool_use("r1", "Read", serde_json::json!({"file_path": d})),
            tool_use("r1", "Read", serde_json::json!({"file_path": d})), // written again
            tool_use("r2", "Read", serde_json::json!({"file_path": d, "offset": 7, "limit": 2})),
            tool_use("r3", "Read", serde_json::json!({"file_path": "/home/dev/proj/src/main.rs"})),
            tool_use("g1", "Grep", serde_json::json!({"pattern": "nextest", "path": MEM})),
            tool_result(
                "g1",
                serde_json::json!({"mode": "files_with_matches", "filenames": [t], "numFiles": 1}),
            ),
            tool_use(
                "g2",
                "Grep",
                serde_json::json!({"pattern": "Tuesday", "path": MEM, "output_mode": "content", "-n": true}),
            ),
            tool_result(
                "g2",
                serde_json::json!({"mode": "content", "filenames": [], "content": format!("{d}:8:- deploys go out on Tuesdays\n{d}:12:- Tuesday again")}),
            ),
            tool_use("g3", "Grep", serde_json::json!({"pattern": "x", "path": "/home/dev/proj"})),
            tool_result("g3", serde_json::json!({"mode": "files_with_matches", "filenames": [d]})),
            tool_use("l1", "Glob", serde_json::json!({"pattern": "*.md", "path": MEM})),
            tool_result(
                "l1",
                serde_json::json!({"filenames": [d, t, format!("{MEM}/MEMORY.md")], "numFiles": 3}),
            ),
            serde_json::json!({"type": "attachment", "timestamp": "2026-05-08T11:00:00Z",
                "attachment": {"type": "nested_memory", "path": t, "content": {"path": t}}})
            .to_string(),
        ];
        let u = count(&lines.join("\n"), &prefix());
        let deploy = &u.files["deploy.md"];
        assert_eq!((deploy.read, deploy.grep, deploy.glob), (2, 1, 1));
        assert_eq!(deploy.lines, BTreeMap::from([(7, 1), (8, 2), (12, 1)]));
        let testing = &u.files["testing.md"];
        assert_eq!((testing.read, testing.grep, testing.glob), (1, 1, 1));
        assert_eq!(u.files["MEMORY.md"].glob, 1);
        assert_eq!(u.files.len(), 3, "{:?}", u.files);
        assert_eq!(u.last_at, Some("2026-05-08T11:00:00Z".parse().unwrap()));
    }
}
