//! Reading the client's `--output-format stream-json` output: one JSON object per line.
//!
//! What the client (2.1.x) prints in print mode with `--verbose`:
//! - `{"type":"system","subtype":"init", "tools":[…], "model":…}` once;
//! - `{"type":"assistant","message":{"id", "content":[text | tool_use…], "usage":{…}}}` per
//!   assistant message (a message with several blocks may come as several lines with the same
//!   `id` and the same `usage`);
//! - `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id","is_error"?…}]}}`
//!   with the results of the tools;
//! - `{"type":"result","subtype":"success"|"error_…","is_error","num_turns","result",
//!   "total_cost_usd","usage":{…},"permission_denials":[…]}` last.
//!
//! [`StreamState`] folds these into progress: turns, tool uses, the memory files written
//! (a Write or Edit whose result was not an error), denials, and token usage. Lines that are
//! not JSON or of another type are ignored: the client's output may grow new events.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use autodream_core::engine::TokenUsage;
use serde_json::Value;

/// Tools that write a file, and the input field naming it.
const WRITE_TOOLS: &[(&str, &str)] = &[
    ("Write", "file_path"),
    ("Edit", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// One thing worth telling the task about.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// An assistant message: its text and how many tools it called.
    Turn { text: String, tool_uses: u32 },
    /// A write tool succeeded on this path (relative to the staging copy).
    Touched(PathBuf),
    /// A tool call was refused (by the client's permissions, or by the sandbox).
    Denied(String),
    /// Token usage so far (cumulative).
    Tokens(TokenUsage),
}

/// The client's final `result` event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResultEvent {
    pub subtype: String,
    pub is_error: bool,
    pub text: String,
    pub num_turns: u64,
    pub total_cost_usd: Option<f64>,
    pub usage: Option<TokenUsage>,
    pub permission_denials: usize,
}

/// The running fold of the stream.
#[derive(Debug, Default)]
pub struct StreamState {
    /// The staging copy (the client's cwd): absolute paths below it are made relative.
    staging: PathBuf,
    /// Write-tool calls waiting for their result: id → path relative to staging (`None`
    /// when the path is outside staging).
    pending: HashMap<String, (String, Option<PathBuf>)>,
    seen_messages: HashSet<String>,
    pub usage: TokenUsage,
    pub tool_uses: u64,
    pub turns: u64,
    pub touched: BTreeSet<PathBuf>,
    pub denials: usize,
    pub last_text: String,
    pub result: Option<ResultEvent>,
    pub model: Option<String>,
}

impl StreamState {
    pub fn new(staging: &Path) -> StreamState {
        StreamState { staging: staging.to_path_buf(), ..StreamState::default() }
    }

    /// Folds one line of output; returns the events it produced.
    pub fn line(&mut self, line: &str) -> Vec<Event> {
        let Ok(value) = serde_json::from_str::<Value>(line.trim()) else { return vec![] };
        match value["type"].as_str() {
            Some("system") if value["subtype"] == "init" => {
                self.model = value["model"].as_str().map(str::to_string);
                vec![]
            }
            Some("assistant") => self.assistant(&value["message"]),
            Some("user") => self.user(&value["message"]),
            Some("result") => self.result(&value),
            _ => vec![],
        }
    }

    fn assistant(&mut self, message: &Value) -> Vec<Event> {
        let mut events = Vec::new();
        let mut text = Vec::new();
        let mut tool_uses = 0u32;
        for block in message["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("text") => {
                    if let Some(t) = block["text"].as_str().filter(|t| !t.trim().is_empty()) {
                        text.push(t.trim().to_string());
                    }
                }
                Some("tool_use") => {
                    tool_uses += 1;
                    let name = block["name"].as_str().unwrap_or_default();
                    if let Some((_, field)) = WRITE_TOOLS.iter().find(|(n, _)| *n == name)
                        && let (Some(id), Some(path)) = (block["id"].as_str(), block["input"][field].as_str())
                    {
                        self.pending
                            .insert(id.to_string(), (path.to_string(), relative_to(&self.staging, path)));
                    }
                }
                _ => {}
            }
        }
        // A message split over several lines repeats its usage: count it once.
        let id = message["id"].as_str().unwrap_or_default().to_string();
        if (id.is_empty() || self.seen_messages.insert(id))
            && let Some(usage) = usage_of(&message["usage"])
        {
            self.usage.add(usage);
            events.push(Event::Tokens(self.usage));
        }
        if text.is_empty() && tool_uses == 0 {
            return events;
        }
        self.turns += 1;
        self.tool_uses += u64::from(tool_uses);
        let text = text.join("\n");
        if !text.is_empty() {
            self.last_text = text.clone();
        }
        events.insert(0, Event::Turn { text, tool_uses });
        events
    }

    fn user(&mut self, message: &Value) -> Vec<Event> {
        let mut events = Vec::new();
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] != "tool_result" {
                continue;
            }
            let Some((path, rel)) = block["tool_use_id"].as_str().and_then(|id| self.pending.remove(id))
            else {
                continue;
            };
            if block["is_error"].as_bool() == Some(true) {
                self.denials += 1;
                let why = result_text(&block["content"]);
                events.push(Event::Denied(format!("write to {path} refused: {}", first_line(&why))));
            } else if let Some(rel) = rel {
                self.touched.insert(rel.clone());
                events.push(Event::Touched(rel));
            }
        }
        events
    }

    fn result(&mut self, value: &Value) -> Vec<Event> {
        let usage = usage_of(&value["usage"]);
        let result = ResultEvent {
            subtype: value["subtype"].as_str().unwrap_or_default().to_string(),
            is_error: value["is_error"].as_bool().unwrap_or(false),
            text: value["result"].as_str().unwrap_or_default().to_string(),
            num_turns: value["num_turns"].as_u64().unwrap_or(0),
            total_cost_usd: value["total_cost_usd"].as_f64().filter(|c| c.is_finite() && *c >= 0.0),
            usage,
            permission_denials: value["permission_denials"].as_array().map_or(0, Vec::len),
        };
        self.result = Some(result);
        match usage {
            // The client's own total is the authority once it arrives.
            Some(u) => {
                self.usage = u;
                vec![Event::Tokens(u)]
            }
            None => vec![],
        }
    }
}

