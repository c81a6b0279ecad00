//! Fuzz targets that run on stable Rust: property tests over arbitrary bytes, over mutations
//! of real samples, and over structure-aware generators, for every input autodream reads
//! from outside: transcripts of each format, the config file, the remote flags file,
//! MEMORY.md, topic front matter and the hook's stdin JSON.
//!
//! Each target replays its seed corpus (`fuzz/corpus/<target>/` at the repository root)
//! and then runs generated cases. Every case asserts that nothing panics and that a real
//! property holds (a malformed transcript line is skipped and counted; the index renders
//! back to what it parsed; a bad config value is reported under its own field name and
//! only that field falls back; …).
//!
//! `cargo test` runs 256 cases a target. To fuzz for longer:
//!
//! ```sh
//! AUTODREAM_FUZZ_CASES=1000000 cargo test --release -p autodream-core --test fuzz -- --nocapture <target>
//! ```
//!
//! `AUTODREAM_FUZZ_SEED` (a number) replays a run; the seed of every run is printed with its
//! figures and with any failure (which proptest shrinks to a minimal input first).
//! The figures of the long runs are in `docs/reliability.md`.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use autodream_core::config::{self, Config, LoadOptions, LoadedConfig};
use autodream_core::hook::HookInput;
use autodream_core::memdir::index::{self, IndexLine};
use autodream_core::memdir::topic::{FrontMatter, Topic, split_front_matter};
use autodream_core::sessions::{SessionFile, SessionFormat, TurnKind, parse_session};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::Value;

// ---------------------------------------------------------------------------------------
// The harness: corpus replay, case count, seed, figures.

/// Generated cases per target: `AUTODREAM_FUZZ_CASES`, else 256.
fn cases() -> u32 {
    std::env::var("AUTODREAM_FUZZ_CASES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(256)
}

/// The seed of this run: `AUTODREAM_FUZZ_SEED`, else a fresh one.
fn seed() -> u64 {
    if let Some(s) = std::env::var("AUTODREAM_FUZZ_SEED").ok().and_then(|v| v.trim().parse().ok()) {
        return s;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    nanos ^ (u64::from(std::process::id()) << 32)
}

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target)
}

/// The seed inputs of a target, sorted by file name.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = corpus_dir(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus folder {}: {e}", dir.display()))
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let bytes = std::fs::read(e.path()).expect("corpus file");
            (name, bytes)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the corpus of {target} is empty");
    files
}

/// Replays the corpus of `target` through `check`, then runs the generated cases, and prints
/// the figures: `fuzz <target>: <n> executions, <time>, seed <s>`.
fn fuzz<S: Strategy>(target: &str, strategy: S, check: impl Fn(&[u8]) -> Result<(), TestCaseError>)
where
    S::Value: AsRef<[u8]>,
{
    let started = Instant::now();
    let seeds = corpus(target);
    for (name, bytes) in &seeds {
        if let Err(e) = check(bytes) {
            panic!("fuzz {target}: corpus file {name} fails: {e}");
        }
    }
    let seed = seed();
    let mut rng_seed = [0u8; 32];
    for (i, chunk) in rng_seed.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes());
    }
    let config = RunnerConfig {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..RunnerConfig::default()
    };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &rng_seed));
    let executions = Cell::new(0u64);
    let result = runner.run(&strategy, |input| {
        executions.set(executions.get() + 1);
        check(input.as_ref())
    });
    if let Err(e) = result {
        panic!("fuzz {target} (AUTODREAM_FUZZ_SEED={seed}): {e}");
    }
    eprintln!(
        "fuzz {target}: {} corpus files, {} executions, {:.1?}, seed {seed}",
        seeds.len(),
        executions.get(),
        started.elapsed()
    );
}

/// Arbitrary bytes, mutations of the corpus of `target`, and `shaped` (structure-aware
/// inputs), in the proportions 1 : 2 : 2.
fn inputs(target: &str, shaped: BoxedStrategy<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let seeds: Vec<Vec<u8>> = corpus(target).into_iter().map(|(_, b)| b).collect();
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..600),
        2 => mutated(seeds),
        2 => shaped,
    ]
}

/// Bytes and tokens that matter to the formats read here.
const TOKENS: &[&str] = &[
    "\n", "\r\n", "\r", "\"", "\\", "{", "}", "[", "]", "(", ")", ":", ",", "#", "-", "---\n", "—", "<!--",
    "-->", "\u{0}", "\t", " ", "é", "😀", "\u{feff}", "\u{2028}", "null", "true", "1e999", "-0", "[[", "]]",
    "=", "'''", "\"\"\"", "%2e", "..", "/", "~",
];

