//! Shared fixtures for the integration tests: a sealed environment per test (temporary
//! HOME, XDG config home, memory and sessions folders, a pinned clock and time zone), the
//! `autodream` binary run as a real process, byte-level views of the memory directory, and
//! small helpers for clocks, mtimes, polling and processes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use filetime::FileTime;
use jiff::Timestamp;

/// The instant every test pins `AUTODREAM_NOW` to, unless it says otherwise.
pub const NOW: &str = "2026-05-08T13:56:00Z";

/// The lock file's name (the contract in DESIGN.md §1).
pub const LOCK: &str = ".consolidate-lock";

/// The `autodream` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_autodream")
}

/// The repository's transcript fixtures.
pub fn transcripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts")
}

/// `NOW` shifted by `secs` (negative: earlier).
pub fn at(secs: i64) -> SystemTime {
    let now: Timestamp = NOW.parse().expect("NOW is RFC 3339");
    let t = now.checked_add(jiff::SignedDuration::from_secs(secs)).expect("in range");
    SystemTime::from(t)
}

/// An instant as RFC 3339, whole seconds, UTC.
pub fn rfc3339(t: SystemTime) -> String {
    Timestamp::try_from(t).expect("representable").to_string()
}

pub fn set_mtime(path: &Path, t: SystemTime) {
    filetime::set_file_mtime(path, FileTime::from_system_time(t))
        .unwrap_or_else(|e| panic!("set mtime of {}: {e}", path.display()));
}

pub fn mtime(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("stat {}: {e}", path.display()))
}

/// Whole seconds since the epoch (what "to the second" compares).
pub fn unix_secs(t: SystemTime) -> i64 {
    t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

pub fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create parent folder");
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Polls `cond` every 20 ms until it holds or `timeout` passes; returns whether it held.
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if cond() {
            return true;
        }
        if start.elapsed() >= timeout {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Is `pid` a running process (zombies count as gone)?
pub fn pid_alive(pid: u32) -> bool {
    autodream_core::lock::pid_alive(pid)
}

/// Snapshot settings that hide what depends on the machine, not on autodream: the
/// kernel's Landlock support in `status --json`.
pub fn machine_neutral() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r#""sandbox": "[^"]*""#, r#""sandbox": "[SANDBOX]""#);
    settings
}

/// A finished process: exit code and text output.
#[derive(Debug, Clone)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    pub fn from_output(o: Output) -> Out {
        Out {
            // A signal has no code; -1 keeps it distinct from every exit code we assert.
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }

    /// Exit code, stdout and stderr in one text for a snapshot.
    pub fn transcript(&self) -> String {
        format!("exit: {}\n--- stdout\n{}--- stderr\n{}", self.code, self.stdout, self.stderr)
    }

    pub fn assert_code(&self, code: i32) -> &Out {
        assert_eq!(self.code, code, "unexpected exit code\n{}", self.transcript());
        self
    }
}

/// A sealed environment: nothing of the machine's own configuration leaks in.
pub struct Env {
    _tmp: tempfile::TempDir,
    /// The canonical path of the temporary folder (redacted to `[TMP]` in snapshots).
    pub root: PathBuf,
    pub mem: PathBuf,
    pub sess: PathBuf,
    pub home: PathBuf,
    pub xdg: PathBuf,
    /// The working directory of every command (an empty project folder).
    pub cwd: PathBuf,
    /// `AUTODREAM_NOW`; `None` runs on the system clock.
    pub now: Option<String>,
    /// Extra variables for every command.
    pub vars: Vec<(String, String)>,
    /// Set AUTODREAM_MEMORY_DIR / AUTODREAM_SESSIONS_DIR (off: the agent's layout under HOME).
    pub explicit_dirs: bool,
}

impl Env {
    pub fn new() -> Env {
        let tmp = tempfile::Builder::new().prefix("adit").tempdir().expect("temporary folder");
        let root = tmp.path().canonicalize().expect("canonical temporary folder");
        let env = Env {
            mem: root.join("mem"),
            sess: root.join("sessions"),
            home: root.join("home"),
            xdg: root.join("xdg"),
            cwd: root.join("project"),
            root,
            _tmp: tmp,
            now: Some(NOW.to_string()),
            vars: Vec::new(),
            explicit_dirs: true,
        };
        for d in [&env.home, &env.xdg, &env.cwd, &env.sess] {
            std::fs::create_dir_all(d).expect("create folder");
        }
        env
    }

    /// The same environment on the system clock.
    pub fn system_clock(mut self) -> Env {
        self.now = None;
        self
    }

    /// The same sealed environment, looking at another memory and sessions folder.
    pub fn with_dirs(self, mem: &Path, sess: &Path) -> Env {
        Env { mem: mem.to_path_buf(), sess: sess.to_path_buf(), explicit_dirs: true, ..self }
    }

    pub fn var(mut self, k: &str, v: &str) -> Env {
        self.vars.push((k.into(), v.into()));
        self
    }

