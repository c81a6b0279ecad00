//! Thin clients for the two wire formats the API engine speaks: the Anthropic Messages API
//! and the OpenAI-compatible Chat Completions API (OpenAI, Ollama, vLLM, llama.cpp server).
//!
//! The loop talks to one provider-neutral conversation ([`Message`], [`Block`]); each client
//! translates it to its wire format and back, reports token usage, and classifies failures so
//! [`retry`] can decide what to try again. API keys are read from the environment by the
//! caller and kept only in memory: they never appear in errors, logs or `Debug` output.
//! The HTTP plumbing both clients share (the `reqwest` client, the endpoint URL, the key
//! header, one POST) is in the private `http` module.

pub mod anthropic;
mod http;
pub mod openai;
pub mod retry;

use std::time::Duration;

use autodream_core::config::AgentConfig;
use autodream_core::engine::TokenUsage;
use serde_json::Value;

pub use retry::RetryPolicy;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    User,
    Assistant,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    /// A tool call from the model. `input` is the parsed arguments; when the model sent
    /// arguments that are not JSON, `input` is `Value::String` holding the raw text, and the
    /// tool layer answers with an error result.
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    /// Our answer to a tool call.
    ToolResult {
        tool_use_id: String,
        content: String,
        is_error: bool,
    },
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub speaker: Speaker,
    pub blocks: Vec<Block>,
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Message {
        Message { speaker: Speaker::User, blocks: vec![Block::Text(text.into())] }
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: String,
    /// JSON Schema of the input object.
    pub input_schema: Value,
}

/// One request: everything needed to produce the next assistant message.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    pub system: &'a str,
    pub tools: &'a [ToolSpec],
    pub messages: &'a [Message],
    pub max_output_tokens: u32,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// Finished its answer.
    EndTurn,
    /// Wants tool results.
    ToolUse,
    /// Hit `max_output_tokens`.
    MaxTokens,
    Other(String),
}

/// The assistant's reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    pub blocks: Vec<Block>,
    pub stop: StopReason,
    pub usage: TokenUsage,
}

/// What went wrong talking to a provider.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// 401/403: the key is missing, wrong or lacks permission.
    #[error("{0}")]
    Auth(String),
    /// 404: wrong model name or base URL.
    #[error("{0}")]
    NotFound(String),
    /// 429 (not a quota exhaustion): retried.
    #[error("rate limited by the provider (HTTP 429): {message}")]
    RateLimited { message: String, retry_after: Option<Duration> },
    /// 5xx, 529, or an `overloaded` error body: retried.
    #[error("the provider failed (HTTP {status}): {message}")]
    Server { status: u16, message: String, retry_after: Option<Duration> },
    /// Could not connect, connection reset, or no answer within the request timeout: retried.
    #[error("cannot reach the provider: {0}")]
    Network(String),
    /// Any other refusal (400, quota exhausted, …): not retried.
    #[error("the provider refused the request (HTTP {status}): {message}")]
    Rejected { status: u16, message: String },
    /// The answer was not in the documented shape.
    #[error("unexpected answer from the provider: {0}")]
    Decode(String),
}

impl ProviderError {
    /// Whether trying again may help.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ProviderError::RateLimited { .. } | ProviderError::Server { .. } | ProviderError::Network(_)
        )
    }

    /// How long the provider asked us to wait.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::RateLimited { retry_after, .. } | ProviderError::Server { retry_after, .. } => {
                *retry_after
            }
            _ => None,
        }
    }
}

/// Settings common to both clients.
#[derive(Clone)]
pub struct ClientSettings {
    pub model: String,
    pub base_url: Option<String>,
    /// The key itself (never printed).
    pub api_key: Option<String>,
    /// The name of the variable the key came from, for error messages.
    pub api_key_env: String,
    pub request_timeout: Duration,
}

impl std::fmt::Debug for ClientSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSettings")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("api_key_env", &self.api_key_env)
            .field("request_timeout", &self.request_timeout)
            .finish()
    }
}

/// A configured client for one of the supported APIs.
#[derive(Debug, Clone)]
pub enum Provider {
    Anthropic(anthropic::AnthropicClient),
    OpenAi(openai::OpenAiClient),
}

/// The environment variable a provider's key is read from when `api_key_env` is not set.
pub fn default_api_key_env(provider: &str) -> &'static str {
    match provider {
        "openai" => "OPENAI_API_KEY",
        _ => "ANTHROPIC_API_KEY",
    }
}

/// Building a provider from the configuration failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ProviderConfigError(pub String);

impl Provider {
    /// Builds the client named by `agent.provider`, reading the key through `env`.
    pub fn from_config(
        config: &AgentConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Provider, ProviderConfigError> {
        if config.model.trim().is_empty() {
            return Err(ProviderConfigError("agent.model is empty: name the model to use".into()));
        }
        let api_key_env =
            config.api_key_env.clone().unwrap_or_else(|| default_api_key_env(&config.provider).to_string());
        let api_key = env(&api_key_env).filter(|k| !k.trim().is_empty());
        let base_url = config.base_url.clone().filter(|u| !u.trim().is_empty());
        if let Some(url) = &base_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(ProviderConfigError(format!(
                "agent.base_url {url:?} is not an http:// or https:// URL"
            )));
        }
        let settings = ClientSettings {
            model: config.model.clone(),
            base_url,
            api_key,
            api_key_env,
            request_timeout: Duration::from_secs(config.request_timeout_secs.max(1)),
        };
        match config.provider.as_str() {
            "anthropic" => {
                if settings.api_key.is_none() && settings.base_url.is_none() {
                    return Err(missing_key(&settings, "anthropic"));
                }
                anthropic::AnthropicClient::new(settings).map(Provider::Anthropic)
            }
            "openai" => {
                // A local OpenAI-compatible server (a base_url is set) usually needs no key.
                if settings.api_key.is_none() && settings.base_url.is_none() {
                    return Err(missing_key(&settings, "openai"));
                }
                openai::OpenAiClient::new(settings).map(Provider::OpenAi)
            }
            other => Err(ProviderConfigError(format!(
                "agent.provider {other:?} is not supported: use \"anthropic\" or \"openai\" (any \
                 OpenAI-compatible server, with agent.base_url)"
            ))),
        }
    }

