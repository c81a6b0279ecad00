//! `autodream log`: append a note to today's daily log.

use std::io::Read;

use anyhow::Context as _;
use clap::Args;

use crate::global::GlobalArgs;
use crate::output::outln;
use crate::{context, exit};

#[derive(Debug, Args)]
pub struct LogArgs {
    /// The note; `-` reads it from standard input. Several lines become one entry.
    #[arg(required = true, value_name = "TEXT")]
    pub text: Vec<String>,
}

pub fn run(global: &GlobalArgs, args: LogArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    context::print_warnings(&ctx);
    let text = if args.text == ["-"] {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("cannot read the note from standard input")?;
        s
    } else {
        args.text.join(" ")
    };
    if text.trim().is_empty() {
        return Err(exit::usage("nothing to log: the note is empty"));
    }
    let now = ctx.clock.now_local();
    let path = autodream_core::memdir::daily_log::append(&ctx.locations.memory_dir, &now, &text)?;
    let rel = path.strip_prefix(&ctx.locations.memory_dir).unwrap_or(&path);
    outln!("logged to {}", rel.display())?;
    Ok(0)
}
