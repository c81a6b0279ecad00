//! autodream-agent: the LLM dream engine.
//!
//! With a language model the dream is what the design describes: a sub-agent that orients
//! itself in the memory dir, gathers recent signal (daily logs first, then memories that
//! drifted, then narrow searches of the transcripts), consolidates, and prunes the index.
//!
//! - [`providers`]: our own thin clients for the Anthropic Messages API and the
//!   OpenAI-compatible Chat Completions API (OpenAI, Ollama, vLLM, llama.cpp), with retries.
//! - [`tools`]: Read, Grep, Glob, List, Edit, Write and a read-only Bash, in Rust.
//! - [`sandbox`]: the path resolver every tool goes through; writes land in the staging copy.
//! - [`landlock`]: the restricted exec behind Bash (`autodream __sandbox-exec`).
//! - [`prompt`]: the four-phase prompt; [`agent_loop`]: the conversation loop.
//!
//! [`AgentEngine`] ties them together behind [`autodream_core::engine::Engine`].

pub mod agent_loop;
pub mod claude_cli;
pub mod extract;
pub mod landlock;
pub mod prompt;
pub mod providers;
mod redaction;
pub mod sandbox;
pub mod tools;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use autodream_core::config::AgentConfig;
use autodream_core::engine::{DreamContext, Engine, EngineError, EngineSummary, TokenUsage};

use crate::agent_loop::{LoopEnd, LoopReport, LoopSettings, run_loop};
use crate::prompt::{PromptInputs, build_prompt};
use crate::providers::{Provider, RetryPolicy};
use crate::sandbox::{Sandbox, SandboxRoots};
use crate::tools::{BashSettings, ToolBox};

pub use crate::claude_cli::{ClaudeEngine, ClaudeOptions};
pub use crate::landlock::{LandlockStatus, landlock_status, sandbox_exec_main};

/// Reads an environment variable (injectable so tests need not touch the process environment).
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Which binary Bash uses to restrict its children with Landlock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launcher {
    /// The running executable (the `autodream` binary, which has `__sandbox-exec`).
    CurrentExe,
    /// Another binary that dispatches `__sandbox-exec` to [`sandbox_exec_main`].
    Path(PathBuf),
    /// Run programs directly (in-process checks only).
    Disabled,
}

/// Knobs that are not user configuration.
#[derive(Clone)]
pub struct AgentOptions {
    pub launcher: Launcher,
    pub env: EnvLookup,
    /// The first retry backoff step (doubles each retry).
    pub retry_base_delay: Duration,
    /// The longest single backoff wait.
    pub retry_max_delay: Duration,
    /// How often cancellation is checked while a request is in flight.
    pub cancel_poll: Duration,
    /// Longest a Bash command may run.
    pub bash_timeout: Duration,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            launcher: Launcher::CurrentExe,
            env: Arc::new(|name| std::env::var(name).ok()),
            retry_base_delay: Duration::from_millis(500),
            retry_max_delay: Duration::from_secs(60),
            cancel_poll: Duration::from_millis(50),
            bash_timeout: Duration::from_secs(20),
        }
    }
}

/// The LLM engine (`--engine agent`).
#[derive(Clone, Default)]
pub struct AgentEngine {
    pub options: AgentOptions,
}

impl AgentEngine {
    pub fn new() -> AgentEngine {
        AgentEngine::default()
    }

    pub fn with_options(options: AgentOptions) -> AgentEngine {
        AgentEngine { options }
    }

    fn launcher_path(&self) -> Option<PathBuf> {
        match &self.options.launcher {
            Launcher::CurrentExe => std::env::current_exe().ok(),
            Launcher::Path(path) => Some(path.clone()),
            Launcher::Disabled => None,
        }
    }
}

/// The estimated cost in US dollars of `usage` at the configured prices (per million tokens).
pub fn estimate_cost(usage: &TokenUsage, config: &AgentConfig) -> f64 {
    (usage.input as f64 * config.price_input
        + usage.output as f64 * config.price_output
        + usage.cache_read as f64 * config.price_cache_read
        + usage.cache_write as f64 * config.price_cache_write)
        / 1_000_000.0
}

