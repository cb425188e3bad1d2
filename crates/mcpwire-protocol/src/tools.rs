//! Tools: `tools/list` and `tools/call`.
//!
//! Revision differences modelled here:
//! - `inputSchema` is an object schema in every revision, but 2025 types only
//!   `properties`/`required` while 2026 allows any JSON Schema 2020-12 keyword; it is kept
//!   verbatim as a JSON object, so `$defs`, `$anchor`, `allOf`, `if`/`then`/`else` and
//!   `additionalProperties` survive unchanged.
//! - `outputSchema` (2025-06-18 and later) must describe an object in 2025, any value in
//!   2026; `structuredContent` likewise is an object in 2025, any JSON value in 2026. Both
//!   are typed loosely (a JSON object and a [`Value`]) and the revision rule is left to the
//!   caller.
//! - `execution.taskSupport` and the `task` param are 2025-11-25 core tasks only; 2026
//!   moved tasks to an extension where the server decides.
//! - `inputResponses` and `requestState` are 2026 multi round-trip retries.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::common::{cacheable, paginated_params, request};
use crate::content::ContentBlock;
use crate::jsonrpc::{Request, Response};
use crate::meta::Meta;
use crate::methods;
use crate::mrtr::InputResponses;
use crate::result::{CacheScope, ResultType};
use crate::tasks::TaskMetadata;
pub use crate::tool_definition::{TaskSupport, Tool, ToolAnnotations, ToolExecution};

paginated_params!(
    /// `tools/list` params.
    ListToolsRequestParams
);

/// The result of `tools/list`. Cacheable in 2026.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// 2026: `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The tools on this page.
    pub tools: Vec<Tool>,
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

/// `tools/call` params.
///
/// `arguments` stays raw JSON, so a server can parse it straight into the tool's own
/// argument type ([`CallToolRequestParams::arguments`]) without an intermediate tree.
/// Equality compares the raw argument text.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The tool's name.
    pub name: String,
    /// The arguments: a JSON object, raw. Parsing checks that it is an object (`null`
    /// reads as absent) without parsing its members.
    #[serde(default, deserialize_with = "raw_object_arguments", skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Box<RawValue>>,
    /// `_meta`: `progressToken`, and on 2026 requests the required envelope.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Run the call as a task (2025-11-25 core tasks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
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

impl PartialEq for CallToolRequestParams {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.arguments.as_deref().map(RawValue::get) == other.arguments.as_deref().map(RawValue::get)
            && self.meta == other.meta
            && self.task == other.task
            && self.input_responses == other.input_responses
            && self.request_state == other.request_state
    }
}

impl CallToolRequestParams {
    /// A call of `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: Map<String, Value>) -> Self {
        CallToolRequestParams { name: name.into(), arguments: raw_object(&arguments), ..Default::default() }
    }

    /// A call of `name` without arguments.
    pub fn without_arguments(name: impl Into<String>) -> Self {
        CallToolRequestParams { name: name.into(), ..Default::default() }
    }

    /// A call of `name` with arguments given as any JSON value: an object, or `null` for
    /// none. Anything else is an error, since `arguments` must be an object.
    pub fn from_value(name: impl Into<String>, arguments: Value) -> Result<Self, serde_json::Error> {
        match arguments {
            Value::Object(map) => Ok(Self::new(name, map)),
            Value::Null => Ok(Self::without_arguments(name)),
            other => Err(serde::de::Error::invalid_type(unexpected(&other), &"a JSON object")),
        }
    }

    /// A call of `name` with arguments serialized from `args` (which must serialize to
    /// an object).
    pub fn from_args<T: Serialize>(name: impl Into<String>, args: &T) -> Result<Self, serde_json::Error> {
        Self::from_value(name, serde_json::to_value(args)?)
    }

    /// Parses the arguments into `T`; absent arguments parse as `{}`.
    pub fn arguments<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.arguments.as_deref().map_or("{}", RawValue::get))
    }

    /// The arguments as a JSON object (empty when absent).
    pub fn arguments_map(&self) -> Result<Map<String, Value>, serde_json::Error> {
        self.arguments()
    }
}

/// Captures `arguments` raw, rejecting anything but an object (or `null`, read as absent).
fn raw_object_arguments<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    let raw = Option::<Box<RawValue>>::deserialize(d)?;
    match raw.as_deref().map(not_an_object) {
        Some(Err(error)) => Err(error),
        _ => Ok(raw),
    }
}

/// Checks that raw `arguments` are a JSON object, with the error that refuses anything
/// else (what [`CallToolRequestParams`] reports, for a reader that borrows the text).
pub fn not_an_object<E: serde::de::Error>(raw: &RawValue) -> Result<(), E> {
    let found = match raw.get().as_bytes().first() {
        Some(b'{') => return Ok(()),
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        _ => "a number",
    };
    Err(E::invalid_type(serde::de::Unexpected::Other(found), &"a JSON object"))
}

fn raw_object(map: &Map<String, Value>) -> Option<Box<RawValue>> {
    // Serializing a map of JSON values cannot fail.
    serde_json::value::to_raw_value(map).ok()
}

