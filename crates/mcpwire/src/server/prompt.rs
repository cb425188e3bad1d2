//! Prompts: named message templates whose arguments (strings on the wire) a handler
//! takes typed, through the same extractors as tools ([`super::extract`]).
//!
//! ```
//! use mcpwire::server::{prompt, Args};
//! # use schemars::JsonSchema; use serde::Deserialize;
//! #[derive(Deserialize, JsonSchema)]
//! struct Greet {
//!     /// Who to greet.
//!     name: String,
//! }
//!
//! // The prompt's argument list (`name`, required, "Who to greet.") comes from `Greet`.
//! let greet = prompt("greet").handler(|Args(g): Args<Greet>| async move { format!("Say hello to {}", g.name) });
//! # let _ = greet;
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use mcpwire_protocol::common::JsonObject;
use mcpwire_protocol::content::{Icon, Role};
use mcpwire_protocol::prompts::{GetPromptResult, Prompt, PromptArgument, PromptMessage};
use mcpwire_protocol::Meta;
use serde_json::Value;

use super::arguments::decode_arguments;
use super::context::Ctx;
use super::extract::{rejection_error, FromRequest, Handler, Rejection, RequestParts};
use crate::error::McpError;

/// The arguments of a `prompts/get` call as the strings they are on the wire; an
/// extractor, for a handler that takes them untyped.
#[derive(Clone, Debug, Default)]
pub struct PromptArgs(pub BTreeMap<String, String>);

impl PromptArgs {
    /// An argument's value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

impl FromRequest for PromptArgs {
    fn from_request(parts: &RequestParts<'_>) -> Result<Self, Rejection> {
        decode_arguments(parts.arguments()).map(PromptArgs).map_err(Rejection::InvalidArguments)
    }
}

/// What a prompt handler returns.
pub trait IntoPromptResult: Send + 'static {
    /// The result.
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError> {
        Ok(self)
    }
}

/// One user message with this text.
impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError> {
        Ok(GetPromptResult { messages: vec![PromptMessage::text(Role::User, self)], ..Default::default() })
    }
}

/// One user message with this text.
impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError> {
        self.to_owned().into_prompt_result()
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError> {
        Ok(GetPromptResult { messages: self, ..Default::default() })
    }
}

impl<T: IntoPromptResult> IntoPromptResult for Result<T, McpError> {
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError> {
        self.and_then(IntoPromptResult::into_prompt_result)
    }
}

type PromptHandler =
    Arc<dyn Fn(Ctx, PromptArgs) -> BoxFuture<'static, Result<GetPromptResult, McpError>> + Send + Sync>;

/// A registered prompt.
#[derive(Clone)]
pub struct PromptDef {
    pub(crate) prompt: Prompt,
    pub(crate) handler: PromptHandler,
}

impl std::fmt::Debug for PromptDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptDef").field("prompt", &self.prompt).finish()
    }
}

impl PromptDef {
    /// Orders the arguments as `names` lists them (the others after them, as they were):
    /// `#[mcpwire::prompt]` passes its parameters' order, which the generated schema (an
    /// object, whose members come out sorted) loses.
    #[doc(hidden)]
    pub fn __arguments_in_order(mut self, names: &[&str]) -> Self {
        if let Some(arguments) = &mut self.prompt.arguments {
            arguments.sort_by_key(|a| names.iter().position(|n| *n == a.name).unwrap_or(names.len()));
        }
        self
    }

    /// Checks the required arguments, then runs the handler.
    pub(crate) async fn get(&self, ctx: Ctx, args: PromptArgs) -> Result<GetPromptResult, McpError> {
        for argument in self.prompt.arguments.iter().flatten() {
            if argument.required == Some(true) && !args.0.contains_key(&argument.name) {
                return Err(McpError::invalid_params(format!(
                    "Missing required argument {:?} for prompt {}",
                    argument.name, self.prompt.name
                )));
            }
        }
        (self.handler)(ctx, args).await
    }
}

/// Starts describing a prompt.
pub fn prompt(name: impl Into<String>) -> PromptBuilder {
    PromptBuilder { prompt: Prompt { name: name.into(), ..Default::default() } }
}

/// Describes a prompt.
#[derive(Debug)]
pub struct PromptBuilder {
    prompt: Prompt,
}

