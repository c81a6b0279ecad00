//! `task.json` in the state folder: the running (or last) dream, observable from other processes.
//!
//! The file is rewritten atomically on every progress event, so `status` and `watch` read a
//! consistent snapshot. A task marked running whose worker is gone is reported as failed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{LifecycleError, TASK_FILE};
use crate::clock::{Clock, human_ago, human_duration};
use crate::config::Config;
use crate::engine::{ProgressSink, TokenUsage};
use crate::lock::pid_alive;
use crate::memdir::MemoryRoot;
use crate::paths::Locations;

/// How many turns the task keeps for display.
pub const MAX_TURNS: usize = 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskState {
    Running,
    Completed,
    Failed,
    Killed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Starting,
    Updating,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskTurn {
    pub text: String,
    pub tool_uses: u32,
}

impl TaskTurn {
    /// One short line for status and watch.
    pub fn display_line(&self) -> String {
        let text: String = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = if text.chars().count() > 100 {
            format!("{}…", text.chars().take(99).collect::<String>())
        } else {
            text
        };
        match self.tool_uses {
            0 => text,
            n => format!("{text} [{n} tool use{}]", if n == 1 { "" } else { "s" }),
        }
    }
}

/// The dream task, as written to `task.json` in the state folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub state: TaskState,
    pub phase: Phase,
    pub engine: String,
    pub pid: u32,
    pub started_at: Timestamp,
    pub ended_at: Option<Timestamp>,
    pub sessions_reviewing: usize,
    pub files_touched: Vec<String>,
    pub tool_uses: u64,
    pub tokens: TokenUsage,
    #[serde(default)]
    pub cost_usd: Option<f64>,
    #[serde(default)]
    pub denials: u64,
    pub turns: Vec<TaskTurn>,
    pub summary: Option<String>,
    pub error: Option<String>,
    pub announced: bool,
    #[serde(default)]
    pub dry_run: bool,
}

impl Task {
    pub fn new(id: String, engine: &str, pid: u32, started_at: Timestamp) -> Task {
        Task {
            id,
            state: TaskState::Running,
            phase: Phase::Starting,
            engine: engine.to_string(),
            pid,
            started_at,
            ended_at: None,
            sessions_reviewing: 0,
            files_touched: Vec::new(),
            tool_uses: 0,
            tokens: TokenUsage::default(),
            cost_usd: None,
            denials: 0,
            turns: Vec::new(),
            summary: None,
            error: None,
            announced: false,
            dry_run: false,
        }
    }

    /// "running for 2m (updating): 3 files, 12 tool uses" / "completed 2 days ago: …".
    pub fn one_line(&self, now: Timestamp) -> String {
        let files = match self.files_touched.len() {
            1 => "1 file".to_string(),
            n => format!("{n} files"),
        };
        match self.state {
            TaskState::Running => {
                let secs = (now.as_second() - self.started_at.as_second()).max(0) as u64;
                let phase = match self.phase {
                    Phase::Starting => "starting",
                    Phase::Updating => "updating",
                };
                format!(
                    "running for {} ({phase}, engine {}, PID {}): {} sessions, {files} touched, {} tool uses",
                    human_duration(std::time::Duration::from_secs(secs)),
                    self.engine,
                    self.pid,
                    self.sessions_reviewing,
                    self.tool_uses
                )
            }
            state => {
                let when = self.ended_at.map(|t| human_ago(t, now)).unwrap_or_default();
                let what = match state {
                    TaskState::Completed => "completed",
                    TaskState::Failed => "failed",
                    TaskState::Killed => "killed",
                    TaskState::Running => unreachable!(),
                };
                let detail = self.error.clone().or_else(|| self.summary.clone()).unwrap_or_default();
                format!("{what} {when} (engine {}): {detail}", self.engine)
            }
        }
    }
}

pub fn task_path(loc: &Locations) -> PathBuf {
    loc.state_dir.join(TASK_FILE)
}

pub fn load(loc: &Locations) -> Option<Task> {
    load_from(&loc.state_dir)
}

fn load_from(state_dir: &Path) -> Option<Task> {
    let text = std::fs::read_to_string(state_dir.join(TASK_FILE)).ok()?;
    serde_json::from_str(&text).ok()
}

pub fn save(loc: &Locations, task: &Task) -> Result<(), LifecycleError> {
    save_to(&loc.state_dir, task)
}

fn save_to(state_dir: &Path, task: &Task) -> Result<(), LifecycleError> {
    let json = serde_json::to_vec_pretty(task).map_err(|e| LifecycleError::Invalid(e.to_string()))?;
    MemoryRoot::create(state_dir)?.write_atomic(TASK_FILE, &json)?;
    Ok(())
}

/// A task marked running whose worker is gone becomes failed. Returns a sentence if so.
pub fn mark_dead_task(loc: &Locations, clock: Clock) -> Result<Option<String>, LifecycleError> {
    let Some(mut task) = load(loc) else { return Ok(None) };
    if task.state != TaskState::Running || pid_alive(task.pid) {
        return Ok(None);
    }
    task.state = TaskState::Failed;
    task.ended_at = Some(clock.now());
    task.error =
        Some(format!("the worker (PID {}) died before finishing; nothing was applied half-way", task.pid));
    task.announced = true;
    save(loc, &task)?;
    Ok(Some(format!("dream {} was interrupted (worker PID {} is gone)", task.id, task.pid)))
}

/// The task as `status` should report it (a dead "running" task shown as failed, without
/// writing anything).
pub fn load_effective(loc: &Locations, clock: Clock, _cfg: &Config) -> Option<Task> {
    let mut task = load(loc)?;
    if task.state == TaskState::Running && !pid_alive(task.pid) {
        task.state = TaskState::Failed;
        task.ended_at.get_or_insert(clock.now());
        task.error = Some(format!("the worker (PID {}) died before finishing", task.pid));
    }
    Some(task)
}

