//! `autodream doctor` catching each misconfiguration a user hits, in a sealed HOME with the
//! agent's own layout: no hook, a hook whose program is gone or not executable, a memory
//! folder the client loads that is not the one autodream writes (a setting, an environment
//! override), auto memory off in the client, `autoDreamEnabled` missing, MEMORY.md too long.
//! Exit 1 for anything that keeps dreams from reaching the agent, 0 for warnings alone.

use crate::install::{Installed, set_mode};
use crate::support::*;

/// Installed, with a short MEMORY.md in the memory folder the client loads.
fn healthy() -> Installed {
    let t = Installed::new();
    t.run(&["install", "claude-code"]).assert_code(0);
    let mem = memory_dir(&t);
    write(&mem.join("MEMORY.md"), "- [Build](build.md) — cargo build --release; tests with nextest\n");
    write(
        &mem.join("build.md"),
        "---\nname: build\ndescription: how to build\ntype: project\n---\nUse nextest.\n",
    );
    t
}

/// The client's memory folder for the test project.
fn memory_dir(t: &Installed) -> std::path::PathBuf {
    let key: String = t
        .env
        .cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    t.env.home.join(".claude/projects").join(key).join("memory")
}

fn settings(t: &Installed) -> serde_json::Value {
    serde_json::from_str(&read(&t.user_settings())).unwrap()
}

fn put_settings(t: &Installed, v: &serde_json::Value) {
    write(&t.user_settings(), &serde_json::to_string_pretty(v).unwrap());
}

#[test]
fn a_healthy_setup_passes_with_its_context_cost() {
    let t = healthy();
    let out = t.run(&["doctor"]);
    out.assert_code(0);
    insta::assert_snapshot!("doctor_healthy", t.transcript(&out));
    let json = t.run(&["doctor", "--json"]);
    json.assert_code(0);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let bytes = "- [Build](build.md) — cargo build --release; tests with nextest".len();
    assert_eq!(v["context"]["bytes"], bytes);
    assert_eq!(v["context"]["tokens"], bytes.div_ceil(4));
    assert!(v["checks"].as_array().unwrap().iter().all(|c| c["status"] != "problem"));
}

#[test]
fn no_hook_is_a_problem() {
    let t = Installed::new();
    let out = t.run(&["doctor"]);
    out.assert_code(1);
    insta::assert_snapshot!("doctor_no_hook", t.transcript(&out));
}

#[test]
fn a_missing_or_unrunnable_hook_program_is_a_problem() {
    let t = healthy();
    set_mode(&t.bin.join("autodream-hook"), 0o644);
    let out = t.run(&["doctor"]);
    out.assert_code(1);
    insta::assert_snapshot!("doctor_hook_not_executable", t.transcript(&out));

    std::fs::remove_file(t.bin.join("autodream-hook")).unwrap();
    let out = t.run(&["doctor"]);
    out.assert_code(1);
    insta::assert_snapshot!("doctor_hook_missing", t.transcript(&out));
}

#[test]
fn a_memory_folder_the_client_does_not_load_is_a_problem() {
    // autoMemoryDirectory in the settings, while the hook was installed writing elsewhere.
    let t = Installed::new();
    let other = t.env.root.join("elsewhere");
    t.run(&["install", "claude-code", "--memory-dir", &other.to_string_lossy()]).assert_code(0);
    let mut s = settings(&t);
    s["autoMemoryDirectory"] = "~/notes/memory".into();
    put_settings(&t, &s);
    let out = t.run(&["doctor"]);
    out.assert_code(1);
    insta::assert_snapshot!("doctor_memory_setting_vs_baked_dir", t.transcript(&out));

    // autodream told to write elsewhere by its own variable, which the client's hook inherits.
    let t = healthy().with_var("AUTODREAM_MEMORY_DIR", "/srv/other/memory");
    let out = t.run(&["doctor"]);
    out.assert_code(1);
    insta::assert_snapshot!("doctor_memory_env_override", t.transcript(&out));

    // The client's own override moves both: no mismatch, and doctor says where it comes from.
    let t = healthy().with_var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/srv/cowork/memory");
    let out = t.run(&["doctor"]);
    assert!(
        out.stdout
            .contains("ok      memory_folder /srv/cowork/memory (from CLAUDE_COWORK_MEMORY_PATH_OVERRIDE)"),
        "{}",
        out.stdout
    );
}

#[test]
fn auto_memory_off_in_the_client_is_a_problem() {
    let t = healthy();
    let mut s = settings(&t);
    s["autoMemoryEnabled"] = false.into();
    put_settings(&t, &s);
    let out = t.run(&["doctor"]);
    out.assert_code(1);
    insta::assert_snapshot!("doctor_auto_memory_off", t.transcript(&out));
}

#[test]
fn auto_dream_enabled_missing_is_a_warning_only() {
    let t = healthy();
    let mut s = settings(&t);
    s.as_object_mut().unwrap().remove("autoDreamEnabled");
    put_settings(&t, &s);
    let out = t.run(&["doctor"]);
    out.assert_code(0);
    insta::assert_snapshot!("doctor_auto_dream_missing", t.transcript(&out));
}

#[test]
fn a_memory_index_over_the_limit_is_a_problem() {
    let t = healthy();
    let long: String = (0..230).map(|i| format!("- [Topic {i}](t{i}.md) — what topic {i} holds\n")).collect();
    write(&memory_dir(&t).join("MEMORY.md"), &long);
    let out = t.run(&["doctor"]);
    out.assert_code(1);
    insta::assert_snapshot!("doctor_index_too_long", t.transcript(&out));
}

#[test]
fn the_clients_memory_stores_stand_autodream_down_and_doctor_says_how_to_use_both() {
    // A team store elsewhere: gate 1 closes, and the fix says how to run both.
    let t = healthy()
        .with_var("CLAUDE_MEMORY_STORES", r#"[{"path": "/srv/stores/team", "mode": "rw", "scope": "team"}]"#);
    let out = t.run(&["doctor"]);
    out.assert_code(1);
    insta::assert_snapshot!("doctor_memory_stores", t.transcript(&out));
    // A store the client writes that holds autodream's own folder: two writers, named.
    let mem = memory_dir(&t);
    let owning =
        serde_json::json!([{ "path": mem.parent().unwrap(), "mode": "rw", "scope": "user" }]).to_string();
    let t = t.with_var("CLAUDE_MEMORY_STORES", &owning);
    let out = t.run(&["doctor", "--json"]);
    out.assert_code(1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let check = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "auto_memory").unwrap().clone();
    assert_eq!(check["status"], "problem");
    let detail = check["summary"].as_str().unwrap();
    assert!(detail.contains("its `rw` store") && detail.contains("autodream must not"), "{detail}");
    // Read-only, the same store is the way to use both: still the hook's stand-down, no owner.
    let ro = owning.replace("\"rw\"", "\"ro\"");
    let out = t.with_var("CLAUDE_MEMORY_STORES", &ro).run(&["doctor"]);
    assert!(out.stdout.contains("the hook does not dream"), "{}", out.stdout);
}
