//! `autodream team`: one project memory shared across machines through the project's git
//! remote (`autodream-team`). `init` joins (or creates) the branch, `sync` runs one round,
//! `status` shows it, `run` dreams under the team lease, `leave` stops syncing.
//!
//! The worker and the capture call [`after_capture`] and [`worker_dream`]: sync happens in
//! detached processes only, never in the hook, and a failing remote is recorded for
//! `status` while everything goes on locally.

use clap::{Args, Subcommand};

use autodream_core::dream::{self, DreamError, DreamOptions};
use autodream_hookproc::log_line;
use autodream_team::{DreamRound, RoundReport, Team, TeamError};

use crate::commands::print_json;
use crate::commands::run::cancel_on_signals;
use crate::context::{self, Ctx};
use crate::global::GlobalArgs;
use crate::output::outln;
use crate::{engines, exit};

#[derive(Debug, Args)]
pub struct TeamArgs {
    #[command(subcommand)]
    pub command: TeamCommand,
}

#[derive(Debug, Subcommand)]
pub enum TeamCommand {
    /// Share this memory through the project's git remote (creates or joins the branch)
    Init(InitArgs),
    /// Fetch, merge into the local memory folder, push what is new
    Sync(JsonArgs),
    /// Remote, branch, last sync, ahead/behind, the lease, the last error
    Status(JsonArgs),
    /// Dream now under the team lease (one dreamer at a time across machines)
    Run(TeamRunArgs),
    /// Stop syncing; the local memory stays
    Leave,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// A remote of the project (default `team.remote`, "origin") or a URL
    #[arg(long, value_name = "NAME|URL")]
    pub remote: Option<String>,
    /// The branch that holds the memory (default `team.branch`, "autodream/memory")
    #[arg(long, value_name = "B")]
    pub branch: Option<String>,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct JsonArgs {
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TeamRunArgs {
    /// The engine: offline (default), hygiene, api or claude
    #[arg(long, value_name = "NAME")]
    pub engine: Option<String>,
    /// Dream even when the team dreamt less than `min_hours` ago
    #[arg(long)]
    pub force: bool,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: TeamArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    match args.command {
        TeamCommand::Init(a) => init(&ctx, a),
        TeamCommand::Sync(a) => sync(&ctx, a),
        TeamCommand::Status(a) => status(&ctx, a),
        TeamCommand::Run(a) => team_run(&ctx, a),
        TeamCommand::Leave => {
            if autodream_team::leave(&ctx.locations)? {
                outln!("left the team memory; the local memory folder stays as it is")?;
            } else {
                outln!("this memory folder was not sharing a team memory")?;
            }
            Ok(0)
        }
    }
}

fn open(ctx: &Ctx) -> anyhow::Result<Team> {
    autodream_team::open(&ctx.locations, ctx.cfg(), ctx.clock)?.ok_or_else(|| TeamError::NotJoined.into())
}

fn init(ctx: &Ctx, a: InitArgs) -> anyhow::Result<u8> {
    let (team, report) =
        autodream_team::join(&ctx.locations, ctx.cfg(), ctx.clock, a.remote.as_deref(), a.branch.as_deref())?;
    if a.json {
        print_json(&serde_json::json!({ "joined": team.joined, "sync": report }))?;
        return Ok(0);
    }
    outln!(
        "sharing {} through {} ({}), branch {}, as machine {}",
        ctx.locations.memory_dir.display(),
        team.joined.remote,
        team.joined.url,
        team.joined.branch,
        team.joined.machine
    )?;
    print_report(&report)?;
    Ok(0)
}

fn sync(ctx: &Ctx, a: JsonArgs) -> anyhow::Result<u8> {
    let team = open(ctx)?;
    let report = team.sync()?;
    if a.json {
        print_json(&report)?;
    } else {
        print_report(&report)?;
    }
    Ok(0)
}

fn print_report(r: &RoundReport) -> anyhow::Result<()> {
    if r.received.is_empty() && r.sent.is_empty() && r.conflicts.is_empty() {
        outln!("up to date")?;
    }
    if !r.received.is_empty() {
        outln!("received {} file(s)", r.received.len())?;
    }
    if !r.sent.is_empty() {
        outln!(
            "sent {} file(s)",
            r.sent.iter().filter(|p| *p != autodream_team::layout::LEASE_FILE).count()
        )?;
    }
    for m in &r.merged {
        outln!("  merged {m}")?;
    }
    for c in &r.conflicts {
        outln!("  conflict: both sides edited the same lines; the other version is kept in {c}")?;
    }
    Ok(())
}

fn status(ctx: &Ctx, a: JsonArgs) -> anyhow::Result<u8> {
    let team = open(ctx)?;
    let s = team.status();
    if a.json {
        print_json(&s)?;
        return Ok(0);
    }
    outln!("remote:     {} ({})", s.remote, s.url)?;
    outln!("branch:     {}", s.branch)?;
    outln!("machine:    {}", s.machine)?;
    outln!("last sync:  {}", s.last_sync.map_or("never".into(), |t| t.to_string()))?;
    outln!(
        "ahead:      {} file(s) not pushed; behind: {} commit(s) not merged",
        s.ahead.map_or("?".into(), |n| n.to_string()),
        s.behind.map_or("?".into(), |n| n.to_string())
    )?;
    match s.lease.as_ref().and_then(|l| l.holder.as_ref()) {
        Some(h) => outln!("lease:      held by {} (PID {}) until {}", h.machine, h.pid, h.expires)?,
        None => outln!("lease:      free")?,
    }
    if let Some(e) = &s.last_error {
        outln!("last error: {e}")?;
    }
    Ok(0)
}

/// The local dream for a team round: its task id, or why it did not run.
fn local_dream(
    ctx: &Ctx,
    engine: &str,
    worker: Option<Option<&std::path::Path>>,
) -> Result<Option<String>, String> {
    let engine = engines::by_name(engine).map_err(|e| e.to_string())?;
    let result = dream::run_dream(
        &ctx.locations,
        &ctx.config,
        ctx.clock,
        DreamOptions {
            recheck_gates: worker.is_some(),
            current_session: ctx.current_session.clone(),
            idle_transcript: worker.flatten().map(std::path::Path::to_path_buf),
            cancel: cancel_on_signals(),
            ..DreamOptions::new(engine.as_ref())
        },
    );
    match result {
        Ok(o) => Ok(Some(o.task.id)),
        Err(DreamError::Refused(m)) => Err(format!("no dream: {m}")),
        Err(e) => Err(e.to_string()),
    }
}

fn team_run(ctx: &Ctx, a: TeamRunArgs) -> anyhow::Result<u8> {
    let team = open(ctx)?;
    let engine = a.engine.clone().unwrap_or_else(|| ctx.cfg().engine.clone());
    let round = match team.dream(a.force, || local_dream(ctx, &engine, None)) {
        Err(TeamError::Busy(b)) => return Err(exit::refused(b.to_string())),
        other => other?,
    };
    if a.json {
        print_json(&round)?;
        return Ok(0);
    }
    match round {
        DreamRound::Landed { token, task, .. } => outln!(
            "dream {} landed on {} under lease token {token}",
            task.unwrap_or_else(|| "-".into()),
            team.joined.branch
        )?,
        DreamRound::Local { task, reason } => outln!(
            "dream {} ran locally ({reason}); the next sync delivers it",
            task.unwrap_or_else(|| "-".into())
        )?,
    }
    Ok(0)
}

/// The background worker's dream when the memory folder joined a team: `None` when it did
/// not (the worker dreams as usual). Returns the worker's exit code.
pub fn worker_dream(ctx: &Ctx, transcript: Option<&std::path::Path>) -> Option<u8> {
    let loc = &ctx.locations;
    let team = match autodream_team::open(loc, ctx.cfg(), ctx.clock) {
        Ok(Some(team)) => team,
        Ok(None) => return None,
        Err(e) => {
            log_line(loc, ctx.clock, &format!("team: {e}; dreaming locally"));
            return None;
        }
    };
    let engine = ctx.cfg().engine.clone();
    let code = match team.dream(false, || local_dream(ctx, &engine, Some(transcript))) {
        Ok(DreamRound::Landed { token, task, .. }) => {
            log_line(
                loc,
                ctx.clock,
                &format!("team: dream {} landed (token {token})", task.unwrap_or_default()),
            );
            0
        }
        Ok(DreamRound::Local { reason, .. }) => {
            log_line(loc, ctx.clock, &format!("team: dreamt locally, sync later: {reason}"));
            0
        }
        Err(TeamError::Busy(b)) => {
            log_line(loc, ctx.clock, &format!("team: no dream: {b}"));
            3
        }
        Err(e) => {
            log_line(loc, ctx.clock, &format!("team: {e}"));
            1
        }
    };
    Some(code)
}

/// After a capture wrote entries: one sync, when no other is running on this machine.
pub fn after_capture(ctx: &Ctx) {
    let loc = &ctx.locations;
    let Ok(Some(team)) = autodream_team::open(loc, ctx.cfg(), ctx.clock) else { return };
    let result = team.lock(false).and_then(|_lock| team.sync_locked());
    match result {
        Ok(_) | Err(TeamError::SyncBusy) => {}
        Err(e) => log_line(loc, ctx.clock, &format!("team: sync after capture: {e}")),
    }
}

/// The team's state for `status --json` and the MCP `dream_status`: `null` when this memory
/// folder does not share one. No network: what the last sync saw.
pub fn status_json(ctx: &Ctx) -> serde_json::Value {
    match autodream_team::open(&ctx.locations, ctx.cfg(), ctx.clock) {
        Ok(Some(team)) => serde_json::to_value(team.status()).unwrap_or_default(),
        Ok(None) => serde_json::Value::Null,
        Err(e) => serde_json::json!({ "last_error": e.to_string() }),
    }
}

/// `status`'s team line, when the memory folder shares one.
pub fn print_status(ctx: &Ctx) -> anyhow::Result<()> {
    let Ok(Some(team)) = autodream_team::open(&ctx.locations, ctx.cfg(), ctx.clock) else { return Ok(()) };
    let s = team.status();
    let lease = match s.lease.as_ref().and_then(|l| l.holder.as_ref()) {
        Some(h) => format!("lease held by {} until {}", h.machine, h.expires),
        None => "lease free".into(),
    };
    let last = s.last_sync.map_or("never synced".into(), |t| format!("last sync {t}"));
    outln!("team      {} on {} as {}: {last}, {lease}", s.branch, s.remote, s.machine)?;
    if let Some(e) = &s.last_error {
        outln!("          last error: {e}")?;
    }
    Ok(())
}

/// `doctor`'s check: the remote answers and holds the branch.
pub fn doctor_check(ctx: &Ctx) -> Option<autodream_setup::doctor::Check> {
    use autodream_setup::doctor::{Check, Status};
    let team = autodream_team::open(&ctx.locations, ctx.cfg(), ctx.clock).ok()??;
    let (url, branch) = (&team.joined.url, &team.joined.branch);
    let (status, summary, fix) = match autodream_team::repo::probe(url, branch) {
        Ok(true) => (Status::Ok, format!("{url} answers and holds {branch}"), None),
        Ok(false) => (
            Status::Problem,
            format!("{url} answers but has no branch {branch}"),
            Some("run `autodream team init` again to create it, or `autodream team leave`".to_string()),
        ),
        Err(e) => (
            Status::Warn,
            format!("{url} did not answer: {e}; dreams go on locally and sync later"),
            Some("check the network and your git credentials (`git ls-remote` on that URL)".to_string()),
        ),
    };
    Some(Check { name: "team", status, summary, fix })
}
