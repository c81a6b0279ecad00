//! One offline dream over real Claude Code transcripts (the coding-session path): the two
//! fixtures under `tests/fixtures/real/`, plus every `*.jsonl` of `$AUTODREAM_REAL_SESSIONS`
//! when set (for example the ten real sessions beside the checkout). Target: a dream over
//! ten real sessions (5 MB) in under a second on one core.
//!
//! ```sh
//! cargo bench -p autodream-offline --bench coding
//! AUTODREAM_REAL_SESSIONS=../shared/data/transcripts/real cargo bench -p autodream-offline --bench coding
//! ```

use std::hint::black_box;
use std::path::{Path, PathBuf};

use autodream_core::config::Config;
use autodream_core::engine::{CancelToken, DreamContext, Engine, NullProgress};
use autodream_core::sessions::{ParsedSession, SessionFile, SessionFormat, parse_session};
use autodream_offline::OfflineEngine;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use jiff::tz::TimeZone;

fn transcripts() -> Vec<PathBuf> {
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real")];
    if let Some(extra) = std::env::var_os("AUTODREAM_REAL_SESSIONS") {
        dirs = vec![PathBuf::from(extra)];
    }
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).expect("a folder of transcripts"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn parsed() -> (Vec<ParsedSession>, u64) {
    let mut bytes = 0;
    let sessions = transcripts()
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let text = std::fs::read_to_string(path).expect("readable transcript");
            bytes += text.len() as u64;
            let file = SessionFile {
                id: format!("s{i}"),
                path: path.clone(),
                modified_at: "2026-08-01T00:00:00Z".parse().expect("valid timestamp"),
            };
            parse_session(file, &text, SessionFormat::Claude)
        })
        .collect();
    (sessions, bytes)
}

fn bench(c: &mut Criterion) {
    let (sessions, bytes) = parsed();
    let config = Config::default();
    let engine = OfflineEngine::with_time_zone(TimeZone::UTC);
    let mut group = c.benchmark_group("coding");
    group.throughput(Throughput::Bytes(bytes));
    group.sample_size(20);
    group.bench_function(format!("{} transcripts, {bytes} bytes", sessions.len()), |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("temp dir"),
            |dir| {
                let project = dir.path().join("project");
                let cancel = CancelToken::new();
                let ctx = DreamContext {
                    staging: dir.path(),
                    memory_dir: dir.path(),
                    sessions_dir: dir.path(),
                    project_dir: &project,
                    sessions: &sessions,
                    log_entries: &[],
                    last_consolidated_at: None,
                    now: "2026-08-01T00:00:00Z".parse().expect("valid timestamp"),
                    config: &config,
                    progress: &NullProgress,
                    cancel: &cancel,
                };
                black_box(engine.dream(&ctx).expect("a dream"));
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
