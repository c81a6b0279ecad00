//! Team memory between simulated machines: a bare repository is the remote, and each
//! machine is a sealed environment of its own (HOME, state folder, clone, memory folder),
//! running the real `autodream` and the real `git`. `AUTODREAM_TEAM_MACHINES` sets how many
//! (3 by default); `scripts/team-sim.py` runs the same scenarios with more.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::*;

/// A remote and N machines.
struct Team {
    _dir: tempfile::TempDir,
    remote: PathBuf,
    machines: Vec<Env>,
}

fn git(args: &[&str]) -> String {
    let out = Command::new("git").args(args).env("GIT_TERMINAL_PROMPT", "0").output().expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const BRANCH: &str = "autodream/memory";

impl Team {
    fn new(n: usize) -> Team {
        let dir = tempfile::Builder::new().prefix("adteam").tempdir().expect("temporary folder");
        let remote = dir.path().canonicalize().unwrap().join("remote.git");
        git(&["init", "--quiet", "--bare", remote.to_str().unwrap()]);
        let machines = (0..n).map(|i| Env::new().var("AUTODREAM_TEAM_MACHINE", &format!("m{i}"))).collect();
        Team { _dir: dir, remote, machines }
    }

    fn url(&self) -> &str {
        self.remote.to_str().unwrap()
    }

    /// Every machine joins, the first one creating the branch.
    fn join_all(&self) {
        for m in &self.machines {
            m.run(&["team", "init", "--remote", self.url()]).assert_code(0);
        }
        // The later ones brought files the earlier ones have not seen yet.
        self.sync_all();
    }

    fn sync_all(&self) {
        for m in &self.machines {
            m.run(&["team", "sync"]).assert_code(0);
        }
    }

    /// The branch's commits, oldest first (first parents).
    fn commits(&self) -> Vec<String> {
        let out = git(&["--git-dir", self.url(), "rev-list", "--first-parent", "--reverse", BRANCH]);
        out.lines().map(str::to_string).collect()
    }

    fn show(&self, rev: &str, path: &str) -> Option<String> {
        let out = Command::new("git")
            .args(["--git-dir", self.url(), "show", &format!("{rev}:{path}")])
            .output()
            .expect("git show");
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn lease_at(&self, rev: &str) -> serde_json::Value {
        self.show(rev, "lease.json").map(|t| serde_json::from_str(&t).unwrap()).unwrap_or_default()
    }

    /// The branch's `memory/` files at `rev`, all read from one commit (a push left running by
    /// a killed dreamer may still move the branch while they are read).
    fn memory_tree(&self, rev: &str) -> BTreeMap<String, String> {
        let commit = git(&["--git-dir", self.url(), "rev-parse", rev]);
        let rev = commit.trim();
        let out = git(&["--git-dir", self.url(), "ls-tree", "-r", "--name-only", rev]);
        out.lines()
            .filter(|p| p.starts_with("memory/"))
            .map(|p| (p.to_string(), self.show(rev, p).unwrap_or_default()))
            .collect()
    }

    fn message(&self, rev: &str) -> String {
        git(&["--git-dir", self.url(), "log", "-1", "--format=%s", rev]).trim().to_string()
    }
}

/// Every log file under `mem/logs` (relative to `mem`) with its text.
fn log_files(mem: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![mem.join("logs")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(mem).unwrap().to_string_lossy().into_owned();
                out.insert(rel, read(&p));
            }
        }
    }
    out
}

/// Every text under `mem/logs`, joined.
fn all_logs(mem: &Path) -> String {
    log_files(mem).into_values().collect()
}

fn machines() -> usize {
    crate::env_count("AUTODREAM_TEAM_MACHINES", 3)
}

