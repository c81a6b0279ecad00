//! Layered configuration, validated field by field.
//!
//! Sources, highest first: command-line flags, the environment (`AUTODREAM_<KEY>`), the
//! user's config file (TOML), the remote flags file (JSON: `enabled`, `minHours`,
//! `minSessions`), built-in defaults. Each field is validated on its own: a wrong type, a
//! negative, NaN or out-of-range value produces a warning naming the source and the field,
//! and only that field falls back to the next source.
//!
//! The client's settings are read for what they say about the client, not about us:
//! `autoMemoryEnabled: false` (and the client's kill switches) turn auto memory off, which
//! closes gate 1; `autoDreamEnabled` switches the client's own built-in dream, which
//! `install` turns off so the two never dream the same folder — it is reported
//! ([`LoadedConfig::client_auto_dream`]), never taken as autodream's own switch. The
//! client's memory stores (`CLAUDE_MEMORY_STORES`, [`stores`]) close gate 1 the same way.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde::Serialize;

use crate::sessions::SessionFormat;

mod fields;
pub mod stores;
pub mod values;

use fields::{FIELDS, Raw};
pub use fields::{env_var_of, keys};

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

/// The `claude` engine's settings (`[claude]` in the config file, `AUTODREAM_CLAUDE_*`): the
/// user's own Claude Code client, run in print mode on the staging copy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaudeConfig {
    /// The client's binary: a name looked up on `PATH`, or a path.
    pub command: String,
    /// The longest a dream may run before the client is stopped (minutes).
    pub timeout_minutes: f64,
}

/// Team memory's settings (`[team]` in the config file, `AUTODREAM_TEAM_*`): which remote and
/// branch a memory folder shares once `autodream team init` has joined it, and how this
/// machine is named there. Only folders that joined sync; the settings are the defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamConfig {
    /// A remote of the project (`origin`) or a URL.
    pub remote: String,
    /// The branch on the remote that holds the shared memory.
    pub branch: String,
    /// How long the dreaming machine's lease lasts before another may take it over.
    pub lease_minutes: f64,
    /// This machine's name on the branch (its logs' folder, the lease's holder); `None` =
    /// the host name.
    pub machine: Option<String>,
}

impl Default for TeamConfig {
    fn default() -> Self {
        TeamConfig {
            remote: "origin".into(),
            branch: "autodream/memory".into(),
            lease_minutes: 60.0,
            machine: None,
        }
    }
}

impl Default for ClaudeConfig {
    fn default() -> Self {
        ClaudeConfig { command: "claude".into(), timeout_minutes: 20.0 }
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
    /// The engine `run` and the background worker use: offline | hygiene | agent | claude.
    pub engine: String,
    /// The remote flags file (JSON).
    pub flags_file: Option<PathBuf>,
    /// Offline engine: memory size budget as a share of the reviewed input.
    pub memory_budget_ratio: f64,
    /// Offline engine: absolute cap on the memory size, in bytes.
    pub memory_budget_max_bytes: u64,
    /// Files the memory index is mirrored into after each dream, between autodream's
    /// markers, for agents that do not load MEMORY.md (`AGENTS.md`, `GEMINI.md`): absolute
    /// paths; a dream updates those in its project's folder.
    pub mirror_index: Vec<PathBuf>,
    pub agent: AgentConfig,
    pub claude: ClaudeConfig,
    /// US dollars the LLM engines (agent, claude) may spend per local day; 0 = no limit.
    pub max_cost_per_day: f64,
    /// Per-turn extraction at the end of each turn: off | offline | agent.
    pub extract: values::CaptureMode,
    /// `extract = "agent"`: the most output tokens of one request; a run stops asking the
    /// model once it used eight times as many tokens in all.
    pub extract_max_tokens: u32,
    /// `autodream daemon`: the local hours in which it may dream (`02:00-05:00`).
    pub dream_window: values::DreamWindow,
    /// `autodream daemon`: minutes between two ticks.
    pub tick_minutes: f64,
    /// `autodream daemon`: new daily-log entries that are enough for a dream (as
    /// `min_sessions` new sessions are).
    pub min_log_entries: u32,
    /// At every dream, check the facts that name something the project can confirm (a
    /// path, a script, an environment variable, a branch) against the repository, and move
    /// those whose referent is gone under `## Superseded` (`referents`).
    pub check_repository: bool,
    /// Stop every dream after validation and keep it as a pending dream until `autodream
    /// review` accepts or rejects it (`dream::review`).
    pub review: bool,
    pub team: TeamConfig,
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
            mirror_index: Vec::new(),
            agent: AgentConfig::default(),
            claude: ClaudeConfig::default(),
            max_cost_per_day: 0.0,
            extract: values::CaptureMode::Offline,
            extract_max_tokens: 400,
            dream_window: values::DreamWindow::NIGHT,
            tick_minutes: 15.0,
            min_log_entries: 10,
            check_repository: true,
            review: false,
            team: TeamConfig::default(),
        }
    }
}

