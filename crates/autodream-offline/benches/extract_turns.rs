//! Per-turn extraction's throughput (MB/s of transcript): the offline rules over the new part
//! of a transcript, as `autodream __extract` runs them, without the file I/O.
//!
//! - `real ×6`: the two real Claude Code transcripts of `tests/fixtures/real/`, repeated
//!   (entry ids made unique) to about 5 MB: the shape of real sessions, mostly tool output.
//! - `dense`: 1,500 turns that are nothing but a user's durable statement and a short
//!   answer: every turn judged, compared with everything written before it, and emitted.
//!
//! ```sh
//! cargo bench -p autodream-offline --bench extract_turns
//! ```

use std::hint::black_box;
use std::path::Path;

use autodream_core::capture::{CaptureRules, Chunk, FoundTurn};
use autodream_offline::extract_turns::OfflineExtractor;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use jiff::Timestamp;
use jiff::tz::TimeZone;

fn real_times(copies: usize) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the real fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let one: String = files.iter().map(|p| std::fs::read_to_string(p).expect("readable")).collect();
    (0..copies).map(|k| one.replace("\"uuid\":\"", &format!("\"uuid\":\"r{k}-"))).collect()
}

fn dense(turns: usize) -> String {
    let mut body = String::new();
    for i in 0..turns {
        let user = serde_json::json!({"type": "user", "uuid": format!("u{i}"), "timestamp": "2026-05-08T13:00:00Z",
            "message": {"role": "user", "content": format!("The service svc-{i} listens on port {} in staging.", 10_000 + i)}});
        let answer = serde_json::json!({"type": "assistant", "uuid": format!("a{i}"), "timestamp": "2026-05-08T13:00:10Z",
            "message": {"id": format!("m{i}"), "role": "assistant", "content": [{"type": "text", "text": "Noted."}]}});
        body.push_str(&format!("{user}\n{answer}\n"));
    }
    body
}

/// One extraction over `text` into an empty memory folder; the number of entries kept.
fn extract(memory: &Path, text: &str) -> usize {
    let now: Timestamp = "2026-05-08T13:56:00Z".parse().expect("valid timestamp");
    let mut rules = OfflineExtractor::new(memory, None, now, TimeZone::UTC);
    let chunk = Chunk { text, start: 0, session: "bench", restarted: false, final_turn_complete: true };
    let mut kept = 0;
    let mut emit = |t: FoundTurn| {
        kept += t.entries.len();
        Ok(())
    };
    rules.extract(&chunk, &mut emit).expect("extraction");
    kept
}

fn bench(c: &mut Criterion) {
    let memory = tempfile::tempdir().expect("a temporary folder");
    let mut group = c.benchmark_group("extract_turns");
    group.sample_size(10);
    for (name, text) in [("real x6", real_times(6)), ("dense 1500 statements", dense(1500))] {
        let kept = extract(memory.path(), &text);
        eprintln!("{name}: {:.1} MB, {kept} entries kept", text.len() as f64 / 1e6);
        assert!(kept > 0, "{name}: nothing kept");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter_batched(|| (), |()| black_box(extract(memory.path(), &text)), BatchSize::PerIteration)
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
