//! One dream, start to finish, in numbered steps:
//!
//! 1. recover what a crashed dream left, and take the lock ([`run_dream`]);
//! 2. re-check gates 2 and 4 under the lock (the background worker);
//! 3. record the task, and keep the lock fresh with a heartbeat while the dream runs;
//! 4. wait until the user is idle;
//! 5. gather the sessions and daily-log entries since the last dream;
//! 6. stage a copy of the memory directory (removed on every way out, by a drop guard);
//! 7. let the engine dream on the copy, then check its facts against the repository
//!    (`referents`, every engine);
//! 8. tidy the copy (hygiene), order its index by use and stamp `modified` on changed topics
//!    (`usage::dream_pass`), and validate it;
//! 9. apply the changes under the journal (or show them, for a dry run, or keep them as a
//!    pending dream for review, `review`);
//! 10. release the lock (or roll it back on failure, cancellation or a dry run) and record
//!     the outcome.
//!
//! Any failure or kill rolls the lock back so the dream "never happened", and leaves the
//! memory directory as it was.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::history::Manifest;
use super::task::{Task, TaskProgress, TaskState};
use super::transaction::{self, Staging};
use super::{announce, history, recover, review, validate};
use crate::clock::{Clock, from_system_time, local_tz};
use crate::config::LoadedConfig;
use crate::engine::{CancelToken, DreamContext, Engine, EngineError, EngineSummary, ProgressSink};
use crate::gates;
use crate::lock::{Acquire, ConsolidationLock, LockToken};
use crate::memdir::daily_log::{self, LogCursor};
use crate::memdir::is_engine_data;
use crate::paths::Locations;
use crate::sessions::{self, ParsedSession, SessionWindow};

/// How to run a dream.
pub struct DreamOptions<'a> {
    pub engine: &'a dyn Engine,
    /// Compute and show the changes, apply nothing, roll the lock back.
    pub dry_run: bool,
    /// After taking the lock, re-check the time and sessions gates (the background worker:
    /// the hook already consumed the scan throttle).
    pub recheck_gates: bool,
    /// The current session: not reviewed, and its transcript is watched for idleness.
    pub current_session: Option<String>,
    /// Wait until this transcript has been quiet for `idle_seconds` before starting.
    pub idle_transcript: Option<PathBuf>,
    /// The PID recorded in the lock and the task (normally our own).
    pub pid: u32,
    pub cancel: CancelToken,
    /// Called at every task update (terminal progress).
    pub on_event: Option<std::sync::Arc<super::task::TaskListener>>,
    /// A consolidation moves "last consolidated at" and consumes the new daily-log
    /// entries. An edit by hand under the same transaction (`autodream forget`) does
    /// neither, and is not announced to the agent.
    pub consolidates: bool,
    /// Stop after validation and keep the dream for review (`run --review`; `review = true`
    /// in the config does the same for every dream).
    pub review: bool,
}

