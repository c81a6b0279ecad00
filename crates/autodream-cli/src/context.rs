//! What every command needs: where things are, the configuration, and the clock.

use anyhow::Context as _;
use autodream_core::Clock;
use autodream_core::config::{Config, LoadOptions, LoadedConfig};
use autodream_core::paths::{Locations, PathOverrides};

use crate::cli::GlobalArgs;
use crate::exit;

pub struct Ctx {
    pub locations: Locations,
    pub config: LoadedConfig,
    pub clock: Clock,
    pub current_session: Option<String>,
}

impl Ctx {
    pub fn cfg(&self) -> &Config {
        &self.config.config
    }
}

/// The `--set KEY=VALUE` and dedicated flags as configuration overrides.
pub fn flag_overrides(global: &GlobalArgs) -> anyhow::Result<Vec<(String, String)>> {
    let mut flags = Vec::new();
    for s in &global.set {
        let (k, v) = s.split_once('=').ok_or_else(|| {
            exit::usage(format!("--set {s:?}: expected KEY=VALUE, e.g. --set min_hours=12"))
        })?;
        let key = k.trim().replace('-', "_");
        if !autodream_core::config::keys().any(|known| known == key) {
            return Err(exit::usage(format!(
                "--set {k}: unknown setting (known: {})",
                autodream_core::config::keys().collect::<Vec<_>>().join(", ")
            )));
        }
        flags.push((key, v.to_string()));
    }
    if let Some(f) = &global.sessions_format {
        flags.push(("sessions_format".into(), f.clone()));
    }
    Ok(flags)
}

pub fn build(global: &GlobalArgs) -> anyhow::Result<Ctx> {
    let clock = Clock::from_env()?;
    let overrides = PathOverrides {
        memory_dir: global.memory_dir.clone(),
        sessions_dir: global.sessions_dir.clone(),
        project_dir: global.project.clone(),
    };
    let locations = Locations::resolve(&overrides).context("cannot locate the memory directory")?;
    let config = Config::load(&LoadOptions {
        config_file: global.config.clone(),
        flags: flag_overrides(global)?,
        project_dir: Some(locations.project_dir.clone()),
        agent_base: None,
    })?;
    // A bad command-line value is the user's direct request: refuse instead of falling back.
    if let Some(w) = config.warnings.iter().find(|w| w.source.starts_with("--")) {
        // Refused, not ignored: the command line is the user's direct request.
        let message = w.message.trim_end_matches("; ignored");
        return Err(exit::usage(format!("{}: {message}", w.source)));
    }
    Ok(Ctx { locations, config, clock, current_session: global.current_session.clone() })
}

/// Prints configuration warnings on stderr (human commands).
pub fn print_warnings(ctx: &Ctx) {
    for w in &ctx.config.warnings {
        eprintln!("warning: {w}");
    }
}
