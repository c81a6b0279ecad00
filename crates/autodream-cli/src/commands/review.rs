//! `autodream review`: the dream waiting for review, its diff, and the verdict.
//!
//! Without a verdict it shows the pending dream and its diff (the dry run's rendering).
//! `--accept` applies all of it, `--accept FILE…` only those files (the rest is dropped),
//! `--reject` drops it. Accepting and rejecting take the lock; the work is
//! `autodream_core::dream::review`'s, this file has the arguments and the output.

use clap::Args;

use autodream_core::dream::review::{self, ReviewError};

use crate::commands::print_json;
use crate::global::GlobalArgs;
use crate::output::{out, outln};
use crate::{context, exit};

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Apply the pending dream: all of it, or only the memory files named (the rest is dropped)
    #[arg(long, value_name = "FILE", num_args = 0.., conflicts_with = "reject")]
    pub accept: Option<Vec<String>>,
    /// Drop the pending dream; nothing is applied
    #[arg(long)]
    pub reject: bool,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

fn refusal(e: ReviewError) -> anyhow::Error {
    if e.is_refusal() { exit::refused(e.to_string()) } else { e.into() }
}

pub fn run(global: &GlobalArgs, args: ReviewArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let (loc, clock, cfg) = (&ctx.locations, ctx.clock, ctx.cfg());
    if let Some(files) = &args.accept {
        let only = (!files.is_empty()).then_some(files.as_slice());
        let accepted = review::accept(loc, clock, cfg, only).map_err(refusal)?;
        if args.json {
            print_json(&accepted)?;
            return Ok(0);
        }
        let memory: Vec<&String> =
            accepted.files.iter().filter(|f| !autodream_core::memdir::is_engine_data(f)).collect();
        let n = memory.len();
        outln!("Accepted dream {}: {n} file{} applied", accepted.task, if n == 1 { "" } else { "s" })?;
        for f in memory {
            outln!("  {f}")?;
        }
        for f in &accepted.dropped {
            outln!("  dropped: {f}")?;
        }
        for c in &accepted.conflicts {
            outln!("  kept the newer version on disk: {c}")?;
        }
        for note in &accepted.notes {
            outln!("  note: {note}")?;
        }
        outln!("  (autodream diff shows the changes; autodream undo reverts them)")?;
        return Ok(0);
    }
    if args.reject {
        let rejected = review::reject(loc, clock, cfg).map_err(refusal)?;
        if args.json {
            print_json(&serde_json::json!({ "rejected": rejected.task }))?;
            return Ok(0);
        }
        outln!("Rejected dream {}: nothing was applied", rejected.task)?;
        return Ok(0);
    }
    let Some(pending) = review::load(loc) else {
        if args.json {
            print_json(&serde_json::json!({ "pending": null }))?;
        } else {
            outln!("No dream is waiting for review")?;
        }
        return Ok(0);
    };
    let diff = review::diff(loc, &pending);
    if args.json {
        print_json(&serde_json::json!({ "pending": pending, "diff": diff }))?;
        return Ok(0);
    }
    let n = pending.memory_files().count();
    outln!(
        "Dream {} ({} engine, planned {}) waits for review: {n} file{} would change",
        pending.task,
        pending.engine,
        pending.planned_at.strftime("%Y-%m-%d %H:%M UTC"),
        if n == 1 { "" } else { "s" }
    )?;
    if !pending.summary.is_empty() {
        outln!("  {}", pending.summary)?;
    }
    for note in &pending.notes {
        outln!("  note: {note}")?;
    }
    out!("{diff}")?;
    outln!("autodream review --accept applies it, --accept FILE… only those files, --reject drops it")?;
    Ok(0)
}