impl<'a> DreamOptions<'a> {
    /// A foreground dream by this process with `engine`: applied, gates not re-checked, no
    /// idle wait, a fresh cancellation token, no listener. Change fields as needed.
    pub fn new(engine: &'a dyn Engine) -> DreamOptions<'a> {
        DreamOptions {
            engine,
            dry_run: false,
            recheck_gates: false,
            current_session: None,
            idle_transcript: None,
            pid: std::process::id(),
            cancel: CancelToken::new(),
            on_event: None,
            consolidates: true,
            review: false,
        }
    }
}

/// A finished dream.
#[derive(Debug, Clone, Serialize)]
pub struct DreamOutcome {
    pub task: Task,
    /// Files changed in the memory directory (or that would be, for a dry run).
    pub files: Vec<String>,
    pub conflicts: Vec<String>,
    /// The unified diff (dry runs).
    pub diff: Option<String>,
    pub summary: EngineSummary,
    /// "Improved 3 files" or "Nothing to change".
    pub message: String,
    /// The dream stopped for review: nothing was applied (`dream::review`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Lines of the reviewed transcripts that could not be read (not JSON, or of a shape
    /// the format does not know), skipped: the sum of [`ParsedSession::skipped_lines`].
    pub skipped_lines: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum DreamError {
    /// Refused by the lock or a gate: exit code 3.
    #[error("{0}")]
    Refused(String),
    #[error("the dream was cancelled; nothing was changed")]
    Cancelled,
    #[error("{0}")]
    Failed(String),
}

/// "Improved 1 file" / "Improved 3 files" / "Nothing to change".
pub fn improved_message(n: usize) -> String {
    match n {
        0 => "Nothing to change".into(),
        1 => "Improved 1 file".into(),
        n => format!("Improved {n} files"),
    }
}

/// "1 unreadable transcript line skipped" / "3 unreadable transcript lines skipped"; `None`
/// for none.
pub fn skipped_lines_sentence(n: usize) -> Option<String> {
    match n {
        0 => None,
        1 => Some("1 unreadable transcript line skipped".into()),
        n => Some(format!("{n} unreadable transcript lines skipped")),
    }
}

/// A task id never used before in this memory folder: the dream's start to the second, with
/// `-N` when that second already has one.
///
/// A history folder is not enough to tell: a dream that changed nothing leaves none. The id
/// must still differ from the last task's, because a recovery running in another process may
/// have listed the previous dream's staging copy and would take a new copy of the same name
/// for that stale one.
fn new_task_id(loc: &Locations, clock: Clock) -> String {
    let base = clock.now().strftime("%Y%m%dT%H%M%SZ").to_string();
    let number = |n: u64| if n == 1 { base.clone() } else { format!("{base}-{n}") };
    let last = super::task::load(loc).map(|t| t.id);
    let after_last = last.as_deref().and_then(|id| {
        let rest = id.strip_prefix(base.as_str())?;
        if rest.is_empty() { Some(1) } else { rest.strip_prefix('-')?.parse::<u64>().ok() }
    });
    let taken = |id: &str| {
        history::entry_dir(loc, id).exists()
            || transaction::staging_dir(loc, id).exists()
            || review::exists(loc, id)
    };
    (after_last.map_or(1, |n| n + 1)..).map(number).find(|id| !taken(id)).expect("an unused id")
}

/// Runs one dream. See the module docs for the order of things.
pub fn run_dream(
    loc: &Locations,
    config: &LoadedConfig,
    clock: Clock,
    opts: DreamOptions<'_>,
) -> Result<DreamOutcome, DreamError> {
    let cfg = &config.config;
    // 1. Recover, then take the lock.
    recover(loc, clock, cfg)
        .map_err(|e| DreamError::Failed(format!("cannot recover the memory directory: {e}")))?;
    crate::memdir::init(&loc.memory_dir).map_err(|e| DreamError::Failed(e.to_string()))?;
    let lock = ConsolidationLock::new(&loc.memory_dir, clock, cfg.stale_lock());
    let token = match lock.try_acquire(opts.pid).map_err(|e| DreamError::Failed(e.to_string()))? {
        Acquire::Acquired(t) => t,
        Acquire::Held { holder, age } => {
            return Err(DreamError::Refused(format!(
                "a dream is already running (PID {}, lock refreshed {} ago)",
                holder.pid,
                crate::clock::human_duration(age)
            )));
        }
        Acquire::LostRace => return Err(DreamError::Refused("another process took the lock first".into())),
    };
    // Under the lock no other change set is under way: history folders without a record are
    // leftovers of one killed before its journal.
    super::remove_unrecorded_history(loc);
    let result = run_locked(loc, config, clock, &opts, &lock, &token);
    if result.is_err() {
        let _ = lock.rollback(&token);
    }
    result
}

/// Gates 2 and 4 again, under the lock: the hook's verdict may be stale by now (another
/// dream may have finished in between). The same gate functions as the hook, with the lock's
/// prior mtime as "last consolidated at".
fn recheck(
    loc: &Locations,
    config: &LoadedConfig,
    clock: Clock,
    token: &LockToken,
    current: Option<&str>,
) -> Result<(), String> {
    let cfg = &config.config;
    let now = clock.now();
    let (time, _) = gates::time_gate(token.prior_mtime, now, cfg.min_hours);
    if !time.pass {
        return Err(format!("time gate closed: {}", time.detail));
    }
    let (sessions, _) = gates::sessions_gate(loc, cfg, token.prior_mtime, now, current);
    if !sessions.pass {
        return Err(format!("sessions gate closed: {}", sessions.detail));
    }
    Ok(())
}

/// Waits until `transcript` has been quiet for `idle_seconds`, polling its mtime.
fn wait_for_idle(
    transcript: &Path,
    clock: Clock,
    idle: Duration,
    max_wait: Duration,
    cancel: &CancelToken,
) -> Result<(), DreamError> {
    let started = Instant::now();
    loop {
        cancel.check().map_err(|_| DreamError::Cancelled)?;
        let Ok(mtime) = std::fs::metadata(transcript).and_then(|m| m.modified()) else { return Ok(()) };
        // With an injected clock, "now" advances by the real time spent waiting.
        let now = clock.now_system_time() + started.elapsed();
        let quiet = now.duration_since(mtime).unwrap_or_default();
        if quiet >= idle {
            return Ok(());
        }
        if started.elapsed() >= max_wait {
            return Err(DreamError::Failed(format!(
                "gave up after waiting {} for the session to go idle",
                crate::clock::human_duration(max_wait)
            )));
        }
        let step = (idle - quiet).min(Duration::from_secs(1)).max(Duration::from_millis(50));
        std::thread::sleep(step);
    }
}

fn run_locked(
    loc: &Locations,
    config: &LoadedConfig,
    clock: Clock,
    opts: &DreamOptions<'_>,
    lock: &ConsolidationLock,
    token: &LockToken,
) -> Result<DreamOutcome, DreamError> {
    let cfg = &config.config;
    // 2. Re-check gates 2 and 4 under the lock.
    if opts.recheck_gates {
        recheck(loc, config, clock, token, opts.current_session.as_deref()).map_err(DreamError::Refused)?;
    }
    // The daily budget of the LLM engines (`max_cost_per_day`).
    let today = clock.now().to_zoned(local_tz()).date();
    super::cost::check_budget(loc, cfg, opts.engine.name(), today).map_err(DreamError::Refused)?;
    // 3. The task, and a heartbeat on the lock while steps 4–9 run.
    let task_id = new_task_id(loc, clock);
    let mut task = Task::new(task_id.clone(), opts.engine.name(), opts.pid, token.started_at);
    task.dry_run = opts.dry_run;
    let mut progress = TaskProgress::new(loc, task);
    if let Some(cb) = opts.on_event.clone() {
        progress = progress.with_listener(move |t| cb(t));
    }
    progress.update(|_| {});

    let stop = AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| {
        // Heartbeat: keep the lock fresh so a long dream is not taken for stale.
        let beat = (cfg.stale_lock() / 4).clamp(Duration::from_millis(200), Duration::from_secs(30));
        let stop = &stop;
        scope.spawn(move || {
            let mut last = Instant::now();
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(50));
                if last.elapsed() >= beat {
                    let _ = lock.heartbeat(token);
                    last = Instant::now();
                }
            }
        });
        // Whatever happens in the body, the heartbeat stops (the scope joins it).
        struct StopOnDrop<'a>(&'a AtomicBool);
        impl Drop for StopOnDrop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let _stop = StopOnDrop(stop);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            dream_body(loc, config, clock, opts, token, &progress)
        }))
        .unwrap_or_else(|_| {
            Err(DreamError::Failed("internal error during the dream (a bug): nothing was applied".into()))
        })
    });

    // 10. Release the lock (roll it back for a dry run or a failure) and record the outcome.
    let now = clock.now();
    match outcome {
        Ok(outcome) => {
            if opts.dry_run || !opts.consolidates {
                let _ = lock.rollback(token);
            } else {
                lock.release_success(token).map_err(|e| DreamError::Failed(e.to_string()))?;
            }
            let files = outcome.files.clone();
            progress.finish(|t| {
                t.state = TaskState::Completed;
                t.ended_at = Some(now);
                t.files_touched = files.clone();
                t.summary = Some(outcome.message.clone() + summary_suffix(&outcome.summary).as_str());
                t.tokens = outcome.summary.tokens;
                t.cost_usd = outcome.summary.cost_usd;
                t.announced = opts.dry_run
                    || !opts.consolidates
                    || !(outcome.pending || outcome.message.starts_with("Improved"));
            });
            let _ = super::cost::record_task(loc, cfg, &progress.snapshot());
            if !opts.dry_run
                && opts.consolidates
                && (outcome.pending || outcome.message.starts_with("Improved"))
            {
                let _ = announce::post(loc, &outcome.message);
            }
            // A pending dream this one reviewed again is replaced by it.
            if !opts.dry_run && opts.consolidates && !outcome.pending {
                review::discard_others(loc, None);
            }
            Ok(DreamOutcome { task: progress.snapshot(), ..outcome })
        }
        Err(err) => {
            let _ = lock.rollback(token);
            progress.finish(|t| {
                t.state =
                    if matches!(err, DreamError::Cancelled) { TaskState::Killed } else { TaskState::Failed };
                t.ended_at = Some(now);
                t.error = Some(err.to_string());
                t.announced = true;
            });
            let _ = super::cost::record_task(loc, cfg, &progress.snapshot());
            Err(err)
        }
    }
}