#[derive(Debug, Clone)]
enum Mutation {
    FlipBit(usize, u8),
    SetByte(usize, u8),
    Insert(usize, usize),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(p, b)| Mutation::FlipBit(p, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::SetByte(p, b)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(p, t)| Mutation::Insert(p, t)),
        (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Delete(p, n)),
        (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Duplicate(p, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len();
    let at = |p: usize| if len == 0 { 0 } else { p % (len + 1) };
    match *m {
        Mutation::FlipBit(p, b) if len > 0 => bytes[p % len] ^= 1 << b,
        Mutation::SetByte(p, v) if len > 0 => bytes[p % len] = v,
        Mutation::Insert(p, t) => {
            let p = at(p);
            bytes.splice(p..p, TOKENS[t].bytes());
        }
        Mutation::Delete(p, n) => {
            let p = at(p);
            bytes.drain(p..(p + n).min(len));
        }
        Mutation::Duplicate(p, n) => {
            let p = at(p);
            let piece = bytes[p..(p + n).min(len)].to_vec();
            bytes.splice(p..p, piece);
        }
        Mutation::Truncate(p) => bytes.truncate(at(p)),
        _ => {}
    }
}

/// A corpus input with one to eight random mutations (bit flips, token insertions,
/// deletions, duplications, truncation).
fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    (prop::sample::select(seeds), prop::collection::vec(mutation(), 1..8)).prop_map(|(mut bytes, ms)| {
        for m in &ms {
            apply(&mut bytes, m);
        }
        bytes
    })
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// ---------------------------------------------------------------------------------------
// Transcripts.

fn in_memory() -> SessionFile {
    SessionFile { id: "fuzz".into(), path: "fuzz.jsonl".into(), modified_at: jiff::Timestamp::UNIX_EPOCH }
}

/// A line no format can read: not JSON.
const DAMAGED_LINE: &str = "{\"type\":\"user\",\"message\":{\"content\":\"cut mid-wri";

/// What must hold for any transcript read as `format`, plus the robustness property: a
/// damaged line added before or after changes no turn and is counted as one skipped line.
fn check_transcript(text: &str, format: SessionFormat) -> Result<(), TestCaseError> {
    let parsed = parse_session(in_memory(), text, format);
    let lines: Vec<&str> = text.lines().collect();
    if parsed.format == SessionFormat::Gemini {
        // Gemini CLI's chats are read whole, not line by line (see `sessions/gemini.rs`):
        // turns name the line their message starts on, in order, and nothing panics.
        prop_assert!(
            parsed.turns.iter().all(|t| t.line >= 1 && t.line <= lines.len().max(1) && t.session == "fuzz")
        );
        prop_assert!(parsed.turns.windows(2).all(|w| w[0].line <= w[1].line));
        return Ok(());
    }
    let non_blank = lines.iter().filter(|l| !l.trim().is_empty()).count();
    let not_json =
        lines.iter().filter(|l| !l.trim().is_empty() && serde_json::from_str::<Value>(l).is_err()).count();
    prop_assert_ne!(parsed.format, SessionFormat::Auto);
    if format != SessionFormat::Auto {
        prop_assert_eq!(parsed.format, format);
    }
    prop_assert!(parsed.skipped_lines >= not_json, "a line that is not JSON was not counted");
    let with_turns: BTreeSet<usize> = parsed.turns.iter().map(|t| t.line).collect();
    prop_assert!(with_turns.len() + parsed.skipped_lines <= non_blank, "a line both skipped and read");
    for turn in &parsed.turns {
        prop_assert!(turn.line >= 1 && turn.line <= lines.len(), "turn on line {}", turn.line);
        prop_assert!(
            serde_json::from_str::<Value>(lines[turn.line - 1]).is_ok(),
            "a turn from a non-JSON line"
        );
        prop_assert_eq!(&turn.session, "fuzz");
        if turn.kind != TurnKind::ToolNoise {
            prop_assert!(!turn.text.trim().is_empty() || parsed.format == SessionFormat::Generic);
        } else if parsed.format != SessionFormat::Generic {
            // Tool traffic is cut to 2,000 characters plus the ellipsis.
            prop_assert!(
                turn.text.chars().count() <= 2001,
                "tool turn of {} chars",
                turn.text.chars().count()
            );
        }
    }
    prop_assert!(parsed.turns.windows(2).all(|w| w[0].line <= w[1].line));

    // The same transcript with a damaged line appended, and prepended.
    let fixed = parsed.format;
    let appended = format!("{text}\n{DAMAGED_LINE}");
    let after = parse_session(in_memory(), &appended, fixed);
    prop_assert_eq!(after.skipped_lines, parsed.skipped_lines + 1);
    prop_assert_eq!(&after.turns, &parsed.turns);
    let prepended = format!("{DAMAGED_LINE}\n{text}");
    let before = parse_session(in_memory(), &prepended, fixed);
    prop_assert_eq!(before.skipped_lines, parsed.skipped_lines + 1);
    prop_assert_eq!(before.turns.len(), parsed.turns.len());
    for (b, p) in before.turns.iter().zip(&parsed.turns) {
        prop_assert_eq!(b.line, p.line + 1);
        prop_assert_eq!((&b.text, b.role, b.kind, b.time), (&p.text, p.role, p.kind, p.time));
    }
    if format == SessionFormat::Auto {
        // The damaged line never changes what the file is detected as.
        prop_assert_eq!(parse_session(in_memory(), &prepended, SessionFormat::Auto).format, parsed.format);
    }
    Ok(())
}

/// Keys and words the transcript readers dispatch on.
const TRANSCRIPT_KEYS: &[&str] = &[
    "type",
    "message",
    "content",
    "role",
    "payload",
    "text",
    "name",
    "input",
    "output",
    "uuid",
    "timestamp",
    "isMeta",
    "isCompactSummary",
    "isApiErrorMessage",
    "attachment",
    "arguments",
    "record_type",
    "id",
    "model",
    "action",
    "summary",
];
const TRANSCRIPT_WORDS: &[&str] = &[
    "user",
    "assistant",
    "system",
    "attachment",
    "summary",
    "progress",
    "agent-name",
    "text",
    "thinking",
    "tool_use",
    "tool_result",
    "mcp_tool_use",
    "web_search_tool_result",
    "image",
    "response_item",
    "event_msg",
    "session_meta",
    "turn_context",
    "compacted",
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "reasoning",
    "ghost_snapshot",
    "input_text",
    "output_text",
    "developer",
    "human",
    "ai",
    "model",
    "tool",
    "function",
    "<environment_context>",
    "<command-name>/x</command-name>",
    "[Request interrupted by user]",
    "<system-reminder>",
    "<synthetic>",
    "2026-02-10T21:16:12.381Z",
    "2026-13-40T99:00:00Z",
    "",
    " ",
    "u1",
];

/// Any JSON value, with object keys and strings biased to what the readers look at.
fn transcript_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        12 => prop::sample::select(TRANSCRIPT_WORDS).prop_map(Value::from),
        4 => "\\PC{0,30}".prop_map(Value::from),
        // Past the 2,000 characters tool text is cut to.
        1 => (any::<char>(), 1990usize..2010).prop_map(|(c, n)| Value::from(c.to_string().repeat(n))),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            1 => prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            3 => prop::collection::vec((prop::sample::select(TRANSCRIPT_KEYS), inner), 0..7)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

/// Transcript text: JSON lines built by [`transcript_json`], some blank or damaged.
fn transcript_text() -> BoxedStrategy<Vec<u8>> {
    let line = prop_oneof![
        8 => transcript_json().prop_map(|v| v.to_string()),
        1 => Just(String::new()),
        1 => Just(DAMAGED_LINE.to_string()),
    ];
    prop::collection::vec(line, 0..8).prop_map(|lines| lines.join("\n").into_bytes()).boxed()
}

fn transcript_target(target: &str, format: SessionFormat) {
    fuzz(target, inputs(target, transcript_text()), |bytes| {
        // The lossy decoding `parse_session_file` applies to what it reads.
        let text = lossy(bytes);
        check_transcript(&text, format)?;
        check_transcript(&text, SessionFormat::Auto)
    });
}

#[test]
fn transcript_claude() {
    transcript_target("transcript_claude", SessionFormat::Claude);
}

#[test]
fn transcript_codex() {
    transcript_target("transcript_codex", SessionFormat::Codex);
}

#[test]
fn transcript_generic() {
    transcript_target("transcript_generic", SessionFormat::Generic);
}

#[test]
fn transcript_gemini() {
    transcript_target("transcript_gemini", SessionFormat::Gemini);
}

// ---------------------------------------------------------------------------------------
// The config file and the remote flags file.

/// A folder for the files a target writes, and a counter to name them.
struct Scratch {
    dir: tempfile::TempDir,
    n: Cell<u64>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch { dir: tempfile::tempdir().expect("temporary folder"), n: Cell::new(0) }
    }

    /// A fresh path each call (the flags file is cached by path and mtime).
    fn next(&self, ext: &str) -> PathBuf {
        self.n.set(self.n.get() + 1);
        self.dir.path().join(format!("f{}.{ext}", self.n.get()))
    }
}

fn load(config_file: &Path, flags: Vec<(String, String)>, scratch: &Scratch) -> LoadedConfig {
    Config::load(&LoadOptions {
        config_file: Some(config_file.to_path_buf()),
        flags,
        project_dir: None,
        agent_base: Some(scratch.dir.path().join("no-agent")),
    })
    .expect("an existing config file always loads")
}

/// The effective value of a dotted key, as JSON.
fn value_at(config: &Config, key: &str) -> Value {
    let mut v = serde_json::to_value(config).expect("config serialises");
    for part in key.split('.') {
        v = v.get(part).cloned().unwrap_or(Value::Null);
    }
    v
}

/// How a warning names a key: an empty key as `""`.
fn field_name(key: &str) -> &str {
    if key.is_empty() { "\"\"" } else { key }
}

/// Does the effective JSON value show that the TOML value was taken?
fn took(effective: &Value, given: &toml::Value) -> bool {
    match given {
        toml::Value::Boolean(b) => effective.as_bool() == Some(*b),
        toml::Value::Integer(i) => effective.as_f64() == Some(*i as f64),
        toml::Value::Float(f) => effective.as_f64() == Some(*f),
        toml::Value::String(s) => effective.as_str().is_some_and(|e| e.eq_ignore_ascii_case(s.trim())),
        // A list of paths (`mirror_index`): the same strings, in order.
        toml::Value::Array(a) => effective.as_array().is_some_and(|e| {
            e.len() == a.len()
                && e.iter().zip(a).all(|(x, y)| y.as_str().is_some_and(|s| x.as_str() == Some(s)))
        }),
        _ => false,
    }
}

/// Keys the environment of this process sets: the environment beats the file.
fn keys_set_by_environment() -> BTreeSet<String> {
    config::keys().filter(|k| std::env::var_os(config::env_var_of(k)).is_some()).map(str::to_string).collect()
}

fn check_config_file(
    bytes: &[u8],
    scratch: &Scratch,
    baseline: &Config,
    env_keys: &BTreeSet<String>,
) -> Result<(), TestCaseError> {
    let path = scratch.next("toml");
    std::fs::write(&path, bytes).expect("write config");
    let loaded = load(&path, Vec::new(), scratch);
    std::fs::remove_file(&path).expect("remove config");
    let source = path.display().to_string();
    let ours: Vec<_> = loaded.warnings.iter().filter(|w| w.source == source).collect();
    for w in &ours {
        prop_assert!(!w.message.is_empty());
        prop_assert!(w.to_string().starts_with(&source), "a warning that does not name its file: {w}");
        if !w.field.is_empty() {
            prop_assert!(w.to_string().contains(&format!(": {}: ", w.field)), "{w}");
        }
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => {
            prop_assert_eq!(ours.len(), 1);
            prop_assert!(
                ours[0].field.is_empty() && ours[0].message.starts_with("cannot read"),
                "{}",
                ours[0]
            );
            prop_assert_eq!(&loaded.config, baseline);
            return Ok(());
        }
    };
    let table = match text.parse::<toml::Table>() {
        Ok(t) => t,
        Err(_) => {
            prop_assert_eq!(ours.len(), 1, "{:?}", ours);
            prop_assert!(ours[0].field.is_empty(), "{}", ours[0]);
            let line: usize = ours[0]
                .message
                .strip_prefix("not valid TOML (line ")
                .and_then(|r| r.split(')').next())
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| TestCaseError::fail(format!("no line in {:?}", ours[0].message)))?;
            prop_assert!(line >= 1 && line <= text.split('\n').count(), "line {line}");
            prop_assert_eq!(&loaded.config, baseline);
            return Ok(());
        }
    };
    // Every key of the file, dotted: warned about by name, or taken.
    let mut given: Vec<(String, &toml::Value)> = Vec::new();
    for (k, v) in &table {
        match v {
            toml::Value::Table(t) if k == "agent" => {
                given.extend(t.iter().map(|(k2, v2)| (format!("agent.{k2}"), v2)));
            }
            _ => given.push((k.clone(), v)),
        }
    }
    let warned: BTreeSet<&str> = ours.iter().map(|w| w.field.as_str()).collect();
    prop_assert!(!warned.contains(""), "a valid TOML file drew a whole-file warning: {:?}", ours);
    let flags_file_set = table.contains_key("flags_file");
    for (key, value) in &given {
        let known = config::keys().any(|k| k == key);
        // `"agent.model" = …` at the top and `model` in `[agent]` set one field twice.
        let twice = given.iter().filter(|(k, _)| k == key).count() > 1;
        if !known {
            prop_assert!(warned.contains(field_name(key)), "unknown key {key} not reported");
            continue;
        }
        if env_keys.contains(key) || twice {
            continue;
        }
        let effective = value_at(&loaded.config, key);
        if warned.contains(key.as_str()) {
            if !flags_file_set {
                // Only that field fell back: to what it is without the file.
                prop_assert_eq!(&effective, &value_at(baseline, key), "{} fell back to something else", key);
            }
        } else {
            prop_assert!(
                took(&effective, value),
                "{key} = {value} was neither taken nor reported ({effective})"
            );
        }
    }
    for w in &ours {
        prop_assert!(
            given.iter().any(|(k, _)| field_name(k) == w.field),
            "a warning about {} which the file does not set",
            w.field
        );
    }
    Ok(())
}

