//! Facts checked against the repository, end to end: a git project with a renamed script,
//! a moved file, a removed environment variable and an untouched one; `check --stale` lists
//! what a dream would move, a dream moves it under `## Superseded`, and it comes back when
//! its referent does.

use insta::assert_snapshot;

use crate::support::*;

const TOPIC: &str = "---\nname: project\ndescription: how the project is built, tested and shipped\n\
metadata:\n  type: project\n---\n# Project\n\n\
- Run the unit tests with `npm run test:ci` before pushing (2026-04-02).\n\
- Deploys go out with `scripts/deploy.sh` (2026-04-02).\n\
- The cache needs $REDIS_URL set in development (2026-04-03).\n\
- The app reads its database from $DATABASE_URL (2026-04-03).\n\
- Lint with `npm run lint`; the settings are in `src/config.ts` (2026-04-03).\n\
- `scripts/old-deploy.sh` was renamed to `scripts/deploy.sh` (2026-03-01).\n\
- Docs are at https://example.org/docs/deploy.html (2026-04-03).\n";

/// The project after the changes the facts did not follow: `test:ci` renamed `test:unit`,
/// `scripts/deploy.sh` moved to `tools/deploy.sh`, `REDIS_URL` no longer read; `DATABASE_URL`
/// and the `lint` script untouched.
fn project_env() -> Env {
    let env = Env::new();
    let p = &env.cwd;
    write(&p.join(".git/HEAD"), "ref: refs/heads/main\n");
    write(&p.join(".git/refs/heads/main"), "0000000000000000000000000000000000000000\n");
    write(&p.join(".gitignore"), "dist/\n");
    write(&p.join("package.json"), r#"{"scripts": {"test:unit": "vitest run", "lint": "eslint ."}}"#);
    write(&p.join("src/config.ts"), "export const db = process.env.DATABASE_URL;\n");
    write(&p.join("tools/deploy.sh"), "#!/bin/sh\n");
    // An ignored file that names the removed variable: not a reader of it.
    write(&p.join("dist/bundle.js"), "process.env.REDIS_URL\n");
    write(
        &env.mem.join("MEMORY.md"),
        "- [Project](project.md) — how the project is built, tested and shipped\n",
    );
    write(&env.mem.join("project.md"), TOPIC);
    env.lock_at(at(-3 * 24 * 3600));
    env
}

/// `check --stale` prints how long its walk took: the one figure that varies.
fn timing_neutral(text: &str) -> String {
    regex_lite_replace(text, " ms)", "walked in ", "[MS]")
}

/// Replaces the text between `before` and `after` on every line that has both.
fn regex_lite_replace(text: &str, after: &str, before: &str, with: &str) -> String {
    text.lines()
        .map(|l| match (l.find(before), l.find(after)) {
            (Some(b), Some(a)) if b + before.len() <= a => {
                format!("{}{with}{}", &l[..b + before.len()], &l[a..])
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn check_stale_lists_what_would_move_and_why_and_changes_nothing() {
    let env = project_env();
    let before = full_state(&env.mem);
    let out = env.run(&["check", "--stale"]);
    out.assert_code(1);
    assert_snapshot!("check_stale", timing_neutral(&env.transcript(&out)));
    assert_eq!(full_state(&env.mem), before, "check --stale wrote something");

    let json: serde_json::Value =
        serde_json::from_str(&env.run(&["check", "--stale", "--json"]).stdout).unwrap();
    let moved: Vec<&str> =
        json["report"]["moved"].as_array().unwrap().iter().map(|f| f["fact"].as_str().unwrap()).collect();
    assert_eq!(moved.len(), 3, "{moved:?}");
    assert_eq!(json["ok"], false);
}

#[test]
fn a_dream_moves_the_stale_facts_under_superseded_and_brings_them_back() {
    for engine in ["hygiene", "offline"] {
        let env = project_env();
        let out = env.run(&["run", "--engine", engine]);
        out.assert_code(0);
        assert!(out.stdout.contains("note: 3 facts no longer in the repository"), "{engine}: {}", out.stdout);
        let topic = read(&env.mem.join("project.md"));
        assert_snapshot!(format!("stale_dream_{engine}"), topic);
        for kept in ["$DATABASE_URL", "`npm run lint`", "was renamed to", "https://example.org"] {
            let current = topic.split("## Superseded").next().unwrap();
            assert!(current.contains(kept), "{engine}: {kept} left the current facts:\n{topic}");
        }
        // The day each present referent was last confirmed is engine data, not in the line.
        let confirmed = read(&env.state_file("data/.engine/repository/confirmed.json"));
        assert!(confirmed.contains("\"path `src/config.ts`\": \"2026-05-08\""), "{confirmed}");
        assert!(confirmed.contains("\"environment variable `DATABASE_URL`\": \"2026-05-08\""), "{confirmed}");
        assert!(!topic.contains("confirmed"), "{topic}");
        assert_eq!(env.run(&["check", "--stale"]).code, 0, "{engine}: nothing more would move");

        // The file comes back and the script is renamed back: those facts return.
        write(&env.cwd.join("scripts/deploy.sh"), "#!/bin/sh\n");
        write(&env.cwd.join("package.json"), r#"{"scripts": {"test:ci": "vitest run", "lint": "eslint ."}}"#);
        env.lock_at(at(-3 * 24 * 3600));
        let out = env.run(&["run", "--engine", engine]);
        out.assert_code(0);
        assert!(out.stdout.contains("2 facts back in the repository"), "{engine}: {}", out.stdout);
        let back = read(&env.mem.join("project.md"));
        assert_snapshot!(format!("stale_restored_{engine}"), back);
        // `undo` takes the move back like any change of a dream.
        env.run(&["undo"]).assert_code(0);
        assert_eq!(read(&env.mem.join("project.md")), topic, "{engine}");
    }
}

#[test]
fn outside_a_git_work_tree_or_with_the_check_off_nothing_moves() {
    let env = project_env();
    let off = env.run(&["--set", "check_repository=false", "run", "--engine", "hygiene"]);
    off.assert_code(0);
    assert_eq!(read(&env.mem.join("project.md")), TOPIC);
    std::fs::remove_dir_all(env.cwd.join(".git")).unwrap();
    env.lock_at(at(-3 * 24 * 3600));
    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
    assert_eq!(read(&env.mem.join("project.md")), TOPIC);
    let out = env.run(&["check", "--stale"]);
    out.assert_code(0);
    assert!(out.stdout.contains("is not a git work tree"), "{}", out.stdout);
}