fn summary_suffix(s: &EngineSummary) -> String {
    if s.text.is_empty() { String::new() } else { format!(" — {}", s.text) }
}

/// The staging copy of a dream, removed when dropped: on success, failure, cancellation or
/// a panic, it never outlives the dream's steps.
struct StagingGuard<'a> {
    loc: &'a Locations,
    staging: Staging,
}

impl std::ops::Deref for StagingGuard<'_> {
    type Target = Staging;
    fn deref(&self) -> &Staging {
        &self.staging
    }
}

impl Drop for StagingGuard<'_> {
    fn drop(&mut self) {
        transaction::discard(self.loc, &self.staging);
    }
}

/// Steps 4–9 of a dream, under the lock: wait for idle, gather, stage, dream, tidy and
/// validate, apply (or show, for a dry run).
fn dream_body(
    loc: &Locations,
    config: &LoadedConfig,
    clock: Clock,
    opts: &DreamOptions<'_>,
    token: &LockToken,
    progress: &TaskProgress,
) -> Result<DreamOutcome, DreamError> {
    let cfg = &config.config;
    let cancel = &opts.cancel;
    // 4. Wait until the user is idle.
    if let Some(t) = &opts.idle_transcript
        && cfg.idle_seconds > 0
    {
        wait_for_idle(
            t,
            clock,
            Duration::from_secs(cfg.idle_seconds),
            Duration::from_secs_f64(cfg.idle_max_wait_minutes * 60.0),
            cancel,
        )?;
    }

    // 5. Gather the sessions touched since the last dream (and not after "now"), and new
    // daily-log entries.
    let input = gather(loc, cfg, clock, opts, token, progress)?;

    // 6. Stage a copy of the memory directory.
    let staging =
        transaction::prepare(loc, &progress.snapshot().id).map_err(|e| DreamError::Failed(e.to_string()))?;
    let staging = StagingGuard { loc, staging };

    // 7. The engine dreams on the copy.
    let ctx = DreamContext {
        staging: &staging.work,
        memory_dir: &loc.memory_dir,
        sessions_dir: &loc.sessions_dir,
        project_dir: &loc.project_dir,
        sessions: &input.sessions,
        log_entries: &input.log_entries,
        last_consolidated_at: review::window_start(loc, token.prior_mtime).map(from_system_time),
        now: clock.now(),
        config: cfg,
        progress,
        cancel,
    };
    let mut summary = run_engine(opts, &ctx)?;
    cancel.check().map_err(|_| DreamError::Cancelled)?;
    // The facts checked against the repository, whatever the engine.
    let today = clock.now().to_zoned(local_tz()).date();
    if cfg.check_repository
        && opts.consolidates
        && let Some(checker) = crate::referents::registered()
    {
        let report = crate::referents::stale::run(&staging.work, &loc.project_dir, checker, today, true)
            .map_err(|e| DreamError::Failed(format!("repository check: {e}")))?;
        summary.archived_facts += report.moved.len();
        if !report.sentence().is_empty() {
            summary.notes.push(report.sentence());
        }
    }

    // 8. Tidy the copy, order its index by use and stamp what changed, and validate it.
    crate::hygiene::tidy(&staging.work, cfg, today)
        .map_err(|e| DreamError::Failed(format!("hygiene pass: {e}")))?;
    crate::usage::dream_pass(loc, &staging.base, &staging.work, cfg.sessions_format, clock.now())
        .map_err(|e| DreamError::Failed(format!("usage pass: {e}")))?;
    let problems = validate::validate(&staging.base, &staging.work, cfg, summary.archived_facts);
    if !problems.is_empty() {
        return Err(DreamError::Failed(format!("the dream's result was refused: {}", problems.join("; "))));
    }

    // 9. Apply the changes under the journal, or show them for a dry run.
    let planned = transaction::plan(&staging);
    if opts.dry_run {
        return dry_run_outcome(loc, progress, &planned, summary, input.skipped_lines());
    }
    cancel.check().map_err(|_| DreamError::Cancelled)?;
    let dreaming = Dreaming { loc, cfg, clock, opts, token, progress };
    if (opts.review || cfg.review) && opts.consolidates && planned.iter().any(|p| !is_engine_data(&p.path)) {
        return stop_for_review(dreaming, &staging, planned, summary, input);
    }
    apply(dreaming, &staging, planned, summary, input)
}

