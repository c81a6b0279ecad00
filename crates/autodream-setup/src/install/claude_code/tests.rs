use super::*;

struct Fx {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    homes: Homes,
    project: PathBuf,
    bin: PathBuf,
}

fn fx() -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let homes = Homes {
        config_home: root.join("home/.claude"),
        global_config: root.join("home/.claude.json"),
        manifest: root.join("state/autodream/installed.json"),
    };
    let project = root.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let bin = root.join("bin dir");
    std::fs::create_dir_all(&bin).unwrap();
    Fx { _tmp: tmp, root, homes, project, bin }
}

impl Fx {
    fn opts(&self, scope: Scope) -> Options {
        Options {
            homes: self.homes.clone(),
            scope,
            project_dir: self.project.clone(),
            mcp: false,
            dry_run: false,
            autodream_exe: self.bin.join("autodream"),
            hook_exe: Some(self.bin.join("autodream-hook")),
            hook_args: Vec::new(),
            now: "2026-05-08T13:56:00Z".parse().unwrap(),
        }
    }

    /// Every file under the temporary root with its bytes.
    fn tree(&self) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, out: &mut std::collections::BTreeMap<PathBuf, Vec<u8>>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else {
                    out.insert(p.clone(), std::fs::read(&p).unwrap());
                }
            }
        }
        let mut out = Default::default();
        walk(&self.root, &mut out);
        out
    }
}

const FIXTURES: [(&str, Option<&str>); 5] = [
    ("missing", None),
    ("empty object", Some("{}\n")),
    (
        "other hooks",
        Some(
            "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"matcher\": \"\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"notify-send done\"\n          }\n        ]\n      }\n    ],\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]\n      }\n    ]\n  }\n}\n",
        ),
    ),
    (
        "unrelated keys in order",
        Some(
            "{\n    \"model\": \"opus\",\n    \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\n    \"env\": {\"B\": \"2\", \"A\": \"1\"},\n    \"autoDreamEnabled\": true\n}",
        ),
    ),
    ("one line", Some("{\"zeta\":1,\"alpha\":[1,2,3],\"autoDreamEnabled\":false}")),
];

#[test]
fn round_trip_in_every_scope_leaves_the_files_as_they_were() {
    for scope in Scope::ALL {
        for (name, fixture) in FIXTURES {
            let f = fx();
            let opts = f.opts(scope);
            let settings = settings_path(&f.homes, scope, &f.project);
            if let Some(text) = fixture {
                std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
                std::fs::write(&settings, text).unwrap();
            }
            let before = f.tree();

            // A dry run writes nothing but says what it would do.
            let dry = install(&Options { dry_run: true, ..opts.clone() }).unwrap();
            assert!(!dry.is_noop(), "{scope} {name}");
            assert_eq!(f.tree(), before, "{scope} {name}: dry run wrote");

            let report = install(&opts).unwrap();
            assert!(!report.is_noop());
            assert_eq!(
                dry.files.iter().map(|c| (&c.path, c.action, &c.items)).collect::<Vec<_>>(),
                report.files.iter().map(|c| (&c.path, c.action, &c.items)).collect::<Vec<_>>(),
                "{scope} {name}: the dry run said something else"
            );
            let value: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
            let cmd = format!("'{}'", f.bin.join("autodream-hook").display());
            for event in HOOK_EVENTS {
                assert!(handler_commands(&value, event).contains(&cmd), "{scope} {name} {event}: {value}");
            }
            assert_eq!(value["autoDreamEnabled"], json!(false));
            let dream = std::fs::read_to_string(command_path(&f.homes, scope, &f.project)).unwrap();
            assert!(dream.contains(&format!("!`'{}' run`", f.bin.join("autodream").display())), "{dream}");
            assert!(dream.contains("allowed-tools: Bash("));
            // A file that existed was copied first.
            let backups: Vec<_> = std::fs::read_dir(settings.parent().unwrap())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".autodream-backup-"))
                .collect();
            if let Some(text) = fixture {
                assert_eq!(backups.len(), 1, "{scope} {name}: {backups:?}");
                let b = settings.parent().unwrap().join(&backups[0]);
                assert_eq!(std::fs::read_to_string(b).unwrap(), text);
            } else {
                assert!(backups.is_empty());
            }

            // The second install changes nothing.
            let after_first = f.tree();
            let again = install(&opts).unwrap();
            assert!(again.is_noop(), "{scope} {name}: {again:?}");
            assert_eq!(f.tree(), after_first);

            // Uninstall: byte for byte what was there, apart from the backups.
            let dry = uninstall(&Options { dry_run: true, ..opts.clone() }).unwrap();
            assert!(!dry.is_noop());
            assert_eq!(f.tree(), after_first, "{scope} {name}: dry uninstall wrote");
            let out = uninstall(&opts).unwrap();
            assert!(!out.is_noop());
            let mut now = f.tree();
            now.retain(|p, _| !p.to_string_lossy().contains(".autodream-backup-"));
            assert_eq!(now, before, "{scope} {name}: not restored; report {out:?}");
            assert!(!f.homes.manifest.exists(), "the record goes with the install");
        }
    }
}