/// `1/true/yes/on` and `0/false/no/off`, any case.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// A field that a source set to something unusable; the field fell back to the next source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigWarning {
    /// Where the value came from: a file path, `environment AUTODREAM_X`, `--flag`.
    pub source: String,
    /// The field, dotted (`agent.model`), or empty for a whole-source problem.
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.source, self.message)
        } else {
            write!(f, "{}: {}: {}", self.source, self.field, self.message)
        }
    }
}

/// Why automatic dreaming is switched off (gate 1's detail), when it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disabled {
    pub reason: String,
}

/// The configuration with the story of how it was made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadedConfig {
    pub config: Config,
    pub warnings: Vec<ConfigWarning>,
    /// The config file read, if any.
    pub file: Option<PathBuf>,
    /// Set when the agent's own switches turn auto memory off (kill switch, settings).
    pub auto_memory_off: Option<Disabled>,
    /// The client's `autoDreamEnabled`, when a settings file sets it: its own built-in dream,
    /// which would consolidate the same folder (`doctor` warns unless it is `false`).
    pub client_auto_dream: Option<ClientSetting>,
    /// Where `enabled` came from (for `status`).
    pub enabled_source: String,
}

/// A boolean the client's settings set, and the file that set it (the last one read wins).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClientSetting {
    pub value: bool,
    pub source: PathBuf,
}

/// Where to look; everything optional.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--config FILE` (an explicit file that is missing is an error).
    pub config_file: Option<PathBuf>,
    /// Command-line settings, highest precedence: (dotted key, value).
    pub flags: Vec<(String, String)>,
    /// The project directory (for the agent's project settings files).
    pub project_dir: Option<PathBuf>,
    /// The agent's configuration home (`~/.claude`), for `settings.json`.
    pub agent_base: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {0} does not exist")]
    MissingFile(PathBuf),
    #[error("{0}")]
    Invalid(ConfigWarning),
}

struct Builder {
    config: Config,
    warnings: Vec<ConfigWarning>,
    enabled_source: String,
}

impl Builder {
    /// Applies one value; an unusable one is reported and ignored (the field keeps the
    /// value of the lower-precedence sources).
    fn set(&mut self, source: &str, key: &str, raw: Raw<'_>) -> bool {
        let Some((_, setter)) = FIELDS.iter().find(|(k, _)| *k == key) else {
            // An empty key (`"" = 1`) is named as TOML writes it, not left blank like a
            // warning about the whole source.
            let field = if key.is_empty() { "\"\"" } else { key };
            self.warn(source, field, "unknown setting (ignored)".into());
            return false;
        };
        let mut candidate = self.config.clone();
        match setter(&mut candidate, &raw) {
            Ok(()) => {
                self.config = candidate;
                if key == "enabled" {
                    self.enabled_source = source.to_string();
                }
                true
            }
            Err(msg) => {
                self.warn(source, key, format!("{msg}; ignored"));
                false
            }
        }
    }

    fn warn(&mut self, source: &str, field: &str, message: String) {
        self.warnings.push(ConfigWarning { source: source.into(), field: field.into(), message });
    }

    fn apply_toml(&mut self, source: &str, table: &toml::Table, prefix: &str) {
        for (k, v) in table {
            let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            match v {
                toml::Value::Table(t)
                    if prefix.is_empty() && (k == "agent" || k == "claude" || k == "team") =>
                {
                    self.apply_toml(source, t, k)
                }
                _ => {
                    self.set(source, &key, Raw::Toml(v));
                }
            }
        }
    }
}