/// Rounds of racing dreams: in each, every machine tries at once; exactly one dream lands,
/// the others are refused, and the branch's history never shows two holders at a time.
#[test]
fn racing_dreams_land_exactly_one_per_round_under_one_holder() {
    let team = Team::new(machines());
    messy_memory(&team.machines[0].mem);
    team.join_all();
    let rounds = 3;
    for round in 0..rounds {
        // Each round a day later than the last, so that the team's time gate opens again.
        let now = format!("2026-05-{:02}T13:56:00Z", 8 + round);
        let children: Vec<_> = team
            .machines
            .iter()
            .map(|m| {
                let mut c = m.cmd(&["team", "run", "--engine", "hygiene", "--json"]);
                c.env("AUTODREAM_NOW", &now)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                c.spawn().expect("spawn")
            })
            .collect();
        let outs: Vec<Out> = children
            .into_iter()
            .map(|c| wait_with_deadline(c, Duration::from_secs(120)).expect("a dreamer hung"))
            .collect();
        let landed = outs.iter().filter(|o| o.code == 0).count();
        let refused = outs.iter().filter(|o| o.code == 3).count();
        let detail: Vec<String> = outs.iter().map(Out::transcript).collect();
        assert_eq!(landed, 1, "round {round}: exactly one dream lands: {detail:#?}");
        assert_eq!(refused, team.machines.len() - 1, "round {round}: the others are refused: {detail:#?}");
        team.sync_all();
    }
    // The history: a lease is only taken when free (or expired), tokens count up, and
    // every taken lease is given back by a dream of its holder.
    let commits = team.commits();
    let (mut dreams, mut held): (usize, Option<(String, u64)>) = (0, None);
    let mut last_token = 0;
    for c in &commits {
        let lease = team.lease_at(c);
        let token = lease["token"].as_u64().unwrap_or(0);
        let holder = lease["holder"]["machine"].as_str().map(str::to_string);
        match (&held, holder) {
            (None, Some(h)) => {
                assert_eq!(token, last_token + 1, "a new lease takes the next token");
                held = Some((h, token));
            }
            (Some((h, t)), Some(now)) => assert!(*h == now && *t == token, "two holders at once at {c}"),
            (Some((h, t)), None) => {
                assert_eq!(*t, token, "given back under its own token");
                assert!(team.message(c).starts_with("dream "), "{c}: {}", team.message(c));
                assert_eq!(lease["last_dream"]["machine"].as_str(), Some(h.as_str()));
                dreams += 1;
                held = None;
            }
            (None, None) => {}
        }
        last_token = token;
    }
    assert_eq!(dreams, rounds, "one dream landed per round");
    assert!(held.is_none(), "no lease left taken");
    // Every machine holds the same memory afterwards.
    let first = memory_files(&team.machines[0].mem);
    for m in &team.machines[1..] {
        let other = memory_files(&m.mem);
        let topics = |f: &BTreeMap<String, Vec<u8>>| {
            f.iter()
                .filter(|(p, _)| !p.starts_with("logs/") && !p.starts_with('.'))
                .map(|(p, b)| (p.clone(), b.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(topics(&first), topics(&other), "the machines' memories differ");
    }
}

/// Log entries written on every machine, synced all at once: after a sync round every
/// machine's memory holds every entry, each machine's own log in its own file.
#[test]
fn every_log_entry_reaches_every_machine_after_a_sync_round() {
    let team = Team::new(machines());
    team.join_all();
    let mut entries = Vec::new();
    for (i, m) in team.machines.iter().enumerate() {
        for k in 0..3 {
            let text = format!("machine {i} note {k}: the staging cluster is called kestrel-{i}-{k}");
            m.run(&["log", &text]).assert_code(0);
            entries.push(text);
        }
    }
    // Everyone at once: pushes race, the losers fetch and merge again.
    for _ in 0..2 {
        let children: Vec<_> = team.machines.iter().map(|m| m.spawn(&["team", "sync"])).collect();
        for c in children {
            wait_with_deadline(c, Duration::from_secs(120)).expect("sync hung").assert_code(0);
        }
    }
    for (i, m) in team.machines.iter().enumerate() {
        let logs = all_logs(&m.mem);
        for e in &entries {
            assert!(logs.contains(e.as_str()), "machine {i} lacks {e:?}");
        }
        let files = log_files(&m.mem);
        let others = files.keys().filter(|p| p.matches('.').count() == 2).count();
        assert_eq!(
            others,
            team.machines.len() - 1,
            "machine {i}: one file per other machine: {:?}",
            files.keys()
        );
    }
    let tree = git(&["--git-dir", team.url(), "ls-tree", "-r", "--name-only", BRANCH]);
    for i in 0..team.machines.len() {
        assert!(tree.contains(&format!("logs/m{i}/2026/05/2026-05-08.md")), "{tree}");
    }
}

/// A dreamer SIGKILLed after taking the lease (before its push) and one killed after its
/// local dream (before its push): the branch holds the pre-state; once the lease expired
/// another machine dreams; the killed machine then undoes what never landed and holds the
/// team's memory.
#[test]
fn a_killed_dreamer_leaves_the_branch_whole_and_its_lease_expires() {
    for (kill_after_ms, phase) in [(0u64, "after the lease"), (1, "after the local dream")] {
        let team = Team::new(2);
        messy_memory(&team.machines[0].mem);
        team.join_all();
        let (a, b) = (&team.machines[0], &team.machines[1]);
        let pre = team.memory_tree(BRANCH);
        let history_before = a.history().len();
        let mut child = {
            let mut c = a.cmd(&["team", "run", "--engine", "hygiene"]);
            c.env("AUTODREAM_TEAM_FAULT_DELAY_MS", "4000");
            c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
            c.spawn().unwrap()
        };
        let held = wait_until(Duration::from_secs(60), || team.lease_at(BRANCH)["holder"]["machine"] == "m0");
        assert!(held, "{phase}: m0 never took the lease");
        if kill_after_ms > 0 {
            // Past the first pause: the local dream is applied, the push not made.
            assert!(
                wait_until(Duration::from_secs(60), || a.history().len() > history_before),
                "{phase}: no local dream"
            );
        }
        sigkill(&mut child);
        assert_eq!(team.memory_tree(BRANCH), pre, "{phase}: the branch holds part of a dream");
        // Before the expiry another machine is refused; after it, it takes over and dreams.
        b.run(&["team", "run", "--engine", "hygiene", "--force"]).assert_code(3);
        let later = "2026-05-08T15:00:00Z";
        let mut c = b.cmd(&["team", "run", "--engine", "hygiene", "--force"]);
        c.env("AUTODREAM_NOW", later);
        let out = Out::from_output(c.output().unwrap());
        out.assert_code(0);
        let lease = team.lease_at(BRANCH);
        assert_eq!(lease["token"], 2, "{phase}: {lease}");
        assert_eq!(lease["last_dream"]["machine"], "m1");
        let post = team.memory_tree(BRANCH);
        assert_ne!(post, pre, "{phase}: the takeover's dream landed");
        // The killed machine comes back: what never landed is undone, the team's memory arrives.
        let mut c = a.cmd(&["team", "sync"]);
        c.env("AUTODREAM_NOW", later);
        Out::from_output(c.output().unwrap()).assert_code(0);
        let a_topics: BTreeMap<String, String> = memory_files(&a.mem)
            .into_iter()
            .filter(|(p, _)| !p.starts_with("logs/") && !p.starts_with('.'))
            .map(|(p, b)| (format!("memory/{p}"), String::from_utf8_lossy(&b).into_owned()))
            .collect();
        assert_eq!(a_topics, post, "{phase}: m0 holds the team's memory, and no conflict file");
    }
}

/// SIGKILL at random moments of a whole `team run`: whatever the moment, the branch holds
/// the pre-state or the whole dream.
#[test]
fn sigkilled_team_dreams_leave_the_pre_or_the_whole_post_state() {
    let trials = crate::env_count("AUTODREAM_TEAM_KILLS", 6);
    let mut rng = SplitMix64(0x7EA3_0001);
    let (mut pre_seen, mut post_seen) = (0, 0);
    let mut post_ref: Option<BTreeMap<String, String>> = None;
    for i in 0..=trials {
        let team = Team::new(1);
        messy_memory(&team.machines[0].mem);
        team.join_all();
        let a = &team.machines[0];
        let pre = team.memory_tree(BRANCH);
        if i == 0 {
            a.run(&["team", "run", "--engine", "hygiene"]).assert_code(0);
            post_ref = Some(team.memory_tree(BRANCH));
            continue;
        }
        let delay = rng.below_or_eq(900);
        let mut child = a.spawn(&["team", "run", "--engine", "hygiene"]);
        std::thread::sleep(Duration::from_millis(delay));
        sigkill(&mut child);
        let now = team.memory_tree(BRANCH);
        if now == pre {
            pre_seen += 1;
        } else {
            if Some(&now) != post_ref.as_ref() {
                let log = git(&["--git-dir", team.url(), "log", "--stat", "--format=%h %s", BRANCH]);
                panic!("trial {i} (kill after {delay} ms): part of a dream landed: {now:#?}\n{log}");
            }
            post_seen += 1;
        }
    }
    eprintln!("team kills: {pre_seen} pre-state, {post_seen} whole dream");
    assert_eq!(pre_seen + post_seen, trials);
}

/// The remote goes away: the log and a dream go on locally, sync fails with the reason in
/// `team status`; when it is back the next sync delivers both to the other machine.
#[test]
fn an_unreachable_remote_leaves_work_local_and_the_next_sync_delivers() {
    let team = Team::new(2);
    messy_memory(&team.machines[0].mem);
    team.join_all();
    let (a, b) = (&team.machines[0], &team.machines[1]);
    let away = team.remote.with_extension("away");
    std::fs::rename(&team.remote, &away).unwrap();
    a.run(&["log", "the release train leaves on Wednesdays"]).assert_code(0);
    let out = a.run(&["team", "run", "--engine", "hygiene", "--json"]);
    out.assert_code(0);
    let round: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(round["outcome"], "local", "{round}");
    let failed = a.run(&["team", "sync"]);
    assert_eq!(failed.code, 1, "{}", failed.transcript());
    assert!(failed.stderr.contains("did not answer"), "{}", failed.stderr);
    let status: serde_json::Value =
        serde_json::from_str(&a.run(&["team", "status", "--json"]).stdout).unwrap();
    assert!(status["last_error"].as_str().is_some_and(|e| e.contains("did not answer")), "{status}");
    let main_status = a.status_json();
    assert!(
        main_status["team"]["last_error"].is_string(),
        "status shows the team's last error: {}",
        main_status["team"]
    );

    let team_check = |m: &Env| {
        let doctor: serde_json::Value = serde_json::from_str(&m.run(&["doctor", "--json"]).stdout).unwrap();
        doctor["checks"].as_array().unwrap().iter().find(|c| c["name"] == "team").cloned().unwrap_or_default()
    };
    assert_eq!(team_check(a)["status"], "warn", "doctor: the remote does not answer");

    std::fs::rename(&away, &team.remote).unwrap();
    assert_eq!(team_check(a)["status"], "ok", "doctor: the remote answers and holds the branch");
    a.run(&["team", "sync"]).assert_code(0);
    b.run(&["team", "sync"]).assert_code(0);
    assert!(all_logs(&b.mem).contains("the release train leaves on Wednesdays"));
    let topics = |m: &Env| {
        memory_files(&m.mem)
            .into_iter()
            .filter(|(p, _)| !p.starts_with("logs/") && !p.starts_with('.'))
            .collect::<Vec<_>>()
    };
    assert_eq!(topics(a), topics(b), "the local dream reached the other machine");
    let status: serde_json::Value =
        serde_json::from_str(&a.run(&["team", "status", "--json"]).stdout).unwrap();
    assert!(status["last_error"].is_null(), "{status}");
}

/// A secret in a hand-edited topic file blocks the push, naming the file and the line; the
/// branch never receives it.
#[test]
fn a_secret_in_a_hand_edit_blocks_the_push_with_file_and_line() {
    let team = Team::new(2);
    messy_memory(&team.machines[0].mem);
    team.join_all();
    let a = &team.machines[0];
    let topic = a.mem.join("deploy.md");
    write(&topic, "# Deploy\n\n- staging first, then canary\n- the bucket key is AKIAIOSFODNN7EXAMPLE\n");
    let out = a.run(&["team", "sync"]);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(out.stderr.contains(&format!("{}:4", topic.display())), "{}", out.stderr);
    assert!(!team.memory_tree(BRANCH).values().any(|t| t.contains("AKIA")), "the secret reached the branch");
    write(&topic, "# Deploy\n\n- staging first, then canary\n- the bucket key is in the vault\n");
    a.run(&["team", "sync"]).assert_code(0);
    assert!(team.memory_tree(BRANCH)["memory/deploy.md"].contains("in the vault"));
}

/// Two machines edit the same topic file by hand: edits of different lines merge; the same
/// line edited on both sides keeps both versions (one beside it as a conflict file).
#[test]
fn two_hand_edits_of_one_topic_both_survive() {
    let team = Team::new(2);
    let a = &team.machines[0];
    write(&a.mem.join("deploy.md"), "# Deploy\n\n- one\n- two\n- three\n- four\n- five\n");
    team.join_all();
    let b = &team.machines[1];
    write(&a.mem.join("deploy.md"), "# Deploy\n\n- one from a\n- two\n- three\n- four\n- five\n");
    write(&b.mem.join("deploy.md"), "# Deploy\n\n- one\n- two\n- three\n- four\n- five from b\n");
    a.run(&["team", "sync"]).assert_code(0);
    b.run(&["team", "sync"]).assert_code(0);
    a.run(&["team", "sync"]).assert_code(0);
    for m in [a, b] {
        assert_eq!(
            read(&m.mem.join("deploy.md")),
            "# Deploy\n\n- one from a\n- two\n- three\n- four\n- five from b\n"
        );
    }
    write(&a.mem.join("deploy.md"), "# Deploy\n\n- deploys go out on Mondays\n");
    write(&b.mem.join("deploy.md"), "# Deploy\n\n- deploys go out on Tuesdays\n");
    a.run(&["team", "sync"]).assert_code(0);
    let out = b.run(&["team", "sync"]);
    out.assert_code(0);
    assert!(out.stdout.contains("conflict"), "{}", out.stdout);
    a.run(&["team", "sync"]).assert_code(0);
    for m in [a, b] {
        let all: String = memory_files(&m.mem)
            .into_iter()
            .filter(|(p, _)| p.starts_with("deploy"))
            .map(|(_, b)| String::from_utf8_lossy(&b).into_owned())
            .collect();
        assert!(all.contains("Mondays") && all.contains("Tuesdays"), "an edit was lost: {all}");
    }
}

/// Bad input: a remote the project does not have, an invalid branch, a command before init.
#[test]
fn bad_input_is_named() {
    let team = Team::new(1);
    let a = &team.machines[0];
    let out = a.run(&["team", "sync"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("team init"), "{}", out.stderr);
    let out = a.run(&["team", "init", "--remote", "upstream"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no git remote named \"upstream\""), "{}", out.stderr);
    let out = a.run(&["team", "init", "--remote", team.url(), "--branch", "bad..name"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("bad..name"), "{}", out.stderr);
    assert!(!a.state_dir().join("team").join("team.json").exists(), "a failed init recorded nothing");
}
