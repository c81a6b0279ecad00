//! The sandbox suite: attempts to read or write outside the allowed folders through every
//! tool — traversal, absolute paths, prefix look-alikes, symbolic links (including one swapped
//! between the check and the use), `/proc` tricks, NUL bytes and over-long paths, every shell
//! operator, writing flags, programs outside the allow-list, writes through Bash. Each must be
//! refused, counted as a denial, and leave every file outside the staging copy untouched.
//! Landlock is proven with a child that tries to write and fails.

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use autodream_llm::api::tools::{BashSettings, ToolBox, ToolOutcome};
use autodream_llm::sandbox::{Access, AccessError, Sandbox, SandboxRoots};
use autodream_llm::{LandlockStatus, landlock_status};
use serde_json::{Value, json};

use common::*;

/// The fixture, plus folders and links the attempts aim at.
struct World {
    fx: Fixture,
    outside: PathBuf,
    tools: ToolBox,
}

fn world(launcher: Option<PathBuf>) -> World {
    let fx = Fixture::new();
    let base = fx.base();
    let outside = base.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "TOP SECRET\n").unwrap();
    std::fs::write(outside.join("target.md"), "original\n").unwrap();
    // Prefix look-alikes of the memory and sessions dirs.
    std::fs::create_dir_all(fx.sessions.join("memory-evil")).unwrap();
    std::fs::write(fx.sessions.join("memory-evil/x.md"), "evil\n").unwrap();
    std::fs::create_dir_all(base.join("projects/p-evil")).unwrap();
    std::fs::write(base.join("projects/p-evil/secret.txt"), "evil twin\n").unwrap();
    // Links planted in staging and in the sessions dir.
    symlink(outside.join("secret.txt"), fx.staging.join("link.md")).unwrap();
    symlink(&outside, fx.staging.join("linkdir")).unwrap();
    symlink(outside.join("secret.txt"), fx.sessions.join("out.jsonl")).unwrap();
    symlink("../..", fx.sessions.join("up")).unwrap();
    symlink("/proc/self/root", fx.sessions.join("procroot")).unwrap();
    symlink(&outside, fx.sessions.join("outdir")).unwrap();
    // A link that stays inside the sessions dir is fine to follow.
    symlink(format!("{SESSION_ID}.jsonl"), fx.sessions.join("latest.jsonl")).unwrap();
    let sandbox = Sandbox::new(SandboxRoots {
        memory_dir: &fx.memory,
        staging: &fx.staging,
        sessions_dir: &fx.sessions,
        project_dir: Some(&fx.project),
    })
    .unwrap();
    let bash = BashSettings { launcher, ..BashSettings::default() };
    let tools = ToolBox::new(sandbox, bash);
    World { fx, outside, tools }
}

/// Every file (and link) under the temporary root except the staging copy, with contents.
fn snapshot_outside_staging(w: &World) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    fn walk(dir: &Path, skip: &Path, out: &mut BTreeMap<PathBuf, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.starts_with(skip) {
                continue;
            }
            let ft = e.file_type().unwrap();
            if ft.is_symlink() {
                out.insert(p.clone(), format!("link -> {}", std::fs::read_link(&p).unwrap().display()));
            } else if ft.is_dir() {
                walk(&p, skip, out);
            } else {
                out.insert(p.clone(), std::fs::read_to_string(&p).unwrap_or_else(|_| "<binary>".into()));
            }
        }
    }
    walk(&w.fx.base(), &w.fx.staging, &mut out);
    out
}

fn call(tools: &ToolBox, name: &str, input: Value) -> ToolOutcome {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(tools.run(name, &input))
}

