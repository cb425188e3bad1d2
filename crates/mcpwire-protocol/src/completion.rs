//! Argument completion: `completion/complete`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize, Serializer};

use crate::common::request;
use crate::jsonrpc::{Request, Response};
use crate::meta::Meta;
use crate::methods;
use crate::result::ResultType;
use crate::tags;

/// A reference to a prompt, for completing its arguments.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptReference {
    /// Always `"ref/prompt"`.
    #[serde(rename = "type", default)]
    pub kind: tags::PromptRef,
    /// The prompt's name.
    pub name: String,
    /// A display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// A reference to a resource template, for completing its URI variables
/// (`ResourceReference` in 2024-11-05 and 2025-03-26; same wire form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplateReference {
    /// Always `"ref/resource"`.
    #[serde(rename = "type", default)]
    pub kind: tags::ResourceRef,
    /// The URI template.
    pub uri: String,
}

/// What is being completed: a prompt or a resource template.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// `"ref/prompt"`.
    #[serde(rename = "ref/prompt")]
    Prompt(PromptReference),
    /// `"ref/resource"`.
    #[serde(rename = "ref/resource")]
    Resource(ResourceTemplateReference),
}

impl Serialize for CompletionReference {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            CompletionReference::Prompt(r) => r.serialize(serializer),
            CompletionReference::Resource(r) => r.serialize(serializer),
        }
    }
}

/// The argument being completed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The argument's name.
    pub name: String,
    /// What the user typed so far.
    pub value: String,
}

/// Context for a completion (2025-06-18 and later).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Arguments already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// `completion/complete` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Context (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// `_meta`: `progressToken`, and on 2026 requests the required envelope.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CompleteRequestParams {
    /// Completes argument `argument` of prompt `name`, from what the user typed so far.
    ///
    /// ```
    /// # use mcpwire_protocol::completion::CompleteRequestParams;
    /// let params = CompleteRequestParams::prompt("review", "language", "ru").with_context([("style", "terse")]);
    /// assert_eq!(params.argument.value, "ru");
    /// ```
    pub fn prompt(name: impl Into<String>, argument: impl Into<String>, typed: impl Into<String>) -> Self {
        let reference = PromptReference { name: name.into(), ..Default::default() };
        Self::of(CompletionReference::Prompt(reference), argument.into(), typed.into())
    }

    /// Completes variable `variable` of the resource template `uri_template`.
    pub fn resource(
        uri_template: impl Into<String>,
        variable: impl Into<String>,
        typed: impl Into<String>,
    ) -> Self {
        let reference = ResourceTemplateReference { uri: uri_template.into(), ..Default::default() };
        Self::of(CompletionReference::Resource(reference), variable.into(), typed.into())
    }

    /// With the arguments already resolved, as context (2025-06-18 and later).
    pub fn with_context<K: Into<String>, V: Into<String>>(
        mut self,
        resolved: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let arguments = resolved.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        self.context = Some(CompletionContext { arguments: Some(arguments) });
        self
    }

    fn of(reference: CompletionReference, name: String, value: String) -> Self {
        CompleteRequestParams {
            reference,
            argument: CompletionArgument { name, value },
            context: None,
            meta: None,
        }
    }
}

/// The completions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// The total number of values available, which may exceed those sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more values exist than were sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// The most values a result may carry.
    pub const MAX_VALUES: usize = 100;
}

/// The result of `completion/complete`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// 2026: `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The completions.
    pub completion: Completion,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

request!(CompleteRequestParams => methods::COMPLETION_COMPLETE, CompleteResult);

/// `completion/complete`, as a whole message.
pub type CompleteRequest = Request<CompleteRequestParams>;
/// The response to `completion/complete`.
pub type CompleteResultResponse = Response<CompleteResult>;