fn usage_of(v: &Value) -> Option<TokenUsage> {
    if !v.is_object() {
        return None;
    }
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    Some(TokenUsage {
        input: n("input_tokens"),
        output: n("output_tokens"),
        cache_read: n("cache_read_input_tokens"),
        cache_write: n("cache_creation_input_tokens"),
    })
}

fn result_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(" "),
        _ => String::new(),
    }
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or_default().trim();
    crate::shared::cap_chars(line.to_string(), 200, "cut")
}

/// `path` as the client resolves it (relative paths start at its cwd, the staging copy), made
/// relative to staging; `None` when it lies outside.
fn relative_to(staging: &Path, path: &str) -> Option<PathBuf> {
    let p = Path::new(path);
    let rel = if p.is_absolute() { p.strip_prefix(staging).ok()?.to_path_buf() } else { p.to_path_buf() };
    let mut out = PathBuf::new();
    for c in rel.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assistant(id: &str, content: Value, usage: [u64; 4]) -> String {
        json!({"type": "assistant", "message": {"id": id, "content": content, "usage": {
            "input_tokens": usage[0], "output_tokens": usage[1],
            "cache_read_input_tokens": usage[2], "cache_creation_input_tokens": usage[3]}}})
        .to_string()
    }

    fn tool_result(id: &str, is_error: bool, text: &str) -> String {
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": text}]}})
        .to_string()
    }

    #[test]
    fn writes_that_succeed_are_touched_and_refused_ones_are_denials() {
        let staging = Path::new("/s/work");
        let mut st = StreamState::new(staging);
        let ev = st.line(&assistant(
            "m1",
            json!([{"type": "text", "text": "Writing."},
                   {"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "topic.md"}},
                   {"type": "tool_use", "id": "t2", "name": "Edit", "input": {"file_path": "/s/work/MEMORY.md"}},
                   {"type": "tool_use", "id": "t3", "name": "Write", "input": {"file_path": "/etc/x"}},
                   {"type": "tool_use", "id": "t4", "name": "Read", "input": {"file_path": "/etc/hosts"}}]),
            [10, 5, 100, 0],
        ));
        assert_eq!(ev[0], Event::Turn { text: "Writing.".into(), tool_uses: 4 });
        assert_eq!(
            ev[1],
            Event::Tokens(TokenUsage { input: 10, output: 5, cache_read: 100, cache_write: 0 })
        );
        // The same message again (another block of it): usage is not counted twice.
        st.line(&assistant("m1", json!([]), [10, 5, 100, 0]));
        assert_eq!(st.usage.input, 10);
        assert_eq!(st.line(&tool_result("t1", false, "File created")), [Event::Touched("topic.md".into())]);
        assert_eq!(st.line(&tool_result("t2", false, "ok")), [Event::Touched("MEMORY.md".into())]);
        let denied = st.line(&tool_result("t3", true, "Claude requested permissions to write to /etc/x"));
        assert!(matches!(&denied[..], [Event::Denied(d)] if d.contains("/etc/x")), "{denied:?}");
        assert!(st.line(&tool_result("t4", false, "127.0.0.1 localhost")).is_empty());
        assert_eq!(st.touched.iter().collect::<Vec<_>>(), [Path::new("MEMORY.md"), Path::new("topic.md")]);
        assert_eq!((st.turns, st.tool_uses, st.denials), (1, 4, 1));
    }

    #[test]
    fn the_result_event_gives_cost_and_final_usage() {
        let mut st = StreamState::new(Path::new("/s"));
        st.line("not json at all");
        st.line(r#"{"type":"system","subtype":"init","model":"claude-x"}"#);
        st.line(&assistant("m1", json!([{"type": "text", "text": "Done."}]), [1, 1, 0, 0]));
        let ev = st.line(
            &json!({"type": "result", "subtype": "success", "is_error": false, "num_turns": 3,
                "result": "Added one topic.", "total_cost_usd": 0.0123,
                "usage": {"input_tokens": 700, "output_tokens": 40, "cache_read_input_tokens": 9,
                          "cache_creation_input_tokens": 3},
                "permission_denials": [{"tool_name": "Write"}]})
            .to_string(),
        );
        let usage = TokenUsage { input: 700, output: 40, cache_read: 9, cache_write: 3 };
        assert_eq!(ev, [Event::Tokens(usage)]);
        let r = st.result.clone().unwrap();
        assert_eq!(
            (r.text.as_str(), r.num_turns, r.total_cost_usd, r.permission_denials),
            ("Added one topic.", 3, Some(0.0123), 1)
        );
        assert_eq!(st.model.as_deref(), Some("claude-x"));
        assert_eq!(st.last_text, "Done.");
    }

    #[test]
    fn paths_that_leave_staging_are_not_memory_files() {
        let s = Path::new("/s/work");
        assert_eq!(relative_to(s, "./a/b.md"), Some(PathBuf::from("a/b.md")));
        assert_eq!(relative_to(s, "/s/work/x.md"), Some(PathBuf::from("x.md")));
        assert_eq!(relative_to(s, "../x.md"), None);
        assert_eq!(relative_to(s, "/s/other.md"), None);
    }
}
