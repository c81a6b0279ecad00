//! autodream-eval: measuring the memory a dream writes, on the LoCoMo benchmark
//! (`autodream eval locomo DATA.json`), whatever engine dreams.
//!
//! Each conversation becomes session files ([`locomo`]); dreams run over them with an
//! injected clock — once after the last session, or every K sessions as in real use (each
//! dream reviewing the sessions since the previous one, with "now" = the last reviewed
//! session's start) — and the memory directories are scored with the reference metrics
//! ([`score`]). Who runs a dream is the caller's choice: the CLI passes a closure that goes
//! through the full dream lifecycle (lock, staging, validation); [`offline_dreamer`] calls
//! any [`Engine`] (the offline one in the tests) directly on the memory directory.
//!
//! The data (CC BY-NC) is never part of the repository: callers pass its path.

pub mod locomo;
pub mod score;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use autodream_core::config::Config;
use autodream_core::engine::{CancelToken, DreamContext, Engine, NullProgress};
use autodream_core::sessions::{SessionFormat, parse_session_file, session_file_for};

use self::locomo::Sample;
use self::score::{Conversation, Memory, PooledScore, SampleScore};

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Data(String),
    #[error("dream {dream} of {sample_id} failed: {message}")]
    Dream { sample_id: String, dream: usize, message: String },
    #[error("{0}")]
    Usage(String),
}

/// What to evaluate and how.
#[derive(Debug, Clone, PartialEq)]
pub struct LocomoOptions {
    /// A LoCoMo JSON file (a list of conversations).
    pub data: PathBuf,
    /// Where `<sample_id>/sessions/` and `<sample_id>/memory/` are written. An existing
    /// `<sample_id>/memory/` is replaced.
    pub out: PathBuf,
    /// Dream after every K sessions (and after the last); `None`: one dream at the end.
    pub every: Option<usize>,
    /// Only these conversations (all when empty).
    pub samples: Vec<String>,
    /// More LoCoMo files whose conversations join the specificity pool.
    pub references: Vec<PathBuf>,
}

impl LocomoOptions {
    pub fn new(data: impl Into<PathBuf>, out: impl Into<PathBuf>) -> LocomoOptions {
        LocomoOptions {
            data: data.into(),
            out: out.into(),
            every: None,
            samples: Vec::new(),
            references: Vec::new(),
        }
    }
}

/// One dream to run.
#[derive(Debug, Clone, PartialEq)]
pub struct DreamRequest {
    pub sample_id: String,
    /// The memory directory (`<out>/<sample_id>/memory`).
    pub memory_dir: PathBuf,
    /// The folder holding every session file of the conversation.
    pub sessions_dir: PathBuf,
    /// The session files this dream reviews (touched since the previous dream), oldest first.
    pub sessions: Vec<PathBuf>,
    /// The injected "now": the start of the last reviewed session.
    pub now: Timestamp,
    /// When the previous dream ran (`None` for the first).
    pub last_consolidated_at: Option<Timestamp>,
    /// 1-based number of this dream for this conversation, and how many there will be.
    pub dream: usize,
    pub dreams: usize,
}

/// Throughput of the dreams themselves (conversion and scoring excluded).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Throughput {
    /// Bytes of the session files reviewed, over all dreams.
    pub transcript_bytes: u64,
    pub dream_seconds: f64,
    pub mb_per_second: f64,
}

/// The result of an evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// The data file's name.
    pub data: String,
    /// `one-shot` or `every K`.
    pub mode: String,
    pub dreams: usize,
    pub pool: Vec<String>,
    pub pooled: PooledScore,
    pub per_sample: Vec<SampleScore>,
    pub throughput: Throughput,
}

