//! `autodream eval locomo DATA.json`: measure the memory a dream writes.
//!
//! Converts each LoCoMo conversation into per-session transcripts, dreams over them with an
//! injected clock through the real lifecycle (lock, staging, hygiene, validation) — once at
//! the end, or every K sessions as in real use — and scores the memory directories with the
//! same metrics as the project's reference scorer (answer recall, temporal anchoring, size
//! ratio, index checks).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use autodream_core::Clock;
use autodream_core::config::{Config, LoadOptions};
use autodream_core::dream::{self, DreamOptions};
use autodream_core::paths::Locations;
use autodream_core::sessions::SessionFormat;
use autodream_eval::{LocomoOptions, run_locomo};

use crate::commands::print_json;
use crate::global::GlobalArgs;
use crate::output::{out, outln};
use crate::{context, engines, exit};

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub bench: EvalBench,
}

#[derive(Debug, Subcommand)]
pub enum EvalBench {
    /// The LoCoMo long-conversation benchmark (a JSON list of conversations)
    Locomo(LocomoArgs),
}

#[derive(Debug, Args)]
pub struct LocomoArgs {
    /// The LoCoMo data file
    pub data: PathBuf,
    /// Dream after every K sessions (incremental, as in real use) instead of once at the end
    #[arg(long, value_name = "K")]
    pub every: Option<usize>,
    /// Where to write sessions and memory directories [default: a temporary folder]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Only these conversations (repeatable)
    #[arg(long = "sample", value_name = "ID")]
    pub samples: Vec<String>,
    /// Other LoCoMo files that join the specificity pool (repeatable)
    #[arg(long = "reference", value_name = "FILE")]
    pub references: Vec<PathBuf>,
    /// The engine that dreams (offline, hygiene, api or claude)
    #[arg(long, value_name = "NAME", default_value = "offline")]
    pub engine: String,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: EvalArgs) -> anyhow::Result<u8> {
    let EvalBench::Locomo(args) = args.bench;
    if !args.data.is_file() {
        return Err(exit::usage(format!("{} is not a file", args.data.display())));
    }
    let flags = context::flag_overrides(global)?;
    let loaded =
        Config::load(&LoadOptions { config_file: global.config.clone(), flags, ..Default::default() })?;
    let mut loaded = loaded;
    loaded.config.sessions_format = SessionFormat::Generic;
    // LoCoMo's times are UTC: its sessions are dated in UTC whatever the local zone is.
    let engine: Box<dyn autodream_core::engine::Engine> = if args.engine == "offline" {
        Box::new(autodream_offline::OfflineEngine::with_time_zone(jiff::tz::TimeZone::UTC))
    } else {
        engines::by_name(&args.engine)?
    };
    let tmp;
    let out = match &args.out {
        Some(o) => o.clone(),
        None => {
            tmp = std::env::temp_dir().join(format!("autodream-eval-{}", std::process::id()));
            tmp.clone()
        }
    };
    let opts = LocomoOptions {
        data: args.data.clone(),
        out: out.clone(),
        every: args.every,
        samples: args.samples.clone(),
        references: args.references.clone(),
    };
    let mut dreamer = |req: &autodream_eval::DreamRequest| -> Result<(), String> {
        let loc = Locations {
            memory_dir: req.memory_dir.clone(),
            state_dir: req.memory_dir.with_file_name("autodream-state"),
            sessions_dir: req.sessions_dir.clone(),
            project_dir: req.sessions_dir.parent().unwrap_or(&req.sessions_dir).to_path_buf(),
        };
        dream::run_dream(&loc, &loaded, Clock::Fixed(req.now), DreamOptions::new(engine.as_ref()))
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let report = run_locomo(&opts, &mut dreamer)?;
    if args.json {
        print_json(&report)?;
    } else {
        out!("{}", report.render_table())?;
        outln!("memory directories: {}/<sample_id>/memory", out.display())?;
    }
    Ok(0)
}
