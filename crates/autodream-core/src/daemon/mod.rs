//! Assistant mode's scheduler: `autodream daemon`.
//!
//! In assistant mode the agent appends to the daily logs as it goes and the hook never
//! starts a dream; this long-lived process does, at night. It runs in the foreground under
//! a service manager (the `autodream-setup` crate writes the systemd unit or launchd agent)
//! and ticks every `tick_minutes`. A tick dreams when every one of its gates passes, cheapest first:
//!
//! | gate        | passes when                                                          |
//! |-------------|----------------------------------------------------------------------|
//! | `enabled`   | autodream is on, the client's auto memory is on, not a remote session |
//! | `window`    | the local time is inside `dream_window` (`02:00-05:00`)               |
//! | `time`      | `min_hours` since the last dream (the lock's mtime)                   |
//! | `lock`      | no dream is running                                                  |
//! | `new_input` | ≥ `min_sessions` new sessions **or** ≥ `min_log_entries` new log entries |
//!
//! The dream runs in this process, through the same lifecycle as every other dream
//! ([`crate::dream::run_dream`]): staging copy, validation, journal, history. Stopping the
//! daemon (SIGTERM, SIGINT) cancels it; a cancelled dream rolls back, lock included, and
//! the memory folder is left exactly as it was. (A signal that arrives while the changes
//! are being applied lets the apply finish: it is never torn.)
//!
//! One daemon per memory folder ([`pidfile`]); what it is doing is in `daemon.json`
//! ([`state`]) for `status` and `watch`. The window and tick arithmetic, and the injected
//! clock that makes them testable, are [`schedule`]'s.

pub mod pidfile;
pub mod schedule;
pub mod state;

use std::time::{Duration, Instant};

use jiff::Timestamp;
use serde::Serialize;
use serde_json::json;

use crate::clock::Clock;
use crate::config::LoadedConfig;
use crate::dream::{self, DreamError, DreamOptions};
use crate::engine::{CancelToken, Engine};
use crate::gates::{self, GateName, GateReport};
use crate::lock::ConsolidationLock;
use crate::memdir::daily_log::{self, LogCursor};
use crate::paths::Locations;
use crate::sessions::SessionWindow;

use pidfile::DaemonLock;
use schedule::Ticks;
use state::{DaemonState, LastTick};

/// The configuration keys only the daemon reads: a bad value stops it from starting.
pub const SETTINGS: &[&str] = &["dream_window", "tick_minutes", "min_log_entries"];

#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// A setting of the daemon's own was refused (named with its source and field).
    #[error("{0}")]
    Setting(String),
    #[error(transparent)]
    PidFile(#[from] pidfile::PidFileError),
    #[error("cannot record the daemon's state: {0}")]
    State(#[from] crate::memdir::SafePathError),
}

/// Refuses to start on a bad `dream_window`, `tick_minutes` or `min_log_entries` (the layered
/// configuration fell back to the default and warned; a daemon must not silently run on
/// another schedule than the one written).
pub fn check_settings(config: &LoadedConfig) -> Result<(), DaemonError> {
    match config.warnings.iter().find(|w| SETTINGS.contains(&w.field.as_str())) {
        Some(w) => Err(DaemonError::Setting(format!(
            "{}: {}: {}; the daemon does not start on a setting it cannot read",
            w.source,
            w.field,
            w.message.trim_end_matches("; ignored")
        ))),
        None => Ok(()),
    }
}

/// What a tick did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TickResult {
    /// A dream ran and finished.
    Dreamt,
    /// A gate was closed: nothing was due.
    NotDue,
    /// The dream failed (and changed nothing).
    Failed,
    /// The daemon was stopped during the dream, which rolled back.
    Cancelled,
}

impl TickResult {
    pub fn as_str(self) -> &'static str {
        match self {
            TickResult::Dreamt => "dreamt",
            TickResult::NotDue => "not_due",
            TickResult::Failed => "failed",
            TickResult::Cancelled => "cancelled",
        }
    }
}

/// The dream a tick ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TickDream {
    pub task: String,
    /// "Improved 3 files" or "Nothing to change".
    pub message: String,
    pub files: Vec<String>,
}

/// One tick: when, the gates, and what happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TickReport {
    pub at: Timestamp,
    /// The tick's local time, as the window reads it (`2026-05-08 02:30 UTC`).
    pub local_time: String,
    pub window: String,
    pub gates: Vec<GateReport>,
    /// The first gate that was closed.
    pub waiting_on: Option<GateName>,
    pub result: TickResult,
    /// Why, in a sentence: "no dream: 01:00 is outside 02:00-05:00; it opens in 1h".
    pub detail: String,
    pub dream: Option<TickDream>,
    /// When the next tick is due; `None` for the last one.
    pub next_tick: Option<Timestamp>,
}