    /// `autodream ARGS…` with the sealed environment, not started yet.
    pub fn cmd<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Command {
        let mut c = Command::new(bin());
        c.args(args).env_clear().current_dir(&self.cwd);
        if let Some(path) = std::env::var_os("PATH") {
            c.env("PATH", path);
        }
        c.env("HOME", &self.home).env("XDG_CONFIG_HOME", &self.xdg).env("TZ", "UTC");
        if self.explicit_dirs {
            c.env("AUTODREAM_MEMORY_DIR", &self.mem).env("AUTODREAM_SESSIONS_DIR", &self.sess);
        }
        if let Some(now) = &self.now {
            c.env("AUTODREAM_NOW", now);
        }
        for (k, v) in &self.vars {
            c.env(k, v);
        }
        c.stdin(Stdio::null());
        c
    }

    /// Runs `autodream ARGS…` to completion (stdin empty).
    pub fn run<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Out {
        let out = self.cmd(args).output().expect("run autodream");
        Out::from_output(out)
    }

    /// Runs with `input` on stdin.
    pub fn run_with_stdin<S: AsRef<std::ffi::OsStr>>(&self, args: &[S], input: &[u8]) -> Out {
        let mut c = self.cmd(args);
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn autodream");
        let mut stdin = child.stdin.take().expect("piped stdin");
        // The process may exit before reading everything; a broken pipe is its business.
        let _ = stdin.write_all(input);
        drop(stdin);
        Out::from_output(child.wait_with_output().expect("wait for autodream"))
    }

    /// Starts `autodream ARGS…` in the background with captured output.
    pub fn spawn<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Child {
        let mut c = self.cmd(args);
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        c.spawn().expect("spawn autodream")
    }

    /// Replaces the temporary folder's path with `[TMP]`.
    pub fn redact(&self, text: &str) -> String {
        // The state folder's name is the memory folder's path, sanitised.
        let key = autodream_core::paths::sanitise(&self.root.to_string_lossy());
        text.replace(&self.root.display().to_string(), "[TMP]").replace(&key, "[TMP-KEY]")
    }

    /// A snapshot-ready transcript of a run.
    pub fn transcript(&self, out: &Out) -> String {
        self.redact(&out.transcript())
    }

    /// Writes a session transcript `<id>.jsonl` with the given mtime.
    pub fn session(&self, id: &str, body: &str, mtime: SystemTime) -> PathBuf {
        let p = self.sess.join(format!("{id}.jsonl"));
        write(&p, body);
        set_mtime(&p, mtime);
        p
    }

    /// An empty lock file whose mtime says "last consolidated at `t`".
    pub fn lock_at(&self, t: SystemTime) {
        let p = self.mem.join(LOCK);
        write(&p, "");
        set_mtime(&p, t);
    }

    /// autodream's state folder for this memory folder (the default place under HOME).
    pub fn state_dir(&self) -> PathBuf {
        let key = autodream_core::paths::sanitise(&self.mem.to_string_lossy());
        self.home.join(".local/state/autodream").join(key)
    }

    pub fn state_file(&self, name: &str) -> PathBuf {
        self.state_dir().join(name)
    }

    /// `task.json` in the state folder, parsed.
    pub fn task(&self) -> Option<serde_json::Value> {
        let text = std::fs::read_to_string(self.state_file("task.json")).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn task_state(&self) -> Option<String> {
        self.task().and_then(|t| t["state"].as_str().map(str::to_string))
    }

    /// The staging copies in the state folder (an empty folder may stay).
    pub fn staging_copies(&self) -> Vec<String> {
        std::fs::read_dir(self.state_file("staging"))
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default()
    }

    pub fn worker_log(&self) -> String {
        std::fs::read_to_string(self.state_file("worker.log")).unwrap_or_default()
    }

    /// `status --json`, parsed (recovery runs as a side effect).
    pub fn status_json(&self) -> serde_json::Value {
        let out = self.run(&["status", "--json"]);
        out.assert_code(0);
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("status --json: {e}\n{}", out.stdout))
    }

    /// `history --json`'s dreams.
    pub fn history(&self) -> Vec<serde_json::Value> {
        let out = self.run(&["history", "--json"]);
        out.assert_code(0);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("history --json is JSON");
        v["dreams"].as_array().cloned().unwrap_or_default()
    }
}

/// The user's memory, byte for byte: every file except `.dream/`, `logs/`, the lock and the
/// hidden temporary files of an atomic write.
pub fn memory_files(mem: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).expect("under root").to_string_lossy().into_owned();
            let name = e.file_name().to_string_lossy().into_owned();
            if dir == root && (name == ".dream" || name == "logs" || name == LOCK) {
                continue;
            }
            if name.starts_with('.') && name.ends_with(".tmp") {
                continue;
            }
            let ft = e.file_type().expect("file type");
            if ft.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(rel, std::fs::read(&p).expect("read memory file"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(mem, mem, &mut out);
    out
}

/// Hidden temporary files (`.name.PID.N.tmp`) left in the memory folder (outside `.dream/`).
pub fn leftover_temp_files(mem: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![mem.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if dir == mem && name == ".dream" {
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            } else if name.starts_with('.') && name.ends_with(".tmp") {
                out.push(e.path().display().to_string());
            }
        }
    }
    out
}

