//! The Anthropic Messages API (`POST /v1/messages`), non-streaming.
//!
//! Tools are declared with `input_schema`; the model answers with `text` and `tool_use`
//! blocks and we reply with `tool_result` blocks in a user message. Prompt caching: the last
//! tool, the system prompt and the newest message carry `cache_control: ephemeral`, so every
//! turn after the first reads the tools, the instructions and the conversation so far from the
//! cache and pays full price only for what is new. Usage reports the cache reads and writes.

use serde::Deserialize;
use serde_json::{Value, json};

use super::http::{Endpoint, KeyHeader, Route};
use super::{
    Block, ChatRequest, ChatResponse, ClientSettings, ProviderConfigError, ProviderError, Speaker,
    StopReason, classify_status, excerpt,
};
use autodream_core::engine::TokenUsage;

/// The public endpoint.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version header every request carries.
pub const API_VERSION: &str = "2023-06-01";

/// The SDKs take the host as base URL; a base that already ends in /v1 is accepted too.
const ROUTE: Route = Route { default_base: DEFAULT_BASE_URL, version: "/v1", path: "/messages" };

/// A client for one model.
#[derive(Debug, Clone)]
pub struct AnthropicClient {
    endpoint: Endpoint,
}

impl AnthropicClient {
    pub fn new(settings: ClientSettings) -> Result<AnthropicClient, ProviderConfigError> {
        let endpoint = Endpoint::new(settings, ROUTE, KeyHeader::Named("x-api-key"))?;
        Ok(AnthropicClient { endpoint })
    }

    pub fn url(&self) -> &str {
        self.endpoint.url()
    }

    /// The JSON body for `request`.
    pub fn request_body(&self, request: &ChatRequest<'_>) -> Value {
        let ephemeral = json!({"type": "ephemeral"});
        let mut tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        if let Some(last) = tools.last_mut() {
            last["cache_control"] = ephemeral.clone();
        }
        let mut messages: Vec<Value> = request
            .messages
            .iter()
            .map(|m| {
                let content: Vec<Value> = m.blocks.iter().filter_map(block_to_wire).collect();
                json!({
                    "role": match m.speaker { Speaker::User => "user", Speaker::Assistant => "assistant" },
                    "content": content,
                })
            })
            .collect();
        if let Some(block) =
            messages.last_mut().and_then(|m| m["content"].as_array_mut()).and_then(|c| c.last_mut())
        {
            block["cache_control"] = ephemeral.clone();
        }
        let mut body = json!({
            "model": self.endpoint.settings().model,
            "max_tokens": request.max_output_tokens,
            "system": [{"type": "text", "text": request.system, "cache_control": ephemeral}],
            "messages": messages,
        });
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
        }
        body
    }

    pub async fn send(&self, request: &ChatRequest<'_>) -> Result<ChatResponse, ProviderError> {
        let headers = [("anthropic-version", API_VERSION), ("content-type", "application/json")];
        let text = self
            .endpoint
            .post_json(&self.request_body(request), &headers, |status, body, retry_after| {
                self.error_from(status, body, retry_after)
            })
            .await?;
        parse_response(&text)
    }

    fn error_from(&self, status: u16, body: &str, retry_after: Option<std::time::Duration>) -> ProviderError {
        let parsed: Option<ErrorBody> = serde_json::from_str(body).ok();
        let (kind, message, spend_limit) = match &parsed {
            Some(ErrorBody { error: Some(e), .. }) => {
                let code = e.details.as_ref().and_then(|d| d.get("error_code")).and_then(Value::as_str);
                (
                    e.kind.clone(),
                    e.message.clone().unwrap_or_default(),
                    code == Some("enforced_spend_limit_reached"),
                )
            }
            _ => (None, excerpt(body), false),
        };
        let message = if message.is_empty() { format!("HTTP {status}") } else { message };
        classify_status(status, kind.as_deref(), message, retry_after, self.endpoint.settings(), spend_limit)
    }
}