/// TOML values of every type, with the edge cases of the validators.
fn toml_value() -> impl Strategy<Value = toml::Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(toml::Value::Boolean),
        prop_oneof![
            any::<i64>(),
            Just(0i64),
            Just(-1),
            Just(1),
            Just(100),
            Just(1024),
            Just(100_000),
            Just(100_001),
            Just(1 << 40),
        ]
        .prop_map(toml::Value::Integer),
        prop_oneof![
            any::<f64>(),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(-0.0),
            Just(0.5),
            Just(24.0),
            Just(8784.0),
            Just(8784.5),
            Just(1e300),
        ]
        .prop_map(toml::Value::Float),
        prop_oneof![
            prop::sample::select(vec![
                "offline",
                "HYGIENE",
                "agent",
                "exec",
                "auto",
                "Claude",
                "generic",
                "codex",
                "normal",
                "assistant",
                "remote",
                "anthropic",
                "openai",
                "https://api.example.com",
                "ftp://x",
                "true",
                "off",
                "24",
                " 3 ",
                "",
                " ",
                "NAN",
                "ANTHROPIC_API_KEY",
                "sk-not-a-name",
                "a\0b",
            ])
            .prop_map(str::to_string),
            "\\PC{0,20}",
        ]
        .prop_map(toml::Value::String),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(toml::Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..3)
                .prop_map(|m| toml::Value::Table(m.into_iter().collect())),
        ]
    })
}