/// What a dream reads: the sessions since the last dream, parsed, and the new log entries.
struct Gathered {
    sessions: Vec<ParsedSession>,
    log_entries: Vec<daily_log::LogEntry>,
    /// Where this dream stops reading the logs.
    new_cursor: Option<LogCursor>,
}

impl Gathered {
    /// The transcript lines the parsers skipped, over every session.
    fn skipped_lines(&self) -> usize {
        self.sessions.iter().map(|p| p.skipped_lines).sum()
    }
}

/// Step 5: the sessions touched since the last dream (and not after "now"), parsed (an
/// unreadable one is skipped and said), and the daily-log entries since the last cursor.
fn gather(
    loc: &Locations,
    cfg: &crate::config::Config,
    clock: Clock,
    opts: &DreamOptions<'_>,
    token: &LockToken,
    progress: &TaskProgress,
) -> Result<Gathered, DreamError> {
    let window = SessionWindow::for_project(
        loc,
        cfg.sessions_format,
        review::window_start(loc, token.prior_mtime),
        clock.now(),
        opts.current_session.as_deref(),
    );
    let files = window.files().map_err(|e| DreamError::Failed(e.to_string()))?;
    let mut parsed: Vec<ParsedSession> = Vec::with_capacity(files.len());
    for f in &files {
        opts.cancel.check().map_err(|_| DreamError::Cancelled)?;
        match sessions::parse_session_file(f, cfg.sessions_format) {
            Ok(p) => parsed.push(p),
            Err(e) => progress.turn(&format!("skipped {}: {e}", f.id), 0, &[]),
        }
    }
    let cursor = LogCursor::of_last_dream(loc);
    let (log_entries, new_cursor) = daily_log::read_since(&loc.memory_dir, cursor.as_ref())
        .map_err(|e| DreamError::Failed(e.to_string()))?;
    let gathered = Gathered { sessions: parsed, log_entries, new_cursor };
    progress.update(|t| t.sessions_reviewing = gathered.sessions.len());
    let skipped =
        skipped_lines_sentence(gathered.skipped_lines()).map(|s| format!(" ({s})")).unwrap_or_default();
    progress.turn(
        &format!(
            "Reviewing {} sessions and {} daily-log entries{skipped}",
            gathered.sessions.len(),
            gathered.log_entries.len()
        ),
        0,
        &[],
    );
    Ok(gathered)
}

