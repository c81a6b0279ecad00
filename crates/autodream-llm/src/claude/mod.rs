//! The `claude` engine: the dream run by the user's own Claude Code client in print mode
//! (`claude -p`), on the user's own subscription or key; autodream holds no API key.
//!
//! The client gets the shared four-phase prompt ([`crate::prompt`], with a tools section for
//! the client's file tools), runs with its working directory set to the staging copy, may use
//! only Read, Grep, Glob, Edit and Write (no shell), and accepts edits without asking only
//! inside that working directory. Under Landlock ([`crate::sandbox::confine`], the sandbox's
//! room for this engine) the process can write only the
//! staging copy and a temp folder of its own, which holds a private copy of its config folder
//! ([`private_config`]): never the user's config folder, where the live memory folders and the
//! transcripts are.
//! The session is not saved (`--no-session-persistence`), so it is neither counted by the
//! sessions gate nor offered by the client's resume list; the user's hooks and MCP servers
//! are not started. A time limit and the dream's cancellation stop the whole process group.
//!
//! Progress comes from the client's stream-json output ([`stream`]); the cost is the
//! client's own `total_cost_usd`. The result then goes through the same validation and apply
//! as every engine's.

pub mod private_config;
pub mod stream;

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use autodream_core::engine::{DreamContext, Engine, EngineError, EngineSummary};

use crate::prompt::{Prompt, PromptInputs, build_prompt};
use crate::sandbox::confine::Confinement;
use crate::shared::{EnvLookup, MAX_SUMMARY_CHARS, archived_facts, cap_chars, process_env};
use private_config::{LoginSync, PrivateConfig, UserConfig};
use stream::{Event, StreamState};

/// The tools the client may offer the model: read, search, edit. No Bash.
pub const TOOLS: &str = "Read,Grep,Glob,Edit,Write";
/// The tools allowed without asking anywhere (reads); edits are accepted in the cwd only.
pub const READ_TOOLS: &str = "Read,Grep,Glob";

const TOOLS_SECTION: &str = include_str!("tools.md");
/// Bytes of the client's stderr kept for an error message.
const STDERR_TAIL: usize = 4_000;

/// Knobs that are not user configuration.
#[derive(Clone)]
pub struct ClaudeOptions {
    /// Reads the environment (PATH, HOME, CLAUDE_CONFIG_DIR, TMPDIR).
    pub env: EnvLookup,
    /// Extra environment for the client.
    pub extra_env: Vec<(OsString, OsString)>,
    /// How often cancellation and the time limit are checked.
    pub poll: Duration,
    /// How long the client gets to exit after SIGTERM before SIGKILL.
    pub kill_grace: Duration,
    /// Confine the client with Landlock where the kernel has it.
    pub landlock: bool,
    /// More paths the client may write (tests leave notes there).
    pub extra_writable: Vec<PathBuf>,
}

impl Default for ClaudeOptions {
    fn default() -> Self {
        ClaudeOptions {
            env: process_env(),
            extra_env: Vec::new(),
            poll: Duration::from_millis(100),
            kill_grace: Duration::from_secs(3),
            landlock: true,
            extra_writable: Vec::new(),
        }
    }
}

/// The Claude Code engine (`--engine claude`).
#[derive(Clone, Default)]
pub struct ClaudeEngine {
    pub options: ClaudeOptions,
}

impl ClaudeEngine {
    pub fn with_options(options: ClaudeOptions) -> ClaudeEngine {
        ClaudeEngine { options }
    }

