//! Sampling: `sampling/createMessage`, a server asking the client's model for a message.
//! A request from server to client in the 2025 era; an input request of a multi
//! round-trip result in 2026 (deprecated there).
//!
//! Tools in sampling (`tools`, `toolChoice`, tool-use and tool-result blocks) exist from
//! 2025-11-25 and need the client's `sampling.tools` capability. A message's `content` is
//! one block before 2025-11-25 and one block or an array from then on.

use serde::{Deserialize, Serialize};

use crate::common::{number, open_enum, request, JsonObject, OneOrMany};
use crate::content::{Role, SamplingContent};
use crate::jsonrpc::{MethodCall, Request, Response};
use crate::meta::Meta;
use crate::methods;
use crate::tasks::TaskMetadata;
use crate::tool_definition::Tool;

/// One message of a sampling conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// One block, or (2025-11-25 and later) several.
    pub content: OneOrMany<SamplingContent>,
    /// `_meta` (2025-11-25 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A message with one text block.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        SamplingMessage { role, content: OneOrMany::One(SamplingContent::text(text)), meta: None }
    }
}

/// A hint for model selection: a substring of a model name to prefer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A full or partial model name, such as `"claude-3-5-sonnet"` or `"sonnet"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The server's preferences for model selection; advisory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "number::opt_f64")]
    pub cost_priority: Option<f64>,
    /// How much speed matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "number::opt_f64")]
    pub speed_priority: Option<f64>,
    /// How much capability matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "number::opt_f64")]
    pub intelligence_priority: Option<f64>,
}

/// `includeContext`: which servers' context to add to the prompt. Values other than
/// `none` are deprecated and need the client's `sampling.context` capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context.
    None,
    /// Context from the requesting server.
    ThisServer,
    /// Context from every connected server.
    AllServers,
}

/// How the model may use the offered tools (2025-11-25 and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides (the default).
    Auto,
    /// The model must use at least one tool.
    Required,
    /// The model must not use tools.
    None,
}

/// `toolChoice` (2025-11-25 and later).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// The mode; absent means `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

/// `sampling/createMessage` params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Model selection preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may use or ignore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which servers' context to include (deprecated values other than `none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "number::opt_f64")]
    pub temperature: Option<f64>,
    /// The most tokens to generate; the client must respect it.
    pub max_tokens: u64,
    /// Sequences that stop generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may use (2025-11-25 and later; needs `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use the tools (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Run the request as a task (2025-11-25 core tasks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// `_meta` (2025 era; the 2026 input-request form has none).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageRequestParams {
    /// Checks the conversation's tool turns, as the receiver must (else `-32602`): a user
    /// message with a `tool_result` holds tool results only, and they answer exactly the
    /// `tool_use` blocks of the assistant message just before it; an assistant message
    /// with `tool_use` blocks is followed (if anything follows) by such a message.
    /// `Err` says what is wrong.
    pub fn check_tool_turns(&self) -> Result<(), String> {
        use std::collections::BTreeSet;
        let uses = |m: &SamplingMessage| -> BTreeSet<String> {
            let blocks = m.content.as_slice().iter();
            blocks
                .filter_map(|b| if let SamplingContent::ToolUse(u) = b { Some(u.id.clone()) } else { None })
                .collect()
        };
        let mut expected: Option<BTreeSet<String>> = None;
        for (i, message) in self.messages.iter().enumerate() {
            let blocks = message.content.as_slice();
            let results: BTreeSet<String> = blocks
                .iter()
                .filter_map(|b| {
                    if let SamplingContent::ToolResult(r) = b {
                        Some(r.tool_use_id.clone())
                    } else {
                        None
                    }
                })
                .collect();
            let has_results = blocks.iter().any(|b| matches!(b, SamplingContent::ToolResult(_)));
            if has_results && message.role != Role::User {
                return Err(format!("message {i}: tool results belong in a user message"));
            }
            if has_results && blocks.iter().any(|b| !matches!(b, SamplingContent::ToolResult(_))) {
                return Err(format!("message {i}: a message with tool results holds nothing else"));
            }
            match expected.take() {
                Some(ids) if ids != results || !has_results => {
                    return Err(format!(
                        "message {i}: it must answer the tool uses {ids:?} of message {} with tool results, \
                         got {results:?}",
                        i - 1
                    ))
                }
                None if has_results => {
                    return Err(format!(
                        "message {i}: tool results answer the tool uses of the assistant message before them"
                    ))
                }
                _ => {}
            }
            let ids = uses(message);
            if !ids.is_empty() {
                expected = Some(ids);
            }
        }
        Ok(())
    }
}