/// A config file of known and unknown keys, an `[agent]` table, any values.
fn config_text() -> BoxedStrategy<Vec<u8>> {
    let mut names: Vec<String> =
        config::keys().filter(|k| !k.starts_with("agent.")).map(str::to_string).collect();
    names.extend(["min_hourz", "Enabled", "agent_model"].map(str::to_string));
    let agent_names: Vec<String> = config::keys()
        .filter_map(|k| k.strip_prefix("agent.").map(str::to_string))
        .chain(["temperature".to_string()])
        .collect();
    (
        prop::collection::vec((prop::sample::select(names), toml_value()), 0..8),
        prop::option::of(prop::collection::vec((prop::sample::select(agent_names), toml_value()), 0..5)),
        prop::option::of(toml_value()),
    )
        .prop_filter_map("TOML cannot write it", |(top, agent, agent_other)| {
            let mut table = toml::Table::new();
            for (k, v) in top {
                table.insert(k, v);
            }
            match (agent, agent_other) {
                (Some(a), _) => {
                    table.insert("agent".into(), toml::Value::Table(a.into_iter().collect()));
                }
                (None, Some(v)) => {
                    table.insert("agent".into(), v);
                }
                (None, None) => {}
            }
            toml::to_string(&table).ok().map(String::into_bytes)
        })
        .boxed()
}

