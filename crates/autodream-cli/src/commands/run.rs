//! `autodream run`: a dream now, in the foreground.
//!
//! The manual dream ignores the enabled, time, scan and sessions gates (`--respect-gates`
//! runs them all) but always takes the lock.

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use autodream_core::dream::{self, DreamOptions};
use autodream_core::engine::CancelToken;
use autodream_core::gates::{self, GateInput};

use crate::commands::print_json;
use crate::global::GlobalArgs;
use crate::output::{out, outln};
use crate::{context, engines, exit};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The engine: offline (default), hygiene, api (formerly agent) or claude
    #[arg(long, value_name = "NAME")]
    pub engine: Option<String>,
    /// Show the changes as a diff; apply nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Run every gate first and refuse (exit 3) when one is closed
    #[arg(long)]
    pub respect_gates: bool,
    /// Stop after validation and keep the dream for `autodream review` (as `review = true`)
    #[arg(long, conflicts_with = "dry_run")]
    pub review: bool,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

/// Cancels on SIGTERM (`autodream kill`) and SIGINT (Ctrl-C).
pub fn cancel_on_signals() -> CancelToken {
    let cancel = CancelToken::new();
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        let _ = signal_hook::flag::register(sig, cancel.flag());
    }
    cancel
}

pub fn run(global: &GlobalArgs, args: RunArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    if !args.json {
        context::print_warnings(&ctx);
    }
    // A folder named on the command line that is not there is a typo, not an empty history:
    // dreaming over nothing would report "nothing to change" and hide it. (A configured
    // folder that does not exist yet is an empty one, as for the gates.)
    if global.sessions_dir.is_some() && !ctx.locations.sessions_dir.exists() {
        return Err(exit::usage(format!(
            "sessions folder {}: no such file or directory",
            ctx.locations.sessions_dir.display()
        )));
    }
    let engine_name = args.engine.clone().unwrap_or_else(|| ctx.cfg().engine.clone());
    let engine = engines::by_name(&engine_name)?;
    if args.respect_gates {
        let eval = gates::check(&GateInput {
            locations: &ctx.locations,
            config: &ctx.config,
            clock: ctx.clock,
            current_session: ctx.current_session.as_deref(),
        });
        if let Some(name) = eval.failed {
            let detail =
                eval.gates.iter().find(|g| g.name == name).map(|g| g.detail.clone()).unwrap_or_default();
            return Err(exit::refused(format!("the {} gate is closed: {detail}", name.as_str())));
        }
    }
    let spinner = (!args.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(Duration::from_millis(120));
        bar.set_message(format!("dreaming with the {engine_name} engine…"));
        bar
    });
    let on_event = spinner.clone().map(|bar| {
        Arc::new(move |t: &dream::task::Task| {
            if let Some(turn) = t.turns.last() {
                bar.set_message(turn.display_line());
            }
        }) as Arc<dyn Fn(&dream::task::Task) + Send + Sync>
    });
    let result = dream::run_dream(
        &ctx.locations,
        &ctx.config,
        ctx.clock,
        DreamOptions {
            dry_run: args.dry_run,
            review: args.review,
            current_session: ctx.current_session.clone(),
            cancel: cancel_on_signals(),
            on_event,
            ..DreamOptions::new(engine.as_ref())
        },
    );
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    let outcome = exit::dream_outcome(result)?;
    if args.json {
        print_json(&outcome)?;
        return Ok(0);
    }
    if let Some(diff) = &outcome.diff {
        out!("{diff}")?;
    }
    outln!("{}", outcome.message)?;
    if !outcome.summary.text.is_empty() {
        outln!("  {}", outcome.summary.text)?;
    }
    for note in &outcome.summary.notes {
        outln!("  note: {note}")?;
    }
    if let Some(skipped) = dream::run::skipped_lines_sentence(outcome.skipped_lines) {
        outln!("  note: {skipped} (autodream sessions --all names the transcripts)")?;
    }
    // Engine state in dot-folders is applied with the dream but is not memory to show.
    let shown: Vec<&String> =
        outcome.files.iter().filter(|f| !f.split('/').any(|c| c.starts_with('.'))).collect();
    if !shown.is_empty() && !args.dry_run && !outcome.pending {
        for f in shown {
            outln!("  {f}")?;
        }
        outln!("  (autodream diff shows the changes; autodream undo reverts them)")?;
    }
    Ok(0)
}