/// The gates of a tick at `clock`'s now, with no side effects.
pub fn evaluate(
    loc: &Locations,
    config: &LoadedConfig,
    clock: Clock,
    current_session: Option<&str>,
) -> Vec<GateReport> {
    let cfg = &config.config;
    let now = clock.now();
    let local = schedule::local(now);
    let mut out = Vec::with_capacity(5);

    // enabled: as the hook's gate 1, except that assistant mode is the daemon's to dream
    out.push(gates::enabled_gate_for(config, gates::Dreamer::Daemon));

    // window
    let inside = cfg.dream_window.contains(local.time());
    out.push(GateReport {
        name: GateName::Window,
        pass: inside,
        value: json!(local.strftime("%H:%M").to_string()),
        threshold: json!(cfg.dream_window.to_string()),
        detail: cfg.dream_window.describe(&local),
    });

    // time
    let lock = ConsolidationLock::new(&loc.memory_dir, clock, cfg.stale_lock());
    let lock_state = lock.state();
    let last = lock_state.last_consolidated();
    let (time, _) = gates::time_gate(last, now, cfg.min_hours);
    out.push(time);

    // lock
    let held = lock_state.is_held();
    let holder = lock_state.holder.as_ref().map(|h| h.pid);
    out.push(GateReport {
        name: GateName::Lock,
        pass: !held,
        value: if held { json!(holder) } else { serde_json::Value::Null },
        threshold: serde_json::Value::Null,
        detail: if held {
            format!("a dream is running (PID {})", holder.unwrap_or(0))
        } else {
            "free".into()
        },
    });

    // new input: sessions or daily-log entries since the last dream
    let sessions = SessionWindow::for_project(loc, cfg.sessions_format, last, now, current_session).count();
    let entries = daily_log::count_since(&loc.memory_dir, LogCursor::of_last_dream(loc).as_ref());
    let (pass, value, detail) = match sessions {
        Ok(n) => {
            let pass = n >= cfg.min_sessions as usize || entries >= cfg.min_log_entries as usize;
            let counts =
                format!("sessions {n}/{}, log entries {entries}/{}", cfg.min_sessions, cfg.min_log_entries);
            let detail = if pass { counts } else { format!("{counts}: not enough new input") };
            (pass, json!({ "sessions": n, "log_entries": entries }), detail)
        }
        // The dream would fail on a sessions folder it cannot read (a missing one is empty):
        // closed, with the reason, rather than a failed dream at every tick.
        Err(e) => (false, json!({ "sessions": null, "log_entries": entries }), e.to_string()),
    };
    out.push(GateReport {
        name: GateName::NewInput,
        pass,
        value,
        threshold: json!({ "min_sessions": cfg.min_sessions, "min_log_entries": cfg.min_log_entries }),
        detail,
    });
    out
}

/// The newest transcript touched since the last dream: the dream waits until it has been
/// quiet for `idle_seconds`, as the hook's worker waits for the session it came from.
fn newest_transcript(
    loc: &Locations,
    config: &LoadedConfig,
    clock: Clock,
    current: Option<&str>,
) -> Option<std::path::PathBuf> {
    let cfg = &config.config;
    let last = ConsolidationLock::new(&loc.memory_dir, clock, cfg.stale_lock()).state().last_consolidated();
    let files =
        SessionWindow::for_project(loc, cfg.sessions_format, last, clock.now(), current).files().ok()?;
    files.into_iter().last().map(|f| f.path)
}

/// How a tick dreams.
pub struct TickOptions<'a> {
    pub engine: &'a dyn Engine,
    pub current_session: Option<String>,
    /// Cancels the dream (the daemon's stop signal).
    pub cancel: CancelToken,
}

