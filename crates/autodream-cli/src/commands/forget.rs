//! `autodream forget TEXT`: retire the facts that mention TEXT, without an editor.
//!
//! The matching fact lines leave their files for `.archive/forgotten.md`, with the day. It
//! runs under the lock and the dream's transaction, so `autodream history` lists it and
//! `autodream undo` brings the facts back; it does not count as a dream (the time gate and
//! the daily-log cursor stay as they were). `--dry-run` shows the change and applies nothing.

use clap::Args;

use autodream_core::dream::{self, DreamOptions};
use autodream_offline::coding::forget::ForgetEngine;
use autodream_offline::coding::provenance;

use crate::commands::print_json;
use crate::commands::run::cancel_on_signals;
use crate::global::GlobalArgs;
use crate::output::{out, outln};
use crate::{context, exit};

#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Words the fact must hold (case-insensitive); every matching line is forgotten
    #[arg(required = true, value_name = "TEXT")]
    pub text: Vec<String>,
    /// Show the change as a diff; apply nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: ForgetArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let query = args.text.join(" ");
    if query.trim().is_empty() {
        return Err(exit::usage("TEXT is empty: give the words of the fact to forget"));
    }
    // Nothing matches: say so without taking the lock.
    if provenance::find(&ctx.locations.memory_dir, &ctx.locations.engine_data_dir(), &query).is_empty() {
        anyhow::bail!("no fact holds {query:?}; nothing was forgotten");
    }
    let engine = ForgetEngine::new(&query);
    let result = dream::run_dream(
        &ctx.locations,
        &ctx.config,
        ctx.clock,
        DreamOptions {
            dry_run: args.dry_run,
            consolidates: false,
            cancel: cancel_on_signals(),
            ..DreamOptions::new(&engine)
        },
    );
    let outcome = exit::dream_outcome(result)?;
    if args.json {
        print_json(&outcome)?;
    } else {
        if let Some(diff) = &outcome.diff {
            out!("{diff}")?;
        }
        outln!("{}", outcome.summary.text)?;
        if !args.dry_run && outcome.summary.archived_facts > 0 {
            outln!("  (autodream undo brings them back)")?;
        }
    }
    Ok(0)
}
