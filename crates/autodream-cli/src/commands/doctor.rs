//! `autodream doctor`: everything that would stop dreams from reaching the agent, each with its fix.

use clap::Args;

use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct DoctorArgs {}

pub fn run(_global: &GlobalArgs, _args: DoctorArgs) -> anyhow::Result<u8> {
    anyhow::bail!("this command is being built")
}
