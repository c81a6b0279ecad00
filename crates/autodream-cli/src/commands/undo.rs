//! `autodream undo [TASK]`: restore what a dream replaced, byte for byte.
//!
//! Refuses when a file changed since the dream (unless `--force`). The undo itself, under
//! the lock, is `autodream_core::dream::undo`'s; this file has the arguments and the output.

use clap::Args;

use autodream_core::dream::undo;

use crate::global::GlobalArgs;
use crate::output::outln;
use crate::{context, exit};

#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The dream's id (see `autodream history`); default the last
    pub task: Option<String>,
    /// Restore even files that changed since the dream (their current text is kept in history)
    #[arg(long)]
    pub force: bool,
}

pub fn run(global: &GlobalArgs, args: UndoArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let result = undo::undo(&ctx.locations, ctx.clock, ctx.cfg(), args.task.as_deref(), args.force);
    let result = match result {
        Ok(r) => r,
        Err(e) if e.is_refusal() => return Err(exit::refused(e.to_string())),
        Err(e) => return Err(e.into()),
    };
    match result {
        Ok(record) => {
            outln!("{}", record.summary)?;
            for c in &record.changes {
                outln!("  {}", c.path)?;
            }
            Ok(0)
        }
        Err(conflicts) => {
            for c in &conflicts {
                if c.path.is_empty() {
                    eprintln!("refused: {}", c.reason);
                } else {
                    eprintln!("refused: {}: {}", c.path, c.reason);
                }
            }
            anyhow::bail!("nothing was undone (use --force to restore anyway)")
        }
    }
}