/// Found by `config_toml`: `"" = 1` drew a warning with an empty field, which reads like a
/// warning about the whole file ("config.toml: unknown setting").
#[test]
fn an_empty_config_key_is_named() {
    let scratch = Scratch::new();
    let path = scratch.dir.path().join("c.toml");
    std::fs::write(&path, "\"\" = 1\nmin_hours = 2\n").unwrap();
    let loaded = load(&path, Vec::new(), &scratch);
    assert_eq!(loaded.config.min_hours, 2.0);
    let fields: Vec<_> = loaded.warnings.iter().map(|w| w.field.as_str()).collect();
    assert_eq!(fields, ["\"\""]);
    assert!(
        loaded.warnings[0].to_string().ends_with(": \"\": unknown setting (ignored)"),
        "{}",
        loaded.warnings[0]
    );
}

#[test]
fn config_toml() {
    let scratch = Scratch::new();
    let empty = scratch.dir.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let baseline = load(&empty, Vec::new(), &scratch).config;
    let env_keys = keys_set_by_environment();
    fuzz("config_toml", inputs("config_toml", config_text()), |bytes| {
        check_config_file(bytes, &scratch, &baseline, &env_keys)
    });
}

fn check_flags_file(
    bytes: &[u8],
    scratch: &Scratch,
    empty: &Path,
    baseline: &Config,
    env_keys: &BTreeSet<String>,
) -> Result<(), TestCaseError> {
    let path = scratch.next("json");
    std::fs::write(&path, bytes).expect("write flags");
    let loaded = load(empty, vec![("flags_file".into(), path.display().to_string())], scratch);
    std::fs::remove_file(&path).expect("remove flags");
    let source = path.display().to_string();
    let ours: Vec<_> = loaded.warnings.iter().filter(|w| w.source == source).collect();
    for w in &ours {
        prop_assert!(
            ["", "enabled", "minHours", "min_hours", "minSessions", "min_sessions"]
                .contains(&w.field.as_str()),
            "{w}"
        );
    }
    let untouched = |loaded: &LoadedConfig| {
        loaded.config.enabled == baseline.enabled
            && loaded.config.min_hours == baseline.min_hours
            && loaded.config.min_sessions == baseline.min_sessions
    };
    let obj = match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(obj)) if std::str::from_utf8(bytes).is_ok() => obj,
        Ok(_) if std::str::from_utf8(bytes).is_ok() => {
            prop_assert_eq!(ours.len(), 1);
            prop_assert!(
                ours[0].field.is_empty() && ours[0].message.starts_with("expected a JSON object"),
                "{}",
                ours[0]
            );
            prop_assert!(untouched(&loaded));
            return Ok(());
        }
        _ => {
            // Not JSON, or not UTF-8: one warning for the whole file, nothing taken from it.
            prop_assert_eq!(ours.len(), 1, "{:?}", ours);
            prop_assert!(ours[0].field.is_empty(), "{}", ours[0]);
            prop_assert!(untouched(&loaded));
            return Ok(());
        }
    };
    let named = |a: &str, b: &str| ours.iter().any(|w| w.field == a || w.field == b);
    if !env_keys.contains("enabled") {
        match obj.get("enabled") {
            Some(Value::Bool(b)) => prop_assert_eq!(loaded.config.enabled, *b),
            Some(_) => {
                prop_assert!(named("enabled", "enabled"));
                prop_assert_eq!(loaded.config.enabled, baseline.enabled);
            }
            None => prop_assert_eq!(loaded.config.enabled, baseline.enabled),
        }
    }
    if !env_keys.contains("min_hours") {
        match obj.get("minHours").map(|v| (v, v.as_f64())) {
            Some((_, Some(f))) if f > 0.0 && f <= 24.0 * 366.0 => prop_assert_eq!(loaded.config.min_hours, f),
            Some(_) => {
                prop_assert!(named("minHours", "min_hours"));
                prop_assert_eq!(loaded.config.min_hours, baseline.min_hours);
            }
            None => prop_assert_eq!(loaded.config.min_hours, baseline.min_hours),
        }
    }
    if !env_keys.contains("min_sessions") {
        let whole = |v: &Value| {
            v.as_i64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 1e18).map(|f| f as i64))
        };
        match obj.get("minSessions").map(|v| (v, whole(v))) {
            Some((_, Some(n))) if n > 0 && n <= 100_000 => {
                prop_assert_eq!(i64::from(loaded.config.min_sessions), n)
            }
            Some(_) => {
                prop_assert!(named("minSessions", "min_sessions"));
                prop_assert_eq!(loaded.config.min_sessions, baseline.min_sessions);
            }
            None => prop_assert_eq!(loaded.config.min_sessions, baseline.min_sessions),
        }
    }
    Ok(())
}

/// A flags object with the three keys the anchor reads, any values, and extra keys.
fn flags_text() -> BoxedStrategy<Vec<u8>> {
    let value = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop_oneof![any::<i64>(), -2i64..8, Just(100_000), Just(100_001)].prop_map(Value::from),
        prop_oneof![
            any::<f64>(),
            Just(0.25),
            Just(-0.0),
            Just(8784.0),
            Just(8784.01),
            Just(3.0),
            Just(1e300)
        ]
        .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec!["true", "6", "", "yes"]).prop_map(Value::from),
        Just(serde_json::json!([1])),
        Just(serde_json::json!({"minHours": 1})),
    ];
    prop::collection::vec(
        (prop::sample::select(vec!["enabled", "minHours", "minSessions", "min_hours", "other"]), value),
        0..5,
    )
    .prop_map(|kv| {
        Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()).to_string().into_bytes()
    })
    .boxed()
}

