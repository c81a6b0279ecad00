//! Layered configuration, validated field by field.
//!
//! Sources, highest first: command-line flags, the environment (`AUTODREAM_<KEY>`), the
//! user's config file (TOML), the agent's `settings.json` (`autoDreamEnabled`), the remote
//! flags file (JSON: `enabled`, `minHours`, `minSessions`), built-in defaults. Each field is
//! validated on its own: a wrong type, a negative, NaN or out-of-range value produces a
//! warning naming the source and the field, and only that field falls back to the next source.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::sessions::SessionFormat;

/// How the agent is running; only `normal` lets the dream run on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Normal,
    /// An always-on assistant session (KAIROS-like) that keeps its own daily logs.
    Assistant,
    /// A remote session: never dream there.
    Remote,
}

/// The LLM engine's settings (`[agent]` in the config file, `AUTODREAM_AGENT_*`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentConfig {
    /// `anthropic` or `openai` (any OpenAI-compatible server).
    pub provider: String,
    pub model: String,
    /// API root; `None` = the provider's public endpoint.
    pub base_url: Option<String>,
    /// The environment variable holding the API key (never the key itself).
    pub api_key_env: Option<String>,
    pub max_turns: u32,
    pub max_tokens_per_dream: u64,
    /// Maximum tokens per model response.
    pub max_output_tokens: u32,
    pub request_timeout_secs: u64,
    pub max_retries: u32,
    /// US dollars per million tokens.
    pub price_input: f64,
    pub price_output: f64,
    pub price_cache_read: f64,
    pub price_cache_write: f64,
    /// Extra folders the agent may read (the project dir is readable unless `read_project` is false).
    pub read_project: bool,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            base_url: None,
            api_key_env: None,
            max_turns: 40,
            max_tokens_per_dream: 400_000,
            max_output_tokens: 8_192,
            request_timeout_secs: 120,
            max_retries: 4,
            price_input: 3.0,
            price_output: 15.0,
            price_cache_read: 0.3,
            price_cache_write: 3.75,
            read_project: true,
        }
    }
}

/// The effective configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    pub enabled: bool,
    pub mode: Mode,
    pub min_hours: f64,
    pub min_sessions: u32,
    pub scan_interval_minutes: f64,
    pub stale_lock_minutes: f64,
    pub idle_seconds: u64,
    /// How long a background worker waits for the user to go idle before giving up.
    pub idle_max_wait_minutes: f64,
    pub index_max_lines: usize,
    pub index_max_units: usize,
    pub sessions_format: SessionFormat,
    /// The engine `run` and the background worker use: offline | hygiene | agent | exec.
    pub engine: String,
    /// The remote flags file (JSON).
    pub flags_file: Option<PathBuf>,
    /// Offline engine: memory size budget as a share of the reviewed input.
    pub memory_budget_ratio: f64,
    /// Offline engine: absolute cap on the memory size, in bytes.
    pub memory_budget_max_bytes: u64,
    /// The `exec` engine's command line (the prompt is given on stdin).
    pub exec_command: Option<String>,
    pub agent: AgentConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            enabled: true,
            mode: Mode::Normal,
            min_hours: 24.0,
            min_sessions: 5,
            scan_interval_minutes: 10.0,
            stale_lock_minutes: 60.0,
            idle_seconds: 60,
            idle_max_wait_minutes: 30.0,
            index_max_lines: 200,
            index_max_units: 25_000,
            sessions_format: SessionFormat::Auto,
            engine: "offline".into(),
            flags_file: None,
            memory_budget_ratio: 0.20,
            memory_budget_max_bytes: 256 * 1024,
            exec_command: None,
            agent: AgentConfig::default(),
        }
    }
}
