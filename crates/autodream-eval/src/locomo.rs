//! LoCoMo conversations: reading the benchmark's JSON, rendering a conversation the way the
//! reference scorer measures it, and writing it out as one transcript file per session
//! (the generic format, `{"timestamp","role","name","content","id"}` per line) with each
//! file's mtime set to its session's date — exactly what `shared/tools/locomo_to_sessions.py`
//! writes, so "sessions touched since T" follows the conversation's own chronology.
//!
//! The data is licensed for non-commercial use: it is read at run time from a path the user
//! gives, never bundled.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use jiff::Timestamp;
use jiff::civil::DateTime;
use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use super::EvalError;

/// One dialogue turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocomoTurn {
    pub speaker: String,
    pub dia_id: String,
    pub text: String,
    pub blip_caption: Option<String>,
}

/// One session of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocomoSession {
    pub n: u32,
    /// `session_<n>_date_time`, as written ("1:56 pm on 8 May, 2023").
    pub date_time: String,
    pub turns: Vec<LocomoTurn>,
}

/// One question about a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Qa {
    pub question: String,
    /// The gold answer as text (numbers rendered like Python's `str`).
    pub answer: String,
    pub category: u32,
}

/// A LoCoMo conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub sample_id: String,
    pub speaker_a: String,
    pub speaker_b: String,
    /// Every `session_<n>` list, ascending by n (empty ones included, as the scorer renders them).
    pub sessions: Vec<LocomoSession>,
    pub qa: Vec<Qa>,
}

fn as_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

static SESSION_KEY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^session_(\d+)$").expect("valid regex"));

impl Sample {
    fn from_value(v: &Value) -> Result<Sample, String> {
        let obj = v.as_object().ok_or("a conversation is not a JSON object")?;
        let sample_id =
            obj.get("sample_id").and_then(Value::as_str).ok_or("a conversation has no sample_id")?;
        let conv = obj
            .get("conversation")
            .and_then(Value::as_object)
            .ok_or(format!("{sample_id}: no conversation"))?;
        let mut sessions = Vec::new();
        for (k, val) in conv {
            let Some(c) = SESSION_KEY.captures(k) else { continue };
            let Some(list) = val.as_array() else { continue };
            let n: u32 = c[1].parse().map_err(|_| format!("{sample_id}: bad session key {k}"))?;
            let turns = list
                .iter()
                .map(|t| LocomoTurn {
                    speaker: as_text(t.get("speaker")),
                    dia_id: as_text(t.get("dia_id")),
                    text: as_text(t.get("text")),
                    blip_caption: t
                        .get("blip_caption")
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                })
                .collect();
            let date_time = as_text(conv.get(&format!("session_{n}_date_time")));
            sessions.push(LocomoSession { n, date_time, turns });
        }
        sessions.sort_by_key(|s| s.n);
        let qa = obj
            .get("qa")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .map(|q| Qa {
                        question: as_text(q.get("question")),
                        answer: as_text(q.get("answer")),
                        category: q.get("category").and_then(Value::as_u64).unwrap_or(0) as u32,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Sample {
            sample_id: sample_id.to_string(),
            speaker_a: as_text(conv.get("speaker_a")),
            speaker_b: as_text(conv.get("speaker_b")),
            sessions,
            qa,
        })
    }

    /// The rendered transcript the scorer measures: `## Session N - <date_time>` headers and
    /// `Speaker: text [image: caption]` lines.
    pub fn render_raw(&self) -> String {
        let mut out = String::new();
        for s in &self.sessions {
            out.push_str(&format!("## Session {} - {}\n", s.n, s.date_time));
            for t in &s.turns {
                out.push_str(&t.speaker);
                out.push_str(": ");
                out.push_str(&t.text);
                if let Some(c) = &t.blip_caption {
                    out.push_str(" [image: ");
                    out.push_str(c);
                    out.push(']');
                }
                out.push('\n');
            }
        }
        if out.is_empty() {
            out.push('\n');
        }
        out
    }
}

/// Reads a LoCoMo JSON file (a list of conversations).
pub fn load(path: &Path) -> Result<Vec<Sample>, EvalError> {
    let bytes = std::fs::read(path).map_err(|e| EvalError::Io { path: path.to_path_buf(), source: e })?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| EvalError::Data(format!("{}: not JSON: {e}", path.display())))?;
    let list = value.as_array().ok_or_else(|| {
        EvalError::Data(format!("{}: expected a JSON list of conversations", path.display()))
    })?;
    // Name the conversation (1-based, as people count) along with the file.
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            Sample::from_value(v)
                .map_err(|e| EvalError::Data(format!("{}: conversation {}: {e}", path.display(), i + 1)))
        })
        .collect()
}

