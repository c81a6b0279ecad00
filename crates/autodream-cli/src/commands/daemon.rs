//! `autodream daemon`: assistant mode's scheduler, run in the foreground by a service manager.

use clap::Args;

use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct DaemonArgs {}

pub fn run(_global: &GlobalArgs, _args: DaemonArgs) -> anyhow::Result<u8> {
    anyhow::bail!("this command is being built")
}