fn block_to_wire(block: &Block) -> Option<Value> {
    match block {
        // The API refuses empty text blocks.
        Block::Text(text) if text.is_empty() => None,
        Block::Text(text) => Some(json!({"type": "text", "text": text})),
        Block::ToolUse { id, name, input } => {
            let input = if input.is_object() { input.clone() } else { json!({}) };
            Some(json!({"type": "tool_use", "id": id, "name": name, "input": input}))
        }
        Block::ToolResult { tool_use_id, content, is_error } => {
            let mut v = json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": content});
            if *is_error {
                v["is_error"] = Value::Bool(true);
            }
            Some(v)
        }
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    error: Option<ErrorDetail>,
}

#[derive(Deserialize)]
struct ErrorDetail {
    #[serde(rename = "type")]
    kind: Option<String>,
    message: Option<String>,
    details: Option<Value>,
}

#[derive(Deserialize)]
struct WireResponse {
    content: Vec<WireBlock>,
    stop_reason: Option<String>,
    #[serde(default)]
    usage: WireUsage,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

/// Parses a successful Messages API answer.
pub fn parse_response(text: &str) -> Result<ChatResponse, ProviderError> {
    let wire: WireResponse =
        serde_json::from_str(text).map_err(|e| ProviderError::Decode(format!("{e} in {}", excerpt(text))))?;
    let blocks = wire
        .content
        .into_iter()
        .filter_map(|b| match b {
            WireBlock::Text { text } => Some(Block::Text(text)),
            WireBlock::ToolUse { id, name, input } => Some(Block::ToolUse { id, name, input }),
            // Thinking and other block kinds carry nothing the loop acts on.
            WireBlock::Other => None,
        })
        .collect();
    let stop = match wire.stop_reason.as_deref() {
        Some("end_turn") | Some("stop_sequence") | None => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        Some(other) => StopReason::Other(other.to_string()),
    };
    let usage = TokenUsage {
        input: wire.usage.input_tokens,
        output: wire.usage.output_tokens,
        cache_read: wire.usage.cache_read_input_tokens.unwrap_or(0),
        cache_write: wire.usage.cache_creation_input_tokens.unwrap_or(0),
    };
    Ok(ChatResponse { blocks, stop, usage })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::providers::{Message, ToolSpec};
    use std::time::Duration;

    fn client(base: Option<&str>) -> AnthropicClient {
        AnthropicClient::new(ClientSettings {
            model: "claude-test".into(),
            base_url: base.map(str::to_string),
            api_key: Some("k".into()),
            api_key_env: "ANTHROPIC_API_KEY".into(),
            request_timeout: Duration::from_secs(5),
        })
        .unwrap()
    }

    #[test]
    fn the_url_accepts_a_host_or_a_v1_base() {
        assert_eq!(client(None).url(), "https://api.anthropic.com/v1/messages");
        assert_eq!(client(Some("http://h:1/")).url(), "http://h:1/v1/messages");
        assert_eq!(client(Some("http://h:1/v1")).url(), "http://h:1/v1/messages");
    }

    #[test]
    fn the_body_marks_tools_system_and_newest_message_for_caching() {
        let tools = vec![
            ToolSpec { name: "Read", description: "r".into(), input_schema: json!({"type": "object"}) },
            ToolSpec { name: "Write", description: "w".into(), input_schema: json!({"type": "object"}) },
        ];
        let messages = vec![
            Message::user_text("go"),
            Message {
                speaker: Speaker::Assistant,
                blocks: vec![
                    Block::Text(String::new()),
                    Block::ToolUse { id: "t1".into(), name: "Read".into(), input: json!({"file_path": "a"}) },
                ],
            },
            Message {
                speaker: Speaker::User,
                blocks: vec![Block::ToolResult {
                    tool_use_id: "t1".into(),
                    content: "no".into(),
                    is_error: true,
                }],
            },
        ];
        let body = client(None).request_body(&ChatRequest {
            system: "sys",
            tools: &tools,
            messages: &messages,
            max_output_tokens: 100,
        });
        assert_eq!(body["model"], "claude-test");
        assert_eq!(body["max_tokens"], 100);
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["tools"][1]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["tools"][1]["input_schema"]["type"], "object");
        // The empty text block is dropped; the tool_use keeps its id.
        assert_eq!(body["messages"][1]["content"].as_array().unwrap().len(), 1);
        assert_eq!(body["messages"][1]["content"][0]["type"], "tool_use");
        let last = &body["messages"][2]["content"][0];
        assert_eq!(last["type"], "tool_result");
        assert_eq!(last["is_error"], true);
        assert_eq!(last["cache_control"]["type"], "ephemeral");
        assert!(body["messages"][0]["content"][0].get("cache_control").is_none());
    }

    #[test]
    fn a_documented_tool_use_answer_parses_with_cache_usage() {
        let answer = r#"{
          "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
          "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "MEMORY.md"}}
          ],
          "stop_reason": "tool_use", "stop_sequence": null,
          "usage": {"input_tokens": 12, "output_tokens": 30, "cache_creation_input_tokens": 2000,
                    "cache_read_input_tokens": 500}
        }"#;
        let r = parse_response(answer).unwrap();
        assert_eq!(r.stop, StopReason::ToolUse);
        assert_eq!(r.blocks.len(), 2);
        assert!(matches!(&r.blocks[1], Block::ToolUse { name, .. } if name == "Read"));
        assert_eq!(r.usage, TokenUsage { input: 12, output: 30, cache_read: 500, cache_write: 2000 });
    }

    #[test]
    fn errors_are_classified_from_status_and_body() {
        let c = client(None);
        let overloaded = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert!(c.error_from(529, overloaded, None).is_retryable());
        let auth =
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        let e = c.error_from(401, auth, None);
        assert!(!e.is_retryable());
        assert!(e.to_string().contains("ANTHROPIC_API_KEY") && e.to_string().contains("agent.api_key_env"));
        let spend = r#"{"type":"error","error":{"type":"rate_limit_error","message":"spend",
            "details":{"error_code":"enforced_spend_limit_reached"}}}"#;
        assert!(!c.error_from(429, spend, None).is_retryable());
        assert!(c.error_from(429, "{}", Some(Duration::from_secs(1))).is_retryable());
        let missing = c.error_from(
            404,
            r#"{"type":"error","error":{"type":"not_found_error","message":"model"}}"#,
            None,
        );
        assert!(missing.to_string().contains("agent.model"));
    }
}
