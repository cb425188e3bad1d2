//! Prompts: `prompts/list` and `prompts/get`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::common::{cacheable, paginated_params, request};
use crate::content::{ContentBlock, Icon, Role};
use crate::jsonrpc::{Request, Response};
use crate::meta::Meta;
use crate::methods;
use crate::mrtr::InputResponses;
use crate::result::{CacheScope, ResultType};

/// A prompt or prompt template the server offers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// A programmatic name.
    pub name: String,
    /// A display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt provides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments the prompt accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// An argument a prompt accepts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// A programmatic name.
    pub name: String,
    /// A display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the argument is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be provided (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// One message of a prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A message with one text block.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        PromptMessage { role, content: ContentBlock::text(text) }
    }
}

paginated_params!(
    /// `prompts/list` params.
    ListPromptsRequestParams
);

/// The result of `prompts/list`. Cacheable in 2026.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// 2026: `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The prompts on this page.
    pub prompts: Vec<Prompt>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// 2026: how long the result stays fresh, in milliseconds.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_ttl",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// 2026: who may reuse the result.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_scope",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_scope: Option<CacheScope>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `prompts/get` params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptRequestParams {
    /// The prompt's name.
    pub name: String,
    /// The arguments, all strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// `_meta`: `progressToken`, and on 2026 requests the required envelope.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Answers to the input requests of an `input_required` result (2026 retry); at most
    /// [`MAX_INPUT_RESPONSES`](crate::mrtr::MAX_INPUT_RESPONSES) are read.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::mrtr::bounded_optional_input_responses"
    )]
    pub input_responses: Option<InputResponses>,
    /// The `requestState` of an `input_required` result, echoed unchanged (2026 retry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl GetPromptRequestParams {
    /// Params getting the prompt `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        GetPromptRequestParams { name: name.into(), ..Default::default() }
    }
}

/// The result of `prompts/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// 2026: `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// A description of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

cacheable!(ListPromptsResult);
request!(ListPromptsRequestParams => methods::PROMPTS_LIST, ListPromptsResult);
request!(GetPromptRequestParams => methods::PROMPTS_GET, GetPromptResult);

/// `prompts/list`, as a whole message.
pub type ListPromptsRequest = Request<ListPromptsRequestParams>;
/// The response to `prompts/list`.
pub type ListPromptsResultResponse = Response<ListPromptsResult>;
/// `prompts/get`, as a whole message.
pub type GetPromptRequest = Request<GetPromptRequestParams>;
/// The response to `prompts/get` with a complete result.
pub type GetPromptResultResponse = Response<GetPromptResult>;
