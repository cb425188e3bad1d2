//! What a tool is: its name, schemas, hints and execution properties, as `tools/list`
//! returns them and as a sampling request offers them to the model. The calls themselves
//! are [`crate::tools`].
//!
//! ```
//! use mcpwire_protocol::Tool;
//!
//! let tool = Tool::new("now", Tool::no_parameters_schema());
//! assert_eq!(
//!     serde_json::to_value(&tool).unwrap(),
//!     serde_json::json!({ "name": "now", "inputSchema": { "type": "object", "additionalProperties": false } })
//! );
//! ```

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::{open_enum, JsonObject};
use crate::content::Icon;
use crate::meta::Meta;

/// A tool the server offers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// A programmatic name, unique on the server.
    pub name: String,
    /// A display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of the arguments: an object schema (root `"type": "object"`), kept
    /// verbatim.
    pub input_schema: JsonObject,
    /// The JSON Schema of `structuredContent` (2025-06-18 and later), kept verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Hints about the tool's behaviour (2025-03-26 and later); untrusted unless the
    /// server is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Execution properties (2025-11-25 core tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Tool {
    /// A tool with a name and an input schema.
    pub fn new(name: impl Into<String>, input_schema: JsonObject) -> Self {
        Tool { name: name.into(), input_schema, ..Default::default() }
    }

    /// The recommended input schema of a tool without parameters:
    /// `{"type": "object", "additionalProperties": false}`.
    pub fn no_parameters_schema() -> JsonObject {
        let mut m = Map::new();
        m.insert("type".into(), Value::String("object".into()));
        m.insert("additionalProperties".into(), Value::Bool(false));
        m
    }
}

/// Hints about a tool's behaviour (2025-03-26 and later). Clients must not rely on them
/// for safety unless they trust the server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default true; meaningful only when not
    /// read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// Execution properties of a tool (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Whether `tools/call` may be task-augmented; absent means `forbidden`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
}

open_enum!(
    /// `execution.taskSupport` (2025-11-25 core tasks).
    TaskSupport {
        /// The tool must not be called as a task (the default).
        Forbidden = "forbidden",
        /// The tool may be called as a task.
        Optional = "optional",
        /// The tool must be called as a task.
        Required = "required",
    }
);

/// One `x-mcp-header` annotation of a tool's input schema: a call's argument that 2026
/// Streamable HTTP mirrors into an `Mcp-Param-{name}` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    /// The header's name after `Mcp-Param-`, as the annotation writes it.
    pub name: String,
    /// The property names from the `arguments` object down to the argument (one for a
    /// top-level property; more for one nested in object properties).
    pub path: Vec<String>,
}

impl ParamHeader {
    /// The argument this header mirrors in a call's `arguments`, when it is there.
    pub fn value_in<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        self.path.iter().try_fold(arguments, |value, key| value.get(key))
    }

    /// The argument's path for messages: its property names joined with dots.
    pub fn argument(&self) -> String {
        self.path.join(".")
    }
}

/// The `Mcp-Param-*` headers a tool's calls carry over 2026 Streamable HTTP: one for each
/// property of `input_schema`, at any depth, annotated with `x-mcp-header`. `Err` says why
/// the annotations are invalid, which makes an HTTP client drop the tool from its list: a
/// name that is not an RFC 9110 token, a name used twice (ignoring case), a property whose
/// `type` is not `string`, `integer` or `boolean` (never `number`, nor a list of types),
/// or an annotation that is not reached from the root through `properties` alone (on the
/// root, or inside `items`, `anyOf`, `$defs` and the like).
pub fn tool_param_headers(input_schema: &JsonObject) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    if input_schema.contains_key("x-mcp-header") {
        return Err("x-mcp-header is not allowed on the input schema itself".into());
    }
    collect_param_headers(input_schema, &mut Vec::new(), &mut found)?;
    let mut seen = HashSet::new();
    for header in &found {
        if !seen.insert(header.name.to_ascii_lowercase()) {
            return Err(format!("x-mcp-header {:?} is used twice", header.name));
        }
    }
    let annotations: usize = input_schema.values().map(count_annotations).sum();
    if annotations != found.len() {
        return Err("x-mcp-header is only allowed on properties reached through `properties` alone".into());
    }
    Ok(found)
}