fn unexpected(v: &Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(_) => Unexpected::Other("a number"),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// The result of `tools/call`.
///
/// Errors of the tool itself (bad input, a failing API) are results with `isError: true`,
/// so the model can see them; unknown tools and malformed requests are JSON-RPC errors.
/// At 2026 a `tools/call` may instead be answered with an `input_required` result or (tasks
/// extension) a task; see [`crate::CallToolOutcome`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// 2026: `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The unstructured result.
    pub content: Vec<ContentBlock>,
    /// The structured result (2025-06-18 and later): an object in 2025, any JSON value in
    /// 2026 (`null` too, read as `Some(Value::Null)`; only an absent member is `None`).
    /// Should conform to the tool's `outputSchema`.
    #[serde(
        default,
        deserialize_with = "crate::common::present_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the call failed (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// A successful result with `content`.
    pub fn success(content: Vec<ContentBlock>) -> Self {
        CallToolResult { content, ..Default::default() }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::success(vec![ContentBlock::text(text)])
    }

    /// A failed result (`isError: true`) with one text block describing the error.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(message)],
            is_error: Some(true),
            ..Default::default()
        }
    }

    /// A successful result with structured content and, as recommended, its JSON text as
    /// a text block.
    pub fn structured(value: Value) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(value.to_string())],
            structured_content: Some(value),
            ..Default::default()
        }
    }

    /// Whether the result reports a failure.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }

    /// The structured content read as `T`. A tool's output that is not an object (a
    /// number, a list, an enum) travels wrapped as `{"result": value}` (as mcpwire's and
    /// the Python SDK's servers send it): when `T` does not read the wrapper itself, the
    /// value inside is read. An error when there is no structured content.
    ///
    /// ```
    /// # use mcpwire_protocol::tools::CallToolResult;
    /// let wrapped = CallToolResult::structured(serde_json::json!({ "result": [1, 2] }));
    /// assert_eq!(wrapped.structured_as::<Vec<u8>>().unwrap(), [1, 2]);
    /// ```
    pub fn structured_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        let Some(value) = &self.structured_content else {
            return Err(serde::de::Error::custom("the result has no structured content"));
        };
        let whole = T::deserialize(value);
        match (whole, value.as_object()) {
            (Err(e), Some(object)) if object.len() == 1 => match object.get("result") {
                Some(inner) => T::deserialize(inner).map_err(|_| e),
                None => Err(e),
            },
            (outcome, _) => outcome,
        }
    }
}

cacheable!(ListToolsResult);
request!(ListToolsRequestParams => methods::TOOLS_LIST, ListToolsResult);
request!(CallToolRequestParams => methods::TOOLS_CALL, CallToolResult);

/// `tools/list`, as a whole message.
pub type ListToolsRequest = Request<ListToolsRequestParams>;
/// The response to `tools/list`.
pub type ListToolsResultResponse = Response<ListToolsResult>;
/// `tools/call`, as a whole message.
pub type CallToolRequest = Request<CallToolRequestParams>;
/// The response to `tools/call` with a complete result.
pub type CallToolResultResponse = Response<CallToolResult>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_content_reads_as_a_type_wrapped_or_not() {
        #[derive(Deserialize, Debug, PartialEq)]
        struct Forecast {
            celsius: f64,
        }
        #[derive(Deserialize, Debug, PartialEq)]
        struct Wrapped {
            result: u8,
        }
        let plain = CallToolResult::structured(json!({ "celsius": 20.5 }));
        assert_eq!(plain.structured_as::<Forecast>().unwrap(), Forecast { celsius: 20.5 });
        let wrapped = CallToolResult::structured(json!({ "result": 7 }));
        assert_eq!(wrapped.structured_as::<u8>().unwrap(), 7);
        assert_eq!(
            wrapped.structured_as::<Wrapped>().unwrap(),
            Wrapped { result: 7 },
            "a type that reads the wrapper"
        );
        let error = wrapped.structured_as::<Forecast>().unwrap_err();
        assert!(error.to_string().contains("celsius"), "the whole value's error: {error}");
        assert!(CallToolResult::text("x")
            .structured_as::<u8>()
            .unwrap_err()
            .to_string()
            .contains("no structured content"));
    }

    #[test]
    fn arguments_stay_raw_and_parse_on_demand() {
        #[derive(Deserialize, PartialEq, Debug)]
        struct Args {
            city: String,
        }
        let p: CallToolRequestParams =
            serde_json::from_str(r#"{"name":"w","arguments":{"city": "Paris"}}"#).unwrap();
        assert_eq!(p.arguments.as_deref().map(RawValue::get), Some(r#"{"city": "Paris"}"#));
        assert_eq!(p.arguments::<Args>().unwrap(), Args { city: "Paris".into() });
        let none = CallToolRequestParams::without_arguments("w");
        assert_eq!(none.arguments_map().unwrap(), Map::new());
    }

    #[test]
    fn constructors_write_objects() {
        let p = CallToolRequestParams::from_value("t", json!({"a": 1})).unwrap();
        assert_eq!(serde_json::to_value(&p).unwrap(), json!({"name": "t", "arguments": {"a": 1}}));
        assert!(CallToolRequestParams::from_value("t", json!([1])).is_err());
        assert!(CallToolRequestParams::from_value("t", Value::Null).unwrap().arguments.is_none());
    }

    #[test]
    fn schemas_are_kept_verbatim() {
        let schema = json!({
            "type": "object",
            "$defs": {"pos": {"$anchor": "p", "type": "integer", "minimum": 0}},
            "properties": {"n": {"$ref": "#p"}},
            "allOf": [{"if": {"required": ["n"]}, "then": {"required": ["n"]}, "else": {}}],
            "additionalProperties": false
        });
        let tool = json!({"name": "t", "inputSchema": schema, "outputSchema": {"type": "array"}});
        let t: Tool = serde_json::from_value(tool.clone()).unwrap();
        assert_eq!(serde_json::to_value(&t).unwrap(), tool);
    }

    #[test]
    fn unknown_result_type_round_trips() {
        let v = json!({"resultType": "x-future", "content": []});
        let r: CallToolResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.result_type, Some(ResultType::Other("x-future".into())));
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
    }
}
