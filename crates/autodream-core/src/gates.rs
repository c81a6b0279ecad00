//! The gates, cheapest first, that decide whether a dream should start.
//!
//! | # | gate          | cost                      | passes when                                   |
//! |---|---------------|---------------------------|-----------------------------------------------|
//! | 1 | enabled       | no I/O beyond config      | on, auto memory on, normal mode               |
//! | 2 | time          | one `stat` of the lock    | hours since last consolidation ≥ `min_hours`  |
//! | 3 | scan_throttle | one `stat` of the stamp   | last session scan ≥ `scan_interval` ago       |
//! | 4 | sessions      | one directory scan        | sessions touched since ≥ `min_sessions`       |
//! | 5 | lock          | read of the lock          | no live holder                                |
//!
//! [`check`] stops at the first failure and touches the scan stamp when gate 3 passes (the
//! hook path). [`explain`] computes every gate with no side effects (`status`).

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use jiff::Timestamp;
use serde::Serialize;
use serde_json::json;

use crate::clock::{Clock, from_system_time, hours_between, human_ago, human_duration, to_system_time};
use crate::config::{Config, LoadedConfig, Mode};
use crate::lock::{ConsolidationLock, LockState};
use crate::paths::Locations;
use crate::sessions::SessionWindow;

/// The scan stamp in the state folder: its mtime is the last session scan.
pub use crate::paths::state::SCAN_STAMP;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateName {
    Enabled,
    Time,
    ScanThrottle,
    Sessions,
    Lock,
    /// The daemon's: inside the dream window.
    Window,
    /// The daemon's: sessions or daily-log entries since the last dream.
    NewInput,
}

impl GateName {
    pub fn as_str(self) -> &'static str {
        match self {
            GateName::Enabled => "enabled",
            GateName::Time => "time",
            GateName::ScanThrottle => "scan_throttle",
            GateName::Sessions => "sessions",
            GateName::Lock => "lock",
            GateName::Window => "window",
            GateName::NewInput => "new_input",
        }
    }
}

impl std::fmt::Display for GateName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// One gate's verdict, with what it measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateReport {
    pub name: GateName,
    pub pass: bool,
    /// time: hours since (float, null = never); scan_throttle: minutes since (float, null =
    /// never); sessions: count; enabled: bool; lock: holder PID or null.
    pub value: serde_json::Value,
    pub threshold: serde_json::Value,
    /// A human sentence: "sessions 3/5", "next eligible in 3h12m".
    pub detail: String,
}

/// The gates' combined verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    pub gates: Vec<GateReport>,
    /// The first gate that failed, if any.
    pub failed: Option<GateName>,
    pub last_consolidated_at: Option<Timestamp>,
    /// When the time (and scan) gates next open; `None` when they are open or the gate
    /// that blocks is not a matter of time (disabled, too few sessions).
    pub next_eligible_at: Option<Timestamp>,
    /// Sessions touched since the last consolidation (when gate 4 was computed).
    pub sessions_since: Option<usize>,
}

impl Evaluation {
    pub fn all_pass(&self) -> bool {
        self.failed.is_none()
    }
}

/// What the gates look at.
pub struct GateInput<'a> {
    pub locations: &'a Locations,
    pub config: &'a LoadedConfig,
    pub clock: Clock,
    /// The current session (excluded from the count: its transcript is always fresh).
    pub current_session: Option<&'a str>,
}

/// Who asks gate 1: the hook (at every turn's end) or the daemon (in its window). They differ
/// in one case: in assistant mode only the daemon dreams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dreamer {
    Hook,
    Daemon,
}

/// Gate 1 alone, as the hook asks it: no file I/O.
pub fn enabled_gate(config: &LoadedConfig) -> GateReport {
    enabled_gate_for(config, Dreamer::Hook)
}

/// Gate 1 alone, for the hook or the daemon: no file I/O.
pub fn enabled_gate_for(config: &LoadedConfig, dreamer: Dreamer) -> GateReport {
    let c = &config.config;
    let (pass, detail) = if !c.enabled {
        (false, format!("disabled (enabled = false, from {})", config.enabled_source))
    } else if let Some(off) = &config.auto_memory_off {
        (false, format!("auto memory is off: {}", off.reason))
    } else if c.mode == Mode::Remote {
        (false, "remote mode: dreams do not run in remote sessions".to_string())
    } else {
        match (c.mode, dreamer) {
            (Mode::Assistant, Dreamer::Hook) => (
                false,
                "assistant mode: the hook never dreams; `autodream daemon` distils the daily logs in its window"
                    .to_string(),
            ),
            (Mode::Assistant, Dreamer::Daemon) => (true, "enabled (assistant mode)".to_string()),
            (_, Dreamer::Daemon) => (true, "enabled (normal mode: the hook dreams too)".to_string()),
            (_, Dreamer::Hook) => (true, format!("enabled ({})", config.enabled_source)),
        }
    };
    GateReport { name: GateName::Enabled, pass, value: json!(pass), threshold: json!(true), detail }
}