#[test]
fn flags_json() {
    let scratch = Scratch::new();
    let empty = scratch.dir.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let baseline = load(&empty, Vec::new(), &scratch).config;
    let env_keys = keys_set_by_environment();
    fuzz("flags_json", inputs("flags_json", flags_text()), |bytes| {
        check_flags_file(bytes, &scratch, &empty, &baseline, &env_keys)
    });
}

// ---------------------------------------------------------------------------------------
// MEMORY.md.

fn check_index(bytes: &[u8], scratch: &Scratch) -> Result<(), TestCaseError> {
    let text = lossy(bytes);
    let lines = index::parse(&text);
    prop_assert_eq!(lines.len(), text.lines().count(), "a line was dropped");
    for (raw, line) in text.lines().zip(&lines) {
        match line {
            IndexLine::Other { text } => prop_assert_eq!(text, raw, "other lines are kept as they are"),
            entry @ IndexLine::Entry { title, file, .. } => {
                // The canonical form of an entry parses back to the same entry.
                prop_assert_eq!(&index::parse_line(&entry.render()), entry, "render of {:?}", raw);
                prop_assert!(!file.is_empty() && !file.contains(char::is_whitespace) && !file.contains(')'));
                // Trimmed, but for a blank escaped by a backslash.
                prop_assert_eq!(title.trim_start(), title.as_str());
                let end = title.trim_end();
                prop_assert!(end == title || end.ends_with('\\') && end.len() < title.len(), "{:?}", title);
            }
        }
    }
    // parse → render → parse is the identity, up to trailing blank lines and one carriage
    // return at the end of a line (`lines()` keeps a CR before the end of the text or before
    // a CR LF; rendered, it becomes part of a CR LF line ending).
    let rendered = index::render(&lines);
    let mut expected = lines.clone();
    while expected.last().is_some_and(|l| l.render().is_empty()) {
        expected.pop();
    }
    if expected.iter().all(|l| l.render().trim().is_empty()) {
        expected.clear();
    }
    for line in &mut expected {
        if let IndexLine::Other { text } = line
            && let Some(cut) = text.strip_suffix('\r')
        {
            *line = index::parse_line(cut);
        }
    }
    prop_assert_eq!(index::parse(&rendered), expected, "render: {:?}", rendered);
    // Rendering again changes nothing, once every such carriage return is gone.
    let mut again = rendered.clone();
    for _ in 0..=text.matches('\r').count() {
        again = index::render(&index::parse(&again));
    }
    prop_assert_eq!(index::render(&index::parse(&again)), again.clone(), "render is not stable");

    let m = index::measure(&text);
    prop_assert_eq!(m.lines == 0, m.units == 0);
    prop_assert!(m.units <= text.encode_utf16().count());
    prop_assert!(m.lines <= text.split('\n').count());
    for target in index::link_targets(&text) {
        prop_assert!(!target.is_empty());
    }

    // The check of a memory folder holding this index and two topics.
    let dir = scratch.dir.path();
    // Unlinked first: truncating a file with data makes ext4 flush it on close, a thousand
    // times slower than writing a new one.
    let _ = std::fs::remove_file(dir.join("MEMORY.md"));
    std::fs::write(dir.join("MEMORY.md"), bytes).expect("write index");
    let report = index::check(dir, 200, 25_000).expect("check reads the folder");
    prop_assert!(report.index_exists);
    prop_assert_eq!((report.lines, report.units), (m.lines, m.units));
    let entries = lines.iter().filter(|l| matches!(l, IndexLine::Entry { .. })).count();
    prop_assert_eq!(report.entries, entries);
    let n_lines = text.lines().count();
    for f in &report.findings {
        if let Some(n) = f.line {
            prop_assert!(n >= 1, "{f:?}");
            if f.file == "MEMORY.md" {
                prop_assert!(n <= n_lines, "{:?}", f);
            }
        }
    }
    let has = |code: &str| report.findings.iter().any(|f| f.code == code);
    prop_assert_eq!(has("over_lines"), m.lines > 200);
    prop_assert_eq!(has("over_units"), m.units > 25_000);
    let long = text.lines().any(|l| l.chars().count() > index::LINE_MAX_CHARS);
    prop_assert_eq!(has("long_line"), long);
    prop_assert_eq!(
        report.errors(),
        report.findings.iter().filter(|f| f.severity == index::Severity::Error).count()
    );
    Ok(())
}

/// Index text: entries with odd titles, targets and hooks, links, comments, front matter.
fn index_text() -> BoxedStrategy<Vec<u8>> {
    let title = prop_oneof![
        Just("Testing".to_string()),
        Just(" padded ".to_string()),
        Just("with \\] escaped".to_string()),
        Just("ends with \\\\".to_string()),
        "[^\\]\\n]{0,12}",
    ];
    let target = prop_oneof![
        Just("a.md".to_string()),
        Just("b%20c.md".to_string()),
        Just("gone.md".to_string()),
        Just("../out.md".to_string()),
        Just("/etc/hosts".to_string()),
        Just("https://x.y/z".to_string()),
        Just("#anchor".to_string()),
        Just("a.md#part".to_string()),
        Just("%ZZ%2".to_string()),
        "[^)\\s]{1,12}",
    ];
    let hook = prop_oneof![
        Just(String::new()),
        Just("a hook".to_string()),
        Just("h".repeat(160)),
        Just("z".repeat(230)),
        "\\PC{0,24}",
    ];
    let sep = prop::sample::select(vec![" — ", " – ", " - ", " -- ", ": ", " ", ""]);
    let bullet = prop::sample::select(vec!["- ", "* ", "+ ", "  - ", "-", "1. "]);
    let entry = (bullet, title, target, sep, hook).prop_map(|(b, t, f, s, h)| format!("{b}[{t}]({f}){s}{h}"));
    let other = prop_oneof![
        Just("# Memory".to_string()),
        Just(String::new()),
        Just("<!-- a comment".to_string()),
        Just("-->".to_string()),
        Just("---".to_string()),
        Just("name: x".to_string()),
        Just("see [a](<b c.md>) and [d](e.md \"title\")".to_string()),
        "\\PC{0,40}",
    ];
    let line = prop_oneof![3 => entry, 2 => other];
    (prop::collection::vec(line, 0..12), prop::sample::select(vec!["\n", "\r\n"]), any::<bool>())
        .prop_map(|(lines, eol, last)| {
            let mut text = lines.join(eol);
            if last {
                text.push_str(eol);
            }
            text.into_bytes()
        })
        .boxed()
}

