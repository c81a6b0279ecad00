//! The configuration's fields: every key, how a raw value from any source is read, and the
//! validation each field applies on its own.

use std::path::PathBuf;

use super::{Config, Mode, parse_bool};

/// A value as a source gave it, before validation.
#[derive(Debug, Clone)]
pub(super) enum Raw<'a> {
    Toml(&'a toml::Value),
    Json(&'a serde_json::Value),
    Text(&'a str),
}

impl Raw<'_> {
    pub(super) fn describe(&self) -> String {
        match self {
            Raw::Toml(v) => v.to_string(),
            Raw::Json(v) => v.to_string(),
            Raw::Text(s) => format!("{s:?}"),
        }
    }

    pub(super) fn as_f64(&self) -> Option<f64> {
        match self {
            Raw::Toml(toml::Value::Integer(i)) => Some(*i as f64),
            Raw::Toml(toml::Value::Float(f)) => Some(*f),
            Raw::Json(v) => v.as_f64(),
            Raw::Text(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        }
    }

    pub(super) fn as_i64(&self) -> Option<i64> {
        match self {
            Raw::Toml(toml::Value::Integer(i)) => Some(*i),
            Raw::Json(v) => v.as_i64(),
            Raw::Text(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        }
    }

    pub(super) fn as_bool(&self) -> Option<bool> {
        match self {
            Raw::Toml(toml::Value::Boolean(b)) => Some(*b),
            Raw::Json(serde_json::Value::Bool(b)) => Some(*b),
            Raw::Text(s) => parse_bool(s),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Raw::Toml(toml::Value::String(s)) => Some(s),
            Raw::Json(serde_json::Value::String(s)) => Some(s),
            Raw::Text(s) => Some(s),
            _ => None,
        }
    }
}

pub(super) type Setter = fn(&mut Config, &Raw<'_>) -> Result<(), String>;

fn pos_f64(v: &Raw<'_>, min: f64, max: f64, min_inclusive: bool) -> Result<f64, String> {
    let f = v.as_f64().ok_or_else(|| format!("expected a number, got {}", v.describe()))?;
    if !f.is_finite() {
        return Err(format!("expected a finite number, got {}", v.describe()));
    }
    let low_ok = if min_inclusive { f >= min } else { f > min };
    if !low_ok || f > max {
        let op = if min_inclusive { "≥" } else { ">" };
        return Err(format!("{f} is out of range (must be {op} {min} and ≤ {max})"));
    }
    Ok(f)
}

fn int(v: &Raw<'_>, min: i64, max: i64) -> Result<i64, String> {
    let i = match v.as_i64() {
        Some(i) => i,
        None => match v.as_f64() {
            Some(f) if f.is_finite() && f.fract() == 0.0 => f as i64,
            _ => return Err(format!("expected a whole number, got {}", v.describe())),
        },
    };
    if i < min || i > max {
        return Err(format!("{i} is out of range ({min}..={max})"));
    }
    Ok(i)
}

fn boolean(v: &Raw<'_>) -> Result<bool, String> {
    v.as_bool().ok_or_else(|| format!("expected true or false, got {}", v.describe()))
}

fn string(v: &Raw<'_>) -> Result<String, String> {
    match v.as_str() {
        Some(s) if !s.trim().is_empty() && !s.contains('\0') => Ok(s.trim().to_string()),
        Some(_) => Err("expected a non-empty string".into()),
        None => Err(format!("expected a string, got {}", v.describe())),
    }
}

fn one_of(v: &Raw<'_>, allowed: &[&str]) -> Result<String, String> {
    let s = string(v)?.to_ascii_lowercase();
    if allowed.contains(&s.as_str()) {
        Ok(s)
    } else {
        Err(format!("{s:?} is not one of {}", allowed.join(", ")))
    }
}

/// Why `engine = "exec"` and `exec_command` are refused: the engine that runs an outside
/// program is `claude`, which runs the user's Claude Code client under the sandbox.
pub(super) const EXEC_RETIRED: &str = "the exec engine was replaced by engine = \"claude\" (the Claude Code client in print mode, sandboxed; set claude.command to its binary)";

/// A list of absolute paths: a TOML or JSON array of strings, or one string of
/// comma-separated paths (environment and `--set`).
fn path_list(v: &Raw<'_>) -> Result<Vec<PathBuf>, String> {
    let strings = |a: Vec<Option<&str>>| -> Result<Vec<String>, String> {
        a.into_iter()
            .map(|x| x.map(str::to_string).ok_or_else(|| "expected a list of path strings".to_string()))
            .collect()
    };
    let items: Vec<String> = match v {
        Raw::Toml(toml::Value::Array(a)) => strings(a.iter().map(|x| x.as_str()).collect())?,
        Raw::Json(serde_json::Value::Array(a)) => strings(a.iter().map(|x| x.as_str()).collect())?,
        _ => match v.as_str() {
            Some(s) => s.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect(),
            None => return Err(format!("expected a list of paths, got {}", v.describe())),
        },
    };
    items
        .into_iter()
        .map(|s| {
            let p = PathBuf::from(&s);
            if p.is_absolute() { Ok(p) } else { Err(format!("{s:?} is not an absolute path")) }
        })
        .collect()
}

/// Every configuration key, its setter and validation.
pub(super) const FIELDS: &[(&str, Setter)] = &[
    ("enabled", |c, v| {
        c.enabled = boolean(v)?;
        Ok(())
    }),
    ("mode", |c, v| {
        c.mode = match one_of(v, &["normal", "assistant", "remote"])?.as_str() {
            "assistant" => Mode::Assistant,
            "remote" => Mode::Remote,
            _ => Mode::Normal,
        };
        Ok(())
    }),
    ("min_hours", |c, v| {
        c.min_hours = pos_f64(v, 0.0, 24.0 * 366.0, true)?;
        Ok(())
    }),
    ("min_sessions", |c, v| {
        c.min_sessions = int(v, 0, 100_000)? as u32;
        Ok(())
    }),
    ("scan_interval_minutes", |c, v| {
        c.scan_interval_minutes = pos_f64(v, 0.0, 7.0 * 24.0 * 60.0, true)?;
        Ok(())
    }),
    ("stale_lock_minutes", |c, v| {
        c.stale_lock_minutes = pos_f64(v, 0.0, 7.0 * 24.0 * 60.0, false)?;
        Ok(())
    }),
    ("idle_seconds", |c, v| {
        c.idle_seconds = int(v, 0, 86_400)? as u64;
        Ok(())
    }),
    ("idle_max_wait_minutes", |c, v| {
        c.idle_max_wait_minutes = pos_f64(v, 0.0, 24.0 * 60.0, true)?;
        Ok(())
    }),
    ("index_max_lines", |c, v| {
        c.index_max_lines = int(v, 1, 100_000)? as usize;
        Ok(())
    }),
    ("index_max_units", |c, v| {
        c.index_max_units = int(v, 100, 10_000_000)? as usize;
        Ok(())
    }),
    ("sessions_format", |c, v| {
        c.sessions_format =
            one_of(v, &["auto", "claude", "generic", "codex", "gemini"])?.parse().map_err(|e: String| e)?;
        Ok(())
    }),
    ("extract", |c, v| {
        c.extract = super::values::CaptureMode::parse(&one_of(v, &["off", "offline", "agent"])?)?;
        Ok(())
    }),
    ("extract_max_tokens", |c, v| {
        c.extract_max_tokens = int(v, 16, 4_000)? as u32;
        Ok(())
    }),
    ("engine", |c, v| {
        if v.as_str().is_some_and(|s| s.trim().eq_ignore_ascii_case("exec")) {
            return Err(EXEC_RETIRED.into());
        }
        c.engine = one_of(v, &["offline", "hygiene", "api", "agent", "claude"])?;
        Ok(())
    }),
    ("flags_file", |c, v| {
        c.flags_file = Some(PathBuf::from(string(v)?));
        Ok(())
    }),
    ("mirror_index", |c, v| {
        c.mirror_index = path_list(v)?;
        Ok(())
    }),
    ("check_repository", |c, v| {
        c.check_repository = boolean(v)?;
        Ok(())
    }),
    ("review", |c, v| {
        c.review = boolean(v)?;
        Ok(())
    }),
    ("memory_budget_ratio", |c, v| {
        c.memory_budget_ratio = pos_f64(v, 0.0, 1.0, false)?;
        Ok(())
    }),
    ("memory_budget_max_bytes", |c, v| {
        c.memory_budget_max_bytes = int(v, 1024, 1 << 40)? as u64;
        Ok(())
    }),
    ("exec_command", |_, _| Err(EXEC_RETIRED.into())),
    ("claude.command", |c, v| {
        c.claude.command = string(v)?;
        Ok(())
    }),
    ("claude.timeout_minutes", |c, v| {
        c.claude.timeout_minutes = pos_f64(v, 0.0, 24.0 * 60.0, false)?;
        Ok(())
    }),
    ("max_cost_per_day", |c, v| {
        c.max_cost_per_day = pos_f64(v, 0.0, 1_000_000.0, true)?;
        Ok(())
    }),
    ("dream_window", |c, v| {
        c.dream_window = string(v)?.parse().map_err(|e: super::values::WindowError| e.to_string())?;
        Ok(())
    }),
    ("tick_minutes", |c, v| {
        c.tick_minutes = pos_f64(v, 0.0, 24.0 * 60.0, false)?;
        Ok(())
    }),
    ("min_log_entries", |c, v| {
        c.min_log_entries = int(v, 0, 1_000_000)? as u32;
        Ok(())
    }),
    ("team.remote", |c, v| {
        c.team.remote = string(v)?;
        Ok(())
    }),
    ("team.branch", |c, v| {
        let b = string(v)?;
        if b.starts_with(['-', '/'])
            || b.ends_with(['/', '.'])
            || b.contains("..")
            || b.contains(char::is_whitespace)
        {
            return Err(format!("{b:?} is not a usable branch name"));
        }
        c.team.branch = b;
        Ok(())
    }),
    ("team.lease_minutes", |c, v| {
        c.team.lease_minutes = pos_f64(v, 0.0, 7.0 * 24.0 * 60.0, false)?;
        Ok(())
    }),
    ("team.machine", |c, v| {
        let m = string(v)?;
        if !m.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_') || m.len() > 64 {
            return Err(format!("{m:?}: a machine name is letters, digits, - and _ (at most 64)"));
        }
        c.team.machine = Some(m);
        Ok(())
    }),
    ("agent.provider", |c, v| {
        c.agent.provider = one_of(v, &["anthropic", "openai"])?;
        Ok(())
    }),
    ("agent.model", |c, v| {
        c.agent.model = string(v)?;
        Ok(())
    }),
    ("agent.base_url", |c, v| {
        let s = string(v)?;
        if !(s.starts_with("http://") || s.starts_with("https://")) {
            return Err(format!("{s:?} is not an http(s) URL"));
        }
        c.agent.base_url = Some(s);
        Ok(())
    }),
    ("agent.api_key_env", |c, v| {
        let s = string(v)?;
        if !s.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') {
            return Err(format!(
                "{s:?} is not an environment variable name (put the NAME of the variable here, never the key)"
            ));
        }
        c.agent.api_key_env = Some(s);
        Ok(())
    }),
    ("agent.max_turns", |c, v| {
        c.agent.max_turns = int(v, 1, 10_000)? as u32;
        Ok(())
    }),
    ("agent.max_tokens_per_dream", |c, v| {
        c.agent.max_tokens_per_dream = int(v, 1_000, 1 << 40)? as u64;
        Ok(())
    }),
    ("agent.max_output_tokens", |c, v| {
        c.agent.max_output_tokens = int(v, 16, 1_000_000)? as u32;
        Ok(())
    }),
    ("agent.request_timeout_secs", |c, v| {
        c.agent.request_timeout_secs = int(v, 1, 3_600)? as u64;
        Ok(())
    }),
    ("agent.max_retries", |c, v| {
        c.agent.max_retries = int(v, 0, 20)? as u32;
        Ok(())
    }),
    ("agent.price_input", |c, v| {
        c.agent.price_input = pos_f64(v, 0.0, 10_000.0, true)?;
        Ok(())
    }),
    ("agent.price_output", |c, v| {
        c.agent.price_output = pos_f64(v, 0.0, 10_000.0, true)?;
        Ok(())
    }),
    ("agent.price_cache_read", |c, v| {
        c.agent.price_cache_read = pos_f64(v, 0.0, 10_000.0, true)?;
        Ok(())
    }),
    ("agent.price_cache_write", |c, v| {
        c.agent.price_cache_write = pos_f64(v, 0.0, 10_000.0, true)?;
        Ok(())
    }),
    ("agent.read_project", |c, v| {
        c.agent.read_project = boolean(v)?;
        Ok(())
    }),
];

/// Every configuration key, dotted (`agent.model`).
pub fn keys() -> impl Iterator<Item = &'static str> {
    FIELDS.iter().map(|(k, _)| *k)
}

/// The environment variable of a key: `AUTODREAM_MIN_HOURS`, `AUTODREAM_AGENT_MODEL`.
pub fn env_var_of(key: &str) -> String {
    format!("AUTODREAM_{}", key.replace('.', "_").to_ascii_uppercase())
}
