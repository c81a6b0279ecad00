//! `autodream doctor`: everything that would stop dreams from reaching the agent, each with its
//! fix. The checks are `autodream_setup::doctor`'s; exit 1 when one is a problem.

use clap::Args;

use autodream_setup::doctor::{self, DoctorInput, Status};
use autodream_setup::install::claude_code::Homes;

use crate::commands::print_json;
use crate::context;
use crate::global::GlobalArgs;
use crate::output::outln;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: DoctorArgs) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let homes = Homes::from_env()?;
    let exe = std::env::current_exe().ok().map(|e| e.canonicalize().unwrap_or(e));
    let mut diagnosis = doctor::diagnose(&DoctorInput {
        locations: &ctx.locations,
        config: &ctx.config,
        clock: ctx.clock,
        homes: &homes,
        autodream_exe: exe,
        path_var: std::env::var_os("PATH"),
    });
    diagnosis.checks.extend(crate::commands::team::doctor_check(&ctx));
    let code = if diagnosis.has_problems() { 1 } else { 0 };
    if args.json {
        print_json(&diagnosis)?;
        return Ok(code);
    }
    context::print_warnings(&ctx);
    for c in &diagnosis.checks {
        let mark = match c.status {
            Status::Ok => "ok     ",
            Status::Warn => "warn   ",
            Status::Problem => "PROBLEM",
        };
        outln!("{mark} {:<13} {}", c.name, c.summary)?;
        if let Some(fix) = &c.fix {
            outln!("        {:<13} fix: {fix}", "")?;
        }
    }
    let (p, w) = (diagnosis.count(Status::Problem), diagnosis.count(Status::Warn));
    if p > 0 {
        outln!("{p} problem(s), {w} warning(s): dreams do not reach the agent until the problems are fixed")?;
    } else if w > 0 {
        outln!("no problems, {w} warning(s)")?;
    } else {
        outln!("all good")?;
    }
    Ok(code)
}
