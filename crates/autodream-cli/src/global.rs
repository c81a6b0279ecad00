//! The options every command understands, and what they become: `autodream_core`'s
//! [`Overrides`](autodream_core::Overrides).

use std::path::PathBuf;

use clap::Args;

/// Options every command understands.
#[derive(Debug, Clone, Args, Default)]
pub struct GlobalArgs {
    /// The memory directory [env: AUTODREAM_MEMORY_DIR] [default: the agent's, for the project]
    #[arg(long, global = true, value_name = "DIR")]
    pub memory_dir: Option<PathBuf>,
    /// The folder of session transcripts [env: AUTODREAM_SESSIONS_DIR] [default: the agent's]
    #[arg(long, global = true, value_name = "DIR")]
    pub sessions_dir: Option<PathBuf>,
    /// The project directory, instead of the working directory
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The config file [env: AUTODREAM_CONFIG] [default: ~/.config/autodream/config.toml]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Transcript format: auto, claude, generic, codex or gemini
    #[arg(long, global = true, value_name = "FORMAT")]
    pub sessions_format: Option<String>,
    /// The current session's id (never counted as a new session)
    #[arg(long, global = true, value_name = "ID")]
    pub current_session: Option<String>,
    /// Override a setting: --set min_hours=12 (repeatable; see the README for keys)
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

impl From<&GlobalArgs> for autodream_core::Overrides {
    fn from(g: &GlobalArgs) -> Self {
        autodream_core::Overrides {
            memory_dir: g.memory_dir.clone(),
            sessions_dir: g.sessions_dir.clone(),
            project: g.project.clone(),
            config: g.config.clone(),
            sessions_format: g.sessions_format.clone(),
            current_session: g.current_session.clone(),
            set: g.set.clone(),
        }
    }
}
