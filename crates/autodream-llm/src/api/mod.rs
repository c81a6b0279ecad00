//! The `api` engine: a model driven through an HTTP API (the Anthropic Messages API or an
//! OpenAI-compatible Chat Completions API) with our own tools, in our sandbox.
//!
//! The dream is what the design describes: a model that orients itself in the memory dir,
//! gathers recent signal (daily logs first, then memories that drifted, then narrow searches
//! of the transcripts), consolidates, and prunes the index.
//!
//! - [`providers`]: our own thin clients for both APIs (OpenAI, Ollama, vLLM, llama.cpp),
//!   with retries.
//! - [`tools`]: Read, Grep, Glob, List, Edit, Write and a read-only Bash, in Rust, every path
//!   through [`crate::sandbox`].
//! - [`prompt`]: this engine's tools section of the shared prompt.
//! - [`tool_loop`]: the conversation: ask, run the tools called, answer, until done.
//!
//! [`ApiEngine`] ties them together behind [`autodream_core::engine::Engine`]. It is named
//! `api`; `agent`, its earlier name, is accepted as the same engine and shown as configured.

pub mod prompt;
pub mod providers;
pub mod tool_loop;
pub mod tools;

use std::path::{Path, PathBuf};
use std::time::Duration;

use autodream_core::dream::cost::estimate_usd;
use autodream_core::engine::{DreamContext, Engine, EngineError, EngineSummary};

use crate::sandbox::{Sandbox, SandboxRoots, landlock_status};
use crate::shared::{EnvLookup, MAX_SUMMARY_CHARS, archived_facts, cap_chars, process_env};
use providers::{Provider, RetryPolicy};
use tool_loop::{LoopEnd, LoopReport, LoopSettings, run_loop};
use tools::{BashSettings, ToolBox};

/// The engine's name.
pub const NAME: &str = "api";
/// The name it had before, still accepted in the configuration and on the command line.
pub const FORMER_NAME: &str = "agent";

/// Which binary Bash uses to restrict its children with Landlock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launcher {
    /// The running executable (the `autodream` binary, which has `__sandbox-exec`).
    CurrentExe,
    /// Another binary that dispatches `__sandbox-exec` to [`crate::sandbox_exec_main`].
    Path(PathBuf),
    /// Run programs directly (in-process checks only).
    Disabled,
}

/// Knobs that are not user configuration.
#[derive(Clone)]
pub struct ApiOptions {
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

impl Default for ApiOptions {
    fn default() -> Self {
        ApiOptions {
            launcher: Launcher::CurrentExe,
            env: process_env(),
            retry_base_delay: Duration::from_millis(500),
            retry_max_delay: Duration::from_secs(60),
            cancel_poll: Duration::from_millis(50),
            bash_timeout: Duration::from_secs(20),
        }
    }
}

/// The API engine (`--engine api`, or `agent`).
#[derive(Clone)]
pub struct ApiEngine {
    pub options: ApiOptions,
    /// The name the engine reports (task, history, cost ledger): the one it was chosen by.
    name: &'static str,
}

impl Default for ApiEngine {
    fn default() -> Self {
        ApiEngine::with_options(ApiOptions::default())
    }
}

impl ApiEngine {
    pub fn new() -> ApiEngine {
        ApiEngine::default()
    }

    pub fn with_options(options: ApiOptions) -> ApiEngine {
        ApiEngine { options, name: NAME }
    }

    /// The same engine reporting `name`: [`NAME`] or [`FORMER_NAME`], as the user chose it.
    pub fn named(mut self, name: &'static str) -> ApiEngine {
        self.name = name;
        self
    }

    fn launcher_path(&self) -> Option<PathBuf> {
        match &self.options.launcher {
            Launcher::CurrentExe => std::env::current_exe().ok(),
            Launcher::Path(path) => Some(path.clone()),
            Launcher::Disabled => None,
        }
    }

    /// The tools of one dream, behind a sandbox over its folders.
    fn toolbox(&self, ctx: &DreamContext<'_>, project_dir: Option<&Path>) -> Result<ToolBox, EngineError> {
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
        Ok(tools)
    }

    /// The project dir when the configuration lets the model read it and it exists.
    fn project_dir<'a>(ctx: &DreamContext<'a>, notes: &mut Vec<String>) -> Option<&'a Path> {
        if !ctx.config.agent.read_project {
            return None;
        }
        if ctx.project_dir.is_dir() {
            return Some(ctx.project_dir);
        }
        notes.push(format!(
            "the project dir {} does not exist; it was not readable",
            ctx.project_dir.display()
        ));
        None
    }

    fn loop_settings(&self, ctx: &DreamContext<'_>) -> LoopSettings {
        let agent = &ctx.config.agent;
        LoopSettings {
            max_turns: agent.max_turns.max(1),
            max_tokens_per_dream: agent.max_tokens_per_dream,
            max_output_tokens: agent.max_output_tokens.max(1),
            retry: RetryPolicy {
                max_retries: agent.max_retries,
                base_delay: self.options.retry_base_delay,
                max_delay: self.options.retry_max_delay,
            },
            cancel_poll: self.options.cancel_poll,
        }
    }
}

impl Engine for ApiEngine {
    fn name(&self) -> &'static str {
        self.name
    }

    fn dream(&self, ctx: &DreamContext<'_>) -> Result<EngineSummary, EngineError> {
        ctx.cancel.check()?;
        let env = self.options.env.clone();
        let provider = Provider::from_config(&ctx.config.agent, &move |name| env(name))
            .map_err(|e| EngineError::Config(e.0))?;
        let mut notes = Vec::new();
        let project_dir = Self::project_dir(ctx, &mut notes);
        let tools = self.toolbox(ctx, project_dir)?;
        let prompt = prompt::api_prompt(ctx, project_dir);

        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| EngineError::Other(format!("cannot start the async runtime: {e}")))?;
        let report = runtime.block_on(run_loop(
            &provider,
            &tools,
            &prompt,
            self.loop_settings(ctx),
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
        cap_chars(report.final_text.trim().to_string(), MAX_SUMMARY_CHARS, "summary cut")
    };
    EngineSummary {
        text,
        archived_facts: archived_facts(&report.touched, ctx.staging, ctx.memory_dir),
        redactions: report.redactions,
        tool_uses: report.tool_uses,
        tokens: report.usage,
        cost_usd: Some(estimate_usd(&report.usage, agent)),
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engine_reports_the_name_it_was_chosen_by() {
        assert_eq!(ApiEngine::default().name(), "api");
        assert_eq!(ApiEngine::default().named(FORMER_NAME).name(), "agent");
    }

    /// The engine's cost is the ledger's one formula: each price per million tokens.
    #[test]
    fn the_cost_uses_each_price_per_million() {
        use autodream_core::config::AgentConfig;
        use autodream_core::engine::TokenUsage;
        let prices = AgentConfig {
            price_input: 3.0,
            price_output: 15.0,
            price_cache_read: 0.3,
            price_cache_write: 3.75,
            ..AgentConfig::default()
        };
        let usage =
            TokenUsage { input: 1_000_000, output: 100_000, cache_read: 2_000_000, cache_write: 400_000 };
        let cost = estimate_usd(&usage, &prices);
        assert!((cost - (3.0 + 1.5 + 0.6 + 1.5)).abs() < 1e-9, "{cost}");
    }
}