/// The attempts: (tool, input). Every one must be refused by the sandbox.
fn attempts(w: &World) -> Vec<(&'static str, Value)> {
    let m = w.fx.memory.display().to_string();
    let s = w.fx.sessions.display().to_string();
    let p = w.fx.project.display().to_string();
    let o = w.outside.display().to_string();
    let base = w.fx.base().display().to_string();
    let staging = w.fx.staging.display().to_string();
    let long_component = "a".repeat(300);
    let long_path = format!("{m}/{}", "d/".repeat(2100));
    vec![
        // Traversal.
        ("Write", json!({"file_path": "../escape.md", "content": "x"})),
        ("Write", json!({"file_path": "notes/../../escape.md", "content": "x"})),
        ("Read", json!({"file_path": "../../../../../../etc/passwd"})),
        ("Edit", json!({"file_path": "./../MEMORY.md", "old_string": "a", "new_string": "b"})),
        ("Write", json!({"file_path": format!("{m}/../escape.md"), "content": "x"})),
        ("List", json!({"path": format!("{m}/..")})),
        // Absolute paths elsewhere.
        ("Read", json!({"file_path": "/etc/passwd"})),
        ("Write", json!({"file_path": "/tmp/autodream-sandbox-escape.md", "content": "x"})),
        ("Write", json!({"file_path": format!("{o}/new.md"), "content": "x"})),
        ("Read", json!({"file_path": format!("{o}/secret.txt")})),
        ("Write", json!({"file_path": format!("{s}/evil.md"), "content": "x"})),
        ("Write", json!({"file_path": format!("{p}/README.md"), "content": "x"})),
        ("Edit", json!({"file_path": format!("{p}/README.md"), "old_string": "shop", "new_string": "x"})),
        ("Grep", json!({"pattern": "root", "path": "/etc"})),
        ("Glob", json!({"pattern": "*", "path": base})),
        // Prefix look-alikes.
        ("Write", json!({"file_path": format!("{m}-evil/x.md"), "content": "x"})),
        ("Read", json!({"file_path": format!("{s}-evil/secret.txt")})),
        ("List", json!({"path": format!("{s}-evil")})),
        // Symbolic links leading out.
        ("Read", json!({"file_path": "link.md"})),
        ("Write", json!({"file_path": "link.md", "content": "x"})),
        ("Write", json!({"file_path": "linkdir/x.md", "content": "x"})),
        ("Read", json!({"file_path": format!("{s}/out.jsonl")})),
        ("Read", json!({"file_path": format!("{s}/up/outside/secret.txt")})),
        ("Read", json!({"file_path": format!("{s}/procroot/etc/passwd")})),
        ("Grep", json!({"pattern": "SECRET", "path": format!("{s}/outdir")})),
        ("List", json!({"path": format!("{s}/outdir")})),
        // /proc tricks.
        ("Read", json!({"file_path": "/proc/self/root/etc/passwd"})),
        ("Read", json!({"file_path": "/proc/self/cwd/MEMORY.md"})),
        ("Write", json!({"file_path": format!("/proc/self/root{staging}/x.md"), "content": "x"})),
        // NUL bytes, over-long paths, `~`.
        ("Read", json!({"file_path": "MEMORY.md\u{0}.txt"})),
        ("Write", json!({"file_path": format!("{long_component}.md"), "content": "x"})),
        ("Read", json!({"file_path": long_path})),
        ("Read", json!({"file_path": "~/.ssh/id_rsa"})),
        // Inside the memory dir, but not for a dream to write.
        ("Write", json!({"file_path": "logs/2026/05/2026-05-06.md", "content": "x"})),
        (
            "Edit",
            json!({"file_path": "logs/2026/05/2026-05-06.md", "old_string": "release", "new_string": "x"}),
        ),
        ("Write", json!({"file_path": ".dream/task.json", "content": "{}"})),
        ("Write", json!({"file_path": ".consolidate-lock", "content": "1"})),
        ("Write", json!({"file_path": "notes.txt", "content": "x"})),
        ("Write", json!({"file_path": "", "content": "x"})),
        // Every shell operator and expansion.
        ("Bash", json!({"command": "ls; touch x.md"})),
        ("Bash", json!({"command": "ls | tee x.md"})),
        ("Bash", json!({"command": "ls && touch x.md"})),
        ("Bash", json!({"command": "ls || touch x.md"})),
        ("Bash", json!({"command": "cat MEMORY.md > x.md"})),
        ("Bash", json!({"command": "cat MEMORY.md >> x.md"})),
        ("Bash", json!({"command": "cat < MEMORY.md"})),
        ("Bash", json!({"command": "ls $(touch x.md)"})),
        ("Bash", json!({"command": "ls `touch x.md`"})),
        ("Bash", json!({"command": "ls $HOME"})),
        ("Bash", json!({"command": "ls \"${HOME}\""})),
        ("Bash", json!({"command": "(touch x.md)"})),
        ("Bash", json!({"command": "ls & touch x.md"})),
        ("Bash", json!({"command": "ls\ntouch x.md"})),
        ("Bash", json!({"command": "ls *.md"})),
        ("Bash", json!({"command": "ls {a,b}.md"})),
        ("Bash", json!({"command": "ls ~"})),
        ("Bash", json!({"command": "ls # comment"})),
        // Writing flags.
        ("Bash", json!({"command": "find . -delete"})),
        ("Bash", json!({"command": "find . -exec rm '{}' ';'"})),
        ("Bash", json!({"command": "find . -execdir touch x.md ';'"})),
        ("Bash", json!({"command": "find . -ok rm '{}' ';'"})),
        ("Bash", json!({"command": "find . -fprint out.md"})),
        ("Bash", json!({"command": "find . -fprintf out.md '%p'"})),
        ("Bash", json!({"command": "find . -fls out.md"})),
        ("Bash", json!({"command": "find -L ."})),
        ("Bash", json!({"command": "sort -o out.md MEMORY.md"})),
        ("Bash", json!({"command": "sort --output=out.md MEMORY.md"})),
        ("Bash", json!({"command": "sort --out=out.md MEMORY.md"})),
        ("Bash", json!({"command": "sort -uo out.md MEMORY.md"})),
        ("Bash", json!({"command": "sort --compress-program=sh MEMORY.md"})),
        ("Bash", json!({"command": "sort -T . MEMORY.md"})),
        ("Bash", json!({"command": "uniq MEMORY.md out.md"})),
        ("Bash", json!({"command": "file -C -m magic"})),
        ("Bash", json!({"command": "grep -R Testing ."})),
        ("Bash", json!({"command": "tail -f MEMORY.md"})),
        // Programs outside the allow-list, and writes through Bash.
        ("Bash", json!({"command": "rm MEMORY.md"})),
        ("Bash", json!({"command": "touch x.md"})),
        ("Bash", json!({"command": "tee x.md"})),
        ("Bash", json!({"command": "sh -c 'touch x.md'"})),
        ("Bash", json!({"command": "/bin/ls"})),
        ("Bash", json!({"command": "python3 -c 'open(\"x.md\", \"w\")'"})),
        ("Bash", json!({"command": "FOO=1 ls"})),
        ("Bash", json!({"command": "echo hi"})),
        ("Bash", json!({"command": "cp MEMORY.md x.md"})),
        // Bash operands outside the readable folders.
        ("Bash", json!({"command": "cat /etc/passwd"})),
        ("Bash", json!({"command": "ls /"})),
        ("Bash", json!({"command": "grep -r root /etc"})),
        ("Bash", json!({"command": format!("cat {o}/secret.txt")})),
        ("Bash", json!({"command": "cat ../../outside/secret.txt"})),
        ("Bash", json!({"command": "head /proc/self/environ"})),
        ("Bash", json!({"command": "find /tmp -name x"})),
        ("Bash", json!({"command": "find . -newer /etc/passwd"})),
        ("Bash", json!({"command": "cat link.md"})),
        ("Bash", json!({"command": format!("wc -l {s}/out.jsonl")})),
    ]
}

