//! The tool-use loop: ask the model, run the tools it calls, give it the results, until it
//! stops — or the turn limit, the token budget or a cancellation ends the dream.
//!
//! Every assistant message is reported to the progress sink (its joined text, how many tools
//! it called, which memory files those calls wrote) and the running token totals after every
//! response; every sandbox refusal is reported as a denial. A cancellation is noticed within
//! one poll interval and drops the in-flight HTTP request (or command) at once.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use autodream_core::engine::{EngineError, ProgressSink, TokenUsage};

use super::providers::retry::{RetryNotice, send_with_retries};
use super::providers::{Block, ChatRequest, Message, Provider, RetryPolicy, Speaker, StopReason};
use super::tools::ToolBox;
use crate::prompt::{Prompt, approx_tokens};

/// Output tokens below which another turn is not worth starting.
const MIN_TURN_OUTPUT_TOKENS: u64 = 256;

/// The loop's limits.
#[derive(Debug, Clone, Copy)]
pub struct LoopSettings {
    /// Assistant messages at most.
    pub max_turns: u32,
    /// Tokens (input, output and cache, all counted) the dream may spend; 0 = no limit.
    pub max_tokens_per_dream: u64,
    pub max_output_tokens: u32,
    pub retry: RetryPolicy,
    /// How often the cancellation flag is checked while waiting.
    pub cancel_poll: Duration,
}

/// How the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopEnd {
    /// The model finished on its own.
    Finished,
    /// `max_turns` assistant messages were used.
    MaxTurns,
    /// The token budget was reached.
    Budget,
}

/// What the loop did.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopReport {
    pub end: LoopEnd,
    /// The model's last text (its summary when it finished).
    pub final_text: String,
    pub turns: u32,
    pub tool_uses: u64,
    pub usage: TokenUsage,
    pub denials: u64,
    pub redactions: usize,
    /// Memory files written, relative to the memory dir.
    pub touched: BTreeSet<PathBuf>,
    /// Retries of failed requests.
    pub retries: u32,
    /// Bash calls (the Landlock note matters only when there were some).
    pub bash_uses: u64,
}

/// Resolves when `flag` is set (checked every `poll`).
async fn cancelled(flag: &AtomicBool, poll: Duration) {
    while !flag.load(Ordering::SeqCst) {
        tokio::time::sleep(poll).await;
    }
}

/// Runs the dream conversation to its end.
pub async fn run_loop(
    provider: &Provider,
    tools: &ToolBox,
    prompt: &Prompt,
    settings: LoopSettings,
    progress: &dyn ProgressSink,
    cancel: Arc<AtomicBool>,
) -> Result<LoopReport, EngineError> {
    let specs = tools.specs();
    let mut messages = vec![Message::user_text(prompt.task.clone())];
    let mut report = LoopReport {
        end: LoopEnd::Finished,
        final_text: String::new(),
        turns: 0,
        tool_uses: 0,
        usage: TokenUsage::default(),
        denials: 0,
        redactions: prompt.redactions,
        touched: BTreeSet::new(),
        retries: 0,
        bash_uses: 0,
    };
    let budget = settings.max_tokens_per_dream;
    // Prompt size of the last request, as the provider counted it, plus what was added since.
    let mut next_prompt_estimate = (approx_tokens(&prompt.system) + approx_tokens(&prompt.task)) as u64;

    loop {
        if cancel.load(Ordering::SeqCst) {
            return Err(EngineError::Cancelled);
        }
        if report.turns >= settings.max_turns {
            report.end = LoopEnd::MaxTurns;
            break;
        }
        let mut max_output = u64::from(settings.max_output_tokens);
        if budget > 0 {
            let left = budget.saturating_sub(report.usage.total()).saturating_sub(next_prompt_estimate);
            if left < MIN_TURN_OUTPUT_TOKENS.min(max_output) {
                report.end = LoopEnd::Budget;
                break;
            }
            max_output = max_output.min(left);
        }
        let request = ChatRequest {
            system: &prompt.system,
            tools: &specs,
            messages: &messages,
            max_output_tokens: max_output as u32,
        };
        let mut retries = 0u32;
        let send =
            send_with_retries(provider, &request, settings.retry, |_notice: &RetryNotice| retries += 1);
        let response = tokio::select! {
            biased;
            _ = cancelled(&cancel, settings.cancel_poll) => return Err(EngineError::Cancelled),
            result = send => result,
        };
        report.retries += retries;
        let response =
            response.map_err(|e| EngineError::Provider(format!("{} provider: {e}", provider.name())))?;
        report.turns += 1;
        report.usage.add(response.usage);
        progress.tokens(report.usage);
        next_prompt_estimate = response.usage.input
            + response.usage.cache_read
            + response.usage.cache_write
            + response.usage.output;

        let text: Vec<&str> = response
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Text(t) => Some(t.trim()),
                _ => None,
            })
            .filter(|t| !t.is_empty())
            .collect();
        let text = text.join("\n");
        let calls: Vec<(String, String, serde_json::Value)> = response
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::ToolUse { id, name, input } => Some((id.clone(), name.clone(), input.clone())),
                _ => None,
            })
            .collect();
        if !text.is_empty() {
            report.final_text = text.clone();
        }
        messages.push(Message { speaker: Speaker::Assistant, blocks: response.blocks.clone() });

        if calls.is_empty() {
            progress.turn(&text, 0, &[]);
            // No tool calls: the model is done (a reply cut at max tokens ends it too).
            if response.stop == StopReason::MaxTokens && report.final_text.is_empty() {
                report.final_text = "(the model's reply was cut off at the output limit)".into();
            }
            report.end = LoopEnd::Finished;
            break;
        }

        let mut results = Vec::with_capacity(calls.len());
        let mut touched_now = Vec::new();
        for (id, name, input) in &calls {
            report.tool_uses += 1;
            if name == "Bash" {
                report.bash_uses += 1;
            }
            let outcome = tokio::select! {
                biased;
                _ = cancelled(&cancel, settings.cancel_poll) => return Err(EngineError::Cancelled),
                outcome = tools.run(name, input) => outcome,
            };
            if let Some(reason) = &outcome.denied {
                report.denials += 1;
                progress.denial(reason);
            }
            report.redactions += outcome.redactions;
            if let Some(path) = outcome.wrote {
                if !touched_now.contains(&path) {
                    touched_now.push(path.clone());
                }
                report.touched.insert(path);
            }
            let content = if outcome.content.is_empty() { "(empty)".to_string() } else { outcome.content };
            next_prompt_estimate += approx_tokens(&content) as u64;
            results.push(Block::ToolResult { tool_use_id: id.clone(), content, is_error: outcome.is_error });
        }
        progress.turn(&text, calls.len() as u32, &touched_now);
        messages.push(Message { speaker: Speaker::User, blocks: results });

        if budget > 0 && report.usage.total() >= budget {
            report.end = LoopEnd::Budget;
            break;
        }
    }
    Ok(report)
}
