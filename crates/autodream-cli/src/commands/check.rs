//! `autodream check`: the index against the agent's limits, the topic files against the index.

use clap::Args;

use autodream_core::memdir::index::{self, Severity};

use crate::commands::print_json;
use crate::context;
use crate::global::GlobalArgs;
use crate::output::outln;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: CheckArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
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