#[test]
fn every_escape_attempt_is_refused_and_nothing_is_written_outside_staging() {
    let w = world(None);
    let before = snapshot_outside_staging(&w);
    let staging_before = Fixture::files_under(&w.fx.staging);
    let attempts = attempts(&w);
    assert!(attempts.len() >= 40, "the suite has {} attempts", attempts.len());
    let mut not_refused = Vec::new();
    for (tool, input) in &attempts {
        let outcome = call(&w.tools, tool, input.clone());
        if outcome.denied.is_none() || !outcome.is_error || !outcome.content.starts_with("Refused: ") {
            not_refused.push(format!("{tool} {input}: {outcome:?}"));
        }
        let after = snapshot_outside_staging(&w);
        assert_eq!(before, after, "{tool} {input} changed something outside staging");
        assert!(!Path::new("/tmp/autodream-sandbox-escape.md").exists());
    }
    assert!(not_refused.is_empty(), "not refused:\n{}", not_refused.join("\n"));
    // Nothing was created in staging either (every attempt was a refusal).
    assert_eq!(Fixture::files_under(&w.fx.staging), staging_before);
    println!("{} escape attempts, all refused", attempts.len());
}

#[test]
fn refusals_tell_the_model_what_to_do_instead() {
    let w = world(None);
    let cases = [
        ("Write", json!({"file_path": "../x.md", "content": "x"}), "`..` is not allowed"),
        ("Read", json!({"file_path": "/etc/passwd"}), "Relative paths are taken from the memory dir"),
        ("Write", json!({"file_path": "logs/2026/05/2026-05-06.md", "content": "x"}), "append-only"),
        ("Write", json!({"file_path": "notes.txt", "content": "x"}), "ending in .md"),
        ("Bash", json!({"command": "ls | wc"}), "use the Grep, Glob and Read tools"),
        ("Bash", json!({"command": "rm x"}), "Edit and Write"),
        ("Bash", json!({"command": "sort -o x MEMORY.md"}), "writes its output to a file"),
        ("Read", json!({"file_path": "link.md"}), "never read or written through links"),
    ];
    for (tool, input, hint) in cases {
        let outcome = call(&w.tools, tool, input.clone());
        assert!(outcome.content.contains(hint), "{tool} {input}: {}", outcome.content);
    }
}