/// One tick at `clock`'s now: the gates, then the dream when they all pass.
pub fn tick(loc: &Locations, config: &LoadedConfig, clock: Clock, opts: &TickOptions<'_>) -> TickReport {
    let now = clock.now();
    let local = schedule::local(now);
    let gates = evaluate(loc, config, clock, opts.current_session.as_deref());
    let closed = gates.iter().find(|g| !g.pass);
    let mut report = TickReport {
        at: whole_seconds(now),
        local_time: local.strftime("%Y-%m-%d %H:%M %Z").to_string(),
        window: config.config.dream_window.to_string(),
        waiting_on: closed.map(|g| g.name),
        result: TickResult::NotDue,
        detail: closed
            .map(|g| format!("no dream: the {} gate is closed: {}", g.name, g.detail))
            .unwrap_or_default(),
        gates: gates.clone(),
        dream: None,
        next_tick: None,
    };
    if closed.is_some() {
        return report;
    }
    let idle_transcript = newest_transcript(loc, config, clock, opts.current_session.as_deref());
    let result = dream::run_dream(
        loc,
        config,
        clock,
        DreamOptions {
            current_session: opts.current_session.clone(),
            idle_transcript,
            cancel: opts.cancel.clone(),
            ..DreamOptions::new(opts.engine)
        },
    );
    match result {
        Ok(o) => {
            report.result = TickResult::Dreamt;
            report.detail = format!("dreamt: {} (dream {})", o.message, o.task.id);
            report.dream = Some(TickDream { task: o.task.id, message: o.message, files: o.files });
        }
        Err(DreamError::Refused(msg)) => {
            report.waiting_on = Some(GateName::Lock);
            report.detail = format!("no dream: {msg}");
        }
        Err(DreamError::Cancelled) => {
            report.result = TickResult::Cancelled;
            report.detail =
                "stopped during the dream: it was cancelled and rolled back; nothing was changed".into();
        }
        Err(DreamError::Failed(msg)) => {
            report.result = TickResult::Failed;
            report.detail = format!("the dream failed, and changed nothing: {msg}");
        }
    }
    report
}

/// How the daemon runs.
pub struct DaemonOptions<'a> {
    pub tick: TickOptions<'a>,
    /// Real time between ticks; `None`: `tick_minutes` (tests shorten it, while an injected
    /// clock still advances by `tick_minutes` a tick).
    pub real_interval: Option<Duration>,
    /// Stop after this many ticks (`--once`: 1); `None`: until stopped.
    pub max_ticks: Option<u64>,
    /// Keep `daemon.json` up to date (a running daemon; `--once` does not).
    pub record_state: bool,
}

/// How the daemon ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaemonEnd {
    pub ticks: u64,
    /// Stopped by the cancel token (a signal), rather than after `max_ticks`.
    pub stopped: bool,
}

/// The daemon's loop: a tick every `tick_minutes` until `opts.tick.cancel` fires or
/// `max_ticks` have run. `_lock` proves this process is the memory folder's one daemon.
/// `on_tick` sees every tick's report (the CLI prints it).
pub fn run(
    loc: &Locations,
    config: &LoadedConfig,
    clock: Clock,
    _lock: &DaemonLock,
    opts: &DaemonOptions<'_>,
    mut on_tick: impl FnMut(&TickReport),
) -> Result<DaemonEnd, DaemonError> {
    let cfg = &config.config;
    let every = Duration::from_secs_f64(cfg.tick_minutes * 60.0);
    let ticks = Ticks::new(clock, every);
    let real = opts.real_interval.unwrap_or(every);
    let cancel = &opts.tick.cancel;
    let mut state =
        DaemonState::new(whole_seconds(clock.now()), cfg.dream_window.to_string(), cfg.tick_minutes);
    if opts.record_state {
        state.next_tick = Some(whole_seconds(clock.now()));
        state.save(loc)?;
    }
    let mut n = 0u64;
    while !cancel.is_cancelled() {
        let tick_clock = ticks.clock_of(n);
        let mut report = tick(loc, config, tick_clock, &opts.tick);
        n += 1;
        let last = opts.max_ticks.is_some_and(|max| n >= max) || cancel.is_cancelled();
        if !last {
            report.next_tick = Some(if ticks.is_virtual() {
                ticks.next_after(report.at)
            } else {
                whole_seconds(
                    Timestamp::now()
                        .checked_add(jiff::SignedDuration::try_from(real).unwrap_or_default())
                        .unwrap_or(Timestamp::MAX),
                )
            });
        }
        if opts.record_state {
            state.next_tick = report.next_tick;
            state.last_tick = Some(LastTick {
                at: report.at,
                result: report.result.as_str().into(),
                detail: report.detail.clone(),
            });
            // A full disk must not stop the schedule: the next tick tries again.
            let _ = state.save(loc);
        }
        on_tick(&report);
        if last {
            break;
        }
        sleep_unless_cancelled(real, cancel);
    }
    let stopped = cancel.is_cancelled();
    if opts.record_state {
        state.next_tick = None;
        state.stopped_at = Some(whole_seconds(ticks.clock_of(n.saturating_sub(1)).now()));
        state.save(loc)?;
    }
    Ok(DaemonEnd { ticks: n, stopped })
}

/// An instant to the second, as reports show it.
fn whole_seconds(t: Timestamp) -> Timestamp {
    t.round(jiff::Unit::Second).unwrap_or(t)
}

/// Sleeps `d`, waking early when `cancel` fires.
fn sleep_unless_cancelled(d: Duration, cancel: &CancelToken) {
    let until = Instant::now() + d;
    while !cancel.is_cancelled() {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}
