//! `autodream install daemon`: a systemd user unit or a launchd agent for `autodream daemon`.

use clap::Args;

use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct DaemonUnitArgs {}

/// `remove`: uninstall instead.
pub fn run(_global: &GlobalArgs, _args: DaemonUnitArgs, _remove: bool) -> anyhow::Result<u8> {
    anyhow::bail!("this command is being built")
}