#[test]
fn allowed_work_still_works_inside_the_sandbox() {
    let w = world(None);
    let m = w.fx.memory.display().to_string();
    let s = w.fx.sessions.display().to_string();
    // Reads of the memory dir come from staging; the daily logs from the real memory dir.
    std::fs::write(w.fx.staging.join("MEMORY.md"), "- [Staged](staged.md) — only in staging\n").unwrap();
    let index = call(&w.tools, "Read", json!({"file_path": format!("{m}/MEMORY.md")}));
    assert!(index.content.contains("only in staging") && !index.is_error, "{index:?}");
    let log = call(&w.tools, "Read", json!({"file_path": "logs/2026/05/2026-05-06.md"}));
    assert!(log.content.contains("release freeze"), "{log:?}");
    // A link that stays inside the sessions dir is followed.
    let latest = call(&w.tools, "Read", json!({"file_path": format!("{s}/latest.jsonl"), "raw": true}));
    assert!(latest.content.contains("Tuesdays") && !latest.is_error, "{latest:?}");
    // Writes land in staging, shown with memory paths.
    let wrote =
        call(&w.tools, "Write", json!({"file_path": "topic_new.md", "content": "- fact (2026-05-07)\n"}));
    assert_eq!(wrote.wrote, Some(PathBuf::from("topic_new.md")));
    assert!(wrote.content.contains(&format!("{m}/topic_new.md")));
    assert!(w.fx.staging.join("topic_new.md").is_file());
    assert!(!w.fx.memory.join("topic_new.md").exists());
    // Grep of the whole memory dir includes the daily logs; Glob finds staged files.
    let grep = call(&w.tools, "Grep", json!({"pattern": "freeze|fact"}));
    assert!(
        grep.content.contains("logs/2026/05/2026-05-06.md:1:") && grep.content.contains("topic_new.md:1:"),
        "{grep:?}"
    );
    let glob = call(&w.tools, "Glob", json!({"pattern": "*.md"}));
    assert!(glob.content.contains(&format!("{m}/topic_new.md")), "{glob:?}");
    assert!(!glob.content.contains("link.md"), "links are not listed as files: {glob:?}");
    // The sessions dir walk does not descend into the memory dir.
    let sessions_grep = call(&w.tools, "Grep", json!({"pattern": "Testing", "path": s}));
    assert_eq!(sessions_grep.content.trim(), "No matches.", "{sessions_grep:?}");
    // Edit needs a unique match.
    let twice = call(&w.tools, "Write", json!({"file_path": "dup.md", "content": "a\na\n"}));
    assert!(!twice.is_error);
    let ambiguous =
        call(&w.tools, "Edit", json!({"file_path": "dup.md", "old_string": "a", "new_string": "b"}));
    assert!(ambiguous.is_error && ambiguous.content.contains("occurs 2 times"), "{ambiguous:?}");
    assert!(ambiguous.denied.is_none());
}

