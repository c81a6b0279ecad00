//! `autodream install daemon`: a systemd user unit or a launchd agent for `autodream daemon`.
//!
//! Writes the file and prints the one command that enables it; never enables it itself.
//! `uninstall daemon` removes exactly that file, and refuses one that differs from what
//! install would write (`--force` removes it anyway). The rendering is
//! `autodream_setup::daemon_unit`'s.

use clap::Args;

use autodream_setup::daemon_unit::{Change, Manager, Unit, UnitSpec};

use crate::global::GlobalArgs;
use crate::output::{out, outln};
use crate::{context, exit};

#[derive(Debug, Args)]
pub struct DaemonUnitArgs {
    /// Print the file and where it would go; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// systemd or launchd [default: the one of this OS]
    #[arg(long, value_name = "MANAGER")]
    pub manager: Option<String>,
    /// Replace (or remove) a file that differs from what autodream would write
    #[arg(long)]
    pub force: bool,
}

/// `remove`: uninstall instead.
pub fn run(global: &GlobalArgs, args: DaemonUnitArgs, remove: bool) -> anyhow::Result<u8> {
    let ctx = context::build(global)?;
    let manager = match &args.manager {
        None => Manager::native(),
        Some(m) => Manager::parse(m)
            .ok_or_else(|| exit::usage(format!("--manager {m:?}: expected systemd or launchd")))?,
    };
    let exe = std::env::current_exe()?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let spec =
        UnitSpec::new(exe, &ctx.locations, global.config.as_ref().map(std::path::absolute).transpose()?);
    let unit = Unit::for_user(manager, &spec)?;
    if args.dry_run {
        if remove {
            outln!("would remove {}", unit.path.display())?;
        } else {
            outln!("# {}", unit.path.display())?;
            out!("{}", unit.contents)?;
        }
        return Ok(exit::OK);
    }
    if remove {
        let change = unit.uninstall(args.force).map_err(|e| match e {
            e @ autodream_setup::daemon_unit::UnitError::Edited { .. } => exit::refused(e.to_string()),
            e => e.into(),
        })?;
        match change {
            Change::Absent => outln!("{} is not installed; nothing to remove", unit.path.display())?,
            _ => {
                outln!("removed {}", unit.path.display())?;
                outln!("if it was enabled, also run: {}", unit.disable_command())?;
            }
        }
        return Ok(exit::OK);
    }
    let change = unit.install(args.force).map_err(|e| match e {
        e @ autodream_setup::daemon_unit::UnitError::ExistsDiffering { .. } => exit::refused(e.to_string()),
        e => e.into(),
    })?;
    let what = match change {
        Change::Unchanged => "already installed, unchanged:",
        Change::Replaced => "replaced",
        _ => "wrote",
    };
    outln!("{what} {}", unit.path.display())?;
    outln!("it runs: {}", spec.argv().join(" "))?;
    outln!("nothing is enabled yet; to start it now and at every login, run:")?;
    outln!("  {}", unit.enable_command())?;
    Ok(exit::OK)
}
