//! `autodream init`: create the memory directory's skeleton.

use clap::Args;

use crate::context;
use crate::global::GlobalArgs;
use crate::output::outln;

#[derive(Debug, Args)]
pub struct InitArgs {}

pub fn run(global: &GlobalArgs, _args: InitArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    context::print_warnings(&ctx);
    let dir = &ctx.locations.memory_dir;
    let report = autodream_core::memdir::init(dir)?;
    let rel = |p: &std::path::Path| p.strip_prefix(dir).unwrap_or(p).display().to_string();
    outln!("memory directory: {}", dir.display())?;
    for p in &report.created {
        outln!("  created  {}", rel(p))?;
    }
    for p in &report.existing {
        outln!("  kept     {}", rel(p))?;
    }
    Ok(0)
}
