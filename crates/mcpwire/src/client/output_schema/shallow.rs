//! The output-schema check a client makes without the `jsonschema` feature: what can be
//! checked in one pass over the top level, with no schema compiler. A tool's output
//! schema is an object schema, and most mistakes a server makes show there: a missing
//! required member, or a member of the wrong JSON type. Nested schemas, `$ref`,
//! combinators (`anyOf`...), formats, patterns and bounds are not checked: that needs the
//! `jsonschema` feature.

use serde_json::{Map, Value};

/// The top-level constraints of an output schema.
#[derive(Debug)]
pub(crate) struct ShallowSchema {
    /// The allowed JSON types of the whole value (`None`: any).
    types: Option<Vec<String>>,
    required: Vec<String>,
    /// The allowed JSON types of each declared property that names any.
    properties: Vec<(String, Vec<String>)>,
}

/// The `type` keyword as a list of type names (`None` when absent or not understood).
fn types_of(schema: &Map<String, Value>) -> Option<Vec<String>> {
    match schema.get("type")? {
        Value::String(t) => Some(vec![t.clone()]),
        Value::Array(ts) => Some(ts.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
        _ => None,
    }
}

/// Whether `value` is of the JSON Schema type `name` (`integer` includes `1.0`).
fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        // An unknown type name is the schema's mistake, not the value's.
        _ => true,
    }
}

fn describe(types: &[String]) -> String {
    types.join(" or ")
}

impl ShallowSchema {
    /// Reads the top-level constraints. Never fails: what is not understood is not
    /// checked.
    pub(crate) fn compile(schema: &Map<String, Value>) -> ShallowSchema {
        let required = match schema.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        let properties = match schema.get("properties") {
            Some(Value::Object(props)) => {
                props.iter().filter_map(|(name, p)| Some((name.clone(), types_of(p.as_object()?)?))).collect()
            }
            _ => Vec::new(),
        };
        ShallowSchema { types: types_of(schema), required, properties }
    }

    /// Checks `value` against the top-level constraints; the error says which failed.
    pub(crate) fn validate(&self, value: &Value) -> Result<(), String> {
        if let Some(types) = &self.types {
            if !types.iter().any(|t| is_type(value, t)) {
                return Err(format!("the value is not of type {}", describe(types)));
            }
        }
        let Some(object) = value.as_object() else { return Ok(()) };
        if let Some(missing) = self.required.iter().find(|name| !object.contains_key(name.as_str())) {
            return Err(format!("the required property {missing:?} is missing"));
        }
        for (name, types) in &self.properties {
            match object.get(name) {
                Some(member) if !types.iter().any(|t| is_type(member, t)) => {
                    return Err(format!("property {name:?} is not of type {}", describe(types)));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> ShallowSchema {
        ShallowSchema::compile(v.as_object().unwrap())
    }

    #[test]
    fn checks_the_type_required_members_and_member_types() {
        let s = schema(json!({
            "type": "object",
            "properties": { "n": { "type": "integer" }, "tag": { "type": ["string", "null"] }, "any": {} },
            "required": ["n"]
        }));
        assert!(s.validate(&json!({ "n": 1 })).is_ok());
        assert!(s.validate(&json!({ "n": 2.0, "tag": null, "any": [1] })).is_ok());
        assert!(s.validate(&json!({ "n": 1, "tag": "x", "extra": true })).is_ok());
        assert_eq!(s.validate(&json!({})).unwrap_err(), "the required property \"n\" is missing");
        assert_eq!(s.validate(&json!({ "n": "one" })).unwrap_err(), "property \"n\" is not of type integer");
        assert_eq!(s.validate(&json!({ "n": 1.5 })).unwrap_err(), "property \"n\" is not of type integer");
        assert_eq!(
            s.validate(&json!({ "n": 1, "tag": 3 })).unwrap_err(),
            "property \"tag\" is not of type string or null"
        );
        assert_eq!(s.validate(&json!([1])).unwrap_err(), "the value is not of type object");
    }

    #[test]
    fn what_it_does_not_understand_it_does_not_check() {
        let s = schema(json!({
            "type": "mystery",
            "properties": { "n": { "$ref": "#/$defs/n" }, "m": { "type": 5 } },
            "required": "n",
            "anyOf": [{ "required": ["zzz"] }]
        }));
        assert!(s.validate(&json!({ "m": "anything" })).is_ok());
        assert!(schema(json!({})).validate(&json!("not even an object")).is_ok());
    }
}