impl Engine for AgentEngine {
    fn name(&self) -> &'static str {
        "agent"
    }

    fn dream(&self, ctx: &DreamContext<'_>) -> Result<EngineSummary, EngineError> {
        ctx.cancel.check()?;
        let agent = &ctx.config.agent;
        let env = self.options.env.clone();
        let provider =
            Provider::from_config(agent, &move |name| env(name)).map_err(|e| EngineError::Config(e.0))?;

        let mut notes = Vec::new();
        let project_dir = if agent.read_project {
            if ctx.project_dir.is_dir() {
                Some(ctx.project_dir)
            } else {
                notes.push(format!(
                    "the project dir {} does not exist; it was not readable",
                    ctx.project_dir.display()
                ));
                None
            }
        } else {
            None
        };
        let sandbox = Sandbox::new(SandboxRoots {
            memory_dir: ctx.memory_dir,
            staging: ctx.staging,
            sessions_dir: ctx.sessions_dir,
            project_dir,
        })
        .map_err(|e| EngineError::Config(e.to_string()))?;
        let bash = BashSettings {
            launcher: self.launcher_path(),
            timeout: self.options.bash_timeout,
            ..BashSettings::default()
        };
        let mut tools = ToolBox::new(sandbox, bash);
        tools.sessions_format = ctx.config.sessions_format;
        tools.cancel = ctx.cancel.flag();

        let prompt = build_prompt(&PromptInputs::of_dream(ctx, ctx.memory_dir, project_dir));
        let settings = LoopSettings {
            max_turns: agent.max_turns.max(1),
            max_tokens_per_dream: agent.max_tokens_per_dream,
            max_output_tokens: agent.max_output_tokens.max(1),
            retry: RetryPolicy {
                max_retries: agent.max_retries,
                base_delay: self.options.retry_base_delay,
                max_delay: self.options.retry_max_delay,
            },
            cancel_poll: self.options.cancel_poll,
        };

        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| EngineError::Other(format!("cannot start the async runtime: {e}")))?;
        let report = runtime.block_on(run_loop(
            &provider,
            &tools,
            &prompt,
            settings,
            ctx.progress,
            ctx.cancel.flag(),
        ))?;
        Ok(summarise(report, ctx, &tools, notes))
    }
}

/// The engine summary for a finished loop.
fn summarise(
    report: LoopReport,
    ctx: &DreamContext<'_>,
    tools: &ToolBox,
    mut notes: Vec<String>,
) -> EngineSummary {
    let agent = &ctx.config.agent;
    match report.end {
        LoopEnd::Finished => {}
        LoopEnd::Budget => notes.push(format!(
            "stopped at the token budget ({} of {} tokens, agent.max_tokens_per_dream); the changes made so far are kept",
            report.usage.total(),
            agent.max_tokens_per_dream
        )),
        LoopEnd::MaxTurns => notes.push(format!(
            "stopped after {} turns (agent.max_turns); the changes made so far are kept",
            report.turns
        )),
    }
    if report.denials > 0 {
        notes.push(format!("{} tool call(s) refused by the sandbox", report.denials));
    }
    if report.retries > 0 {
        notes.push(format!("{} request(s) retried after transient provider errors", report.retries));
    }
    let landlock = landlock_status();
    if report.bash_uses > 0 && (!landlock.is_available() || tools.bash.launcher.is_none()) {
        notes.push(format!("{landlock}; Bash relied on its in-process checks"));
    }
    let text = if report.final_text.trim().is_empty() {
        format!("The agent changed {} file(s) and gave no summary.", report.touched.len())
    } else {
        tools::cap_chars(report.final_text.trim().to_string(), 2_000, "summary cut")
    };
    EngineSummary {
        text,
        archived_facts: archived_facts(&report.touched, ctx.staging, ctx.memory_dir),
        redactions: report.redactions,
        tool_uses: report.tool_uses,
        tokens: report.usage,
        cost_usd: Some(estimate_cost(&report.usage, agent)),
        notes,
    }
}

/// Headings under which the prompt tells the model to keep contradicted facts.
const ARCHIVE_HEADINGS: &[&str] = &["superseded", "archive", "archived"];

/// Bullets the dream moved into archive sections: per touched file, the archived bullets in
/// staging minus those the real file already had. Validation lets files shrink by this much.
pub(crate) fn archived_facts(
    touched: &std::collections::BTreeSet<PathBuf>,
    staging: &Path,
    memory_dir: &Path,
) -> usize {
    touched
        .iter()
        .map(|rel| {
            let after = std::fs::read_to_string(staging.join(rel)).map(|t| count_archived(&t)).unwrap_or(0);
            let before =
                std::fs::read_to_string(memory_dir.join(rel)).map(|t| count_archived(&t)).unwrap_or(0);
            after.saturating_sub(before)
        })
        .sum()
}

/// Top-level bullets under an archive heading (`## Superseded`, `## Archive`).
pub fn count_archived(text: &str) -> usize {
    let mut in_archive = false;
    let mut count = 0;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("#") {
            let title = heading.trim_start_matches('#').trim().to_ascii_lowercase();
            in_archive = ARCHIVE_HEADINGS.iter().any(|h| title.starts_with(h));
            continue;
        }
        if in_archive && (line.starts_with("- ") || line.starts_with("* ")) {
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_uses_each_price_per_million() {
        let config = AgentConfig {
            price_input: 3.0,
            price_output: 15.0,
            price_cache_read: 0.3,
            price_cache_write: 3.75,
            ..AgentConfig::default()
        };
        let usage =
            TokenUsage { input: 1_000_000, output: 100_000, cache_read: 2_000_000, cache_write: 400_000 };
        let cost = estimate_cost(&usage, &config);
        assert!((cost - (3.0 + 1.5 + 0.6 + 1.5)).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn archived_bullets_are_counted_under_archive_headings_only() {
        let text = "---\nname: x\n---\n- live fact\n## Superseded\n- old one (2026-01-01)\n  **Why:** x\n- old two\n## Notes\n- not archived\n";
        assert_eq!(count_archived(text), 2);
        assert_eq!(count_archived("- a\n- b\n"), 0);
    }
}
