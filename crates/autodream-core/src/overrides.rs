//! The global options: what every command, the hook and the worker are told on the command
//! line, and the one way they become locations, configuration and a clock.
//!
//! The CLI converts its parsed arguments into [`Overrides`]; the hook parses its argv with
//! [`Overrides::parse`] (no argument parser on the hot path). Commands resolve them strictly
//! (a bad `--set` is the user's direct request and is refused); the hook resolves them
//! leniently (a bad value is skipped on its own, because a hook must never fail the agent).
//! The background worker inherits them through [`Overrides::to_worker_argv`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::clock::{Clock, ClockError};
use crate::config::{self, Config, ConfigError, LoadOptions, LoadedConfig};
use crate::paths::{Locations, PathError, PathOverrides};

/// The global options: where the memory, the sessions and the project are, the config file,
/// and settings given on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    pub memory_dir: Option<PathBuf>,
    pub sessions_dir: Option<PathBuf>,
    pub project: Option<PathBuf>,
    pub config: Option<PathBuf>,
    pub sessions_format: Option<String>,
    pub current_session: Option<String>,
    /// `KEY=VALUE` settings, as given.
    pub set: Vec<String>,
}

/// How a bad command-line value is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// Refused with an error: the commands, where the user asked for it directly.
    Strict,
    /// Skipped on its own: the hook, which must never fail the agent.
    Lenient,
}

/// What the global options resolve to.
#[derive(Debug)]
pub struct Resolved {
    pub locations: Locations,
    pub config: LoadedConfig,
    pub clock: Clock,
}