static DATE_TIME_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})\s*$")
        .expect("valid regex")
});

/// `"1:56 pm on 8 May, 2023"` → 2023-05-08T13:56:00Z (read as UTC).
pub fn parse_date_time(text: &str) -> Result<Timestamp, String> {
    let c = DATE_TIME_RE.captures(text).ok_or_else(|| format!("unrecognised session date_time {text:?}"))?;
    let month = c[5].to_lowercase();
    let names = autodream_offline::dates::MONTH_NAMES.map(str::to_ascii_lowercase);
    let mon = names
        .iter()
        .position(|m| *m == month)
        .or_else(|| (month.len() >= 3).then(|| names.iter().position(|m| m.starts_with(&month))).flatten())
        .ok_or_else(|| format!("unrecognised month in {text:?}"))?;
    let parse = |s: &str| s.parse::<i64>().map_err(|_| format!("bad number in {text:?}"));
    let hour = parse(&c[1])? % 12 + if c[3].eq_ignore_ascii_case("p") { 12 } else { 0 };
    let dt = DateTime::new(
        parse(&c[6])? as i16,
        (mon + 1) as i8,
        parse(&c[4])? as i8,
        hour as i8,
        parse(&c[2])? as i8,
        0,
        0,
    )
    .map_err(|e| format!("{text:?}: {e}"))?;
    dt.to_zoned(jiff::tz::TimeZone::UTC).map(|z| z.timestamp()).map_err(|e| format!("{text:?}: {e}"))
}

/// A session written to disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionOnDisk {
    pub n: u32,
    pub path: PathBuf,
    /// The session's start (its file's mtime).
    pub start: Timestamp,
    pub turns: usize,
    /// Bytes of the transcript file.
    pub bytes: u64,
}

