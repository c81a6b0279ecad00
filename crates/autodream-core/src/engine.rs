//! The engine interface: what every dream engine receives and returns.
//!
//! An engine works only on the staging copy it is handed; the dream lifecycle
//! ([`crate::dream`]) validates its result and applies it to the real memory directory as
//! one transaction. Engines report progress through a [`ProgressSink`] and must return
//! promptly with [`EngineError::Cancelled`] once the [`CancelToken`] fires.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::memdir::daily_log::LogEntry;
use crate::sessions::ParsedSession;

/// Everything an engine may look at during one dream.
pub struct DreamContext<'a> {
    /// The writable copy of the memory directory: the only place an engine may write.
    pub staging: &'a Path,
    /// The real memory directory (read-only for engines; shown to LLMs as "the memory dir").
    pub memory_dir: &'a Path,
    /// The folder of session transcripts.
    pub sessions_dir: &'a Path,
    /// The project the agent works in (readable by the agent engine).
    pub project_dir: &'a Path,
    /// The sessions to review (touched since the last consolidation), parsed.
    pub sessions: &'a [ParsedSession],
    /// Daily-log entries written since the last dream, oldest first.
    pub log_entries: &'a [LogEntry],
    /// When the last dream started (`None`: never).
    pub last_consolidated_at: Option<Timestamp>,
    pub now: Timestamp,
    pub config: &'a Config,
    pub progress: &'a dyn ProgressSink,
    pub cancel: &'a CancelToken,
}

/// Receives progress events; the lifecycle turns them into updates of `task.json` in the state folder.
pub trait ProgressSink: Send + Sync {
    /// One step of work (for the agent engine: one assistant message).
    /// `touched` are memory paths (relative to the memory dir) written in this step.
    fn turn(&self, text: &str, tool_uses: u32, touched: &[PathBuf]);
    /// Token usage so far in this dream (cumulative totals).
    fn tokens(&self, usage: TokenUsage);
    /// A tool call refused by the sandbox.
    fn denial(&self, reason: &str);
}

/// A sink that drops everything (tests, dry runs).
pub struct NullProgress;

impl ProgressSink for NullProgress {
    fn turn(&self, _text: &str, _tool_uses: u32, _touched: &[PathBuf]) {}
    fn tokens(&self, _usage: TokenUsage) {}
    fn denial(&self, _reason: &str) {}
}

/// Token counts reported by a provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl TokenUsage {
    pub fn add(&mut self, other: TokenUsage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
    }

    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// A cancellation flag shared between the lifecycle (kill, SIGTERM) and the engine.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    /// `Err(Cancelled)` once cancelled: sprinkle `ctx.cancel.check()?` between steps.
    pub fn check(&self) -> Result<(), EngineError> {
        if self.is_cancelled() { Err(EngineError::Cancelled) } else { Ok(()) }
    }
    /// The shared flag, for code that polls an `AtomicBool` (signal handlers, async tasks).
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }
}

/// What an engine says it did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineSummary {
    /// A short human summary ("Merged 12 facts into 3 files; 2 superseded").
    pub text: String,
    /// Facts the engine moved to an archive section (`## Superseded`, `## Archive`, overflow)
    /// rather than keeping in place: validation allows files to shrink by this much.
    pub archived_facts: usize,
    /// Secrets replaced by `[REDACTED:<kind>]`.
    pub redactions: usize,
    /// Tool calls the engine made (agent engine).
    pub tool_uses: u64,
    pub tokens: TokenUsage,
    /// Estimated cost in US dollars (agent engine, from configured prices).
    pub cost_usd: Option<f64>,
    /// Anything the user should know (budget reached, conflicts, skipped inputs).
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("the dream was cancelled")]
    Cancelled,
    #[error("{0}")]
    Config(String),
    #[error("I/O error on {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Provider(String),
    #[error("{0}")]
    Other(String),
}

impl EngineError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EngineError::Io { path: path.into(), source }
    }
}

/// A dream engine.
pub trait Engine: Send + Sync {
    /// The engine's name as the user selects it (`--engine NAME`).
    fn name(&self) -> &'static str;
    /// Consolidates: reads the context, edits files under `ctx.staging` only.
    fn dream(&self, ctx: &DreamContext<'_>) -> Result<EngineSummary, EngineError>;
}