/// Runs the evaluation; `dream` runs one dream (see [`offline_dreamer`]).
pub fn run_locomo(
    opts: &LocomoOptions,
    dream: &mut dyn FnMut(&DreamRequest) -> Result<(), String>,
) -> Result<EvalReport, EvalError> {
    if opts.every == Some(0) {
        return Err(EvalError::Usage("--every must be at least 1".into()));
    }
    let data = locomo::load(&opts.data)?;
    let chosen: Vec<&Sample> = if opts.samples.is_empty() {
        data.iter().collect()
    } else {
        let known: Vec<&str> = data.iter().map(|s| s.sample_id.as_str()).collect();
        if let Some(missing) = opts.samples.iter().find(|s| !known.contains(&s.as_str())) {
            return Err(EvalError::Usage(format!(
                "{missing} is not in {} (known: {})",
                opts.data.display(),
                known.join(", ")
            )));
        }
        data.iter().filter(|s| opts.samples.contains(&s.sample_id)).collect()
    };
    let mut dreams_run = 0;
    let mut transcript_bytes = 0u64;
    let mut dream_time = Duration::ZERO;
    for sample in &chosen {
        let sessions = locomo::write_sessions(sample, &opts.out)?;
        let base = opts.out.join(&sample.sample_id);
        let memory_dir = base.join("memory");
        if memory_dir.exists() {
            std::fs::remove_dir_all(&memory_dir)
                .map_err(|e| EvalError::Io { path: memory_dir.clone(), source: e })?;
        }
        std::fs::create_dir_all(&memory_dir)
            .map_err(|e| EvalError::Io { path: memory_dir.clone(), source: e })?;
        let points = dream_points(sessions.len(), opts.every);
        let mut previous: Option<(usize, Timestamp)> = None;
        for (k, &end) in points.iter().enumerate() {
            let from = previous.map_or(0, |(p, _)| p + 1);
            let request = DreamRequest {
                sample_id: sample.sample_id.clone(),
                memory_dir: memory_dir.clone(),
                sessions_dir: base.join("sessions"),
                sessions: sessions[from..=end].iter().map(|s| s.path.clone()).collect(),
                now: sessions[end].start,
                last_consolidated_at: previous.map(|(_, t)| t),
                dream: k + 1,
                dreams: points.len(),
            };
            transcript_bytes += sessions[from..=end].iter().map(|s| s.bytes).sum::<u64>();
            let started = Instant::now();
            dream(&request).map_err(|message| EvalError::Dream {
                sample_id: sample.sample_id.clone(),
                dream: k + 1,
                message,
            })?;
            dream_time += started.elapsed();
            dreams_run += 1;
            previous = Some((end, sessions[end].start));
        }
    }
    // Score: the specificity pool is every conversation of the data file plus references.
    let mut pool_samples: Vec<Sample> = data.clone();
    for r in &opts.references {
        for s in locomo::load(r)? {
            if !pool_samples.iter().any(|p| p.sample_id == s.sample_id) {
                pool_samples.push(s);
            }
        }
    }
    let pool_padded: Vec<(String, String)> =
        pool_samples.iter().map(|s| (s.sample_id.clone(), score::padded(&s.render_raw()))).collect();
    let mut per_sample = Vec::new();
    for sample in &chosen {
        let mut conv = Conversation::new(sample);
        let others: Vec<&str> =
            pool_padded.iter().filter(|(id, _)| *id != sample.sample_id).map(|(_, p)| p.as_str()).collect();
        conv.prepare(&others);
        let mem = Memory::read(&opts.out.join(&sample.sample_id).join("memory"));
        per_sample.push(score::score(&conv, &mem));
    }
    let pooled = score::pool(&per_sample);
    let secs = dream_time.as_secs_f64();
    Ok(EvalReport {
        data: opts.data.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
        mode: opts.every.map_or("one-shot".to_string(), |k| format!("every {k}")),
        dreams: dreams_run,
        pool: pool_samples.iter().map(|s| s.sample_id.clone()).collect(),
        pooled,
        per_sample,
        throughput: Throughput {
            transcript_bytes,
            dream_seconds: secs,
            mb_per_second: if secs > 0.0 { transcript_bytes as f64 / 1e6 / secs } else { 0.0 },
        },
    })
}

/// Indices of the sessions after which a dream runs.
pub fn dream_points(sessions: usize, every: Option<usize>) -> Vec<usize> {
    if sessions == 0 {
        return Vec::new();
    }
    let mut points: Vec<usize> = match every {
        Some(k) if k > 0 => (k..=sessions).step_by(k).map(|n| n - 1).collect(),
        _ => Vec::new(),
    };
    if points.last() != Some(&(sessions - 1)) {
        points.push(sessions - 1);
    }
    points
}