open_enum!(
    /// Why generation stopped; open-ended, with four well-known values.
    StopReason {
        /// The model finished its turn.
        EndTurn = "endTurn",
        /// A stop sequence was generated.
        StopSequence = "stopSequence",
        /// `maxTokens` was reached.
        MaxTokens = "maxTokens",
        /// The model wants to use a tool (2025-11-25 and later).
        ToolUse = "toolUse",
    }
);

/// The result of `sampling/createMessage`: the generated message.
///
/// In 2026 this does not extend `Result` (it is an input response, not a server result),
/// so it has no `resultType`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who says it (normally the assistant).
    pub role: Role,
    /// One block, or (2025-11-25 and later) several.
    pub content: OneOrMany<SamplingContent>,
    /// The model that generated it.
    pub model: String,
    /// Why generation stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

request!(CreateMessageRequestParams => methods::SAMPLING_CREATE_MESSAGE, CreateMessageResult);

/// `sampling/createMessage` as a 2025-era JSON-RPC request (server to client).
pub type CreateMessageRequest = Request<CreateMessageRequestParams>;
/// `sampling/createMessage` as a 2026 input request: `{method, params}` only.
pub type CreateMessageInputRequest = MethodCall<CreateMessageRequestParams>;
/// The response to a 2025-era `sampling/createMessage`.
pub type CreateMessageResultResponse = Response<CreateMessageResult>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    fn params(messages: serde_json::Value) -> CreateMessageRequestParams {
        serde_json::from_value(json!({ "messages": messages, "maxTokens": 10 })).unwrap()
    }

    fn text(role: &str) -> serde_json::Value {
        json!({ "role": role, "content": { "type": "text", "text": "hi" } })
    }

    fn uses(ids: &[&str]) -> serde_json::Value {
        let blocks: Vec<_> =
            ids.iter().map(|id| json!({ "type": "tool_use", "id": id, "name": "t", "input": {} })).collect();
        json!({ "role": "assistant", "content": blocks })
    }

    fn results(role: &str, ids: &[&str]) -> serde_json::Value {
        let blocks: Vec<_> =
            ids.iter().map(|id| json!({ "type": "tool_result", "toolUseId": id, "content": [] })).collect();
        json!({ "role": role, "content": blocks })
    }

    #[test]
    fn tool_results_answer_exactly_the_tool_uses_before_them() {
        let ok = [
            json!([text("user")]),
            json!([text("user"), uses(&["a", "b"]), results("user", &["b", "a"]), text("assistant")]),
            json!([text("user"), uses(&["a"])]),
        ];
        for messages in ok {
            assert_eq!(params(messages.clone()).check_tool_turns(), Ok(()), "{messages}");
        }
        let mixed = json!({ "role": "user", "content": [
            { "type": "tool_result", "toolUseId": "a", "content": [] }, { "type": "text", "text": "and" } ] });
        let bad = [
            (json!([text("user"), uses(&["a", "b"]), results("user", &["a"])]), "must answer"),
            (json!([text("user"), uses(&["a"]), results("user", &["x"])]), "must answer"),
            (json!([text("user"), uses(&["a"]), text("user")]), "must answer"),
            (json!([text("user"), results("user", &["a"])]), "before them"),
            (json!([text("user"), uses(&["a"]), results("assistant", &["a"])]), "user message"),
            (json!([text("user"), uses(&["a"]), mixed]), "nothing else"),
        ];
        for (messages, why) in bad {
            let error = params(messages.clone()).check_tool_turns().unwrap_err();
            assert!(error.contains(why), "{messages}: {error}");
        }
    }
}
