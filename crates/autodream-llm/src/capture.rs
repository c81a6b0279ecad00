//! Per-turn capture with a language model (configured as `extract = "agent"`): after each
//! turn of a session, the offline rules cut the transcript into turns and pick the user's
//! sentences; the model chooses which of them will still matter in later sessions, and those
//! are captured in the daily log. ("Capture" is this per-turn step; "extract" in this crate's
//! vocabulary is only LoCoMo-style fact extraction.) The model is reached through the API
//! engine's providers, with the `agent` settings.
//!
//! The room is small on purpose:
//! - **The model writes nothing.** Each request carries no tools; the model answers with a
//!   JSON array of sentences, and only our code appends them to the daily log, through the
//!   same bookkeeping as the offline rules (one write per turn, the offset moved after it).
//! - **The model may only choose, not invent.** An answer is kept only when at least half
//!   of its words are in one of the user's sentences of that turn; it is redacted, and
//!   dropped when memory or the logs already hold it.
//! - **A small budget.** One request per turn with user sentences, at most
//!   `extract_max_tokens` output tokens; once a run used eight times that many tokens in
//!   all, the remaining turns are judged by the offline rules.
//! - **Never a failed capture.** No key, a network error, a refusal or an answer that is
//!   not a JSON array: that turn gets the offline verdict, and the reason is noted once
//!   ([`LlmCapture::notes`]) for the caller to log.

use std::collections::HashSet;

use autodream_core::capture::{CaptureError, CaptureRules, Chunk, Emit, FoundTurn};
use autodream_core::config::Config;
use autodream_core::engine::TokenUsage;
use autodream_core::memdir::daily_log;
use autodream_offline::coding::said::Said;
use autodream_offline::extract_turns::OfflineExtractor;

use crate::api::providers::{Block, ChatRequest, Message, Provider};

/// How many times `extract_max_tokens` one run may use in all.
pub const RUN_BUDGET_FACTOR: u64 = 8;

/// What the model is told.
pub const SYSTEM_PROMPT: &str = "\
You pick what is worth remembering from one turn of a coding session. You get the sentences \
the user wrote in that turn. Keep only statements that will still matter in later sessions: \
standing rules and preferences, corrections, facts about the project, people and who owns \
what, decisions, dates ahead, and where things live. Leave out one-off requests, questions, \
status updates, chatter and anything holding a secret. Answer with a JSON array of strings \
and nothing else. Each string is one self-contained sentence made only of the user's own \
words; do not add facts. The array may be empty.";

/// Per-turn capture by the model (see the module docs); the offline rules stand in when it
/// cannot be asked.
pub struct LlmCapture {
    offline: OfflineExtractor,
    /// The model, or why it cannot be asked (no key, no runtime): then the offline rules
    /// decide.
    model: Result<(Provider, tokio::runtime::Runtime), String>,
    max_output_tokens: u32,
    budget: u64,
    usage: TokenUsage,
    requests: usize,
    fallbacks: usize,
    notes: Vec<String>,
}

impl LlmCapture {
    /// The model named by `config.agent` (the key read through `env`), over `offline`'s
    /// turns and comparison. When the provider cannot be built, every turn gets the offline
    /// verdict and the reason is noted (when a turn needed the model).
    pub fn new(
        offline: OfflineExtractor,
        config: &Config,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> LlmCapture {
        let model = match Provider::from_config(&config.agent, env) {
            Ok(provider) => match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(runtime) => Ok((provider, runtime)),
                Err(e) => Err(format!("cannot start the async runtime ({e}); the offline rules extract")),
            },
            Err(e) => Err(format!("extract = \"agent\": {e}; the offline rules extract")),
        };
        LlmCapture {
            offline,
            model,
            max_output_tokens: config.extract_max_tokens.max(16),
            budget: u64::from(config.extract_max_tokens) * RUN_BUDGET_FACTOR,
            usage: TokenUsage::default(),
            requests: 0,
            fallbacks: 0,
            notes: Vec::new(),
        }
    }

    /// The tokens the model used in this run.
    pub fn usage(&self) -> TokenUsage {
        self.usage
    }

    /// Requests sent to the model.
    pub fn requests(&self) -> usize {
        self.requests
    }

    /// Turns with user sentences that the offline rules judged instead of the model.
    pub fn fallbacks(&self) -> usize {
        self.fallbacks
    }

