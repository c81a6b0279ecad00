//! `autodream undo [TASK]`: restore what a dream replaced, byte for byte.
//!
//! Refuses when a file changed since the dream (unless `--force`). The undo takes the lock
//! so it never races a dream, and is itself recorded in the history.

use clap::Args;

use autodream_core::dream::{self, history};
use autodream_core::lock::{Acquire, ConsolidationLock};

use crate::cli::GlobalArgs;
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
    let mem = &ctx.locations.memory_dir;
    dream::recover(&ctx.locations, ctx.clock, ctx.cfg())?;
    let m = match args.task.as_deref() {
        Some(id) => history::find(mem, Some(id))?,
        None => {
            if history::list(mem).is_empty() {
                anyhow::bail!("no dream recorded yet");
            }
            // A second plain `undo` must not re-apply what the first one undid.
            history::latest_undoable(mem)?
        }
    };
    let lock = ConsolidationLock::new(mem, ctx.clock, ctx.cfg().stale_lock());
    let token = match lock.try_acquire(std::process::id())? {
        Acquire::Acquired(t) => t,
        Acquire::Held { holder, .. } => {
            return Err(exit::refused(format!(
                "a dream is running (PID {}): try again after it",
                holder.pid
            )));
        }
        Acquire::LostRace => return Err(exit::refused("another process took the lock first")),
    };
    let undo_id = format!("undo-{}", m.task);
    let result = history::undo(mem, &m, &undo_id, ctx.clock.now(), args.force);
    // An undo is not a consolidation: the time gate keeps its previous "last ran".
    lock.rollback(&token)?;
    match result? {
        Ok(record) => {
            println!("{}", record.summary);
            for c in &record.changes {
                println!("  {}", c.path);
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