fn rfc3339(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// Writes `<out>/<sample_id>/sessions/<sample_id>-session-<n>.jsonl` for every non-empty
/// session and `<out>/<sample_id>/manifest.json`; returns the sessions in order.
pub fn write_sessions(sample: &Sample, out: &Path) -> Result<Vec<SessionOnDisk>, EvalError> {
    let sid = &sample.sample_id;
    let dir = out.join(sid).join("sessions");
    std::fs::create_dir_all(&dir).map_err(|e| EvalError::Io { path: dir.clone(), source: e })?;
    let mut written = Vec::new();
    for s in sample.sessions.iter().filter(|s| !s.turns.is_empty()) {
        let start = parse_date_time(&s.date_time).map_err(|e| EvalError::Data(format!("{sid}: {e}")))?;
        let mut text = String::new();
        for (k, t) in s.turns.iter().enumerate() {
            let at = start.checked_add(jiff::SignedDuration::from_secs(k as i64)).unwrap_or(start);
            let mut content = t.text.clone();
            if let Some(c) = &t.blip_caption {
                content.push_str(&format!(" [shares a photo: {c}]"));
            }
            text.push_str(&format!(
                "{{\"timestamp\":{},\"role\":\"user\",\"name\":{},\"content\":{},\"id\":{}}}\n",
                json_str(&rfc3339(at)),
                json_str(&t.speaker),
                json_str(&content),
                json_str(&t.dia_id)
            ));
        }
        let path = dir.join(format!("{sid}-session-{}.jsonl", s.n));
        std::fs::write(&path, &text).map_err(|e| EvalError::Io { path: path.clone(), source: e })?;
        let ft = filetime::FileTime::from_unix_time(start.as_second(), 0);
        filetime::set_file_times(&path, ft, ft)
            .map_err(|e| EvalError::Io { path: path.clone(), source: e })?;
        written.push(SessionOnDisk { n: s.n, path, start, turns: s.turns.len(), bytes: text.len() as u64 });
    }
    for pair in written.windows(2) {
        if pair[1].start <= pair[0].start {
            return Err(EvalError::Data(format!(
                "{sid}: session {} does not start after session {}",
                pair[1].n, pair[0].n
            )));
        }
    }
    let manifest = serde_json::json!({
        "sample_id": sid,
        "speakers": [sample.speaker_a, sample.speaker_b],
        "format": "generic transcript JSONL: {timestamp, role, name, content, id} per line",
        "sessions_count": written.len(),
        "turns_count": written.iter().map(|s| s.turns).sum::<usize>(),
        "sessions": written.iter().map(|s| serde_json::json!({
            "n": s.n,
            "file": format!("sessions/{}", s.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()),
            "timestamp": rfc3339(s.start),
            "mtime": s.start.as_second(),
            "turns": s.turns,
        })).collect::<Vec<_>>(),
    });
    let path = out.join(sid).join("manifest.json");
    let mut body = serde_json::to_string_pretty(&manifest).map_err(|e| EvalError::Data(e.to_string()))?;
    body.push('\n');
    std::fs::write(&path, body).map_err(|e| EvalError::Io { path, source: e })?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Sample {
        let v: Value = serde_json::from_str(
            r#"{"sample_id":"t-1","conversation":{"speaker_a":"Ana","speaker_b":"Ben",
            "session_2_date_time":"9:05 am on 9 June, 2023",
            "session_2":[{"speaker":"Ben","dia_id":"D2:1","text":"Back from \"Oslo\"!"}],
            "session_1_date_time":"12:30 pm on 8 May, 2023",
            "session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"I adopted a puppy.","blip_caption":"a photo of a dog"},
                         {"speaker":"Ben","dia_id":"D1:2","text":"Nice"}],
            "session_3_date_time":"1:00 pm on 10 June, 2023"},
            "qa":[{"question":"When?","answer":2022,"category":2},{"question":"Q","adversarial_answer":"x","category":5}]}"#,
        )
        .unwrap();
        Sample::from_value(&v).unwrap()
    }

    #[test]
    fn a_bad_conversation_is_named_by_file_and_position() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("data.json");
        std::fs::write(&path, r#"[{"sample_id":"a","conversation":{},"qa":[]},{"conversation":{}}]"#)
            .unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(err.contains("data.json: conversation 2: a conversation has no sample_id"), "{err}");
    }

    #[test]
    fn parses_sessions_in_order_and_answers_as_text() {
        let s = sample();
        assert_eq!(s.sessions.iter().map(|x| x.n).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(s.qa[0].answer, "2022");
        assert_eq!(s.qa[1].answer, "");
        assert_eq!(
            s.render_raw(),
            "## Session 1 - 12:30 pm on 8 May, 2023\nAna: I adopted a puppy. [image: a photo of a dog]\nBen: Nice\n## Session 2 - 9:05 am on 9 June, 2023\nBen: Back from \"Oslo\"!\n"
        );
    }

    #[test]
    fn date_times_read_as_utc_with_twelve_hour_clock() {
        assert_eq!(parse_date_time("1:56 pm on 8 May, 2023").unwrap().to_string(), "2023-05-08T13:56:00Z");
        assert_eq!(
            parse_date_time("12:06 am on 11 November, 2022").unwrap().to_string(),
            "2022-11-11T00:06:00Z"
        );
        assert_eq!(parse_date_time("12:30 pm on 8 Sept, 2023").unwrap().to_string(), "2023-09-08T12:30:00Z");
        assert!(parse_date_time("noon on a Tuesday").is_err());
    }

    #[test]
    fn sessions_are_written_as_generic_jsonl_with_mtimes() {
        let tmp = tempfile::tempdir().unwrap();
        let written = write_sessions(&sample(), tmp.path()).unwrap();
        assert_eq!(written.len(), 2);
        let text = std::fs::read_to_string(&written[0].path).unwrap();
        assert_eq!(
            text,
            "{\"timestamp\":\"2023-05-08T12:30:00Z\",\"role\":\"user\",\"name\":\"Ana\",\"content\":\"I adopted a puppy. [shares a photo: a photo of a dog]\",\"id\":\"D1:1\"}\n{\"timestamp\":\"2023-05-08T12:30:01Z\",\"role\":\"user\",\"name\":\"Ben\",\"content\":\"Nice\",\"id\":\"D1:2\"}\n"
        );
        let mtime = std::fs::metadata(&written[1].path).unwrap().modified().unwrap();
        let secs = mtime.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        assert_eq!(secs, parse_date_time("9:05 am on 9 June, 2023").unwrap().as_second());
        assert!(tmp.path().join("t-1/manifest.json").is_file());
    }
}
