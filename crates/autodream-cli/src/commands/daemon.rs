//! `autodream daemon`: assistant mode's scheduler, run in the foreground by a service manager.
//!
//! The schedule, the gates, the dream and the pid lock are `autodream_core::daemon`'s; this
//! file parses the flags, wires SIGTERM and SIGINT to a clean stop, and prints one line per
//! tick (or, with `--once`, the whole gate report).

use std::time::Duration;

use clap::Args;

use autodream_core::daemon::state::DaemonStatus;
use autodream_core::daemon::{self, DaemonOptions, TickOptions, TickReport, TickResult, pidfile::DaemonLock};

use crate::commands::print_json;
use crate::commands::run::cancel_on_signals;
use crate::global::GlobalArgs;
use crate::output::outln;
use crate::{context, engines, exit};

#[derive(Debug, Args)]
pub struct DaemonArgs {
    /// Run one tick, print its gate report and exit (0 when it dreamt or nothing was due)
    #[arg(long)]
    pub once: bool,
    /// With --once: print the report as one JSON object
    #[arg(long, requires = "once")]
    pub json: bool,
    /// Real seconds between ticks, instead of tick_minutes (an injected AUTODREAM_NOW still
    /// advances by tick_minutes a tick): for tests
    #[arg(long, hide = true, value_name = "SECS")]
    pub tick_seconds: Option<f64>,
    /// Stop after this many ticks: for tests
    #[arg(long, hide = true, value_name = "N")]
    pub ticks: Option<u64>,
}

pub fn run(global: &GlobalArgs, args: DaemonArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    // A schedule it cannot read is refused (exit 2), never replaced by the default.
    daemon::check_settings(&ctx.config).map_err(|e| exit::usage(e.to_string()))?;
    if !args.json {
        context::print_warnings(&ctx);
    }
    let loc = &ctx.locations;
    let cfg = ctx.cfg();
    let engine = engines::by_name(&cfg.engine)?;
    let lock = match DaemonLock::acquire(loc) {
        Ok(lock) => lock,
        Err(e @ daemon::pidfile::PidFileError::Held { .. }) => return Err(exit::refused(e.to_string())),
        Err(e) => return Err(e.into()),
    };
    let real_interval = match args.tick_seconds {
        Some(s) if s.is_finite() && s >= 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => return Err(exit::usage(format!("--tick-seconds {s}: expected a number ≥ 0"))),
        None => None,
    };
    let opts = DaemonOptions {
        tick: TickOptions {
            engine: engine.as_ref(),
            current_session: ctx.current_session.clone(),
            cancel: cancel_on_signals(),
        },
        real_interval,
        max_ticks: if args.once { Some(1) } else { args.ticks },
        record_state: !args.once,
    };
    if args.once {
        let mut last = None;
        daemon::run(loc, &ctx.config, ctx.clock, &lock, &opts, |r| last = Some(r.clone()))?;
        let report = last.expect("one tick ran");
        if args.json {
            print_json(&report)?;
        } else {
            print_report(&report)?;
        }
        return Ok(if report.result == TickResult::Failed { exit::ERROR } else { exit::OK });
    }
    outln!(
        "autodream daemon (PID {}) for {}: a tick every {}, dreams between {} local time",
        std::process::id(),
        loc.memory_dir.display(),
        minutes(cfg.tick_minutes),
        cfg.dream_window
    )?;
    // A reader that went away stops the schedule like SIGTERM does, then the error says why.
    let mut closed: Option<std::io::Error> = None;
    let stop = opts.tick.cancel.clone();
    let end = daemon::run(loc, &ctx.config, ctx.clock, &lock, &opts, |r| {
        if closed.is_none()
            && let Err(e) = outln!("{} {}", r.at, r.detail)
        {
            closed = Some(e);
            stop.cancel();
        }
    })?;
    if let Some(e) = closed {
        return Err(e.into());
    }
    if end.stopped {
        outln!("stopped after {} tick{}", end.ticks, if end.ticks == 1 { "" } else { "s" })?;
    }
    Ok(exit::OK)
}

fn minutes(m: f64) -> String {
    autodream_core::clock::human_duration(Duration::from_secs_f64(m * 60.0))
}

/// `--once`'s report: the tick, every gate, the verdict.
fn print_report(r: &TickReport) -> std::io::Result<()> {
    outln!("tick      {}", r.local_time)?;
    outln!("gates")?;
    for g in &r.gates {
        let mark = if g.pass { "ok  " } else { "FAIL" };
        outln!("  {mark} {:<10} {}", g.name, g.detail)?;
    }
    outln!("verdict   {}", r.detail)?;
    if let Some(d) = &r.dream {
        let shown: Vec<&String> =
            d.files.iter().filter(|f| !f.split('/').any(|c| c.starts_with('.'))).collect();
        for f in shown {
            outln!("  {f}")?;
        }
    }
    Ok(())
}

/// The daemon's lines for `status` and `watch`: running or not, PID, next tick, window,
/// last tick. Empty when no daemon ever ran for this memory folder.
pub fn status_lines(status: Option<&DaemonStatus>, now: jiff::Timestamp) -> Vec<String> {
    let Some(s) = status else { return Vec::new() };
    let st = &s.state;
    let mut lines = Vec::new();
    if s.running {
        let next = st.next_tick.map(|t| {
            let wait = (t.as_second() - now.as_second()).max(0) as u64;
            format!(", next tick in {}", autodream_core::clock::human_duration(Duration::from_secs(wait)))
        });
        lines.push(format!(
            "daemon    running (PID {}), window {}, a tick every {}{}",
            st.pid,
            st.window,
            minutes(st.tick_minutes),
            next.unwrap_or_default()
        ));
    } else {
        let how = if st.stopped_at.is_some() { "stopped" } else { "not running (it did not stop cleanly)" };
        lines.push(format!("daemon    {how} (was PID {}), window {}", st.pid, st.window));
    }
    if let Some(t) = &st.last_tick {
        lines.push(format!("          last tick {}: {}", t.at, t.detail));
    }
    lines
}

/// The daemon's state for this memory folder (`status`, `watch`).
fn read_status(ctx: &context::Ctx) -> Option<DaemonStatus> {
    autodream_core::daemon::state::read(&ctx.locations)
}

/// `status --json` with the daemon's state under `"daemon"`: shown when a daemon ever ran
/// for this memory folder, or in assistant mode (`null`: none ever ran).
pub fn with_status_json(mut v: serde_json::Value, ctx: &context::Ctx) -> serde_json::Value {
    let status = read_status(ctx);
    if (status.is_some() || ctx.cfg().mode == autodream_core::config::Mode::Assistant)
        && let Some(obj) = v.as_object_mut()
    {
        obj.insert("daemon".into(), serde_json::to_value(&status).unwrap_or_default());
    }
    v
}

/// `status`'s daemon lines (none when no daemon ever ran and the mode is not assistant).
pub fn print_status(ctx: &context::Ctx) -> std::io::Result<()> {
    for line in watch_lines(ctx) {
        outln!("{line}")?;
    }
    Ok(())
}

/// The daemon's lines, as `status` prints them and `watch` shows them above the dream.
pub fn watch_lines(ctx: &context::Ctx) -> Vec<String> {
    let status = read_status(ctx);
    let mut lines = status_lines(status.as_ref(), ctx.clock.now());
    if lines.is_empty() && ctx.cfg().mode == autodream_core::config::Mode::Assistant {
        lines.push("daemon    not running: in assistant mode only `autodream daemon` dreams".into());
    }
    lines
}
