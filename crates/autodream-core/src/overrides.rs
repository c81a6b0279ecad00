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

/// Declares the global options once: the [`Overrides`] struct and [`GLOBAL_FLAGS`], the table
/// that the command-line parser (clap, in the CLI), the hook's own parser, the worker's and
/// extractor's argv, the argv baked into installed hooks and the hook's help are all made from.
/// Adding a global option is one entry here.
macro_rules! global_flags {
    ($(
        $(#[doc = $doc:literal])+
        $field:ident: $ty:ty => $long:literal $value:literal, $pass:expr;
    )+) => {
        /// The global options: where the memory, the sessions and the project are, the config
        /// file, and settings given on the command line.
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub struct Overrides {
            $( $(#[doc = $doc])+ pub $field: $ty, )+
        }

        /// Every global option, in the order of `--help` and of the argv made from them.
        pub const GLOBAL_FLAGS: &[GlobalFlag] = &[$(
            GlobalFlag {
                id: stringify!($field),
                long: $long,
                value_name: $value,
                help: concat!($($doc),+),
                repeatable: <$ty as FlagValue>::REPEATABLE,
                pass: $pass,
            },
        )+];

        impl Overrides {
            /// The values given for the option `id` (empty: not given).
            pub fn values_of(&self, id: &str) -> Vec<OsString> {
                match id {
                    $( stringify!($field) => FlagValue::values(&self.$field), )+
                    _ => Vec::new(),
                }
            }

            /// Gives the option `id` a value (a repeatable one gets one more).
            pub fn give(&mut self, id: &str, value: OsString) {
                match id {
                    $( stringify!($field) => FlagValue::give(&mut self.$field, value), )+
                    _ => {}
                }
            }
        }
    };
}

global_flags! {
    /// The memory directory [env: AUTODREAM_MEMORY_DIR] [default: the agent's, for the project]
    memory_dir: Option<PathBuf> => "--memory-dir" "DIR", Pass::Path;
    /// The folder of session transcripts [env: AUTODREAM_SESSIONS_DIR] [default: the agent's]
    sessions_dir: Option<PathBuf> => "--sessions-dir" "DIR", Pass::SessionsPath;
    /// The project directory, instead of the working directory
    project: Option<PathBuf> => "--project" "DIR", Pass::Resolved;
    /// The config file [env: AUTODREAM_CONFIG] [default: ~/.config/autodream/config.toml]
    config: Option<PathBuf> => "--config" "FILE", Pass::Path;
    /// Transcript format: auto, claude, generic, codex or gemini
    sessions_format: Option<String> => "--sessions-format" "FORMAT", Pass::Sessions;
    /// The current session's id (never counted as a new session)
    current_session: Option<String> => "--current-session" "ID", Pass::Resolved;
    /// Override a setting: --set min_hours=12 (repeatable; the keys are in docs/configuration.md)
    set: Vec<String> => "--set" "KEY=VALUE", Pass::Value;
}

/// One global option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalFlag {
    /// The [`Overrides`] field (and clap's argument id).
    pub id: &'static str,
    /// `--memory-dir`.
    pub long: &'static str,
    pub value_name: &'static str,
    pub help: &'static str,
    /// Given any number of times (`--set`), instead of once.
    pub repeatable: bool,
    /// How it travels into the commands autodream writes for later.
    pub pass: Pass,
}

impl GlobalFlag {
    /// The help text on one line.
    pub fn help_line(&self) -> String {
        self.help.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// How a global option reaches the commands autodream writes for later: the worker's and
/// extractor's argv (every option, folders resolved) and the hook command baked into an
/// agent's settings by `install`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// A path, made absolute in an installed hook.
    Path,
    /// A path about the sessions: baked only where the hook reads the same agent's sessions.
    SessionsPath,
    /// About the sessions, as given.
    Sessions,
    /// As given.
    Value,
    /// Only to the worker, from what the hook resolved (never baked into a hook: it
    /// changes with every turn).
    Resolved,
}

/// What a field of [`Overrides`] can hold: one value, or any number (`--set`).
trait FlagValue {
    const REPEATABLE: bool;
    fn values(&self) -> Vec<OsString>;
    fn give(&mut self, value: OsString);
}

impl FlagValue for Option<PathBuf> {
    const REPEATABLE: bool = false;
    fn values(&self) -> Vec<OsString> {
        self.iter().map(|p| p.clone().into_os_string()).collect()
    }
    fn give(&mut self, value: OsString) {
        *self = Some(value.into());
    }
}

impl FlagValue for Option<String> {
    const REPEATABLE: bool = false;
    fn values(&self) -> Vec<OsString> {
        self.iter().map(OsString::from).collect()
    }
    fn give(&mut self, value: OsString) {
        *self = Some(value.to_string_lossy().into_owned());
    }
}

impl FlagValue for Vec<String> {
    const REPEATABLE: bool = true;
    fn values(&self) -> Vec<OsString> {
        self.iter().map(OsString::from).collect()
    }
    fn give(&mut self, value: OsString) {
        self.push(value.to_string_lossy().into_owned());
    }
}

/// What the hook's lenient parse made of its argv.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub overrides: Overrides,
    /// The arguments it did not understand, as given (an unknown option, a value missing).
    pub skipped: Vec<String>,
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
    /// full argument parser; anything else (`--help`, a typo, a value missing) returns `None`.
    pub fn parse(args: &[OsString]) -> Option<Overrides> {
        let parsed = Overrides::parse_lenient(args);
        parsed.skipped.is_empty().then_some(parsed.overrides)
    }

    /// Parses the global options, keeping every one it understood and listing the rest: the
    /// hook's parse, which must never fail the agent but must not drop `--memory-dir` for a
    /// typo elsewhere on the line.
    pub fn parse_lenient(args: &[OsString]) -> Parsed {
        let mut parsed = Parsed::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let text = arg.to_string_lossy();
            let (name, inline) = match text.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(OsString::from(v))),
                _ => (text.as_ref(), None),
            };
            let Some(flag) = GLOBAL_FLAGS.iter().find(|f| f.long == name) else {
                parsed.skipped.push(text.into_owned());
                continue;
            };
            match inline.or_else(|| it.next().cloned()) {
                Some(value) => parsed.overrides.give(flag.id, value),
                None => parsed.skipped.push(format!("{name} (no value)")),
            }
        }
        parsed
    }

    /// These options as a command line, `--flag value` in table order, for the options `keep`
    /// accepts.
    pub fn to_argv(&self, keep: impl Fn(&GlobalFlag) -> bool) -> Vec<OsString> {
        let mut out = Vec::new();
        for flag in GLOBAL_FLAGS.iter().filter(|f| keep(f)) {
            for value in self.values_of(flag.id) {
                out.push(flag.long.into());
                out.push(value);
            }
        }
        out
    }

    /// The options an installed hook keeps on its command line, paths made absolute.
    /// `with_sessions` is off where the hook reads another agent's sessions (Codex, Gemini:
    /// the sessions options are theirs).
    pub fn to_hook_argv(&self, with_sessions: bool) -> std::io::Result<Vec<String>> {
        let mut out = Vec::new();
        for flag in GLOBAL_FLAGS {
            let baked = match flag.pass {
                Pass::Path | Pass::Value => true,
                Pass::SessionsPath | Pass::Sessions => with_sessions,
                Pass::Resolved => false,
            };
            if !baked {
                continue;
            }
            for value in self.values_of(flag.id) {
                let value = match flag.pass {
                    Pass::Path | Pass::SessionsPath => std::path::absolute(&value)?.into_os_string(),
                    _ => value,
                };
                out.push(flag.long.to_string());
                out.push(value.to_string_lossy().into_owned());
            }
        }
        Ok(out)
    }

    /// The hook binary's help: its options, from the table.
    pub fn hook_help() -> String {
        let width = GLOBAL_FLAGS.iter().map(|f| f.long.len() + f.value_name.len() + 1).max().unwrap_or(0);
        GLOBAL_FLAGS
            .iter()
            .map(|f| {
                let name = format!("{} {}", f.long, f.value_name);
                format!("  {name:width$}  {}\n", f.help_line())
            })
            .collect()
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

    /// The background worker's command line: `__worker`, every global option with the folders
    /// as resolved and the current session, and the transcript to watch for idleness.
    pub fn to_worker_argv(
        &self,
        locations: &Locations,
        current_session: Option<&str>,
        transcript: Option<&Path>,
    ) -> Vec<OsString> {
        let resolved = Overrides {
            memory_dir: Some(locations.memory_dir.clone()),
            sessions_dir: Some(locations.sessions_dir.clone()),
            project: Some(locations.project_dir.clone()),
            current_session: current_session.map(str::to_string),
            ..self.clone()
        };
        let mut out: Vec<OsString> = vec!["__worker".into()];
        out.extend(resolved.to_argv(|_| true));
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
    fn the_lenient_parse_keeps_what_it_understood_and_names_the_rest() {
        let parsed = Overrides::parse_lenient(&os(&[
            "--bogus",
            "--memory-dir",
            "/m",
            "-x",
            "--set=min_hours=2",
            "--sessions-dir",
        ]));
        assert_eq!(parsed.overrides.memory_dir, Some(PathBuf::from("/m")));
        assert_eq!(parsed.overrides.set, ["min_hours=2"]);
        assert_eq!(parsed.skipped, ["--bogus", "-x", "--sessions-dir (no value)"]);
        // A value that looks like an option is still the value of the option before it.
        let parsed = Overrides::parse_lenient(&os(&["--current-session", "--weird-id"]));
        assert_eq!(parsed.overrides.current_session.as_deref(), Some("--weird-id"));
        assert!(parsed.skipped.is_empty());
    }

    /// Every option of the table, given a value: what a new entry is checked against.
    fn every_option() -> Overrides {
        let mut o = Overrides::default();
        for f in GLOBAL_FLAGS {
            o.give(f.id, format!("/value-of-{}", f.id).into());
            if f.repeatable {
                o.give(f.id, format!("/second-{}", f.id).into());
            }
        }
        o
    }

    #[test]
    fn every_option_of_the_table_travels_through_every_command_line_made_from_it() {
        let o = every_option();
        for f in GLOBAL_FLAGS {
            assert_eq!(o.values_of(f.id).len(), if f.repeatable { 2 } else { 1 }, "{}", f.id);
            assert!(f.long.starts_with("--") && !f.help.trim().is_empty(), "{}", f.id);
            assert!(Overrides::hook_help().contains(&format!("{} {}", f.long, f.value_name)), "{}", f.id);
        }
        // Parsed back from its own argv, in both spellings.
        assert_eq!(Overrides::parse(&o.to_argv(|_| true)).unwrap(), o);
        let inline: Vec<OsString> = o
            .to_argv(|_| true)
            .chunks(2)
            .map(|pair| format!("{}={}", pair[0].to_string_lossy(), pair[1].to_string_lossy()).into())
            .collect();
        assert_eq!(Overrides::parse(&inline).unwrap(), o);
        // The worker gets every option (the folders as resolved).
        let loc = Locations {
            memory_dir: "/m".into(),
            state_dir: "/st".into(),
            sessions_dir: "/s".into(),
            project_dir: "/p".into(),
        };
        let argv = o.to_worker_argv(&loc, Some("abc"), None);
        let back = Overrides::parse(&argv[1..]).unwrap();
        for f in GLOBAL_FLAGS {
            assert!(!back.values_of(f.id).is_empty(), "{} is not passed to the worker", f.id);
        }
    }

    #[test]
    fn an_installed_hook_keeps_the_options_that_say_where_to_look_with_absolute_paths() {
        let o = Overrides {
            memory_dir: Some("rel/mem".into()),
            sessions_dir: Some("/s".into()),
            project: Some("/p".into()),
            sessions_format: Some("claude".into()),
            current_session: Some("abc".into()),
            set: vec!["min_hours=1".into()],
            ..Default::default()
        };
        let argv = o.to_hook_argv(true).unwrap();
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            argv,
            [
                "--memory-dir",
                &cwd.join("rel/mem").to_string_lossy(),
                "--sessions-dir",
                "/s",
                "--sessions-format",
                "claude",
                "--set",
                "min_hours=1"
            ]
        );
        // For another agent's hook the sessions options are the agent's own.
        assert_eq!(o.to_hook_argv(false).unwrap()[2..], ["--set", "min_hours=1"]);
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
