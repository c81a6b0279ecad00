//! What the LLM dreams cost: a small per-day ledger in the state folder (`cost.json`), the
//! daily budget (`max_cost_per_day`) that refuses an LLM dream once today's spend reached it,
//! and the figures `status` shows.
//!
//! Only the LLM engines (`api`, formerly `agent`, and `claude`) are counted. A dream's cost is the client's own
//! `total_cost_usd` (claude) or the estimate from the configured prices (api); a dream that
//! failed or was stopped is counted too, at the prices, from the tokens it had used. Days are
//! local calendar days. The ledger is rewritten atomically and keeps the last
//! [`KEEP_DAYS`] days.

use std::collections::BTreeMap;

use jiff::Timestamp;
use jiff::civil::Date;
use serde::{Deserialize, Serialize};

use super::task::Task;
use crate::clock::local_tz;
use crate::config::{AgentConfig, Config};
use crate::engine::TokenUsage;
use crate::memdir::MemoryRoot;
use crate::memdir::index::{ContextCost, context_cost};
use crate::paths::Locations;

/// The ledger's file name inside the state folder.
pub use crate::paths::state::COST_FILE;
/// Days kept in the ledger.
pub const KEEP_DAYS: usize = 62;

/// The engines that spend money (`agent` is the `api` engine's former name).
pub fn is_llm_engine(name: &str) -> bool {
    matches!(name, "api" | "agent" | "claude")
}

/// One day's LLM dreams.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DayCost {
    pub usd: f64,
    pub tokens: TokenUsage,
    pub dreams: u32,
}

/// The most recent LLM dream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DreamCost {
    pub task: String,
    pub engine: String,
    pub at: Timestamp,
    pub tokens: TokenUsage,
    pub usd: f64,
    /// `client` (the client's own figure) or `estimate` (tokens × configured prices).
    pub source: String,
}

/// The ledger: spend per local day (`YYYY-MM-DD`) and the last LLM dream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    #[serde(default)]
    pub days: BTreeMap<String, DayCost>,
    #[serde(default)]
    pub last: Option<DreamCost>,
}