/// Everything a dry run must leave alone.
#[derive(Debug, PartialEq, Eq)]
pub struct FullState {
    pub memory: BTreeMap<String, Vec<u8>>,
    pub logs: BTreeMap<String, Vec<u8>>,
    /// The lock's body and mtime (to the nanosecond), when it exists.
    pub lock: Option<(String, SystemTime)>,
}

pub fn full_state(mem: &Path) -> FullState {
    let lock = mem.join(LOCK);
    FullState {
        memory: memory_files(mem),
        logs: memory_files(&mem.join("logs")),
        lock: std::fs::read_to_string(&lock).ok().map(|body| (body, mtime(&lock))),
    }
}

/// Lists the paths that differ between two memory snapshots (for assertion messages).
pub fn differing(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).cloned().collect()
}

/// A memory directory whose index a hygiene dream changes in two files: a dangling pointer
/// to remove, a hook too long for the index (its detail moves to the topic file), and a
/// topic file the index forgot.
pub fn messy_memory(mem: &Path) {
    write(
        &mem.join("MEMORY.md"),
        "# Memory\n\
         - [Build tips](build.md) — how the workspace is built and tested\n\
         - [Old notes](old-notes.md) — a topic file that was deleted by hand\n\
         - [Deploy](deploy.md) — the deploy goes through the staging cluster first, then canary at five \
         percent for an hour, then the rest of the fleet, and rollback is one command away\n",
    );
    write(
        &mem.join("build.md"),
        "---\nname: Build tips\ndescription: how the workspace is built and tested\ntype: project\n\
         updated: 2026-05-01\n---\n# Build tips\n\n- cargo build -p autodream-cli builds the binary\n",
    );
    write(&mem.join("deploy.md"), "# Deploy\n\n- staging first, then canary\n");
    write(
        &mem.join("testing.md"),
        "---\nname: Testing\ndescription: how integration tests drive the binary\ntype: reference\n---\n\
         # Testing\n\n- tests pin the clock with AUTODREAM_NOW\n",
    );
}

/// The memory as an uninterrupted hygiene dream leaves [`messy_memory`].
pub fn post_state_of_messy_memory() -> BTreeMap<String, Vec<u8>> {
    post_state_of(messy_memory)
}

/// The memory as an uninterrupted hygiene dream (at `NOW`) leaves `fixture`.
pub fn post_state_of(fixture: impl Fn(&Path)) -> BTreeMap<String, Vec<u8>> {
    let env = Env::new();
    fixture(&env.mem);
    env.lock_at(at(-3 * 24 * 3600));
    env.run(&["run", "--engine", "hygiene"]).assert_code(0);
    memory_files(&env.mem)
}

/// [`messy_memory`] plus eight topics whose index hooks are too long: a hygiene dream
/// rewrites ten files, so its apply step lasts long enough to be interrupted.
pub fn busy_memory(mem: &Path) {
    messy_memory(mem);
    let mut index = read(&mem.join("MEMORY.md"));
    for i in 0..8 {
        write(&mem.join(format!("area-{i}.md")), &format!("# Area {i}\n- owned by team {i}\n"));
        index.push_str(&format!(
            "- [Area {i}](area-{i}.md) — area {i} covers the ingestion service, its retry queue, the \
             nightly compaction job, the dashboards on call watches, and the runbook for paging\n"
        ));
    }
    write(&mem.join("MEMORY.md"), &index);
}

/// A tidy memory directory (a hygiene dream changes nothing).
pub fn tidy_memory(mem: &Path) {
    write(&mem.join("MEMORY.md"), "# Memory\n- [Build tips](build.md) — how the workspace is built\n");
    write(&mem.join("build.md"), "# Build tips\n- cargo build\n");
}

/// The agent's folder name for a project path: every character that is not an ASCII letter
/// or digit becomes `-` (DESIGN.md §2).
pub fn sanitised(path: &Path) -> String {
    path.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// Deterministic pseudo-random numbers (SplitMix64) for seeded fault injection.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..=max`.
    pub fn below_or_eq(&mut self, max: u64) -> u64 {
        self.next_u64() % (max + 1)
    }
}

/// SIGKILLs a child (if it still runs) and reaps it.
pub fn sigkill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Waits for a child with a deadline; SIGKILLs it when the deadline passes. Returns the
/// output, or `None` when it had to be killed.
pub fn wait_with_deadline(mut child: Child, deadline: Duration) -> Option<Out> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return Some(Out::from_output(child.wait_with_output().expect("collect output"))),
            Ok(None) if start.elapsed() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                sigkill(&mut child);
                return None;
            }
        }
    }
}
