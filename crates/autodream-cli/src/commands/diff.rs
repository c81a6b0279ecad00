//! `autodream diff [TASK]`: what a dream changed, as a unified diff (default: the last).

use clap::Args;

use autodream_core::dream::history;

use crate::context;
use crate::global::GlobalArgs;
use crate::output::out;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The dream's id (see `autodream history`); default the last
    pub task: Option<String>,
}

pub fn run(global: &GlobalArgs, args: DiffArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let m = history::find(&ctx.locations, args.task.as_deref())?;
    out!("{}", history::diff(&ctx.locations, &m))?;
    if !m.conflicts.is_empty() {
        eprintln!("note: kept the newer disk versions of {}", m.conflicts.join(", "));
    }
    Ok(0)
}