/// Step 7: the engine dreams on the copy; a panic in it is a failed dream, not a crash.
fn run_engine(opts: &DreamOptions<'_>, ctx: &DreamContext<'_>) -> Result<EngineSummary, DreamError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| opts.engine.dream(ctx))) {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(EngineError::Cancelled)) => Err(DreamError::Cancelled),
        Ok(Err(e)) => Err(DreamError::Failed(format!("the {} engine failed: {e}", opts.engine.name()))),
        Err(_) => Err(DreamError::Failed(format!("the {} engine crashed", opts.engine.name()))),
    }
}

/// Step 9 of a dry run: what would change, refused where the apply would refuse it.
fn dry_run_outcome(
    loc: &Locations,
    progress: &TaskProgress,
    planned: &[transaction::Planned],
    summary: EngineSummary,
    skipped_lines: usize,
) -> Result<DreamOutcome, DreamError> {
    // A dry run refuses what the apply would refuse: a change through a symbolic link.
    transaction::check_plan(loc, planned).map_err(|e| DreamError::Failed(e.to_string()))?;
    let files: Vec<String> = planned.iter().map(|p| p.path.clone()).collect();
    let memory_files = files.iter().filter(|f| !is_engine_data(f)).count();
    let message = if memory_files == 0 {
        improved_message(0)
    } else {
        improved_message(memory_files).replacen("Improved", "Would improve", 1)
    };
    Ok(DreamOutcome {
        task: progress.snapshot(),
        files,
        conflicts: vec![],
        diff: Some(transaction::plan_diff(planned)),
        summary,
        message,
        pending: false,
        skipped_lines,
    })
}