    /// The client's binary: `claude.command` as a path, or looked up on `PATH`.
    pub fn resolve_command(&self, command: &str) -> Result<PathBuf, EngineError> {
        let not_found = || {
            EngineError::Config(format!(
                "cannot find the Claude Code client {command:?}; install it or set claude.command \
                 (AUTODREAM_CLAUDE_COMMAND) to its path"
            ))
        };
        if command.contains('/') {
            let path = expand_home(command, &self.options.env);
            return if is_executable(&path) { Ok(path) } else { Err(not_found()) };
        }
        let path = (self.options.env)("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join(command))
            .find(|p| is_executable(p))
            .ok_or_else(not_found)
    }

    /// What the client may write besides the staging copy and its private temp folder (which
    /// holds its private config folder): `/dev/null`, `/dev/tty`, and the test knob.
    fn other_writable(&self) -> Vec<PathBuf> {
        let mut out = vec![PathBuf::from("/dev/null"), PathBuf::from("/dev/tty")];
        out.extend(self.options.extra_writable.iter().cloned());
        out
    }

    /// The command line the client is run with (without the program).
    pub fn arguments(prompt: &Prompt) -> Vec<OsString> {
        let words: [&str; 17] = [
            "-p",
            &prompt.task,
            "--append-system-prompt",
            &prompt.system,
            "--output-format",
            "stream-json",
            "--verbose",
            "--tools",
            TOOLS,
            "--allowedTools",
            READ_TOOLS,
            "--permission-mode",
            "acceptEdits",
            "--no-session-persistence",
            "--strict-mcp-config",
            "--settings",
            r#"{"disableAllHooks":true}"#,
        ];
        words.iter().map(OsString::from).collect()
    }
}

fn expand_home(path: &str, env: &EnvLookup) -> PathBuf {
    match (path.strip_prefix("~/"), env("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(path),
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The shared prompt, with the memory dir being the client's working directory (the staging
/// copy) and the tools section describing the client's tools.
pub fn claude_prompt(ctx: &DreamContext<'_>, project_dir: Option<&Path>) -> Prompt {
    build_prompt(&PromptInputs::of_dream(ctx, ctx.staging, project_dir, TOOLS_SECTION))
}

/// A temp folder of the client's own (`$TMPDIR` for it), removed when dropped: the shared
/// temp folder stays out of its reach.
struct PrivateTemp(PathBuf);

impl PrivateTemp {
    fn create(env: &EnvLookup) -> std::io::Result<PrivateTemp> {
        use std::os::unix::fs::DirBuilderExt;
        let base = env("TMPDIR").filter(|t| !t.is_empty()).map_or_else(std::env::temp_dir, PathBuf::from);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        for n in 0..100u32 {
            let dir = base.join(format!("autodream-claude-{}-{nanos:x}-{n}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(PrivateTemp(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("no free name"))
    }
}

impl Drop for PrivateTemp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copies a login the client refreshed back to the user's config folder, and says so.
fn sync_login(private: Option<&PrivateConfig>, notes: &mut Vec<String>) {
    match private.map(PrivateConfig::finish) {
        None | Some(LoginSync::Unchanged) => {}
        Some(LoginSync::CopiedBack) => {
            notes.push("the client refreshed your login; it was saved back".into())
        }
        Some(LoginSync::KeptUsers) => {
            notes.push("the client refreshed your login, but yours changed meanwhile and was kept".into())
        }
        Some(LoginSync::Failed(e)) => {
            notes.push(format!("the client refreshed your login, but saving it back failed: {e}"))
        }
    }
}

/// Why the client stopped early.
enum Stop {
    Cancelled,
    TimedOut,
}

impl Stop {
    fn error(self, timeout_minutes: f64) -> EngineError {
        match self {
            Stop::Cancelled => EngineError::Cancelled,
            Stop::TimedOut => EngineError::Other(format!(
                "the Claude Code client ran past the time limit ({timeout_minutes} minutes, claude.timeout_minutes) and was stopped"
            )),
        }
    }
}

/// SIGKILL to the client's whole process group.
fn kill_group(child: &Child) {
    if let Some(pgid) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    }
}

/// SIGTERM to the client's process group, a grace period, then SIGKILL; reaps the child.
fn stop_group(child: &mut Child, grace: Duration) {
    let Some(pgid) = rustix::process::Pid::from_raw(child.id() as i32) else { return };
    let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::TERM);
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // The group may hold more than the child: KILL it whatever the child did.
    kill_group(child);
    let _ = child.wait();
}

/// What the client runs with and what must outlive it: its temp folder (removed when dropped)
/// and its private config folder (whose login is synced back at the end).
struct Setting {
    temp: PrivateTemp,
    private: Option<PrivateConfig>,
}

/// The client's output, read on threads of their own so neither pipe fills: stdout line by
/// line, and the tail of stderr for an error message.
struct Output {
    lines: mpsc::Receiver<String>,
    stdout: JoinHandle<()>,
    stderr: JoinHandle<String>,
}

impl Output {
    fn read(child: &mut Child) -> Output {
        let (tx, lines) = mpsc::channel::<String>();
        let out = child.stdout.take().expect("piped stdout");
        let stdout = std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut err = child.stderr.take().expect("piped stderr");
        let stderr = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = err.read_to_end(&mut buf);
            let text = String::from_utf8_lossy(&buf).into_owned();
            let cut = text.len().saturating_sub(STDERR_TAIL);
            let cut = (cut..=text.len()).find(|i| text.is_char_boundary(*i)).unwrap_or(text.len());
            text[cut..].trim().to_string()
        });
        Output { lines, stdout, stderr }
    }

    /// Waits for both readers; the tail of stderr.
    fn finish(self) -> String {
        let _ = self.stdout.join();
        self.stderr.join().unwrap_or_default()
    }
}

impl ClaudeEngine {
    /// The client's temp folder, private config and Landlock ruleset; notes when Landlock is
    /// not there to keep its writes in the staging copy.
    fn setting(
        &self,
        ctx: &DreamContext<'_>,
        notes: &mut Vec<String>,
    ) -> Result<(Setting, Confinement), EngineError> {
        let temp = PrivateTemp::create(&self.options.env)
            .map_err(|e| EngineError::Other(format!("cannot make a temp folder for the client: {e}")))?;
        let mut writable = vec![ctx.staging.to_path_buf(), temp.0.clone()];
        writable.extend(self.other_writable());
        let confinement = if self.options.landlock {
            Confinement::build(&writable)
        } else {
            Confinement::Unavailable("switched off".into())
        };
        if let Confinement::Unavailable(why) = &confinement {
            notes.push(format!(
                "Landlock {why}: the client's own permissions alone kept writes in the staging copy"
            ));
        }
        // Confined, the client runs on a private copy of its config (it may not write the
        // user's); unconfined, it uses the user's own.
        let private = match (confinement.is_ready(), UserConfig::locate(&self.options.env)) {
            (true, Some(user)) => Some(
                PrivateConfig::prepare(temp.0.join("config"), user)
                    .map_err(|e| EngineError::Other(format!("cannot prepare the client's config: {e}")))?,
            ),
            _ => None,
        };
        Ok((Setting { temp, private }, confinement))
    }

    /// The client's command: in the staging copy, in a process group of its own, with its
    /// temp folder, its config and no updates or other traffic it does not need.
    fn command(&self, program: &Path, prompt: &Prompt, ctx: &DreamContext<'_>, setting: &Setting) -> Command {
        let mut command = Command::new(program);
        command
            .args(Self::arguments(prompt))
            .current_dir(ctx.staging)
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
            .env("TMPDIR", &setting.temp.0)
            .envs(setting.private.as_ref().map(|p| ("CLAUDE_CONFIG_DIR", p.dir.clone())))
            .envs(self.options.extra_env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        command
    }

    /// Reports the client's progress until its output ends, or why it must stop first.
    fn follow(
        &self,
        ctx: &DreamContext<'_>,
        child: &mut Child,
        output: &Output,
        state: &mut StreamState,
    ) -> Option<Stop> {
        let deadline = Instant::now() + Duration::from_secs_f64(ctx.config.claude.timeout_minutes * 60.0);
        let mut group_ended = false;
        loop {
            if ctx.cancel.is_cancelled() {
                return Some(Stop::Cancelled);
            }
            if Instant::now() >= deadline {
                return Some(Stop::TimedOut);
            }
            match output.lines.recv_timeout(self.options.poll) {
                Ok(line) => {
                    for event in state.line(&line) {
                        match event {
                            Event::Turn { text, tool_uses } => ctx.progress.turn(&text, tool_uses, &[]),
                            Event::Touched(path) => ctx.progress.turn("", 0, &[path]),
                            Event::Denied(reason) => ctx.progress.denial(&reason),
                            Event::Tokens(usage) => ctx.progress.tokens(usage),
                        }
                    }
                }
                // The client exited but something it started holds its output open: end the
                // group, so the rest of the output drains and the reader sees its end.
                Err(RecvTimeoutError::Timeout) => {
                    if !group_ended && matches!(child.try_wait(), Ok(Some(_))) {
                        group_ended = true;
                        kill_group(child);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }
}

impl Engine for ClaudeEngine {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn dream(&self, ctx: &DreamContext<'_>) -> Result<EngineSummary, EngineError> {
        ctx.cancel.check()?;
        let program = self.resolve_command(&ctx.config.claude.command)?;
        let mut notes = Vec::new();
        let project_dir =
            (ctx.config.agent.read_project && ctx.project_dir.is_dir()).then_some(ctx.project_dir);
        let prompt = claude_prompt(ctx, project_dir);

        let (setting, confinement) = self.setting(ctx, &mut notes)?;
        let mut command = self.command(&program, &prompt, ctx, &setting);
        confinement.apply_to(&mut command);
        let mut child = command
            .spawn()
            .map_err(|e| EngineError::Other(format!("cannot start {}: {e}", program.display())))?;
        drop(confinement);

        let output = Output::read(&mut child);
        let mut state = StreamState::new(ctx.staging);
        if let Some(stop) = self.follow(ctx, &mut child, &output, &mut state) {
            stop_group(&mut child, self.options.kill_grace);
            output.finish();
            sync_login(setting.private.as_ref(), &mut notes);
            return Err(stop.error(ctx.config.claude.timeout_minutes));
        }
        let status = child.wait().map_err(|e| EngineError::Other(format!("waiting for the client: {e}")))?;
        // Anything the client left behind in its group goes with it.
        kill_group(&child);
        let stderr = output.finish();
        sync_login(setting.private.as_ref(), &mut notes);
        ctx.cancel.check()?;
        summarise(state, status, &stderr, ctx, notes)
    }
}

fn summarise(
    state: StreamState,
    status: std::process::ExitStatus,
    stderr: &str,
    ctx: &DreamContext<'_>,
    mut notes: Vec<String>,
) -> Result<EngineSummary, EngineError> {
    let tail = |s: &str| if s.is_empty() { String::new() } else { format!(": {s}") };
    let Some(result) = state.result.clone() else {
        return Err(EngineError::Provider(format!(
            "the Claude Code client exited ({status}) without a result{}",
            tail(stderr)
        )));
    };
    if result.is_error {
        if result.subtype == "error_max_turns" {
            notes.push(format!(
                "the client stopped after {} turns; the changes made so far are kept",
                result.num_turns
            ));
        } else {
            let why = if result.text.is_empty() { result.subtype.clone() } else { result.text.clone() };
            return Err(EngineError::Provider(format!(
                "the Claude Code client reported an error: {why}{}",
                tail(stderr)
            )));
        }
    }
    let denials = state.denials.max(result.permission_denials);
    if denials > 0 {
        notes.push(format!("{denials} tool call(s) refused by the client's permissions or the sandbox"));
    }
    let text = [result.text.trim(), state.last_text.trim()]
        .into_iter()
        .find(|t| !t.is_empty())
        .map(|t| cap_chars(t.to_string(), MAX_SUMMARY_CHARS, "summary cut"))
        .unwrap_or_else(|| {
            format!("The client changed {} file(s) and gave no summary.", state.touched.len())
        });
    Ok(EngineSummary {
        text,
        archived_facts: archived_facts(&state.touched, ctx.staging, ctx.memory_dir),
        redactions: 0,
        tool_uses: state.tool_uses,
        tokens: state.usage,
        cost_usd: result.total_cost_usd,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use autodream_core::config::Config;
    use autodream_core::engine::{CancelToken, NullProgress};
    use std::sync::Arc;

    #[test]
    fn the_prompt_describes_the_client_tools_and_the_staging_copy() {
        let tmp = tempfile::tempdir().unwrap();
        let config = Config::default();
        let ctx = DreamContext {
            staging: &tmp.path().join("work"),
            memory_dir: &tmp.path().join("memory"),
            sessions_dir: &tmp.path().join("sessions"),
            project_dir: tmp.path(),
            sessions: &[],
            log_entries: &[],
            last_consolidated_at: None,
            now: "2026-05-07T09:00:00Z".parse().unwrap(),
            config: &config,
            progress: &NullProgress,
            cancel: &CancelToken::new(),
        };
        let prompt = claude_prompt(&ctx, Some(tmp.path()));
        assert!(prompt.system.contains(&format!("Memory dir: `{}`", tmp.path().join("work").display())));
        assert!(prompt.system.contains("There is no shell"));
        assert!(prompt.system.contains("the transcripts and the project"));
        assert!(!prompt.system.contains("Bash runs"), "the API engine's tool text is not there");
        assert!(prompt.system.contains("## When you are done"));
        let args = ClaudeEngine::arguments(&prompt);
        let at = |flag: &str| args.iter().position(|a| a == flag).map(|i| args[i + 1].clone());
        assert_eq!(at("--tools").unwrap(), TOOLS);
        assert_eq!(at("--permission-mode").unwrap(), "acceptEdits");
        assert!(args.iter().any(|a| a == "--no-session-persistence"));
        assert!(!TOOLS.contains("Bash"));
    }

    #[test]
    fn a_missing_client_is_a_configuration_error_naming_the_setting() {
        let engine = ClaudeEngine::with_options(ClaudeOptions {
            env: Arc::new(|name| (name == "PATH").then(|| "/nonexistent-a:/nonexistent-b".to_string())),
            ..ClaudeOptions::default()
        });
        let err = engine.resolve_command("claude").unwrap_err().to_string();
        assert!(err.contains("claude.command"), "{err}");
        assert!(engine.resolve_command("/bin/sh").is_ok());
        assert!(engine.resolve_command("/etc/hostname-not-executable").is_err());
    }
}
