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