/// Step 9 with review: the plan is kept as the pending dream, nothing is applied.
fn stop_for_review(
    dreaming: Dreaming<'_>,
    staging: &transaction::Staging,
    planned: Vec<transaction::Planned>,
    summary: EngineSummary,
    input: Gathered,
) -> Result<DreamOutcome, DreamError> {
    let Dreaming { loc, clock, opts, token, progress, .. } = dreaming;
    let skipped_lines = input.skipped_lines();
    // Refused now what the accept would refuse: a change through a symbolic link.
    transaction::check_plan(loc, &planned).map_err(|e| DreamError::Failed(e.to_string()))?;
    let record = review::Pending {
        task: progress.snapshot().id,
        engine: opts.engine.name().to_string(),
        started_at: token.started_at,
        planned_at: clock.now(),
        since: review::window_start(loc, token.prior_mtime).map(from_system_time),
        summary: summary.text.clone(),
        notes: summary.notes.clone(),
        files: vec![],
        log_cursor: input.new_cursor,
        sessions_reviewed: input.sessions.len(),
        tokens: summary.tokens,
        cost_usd: summary.cost_usd,
    };
    let diff = transaction::plan_diff(&planned);
    let record =
        review::keep(loc, staging, &planned, record).map_err(|e| DreamError::Failed(e.to_string()))?;
    let n = record.memory_files().count();
    let message = format!(
        "A dream waits for review: {n} file{} would change (autodream review)",
        if n == 1 { "" } else { "s" }
    );
    Ok(DreamOutcome {
        task: progress.snapshot(),
        files: record.files.iter().map(|f| f.path.clone()).collect(),
        conflicts: vec![],
        diff: Some(diff),
        summary,
        message,
        pending: true,
        skipped_lines,
    })
}

/// What every step of a dream under the lock works with.
#[derive(Clone, Copy)]
struct Dreaming<'a> {
    loc: &'a Locations,
    cfg: &'a crate::config::Config,
    clock: Clock,
    opts: &'a DreamOptions<'a>,
    token: &'a LockToken,
    progress: &'a TaskProgress,
}

/// Step 9: the changes applied under the journal and recorded; the log cursor moved; the
/// index mirrored into AGENTS.md / GEMINI.md.
fn apply(
    dreaming: Dreaming<'_>,
    staging: &transaction::Staging,
    planned: Vec<transaction::Planned>,
    summary: EngineSummary,
    input: Gathered,
) -> Result<DreamOutcome, DreamError> {
    let Dreaming { loc, cfg, clock, opts, token, progress } = dreaming;
    let skipped_lines = input.skipped_lines();
    let manifest = Manifest {
        task: progress.snapshot().id,
        engine: opts.engine.name().to_string(),
        started_at: token.started_at,
        ended_at: Some(clock.now()),
        summary: summary.text.clone(),
        changes: vec![],
        conflicts: vec![],
        undo_of: None,
        tokens: summary.tokens,
        cost_usd: summary.cost_usd,
        sessions_reviewed: input.sessions.len(),
    };
    let applied =
        transaction::apply(loc, staging, planned, manifest).map_err(|e| DreamError::Failed(e.to_string()))?;
    if let Some(c) = input.new_cursor
        && opts.consolidates
    {
        let _ = c.save(loc);
    }
    let files: Vec<String> = applied.changes.iter().map(|c| c.path.clone()).collect();
    // Engine data is applied like any file but is not memory the agent reads.
    let memory_files = files.iter().filter(|f| !is_engine_data(f)).count();
    let mut message = improved_message(memory_files);
    if !applied.conflicts.is_empty() {
        message.push_str(&format!(
            " ({} kept as conflicts: {})",
            applied.conflicts.len(),
            applied.conflicts.join(", ")
        ));
    }
    // autodream:mirror-index: keep the index in AGENTS.md / GEMINI.md (see agents_md.rs).
    for problem in crate::agents_md::sync_after_dream(loc, cfg) {
        message.push_str(&format!(" ({problem})"));
    }
    Ok(DreamOutcome {
        task: progress.snapshot(),
        files,
        conflicts: applied.conflicts,
        diff: None,
        summary,
        message,
        pending: false,
        skipped_lines,
    })
}

#[cfg(test)]
mod tests;