/// The scan stamp's path.
pub fn scan_stamp_path(locations: &Locations) -> PathBuf {
    locations.state_dir().join(SCAN_STAMP)
}

/// Records a session scan now (the stamp's mtime), without following a link in the state
/// folder.
pub fn touch_scan_stamp(locations: &Locations, now: SystemTime) -> std::io::Result<()> {
    let root = crate::memdir::MemoryRoot::create(&locations.state_dir)?;
    root.touch(SCAN_STAMP, now)?;
    Ok(())
}

/// "Last consolidated at", reading the lock body only when it is not empty (a body means a
/// running or crashed dream, whose prior mtime may be the real answer).
fn last_consolidated(lock: &ConsolidationLock) -> (Option<SystemTime>, Option<LockState>) {
    let Ok(meta) = std::fs::metadata(lock.path()) else { return (None, None) };
    if meta.len() == 0 {
        return (meta.modified().ok(), None);
    }
    let state = lock.state();
    (state.last_consolidated(), Some(state))
}

/// Gate 2 alone: `last` is "last consolidated at". Also returns when the gate next opens,
/// when it is closed.
pub fn time_gate(
    last: Option<SystemTime>,
    now: Timestamp,
    min_hours: f64,
) -> (GateReport, Option<Timestamp>) {
    match last {
        None => (
            GateReport {
                name: GateName::Time,
                pass: true,
                value: serde_json::Value::Null,
                threshold: json!(min_hours),
                detail: "never consolidated".into(),
            },
            None,
        ),
        Some(last) => {
            let last = from_system_time(last);
            let hours = hours_between(last, now);
            let pass = hours >= min_hours;
            let next = last
                .checked_add(jiff::SignedDuration::from_secs_f64(min_hours * 3600.0))
                .unwrap_or(Timestamp::MAX);
            let detail = if pass {
                format!("last ran {}", human_ago(last, now))
            } else {
                let wait = Duration::from_secs_f64(((min_hours - hours) * 3600.0).max(0.0));
                format!("last ran {}; next eligible in {}", human_ago(last, now), human_duration(wait))
            };
            let report = GateReport {
                name: GateName::Time,
                pass,
                value: json!(round2(hours)),
                threshold: json!(min_hours),
                detail,
            };
            (report, (!pass).then_some(next))
        }
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Gate 4 alone: the sessions touched after `since` and not after `now`, minus the current
/// one, against `min_sessions`. Also returns the count, when the folder could be scanned.
pub fn sessions_gate(
    locations: &Locations,
    cfg: &Config,
    since: Option<SystemTime>,
    now: Timestamp,
    current_session: Option<&str>,
) -> (GateReport, Option<usize>) {
    match SessionWindow::for_project(locations, cfg.sessions_format, since, now, current_session).count() {
        Ok(n) => {
            let pass = n >= cfg.min_sessions as usize;
            let detail = if pass {
                format!("sessions {n}/{}", cfg.min_sessions)
            } else {
                format!("sessions {n}/{}: {} more needed", cfg.min_sessions, cfg.min_sessions as usize - n)
            };
            let report = GateReport {
                name: GateName::Sessions,
                pass,
                value: json!(n),
                threshold: json!(cfg.min_sessions),
                detail,
            };
            (report, Some(n))
        }
        Err(e) => {
            let report = GateReport {
                name: GateName::Sessions,
                pass: false,
                value: serde_json::Value::Null,
                threshold: json!(cfg.min_sessions),
                detail: e.to_string(),
            };
            (report, None)
        }
    }
}

/// Runs the gates in order, stopping at the first failure; touches the scan stamp when
/// gate 3 passes. This is the hook's path: keep it cheap.
pub fn check(input: &GateInput<'_>) -> Evaluation {
    run(input, false)
}

/// Computes every gate without side effects (no stamp touched, no lock taken).
pub fn explain(input: &GateInput<'_>) -> Evaluation {
    run(input, true)
}

fn run(input: &GateInput<'_>, explain: bool) -> Evaluation {
    let cfg = &input.config.config;
    let now = input.clock.now();
    let mut eval = Evaluation {
        gates: Vec::new(),
        failed: None,
        last_consolidated_at: None,
        next_eligible_at: None,
        sessions_since: None,
    };
    let record = |eval: &mut Evaluation, g: GateReport| -> bool {
        if !g.pass && eval.failed.is_none() {
            eval.failed = Some(g.name);
        }
        eval.gates.push(g);
        eval.failed.is_none() || explain
    };

    // 1. enabled
    if !record(&mut eval, enabled_gate(input.config)) {
        return eval;
    }

    // 2. time
    let lock = ConsolidationLock::new(&input.locations.memory_dir, input.clock, cfg.stale_lock());
    let (last, lock_state) = last_consolidated(&lock);
    eval.last_consolidated_at = last.map(from_system_time);
    let (time_gate, next) = time_gate(last, now, cfg.min_hours);
    eval.next_eligible_at = next;
    if !record(&mut eval, time_gate) {
        return eval;
    }

    // 3. scan throttle
    let stamp = scan_stamp_path(input.locations);
    let last_scan = std::fs::metadata(&stamp).ok().and_then(|m| m.modified().ok()).map(from_system_time);
    let interval_min = cfg.scan_interval_minutes;
    let scan_gate = match last_scan {
        None => GateReport {
            name: GateName::ScanThrottle,
            pass: true,
            value: serde_json::Value::Null,
            threshold: json!(interval_min),
            detail: "no scan yet".into(),
        },
        Some(t) => {
            let minutes = hours_between(t, now) * 60.0;
            let pass = minutes >= interval_min;
            let detail = if pass {
                format!("last scan {}", human_ago(t, now))
            } else {
                let wait = Duration::from_secs_f64(((interval_min - minutes) * 60.0).max(0.0));
                if eval.next_eligible_at.is_none() {
                    eval.next_eligible_at =
                        t.checked_add(jiff::SignedDuration::from_secs_f64(interval_min * 60.0)).ok();
                }
                format!("scanned {}; next scan in {}", human_ago(t, now), human_duration(wait))
            };
            GateReport {
                name: GateName::ScanThrottle,
                pass,
                value: json!(round2(minutes)),
                threshold: json!(interval_min),
                detail,
            }
        }
    };
    let scan_pass = scan_gate.pass;
    if !record(&mut eval, scan_gate) {
        return eval;
    }
    if scan_pass && !explain {
        // Best effort: a read-only memory dir must not break the hook.
        let _ = touch_scan_stamp(input.locations, to_system_time(now));
    }

    // 4. sessions
    let (sessions_gate, count) = sessions_gate(input.locations, cfg, last, now, input.current_session);
    eval.sessions_since = count;
    if !record(&mut eval, sessions_gate) {
        return eval;
    }

    // 5. lock (explain only: the hook leaves the taking to the worker)
    if explain {
        let state = lock_state.unwrap_or_else(|| lock.state());
        let gate = if state.is_held() {
            let holder = state.holder.as_ref().expect("held implies holder");
            let age = state.mtime.map(|m| human_ago(from_system_time(m), now)).unwrap_or_default();
            GateReport {
                name: GateName::Lock,
                pass: false,
                value: json!(holder.pid),
                threshold: serde_json::Value::Null,
                detail: format!("held by PID {} (refreshed {age})", holder.pid),
            }
        } else {
            let detail = if state.is_abandoned() {
                format!("free (left by PID {}, which is gone)", state.holder.as_ref().map_or(0, |h| h.pid))
            } else {
                "free".into()
            };
            GateReport {
                name: GateName::Lock,
                pass: true,
                value: serde_json::Value::Null,
                threshold: serde_json::Value::Null,
                detail,
            }
        };
        record(&mut eval, gate);
    }
    eval
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, LoadedConfig};
    use filetime::FileTime;

    const UUIDS: [&str; 6] = [
        "00000000-0000-4000-8000-000000000001",
        "00000000-0000-4000-8000-000000000002",
        "00000000-0000-4000-8000-000000000003",
        "00000000-0000-4000-8000-000000000004",
        "00000000-0000-4000-8000-000000000005",
        "00000000-0000-4000-8000-000000000006",
    ];

    struct Fixture {
        _tmp: tempfile::TempDir,
        loc: Locations,
        cfg: LoadedConfig,
    }

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let loc = Locations {
            memory_dir: tmp.path().join("memory"),
            state_dir: tmp.path().join("state"),
            sessions_dir: tmp.path().join("sessions"),
            project_dir: tmp.path().to_path_buf(),
        };
        std::fs::create_dir_all(&loc.memory_dir).unwrap();
        std::fs::create_dir_all(&loc.sessions_dir).unwrap();
        let cfg = LoadedConfig {
            config: Config::default(),
            warnings: vec![],
            file: None,
            auto_memory_off: None,
            client_auto_dream: None,
            enabled_source: "default".into(),
        };
        Fixture { _tmp: tmp, loc, cfg }
    }

    fn at(s: &str) -> Clock {
        Clock::parse(s).unwrap()
    }

    fn session(f: &Fixture, id: &str, mtime: &str) {
        let p = f.loc.sessions_dir.join(format!("{id}.jsonl"));
        std::fs::write(&p, "{}\n").unwrap();
        let t: Timestamp = mtime.parse().unwrap();
        filetime::set_file_mtime(&p, FileTime::from_system_time(to_system_time(t))).unwrap();
    }

    fn set_lock_mtime(f: &Fixture, when: &str) {
        let p = f.loc.lock_path();
        std::fs::write(&p, "").unwrap();
        let t: Timestamp = when.parse().unwrap();
        filetime::set_file_mtime(&p, FileTime::from_system_time(to_system_time(t))).unwrap();
    }

    #[test]
    fn time_gate_fails_first_and_says_when() {
        let f = fixture();
        set_lock_mtime(&f, "2026-05-08T00:00:00Z");
        let input = GateInput {
            locations: &f.loc,
            config: &f.cfg,
            clock: at("2026-05-08T20:48:00Z"),
            current_session: None,
        };
        let e = check(&input);
        assert_eq!(e.failed, Some(GateName::Time));
        assert_eq!(e.gates.len(), 2, "stops at the first failure");
        assert_eq!(e.gates[1].value, json!(20.8));
        assert!(e.gates[1].detail.contains("next eligible in 3h12m"), "{}", e.gates[1].detail);
        assert_eq!(e.next_eligible_at.unwrap().to_string(), "2026-05-09T00:00:00Z");
        assert!(!scan_stamp_path(&f.loc).exists(), "no scan when the time gate is closed");
    }

    #[test]
    fn sessions_gate_counts_touched_since_and_excludes_the_current_one() {
        let f = fixture();
        set_lock_mtime(&f, "2026-05-01T00:00:00Z");
        session(&f, UUIDS[0], "2026-04-30T00:00:00Z"); // before the last dream
        for id in &UUIDS[1..5] {
            session(&f, id, "2026-05-03T00:00:00Z");
        }
        session(&f, UUIDS[5], "2026-05-03T00:00:00Z");
        let clock = at("2026-05-05T00:00:00Z");
        let input = GateInput { locations: &f.loc, config: &f.cfg, clock, current_session: Some(UUIDS[5]) };
        let e = check(&input);
        assert_eq!(e.failed, Some(GateName::Sessions));
        assert_eq!(e.sessions_since, Some(4));
        assert_eq!(e.gates[3].detail, "sessions 4/5: 1 more needed");
        // The scan stamp was touched at the injected now: a second check is throttled.
        let stamp = std::fs::metadata(scan_stamp_path(&f.loc)).unwrap().modified().unwrap();
        assert_eq!(from_system_time(stamp), clock.now());
        let e2 = check(&input);
        assert_eq!(e2.failed, Some(GateName::ScanThrottle));
        // Ten minutes later, with the current session counted as another, all pass.
        let later = GateInput {
            locations: &f.loc,
            config: &f.cfg,
            clock: at("2026-05-05T00:10:00Z"),
            current_session: None,
        };
        assert!(check(&later).all_pass());
    }

    #[test]
    fn explain_has_no_side_effects_and_reports_every_gate() {
        let f = fixture();
        let input = GateInput {
            locations: &f.loc,
            config: &f.cfg,
            clock: at("2026-05-05T00:00:00Z"),
            current_session: None,
        };
        let e = explain(&input);
        assert_eq!(
            e.gates.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(),
            ["enabled", "time", "scan_throttle", "sessions", "lock"]
        );
        assert_eq!(e.failed, Some(GateName::Sessions));
        assert!(!scan_stamp_path(&f.loc).exists());
        assert!(!f.loc.lock_path().exists());
    }

    #[test]
    fn disabled_stops_before_any_io() {
        let mut f = fixture();
        f.cfg.config.enabled = false;
        let input =
            GateInput { locations: &f.loc, config: &f.cfg, clock: Clock::System, current_session: None };
        let e = check(&input);
        assert_eq!(e.failed, Some(GateName::Enabled));
        assert_eq!(e.gates.len(), 1);
        let mut assistant = f.cfg.clone();
        assistant.config.enabled = true;
        assistant.config.mode = Mode::Assistant;
        assert_eq!(check(&GateInput { config: &assistant, ..input }).failed, Some(GateName::Enabled));
    }
}
