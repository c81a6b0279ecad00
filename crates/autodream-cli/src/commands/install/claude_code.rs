//! `autodream install claude-code`: register autodream in Claude Code's settings; with
//! `uninstall`, take exactly that back out. The work is `autodream_setup::install::claude_code`.

use clap::{Args, ValueEnum};

use autodream_core::Clock;
use autodream_setup::install::claude_code::{self, Homes, Options, Scope};

use crate::global::GlobalArgs;
use crate::output::{out, outln};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScopeArg {
    /// Your settings for every project: <config home>/settings.json
    User,
    /// The project's shared settings: .claude/settings.json
    Project,
    /// The project's settings for you alone: .claude/settings.local.json
    Local,
}

impl From<ScopeArg> for Scope {
    fn from(s: ScopeArg) -> Scope {
        match s {
            ScopeArg::User => Scope::User,
            ScopeArg::Project => Scope::Project,
            ScopeArg::Local => Scope::Local,
        }
    }
}

#[derive(Debug, Args)]
pub struct ClaudeCodeArgs {
    /// Which settings file
    #[arg(long, value_enum, default_value = "user")]
    pub scope: ScopeArg,
    /// Also register the MCP server (`autodream mcp`) where the client reads it (install only;
    /// uninstall removes whatever install added)
    #[arg(long)]
    pub mcp: bool,
    /// Print what would change; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// `remove`: uninstall instead.
pub fn run(global: &GlobalArgs, args: ClaudeCodeArgs, remove: bool) -> anyhow::Result<u8> {
    let clock = Clock::from_env()?;
    let exe = std::env::current_exe()?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let project_dir = match &global.project {
        Some(p) => std::path::absolute(p)?,
        None => std::env::current_dir()?,
    };
    let scope: Scope = args.scope.into();
    let hook_exe = Options::hook_beside(&exe);
    let opts = Options {
        homes: Homes::from_env()?,
        scope,
        project_dir,
        mcp: args.mcp,
        dry_run: args.dry_run,
        hook_args: baked_hook_args(global)?,
        autodream_exe: exe,
        hook_exe,
        now: clock.now(),
    };
    let report = if remove {
        let r = claude_code::uninstall(&opts)?;
        out!(
            "{}",
            r.render(
                &format!("removed autodream from Claude Code ({scope} scope)"),
                &format!("not installed in the {scope} scope, nothing changed")
            )
        )?;
        r
    } else {
        let r = claude_code::install(&opts)?;
        out!(
            "{}",
            r.render(
                &format!("installed autodream into Claude Code ({scope} scope)"),
                "already installed, nothing changed"
            )
        )?;
        if opts.hook_exe.is_none() {
            outln!(
                "note: {} is not next to autodream; the hook runs `autodream hook`, which starts slower",
                claude_code::HOOK_BIN
            )?;
        }
        r
    };
    if !remove && !report.dry_run && !report.is_noop() {
        outln!("next: `autodream doctor` checks the setup; /dream in Claude Code dreams now")?;
    }
    Ok(0)
}

/// The global options that change where the hook looks, baked into its command (absolute).
fn baked_hook_args(global: &GlobalArgs) -> anyhow::Result<Vec<String>> {
    Ok(global.to_hook_argv(true)?)
}
