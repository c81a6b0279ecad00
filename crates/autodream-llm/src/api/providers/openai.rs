//! The OpenAI-compatible Chat Completions API (`POST {base_url}/chat/completions`),
//! non-streaming: OpenAI itself, and local servers that copy it (Ollama, vLLM, llama.cpp).
//!
//! Tools are declared as `{"type":"function","function":{name, description, parameters}}`;
//! the model answers with `tool_calls` whose `arguments` is a JSON *string*, and we reply with
//! one `role: "tool"` message per call. Arguments that are not valid JSON are kept verbatim so
//! the tool layer can answer them with an error result instead of failing the dream. Cached
//! prompt tokens (`prompt_tokens_details.cached_tokens`) are reported as cache reads.

use serde::Deserialize;
use serde_json::{Value, json};

use super::http::{Endpoint, KeyHeader, Route};
use super::{
    Block, ChatRequest, ChatResponse, ClientSettings, ProviderConfigError, ProviderError, Speaker,
    StopReason, classify_status, excerpt,
};
use autodream_core::engine::TokenUsage;

/// The public endpoint.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Compatible servers document their base URL with its version segment (`…/v1`).
const ROUTE: Route = Route { default_base: DEFAULT_BASE_URL, version: "", path: "/chat/completions" };

/// A client for one model.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    endpoint: Endpoint,
}

impl OpenAiClient {
    pub fn new(settings: ClientSettings) -> Result<OpenAiClient, ProviderConfigError> {
        let endpoint = Endpoint::new(settings, ROUTE, KeyHeader::Bearer)?;
        Ok(OpenAiClient { endpoint })
    }

    pub fn url(&self) -> &str {
        self.endpoint.url()
    }

    /// The JSON body for `request`.
    pub fn request_body(&self, request: &ChatRequest<'_>) -> Value {
        let mut messages = vec![json!({"role": "system", "content": request.system})];
        for message in request.messages {
            match message.speaker {
                Speaker::Assistant => {
                    let text: Vec<&str> = message
                        .blocks
                        .iter()
                        .filter_map(|b| match b {
                            Block::Text(t) if !t.is_empty() => Some(t.as_str()),
                            _ => None,
                        })
                        .collect();
                    let calls: Vec<Value> = message
                        .blocks
                        .iter()
                        .filter_map(|b| match b {
                            Block::ToolUse { id, name, input } => Some(json!({
                                "id": id,
                                "type": "function",
                                "function": {"name": name, "arguments": arguments_text(input)},
                            })),
                            _ => None,
                        })
                        .collect();
                    let mut m = json!({
                        "role": "assistant",
                        "content": if text.is_empty() { Value::Null } else { Value::String(text.join("\n")) },
                    });
                    if !calls.is_empty() {
                        m["tool_calls"] = Value::Array(calls);
                    }
                    messages.push(m);
                }
                Speaker::User => {
                    let mut text = Vec::new();
                    for block in &message.blocks {
                        match block {
                            Block::ToolResult { tool_use_id, content, is_error } => {
                                // The format has no error flag: say it in the text.
                                let content =
                                    if *is_error { format!("Error: {content}") } else { content.clone() };
                                messages.push(
                                    json!({"role": "tool", "tool_call_id": tool_use_id, "content": content}),
                                );
                            }
                            Block::Text(t) => text.push(t.as_str()),
                            Block::ToolUse { .. } => {}
                        }
                    }
                    if !text.is_empty() {
                        messages.push(json!({"role": "user", "content": text.join("\n")}));
                    }
                }
            }
        }
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema,
                }})
            })
            .collect();
        let settings = self.endpoint.settings();
        let mut body = json!({"model": settings.model, "messages": messages});
        // OpenAI itself has replaced `max_tokens` with `max_completion_tokens`; the local
        // servers understand the older name.
        let limit_field = if settings.base_url.is_none() { "max_completion_tokens" } else { "max_tokens" };
        body[limit_field] = json!(request.max_output_tokens);
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
        }
        body
    }

    pub async fn send(&self, request: &ChatRequest<'_>) -> Result<ChatResponse, ProviderError> {
        let text = self
            .endpoint
            .post_json(&self.request_body(request), &[], |status, body, retry_after| {
                self.error_from(status, body, retry_after)
            })
            .await?;
        parse_response(&text)
    }

    fn error_from(&self, status: u16, body: &str, retry_after: Option<std::time::Duration>) -> ProviderError {
        let parsed: Option<Value> = serde_json::from_str(body).ok();
        let error = parsed.as_ref().and_then(|v| v.get("error"));
        let (kind, code, message) = match error {
            Some(Value::String(s)) => (None, None, s.clone()),
            Some(e) => (
                e.get("type").and_then(Value::as_str).map(str::to_string),
                e.get("code").and_then(Value::as_str).map(str::to_string),
                e.get("message").and_then(Value::as_str).unwrap_or_default().to_string(),
            ),
            None => (None, None, excerpt(body)),
        };
        let message = if message.is_empty() { format!("HTTP {status}") } else { message };
        let quota =
            code.as_deref() == Some("insufficient_quota") || kind.as_deref() == Some("insufficient_quota");
        classify_status(status, kind.as_deref(), message, retry_after, self.endpoint.settings(), quota)
    }
}

