//! The hook's decision: what runs at the end of every agent turn, minus the process.
//!
//! Given the agent's hook input (`session_id`, `transcript_path`, `cwd`, `hook_event_name`)
//! and the global options, [`evaluate`] hands over a pending "Improved N files"
//! announcement once, runs gates 1–4 and, when they all pass, says which worker to start.
//! Reading stdin, starting the detached worker and its log are the hook process's
//! (`autodream-hookproc`), which both `autodream hook` and the small `autodream-hook`
//! binary run.

use std::path::PathBuf;

use serde::Deserialize;

use crate::clock::Clock;
use crate::dream::announce;
use crate::gates::{self, GateInput};
use crate::overrides::{OverrideError, Overrides, Strictness};
use crate::paths::Locations;

/// The fields of the agent's hook input that autodream uses.
#[derive(Debug, Default, Deserialize)]
pub struct HookInput {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub transcript_path: Option<PathBuf>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub hook_event_name: Option<String>,
}

/// Codex CLI's `notify` argument: `{"type": "agent-turn-complete", "thread-id", "turn-id",
/// "cwd", "input-messages", "last-assistant-message"}`.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct CodexNotification {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    thread_id: Option<String>,
    #[serde(default)]
    cwd: Option<PathBuf>,
}

impl HookInput {
    /// The hook input given as a command-line argument instead of on stdin: Codex CLI runs its
    /// `notify` program with one JSON argument. Its `thread-id` is the session, its `cwd` the
    /// project and its `type` the event; the hook JSON of other agents is accepted too.
    /// `None` when the argument is not such a JSON object.
    pub fn from_argument(arg: &str) -> Option<HookInput> {
        let value: serde_json::Value = serde_json::from_str(arg).ok()?;
        if value.get("thread-id").is_some() || value.get("type").is_some() {
            let n: CodexNotification = serde_json::from_value(value).ok()?;
            return Some(HookInput {
                session_id: n.thread_id,
                transcript_path: None,
                cwd: n.cwd,
                hook_event_name: Some(n.kind),
            });
        }
        serde_json::from_value(value).ok()
    }
}

/// The capture to start: the transcript grew since capture last read it.
#[derive(Debug)]
pub struct CapturePlan {
    pub locations: Locations,
    pub session: String,
    pub transcript: PathBuf,
}

/// The worker to start when every gate passes.
#[derive(Debug)]
pub struct WorkerPlan {
    pub locations: Locations,
    pub clock: Clock,
    /// The session the agent is in (never counted as a new one).
    pub current_session: Option<String>,
    /// The transcript to watch for idleness (`None` after `SessionEnd`).
    pub transcript: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error(transparent)]
    Clock(#[from] crate::clock::ClockError),
    #[error(transparent)]
    Paths(#[from] crate::paths::PathError),
    #[error(transparent)]
    Overrides(#[from] OverrideError),
}

/// Runs the hook's decision: `located` is told where the memory and state are as soon as that
/// is known (for the hook's own log lines); `announce` gets a finished dream's message once,
/// whatever the gates say; `Some` when every gate passes and a worker should start.
pub fn evaluate(
    opts: &Overrides,
    input: HookInput,
    located: impl FnOnce(&Locations, Clock),
    announce: impl FnOnce(&str),
    extract: impl FnOnce(CapturePlan),
) -> Result<Option<WorkerPlan>, HookError> {
    let clock = Clock::from_env()?;
    let mut overrides = opts.path_overrides(|| input.cwd.clone().filter(|c| c.is_dir()));
    // Gemini CLI hands over the chat it is writing: its folder is the project's chats folder,
    // whatever name the release gives it (a hash of the path, or a short name).
    if opts.sessions_dir.is_none()
        && opts.sessions_format.as_deref() == Some("gemini")
        && std::env::var_os("AUTODREAM_SESSIONS_DIR").is_none_or(|v| v.is_empty())
        && let Some(dir) = input.transcript_path.as_deref().and_then(|t| t.parent()).filter(|d| d.is_dir())
    {
        overrides.sessions_dir = Some(dir.to_path_buf());
    }
    let locations = Locations::resolve(&overrides)?;
    located(&locations, clock);

    // A finished dream is announced once, whatever the gates say now, and only where the
    // client shows it: a Stop hook's message (SessionEnd output is discarded). A caller that
    // names no event (run by hand, another agent's notifier) gets it too.
    if shows_announcements(input.hook_event_name.as_deref())
        && let Some(message) = announce::take(&locations)
    {
        announce(&message);
    }

    let config = opts.load_config(&locations, Strictness::Lenient)?;
    let current = opts.current_session.clone().or(input.session_id);
    // Per-turn capture, at the end of a turn, when the transcript changed: one `stat` and
    // one small read when nothing did.
    if let Some(plan) = capture_plan(
        &locations,
        &config,
        input.hook_event_name.as_deref(),
        current.as_deref(),
        input.transcript_path.as_deref(),
    ) {
        extract(plan);
    }
    let eval = gates::check(&GateInput {
        locations: &locations,
        config: &config,
        clock,
        current_session: current.as_deref(),
    });
    if !eval.all_pass() {
        return Ok(None);
    }
    // After SessionEnd the user is gone: no need to wait for the transcript to go quiet.
    let ended = input.hook_event_name.as_deref() == Some("SessionEnd");
    let transcript = if ended { None } else { input.transcript_path };
    Ok(Some(WorkerPlan { locations, clock, current_session: current, transcript }))
}

/// Whether this hook starts the capture: a `Stop` or `SessionEnd` event, capture on, the
/// client's auto memory on, and a transcript that changed since capture last read it.
fn capture_plan(
    locations: &Locations,
    config: &crate::config::LoadedConfig,
    event: Option<&str>,
    session: Option<&str>,
    transcript: Option<&std::path::Path>,
) -> Option<CapturePlan> {
    let off = config.config.extract == crate::capture::CaptureMode::Off || config.auto_memory_off.is_some();
    // Stop ends a turn; SessionEnd sees the last turn a lagging transcript hid from Stop.
    if !matches!(event, Some("Stop") | Some("SessionEnd")) || off {
        return None;
    }
    let transcript = transcript?;
    if !crate::capture::wants_run(locations, transcript) {
        return None;
    }
    let session = session.map(str::to_string).unwrap_or_else(|| crate::capture::key_for(transcript));
    Some(CapturePlan { locations: locations.clone(), session, transcript: transcript.to_path_buf() })
}

/// Whether the client shows this hook event's `systemMessage` to the user: `Stop`, Gemini
/// CLI's `AfterAgent` (and a caller that names no event); never `SessionEnd`, whose output
/// the client discards, nor Codex CLI's `agent-turn-complete`, whose output Codex ignores.
pub fn shows_announcements(event: Option<&str>) -> bool {
    matches!(event, None | Some("Stop") | Some("AfterAgent"))
}