pub fn mark_announced(loc: &Locations) -> Result<(), LifecycleError> {
    if let Some(mut task) = load(loc)
        && !task.announced
    {
        task.announced = true;
        save(loc, &task)?;
    }
    Ok(())
}

/// The progress sink behind a running dream: every event updates and rewrites the task.
pub struct TaskProgress {
    state_dir: PathBuf,
    task: Mutex<Task>,
    /// Called after each event (e.g. to refresh a terminal progress line).
    on_event: Option<Box<TaskListener>>,
}

/// A callback that sees the task after each update.
pub type TaskListener = dyn Fn(&Task) + Send + Sync;

impl TaskProgress {
    pub fn new(loc: &Locations, task: Task) -> Self {
        TaskProgress { state_dir: loc.state_dir.clone(), task: Mutex::new(task), on_event: None }
    }

    pub fn with_listener(mut self, f: impl Fn(&Task) + Send + Sync + 'static) -> Self {
        self.on_event = Some(Box::new(f));
        self
    }

    /// Changes the task and rewrites the file.
    pub fn update(&self, f: impl FnOnce(&mut Task)) {
        self.change(f, false);
    }

    /// Records the end of the dream: like [`update`](Self::update), but the dream has let go of
    /// the lock by now, and a newer dream may already have saved its own task. That one is the
    /// task of the memory folder then, and its file is left alone.
    pub fn finish(&self, f: impl FnOnce(&mut Task)) {
        self.change(f, true);
    }

    fn change(&self, f: impl FnOnce(&mut Task), unless_newer: bool) {
        let mut task = self.task.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut task);
        if !unless_newer || load_from(&self.state_dir).is_none_or(|on_file| on_file.id == task.id) {
            let _ = save_to(&self.state_dir, &task);
        }
        if let Some(cb) = &self.on_event {
            cb(&task);
        }
    }

    pub fn snapshot(&self) -> Task {
        self.task.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl ProgressSink for TaskProgress {
    fn turn(&self, text: &str, tool_uses: u32, touched: &[PathBuf]) {
        let text = text.trim();
        let touched: Vec<String> = touched.iter().map(|p| p.to_string_lossy().replace('\\', "/")).collect();
        self.update(|t| {
            let mut new_path = false;
            for p in touched {
                if !t.files_touched.contains(&p) {
                    t.files_touched.push(p);
                    new_path = true;
                }
            }
            if new_path {
                t.phase = Phase::Updating;
            }
            t.tool_uses += u64::from(tool_uses);
            if text.is_empty() && tool_uses == 0 && !new_path {
                return;
            }
            t.turns.push(TaskTurn { text: text.to_string(), tool_uses });
            if t.turns.len() > MAX_TURNS {
                let excess = t.turns.len() - MAX_TURNS;
                t.turns.drain(..excess);
            }
        });
    }

    fn tokens(&self, usage: TokenUsage) {
        self.update(|t| t.tokens = usage);
    }

    fn denial(&self, _reason: &str) {
        self.update(|t| t.denials += 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_keeps_the_last_30_turns_and_flips_phase_on_the_first_write() {
        let tmp = tempfile::tempdir().unwrap();
        let now: Timestamp = "2026-05-08T12:00:00Z".parse().unwrap();
        let loc = Locations {
            memory_dir: tmp.path().join("memory"),
            state_dir: tmp.path().join("state"),
            sessions_dir: tmp.path().into(),
            project_dir: tmp.path().into(),
        };
        let p = TaskProgress::new(&loc, Task::new("t1".into(), "offline", 1, now));
        for i in 0..40 {
            p.turn(&format!("step {i}"), 1, &[]);
        }
        assert_eq!(load(&loc).unwrap().phase, Phase::Starting);
        p.turn("write", 2, &[PathBuf::from("topic.md")]);
        p.turn("", 0, &[PathBuf::from("topic.md")]); // nothing new: not a turn
        let t = load(&loc).unwrap();
        assert_eq!(t.turns.len(), MAX_TURNS);
        assert_eq!(t.turns.last().unwrap().text, "write");
        assert_eq!(t.turns[0].text, "step 11");
        assert_eq!(t.phase, Phase::Updating);
        assert_eq!(t.files_touched, ["topic.md"]);
        assert_eq!(t.tool_uses, 42);
    }

    #[test]
    fn a_finished_dream_never_overwrites_the_task_of_the_dream_after_it() {
        let tmp = tempfile::tempdir().unwrap();
        let now: Timestamp = "2026-05-08T12:00:00Z".parse().unwrap();
        let loc = Locations::under(tmp.path());
        let earlier = TaskProgress::new(&loc, Task::new("t2".into(), "offline", 1, now));
        earlier.update(|_| {});
        // The dream let go of the lock; the next one took it and saved its task.
        save(&loc, &Task::new("t3".into(), "offline", 2, now)).unwrap();
        earlier.finish(|t| t.state = TaskState::Completed);
        let on_file = load(&loc).unwrap();
        assert_eq!((on_file.id.as_str(), on_file.state), ("t3", TaskState::Running));
        assert_eq!(earlier.snapshot().state, TaskState::Completed);

        // With no newer task, the end is written.
        let last = TaskProgress::new(&loc, Task::new("t4".into(), "offline", 3, now));
        last.update(|_| {});
        last.finish(|t| t.state = TaskState::Failed);
        let on_file = load(&loc).unwrap();
        assert_eq!((on_file.id.as_str(), on_file.state), ("t4", TaskState::Failed));
    }
}
