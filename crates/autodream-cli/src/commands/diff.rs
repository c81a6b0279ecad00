//! `autodream diff [TASK] [--all]`: what a dream changed, as a unified diff (default: the
//! last). The memory files in full; the engine's own data (its record and archive) in one line
//! per file unless `--all`.

use clap::Args;

use autodream_core::dream::history;

use crate::context;
use crate::global::GlobalArgs;
use crate::output::out;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The dream's id (see `autodream history`); default the last
    pub task: Option<String>,
    /// Show the engine's own data in full too (by default one line per file)
    #[arg(long)]
    pub all: bool,
}

pub fn run(global: &GlobalArgs, args: DiffArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let m = history::find(&ctx.locations, args.task.as_deref())?;
    out!("{}", history::diff(&ctx.locations, &m, args.all))?;
    if !m.conflicts.is_empty() {
        eprintln!("note: kept the newer disk versions of {}", m.conflicts.join(", "));
    }
    Ok(0)
}