    /// Sends one request (no retries; see [`retry::send_with_retries`]).
    pub async fn send_once(&self, request: &ChatRequest<'_>) -> Result<ChatResponse, ProviderError> {
        match self {
            Provider::Anthropic(client) => client.send(request).await,
            Provider::OpenAi(client) => client.send(request).await,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Provider::Anthropic(_) => "anthropic",
            Provider::OpenAi(_) => "openai",
        }
    }
}

fn missing_key(settings: &ClientSettings, provider: &str) -> ProviderConfigError {
    ProviderConfigError(format!(
        "no API key for provider {provider}: the environment variable {} (agent.api_key_env) is not set",
        settings.api_key_env
    ))
}

/// Parses a `retry-after` header: delay seconds (possibly fractional) or an HTTP date.
pub(crate) fn parse_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    if let Some(ms) =
        headers.get("retry-after-ms").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    let now = jiff::Timestamp::now();
    let wait = now.until(when).ok()?.total(jiff::Unit::Second).ok()?;
    Some(Duration::from_secs_f64(wait.max(0.0)))
}

/// Turns a transport error into a [`ProviderError`] without leaking request headers.
pub(crate) fn transport_error(error: reqwest::Error) -> ProviderError {
    if error.is_timeout() {
        ProviderError::Network("no answer within agent.request_timeout_secs".into())
    } else if error.is_connect() {
        ProviderError::Network(format!("connection failed ({})", error.without_url()))
    } else if error.is_decode() || error.is_body() {
        ProviderError::Network(format!("the answer was cut off ({})", error.without_url()))
    } else {
        ProviderError::Network(error.without_url().to_string())
    }
}

/// Classifies a non-success HTTP answer. `body_message` is the error text the API gave.
pub(crate) fn classify_status(
    status: u16,
    error_type: Option<&str>,
    body_message: String,
    retry_after: Option<Duration>,
    settings: &ClientSettings,
    quota_exhausted: bool,
) -> ProviderError {
    match status {
        401 | 403 => ProviderError::Auth(format!(
            "the provider rejected the API key (HTTP {status}: {body_message}); check the key in the \
             environment variable {} named by agent.api_key_env",
            settings.api_key_env
        )),
        404 => ProviderError::NotFound(format!(
            "not found (HTTP 404: {body_message}); check agent.model ({:?}) and agent.base_url ({})",
            settings.model,
            settings.base_url.as_deref().unwrap_or("the provider's default")
        )),
        429 if quota_exhausted => ProviderError::Rejected { status, message: body_message },
        429 => ProviderError::RateLimited { message: body_message, retry_after },
        408 | 409 | 500..=599 => ProviderError::Server { status, message: body_message, retry_after },
        _ if error_type.is_some_and(|t| t.contains("overloaded")) => {
            ProviderError::Server { status, message: body_message, retry_after }
        }
        _ => ProviderError::Rejected { status, message: body_message },
    }
}

/// Shortens a body for an error message.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 300;
    let text = text.trim();
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(provider: &str) -> AgentConfig {
        AgentConfig { provider: provider.into(), ..AgentConfig::default() }
    }

    #[test]
    fn missing_key_names_the_variable_and_the_setting() {
        let err = Provider::from_config(&config("anthropic"), &|_| None).unwrap_err();
        assert!(err.0.contains("ANTHROPIC_API_KEY"), "{err}");
        assert!(err.0.contains("agent.api_key_env"), "{err}");
        let custom = AgentConfig { api_key_env: Some("MY_KEY".into()), ..config("openai") };
        let err = Provider::from_config(&custom, &|_| None).unwrap_err();
        assert!(err.0.contains("MY_KEY"), "{err}");
    }

    #[test]
    fn a_local_openai_compatible_server_needs_no_key() {
        let local = AgentConfig { base_url: Some("http://127.0.0.1:11434/v1".into()), ..config("openai") };
        let provider = Provider::from_config(&local, &|_| None).unwrap();
        assert_eq!(provider.name(), "openai");
    }

    #[test]
    fn unknown_provider_is_a_config_error_naming_the_setting() {
        let err = Provider::from_config(&config("gemini"), &|_| Some("k".into())).unwrap_err();
        assert!(err.0.contains("agent.provider"), "{err}");
    }

    #[test]
    fn the_key_never_shows_in_debug_output() {
        let p = Provider::from_config(&config("anthropic"), &|_| Some("sk-very-secret-123".into())).unwrap();
        assert!(!format!("{p:?}").contains("sk-very-secret-123"));
    }

    #[test]
    fn retry_after_accepts_seconds_and_milliseconds() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(parse_retry_after(&h), Some(Duration::from_millis(150)));
        let mut bad = reqwest::header::HeaderMap::new();
        bad.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(parse_retry_after(&bad), None);
    }
}
