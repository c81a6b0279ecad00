//! `autodream status`: every gate with its value and verdict, and the last dream.

use clap::Args;
use serde_json::json;

use autodream_core::clock::human_ago;
use autodream_core::gates::{self, GateInput};
use autodream_core::memdir::index;
use autodream_core::paths::MemorySource;
use autodream_core::usage;

use crate::commands::print_json;
use crate::context;
use crate::global::GlobalArgs;
use crate::output::outln;

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: StatusArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let loc = &ctx.locations;
    // A dream that died half-way through applying is finished or undone before we report.
    let recovery = autodream_core::dream::recover(loc, ctx.clock, ctx.cfg()).ok().flatten();
    let eval = gates::explain(&GateInput {
        locations: loc,
        config: &ctx.config,
        clock: ctx.clock,
        current_session: ctx.current_session.as_deref(),
    });
    let task = autodream_core::dream::task::load_effective(loc, ctx.clock, ctx.cfg());
    let now = ctx.clock.now();
    let used = usage::refresh(loc, ctx.cfg().sessions_format, now);
    let follow = usage::follow_rate(&used, &loc.memory_dir, usage::FOLLOW_WINDOW);
    if args.json {
        print_json(&with_pending(
            loc,
            crate::commands::daemon::with_status_json(
                json!({
                    "memory_dir": loc.memory_dir,
                    "memory_source": ctx.memory_source.as_ref().map(|s| s.to_string()),
                    "state_dir": loc.state_dir,
                    "sessions_dir": loc.sessions_dir,
                    "enabled": eval.gates.first().is_some_and(|g| g.pass),
                    "last_consolidated_at": eval.last_consolidated_at,
                    "next_eligible_at": eval.next_eligible_at,
                    "config_file": ctx.config.file,
                    "config_warnings": ctx.config.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
                    "gates": eval.gates,
                    "would_dream": eval.all_pass(),
                    "task": task,
                    "recovered": recovery,
                    "sandbox": autodream_llm::landlock_status().to_string(),
                    "extraction": extraction_summary(&ctx),
                    "cost": cost_report(&ctx),
                    "usage": usage_json(&used, &follow),
                    "team": crate::commands::team::status_json(&ctx),
                }),
                &ctx,
            ),
        ))?;
        return Ok(0);
    }
    context::print_warnings(&ctx);
    let cfg = ctx.cfg();
    let idx = index::check(&loc.memory_dir, cfg.index_max_lines, cfg.index_max_units).ok();
    outln!("memory    {}", loc.memory_dir.display())?;
    if let Some(
        source @ (MemorySource::Setting(_)
        | MemorySource::CoworkOverride
        | MemorySource::Layout { remote: true }),
    ) = &ctx.memory_source
    {
        outln!("          where the client loads it: {source}")?;
    }
    if let Some(r) = &idx {
        outln!(
            "          MEMORY.md {} lines, {} topic files{}",
            r.lines,
            r.topic_files,
            if r.errors() > 0 {
                format!(", {} problems (run `autodream check`)", r.errors())
            } else {
                String::new()
            }
        )?;
    }
    if follow.topics > 0 {
        outln!("          {}", follow.sentence())?;
    }
    outln!("sessions  {}", loc.sessions_dir.display())?;
    match cfg.engine.as_str() {
        "api" | "agent" => {
            let sandbox = autodream_llm::landlock_status();
            outln!(
                "sandbox   {sandbox} (without it, the API engine's tools rely on their own path checks alone)"
            )?;
        }
        "claude" => {
            let sandbox = autodream_llm::landlock_status();
            outln!(
                "sandbox   {sandbox} (without it, only the client's own permissions keep its writes in the copy)"
            )?;
        }
        _ => {}
    }
    match eval.last_consolidated_at {
        Some(t) => outln!("last ran  {} ({})", human_ago(t, now), t.strftime("%Y-%m-%d %H:%M UTC"))?,
        None => outln!("last ran  never")?,
    }
    if let Some(r) = &recovery {
        outln!("recovered {r}")?;
    }
    outln!("gates")?;
    for g in &eval.gates {
        let mark = if g.pass { "ok  " } else { "FAIL" };
        outln!("  {mark} {:<14} {}", g.name.as_str(), g.detail)?;
    }
    let verdict = match eval.failed {
        None => "a dream would start at the next hook".to_string(),
        Some(name) => format!("waiting on the {} gate", name.as_str()),
    };
    outln!("verdict   {verdict}")?;
    if let Some(next) = eval.next_eligible_at {
        let wait = next.as_second() - now.as_second();
        if wait > 0 {
            outln!(
                "next      eligible in {}",
                autodream_core::clock::human_duration(std::time::Duration::from_secs(wait as u64))
            )?;
        }
    }
    print_extraction(&ctx)?;
    print_cost(&ctx)?;
    crate::commands::daemon::print_status(&ctx)?;
    if let Some(p) = autodream_core::dream::review::load(loc) {
        let n = p.memory_files().count();
        outln!(
            "review    dream {} waits for review: {n} file{} would change (autodream review)",
            p.task,
            if n == 1 { "" } else { "s" }
        )?;
    }
    crate::commands::team::print_status(&ctx)?;
    if let Some(t) = &task {
        outln!("dream     {}", t.one_line(now))?;
        for turn in t.turns.iter().rev().take(6).rev() {
            outln!("          · {}", turn.display_line())?;
        }
    }
    Ok(0)
}

/// Per-turn extraction: the mode, log entries since the last dream, entries written today,
/// and each session's last extraction.
fn extraction_summary(ctx: &context::Ctx) -> autodream_core::capture::Summary {
    let today = ctx.clock.now_local().date();
    autodream_core::capture::Summary::read(&ctx.locations, ctx.cfg().extract, today)
}

fn print_extraction(ctx: &context::Ctx) -> std::io::Result<()> {
    let lines = extraction_summary(ctx).lines(ctx.clock.now(), 5);
    for (i, line) in lines.iter().enumerate() {
        outln!("{}{line}", if i == 0 { "extract   " } else { "          " })?;
    }
    Ok(())
}

/// What memory costs: MEMORY.md in every session's context, the LLM dreams' tokens and cost.
fn cost_report(ctx: &context::Ctx) -> autodream_core::dream::cost::CostReport {
    autodream_core::dream::cost::report(&ctx.locations, ctx.cfg(), ctx.clock.now_local().date())
}

fn print_cost(ctx: &context::Ctx) -> std::io::Result<()> {
    for (i, line) in cost_report(ctx).lines().iter().enumerate() {
        outln!("{}{line}", if i == 0 { "cost      " } else { "          " })?;
    }
    Ok(())
}

/// What the agent read from memory: the follow rate and the counts per file.
fn usage_json(used: &usage::Usage, follow: &usage::FollowRate) -> serde_json::Value {
    json!({
        "follow_rate": follow.sentence(),
        "sessions": follow.sessions,
        "topics": follow.topics,
        "topics_read": follow.read,
        "read": follow.read_topics,
        "unread": follow.unread,
        "sessions_counted": used.sessions.len(),
        "mcp_calls": used.mcp_calls,
        "files": used.totals,
    })
}

/// `status --json` with `pending_review` when a dream waits for review.
fn with_pending(loc: &autodream_core::paths::Locations, mut status: serde_json::Value) -> serde_json::Value {
    if let Some(p) = autodream_core::dream::review::load(loc) {
        status["pending_review"] = json!({
            "task": p.task,
            "planned_at": p.planned_at,
            "files": p.memory_files().map(|f| f.path.clone()).collect::<Vec<_>>(),
        });
    }
    status
}