/// The `arguments` string for a tool call we send back in the history.
fn arguments_text(input: &Value) -> String {
    match input {
        // Arguments that did not parse are echoed as the model wrote them.
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

#[derive(Deserialize)]
struct WireResponse {
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireChoice {
    message: WireMessage,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Deserialize)]
struct WireToolCall {
    #[serde(default)]
    id: Option<String>,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    /// A JSON string per the specification; some local servers send an object.
    #[serde(default)]
    arguments: Value,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<WirePromptDetails>,
}

#[derive(Deserialize, Default)]
struct WirePromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

/// Parses a successful Chat Completions answer.
pub fn parse_response(text: &str) -> Result<ChatResponse, ProviderError> {
    let wire: WireResponse =
        serde_json::from_str(text).map_err(|e| ProviderError::Decode(format!("{e} in {}", excerpt(text))))?;
    let Some(choice) = wire.choices.into_iter().next() else {
        return Err(ProviderError::Decode(format!("no choices in {}", excerpt(text))));
    };
    let mut blocks = Vec::new();
    match choice.message.content {
        Some(Value::String(s)) if !s.is_empty() => blocks.push(Block::Text(s)),
        // Some servers send content parts: [{"type":"text","text":...}].
        Some(Value::Array(parts)) => {
            let joined: Vec<&str> =
                parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
            if !joined.is_empty() {
                blocks.push(Block::Text(joined.join("\n")));
            }
        }
        _ => {}
    }
    for (index, call) in choice.message.tool_calls.unwrap_or_default().into_iter().enumerate() {
        let input = match call.function.arguments {
            Value::String(raw) if raw.trim().is_empty() => json!({}),
            Value::String(raw) => serde_json::from_str::<Value>(&raw).unwrap_or(Value::String(raw)),
            Value::Null => json!({}),
            other => other,
        };
        blocks.push(Block::ToolUse {
            id: call.id.filter(|i| !i.is_empty()).unwrap_or_else(|| format!("call_{index}")),
            name: call.function.name,
            input,
        });
    }
    let has_calls = blocks.iter().any(|b| matches!(b, Block::ToolUse { .. }));
    let stop = match choice.finish_reason.as_deref() {
        Some("tool_calls") | Some("function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        _ if has_calls => StopReason::ToolUse,
        Some("stop") | None => StopReason::EndTurn,
        Some(other) => StopReason::Other(other.to_string()),
    };
    let usage = wire.usage.unwrap_or_default();
    let cached =
        usage.prompt_tokens_details.and_then(|d| d.cached_tokens).unwrap_or(0).min(usage.prompt_tokens);
    Ok(ChatResponse {
        blocks,
        stop,
        usage: TokenUsage {
            input: usage.prompt_tokens - cached,
            output: usage.completion_tokens,
            cache_read: cached,
            cache_write: 0,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::providers::{Message, ToolSpec};
    use std::time::Duration;

    fn client(base: Option<&str>) -> OpenAiClient {
        OpenAiClient::new(ClientSettings {
            model: "gpt-test".into(),
            base_url: base.map(str::to_string),
            api_key: None,
            api_key_env: "OPENAI_API_KEY".into(),
            request_timeout: Duration::from_secs(5),
        })
        .unwrap()
    }

    #[test]
    fn urls_for_openai_and_local_servers() {
        assert_eq!(client(None).url(), "https://api.openai.com/v1/chat/completions");
        assert_eq!(
            client(Some("http://localhost:11434/v1/")).url(),
            "http://localhost:11434/v1/chat/completions"
        );
    }

    #[test]
    fn history_becomes_assistant_tool_calls_and_tool_messages() {
        let tools =
            vec![ToolSpec { name: "Read", description: "r".into(), input_schema: json!({"type": "object"}) }];
        let messages = vec![
            Message::user_text("go"),
            Message {
                speaker: Speaker::Assistant,
                blocks: vec![
                    Block::ToolUse { id: "c1".into(), name: "Read".into(), input: json!({"file_path": "a"}) },
                    Block::ToolUse {
                        id: "c2".into(),
                        name: "Read".into(),
                        input: Value::String("{bad".into()),
                    },
                ],
            },
            Message {
                speaker: Speaker::User,
                blocks: vec![
                    Block::ToolResult { tool_use_id: "c1".into(), content: "ok".into(), is_error: false },
                    Block::ToolResult {
                        tool_use_id: "c2".into(),
                        content: "bad json".into(),
                        is_error: true,
                    },
                ],
            },
        ];
        let body = client(Some("http://x/v1")).request_body(&ChatRequest {
            system: "sys",
            tools: &tools,
            messages: &messages,
            max_output_tokens: 64,
        });
        let m = body["messages"].as_array().unwrap();
        assert_eq!(m[0]["role"], "system");
        assert_eq!(m[1]["role"], "user");
        assert_eq!(m[2]["role"], "assistant");
        assert!(m[2]["content"].is_null());
        assert_eq!(m[2]["tool_calls"][0]["function"]["arguments"], r#"{"file_path":"a"}"#);
        assert_eq!(m[2]["tool_calls"][1]["function"]["arguments"], "{bad");
        assert_eq!(m[3]["role"], "tool");
        assert_eq!(m[3]["tool_call_id"], "c1");
        assert_eq!(m[4]["content"], "Error: bad json");
        assert_eq!(body["tools"][0]["type"], "function");
        assert_eq!(body["tools"][0]["function"]["parameters"]["type"], "object");
        assert_eq!(body["max_tokens"], 64);
        assert!(
            client(None).request_body(&ChatRequest {
                system: "s",
                tools: &[],
                messages: &[],
                max_output_tokens: 5
            })["max_completion_tokens"]
                == 5
        );
    }

    #[test]
    fn a_documented_tool_calls_answer_parses_with_cached_tokens() {
        let answer = r#"{
          "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
          "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "call_a", "type": "function",
                            "function": {"name": "Grep", "arguments": "{\"pattern\":\"deploy\"}"}},
                           {"id": "call_b", "type": "function",
                            "function": {"name": "Read", "arguments": "{not json"}}]}}],
          "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050,
                    "prompt_tokens_details": {"cached_tokens": 800}}
        }"#;
        let r = parse_response(answer).unwrap();
        assert_eq!(r.stop, StopReason::ToolUse);
        assert_eq!(
            r.blocks[0],
            Block::ToolUse { id: "call_a".into(), name: "Grep".into(), input: json!({"pattern": "deploy"}) }
        );
        assert_eq!(
            r.blocks[1],
            Block::ToolUse {
                id: "call_b".into(),
                name: "Read".into(),
                input: Value::String("{not json".into())
            }
        );
        assert_eq!(r.usage, TokenUsage { input: 200, output: 50, cache_read: 800, cache_write: 0 });
    }

    #[test]
    fn quota_exhaustion_is_final_but_rate_limits_retry() {
        let c = client(None);
        let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        assert!(!c.error_from(429, quota, None).is_retryable());
        let limited =
            r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;
        assert!(c.error_from(429, limited, None).is_retryable());
        let ollama = r#"{"error":"model \"llama9\" not found, try pulling it first"}"#;
        let e = c.error_from(404, ollama, None);
        assert!(e.to_string().contains("llama9") && e.to_string().contains("agent.model"));
    }
}
