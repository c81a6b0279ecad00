//! `autodream why TEXT`: where the facts that mention TEXT came from.
//!
//! Every fact line of a memory file that holds all the words of TEXT, with the sessions
//! (or daily-log files), times and transcript lines it was learned from, as the offline
//! engine recorded them. A fact with no record was written by hand or by another engine.

use clap::Args;

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
    if found.is_empty() {
        anyhow::bail!("no fact in {} holds {query:?}", ctx.locations.memory_dir.display());
    }
    Ok(0)
}
