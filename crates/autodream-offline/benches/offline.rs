//! Throughput of one offline dream over synthetic conversations, at 1× and 2× the input:
//! the engine must review at least 1 MB of transcript per second on one core, and twice the
//! input must take at most 2.2 times as long.
//!
//! ```sh
//! cargo bench -p autodream-offline --bench offline
//! ```
//! The transcripts are generated (two people chatting over many sessions: news with dates,
//! questions, small talk, photos), parsed once; each measured iteration dreams into a fresh
//! memory directory.

use std::hint::black_box;
use std::path::PathBuf;

use autodream_core::config::Config;
use autodream_core::engine::{CancelToken, DreamContext, Engine, NullProgress};
use autodream_core::sessions::{ParsedSession, SessionFile, SessionFormat, parse_session};
use autodream_offline::OfflineEngine;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use jiff::Timestamp;
use jiff::tz::TimeZone;

/// A small deterministic generator (no dependency, same text on every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const PLACES: &[&str] = &[
    "Lisbon",
    "the lake",
    "Kyoto",
    "the farmers market",
    "Tbilisi",
    "the museum",
    "Galway",
    "the old library",
];
const THINGS: &[&str] = &[
    "a pottery class",
    "a ukulele",
    "a sourdough starter",
    "a rescue puppy",
    "a telescope",
    "kundalini yoga",
    "a chess club",
    "a vintage camera",
    "a community garden plot",
    "a marathon training plan",
];
const WHEN: &[&str] =
    &["yesterday", "last week", "last Friday", "two days ago", "last weekend", "this morning"];
const FEEL: &[&str] =
    &["it was amazing", "I loved it", "it was harder than I thought", "the kids had a blast"];
const SMALL: &[&str] = &[
    "Hey! Good to see you!",
    "Wow, that's so cool!",
    "Thanks so much!",
    "How have you been?",
    "That sounds amazing!",
    "Talk soon!",
];
const NAMES: &[&str] = &["Maya", "Oskar", "Priya", "Tomas", "Lena", "Ravi"];

/// `sessions` sessions of `turns` turns each, as parsed transcripts, and their total bytes.
fn conversation(sessions: usize, turns: usize, seed: u64) -> (Vec<ParsedSession>, u64) {
    let mut rng = Lcg(seed);
    let start: Timestamp = "2023-01-02T10:00:00Z".parse().expect("valid timestamp");
    let mut parsed = Vec::new();
    let mut bytes = 0;
    for s in 0..sessions {
        let at = start.checked_add(jiff::SignedDuration::from_hours(24 * 3 * s as i64)).expect("in range");
        let mut text = String::new();
        for t in 0..turns {
            let speaker = if t % 2 == 0 { "Ana" } else { "Ben" };
            let content = match rng.next() % 6 {
                0 => rng.pick(SMALL).to_string(),
                1 => format!("What did you think of {}?", rng.pick(PLACES)),
                2 => format!(
                    "I went to {} {} with {} and {}. [shares a photo: a photo of {} near {}]",
                    rng.pick(PLACES),
                    rng.pick(WHEN),
                    rng.pick(NAMES),
                    rng.pick(FEEL),
                    rng.pick(THINGS),
                    rng.pick(PLACES)
                ),
                3 => format!(
                    "My cousin {} just started {} - we are planning a trip to {} next month.",
                    rng.pick(NAMES),
                    rng.pick(THINGS),
                    rng.pick(PLACES)
                ),
                4 => format!(
                    "I've been reading \"The {} of {}\" by {} {}, and I finally finished it {}.",
                    rng.pick(&["Wind", "Stone", "River", "Garden"]),
                    rng.pick(&["Time", "Salt", "Winter", "Glass"]),
                    rng.pick(NAMES),
                    rng.pick(&["Okafor", "Lindqvist", "Moreau", "Tanaka"]),
                    rng.pick(WHEN)
                ),
                _ => format!(
                    "Since we last talked I signed up for {} and I practice it {} times a week at {}.",
                    rng.pick(THINGS),
                    rng.next() % 4 + 1,
                    rng.pick(PLACES)
                ),
            };
            let ts = at.checked_add(jiff::SignedDuration::from_secs(t as i64)).expect("in range");
            let line = serde_json::json!({"timestamp": ts.to_string(), "role": "user", "name": speaker, "content": content});
            text.push_str(&line.to_string());
            text.push('\n');
        }
        bytes += text.len() as u64;
        let file =
            SessionFile { id: format!("s{s}"), path: PathBuf::from(format!("s{s}.jsonl")), modified_at: at };
        parsed.push(parse_session(file, &text, SessionFormat::Generic));
    }
    (parsed, bytes)
}

fn dream(sessions: &[ParsedSession], now: Timestamp, config: &Config) {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = OfflineEngine::with_time_zone(TimeZone::UTC);
    let ctx = DreamContext {
        staging: dir.path(),
        memory_dir: dir.path(),
        sessions_dir: dir.path(),
        project_dir: dir.path(),
        sessions,
        log_entries: &[],
        last_consolidated_at: None,
        now,
        config,
        progress: &NullProgress,
        cancel: &CancelToken::new(),
    };
    black_box(engine.dream(&ctx).expect("dream succeeds"));
}

fn bench(c: &mut Criterion) {
    let config = Config::default();
    let mut group = c.benchmark_group("offline_dream");
    group.sample_size(10);
    for (label, sessions) in [("1x", 60), ("2x", 120)] {
        let (parsed, bytes) = conversation(sessions, 40, 7);
        let now = parsed.last().map(|s| s.file.modified_at).unwrap_or_default();
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(format!("{label}_{}KB", bytes / 1000), |b| {
            b.iter_batched(|| (), |_| dream(&parsed, now, &config), BatchSize::PerIteration)
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
