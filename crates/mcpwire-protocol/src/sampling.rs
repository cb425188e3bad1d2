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
