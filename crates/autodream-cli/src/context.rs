//! What every command needs: where things are, the configuration, and the clock.

use autodream_core::Clock;
use autodream_core::config::{Config, LoadedConfig};
use autodream_core::overrides::{OverrideError, Overrides, Resolved, Strictness};
use autodream_core::paths::{Locations, MemorySource};

use crate::exit;
use crate::global::GlobalArgs;

pub struct Ctx {
    pub locations: Locations,
    /// Where the memory folder came from (`--memory-dir`, a client setting, the layout…).
    pub memory_source: Option<MemorySource>,
    pub config: LoadedConfig,
    pub clock: Clock,
    pub current_session: Option<String>,
}

impl Ctx {
    pub fn cfg(&self) -> &Config {
        &self.config.config
    }
}

/// An error of the global options, with its exit code: a bad command-line value is a
/// usage error.
pub fn override_error(e: OverrideError) -> anyhow::Error {
    match e {
        e if e.is_usage() => exit::usage(e.to_string()),
        OverrideError::Paths(e) => anyhow::Error::new(e).context("cannot locate the memory directory"),
        e => e.into(),
    }
}

/// The `--set KEY=VALUE` and dedicated flags as configuration overrides (a bad one is
/// refused).
pub fn flag_overrides(global: &GlobalArgs) -> anyhow::Result<Vec<(String, String)>> {
    Overrides::from(global).checked_flag_overrides().map_err(override_error)
}

pub fn build(global: &GlobalArgs) -> anyhow::Result<Ctx> {
    let overrides = Overrides::from(global);
    let Resolved { locations, config, clock } =
        overrides.resolve(Strictness::Strict).map_err(override_error)?;
    // State an older autodream kept inside the memory folder moves out once, before any
    // command reads it (the client would read its copies as memories).
    match autodream_core::dream::migrate::legacy_state(&locations) {
        Ok(Some(said)) => eprintln!("note: {said}"),
        Ok(None) => {}
        Err(e) => eprintln!("warning: could not move old state out of the memory folder: {e}"),
    }
    let memory_source =
        Locations::memory_source(&overrides.path_overrides(|| None), &locations.project_dir).ok();
    Ok(Ctx { locations, memory_source, config, clock, current_session: overrides.current_session })
}

/// Prints configuration warnings on stderr (human commands).
pub fn print_warnings(ctx: &Ctx) {
    for w in &ctx.config.warnings {
        eprintln!("warning: {w}");
    }
}
