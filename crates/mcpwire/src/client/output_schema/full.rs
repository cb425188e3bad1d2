//! The output-schema check with the `jsonschema` feature: the whole schema, compiled once
//! per tool by the `jsonschema` crate. Schemas never fetch network `$ref`s.

use serde_json::{Map, Value};

/// A compiled output schema.
pub(crate) struct FullSchema(jsonschema::Validator);

impl FullSchema {
    /// Compiles `schema`; the error says why it does not compile. Its patterns are a
    /// server's regular expressions: each may backtrack 10,000 steps per match (where a
    /// match that needs more fails the value) and compile to 256 KiB at most.
    pub(crate) fn compile(schema: &Map<String, Value>) -> Result<FullSchema, String> {
        let patterns = jsonschema::PatternOptions::fancy_regex()
            .backtrack_limit(10_000)
            .size_limit(256 * 1024)
            .dfa_size_limit(1024 * 1024);
        jsonschema::options()
            .with_pattern_options(patterns)
            .build(&Value::Object(schema.clone()))
            .map(FullSchema)
            .map_err(|e| bounded(e.to_string()))
    }

    /// Checks `value`; the error is the first violation found, and where in the value it
    /// is (`at /items/0: ...`; nothing for the value itself).
    pub(crate) fn validate(&self, value: &Value) -> Result<(), String> {
        self.0.validate(value).map_err(|e| {
            let at = e.instance_path.to_string();
            bounded(if at.is_empty() { e.to_string() } else { format!("at {at}: {e}") })
        })
    }
}

/// The most bytes of an error's message kept: the validator quotes the value (or the
/// schema's pattern), which a server may make megabytes long.
const MAX_MESSAGE_BYTES: usize = 512;

/// `message`, cut to [`MAX_MESSAGE_BYTES`] (at a character's boundary) and marked `…`
/// when longer.
fn bounded(mut message: String) -> String {
    if message.len() > MAX_MESSAGE_BYTES {
        let mut end = MAX_MESSAGE_BYTES;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push('…');
    }
    message
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn a_servers_regular_expressions_are_held_to_their_limits() {
        let compile = |schema: Value| FullSchema::compile(schema.as_object().unwrap());
        // Compiled, this would be megabytes (2,000 copies of a class of 65,000 characters).
        let error = compile(json!({ "pattern": "[\\u0100-\\uffff]{2000}" })).err().unwrap();
        assert!(error.contains("is not a \"regex\""), "{error}");
        assert!(compile(json!({ "pattern": "[\\u0100-\\uffff]{20}" })).is_ok());
        // A match that backtracks past the limit fails the value instead of running on.
        let backtracks = compile(json!({ "pattern": "^(?:(a)\\1?)+$" })).unwrap();
        let error = backtracks.validate(&json!(format!("{}!", "a".repeat(28)))).unwrap_err();
        assert!(error.to_lowercase().contains("backtrack"), "{error}");
        assert!(backtracks.validate(&json!("aaaa")).is_ok());
    }

    /// A violation's message quotes the value, which a server may make megabytes long: the
    /// message keeps its start and says where in the value it is. (A 5 MB string where an
    /// integer belongs made a 5 MB message, which every failed call carried.)
    #[test]
    fn a_violation_by_a_huge_value_has_a_short_message_naming_where() {
        let schema = json!({ "properties": { "count": { "type": "integer" } } });
        let checked = FullSchema::compile(schema.as_object().unwrap()).unwrap();
        let error = checked.validate(&json!({ "count": "é".repeat(3 << 20) })).unwrap_err();
        let start: String = error.chars().take(100).collect();
        assert!(error.len() < 1024, "{} bytes: {start}", error.len());
        assert!(error.starts_with("at /count: \"éé") && error.ends_with('…'), "{error}");
        let error = checked.validate(&json!({ "count": "x" })).unwrap_err();
        assert_eq!(error, "at /count: \"x\" is not of type \"integer\"");
    }
}