/// The remote flags file, re-read only when its mtime changes (long-lived processes such as
/// the MCP server call [`Config::load`] many times).
static FLAGS_CACHE: Mutex<Option<(PathBuf, SystemTime, serde_json::Value)>> = Mutex::new(None);

fn read_flags_file(path: &Path) -> Result<Option<serde_json::Value>, String> {
    let mtime = match std::fs::metadata(path) {
        Ok(m) => m.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let mut cache = FLAGS_CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((p, t, v)) = cache.as_ref()
        && p == path
        && *t == mtime
    {
        return Ok(Some(v.clone()));
    }
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("not JSON (line {}, column {}): {e}", e.line(), e.column()))?;
    *cache = Some((path.to_path_buf(), mtime, value.clone()));
    Ok(Some(value))
}

/// The user's config file: `AUTODREAM_CONFIG`, else `$XDG_CONFIG_HOME/autodream/config.toml`,
/// else `~/.config/autodream/config.toml`.
pub fn default_config_file() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("AUTODREAM_CONFIG")
        && !p.is_empty()
    {
        return Some(PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::paths::home_dir().map(|h| h.join(".config")))?;
    Some(base.join("autodream").join("config.toml"))
}

fn env_truthy(key: &str) -> Option<bool> {
    std::env::var(key).ok().map(|v| parse_bool(&v).unwrap_or(!v.trim().is_empty()))
}

