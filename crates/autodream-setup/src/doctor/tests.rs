use super::*;
use autodream_core::config::{Config, Disabled};
use autodream_core::gates::GateReport;
use claude_code::Scope;

fn hook(scope: Scope, event: &str, memory_dir: Option<&Path>) -> RegisteredHook {
    RegisteredHook {
        scope,
        settings: PathBuf::from(format!("/settings/{}.json", scope.as_str())),
        event: event.into(),
        command: "/bin/autodream-hook".into(),
        program: "/bin/autodream-hook".into(),
        memory_dir: memory_dir.map(Path::to_path_buf),
    }
}

fn config(auto_memory_off: bool) -> LoadedConfig {
    LoadedConfig {
        config: Config::default(),
        warnings: Vec::new(),
        file: None,
        auto_memory_off: auto_memory_off
            .then(|| Disabled { reason: "CLAUDE_CODE_DISABLE_AUTO_MEMORY=1".into() }),
        client_auto_dream: None,
        enabled_source: "default".into(),
    }
}

fn closed_at(name: GateName, detail: &str) -> Evaluation {
    let gate =
        GateReport { name, pass: false, value: Value::Null, threshold: Value::Null, detail: detail.into() };
    Evaluation {
        gates: vec![gate],
        failed: Some(name),
        last_consolidated_at: None,
        next_eligible_at: None,
        sessions_since: None,
    }
}

#[test]
fn a_hook_without_stop_is_a_warning_that_no_dream_is_announced() {
    let only_end = [hook(Scope::User, "SessionEnd", None)];
    let c = hook_events_check(&only_end);
    assert_eq!(c.status, Status::Warn);
    assert!(c.summary.contains("registered on SessionEnd but not on Stop"), "{}", c.summary);

    let both = [
        hook(Scope::User, "Stop", None),
        hook(Scope::User, "SessionEnd", None),
        hook(Scope::User, "Stop", None),
    ];
    let c = hook_events_check(&both);
    assert_eq!(c.status, Status::Ok);
    assert!(c.summary.starts_with("registered on SessionEnd, Stop in the user settings"), "{}", c.summary);
}

#[test]
fn the_memory_folder_check_names_each_writer_that_differs_from_the_client() {
    let tmp = tempfile::tempdir().unwrap();
    let (client, other) = (tmp.path().join("client"), tmp.path().join("other"));
    let loc = Locations {
        memory_dir: other.clone(),
        state_dir: tmp.path().join("state"),
        sessions_dir: tmp.path().join("sessions"),
        project_dir: tmp.path().into(),
    };
    let hooks = [hook(Scope::User, "Stop", Some(&client)), hook(Scope::Local, "Stop", Some(&other))];
    let c =
        memory_folder_check(&loc, Some(&(client.clone(), MemorySource::Layout { remote: false })), &hooks);
    assert_eq!(c.status, Status::Problem);
    assert!(c.summary.contains(&format!("autodream writes {}", other.display())), "{}", c.summary);
    assert!(c.summary.contains(&format!("the local hook writes {}", other.display())), "{}", c.summary);
    assert!(!c.summary.contains("the user hook"), "{}", c.summary);

    let same = Locations { memory_dir: client.clone(), ..loc };
    let c = memory_folder_check(&same, Some(&(client, MemorySource::Layout { remote: false })), &hooks[..1]);
    assert_eq!(c.status, Status::Ok);
    assert_eq!(memory_folder_check(&same, None, &[]).status, Status::Warn);
}

#[test]
fn only_a_closed_enabled_gate_is_a_problem_and_its_fix_follows_the_cause() {
    let eval = closed_at(GateName::Enabled, "auto memory is off");
    let c = gates_check(&eval, &config(true));
    assert_eq!((c.status, c.fix.as_deref()), (Status::Problem, Some("see auto_memory above")));
    let c = gates_check(&eval, &config(false));
    assert_eq!(c.status, Status::Problem);
    assert!(c.fix.unwrap().starts_with("set enabled = true"));

    let c = gates_check(&closed_at(GateName::Sessions, "sessions 3/5"), &config(false));
    assert_eq!((c.status, c.summary.as_str()), (Status::Ok, "waiting on sessions: sessions 3/5"));
}

#[cfg(unix)]
#[test]
fn the_hook_binary_must_sit_beside_autodream_and_be_executable() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("autodream");
    std::fs::write(&exe, "").unwrap();
    assert_eq!(binaries_check(Some(&exe)).status, Status::Warn);
    let hook_bin = tmp.path().join(claude_code::HOOK_BIN);
    std::fs::write(&hook_bin, "").unwrap();
    std::fs::set_permissions(&hook_bin, std::fs::Permissions::from_mode(0o644)).unwrap();
    let c = binaries_check(Some(&exe));
    assert_eq!((c.status, c.fix), (Status::Warn, Some(format!("chmod +x '{}'", hook_bin.display()))));
    std::fs::set_permissions(&hook_bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(binaries_check(Some(&exe)).status, Status::Ok);
}