#[derive(Debug, thiserror::Error)]
pub enum OverrideError {
    /// `--set` without `=`.
    #[error("--set {0:?}: expected KEY=VALUE, e.g. --set min_hours=12")]
    NotKeyValue(String),
    /// `--set` of a key autodream does not know.
    #[error("--set {key}: unknown setting (known: {})", config::keys().collect::<Vec<_>>().join(", "))]
    UnknownKey { key: String },
    /// A command-line value the configuration refused (strict resolution only).
    #[error("{source_flag}: {message}")]
    BadValue { source_flag: String, message: String },
    #[error(transparent)]
    Clock(#[from] ClockError),
    #[error(transparent)]
    Paths(#[from] PathError),
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl OverrideError {
    /// A mistake on the command line (as opposed to the environment or the file system).
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::NotKeyValue(_) | Self::UnknownKey { .. } | Self::BadValue { .. })
    }
}

impl Overrides {
    /// Parses the global options (`--memory-dir X`, `--set k=v`, `--opt=value` …) without a
    /// full argument parser; anything else returns `None`.
    pub fn parse(args: &[OsString]) -> Option<Overrides> {
        let mut o = Overrides::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let arg = arg.to_str()?;
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (arg, None),
            };
            let mut value =
                || inline.clone().or_else(|| it.next().and_then(|v| v.to_str()).map(str::to_string));
            match name {
                "--memory-dir" => o.memory_dir = Some(value()?.into()),
                "--sessions-dir" => o.sessions_dir = Some(value()?.into()),
                "--project" => o.project = Some(value()?.into()),
                "--config" => o.config = Some(value()?.into()),
                "--sessions-format" => o.sessions_format = Some(value()?),
                "--current-session" => o.current_session = Some(value()?),
                "--set" => o.set.push(value()?),
                _ => return None,
            }
        }
        Some(o)
    }

    /// The settings of `--set` and `--sessions-format` as configuration flags, skipping a
    /// malformed or unknown `--set` on its own.
    pub fn flag_overrides(&self) -> Vec<(String, String)> {
        let mut flags: Vec<(String, String)> = self
            .set
            .iter()
            .filter_map(|s| s.split_once('='))
            .map(|(k, v)| (k.trim().replace('-', "_"), v.to_string()))
            .filter(|(k, _)| config::keys().any(|known| known == k))
            .collect();
        if let Some(f) = &self.sessions_format {
            flags.push(("sessions_format".into(), f.clone()));
        }
        flags
    }

    /// The same, refusing a malformed or unknown `--set`.
    pub fn checked_flag_overrides(&self) -> Result<Vec<(String, String)>, OverrideError> {
        let mut flags = Vec::new();
        for s in &self.set {
            let (k, v) = s.split_once('=').ok_or_else(|| OverrideError::NotKeyValue(s.clone()))?;
            let key = k.trim().replace('-', "_");
            if !config::keys().any(|known| known == key) {
                return Err(OverrideError::UnknownKey { key: k.to_string() });
            }
            flags.push((key, v.to_string()));
        }
        if let Some(f) = &self.sessions_format {
            flags.push(("sessions_format".into(), f.clone()));
        }
        Ok(flags)
    }

    /// The folder overrides; `project_fallback` is asked only when `--project` is not given.
    /// `--sessions-format gemini` or `codex` without `--sessions-dir` (and without
    /// `AUTODREAM_SESSIONS_DIR`) points at that agent's own sessions folder.
    pub fn path_overrides(&self, project_fallback: impl FnOnce() -> Option<PathBuf>) -> PathOverrides {
        let project_dir = self.project.clone().or_else(project_fallback);
        let agent_dir = || {
            let format = self.sessions_format.as_deref()?.parse().ok()?;
            if std::env::var_os("AUTODREAM_SESSIONS_DIR").is_some_and(|v| !v.is_empty()) {
                return None;
            }
            let cwd = std::env::current_dir().ok();
            let project = match &project_dir {
                Some(p) if p.is_absolute() => p.clone(),
                Some(p) => cwd?.join(p),
                None => cwd?,
            };
            crate::sessions::agent_sessions_dir(format, &project)
        };
        PathOverrides {
            memory_dir: self.memory_dir.clone(),
            sessions_dir: self.sessions_dir.clone().or_else(agent_dir),
            project_dir,
        }
    }

    /// Loads the configuration for `locations`' project with these overrides.
    pub fn load_config(
        &self,
        locations: &Locations,
        strictness: Strictness,
    ) -> Result<LoadedConfig, OverrideError> {
        let flags = match strictness {
            Strictness::Strict => self.checked_flag_overrides()?,
            Strictness::Lenient => self.flag_overrides(),
        };
        let config = Config::load(&LoadOptions {
            config_file: self.config.clone(),
            flags,
            project_dir: Some(locations.project_dir.clone()),
            agent_base: None,
        })?;
        if strictness == Strictness::Strict
            && let Some(w) = config.warnings.iter().find(|w| w.source.starts_with("--"))
        {
            // Refused, not ignored: the command line is the user's direct request.
            let message = w.message.trim_end_matches("; ignored");
            return Err(OverrideError::BadValue {
                source_flag: w.source.clone(),
                message: message.to_string(),
            });
        }
        Ok(config)
    }

    /// Where things are, the configuration and the clock.
    pub fn resolve(&self, strictness: Strictness) -> Result<Resolved, OverrideError> {
        let clock = Clock::from_env()?;
        let locations = Locations::resolve(&self.path_overrides(|| None))?;
        let config = self.load_config(&locations, strictness)?;
        Ok(Resolved { locations, config, clock })
    }

    /// The background worker's command line: `__worker`, the resolved folders, the options it
    /// inherits (`--config`, every `--set`, `--sessions-format`), the current session and the
    /// transcript to watch for idleness.
    pub fn to_worker_argv(
        &self,
        locations: &Locations,
        current_session: Option<&str>,
        transcript: Option<&Path>,
    ) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![
            "__worker".into(),
            "--memory-dir".into(),
            locations.memory_dir.clone().into(),
            "--sessions-dir".into(),
            locations.sessions_dir.clone().into(),
            "--project".into(),
            locations.project_dir.clone().into(),
        ];
        if let Some(c) = &self.config {
            out.push("--config".into());
            out.push(c.into());
        }
        for s in &self.set {
            out.push("--set".into());
            out.push(s.into());
        }
        if let Some(f) = &self.sessions_format {
            out.push("--sessions-format".into());
            out.push(f.into());
        }
        if let Some(s) = current_session {
            out.push("--current-session".into());
            out.push(s.into());
        }
        if let Some(t) = transcript {
            out.push("--transcript".into());
            out.push(t.into());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_the_global_options_only() {
        let o =
            Overrides::parse(&os(&["--memory-dir", "/m", "--set=min_hours=2", "--set", "bogus=1"])).unwrap();
        assert_eq!(o.memory_dir, Some(PathBuf::from("/m")));
        assert_eq!(o.flag_overrides(), [("min_hours".to_string(), "2".to_string())]);
        assert!(Overrides::parse(&os(&["--help"])).is_none());
        assert!(Overrides::parse(&os(&["--memory-dir"])).is_none());
    }

    #[test]
    fn strict_refuses_what_lenient_skips() {
        let o = Overrides { set: vec!["min-hours=3".into(), "bogus=1".into()], ..Default::default() };
        assert_eq!(o.flag_overrides(), [("min_hours".to_string(), "3".to_string())]);
        let err = o.checked_flag_overrides().unwrap_err();
        assert!(err.is_usage());
        assert!(err.to_string().starts_with("--set bogus: unknown setting (known: "), "{err}");
        let o = Overrides { set: vec!["min_hours".into()], ..Default::default() };
        assert!(o.flag_overrides().is_empty());
        assert_eq!(
            o.checked_flag_overrides().unwrap_err().to_string(),
            "--set \"min_hours\": expected KEY=VALUE, e.g. --set min_hours=12"
        );
    }

    #[test]
    fn the_worker_argv_parses_back_to_the_inherited_options() {
        let o = Overrides {
            memory_dir: Some("/ignored".into()),
            config: Some("/c.toml".into()),
            sessions_format: Some("codex".into()),
            set: vec!["min_hours=1".into()],
            ..Default::default()
        };
        let loc = Locations {
            memory_dir: "/m".into(),
            state_dir: "/st".into(),
            sessions_dir: "/s".into(),
            project_dir: "/p".into(),
        };
        let argv = o.to_worker_argv(&loc, Some("abc"), Some(Path::new("/t.jsonl")));
        assert_eq!(argv[0], "__worker");
        assert_eq!(argv.last().unwrap(), "/t.jsonl");
        let back = Overrides::parse(&argv[1..argv.len() - 2]).unwrap();
        assert_eq!(
            back,
            Overrides {
                memory_dir: Some("/m".into()),
                sessions_dir: Some("/s".into()),
                project: Some("/p".into()),
                current_session: Some("abc".into()),
                ..o
            }
        );
    }
}