/// A dream runner that calls `engine` directly on the memory directory (no lock, no
/// staging copy): the sessions of the request are parsed as generic transcripts.
pub fn offline_dreamer<'a>(
    engine: &'a dyn Engine,
    config: &'a Config,
) -> impl FnMut(&DreamRequest) -> Result<(), String> + 'a {
    move |req: &DreamRequest| {
        let mut parsed = Vec::new();
        for path in &req.sessions {
            let file = session_file_for(path).map_err(|e| e.to_string())?;
            parsed.push(parse_session_file(&file, SessionFormat::Generic).map_err(|e| e.to_string())?);
        }
        let project = req.sessions_dir.parent().unwrap_or(&req.sessions_dir).to_path_buf();
        let ctx = DreamContext {
            staging: &req.memory_dir,
            memory_dir: &req.memory_dir,
            sessions_dir: &req.sessions_dir,
            project_dir: &project,
            sessions: &parsed,
            log_entries: &[],
            last_consolidated_at: req.last_consolidated_at,
            now: req.now,
            config,
            progress: &NullProgress,
            cancel: &CancelToken::new(),
        };
        engine.dream(&ctx).map(|_| ()).map_err(|e| e.to_string())
    }
}

fn cell(c: [u32; 2]) -> String {
    if c[1] == 0 {
        "n/a".to_string()
    } else {
        format!("{:.1} ({}/{})", 100.0 * f64::from(c[0]) / f64::from(c[1]), c[0], c[1])
    }
}

impl EvalReport {
    /// A Markdown table for people.
    pub fn render_table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# LoCoMo: {} ({} conversations, {}, {} dreams; specificity pool: {})\n",
            self.data,
            self.per_sample.len(),
            self.mode,
            self.dreams,
            self.pool.join(", ")
        );
        let _ = writeln!(
            out,
            "| sample | memory B | raw B | ratio | M1 c1 multi-hop | M1 c2 temporal | M1 c3 open-domain | M1 c4 single-hop | M1 specific | M1b scorable | M3 temporal | index ok | dangling | orphans |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        let row = |out: &mut String,
                   id: &str,
                   bytes: usize,
                   raw: usize,
                   ratio: f64,
                   counts: &score::CountSet,
                   ok: String,
                   dangling: usize,
                   orphans: usize| {
            let c = |k: &str| counts.m1_specific.get(k).copied().unwrap_or([0, 0]);
            let _ = writeln!(
                out,
                "| {id} | {bytes} | {raw} | {ratio:.3} | {} | {} | {} | {} | **{}** | {} | **{}** | {ok} | {dangling} | {orphans} |",
                cell(c("1")),
                cell(c("2")),
                cell(c("3")),
                cell(c("4")),
                cell(c("all")),
                cell(counts.m1_scorable.get("all").copied().unwrap_or([0, 0])),
                cell(counts.m3_temporal.get("all").copied().unwrap_or([0, 0])),
            );
        };
        for p in &self.per_sample {
            row(
                &mut out,
                &p.sample_id,
                p.summary.bytes,
                p.summary.raw_bytes,
                p.summary.ratio,
                &p.counts,
                if p.index_ok { "yes".into() } else { "NO".into() },
                p.index.dangling_lines,
                p.index.orphans.len(),
            );
        }
        let q = &self.pooled;
        row(
            &mut out,
            "pooled",
            q.summary.bytes,
            q.summary.raw_bytes,
            q.summary.ratio,
            &q.counts,
            format!("{}/{}", q.index_pass, q.samples),
            q.dangling_lines,
            q.orphans,
        );
        let _ = writeln!(out, "\nM3 by gold-answer kind (pooled):");
        for k in score::KINDS {
            let _ = writeln!(out, "- {k}: {}", cell(q.counts.m3_temporal.get(k).copied().unwrap_or([0, 0])));
        }
        let t = &self.throughput;
        let _ = writeln!(
            out,
            "\nDreams reviewed {} bytes of transcript in {:.3} s: {:.2} MB/s.",
            t.transcript_bytes, t.dream_seconds, t.mb_per_second
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dream_points_cover_every_k_and_the_last_session() {
        assert_eq!(dream_points(19, None), [18]);
        assert_eq!(dream_points(19, Some(5)), [4, 9, 14, 18]);
        assert_eq!(dream_points(10, Some(5)), [4, 9]);
        assert_eq!(dream_points(3, Some(5)), [2]);
        assert!(dream_points(0, Some(5)).is_empty());
    }
}