/// The annotated properties under `schema`'s `properties`, at `path`, and below them.
fn collect_param_headers(
    schema: &JsonObject,
    path: &mut Vec<String>,
    found: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    let Some(Value::Object(properties)) = schema.get("properties") else { return Ok(()) };
    for (prop, property) in properties {
        let Value::Object(property) = property else { continue };
        path.push(prop.clone());
        if let Some(annotation) = property.get("x-mcp-header") {
            let argument = path.join(".");
            let Some(name) = annotation.as_str().filter(|h| is_token(h)) else {
                return Err(format!("property {argument:?}: x-mcp-header must be a non-empty header token"));
            };
            match property.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                other => return Err(format!("property {argument:?}: x-mcp-header on type {other:?}")),
            }
            found.push(ParamHeader { name: name.to_owned(), path: path.clone() });
        }
        collect_param_headers(property, path, found)?;
        path.pop();
    }
    Ok(())
}

/// An RFC 9110 token: what a header name may be.
fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `x-mcp-header` keys anywhere in a schema value.
fn count_annotations(value: &Value) -> usize {
    match value {
        Value::Object(o) => {
            o.iter().map(|(k, v)| usize::from(k == "x-mcp-header") + count_annotations(v)).sum()
        }
        Value::Array(a) => a.iter().map(count_annotations).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn headers(schema: Value) -> Result<Vec<(String, String)>, String> {
        let found = tool_param_headers(schema.as_object().unwrap())?;
        Ok(found.into_iter().map(|h| (h.name.clone(), h.argument())).collect())
    }

    #[test]
    fn param_headers_are_tokens_on_strings_integers_and_booleans_reached_through_properties() {
        let ok = json!({ "type": "object", "properties": {
            "r": { "type": "string", "x-mcp-header": "Region" },
            "n": { "type": "integer", "x-mcp-header": "N" },
            "b": { "type": "boolean", "x-mcp-header": "Dry-Run" },
            "plain": { "type": "number" },
            "place": { "type": "object", "properties": {
                "zone": { "type": "string", "x-mcp-header": "Zone" },
                "deeper": { "type": "object", "properties": { "k": { "type": "integer", "x-mcp-header": "K" } } }
            } }
        } });
        let mut pairs = headers(ok).unwrap();
        pairs.sort();
        let expected =
            [("Dry-Run", "b"), ("K", "place.deeper.k"), ("N", "n"), ("Region", "r"), ("Zone", "place.zone")];
        assert_eq!(pairs, expected.map(|(h, p)| (h.to_owned(), p.to_owned())));
        assert_eq!(headers(json!({ "type": "object" })).unwrap(), []);
        for bad in [
            json!({ "properties": { "r": { "type": "string", "x-mcp-header": "" } } }),
            json!({ "properties": { "r": { "type": "string", "x-mcp-header": "a b" } } }),
            json!({ "properties": { "r": { "type": "string", "x-mcp-header": "a\r\nb" } } }),
            json!({ "properties": { "r": { "type": "string", "x-mcp-header": 7 } } }),
            json!({ "properties": { "r": { "type": "number", "x-mcp-header": "R" } } }),
            json!({ "properties": { "r": { "type": ["string", "null"], "x-mcp-header": "R" } } }),
            json!({ "properties": { "r": { "anyOf": [{ "type": "string" }], "x-mcp-header": "R" } } }),
            json!({ "properties": { "r": { "type": "object", "x-mcp-header": "R" } } }),
            json!({ "properties": { "a": { "type": "string", "x-mcp-header": "X" }, "b": { "type": "string", "x-mcp-header": "x" } } }),
            json!({ "properties": { "a": { "type": "array", "items": { "type": "string", "x-mcp-header": "X" } } } }),
            json!({ "anyOf": [{ "properties": { "a": { "type": "string", "x-mcp-header": "X" } } }] }),
            json!({ "$defs": { "d": { "type": "string", "x-mcp-header": "X" } } }),
            json!({ "type": "object", "x-mcp-header": "X" }),
            json!({ "properties": { "a": { "properties": { "b": { "type": "number", "x-mcp-header": "B" } } } } }),
            json!({ "properties": { "a": { "type": "string", "x-mcp-header": "X" }, "o": { "properties": { "b": { "type": "string", "x-mcp-header": "x" } } } } }),
            json!({ "properties": { "a": { "additionalProperties": { "type": "string", "x-mcp-header": "X" } } } }),
        ] {
            assert!(headers(bad.clone()).is_err(), "{bad}");
        }
        let nested = ParamHeader { name: "Zone".into(), path: vec!["place".into(), "zone".into()] };
        assert_eq!(nested.value_in(&json!({ "place": { "zone": "eu" } })), Some(&json!("eu")));
        assert_eq!(nested.value_in(&json!({ "place": null })), None);
        assert_eq!(nested.value_in(&json!({})), None);
    }
}