/// Found by `memory_index`: `- [\\\t](a.md)` was read with the title trimmed to `\\`, which
/// renders as `- [\\](a.md)`, a line whose bracket is escaped and that is no longer an entry.
#[test]
fn an_index_title_ending_in_an_escaped_blank_keeps_it() {
    for line in ["- [\\\t](a.md) — ", "- [a \\ ](a.md)", "- [ \\\\ ](a.md) — two backslashes, no escape"]
    {
        let entry = index::parse_line(line);
        assert!(matches!(entry, IndexLine::Entry { .. }), "{line:?}");
        assert_eq!(index::parse_line(&entry.render()), entry, "{line:?}");
    }
    let IndexLine::Entry { title, .. } = index::parse_line("- [ \\\\ ](a.md)") else { panic!() };
    assert_eq!(title, "\\\\");
}

#[test]
fn memory_index() {
    let scratch = Scratch::new();
    std::fs::write(scratch.dir.path().join("a.md"), "---\nname: A\ntype: user\n---\n- fact\n").unwrap();
    std::fs::write(scratch.dir.path().join("b c.md"), "- fact\n").unwrap();
    fuzz("memory_index", inputs("memory_index", index_text()), |bytes| check_index(bytes, &scratch));
}

// ---------------------------------------------------------------------------------------
// Topic front matter.

fn check_topic(bytes: &[u8]) -> Result<(), TestCaseError> {
    let text = lossy(bytes);
    let topic = Topic::parse(&text);
    prop_assert!(text.ends_with(topic.body), "the body is the end of the file");
    let before_body = &text[..text.len() - topic.body.len()];
    match split_front_matter(&text) {
        None => {
            prop_assert!(topic.front.is_none() && topic.problems.is_empty());
            prop_assert_eq!(topic.body_line, 1);
        }
        Some((yaml, _, body_line)) => {
            prop_assert_eq!(body_line, topic.body_line);
            if !topic.body.is_empty() {
                prop_assert_eq!(body_line, before_body.matches('\n').count() + 1);
            }
            let block_lines = yaml.matches('\n').count() + 2;
            for p in &topic.problems {
                prop_assert!(
                    p.line >= 1 && p.line <= block_lines + 1,
                    "{p:?} in a block of {block_lines} lines"
                );
                prop_assert!(!p.message.is_empty());
            }
            prop_assert_eq!(
                topic.front.is_none(),
                topic.problems.iter().any(|p| p.message.contains("not valid YAML"))
            );
        }
    }
    for fact in topic.facts() {
        prop_assert!(!fact.is_empty() && fact.trim() == fact);
    }
    prop_assert_eq!(autodream_core::memdir::topic::count_facts(&text), topic.facts().count());
    let _ = (topic.heading(), topic.first_sentence());
    Ok(())
}

/// A front matter autodream would write (fields from any text), a body, and sometimes
/// a hand-edited line.
fn topic_text() -> BoxedStrategy<Vec<u8>> {
    let field = prop::option::of(prop_oneof![
        3 => "\\PC{0,24}",
        1 => ".{0,12}",
        1 => prop::sample::select(vec![
            "user", "Feedback", "2026-05-08", "2026-02-30", "yes", "~", "null", "- item", "a: b", "#x", "x #y",
            "'q'", "\"q\"", "tab\tinside", "trailing ", "ctl\u{7}", "nel\u{85}", "ls\u{2028}", "bom\u{feff}",
            "multi\nline", "12", "1e3", "0x1F", ".inf", "@at", "`tick`", "%pct", "!tag", "&anchor", "*alias",
            "| block", "> folded", "{a: 1}", "[1, 2]", "",
        ])
        .prop_map(str::to_string),
    ]);
    (
        field.clone(),
        field.clone(),
        field.clone(),
        field,
        prop::option::of("\\PC{0,30}"),
        prop::collection::vec(
            prop_oneof![Just("# Heading".to_string()), "[-*] \\PC{0,20}", "\\PC{0,20}"],
            0..5,
        ),
    )
        .prop_map(|(name, description, kind, updated, extra, body)| {
            let front = FrontMatter { name, description, kind, updated, ..FrontMatter::default() };
            let mut text = front.render();
            if let Some(extra) = extra {
                // A hand edit inside the block.
                text.insert_str(4, &format!("{extra}\n"));
            }
            text.push_str(&body.join("\n"));
            text.into_bytes()
        })
        .boxed()
}

#[test]
fn topic_front_matter() {
    fuzz("topic_front_matter", inputs("topic_front_matter", topic_text()), check_topic);
}