impl Ledger {
    pub fn day(&self, date: Date) -> DayCost {
        self.days.get(&date.to_string()).cloned().unwrap_or_default()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CostError {
    #[error("cannot write the cost ledger {path}: {message}")]
    Write { path: String, message: String },
}

/// The estimated cost in US dollars of `usage` at the API engine's prices (per million; the `[agent]` table).
pub fn estimate_usd(usage: &TokenUsage, prices: &AgentConfig) -> f64 {
    (usage.input as f64 * prices.price_input
        + usage.output as f64 * prices.price_output
        + usage.cache_read as f64 * prices.price_cache_read
        + usage.cache_write as f64 * prices.price_cache_write)
        / 1_000_000.0
}

/// The ledger as saved; an absent or unreadable one is empty.
pub fn load(loc: &Locations) -> Ledger {
    std::fs::read_to_string(loc.state_dir().join(COST_FILE))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// One LLM dream's spend, as the lifecycle reports it.
#[derive(Debug, Clone, Copy)]
pub struct Spend<'a> {
    pub task: &'a str,
    pub engine: &'a str,
    pub at: Timestamp,
    /// The local day it counts for.
    pub day: Date,
    pub tokens: TokenUsage,
    /// The engine's own figure, if it has one.
    pub usd: Option<f64>,
}

/// Adds one LLM dream to the ledger: its own figure when it has one, else the estimate at
/// the configured prices.
pub fn record(loc: &Locations, cfg: &Config, spend: &Spend<'_>) -> Result<DreamCost, CostError> {
    let Spend { task, engine, at, day, tokens, usd } = *spend;
    let (usd, source) = match usd.filter(|u| u.is_finite() && *u >= 0.0) {
        Some(u) => (u, if engine == "claude" { "client" } else { "estimate" }),
        None => (estimate_usd(&tokens, &cfg.agent), "estimate"),
    };
    let mut ledger = load(loc);
    let entry = ledger.days.entry(day.to_string()).or_default();
    entry.usd += usd;
    entry.tokens.add(tokens);
    entry.dreams += 1;
    while ledger.days.len() > KEEP_DAYS {
        let oldest = ledger.days.keys().next().cloned().expect("non-empty");
        ledger.days.remove(&oldest);
    }
    let last = DreamCost { task: task.into(), engine: engine.into(), at, tokens, usd, source: source.into() };
    ledger.last = Some(last.clone());
    let state = loc.state_dir();
    let err =
        |message: String| CostError::Write { path: state.join(COST_FILE).display().to_string(), message };
    let root = MemoryRoot::create(&state).map_err(|e| err(e.to_string()))?;
    let text = serde_json::to_string_pretty(&ledger).map_err(|e| err(e.to_string()))? + "\n";
    root.write_atomic(COST_FILE, text.as_bytes()).map_err(|e| err(e.to_string()))?;
    Ok(last)
}

/// Adds a finished LLM dream to the ledger, from its task: the day it ended (local), its
/// tokens and its cost. Other engines, and a dream that used no tokens, add nothing.
pub fn record_task(loc: &Locations, cfg: &Config, task: &Task) -> Result<Option<DreamCost>, CostError> {
    if !is_llm_engine(&task.engine) || (task.tokens.total() == 0 && task.cost_usd.is_none()) {
        return Ok(None);
    }
    let at = task.ended_at.unwrap_or(task.started_at);
    let spend = Spend {
        task: &task.id,
        engine: &task.engine,
        at,
        day: at.to_zoned(local_tz()).date(),
        tokens: task.tokens,
        usd: task.cost_usd,
    };
    record(loc, cfg, &spend).map(Some)
}

/// `Err(reason)` when an LLM dream must not start today: `max_cost_per_day` is set and
/// today's spend has reached it.
pub fn check_budget(loc: &Locations, cfg: &Config, engine: &str, today: Date) -> Result<(), String> {
    if !is_llm_engine(engine) || cfg.max_cost_per_day <= 0.0 {
        return Ok(());
    }
    let spent = load(loc).day(today).usd;
    if spent >= cfg.max_cost_per_day {
        return Err(format!(
            "daily budget reached: LLM dreams cost {} today, max_cost_per_day is {}; the {engine} engine dreams again tomorrow",
            usd(spent),
            usd(cfg.max_cost_per_day)
        ));
    }
    Ok(())
}

/// What memory costs, for `status`: MEMORY.md's share of every session's context, the last
/// LLM dream, today's LLM dreams and the daily budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostReport {
    pub context: Option<ContextCost>,
    pub last: Option<DreamCost>,
    pub today: DayCost,
    /// `None`: no daily limit.
    pub max_cost_per_day: Option<f64>,
    /// Today's spend reached the limit: LLM dreams are skipped until tomorrow.
    pub budget_reached: bool,
}

/// Gathers the [`CostReport`] for `today` (a local date).
pub fn report(loc: &Locations, cfg: &Config, today: Date) -> CostReport {
    let ledger = load(loc);
    let day = ledger.day(today);
    let limit = (cfg.max_cost_per_day > 0.0).then_some(cfg.max_cost_per_day);
    CostReport {
        context: context_cost(&loc.memory_dir, cfg.index_max_lines, cfg.index_max_units),
        budget_reached: limit.is_some_and(|l| day.usd >= l),
        last: ledger.last,
        today: day,
        max_cost_per_day: limit,
    }
}

/// Dollars as people write them: `$1.50`, `$0.0421`, `$0.04`, `$0`.
pub fn usd(v: f64) -> String {
    if v >= 1.0 {
        return format!("${v:.2}");
    }
    let cents = format!("{v:.4}");
    let trimmed = cents.trim_end_matches('0').trim_end_matches('.');
    format!("${trimmed}")
}

impl CostReport {
    /// The report as `status` prints it, one line each, without the left column.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        match &self.context {
            Some(c) => out.push(format!(
                "MEMORY.md adds {} bytes (~{} tokens) to every session{}",
                c.bytes,
                c.tokens,
                if c.truncated { " (the rest of the file is cut at the load limit)" } else { "" }
            )),
            None => out.push("no MEMORY.md yet: nothing is added to sessions".into()),
        }
        match &self.last {
            Some(l) => out.push(format!(
                "last LLM dream {} ({}): {} tokens, {}{}",
                l.at.strftime("%Y-%m-%d %H:%M UTC"),
                l.engine,
                l.tokens.total(),
                usd(l.usd),
                if l.source == "estimate" { " (estimated at the configured prices)" } else { "" }
            )),
            None => out.push("no LLM dream yet".into()),
        }
        let limit = match self.max_cost_per_day {
            Some(l) => format!(" of {} (max_cost_per_day)", usd(l)),
            None => " (no daily limit)".into(),
        };
        out.push(format!(
            "today {} LLM dream{}, {} tokens, {}{limit}",
            self.today.dreams,
            if self.today.dreams == 1 { "" } else { "s" },
            self.today.tokens.total(),
            usd(self.today.usd)
        ));
        if self.budget_reached {
            out.push("daily budget reached: LLM dreams are skipped until tomorrow".into());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spend<'a>(
        day: Date,
        at: Timestamp,
        task: &'a str,
        engine: &'a str,
        tokens: TokenUsage,
        usd: Option<f64>,
    ) -> Spend<'a> {
        Spend { task, engine, at, day, tokens, usd }
    }

    fn loc(tmp: &std::path::Path) -> Locations {
        let memory_dir = tmp.join("memory");
        std::fs::create_dir_all(&memory_dir).unwrap();
        Locations {
            memory_dir,
            state_dir: tmp.join("state"),
            sessions_dir: tmp.join("s"),
            project_dir: tmp.into(),
        }
    }

    #[test]
    fn dreams_add_up_per_day_and_the_budget_closes_at_the_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let loc = loc(tmp.path());
        let cfg = Config { max_cost_per_day: 0.50, ..Config::default() };
        let day: Date = "2026-05-07".parse().unwrap();
        let at: Timestamp = "2026-05-07T09:00:00Z".parse().unwrap();
        let t = TokenUsage { input: 1000, output: 100, cache_read: 0, cache_write: 0 };
        assert_eq!(check_budget(&loc, &cfg, "claude", day), Ok(()));
        record(&loc, &cfg, &spend(day, at, "t1", "claude", t, Some(0.30))).unwrap();
        assert_eq!(check_budget(&loc, &cfg, "claude", day), Ok(()));
        // No figure from the engine: the configured prices (3 and 15 per million).
        let last = record(&loc, &cfg, &spend(day, at, "t2", "agent", t, None)).unwrap();
        assert!((last.usd - 0.0045).abs() < 1e-12, "{}", last.usd);
        assert_eq!(last.source, "estimate");
        record(&loc, &cfg, &spend(day, at, "t3", "claude", t, Some(0.2))).unwrap();
        let today = load(&loc).day(day);
        assert_eq!((today.dreams, today.tokens.input), (3, 3000));
        let refused = check_budget(&loc, &cfg, "agent", day).unwrap_err();
        assert!(refused.contains("cost $0.5045 today, max_cost_per_day is $0.5;"), "{refused}");
        assert_eq!(
            (usd(0.0), usd(0.04), usd(1.5), usd(0.0421)),
            ("$0".into(), "$0.04".into(), "$1.50".into(), "$0.0421".into())
        );
        // Other engines and other days are not limited.
        assert_eq!(check_budget(&loc, &cfg, "offline", day), Ok(()));
        assert_eq!(check_budget(&loc, &cfg, "claude", "2026-05-08".parse().unwrap()), Ok(()));
        assert_eq!(check_budget(&loc, &Config::default(), "claude", day), Ok(()));
        // The ledger lives in the state folder, not beside the memory files.
        assert!(loc.state_dir().join(COST_FILE).is_file());
        assert!(!loc.memory_dir.join(COST_FILE).exists());
    }

    #[test]
    fn the_ledger_keeps_the_last_days_only() {
        let tmp = tempfile::tempdir().unwrap();
        let loc = loc(tmp.path());
        let cfg = Config::default();
        let first: Date = "2026-01-01".parse().unwrap();
        let at: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        for i in 0..(KEEP_DAYS as i64 + 5) {
            let day = first.checked_add(jiff::Span::new().days(i)).unwrap();
            record(&loc, &cfg, &spend(day, at, "t", "claude", TokenUsage::default(), Some(0.01))).unwrap();
        }
        let ledger = load(&loc);
        assert_eq!(ledger.days.len(), KEEP_DAYS);
        assert!(!ledger.days.contains_key("2026-01-01"));
    }

    #[test]
    fn a_corrupt_ledger_reads_as_empty_and_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let loc = loc(tmp.path());
        std::fs::create_dir_all(loc.state_dir()).unwrap();
        std::fs::write(loc.state_dir().join(COST_FILE), "{not json").unwrap();
        assert_eq!(load(&loc), Ledger::default());
        let day: Date = "2026-05-07".parse().unwrap();
        let once = spend(day, Timestamp::UNIX_EPOCH, "t", "claude", TokenUsage::default(), Some(1.0));
        record(&loc, &Config::default(), &once).unwrap();
        assert_eq!(load(&loc).day(day).usd, 1.0);
    }
}
