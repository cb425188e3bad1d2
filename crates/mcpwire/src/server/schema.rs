//! JSON Schemas generated from Rust types (schemars, JSON Schema 2020-12).
//!
//! ```
//! use mcpwire::server::schema::input_schema_for;
//!
//! /// A forecast request.
//! #[derive(schemars::JsonSchema)]
//! #[allow(dead_code)]
//! struct Forecast {
//!     city: String,
//!     days: Option<u8>,
//! }
//!
//! let schema = input_schema_for::<Forecast>();
//! assert_eq!(schema["type"], "object");
//! assert_eq!(schema["required"], serde_json::json!(["city"]));
//! ```

use mcpwire_protocol::common::JsonObject;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Value};

/// The schema of `T`, as a JSON object. `$schema` is left out: the dialect is 2020-12 by
/// default in MCP, and some clients reject a `$schema` they do not know.
pub fn schema_for<T: JsonSchema>() -> JsonObject {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut object = match schema.to_value() {
        Value::Object(o) => o,
        // `false` matches nothing; `true` (and anything else) matches everything.
        Value::Bool(false) => json!({ "not": {} }).as_object().cloned().unwrap_or_default(),
        _ => JsonObject::new(),
    };
    object.remove("$schema");
    object
}

/// The input schema of a tool whose arguments decode into `T`. Tool arguments are always a
/// JSON object, and `inputSchema` must say so (`"type": "object"`). A type that accepts any
/// JSON value (`serde_json::Value`) generates the schema `true`, which does not; since any
/// arguments object decodes into it, its input schema is `{"type": "object"}`: an object
/// with anything in it (the generated `title`, such as `AnyValue`, named the value, not
/// the arguments, and is dropped; a `description` is kept). Other schemas are kept as
/// generated.
pub fn input_schema_for<T: JsonSchema>() -> JsonObject {
    let mut schema = schema_for::<T>();
    let constrains = schema.keys().any(|k| !matches!(k.as_str(), "title" | "description" | "$comment"));
    if !constrains {
        schema.remove("title");
        schema.remove("$comment");
        schema.insert("type".into(), "object".into());
    }
    schema
}

/// Whether a schema describes JSON objects (its root `type` is `"object"`).
pub fn is_object_schema(schema: &JsonObject) -> bool {
    schema.get("type") == Some(&Value::String("object".into()))
}

/// The input schema of a tool that takes no arguments.
pub fn empty_object_schema() -> JsonObject {
    let mut o = JsonObject::new();
    o.insert("type".into(), "object".into());
    o.insert("properties".into(), Value::Object(JsonObject::new()));
    o
}

/// Wraps a non-object output schema as `{ "type": "object", "properties": { "result": S } }`,
/// matching how such results are sent as structured content (`{"result": value}`), since
/// revisions before 2026 require structured content to be an object.
pub fn wrap_in_result_object(mut schema: JsonObject) -> JsonObject {
    let defs = schema.remove("$defs");
    let mut o = JsonObject::new();
    o.insert("type".into(), "object".into());
    o.insert("properties".into(), json!({ "result": Value::Object(schema) }));
    o.insert("required".into(), json!(["result"]));
    if let Some(defs) = defs {
        o.insert("$defs".into(), defs);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Point {
        x: i32,
    }

    #[test]
    fn any_value_arguments_get_an_open_object_schema() {
        assert_eq!(Value::Object(input_schema_for::<Value>()), json!({ "type": "object" }));
    }

    #[test]
    fn typed_arguments_keep_their_generated_schema() {
        assert_eq!(input_schema_for::<Point>(), schema_for::<Point>());
        assert!(is_object_schema(&input_schema_for::<Point>()));
        let map = input_schema_for::<serde_json::Map<String, Value>>();
        assert_eq!(map, schema_for::<serde_json::Map<String, Value>>());
        assert!(is_object_schema(&map));
    }

    #[test]
    fn a_non_object_type_is_still_not_an_object_schema() {
        assert!(!is_object_schema(&input_schema_for::<String>()));
    }
}
