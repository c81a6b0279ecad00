//! Daily-log append throughput with concurrent writers, in process.
//!
//! `append/16_writers`: 16 threads, released together by a barrier, each calling
//! `daily_log::append` N times on one memory directory (so one log file, one advisory lock).
//! `append/1_writer`: one thread doing the same 16 × N appends alone, for comparison.
//! Criterion reports the time per batch and the throughput in entries per second.
//!
//! Every timed batch writes into a fresh directory and is checked afterwards, outside the
//! timing: the file must hold exactly 16 × N lines, each one whole (`- [HH:MM] text`, with
//! the text a writer sent) and each (writer, entry) pair exactly once. A lost, torn or
//! interleaved line fails the bench.
//!
//! Run: `cargo bench -p autodream-core --bench daily_log` (or `cargo test -p autodream-core
//! --benches` to run it once as a test). `AUTODREAM_BENCH_APPENDS` sets N (default 200).

use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jiff::Zoned;

use autodream_core::memdir::daily_log;

const WRITERS: usize = 16;
/// Roughly the length of a real note.
const NOTE: &str = "the release branch is rebased onto main, never merged; CI runs on the rebased head";

fn appends_per_writer() -> usize {
    std::env::var("AUTODREAM_BENCH_APPENDS").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
}

/// A fixed instant, so a batch never straddles midnight and lands in one file.
fn fixed_now() -> Zoned {
    let t: jiff::Timestamp = "2026-05-08T12:34:00Z".parse().expect("instant");
    t.to_zoned(jiff::tz::TimeZone::UTC)
}

fn note(writer: usize, entry: usize) -> String {
    format!("w{writer:02} n{entry:05} {NOTE}")
}

/// Runs `writers` threads × `per_writer` appends into `memory_dir`; returns the time from
/// the barrier's release to the last thread's end (thread start-up is not timed).
fn burst(memory_dir: &Path, writers: usize, per_writer: usize) -> Duration {
    let now = fixed_now();
    let start = Arc::new(Barrier::new(writers + 1));
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let (dir, now, start) = (memory_dir.to_path_buf(), now.clone(), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                for i in 0..per_writer {
                    daily_log::append(&dir, &now, &note(w, i)).expect("append");
                }
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    for h in handles {
        h.join().expect("writer thread");
    }
    began.elapsed()
}

/// Checks the log after a burst: `writers × per_writer` whole lines, every entry once.
fn verify(memory_dir: &Path, writers: usize, per_writer: usize) {
    let path = daily_log::log_path(memory_dir, fixed_now().date());
    let text = std::fs::read_to_string(&path).expect("read the log");
    let mut seen = vec![false; writers * per_writer];
    let mut lines = 0;
    for line in text.lines() {
        lines += 1;
        let body = line.strip_prefix("- [12:34] w").unwrap_or_else(|| panic!("malformed line: {line:?}"));
        let (w, rest) = body.split_once(" n").unwrap_or_else(|| panic!("malformed line: {line:?}"));
        let (i, note_text) = rest.split_once(' ').unwrap_or_else(|| panic!("malformed line: {line:?}"));
        assert_eq!(note_text, NOTE, "torn or interleaved line: {line:?}");
        let (w, i): (usize, usize) = (w.parse().expect("writer"), i.parse().expect("entry"));
        assert!(w < writers && i < per_writer, "unknown entry: {line:?}");
        let slot = &mut seen[w * per_writer + i];
        assert!(!*slot, "entry written twice: {line:?}");
        *slot = true;
    }
    assert_eq!(lines, writers * per_writer, "line count must equal writers × appends");
    assert!(text.ends_with('\n'), "the last line must be whole");
}

/// Times `iters` bursts, each in a fresh directory verified afterwards; accumulates the
/// totals for the summary line.
fn timed_bursts(iters: u64, writers: usize, per_writer: usize, totals: &mut (u64, Duration)) -> Duration {
    let mut spent = Duration::ZERO;
    for _ in 0..iters {
        let tmp = tempfile::tempdir().expect("temp dir");
        let elapsed = burst(tmp.path(), writers, per_writer);
        verify(tmp.path(), writers, per_writer);
        spent += elapsed;
    }
    totals.0 += iters * (writers * per_writer) as u64;
    totals.1 += spent;
    spent
}

fn append(c: &mut Criterion) {
    let per_writer = appends_per_writer();
    let total = WRITERS * per_writer;
    let mut group = c.benchmark_group("append");
    group.throughput(Throughput::Elements(total as u64));
    group.sample_size(10);

    let mut many = (0u64, Duration::ZERO);
    group.bench_function(format!("{WRITERS}_writers"), |b| {
        b.iter_custom(|iters| timed_bursts(iters, WRITERS, per_writer, &mut many))
    });
    let mut one = (0u64, Duration::ZERO);
    group.bench_function("1_writer", |b| b.iter_custom(|iters| timed_bursts(iters, 1, total, &mut one)));
    group.finish();

    let rate =
        |(entries, spent): (u64, Duration)| entries as f64 / spent.as_secs_f64().max(f64::MIN_POSITIVE);
    println!(
        "RESULT append_16_writers_entries_per_sec={:.0} over {} verified entries ({WRITERS} x {per_writer} per batch)",
        rate(many),
        many.0
    );
    println!("RESULT append_1_writer_entries_per_sec={:.0} over {} verified entries", rate(one), one.0);
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    targets = append
}
criterion_main!(benches);
