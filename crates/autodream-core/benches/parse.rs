//! Transcript reading's throughput (MB/s): what a dream spends most of its time on over a long
//! history, measured against serde_json building every line into a `Value` in the same run.
//!
//! - `parse/read_as_claude`: `parse_session` (the agent's own format) over the real Claude
//!   Code transcripts of `tests/fixtures/transcripts/`, repeated (entry ids made unique) to
//!   about 5 MB.
//! - `parse/every_line_to_value`: the baseline, each line parsed to a `serde_json::Value` and
//!   nothing more. Reading does more (it builds the turns) and less (it skips building the
//!   values no reader looks at: a tool's structured result, a progress payload); about 1.15×
//!   the baseline on these fixtures, less where tool results weigh more, as in long real
//!   histories (43% of their bytes).
//! - `text/utf8_check`: the check that makes a file's bytes text (`sessions::text_of`) against
//!   `String::from_utf8_lossy`, the walk it replaced.
//!
//! Both sides are checked before timing (turns read, lines parsed).
//!
//! Run: `cargo bench -p autodream-core --bench parse` (or `cargo test -p autodream-core
//! --benches` to run each once as a test).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use autodream_core::sessions::{SessionFile, SessionFormat, parse_session, text_of};

fn real_claude_times(copies: usize) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the transcript fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("claude_real_")))
        .collect();
    files.sort();
    let one: String = files.iter().map(|p| std::fs::read_to_string(p).expect("readable")).collect();
    (0..copies).map(|k| one.replace("\"uuid\":\"", &format!("\"uuid\":\"r{k}-"))).collect()
}

fn file() -> SessionFile {
    SessionFile { id: "bench".into(), path: "bench.jsonl".into(), modified_at: jiff::Timestamp::UNIX_EPOCH }
}

fn every_line_to_value(text: &str) -> usize {
    text.lines().filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()).count()
}

fn bench(c: &mut Criterion) {
    let text = real_claude_times(32);
    let parsed = parse_session(file(), &text, SessionFormat::Claude);
    let lines = every_line_to_value(&text);
    eprintln!("{:.1} MB, {lines} JSON lines, {} turns", text.len() as f64 / 1e6, parsed.turns.len());
    assert!(parsed.turns.len() > 1000, "the fixtures yield turns");
    assert_eq!(parsed.skipped_lines, 0, "every fixture line is an entry the reader knows");

    let mut group = c.benchmark_group("parse");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("read_as_claude", |b| {
        b.iter(|| black_box(parse_session(file(), black_box(&text), SessionFormat::Claude)))
    });
    group.bench_function("every_line_to_value", |b| {
        b.iter(|| black_box(every_line_to_value(black_box(&text))))
    });
    group.finish();

    let bytes = text.clone().into_bytes();
    assert_eq!(text_of(bytes.clone()), String::from_utf8_lossy(&bytes));
    let mut group = c.benchmark_group("text");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("utf8_check", |b| b.iter(|| black_box(text_of(black_box(bytes.clone())).len())));
    group.bench_function("from_utf8_lossy", |b| {
        b.iter(|| black_box(String::from_utf8_lossy(black_box(&bytes.clone())).len()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