#[test]
fn a_symlink_swapped_in_between_check_and_use_is_refused() {
    let w = world(None);
    let sandbox = &w.tools.sandbox;
    let outside_before = snapshot_outside_staging(&w);

    // A folder on the path becomes a link to the outside after the check.
    std::fs::create_dir_all(w.fx.staging.join("notes")).unwrap();
    std::fs::write(w.fx.staging.join("notes/a.md"), "inside\n").unwrap();
    std::fs::write(w.outside.join("a.md"), "outside\n").unwrap();
    let outside_before = {
        let mut b = outside_before;
        b.insert(w.outside.join("a.md"), "outside\n".into());
        b
    };
    let read = sandbox.resolve("notes/a.md", Access::Read).unwrap();
    let write = sandbox.resolve("notes/a.md", Access::Write).unwrap();
    std::fs::rename(w.fx.staging.join("notes"), w.fx.staging.join("notes-real")).unwrap();
    symlink(&w.outside, w.fx.staging.join("notes")).unwrap();
    assert!(matches!(sandbox.open_file(&read), Err(AccessError::Denied(_))), "read through a swapped folder");
    assert!(
        matches!(sandbox.write_file(&write, b"pwned"), Err(AccessError::Denied(_))),
        "write through a swapped folder"
    );
    assert_eq!(std::fs::read_to_string(w.outside.join("a.md")).unwrap(), "outside\n");

    // The file itself becomes a link after the check.
    std::fs::write(w.fx.staging.join("swap.md"), "inside\n").unwrap();
    let read = sandbox.resolve("swap.md", Access::Read).unwrap();
    let write = sandbox.resolve("swap.md", Access::Write).unwrap();
    std::fs::remove_file(w.fx.staging.join("swap.md")).unwrap();
    symlink(w.outside.join("target.md"), w.fx.staging.join("swap.md")).unwrap();
    assert!(matches!(sandbox.open_file(&read), Err(AccessError::Denied(_))), "read through a swapped file");
    // The atomic rename replaces the link itself; the target outside is never written.
    sandbox.write_file(&write, b"new\n").unwrap();
    assert_eq!(std::fs::read_to_string(w.outside.join("target.md")).unwrap(), "original\n");
    assert!(!std::fs::symlink_metadata(w.fx.staging.join("swap.md")).unwrap().file_type().is_symlink());

    // A transcript folder swapped for a link.
    std::fs::create_dir_all(w.fx.sessions.join("sub")).unwrap();
    std::fs::write(w.fx.sessions.join("sub/t.jsonl"), "{}\n").unwrap();
    let transcript =
        sandbox.resolve(&format!("{}/sub/t.jsonl", w.fx.sessions.display()), Access::Read).unwrap();
    std::fs::rename(w.fx.sessions.join("sub"), w.fx.sessions.join("sub-real")).unwrap();
    std::fs::create_dir_all(w.outside.join("sub")).unwrap();
    std::fs::write(w.outside.join("sub/t.jsonl"), "secret\n").unwrap();
    symlink(w.outside.join("sub"), w.fx.sessions.join("sub")).unwrap();
    assert!(matches!(sandbox.open_file(&transcript), Err(AccessError::Denied(_))));

    let mut after = snapshot_outside_staging(&w);
    // Only the files this test itself created outside staging may differ.
    after.remove(&w.outside.join("sub/t.jsonl"));
    for p in after.keys().filter(|p| p.starts_with(&w.fx.sessions)).cloned().collect::<Vec<_>>() {
        if p.ends_with("sub") || p.starts_with(w.fx.sessions.join("sub-real")) {
            after.remove(&p);
        }
    }
    assert_eq!(outside_before, after);
}

/// The launcher example (`cargo test` builds it), or a printed note.
fn launcher() -> Option<PathBuf> {
    let path = sandbox_exec_example();
    if path.is_none() {
        println!("note: examples/sandbox_exec is not built; Landlock checks skipped");
    }
    path
}

fn landlock_or_skip() -> bool {
    match landlock_status() {
        LandlockStatus::Available { abi } => {
            println!("landlock: ABI {abi}");
            true
        }
        other => {
            println!("note: {other}; Landlock checks skipped");
            false
        }
    }
}

