//! `autodream history`: every dream and undo, newest last.

use clap::Args;

use autodream_core::dream::history;

use crate::commands::print_json;
use crate::context;
use crate::global::GlobalArgs;
use crate::output::outln;

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: HistoryArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let all = history::list(&ctx.locations);
    if args.json {
        print_json(&serde_json::json!({ "dreams": all }))?;
        return Ok(0);
    }
    if all.is_empty() {
        outln!("no dream recorded yet")?;
        return Ok(0);
    }
    for m in &all {
        let tokens = if m.tokens.total() > 0 {
            format!(
                ", {} tokens{}",
                m.tokens.total(),
                m.cost_usd.map(|c| format!(" ≈ ${c:.4}")).unwrap_or_default()
            )
        } else {
            String::new()
        };
        // Memory files are what the agent reads; the engine's own data is counted apart.
        let files = m.memory_changes().count();
        let engine = match m.engine_changes().count() {
            0 => String::new(),
            n => format!(" (+ engine data, {n} {})", if n == 1 { "file" } else { "files" }),
        };
        outln!(
            "{}  {:<8} {}  {} {}{engine}{}{}",
            m.task,
            m.engine,
            m.started_at.strftime("%Y-%m-%d %H:%M UTC"),
            files,
            if files == 1 { "file" } else { "files" },
            tokens,
            if m.summary.is_empty() { String::new() } else { format!(" — {}", m.summary) }
        )?;
    }
    Ok(0)
}
