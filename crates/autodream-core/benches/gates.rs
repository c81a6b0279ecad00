//! In-process cost of the hook's gates, without process start-up.
//!
//! - `sessions_gate/count_touched_since_10000`: the sessions gate's directory scan over
//!   10,000 UUID-named transcripts, half of them touched since the lock.
//! - `hook_gates/time_closed`: `gates::check` when the lock is fresh (the 99% case).
//! - `hook_gates/sessions_closed_10000`: `gates::check` with the time gate open and the
//!   scan stamp aged before every call (kept, as between two real scans), so it scans all
//!   10,000 and then closes.
//! - `hook_gates/config_load`: `Config::load` as the hook calls it, with no config file or
//!   settings in an empty agent home.
//!
//! Every bench checks what it measured (the count, the gate that closed) before and after
//! timing, so a change that makes the gate cheaper by skipping work fails here.
//!
//! Run: `cargo bench -p autodream-core --bench gates` (or `cargo test -p autodream-core
//! --benches` to run each once as a test). `AUTODREAM_BENCH_SESSIONS` changes the count.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

use autodream_core::Clock;
use autodream_core::clock::to_system_time;
use autodream_core::config::{Config, LoadOptions, LoadedConfig};
use autodream_core::gates::{self, GateInput, GateName};
use autodream_core::paths::Locations;
use autodream_core::sessions::{SessionFormat, count_touched_since};

/// Transcript mtimes take this many distinct values, one hour apart; the lock sits halfway.
const MTIME_BUCKETS: usize = 100;
const HOUR: u64 = 3600;

/// A memory dir and a sessions dir with `sessions` transcripts, the lock halfway through
/// their mtimes.
struct Fixture {
    _tmp: tempfile::TempDir,
    locations: Locations,
    /// The instant the gates run at (the newest transcript is an hour older).
    now: SystemTime,
    /// The lock's mtime: "last consolidated at".
    lock_mtime: SystemTime,
    /// Transcripts touched strictly after the lock, counted while creating them.
    touched_since_lock: usize,
    sessions: usize,
}

