//! `autodream install codex`: autodream's hook as Codex CLI's `notify` program, and the
//! memory index mirrored into the project's `AGENTS.md`; with `uninstall`, exactly that taken
//! back out. The work is `autodream_setup::install::codex`.

use clap::Args;

use autodream_core::Clock;
use autodream_setup::install::codex::{self, Options};
use autodream_setup::install::{Manifest, claude_code};

use super::agents::{autodream_config, baked_hook_args, mirror_now, project_dir};
use crate::global::GlobalArgs;
use crate::output::{out, outln};

#[derive(Debug, Args)]
pub struct CodexArgs {
    /// Leave AGENTS.md alone: do not keep the memory index in it
    #[arg(long)]
    pub no_mirror: bool,
    /// Print what would change; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// `remove`: uninstall instead.
pub fn run(global: &GlobalArgs, args: CodexArgs, remove: bool) -> anyhow::Result<u8> {
    let clock = Clock::from_env()?;
    let exe = std::env::current_exe()?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let opts = Options {
        codex_home: codex::codex_home()?,
        hook_exe: claude_code::Options::hook_beside(&exe),
        autodream_exe: exe,
        hook_args: baked_hook_args(global)?,
        manifest: Manifest::default_path()?,
        project_dir: project_dir(global)?,
        autodream_config: if args.no_mirror { None } else { Some(autodream_config(global)?) },
        dry_run: args.dry_run,
        now: clock.now(),
    };
    let config = opts.config_file();
    if remove {
        let r = codex::uninstall(&opts)?;
        out!(
            "{}",
            r.render(
                &format!("removed autodream from Codex ({})", config.display()),
                &format!("autodream is not installed in {}, nothing changed", config.display())
            )
        )?;
        return Ok(0);
    }
    let r = codex::install(&opts)?;
    out!(
        "{}",
        r.render(
            &format!("installed autodream into Codex ({})", config.display()),
            "already installed, nothing changed"
        )
    )?;
    if opts.hook_exe.is_none() {
        outln!(
            "note: autodream-hook is not next to autodream; notify runs `autodream hook`, which starts slower"
        )?;
    }
    if !args.dry_run && opts.autodream_config.is_some() {
        mirror_now(global, &opts.agents_md())?;
    }
    if !r.dry_run && !r.is_noop() {
        outln!(
            "next: Codex runs the hook after every turn from its next start; `autodream doctor` checks the setup"
        )?;
    }
    Ok(0)
}