    /// Why the offline rules stood in for the model in this run, each reason once.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    fn note(&mut self, text: String) {
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    /// The entries of one turn: the model's choice, or the offline verdict when it cannot
    /// be asked or fails.
    fn entries(&mut self, sentences: &[Said]) -> Vec<String> {
        if sentences.is_empty() {
            return Vec::new();
        }
        let model = match &self.model {
            Ok(model) => model,
            Err(reason) => {
                let reason = reason.clone();
                return self.fall_back(reason, sentences);
            }
        };
        if self.usage.total() >= self.budget {
            let reason = format!(
                "the run used {} tokens (extract_max_tokens × {RUN_BUDGET_FACTOR}): the offline rules judged the remaining turns",
                self.usage.total()
            );
            return self.fall_back(reason, sentences);
        }
        let candidates: Vec<String> = sentences
            .iter()
            .map(|s| autodream_core::redact::redact(&daily_log::fold_line(&s.text)).text.into_owned())
            .collect();
        let (usage, answer) = ask(model, &candidates, self.max_output_tokens);
        self.requests += 1;
        self.usage.add(usage);
        match answer {
            Ok(chosen) => self.keep(&candidates, chosen),
            Err(reason) => self.fall_back(
                format!("the model failed ({reason}): the offline rules judged the turn"),
                sentences,
            ),
        }
    }

    /// The offline verdict on a turn the model does not judge, and why (noted once).
    fn fall_back(&mut self, reason: String, sentences: &[Said]) -> Vec<String> {
        self.note(reason);
        self.fallbacks += 1;
        self.offline.verdict(sentences)
    }

    /// The chosen sentences that come from the candidates, redacted, not known yet.
    fn keep(&mut self, candidates: &[String], chosen: Vec<String>) -> Vec<String> {
        let mut out = Vec::new();
        for sentence in chosen {
            let text = daily_log::fold_line(&autodream_core::redact::redact(&sentence).text);
            if text.is_empty() || !candidates.iter().any(|c| derived_from(&text, c)) {
                continue;
            }
            if self.offline.holds(&text) {
                continue;
            }
            self.offline.remember(&text);
            out.push(text);
        }
        out
    }
}

/// One request without tools: the candidates in, the tokens used and the chosen sentences
/// out.
fn ask(
    (provider, runtime): &(Provider, tokio::runtime::Runtime),
    candidates: &[String],
    max_output_tokens: u32,
) -> (TokenUsage, Result<Vec<String>, String>) {
    let listed: String = candidates.iter().map(|c| format!("- {c}\n")).collect();
    let messages = [Message::user_text(format!("The user's sentences in this turn:\n{listed}"))];
    let request = ChatRequest { system: SYSTEM_PROMPT, tools: &[], messages: &messages, max_output_tokens };
    let response = match runtime.block_on(provider.send_once(&request)) {
        Ok(response) => response,
        Err(e) => return (TokenUsage::default(), Err(e.to_string())),
    };
    let text: String = response
        .blocks
        .iter()
        .filter_map(|b| if let Block::Text(t) = b { Some(t.as_str()) } else { None })
        .collect();
    let chosen = parse_answer(&text).ok_or_else(|| "its answer is not a JSON array of strings".to_string());
    (response.usage, chosen)
}

impl CaptureRules for LlmCapture {
    fn extract(&mut self, chunk: &Chunk<'_>, emit: &mut Emit<'_>) -> Result<u64, CaptureError> {
        let (turns, resume_at) = self.offline.cut(chunk);
        for turn in turns {
            let entries = self.entries(&turn.sentences);
            emit(FoundTurn { end: turn.end, entries })?;
        }
        Ok(resume_at)
    }
}

/// The JSON array of strings in a model's answer (a code fence or words around it are
/// ignored).
pub fn parse_answer(text: &str) -> Option<Vec<String>> {
    let start = text.find('[')?;
    let end = text.rfind(']')?;
    if end < start {
        return None;
    }
    serde_json::from_str(&text[start..=end]).ok()
}

/// The words of `text`, lowercased: runs of letters and digits, each CJK character apart.
fn words(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut word = String::new();
    for c in text.chars() {
        if autodream_offline::text::is_cjk(c) {
            if !word.is_empty() {
                out.insert(std::mem::take(&mut word));
            }
            out.insert(c.to_string());
        } else if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else if !word.is_empty() {
            out.insert(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.insert(word);
    }
    out
}

/// Are at least half of `sentence`'s words in `candidate`?
pub fn derived_from(sentence: &str, candidate: &str) -> bool {
    let mine = words(sentence);
    if mine.is_empty() {
        return false;
    }
    let theirs = words(candidate);
    let common = mine.iter().filter(|w| theirs.contains(*w)).count();
    common * 2 >= mine.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_the_json_array_in_the_text() {
        assert_eq!(parse_answer("```json\n[\"a b\", \"c\"]\n```"), Some(vec!["a b".into(), "c".into()]));
        assert_eq!(parse_answer("[]"), Some(vec![]));
        assert_eq!(parse_answer("Nothing worth keeping."), None);
        assert_eq!(parse_answer("[1, 2]"), None);
    }

    #[test]
    fn a_sentence_is_derived_when_half_its_words_are_the_users() {
        let said = "We use pnpm in this repo, never npm.";
        assert!(derived_from("The repo uses pnpm, never npm.", said));
        assert!(!derived_from("Deploys happen on Tuesdays at noon.", said));
        assert!(derived_from("部署在周二", "我们的部署在周二进行"));
        assert!(!derived_from("...", said));
    }
}
