//! What the Codex and Gemini install commands share: the project, autodream's config file,
//! the global options baked into the hook, and the first mirror of the index.

use std::path::{Path, PathBuf};

use autodream_core::Overrides;
use autodream_core::agents_md::{self, Changed};
use autodream_core::paths::Locations;

use crate::global::GlobalArgs;
use crate::output::outln;

/// `--project`, else the working directory, absolute.
pub fn project_dir(global: &GlobalArgs) -> anyhow::Result<PathBuf> {
    Ok(match &global.project {
        Some(p) => std::path::absolute(p)?,
        None => std::env::current_dir()?,
    })
}

/// autodream's config file: `--config`, else the default one (`mirror_index` is kept there).
pub fn autodream_config(global: &GlobalArgs) -> anyhow::Result<PathBuf> {
    match &global.config {
        Some(p) => Ok(std::path::absolute(p)?),
        None => autodream_core::config::default_config_file()
            .ok_or_else(|| anyhow::anyhow!("no home directory: set HOME, or pass --config")),
    }
}

/// The global options that change where the hook looks (absolute), for its command line.
/// The sessions options are the target's own.
pub fn baked_hook_args(global: &GlobalArgs) -> anyhow::Result<Vec<String>> {
    Ok(global.to_hook_argv(false)?)
}

/// Writes the current index into `file` right away (when there is one), so the agent sees it
/// before the next dream.
pub fn mirror_now(global: &GlobalArgs, file: &Path) -> anyhow::Result<()> {
    let overrides = Overrides::from(global);
    let loc = Locations::resolve(&overrides.path_overrides(|| None))?;
    let Ok(index) = std::fs::read_to_string(loc.index_path()) else {
        return Ok(());
    };
    match agents_md::sync_block_for(file, &index, Some(&loc.memory_dir)) {
        Ok(Changed::Unchanged) => {}
        Ok(_) => outln!("  wrote the memory index into {} (between the autodream markers)", file.display())?,
        Err(e) => outln!("note: {e}")?,
    }
    Ok(())
}
