//! `autodream check`: the index against the agent's limits, the topic files against the index.
//! `autodream check --stale`: the facts against the repository (what the next dream would move
//! under `## Superseded`, and why; exit 1 when a fact would move).

use clap::Args;

use autodream_core::memdir::index::{self, Severity};
use autodream_core::referents;

use crate::commands::print_json;
use crate::context;
use crate::global::GlobalArgs;
use crate::output::outln;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
    /// Check the facts against the repository instead: list what a dream would move and why
    #[arg(long)]
    pub stale: bool,
}

pub fn run(global: &GlobalArgs, args: CheckArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    if args.stale {
        return stale(&ctx, args.json);
    }
    let cfg = ctx.cfg();
    let report = index::check(&ctx.locations.memory_dir, cfg.index_max_lines, cfg.index_max_units)?;
    let code = if report.errors() > 0 { 1 } else { 0 };
    if args.json {
        print_json(&serde_json::json!({
            "memory_dir": ctx.locations.memory_dir,
            "ok": code == 0,
            "errors": report.errors(),
            "warnings": report.warnings(),
            "report": report,
        }))?;
        return Ok(code);
    }
    context::print_warnings(&ctx);
    outln!(
        "MEMORY.md: {} lines / {} max, {} UTF-16 units / {} max, {} {}; {} topic files",
        report.lines,
        report.max_lines,
        report.units,
        report.max_units,
        report.entries,
        if report.entries == 1 { "entry" } else { "entries" },
        report.topic_files
    )?;
    for f in &report.findings {
        let sev = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let loc = f.line.map_or(f.file.clone(), |l| format!("{}:{l}", f.file));
        outln!("{sev}: {loc}: {}", f.message)?;
    }
    if code == 0 {
        let n = report.warnings();
        outln!("ok ({n} warning{})", if n == 1 { "" } else { "s" })?;
    } else {
        outln!("{} errors, {} warnings", report.errors(), report.warnings())?;
    }
    Ok(code)
}

/// `check --stale`: the dream's repository check, read only, over the memory folder.
fn stale(ctx: &context::Ctx, json: bool) -> anyhow::Result<u8> {
    let loc = &ctx.locations;
    let checker = referents::registered().ok_or_else(|| anyhow::anyhow!("no project checker (a bug)"))?;
    let today = ctx.clock.now().to_zoned(autodream_core::clock::local_tz()).date();
    let report = referents::stale::run(&loc.memory_dir, &loc.project_dir, checker, today, false)?;
    let confirmed = referents::stale::load_confirmed(&loc.engine_data_dir());
    let code = if report.moved.is_empty() { 0 } else { 1 };
    if json {
        print_json(&serde_json::json!({
            "memory_dir": loc.memory_dir,
            "project_dir": loc.project_dir,
            "ok": code == 0,
            "report": report,
            "last_confirmed": confirmed.referents,
        }))?;
        return Ok(code);
    }
    context::print_warnings(ctx);
    if let Some(why) = &report.incomplete {
        outln!("nothing can be declared gone: {why}")?;
    }
    for f in &report.moved {
        outln!("would move: {}:{}: {}", f.file, f.line, f.fact)?;
        outln!("  no longer in the repository: {}", f.referents.join(", "))?;
    }
    for f in &report.restored {
        outln!("would restore: {}:{}: {}", f.file, f.line, f.fact)?;
        outln!("  back in the repository: {}", f.referents.join(", "))?;
    }
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    outln!(
        "{} checked against {} ({} walked in {} ms): {} present, {} would move, {} would come back",
        plural(report.facts_checked, "fact", "facts"),
        loc.project_dir.display(),
        plural(report.files_walked, "file", "files"),
        report.elapsed_ms,
        plural(report.confirmed, "referent", "referents"),
        report.moved.len(),
        report.restored.len()
    )?;
    Ok(code)
}
