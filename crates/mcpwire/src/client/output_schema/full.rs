//! The output-schema check with the `jsonschema` feature: the whole schema, compiled once
//! per tool by the `jsonschema` crate. Schemas never fetch network `$ref`s.

use serde_json::{Map, Value};

/// A compiled output schema.
pub(crate) struct FullSchema(jsonschema::Validator);

impl FullSchema {
    /// Compiles `schema`; the error says why it does not compile.
    pub(crate) fn compile(schema: &Map<String, Value>) -> Result<FullSchema, String> {
        jsonschema::validator_for(&Value::Object(schema.clone())).map(FullSchema).map_err(|e| e.to_string())
    }

    /// Checks `value`; the error is the first violation found.
    pub(crate) fn validate(&self, value: &Value) -> Result<(), String> {
        self.0.validate(value).map_err(|e| e.to_string())
    }
}