#[test]
fn other_hooks_keep_their_place_and_ours_is_appended() {
    let f = fx();
    let opts = f.opts(Scope::Project);
    let settings = settings_path(&f.homes, Scope::Project, &f.project);
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, FIXTURES[2].1.unwrap()).unwrap();
    install(&opts).unwrap();
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let stop = handler_commands(&value, "Stop");
    assert_eq!(stop.len(), 2);
    assert_eq!(stop[0], "notify-send done");
    assert!(stop[1].ends_with("autodream-hook'"));
    assert_eq!(handler_commands(&value, "PreToolUse"), vec!["audit".to_string()]);
}

#[test]
fn uninstall_restores_an_earlier_auto_dream_value_and_keeps_later_edits() {
    let f = fx();
    let opts = f.opts(Scope::User);
    let settings = settings_path(&f.homes, Scope::User, &f.project);
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "{\n  \"autoDreamEnabled\": true\n}\n").unwrap();
    install(&opts).unwrap();
    // The user adds a key after the install: it stays, and only our entries go.
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, text.replacen("{\n", "{\n  \"theme\": \"dark\",\n", 1)).unwrap();
    let out = uninstall(&opts).unwrap();
    assert!(out.notes.iter().any(|n| n.contains("edited since")), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\n  \"theme\": \"dark\",\n  \"autoDreamEnabled\": true\n}\n"
    );
}

#[test]
fn without_a_record_uninstall_removes_the_hooks_it_recognises() {
    let f = fx();
    let opts = f.opts(Scope::User);
    install(&opts).unwrap();
    std::fs::remove_file(&f.homes.manifest).unwrap();
    let settings = settings_path(&f.homes, Scope::User, &f.project);
    let out = uninstall(&opts).unwrap();
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(value, json!({"autoDreamEnabled": false}), "{out:?}");
    assert!(!command_path(&f.homes, Scope::User, &f.project).exists());
}

#[test]
fn mcp_goes_where_the_client_reads_it_and_comes_back_out() {
    for scope in Scope::ALL {
        let f = fx();
        std::fs::create_dir_all(f.homes.global_config.parent().unwrap()).unwrap();
        std::fs::write(&f.homes.global_config, "{\n  \"numStartups\": 3,\n  \"projects\": {}\n}\n").unwrap();
        let before = f.tree();
        let opts = Options { mcp: true, ..f.opts(scope) };
        install(&opts).unwrap();
        let (path, entry) = mcp_location(&f.homes, scope, &f.project);
        let doc = JsonDoc::parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(doc.get(&entry), Some(mcp_entry(&opts.autodream_exe)), "{scope}");
        assert!(install(&opts).unwrap().is_noop());
        uninstall(&opts).unwrap();
        let mut now = f.tree();
        now.retain(|p, _| !p.to_string_lossy().contains(".autodream-backup-"));
        assert_eq!(now, before, "{scope}");
    }
}

#[test]
fn a_command_file_of_the_users_is_left_alone() {
    let f = fx();
    let opts = f.opts(Scope::Project);
    let cmd = command_path(&f.homes, Scope::Project, &f.project);
    std::fs::create_dir_all(cmd.parent().unwrap()).unwrap();
    std::fs::write(&cmd, "my own dream command\n").unwrap();
    let report = install(&opts).unwrap();
    assert!(report.notes.iter().any(|n| n.contains("not autodream's")), "{report:?}");
    uninstall(&opts).unwrap();
    assert_eq!(std::fs::read_to_string(&cmd).unwrap(), "my own dream command\n");
}

#[test]
fn hook_commands_are_recognised_by_program_name() {
    assert_eq!(
        parse_autodream_hook("'/opt/a b/autodream-hook' --memory-dir /m"),
        Some((PathBuf::from("/opt/a b/autodream-hook"), vec!["--memory-dir".into(), "/m".into()]))
    );
    assert_eq!(
        parse_autodream_hook("/usr/bin/autodream hook").map(|h| h.0),
        Some(PathBuf::from("/usr/bin/autodream"))
    );
    assert_eq!(parse_autodream_hook("/usr/bin/autodream run"), None);
    assert_eq!(parse_autodream_hook("echo autodream-hook"), None);
}

#[test]
fn registered_hooks_report_a_baked_memory_dir() {
    let f = fx();
    let opts = Options { hook_args: vec!["--memory-dir".into(), "/m e/mory".into()], ..f.opts(Scope::Local) };
    install(&opts).unwrap();
    let hooks = registered_hooks(&f.homes, &f.project);
    assert_eq!(hooks.len(), 2);
    assert!(
        hooks
            .iter()
            .all(|h| h.scope == Scope::Local && h.memory_dir.as_deref() == Some(Path::new("/m e/mory")))
    );
    assert_eq!(hooks[0].program, f.bin.join("autodream-hook"));
}

#[test]
fn another_autodream_hook_is_named_and_kept() {
    let f = fx();
    let settings = settings_path(&f.homes, Scope::User, &f.project);
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let old = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/old/bin/autodream-hook\"}]}]}}";
    std::fs::write(&settings, old).unwrap();
    let opts = f.opts(Scope::User);
    let report = install(&opts).unwrap();
    assert!(report.notes.iter().any(|n| n.contains("/old/bin/autodream-hook")), "{report:?}");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(handler_commands(&value, "Stop").len(), 2);
    // Uninstall by record takes out only what this install added.
    uninstall(&opts).unwrap();
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), old);
}

#[test]
fn scopes_parse_and_print() {
    for s in Scope::ALL {
        assert_eq!(s.as_str().parse::<Scope>().unwrap(), s);
    }
    assert!("global".parse::<Scope>().unwrap_err().contains("expected user, project or local"));
}