/// What autodream writes as front matter, it reads back: any field values (a line break
/// becomes a space), and the only problems reported are about `type` and `updated`.
#[test]
fn topic_front_matter_round_trips() {
    let field = || {
        prop::option::of(prop_oneof![
            3 => "\\PC{0,24}",
            1 => ".{0,12}",
            1 => "[ -~\t]{0,12}",
            1 => "[ \t\u{7}\u{85}\u{a0}\u{2028}\u{feff}\u{fffe}a-z:#\"'\\\\-]{0,12}",
        ])
    };
    let strategy = (field(), field(), field(), field()).prop_map(|(name, description, kind, updated)| {
        FrontMatter { name, description, kind, updated, ..FrontMatter::default() }
    });
    let mut runner = TestRunner::new(RunnerConfig {
        cases: cases(),
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let started = Instant::now();
    let result = runner.run(&strategy, |front| {
        let text = format!("{}# x\n- fact\n", front.render());
        let topic = Topic::parse(&text);
        let one_line = |s: &Option<String>| s.as_ref().map(|s| s.replace(['\n', '\r'], " "));
        let expected = FrontMatter {
            name: one_line(&front.name),
            description: one_line(&front.description),
            kind: one_line(&front.kind),
            updated: one_line(&front.updated),
            ..FrontMatter::default()
        };
        prop_assert_eq!(topic.front.as_ref(), Some(&expected), "rendered as {:?}", front.render());
        for p in &topic.problems {
            prop_assert!(p.message.starts_with("type ") || p.message.starts_with("updated "), "{p:?}");
        }
        prop_assert_eq!(topic.facts().collect::<Vec<_>>(), ["fact"]);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!("fuzz topic_front_matter_round_trips: {} executions, {:.1?}", cases(), started.elapsed());
}

/// Found by `topic_front_matter_round_trips`: a tab, a control character or a Unicode
/// line separator was written unquoted (and YAML trimmed or refused it) or raw inside
/// double quotes. They are escaped now.
#[test]
fn front_matter_with_tabs_controls_and_separators_round_trips() {
    for value in [
        "\t",
        "a\t",
        "\ta",
        "bell\u{7}",
        "nel\u{85}x",
        "nbsp\u{a0}",
        "ls\u{2028}ps\u{2029}",
        "bom\u{feff}",
        "\u{fffe}",
        "quote\" and \\ \t",
    ] {
        let front = FrontMatter {
            name: Some(value.to_string()),
            kind: Some(value.to_string()),
            updated: Some(value.to_string()),
            ..FrontMatter::default()
        };
        let text = format!("{}- fact\n", front.render());
        assert_eq!(Topic::parse(&text).front, Some(front.clone()), "{text:?}");
    }
}

// ---------------------------------------------------------------------------------------
// The hook's stdin JSON.

fn check_hook_input(bytes: &[u8]) -> Result<(), TestCaseError> {
    // What the hook does with what it read on stdin.
    let parsed = serde_json::from_slice::<HookInput>(bytes);
    if parsed.as_ref().is_err_and(|e| e.to_string().starts_with("duplicate field")) {
        // `{"cwd":"a","cwd":"b"}`: read as no input at all, like any other unusable input.
        prop_assert!(serde_json::from_slice::<HookInput>(bytes).unwrap_or_default().session_id.is_none());
        return Ok(());
    }
    let input = serde_json::from_slice::<HookInput>(bytes).unwrap_or_default();
    let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(bytes) else {
        if serde_json::from_slice::<Value>(bytes).is_err() && parsed.is_ok() {
            // The one leniency of the reader: it does not check the UTF-8 of the strings of
            // fields it skips.
            prop_assert!(std::str::from_utf8(bytes).is_err(), "input that is not JSON was read");
        }
        return Ok(());
    };
    let fields = ["session_id", "transcript_path", "cwd", "hook_event_name"];
    let usable = fields.iter().all(|f| matches!(obj.get(*f), None | Some(Value::Null | Value::String(_))));
    prop_assert_eq!(parsed.is_ok(), usable, "{:?}", obj);
    let want = |f: &str| if usable { obj.get(f).and_then(Value::as_str).map(str::to_string) } else { None };
    prop_assert_eq!(input.session_id, want("session_id"));
    prop_assert_eq!(input.hook_event_name, want("hook_event_name"));
    prop_assert_eq!(input.transcript_path, want("transcript_path").map(PathBuf::from));
    prop_assert_eq!(input.cwd, want("cwd").map(PathBuf::from));

    Ok(())
}

/// A hook input object: the four fields with values of any type, and other fields.
fn hook_text() -> BoxedStrategy<Vec<u8>> {
    let value = prop_oneof![
        4 => prop_oneof![
            Just("00000000-0000-4000-8000-000000000001".to_string()),
            Just("/tmp/project".to_string()),
            Just("Stop".to_string()),
            Just("SessionEnd".to_string()),
            "\\PC{0,20}",
        ]
        .prop_map(Value::from),
        1 => Just(Value::Null),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(serde_json::json!(["x"])),
        1 => Just(serde_json::json!({"nested": "x"})),
    ];
    let key = prop::sample::select(vec![
        "session_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "stop_hook_active",
        "permission_mode",
        "SESSION_ID",
    ]);
    prop::collection::vec((key, value), 0..6)
        .prop_map(|kv| {
            Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()).to_string().into_bytes()
        })
        .boxed()
}

#[test]
fn hook_stdin() {
    fuzz("hook_stdin", inputs("hook_stdin", hook_text()), check_hook_input);
}
