//! `autodream install gemini`: autodream's hook in Gemini CLI's settings (its `AfterAgent`
//! and `SessionEnd` hooks), the MCP server with `--mcp` or where hooks are not available, and
//! the memory index mirrored into the project's `GEMINI.md`; with `uninstall`, exactly that
//! taken back out. The work is `autodream_setup::install::gemini`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use autodream_core::Clock;
use autodream_setup::install::gemini::{self, Options, Scope};
use autodream_setup::install::{Manifest, claude_code};

use super::agents::{autodream_config, baked_hook_args, mirror_now, project_dir};
use crate::global::GlobalArgs;
use crate::output::{out, outln};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScopeArg {
    /// Your settings for every project: ~/.gemini/settings.json
    User,
    /// The project's settings: .gemini/settings.json
    Project,
}

#[derive(Debug, Args)]
pub struct GeminiArgs {
    /// Which settings file
    #[arg(long, value_enum, default_value = "user")]
    pub scope: ScopeArg,
    /// Also register the MCP server (`autodream mcp`)
    #[arg(long)]
    pub mcp: bool,
    /// Register no hooks (for Gemini CLI releases without them): only the MCP server
    #[arg(long)]
    pub no_hooks: bool,
    /// Leave GEMINI.md alone: do not keep the memory index in it
    #[arg(long)]
    pub no_mirror: bool,
    /// Print what would change; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// `gemini --version`, when a `gemini` program answers within a few seconds.
fn gemini_version() -> Option<String> {
    let program = std::env::var_os("AUTODREAM_GEMINI_BIN").unwrap_or_else(|| "gemini".into());
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `remove`: uninstall instead.
pub fn run(global: &GlobalArgs, args: GeminiArgs, remove: bool) -> anyhow::Result<u8> {
    let clock = Clock::from_env()?;
    let exe = std::env::current_exe()?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let scope = match args.scope {
        ScopeArg::User => Scope::User,
        ScopeArg::Project => Scope::Project,
    };
    let mut notes = Vec::new();
    let mut hooks = !args.no_hooks;
    if hooks
        && !remove
        && let Some(v) = gemini_version()
        && gemini::hooks_supported(&v) == Some(false)
    {
        hooks = false;
        notes.push(format!(
            "Gemini CLI {v} has no hooks (they came in {}.{}.{}): registering the MCP server instead",
            gemini::HOOKS_SINCE.0,
            gemini::HOOKS_SINCE.1,
            gemini::HOOKS_SINCE.2
        ));
    }
    let opts = Options {
        gemini_home: gemini::gemini_home()?,
        scope,
        project_dir: project_dir(global)?,
        hooks,
        mcp: args.mcp,
        hook_exe: claude_code::Options::hook_beside(&exe),
        autodream_exe: exe,
        hook_args: baked_hook_args(global)?,
        manifest: Manifest::default_path()?,
        autodream_config: if args.no_mirror { None } else { Some(autodream_config(global)?) },
        dry_run: args.dry_run,
        now: clock.now(),
    };
    let settings = opts.settings_file();
    if remove {
        let r = gemini::uninstall(&opts)?;
        out!(
            "{}",
            r.render(
                &format!("removed autodream from Gemini CLI ({})", settings.display()),
                &format!("autodream is not installed in {}, nothing changed", settings.display())
            )
        )?;
        return Ok(0);
    }
    for n in &notes {
        outln!("note: {n}")?;
    }
    let r = gemini::install(&opts)?;
    out!(
        "{}",
        r.render(
            &format!("installed autodream into Gemini CLI ({})", settings.display()),
            "already installed, nothing changed"
        )
    )?;
    if !args.dry_run && opts.autodream_config.is_some() {
        mirror_now(global, &opts.gemini_md())?;
    }
    if !r.dry_run && !r.is_noop() {
        outln!("next: restart Gemini CLI to load its settings; `autodream doctor` checks the setup")?;
    }
    Ok(0)
}