impl PromptBuilder {
    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.prompt.title = Some(title.into());
        self
    }

    /// A description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.prompt.description = Some(description.into());
        self
    }

    /// Declares an argument.
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        let argument = PromptArgument {
            name: name.into(),
            description: Some(description.into()),
            required: Some(required),
            ..Default::default()
        };
        self.prompt.arguments.get_or_insert_with(Vec::new).push(argument);
        self
    }

    /// Icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.prompt.icons = Some(icons);
        self
    }

    /// `_meta`.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.prompt.meta = Some(meta);
        self
    }

    /// Sets the async handler and finishes the prompt. The handler's parameters are
    /// extractors; with [`Args<T>`](super::Args), the fields of `T` are the prompt's
    /// arguments (name, description from the field's doc comment, required unless
    /// optional), unless [`argument`](Self::argument) declared them by hand. An optional
    /// argument that is not text (`Option<u32>`, a defaulted `bool`, an `Option` of an
    /// enum) sent as `""`, as clients send a field left empty, is taken as left out.
    pub fn handler<M, H>(mut self, handler: H) -> PromptDef
    where
        H: Handler<M>,
        H::Output: IntoPromptResult,
    {
        if self.prompt.arguments.is_none() {
            self.prompt.arguments = H::arguments_schema().map(|schema| arguments_from_schema(&schema));
        }
        let what = format!("prompt {}", self.prompt.name);
        let handler = Arc::new(handler);
        let empty_is_absent =
            H::arguments_schema().map(|schema| empty_is_absent(&schema)).unwrap_or_default();
        PromptDef {
            prompt: self.prompt,
            handler: Arc::new(move |ctx, mut args: PromptArgs| {
                // A client sends `""` for a field left empty: for an optional argument that
                // is not text, that is the argument left out.
                for name in empty_is_absent.iter() {
                    if args.0.get(name).is_some_and(|value| value.trim().is_empty()) {
                        args.0.remove(name);
                    }
                }
                // Prompt arguments are a string map on the wire; a typed `Args<T>` parses
                // its fields from them.
                let raw = match serde_json::value::to_raw_value(&args.0) {
                    Ok(raw) => raw,
                    Err(e) => return Box::pin(std::future::ready(Err(McpError::from(e)))),
                };
                match handler.call(&RequestParts::of_strings(&ctx, &raw, None)) {
                    Ok(fut) => Box::pin(async move { fut.await.into_prompt_result() }),
                    Err(rejection) => Box::pin(std::future::ready(Err(rejection_error(rejection, &what)))),
                }
            }),
        }
    }
}

/// A prompt's argument list from the JSON Schema of its arguments type: one argument per
/// property, with the property's description ([`description_of`]) and title, required as
/// the schema says.
fn arguments_from_schema(schema: &JsonObject) -> Vec<PromptArgument> {
    let required = required_names(schema);
    let text = |property: &Value, key: &str| property.get(key).and_then(Value::as_str).map(str::to_owned);
    properties(schema)
        .map(|(name, property)| PromptArgument {
            name: name.clone(),
            title: text(property, "title"),
            description: description_of(property),
            required: Some(required.contains(&name.as_str())),
        })
        .collect()
}

/// The names in an object schema's `required`.
fn required_names(schema: &JsonObject) -> Vec<&str> {
    let names = schema.get("required").and_then(Value::as_array);
    names.into_iter().flatten().filter_map(Value::as_str).collect()
}

/// An object schema's `properties`, name and schema (none when it has no such map).
fn properties(schema: &JsonObject) -> impl Iterator<Item = (&String, &Value)> {
    schema.get("properties").and_then(Value::as_object).into_iter().flatten()
}

/// The optional arguments (not in the schema's `required`) whose schema takes no empty
/// text: a number, a boolean, an enum without `""`. Prompt arguments are strings on the
/// wire, and a client sends `""` for a field left empty (the MCP Inspector does), which
/// for these means the argument left out (`None`, or the field's default). A required
/// one keeps its `""`, refused as not parsing; an argument that is text (`String`, an
/// untyped value) keeps it as the text it is.
fn empty_is_absent(schema: &JsonObject) -> Box<[String]> {
    let required = required_names(schema);
    properties(schema)
        .filter(|(name, property)| !required.contains(&name.as_str()) && refuses_empty_text(property))
        .map(|(name, _)| name.clone())
        .collect()
}

/// Whether a value of this schema can never be `""`: its `type` lists no `string`, its
/// `enum` or `const` has no `""`, or every branch of its `anyOf` or `oneOf` refuses it.
/// What the schema does not settle (a `$ref`, no keyword at all) takes `""`.
fn refuses_empty_text(schema: &Value) -> bool {
    let Some(schema) = schema.as_object() else { return false };
    let empty = Value::String(String::new());
    let by_type = match schema.get("type") {
        Some(Value::String(t)) => t != "string",
        Some(Value::Array(types)) => !types.iter().any(|t| t == "string"),
        _ => false,
    };
    let by_enum = schema.get("enum").and_then(Value::as_array).is_some_and(|values| !values.contains(&empty));
    let by_const = schema.get("const").is_some_and(|value| *value != empty);
    let by_branches = ["anyOf", "oneOf"].iter().any(|keyword| {
        schema
            .get(*keyword)
            .and_then(Value::as_array)
            .is_some_and(|branches| !branches.is_empty() && branches.iter().all(refuses_empty_text))
    });
    by_type || by_enum || by_const || by_branches
}

/// A property's description: its own, or, for an `Option` of a type whose schema has no
/// `type` of its own (an enum whose variants are described or carry data), the one of the
/// type, which schemars writes in the `anyOf` branch that is not `null`.
fn description_of(property: &Value) -> Option<String> {
    if let Some(description) = property.get("description").and_then(Value::as_str) {
        return Some(description.to_owned());
    }
    let branches = property.get("anyOf").and_then(Value::as_array)?;
    let mut not_null = branches.iter().filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
    match (not_null.next(), not_null.next(), branches.len()) {
        (Some(only), None, 2) => only.get("description").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}