impl Config {
    /// Builds the effective configuration from every source. Only an explicit `--config`
    /// file that does not exist is an error; everything else becomes a warning.
    pub fn load(opts: &LoadOptions) -> Result<LoadedConfig, ConfigError> {
        let mut b =
            Builder { config: Config::default(), warnings: Vec::new(), enabled_source: "default".into() };
        let mut auto_memory_off = None;
        let mut client_auto_dream = None;

        // The remote-mode hint from the agent's environment: lowest precedence.
        if env_truthy("CLAUDE_CODE_REMOTE") == Some(true) {
            b.config.mode = Mode::Remote;
        }

        // The user's file decides where the flags file is, so parse it first, apply it later.
        let (file, file_table) = match &opts.config_file {
            Some(p) if !p.exists() => return Err(ConfigError::MissingFile(p.clone())),
            Some(p) => (Some(p.clone()), read_toml(p, &mut b)),
            None => match default_config_file() {
                Some(p) if p.exists() => (Some(p.clone()), read_toml(&p, &mut b)),
                _ => (None, None),
            },
        };

        // 1. Remote flags file (JSON): enabled, minHours, minSessions.
        let flags_file = opts
            .flags
            .iter()
            .rev()
            .find(|(k, _)| k == "flags_file")
            .map(|(_, v)| PathBuf::from(v))
            .or_else(|| {
                std::env::var("AUTODREAM_FLAGS_FILE").ok().filter(|v| !v.is_empty()).map(PathBuf::from)
            })
            .or_else(|| {
                file_table
                    .as_ref()
                    .and_then(|t| t.get("flags_file"))
                    .and_then(|v| v.as_str())
                    .map(PathBuf::from)
            });
        if let Some(path) = &flags_file {
            let source = path.display().to_string();
            match read_flags_file(path) {
                Ok(Some(serde_json::Value::Object(obj))) => {
                    for (json_key, key) in
                        [("enabled", "enabled"), ("minHours", "min_hours"), ("minSessions", "min_sessions")]
                    {
                        if let Some(v) = obj.get(json_key) {
                            // The anchor uses a remote number only when it is finite and > 0.
                            let positive =
                                key == "enabled" || v.as_f64().is_some_and(|f| f.is_finite() && f > 0.0);
                            if positive {
                                b.set(&source, key, Raw::Json(v));
                            } else {
                                b.warn(&source, json_key, format!("expected a number > 0, got {v}; ignored"));
                            }
                        }
                    }
                }
                Ok(Some(other)) => b.warn(&source, "", format!("expected a JSON object, got {other}")),
                Ok(None) => {}
                Err(e) => b.warn(&source, "", e),
            }
        }

        // 2. The client's settings files: autoMemoryEnabled, and autoDreamEnabled (reported).
        let mut settings = Vec::new();
        if let Some(base) = opts.agent_base.clone().or_else(|| crate::paths::agent_base_dir().ok()) {
            settings.push(base.join("settings.json"));
        }
        if let Some(project) = &opts.project_dir {
            settings.push(project.join(".claude").join("settings.json"));
            settings.push(project.join(".claude").join("settings.local.json"));
        }
        for path in settings {
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let source = path.display().to_string();
            let value: serde_json::Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    b.warn(&source, "", format!("not JSON (line {}, column {}): {e}", e.line(), e.column()));
                    continue;
                }
            };
            if let Some(v) = value.get("autoDreamEnabled") {
                match v.as_bool() {
                    Some(on) => client_auto_dream = Some(ClientSetting { value: on, source: path.clone() }),
                    None => b.warn(
                        &source,
                        "autoDreamEnabled",
                        format!("expected true or false, got {v}; ignored"),
                    ),
                }
            }
            if let Some(v) = value.get("autoMemoryEnabled").and_then(|v| v.as_bool()) {
                auto_memory_off =
                    (!v).then(|| Disabled { reason: format!("autoMemoryEnabled is false in {source}") });
            }
        }

        // 3. The user's config file.
        if let (Some(path), Some(table)) = (&file, &file_table) {
            b.apply_toml(&path.display().to_string(), table, "");
        }

        // 4. The environment.
        for (key, _) in FIELDS {
            let var = env_var_of(key);
            if let Ok(value) = std::env::var(&var) {
                b.set(&format!("environment {var}"), key, Raw::Text(&value));
            }
        }

        // 5. Command-line flags.
        for (key, value) in &opts.flags {
            let source = if key == "sessions_format" {
                "--sessions-format".to_string()
            } else {
                format!("--set {key}")
            };
            b.set(&source, key, Raw::Text(value));
        }

        // The client's own switches, as the client reads them: the first defined one wins.
        if let Some(off) = env_truthy("CLAUDE_CODE_DISABLE_AUTO_MEMORY") {
            auto_memory_off =
                off.then(|| Disabled { reason: "CLAUDE_CODE_DISABLE_AUTO_MEMORY is set".into() });
        } else if env_truthy("CLAUDE_CODE_SIMPLE") == Some(true) {
            auto_memory_off = Some(Disabled {
                reason: "CLAUDE_CODE_SIMPLE is set (--bare): the client has no auto memory".into(),
            });
        } else if env_truthy("CLAUDE_CODE_REMOTE") == Some(true)
            && std::env::var_os("CLAUDE_CODE_REMOTE_MEMORY_DIR").is_none_or(|v| v.is_empty())
        {
            auto_memory_off = Some(Disabled {
                reason: "CLAUDE_CODE_REMOTE is set without CLAUDE_CODE_REMOTE_MEMORY_DIR".into(),
            });
        }

        // The client's memory stores own memory: autodream stands down as the client's own
        // extraction and dream do (an explicit off above keeps its own reason).
        match stores::configured_stores() {
            Some(Ok(list)) if !list.is_empty() && auto_memory_off.is_none() => {
                auto_memory_off = Some(Disabled { reason: stores::stand_down_reason(&list) });
            }
            Some(Err(e)) => b.warn(&format!("environment {}", stores::MEMORY_STORES_VAR), "memory_stores", e),
            _ => {}
        }

        Ok(LoadedConfig {
            config: b.config,
            warnings: b.warnings,
            file,
            auto_memory_off,
            client_auto_dream,
            enabled_source: b.enabled_source,
        })
    }

    pub fn scan_interval(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.scan_interval_minutes * 60.0)
    }

    pub fn stale_lock(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.stale_lock_minutes * 60.0)
    }
}

fn read_toml(path: &Path, b: &mut Builder) -> Option<toml::Table> {
    let source = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            b.warn(&source, "", format!("cannot read: {e}"));
            return None;
        }
    };
    match text.parse::<toml::Table>() {
        Ok(t) => Some(t),
        Err(e) => {
            let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            b.warn(&source, "", format!("not valid TOML{at}: {}; the whole file is ignored", e.message()));
            None
        }
    }
}

#[cfg(test)]
mod tests;
