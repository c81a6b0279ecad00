//! `autodream why TEXT`: where the facts that mention TEXT came from.
//!
//! Every fact line of a memory file that holds all the words of TEXT, with the sessions
//! (or daily-log files), times and transcript lines it was learned from, as the offline
//! engine recorded them. A fact with no record was written by hand or by another engine.
//! Statements the engine heard but holds back as candidates (under its confidence threshold,
//! kept in engine state) are listed after them, with their evidence and why they are not
//! (yet) in memory.

use clap::Args;

use autodream_offline::coding::confidence::MODEL;
use autodream_offline::coding::provenance;

use crate::commands::print_json;
use crate::global::GlobalArgs;
use crate::output::outln;
use crate::{context, exit};

#[derive(Debug, Args)]
pub struct WhyArgs {
    /// Words the fact must hold (case-insensitive)
    #[arg(required = true, value_name = "TEXT")]
    pub text: Vec<String>,
    /// Print one JSON array
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: WhyArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let query = args.text.join(" ");
    if query.trim().is_empty() {
        return Err(exit::usage("TEXT is empty: give the words of the fact to look for"));
    }
    let found = provenance::find(&ctx.locations.memory_dir, &ctx.locations.engine_data_dir(), &query);
    let held = provenance::find_candidates(&ctx.locations.engine_data_dir(), &query);
    if args.json {
        print_json(&found)?;
    } else {
        for f in &found {
            let state = if f.superseded { " (superseded)" } else { "" };
            outln!("{}:{}{state}  {}", f.file, f.line, f.text)?;
            if f.sources.is_empty() {
                outln!("  no record: written by hand or by another engine")?;
            }
            for s in &f.sources {
                outln!("  learned from {} line {} at {}", s.from, s.line, s.at)?;
            }
        }
    }
    if !args.json {
        for c in &held {
            outln!(
                "not in memory (a candidate): {}\n  confidence {:.2} alone, under the threshold {:.2}; heard in {} session(s), last on {}",
                c.text,
                c.confidence,
                MODEL.threshold,
                c.sessions.len(),
                c.last_seen
            )?;
            outln!("  for: {}; against: {}", list(&c.for_it), list(&c.against))?;
            outln!("  it is written once another session says it again")?;
            for s in &c.sources {
                outln!("  heard in {} line {} at {}", s.from, s.line, s.at)?;
            }
        }
    }
    if found.is_empty() && held.is_empty() {
        if !ctx.locations.memory_dir.exists() {
            anyhow::bail!(
                "no memory folder at {}: nothing has been dreamt there yet (`autodream run` writes it)",
                ctx.locations.memory_dir.display()
            );
        }
        anyhow::bail!("no fact in {} holds {query:?}", ctx.locations.memory_dir.display());
    }
    Ok(0)
}

fn list(items: &[String]) -> String {
    if items.is_empty() { "nothing notable".to_string() } else { items.join(", ") }
}