#[test]
fn landlock_stops_a_child_that_tries_to_write() {
    if !landlock_or_skip() {
        return;
    }
    let Some(launcher) = launcher() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let allowed = tmp.path().join("allowed");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(allowed.join("readable.txt"), "hello\n").unwrap();
    std::fs::write(elsewhere.join("hidden.txt"), "nope\n").unwrap();
    let run = |program: &str, args: &[&str]| {
        Command::new(&launcher)
            .arg("__sandbox-exec")
            .arg("--read")
            .arg(&allowed)
            .arg("--")
            .arg(program)
            .args(args)
            .output()
            .unwrap()
    };
    let target = allowed.join("written.txt");
    let touch = run("/usr/bin/touch", &[target.to_str().unwrap()]);
    assert!(!touch.status.success(), "touch succeeded under Landlock");
    assert!(String::from_utf8_lossy(&touch.stderr).contains("Permission denied"));
    let shell = run("/bin/sh", &["-c", &format!("echo pwned > {}", target.display())]);
    assert!(!shell.status.success(), "a shell redirect succeeded under Landlock");
    let append =
        run("/bin/sh", &["-c", &format!("echo pwned >> {}", allowed.join("readable.txt").display())]);
    assert!(!append.status.success());
    let remove = run("/bin/rm", &[allowed.join("readable.txt").to_str().unwrap()]);
    assert!(!remove.status.success(), "rm succeeded under Landlock");
    let mkdir = run("/bin/mkdir", &[allowed.join("d").to_str().unwrap()]);
    assert!(!mkdir.status.success());
    assert!(!target.exists() && !allowed.join("d").exists());
    assert_eq!(std::fs::read_to_string(allowed.join("readable.txt")).unwrap(), "hello\n");
    // Reads are confined too: inside the granted folder yes, elsewhere no.
    let cat = run("/bin/cat", &[allowed.join("readable.txt").to_str().unwrap()]);
    assert!(cat.status.success());
    assert_eq!(String::from_utf8_lossy(&cat.stdout), "hello\n");
    let hidden = run("/bin/cat", &[elsewhere.join("hidden.txt").to_str().unwrap()]);
    assert!(!hidden.status.success(), "read outside the granted folders succeeded");
}

#[test]
fn bash_runs_read_only_programs_under_landlock_with_memory_paths() {
    let launcher = if landlock_status().is_available() { launcher() } else { None };
    if launcher.is_none() {
        println!("note: running Bash without the Landlock launcher");
    }
    let w = world(launcher);
    let m = w.fx.memory.display().to_string();
    let s = w.fx.sessions.display().to_string();
    let staging = w.fx.staging.display().to_string();

    let ls = call(&w.tools, "Bash", json!({"command": "ls"}));
    assert!(
        ls.content.contains("MEMORY.md") && ls.content.contains("feedback_testing.md") && !ls.is_error,
        "{ls:?}"
    );
    let wc = call(&w.tools, "Bash", json!({"command": format!("wc -l {m}/MEMORY.md")}));
    assert!(wc.content.contains(&format!("1 {m}/MEMORY.md")), "{wc:?}");
    assert!(!wc.content.contains(&staging), "staging paths are shown as memory paths: {wc:?}");
    let grep =
        call(&w.tools, "Bash", json!({"command": format!("grep -rn --include='*.jsonl' Tuesdays {s}")}));
    assert!(grep.content.contains(&format!("{s}/{SESSION_ID}.jsonl:1:")), "{grep:?}");
    let none = call(&w.tools, "Bash", json!({"command": "grep -c nothing-like-this MEMORY.md"}));
    assert!(!none.is_error && none.content.contains("[exit status 1]"), "{none:?}");
    let sorted = call(&w.tools, "Bash", json!({"command": "sort -r feedback_testing.md"}));
    assert!(sorted.content.starts_with("updated: 2026-04-01"), "{sorted:?}");
    let found = call(&w.tools, "Bash", json!({"command": "find . -name '*.md' -newer MEMORY.md"}));
    assert!(!found.is_error, "{found:?}");
    // Every allowed program runs (under Landlock here, when the kernel has it).
    for command in [
        "ls -la",
        "cat MEMORY.md",
        "head -n 1 feedback_testing.md",
        "tail -n 2 feedback_testing.md",
        "wc -c MEMORY.md",
        "grep -n Testing MEMORY.md",
        "find . -type f -name '*.md'",
        "stat -c %s MEMORY.md",
        "file MEMORY.md",
        "sort MEMORY.md",
        "uniq MEMORY.md",
        "du -s .",
    ] {
        let outcome = call(&w.tools, "Bash", json!({"command": command}));
        assert!(!outcome.is_error && outcome.denied.is_none(), "{command}: {outcome:?}");
        assert!(!outcome.content.contains(&staging), "{command} leaked the staging path: {outcome:?}");
    }
    // A missing file is an error result, not a denial.
    let missing = call(&w.tools, "Bash", json!({"command": "cat nothing.md"}));
    assert!(
        missing.is_error && missing.denied.is_none() && missing.content.contains("no such file"),
        "{missing:?}"
    );
    let missing_read = call(&w.tools, "Read", json!({"file_path": "nothing.md"}));
    assert!(missing_read.is_error && missing_read.denied.is_none(), "{missing_read:?}");
}
