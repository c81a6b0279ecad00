//! `autodream __extract`: the detached extractor the Stop hook starts when a transcript grew (internal).

use clap::Args;

use crate::global::GlobalArgs;

#[derive(Debug, Args)]
pub struct ExtractArgs {}

pub fn run(_global: &GlobalArgs, _args: ExtractArgs) -> anyhow::Result<u8> {
    anyhow::bail!("this command is being built")
}
