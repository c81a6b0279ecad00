//! Layering, validation field by field, and the sources' precedence.

use super::*;

fn load_with(file: &str, flags: &[(&str, &str)]) -> LoadedConfig {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("config.toml");
    std::fs::write(&p, file).unwrap();
    Config::load(&LoadOptions {
        config_file: Some(p),
        flags: flags.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        project_dir: None,
        agent_base: Some(tmp.path().join("no-agent")),
    })
    .unwrap()
}

#[test]
fn each_bad_field_falls_back_alone() {
    let l =
        load_with("min_hours = -3\nmin_sessions = 7\nidle_seconds = \"soon\"\n[agent]\nmodel = \"m\"\n", &[]);
    assert_eq!(l.config.min_hours, 24.0);
    assert_eq!(l.config.min_sessions, 7);
    assert_eq!(l.config.idle_seconds, 60);
    assert_eq!(l.config.agent.model, "m");
    let mut fields: Vec<_> = l.warnings.iter().map(|w| w.field.as_str()).collect();
    fields.sort();
    assert_eq!(fields, ["idle_seconds", "min_hours"]);
    assert!(l.warnings.iter().any(|w| w.to_string().contains("config.toml: min_hours: -3 is out of range")));
}

#[test]
fn flags_beat_the_file_and_bad_flags_fall_back_to_the_file() {
    let l = load_with("min_hours = 12\nmin_sessions = 3\n", &[("min_hours", "2.5"), ("min_sessions", "NaN")]);
    assert_eq!(l.config.min_hours, 2.5);
    assert_eq!(l.config.min_sessions, 3);
    assert_eq!(l.warnings.len(), 1);
    assert_eq!(l.warnings[0].source, "--set min_sessions");
}

#[test]
fn broken_toml_is_a_warning_with_a_line() {
    let l = load_with("min_hours = 1\nthis is not toml\n", &[]);
    assert_eq!(l.config.min_hours, 24.0);
    assert!(l.warnings[0].message.contains("line 2"), "{:?}", l.warnings);
}

#[test]
fn unknown_keys_are_reported() {
    let l = load_with("min_hourz = 1\n", &[]);
    assert_eq!(l.warnings[0].field, "min_hourz");
}

#[test]
fn nan_and_infinity_are_refused() {
    let l = load_with("min_hours = nan\nstale_lock_minutes = inf\n", &[]);
    assert_eq!(l.config.min_hours, 24.0);
    assert_eq!(l.config.stale_lock_minutes, 60.0);
    assert_eq!(l.warnings.len(), 2);
}

#[test]
fn missing_explicit_file_is_an_error() {
    let err =
        Config::load(&LoadOptions { config_file: Some("/nonexistent/x.toml".into()), ..Default::default() });
    assert!(matches!(err, Err(ConfigError::MissingFile(_))));
}

#[test]
fn remote_flags_rank_below_our_file_and_the_clients_dream_switch_is_only_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let flags = tmp.path().join("flags.json");
    std::fs::write(&flags, r#"{"enabled": false, "minHours": 6, "minSessions": -1}"#).unwrap();
    let base = tmp.path().join("agent");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::write(base.join("settings.json"), r#"{"autoDreamEnabled": true}"#).unwrap();
    let cfg = tmp.path().join("c.toml");
    std::fs::write(&cfg, format!("flags_file = {:?}\n", flags.display().to_string())).unwrap();
    let l = Config::load(&LoadOptions {
        config_file: Some(cfg.clone()),
        agent_base: Some(base.clone()),
        ..Default::default()
    })
    .unwrap();
    assert!(!l.config.enabled, "the client's autoDreamEnabled is the client's switch, not ours");
    assert_eq!(l.enabled_source, flags.display().to_string());
    assert_eq!(
        l.client_auto_dream,
        Some(crate::config::ClientSetting { value: true, source: base.join("settings.json") })
    );
    assert_eq!(l.config.min_hours, 6.0);
    assert_eq!(l.config.min_sessions, 5, "a non-positive remote number is ignored");
    std::fs::write(&cfg, format!("flags_file = {:?}\nenabled = false\n", flags.display().to_string()))
        .unwrap();
    let l =
        Config::load(&LoadOptions { config_file: Some(cfg), agent_base: Some(base), ..Default::default() })
            .unwrap();
    assert!(!l.config.enabled, "our file decides");
}

proptest::proptest! {
    #[test]
    fn any_value_for_any_key_never_panics(key in proptest::sample::select(keys().collect::<Vec<_>>()), value in ".*") {
        let mut c = Config::default();
        let setter = FIELDS.iter().find(|(k, _)| *k == key).unwrap().1;
        let _ = setter(&mut c, &Raw::Text(&value));
        proptest::prop_assert!(c.min_hours.is_finite() && c.min_hours >= 0.0);
        proptest::prop_assert!(c.memory_budget_ratio > 0.0 && c.memory_budget_ratio <= 1.0);
    }

    #[test]
    fn any_toml_file_never_panics(text in ".{0,200}") {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("c.toml");
        std::fs::write(&p, &text).unwrap();
        let l = Config::load(&LoadOptions { config_file: Some(p), agent_base: Some(tmp.path().into()), ..Default::default() });
        proptest::prop_assert!(l.is_ok());
    }
}

#[test]
fn the_claude_engine_reads_its_table_and_exec_is_refused_with_a_pointer() {
    let l = load_with(
        "engine = \"claude\"\nmax_cost_per_day = 1.5\n[claude]\ncommand = \"~/bin/claude\"\ntimeout_minutes = 5\n",
        &[],
    );
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    assert_eq!(l.config.engine, "claude");
    assert_eq!((l.config.claude.command.as_str(), l.config.claude.timeout_minutes), ("~/bin/claude", 5.0));
    assert_eq!(l.config.max_cost_per_day, 1.5);
    let l = load_with(
        "engine = \"exec\"\nexec_command = \"llm\"\nmax_cost_per_day = -1\n[claude]\ntimeout_minutes = 0\n",
        &[],
    );
    assert_eq!(l.config.engine, "offline");
    assert_eq!((l.config.max_cost_per_day, l.config.claude.timeout_minutes), (0.0, 20.0));
    let mut fields: Vec<_> = l.warnings.iter().map(|w| w.field.as_str()).collect();
    fields.sort();
    assert_eq!(fields, ["claude.timeout_minutes", "engine", "exec_command", "max_cost_per_day"]);
    assert!(
        l.warnings
            .iter()
            .filter(|w| w.field.starts_with("e"))
            .all(|w| w.message.contains("engine = \"claude\""))
    );
}
