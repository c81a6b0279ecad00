//! Runs the offline engine over a LoCoMo file and prints the scores.
//!
//! ```sh
//! cargo run --release -p autodream-eval --example eval_locomo -- \
//!     ../shared/data/locomo/locomo_dev.json --out target/locomo-eval [--every 5] [--json] [--sample conv-26]
//! ```
//! The memory trees are left in `<out>/<sample_id>/memory/` for the reference scorer.

use std::path::PathBuf;
use std::process::ExitCode;

use autodream_core::config::Config;
use autodream_eval::{LocomoOptions, offline_dreamer, run_locomo};
use autodream_offline::OfflineEngine;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut data: Option<PathBuf> = None;
    let mut out = PathBuf::from("target/locomo-eval");
    let mut every = None;
    let mut json = false;
    let mut samples = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().map(PathBuf::from).unwrap_or(out),
            "--every" => every = args.next().and_then(|v| v.parse().ok()),
            "--json" => json = true,
            "--sample" => samples.extend(args.next()),
            _ if data.is_none() && !a.starts_with("--") => data = Some(PathBuf::from(a)),
            _ => {
                eprintln!("usage: eval_locomo DATA.json [--out DIR] [--every K] [--json] [--sample ID]...");
                return ExitCode::from(2);
            }
        }
    }
    let Some(data) = data else {
        eprintln!("usage: eval_locomo DATA.json [--out DIR] [--every K] [--json] [--sample ID]...");
        return ExitCode::from(2);
    };
    let mut opts = LocomoOptions::new(data, out);
    opts.every = every;
    opts.samples = samples;
    let engine = OfflineEngine::with_time_zone(jiff::tz::TimeZone::UTC);
    let config = Config::default();
    let mut dreamer = offline_dreamer(&engine, &config);
    match run_locomo(&opts, &mut dreamer) {
        Ok(report) => {
            print!("{}", report.render_table());
            if json {
                println!("{}", serde_json::to_string(&report).unwrap_or_default());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