fn session_count() -> usize {
    std::env::var("AUTODREAM_BENCH_SESSIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000)
}

/// A UUID-shaped session id, deterministic from `i`.
fn session_id(i: usize) -> String {
    format!("{:08x}-7a1e-4c3d-9b2f-{:012x}", i, (i as u64).wrapping_mul(2_654_435_761) & 0xffff_ffff_ffff)
}

fn set_mtime(path: &Path, when: SystemTime) {
    let file = std::fs::OpenOptions::new().write(true).open(path).expect("open fixture file");
    file.set_modified(when).expect("set fixture mtime");
}

fn fixture(sessions: usize) -> Fixture {
    let tmp = tempfile::tempdir().expect("temp dir");
    let locations = Locations {
        memory_dir: tmp.path().join("memory"),
        state_dir: tmp.path().join("state"),
        sessions_dir: tmp.path().join("sessions"),
        project_dir: tmp.path().to_path_buf(),
    };
    // The lock lives in the memory folder, the scan stamp in the state folder.
    std::fs::create_dir_all(&locations.memory_dir).expect("memory dir");
    std::fs::create_dir_all(locations.state_dir()).expect("state dir");
    std::fs::create_dir_all(&locations.sessions_dir).expect("sessions dir");

    // A fixed "now" (whole seconds) keeps every comparison exact.
    let now = to_system_time("2026-05-08T12:00:00Z".parse().expect("instant"));
    let lock_mtime = now - Duration::from_secs(MTIME_BUCKETS as u64 / 2 * HOUR + HOUR / 2);
    let mut touched_since_lock = 0;
    for i in 0..sessions {
        let bucket = (i * MTIME_BUCKETS / sessions.max(1)) as u64;
        let mtime = now - Duration::from_secs((bucket + 1) * HOUR);
        let path = locations.sessions_dir.join(format!("{}.jsonl", session_id(i)));
        std::fs::write(&path, format!("{{\"type\":\"user\",\"message\":{{\"content\":\"note {i}\"}}}}\n"))
            .expect("write transcript");
        set_mtime(&path, mtime);
        if mtime > lock_mtime {
            touched_since_lock += 1;
        }
    }
    // Files the gate must skip: a subagent transcript and the memory folder itself.
    std::fs::write(locations.sessions_dir.join("agent-0001.jsonl"), "{}\n").expect("agent file");
    std::fs::write(locations.lock_path(), "").expect("lock");
    set_mtime(&locations.lock_path(), lock_mtime);
    Fixture { _tmp: tmp, locations, now, lock_mtime, touched_since_lock, sessions }
}

fn config_with_min_sessions(min_sessions: u32) -> LoadedConfig {
    let config = Config { min_sessions, ..Config::default() };
    LoadedConfig {
        config,
        warnings: vec![],
        file: None,
        auto_memory_off: None,
        client_auto_dream: None,
        enabled_source: "bench".into(),
    }
}

fn clock_at(t: SystemTime) -> Clock {
    Clock::Fixed(autodream_core::clock::from_system_time(t))
}

fn sessions_gate(c: &mut Criterion) {
    let f = fixture(session_count());
    let dir = &f.locations.sessions_dir;
    let count = || count_touched_since(dir, SessionFormat::Auto, Some(f.lock_mtime), None).expect("scan");
    assert_eq!(
        count(),
        f.touched_since_lock,
        "the scan must count exactly the transcripts newer than the lock"
    );

    let mut group = c.benchmark_group("sessions_gate");
    group.throughput(Throughput::Elements(f.sessions as u64));
    group.bench_function(format!("count_touched_since_{}", f.sessions), |b| b.iter(|| black_box(count())));
    group.finish();
    assert_eq!(count(), f.touched_since_lock);
    println!(
        "RESULT sessions_gate_count={} of {} transcripts ({} touched since the lock)",
        count(),
        f.sessions,
        f.touched_since_lock
    );
}

fn hook_gates(c: &mut Criterion) {
    let f = fixture(session_count());
    let mut group = c.benchmark_group("hook_gates");

    // Time gate closed: the lock was refreshed a minute before now.
    let fresh = fixture(0);
    set_mtime(&fresh.locations.lock_path(), fresh.now - Duration::from_secs(60));
    let cfg = config_with_min_sessions(5);
    let closed_input = GateInput {
        locations: &fresh.locations,
        config: &cfg,
        clock: clock_at(fresh.now),
        current_session: None,
    };
    let closed = || gates::check(&closed_input);
    assert_eq!(closed().failed, Some(GateName::Time));
    group.bench_function("time_closed", |b| b.iter(|| black_box(closed())));
    assert!(!gates::scan_stamp_path(&fresh.locations).exists(), "a closed time gate must not scan");

    // Time gate open, scan stamp a day old, sessions gate closed after a full scan.
    let many = config_with_min_sessions(u32::try_from(f.sessions + 1).unwrap_or(u32::MAX));
    let scan_input =
        GateInput { locations: &f.locations, config: &many, clock: clock_at(f.now), current_session: None };
    let stamp = gates::scan_stamp_path(&f.locations);
    let first = gates::check(&scan_input);
    assert_eq!(first.failed, Some(GateName::Sessions));
    assert_eq!(first.sessions_since, Some(f.touched_since_lock));
    let age_stamp = || set_mtime(&stamp, f.now - Duration::from_secs(24 * HOUR));
    age_stamp();
    assert_eq!(gates::check(&scan_input).failed, Some(GateName::Sessions), "an aged stamp lets the scan run");
    assert_eq!(gates::check(&scan_input).failed, Some(GateName::ScanThrottle), "a fresh stamp throttles it");
    group.throughput(Throughput::Elements(f.sessions as u64));
    group.bench_function(format!("sessions_closed_{}", f.sessions), |b| {
        b.iter_batched(age_stamp, |()| black_box(gates::check(&scan_input)), BatchSize::PerIteration)
    });
    let touched = std::fs::metadata(&stamp).and_then(|m| m.modified()).expect("stamp mtime");
    assert_eq!(touched, f.now, "every scan touches the stamp at the gates' now");

    // The configuration load the hook does before the gates, in an empty agent home.
    let home = tempfile::tempdir().expect("temp dir");
    let agent_base: PathBuf = home.path().join(".claude");
    let options = LoadOptions {
        config_file: None,
        flags: Vec::new(),
        project_dir: Some(home.path().to_path_buf()),
        agent_base: Some(agent_base),
    };
    let loaded = Config::load(&options).expect("config");
    assert!(loaded.config.enabled, "the defaults leave dreaming on");
    group.throughput(Throughput::Elements(1));
    group.bench_function("config_load", |b| b.iter(|| black_box(Config::load(&options))));
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    targets = sessions_gate, hook_gates
}
criterion_main!(benches);
