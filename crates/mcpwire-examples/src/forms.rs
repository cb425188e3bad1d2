//! The fixtures' elicitation forms: a form asking for some fields, and the text an answer
//! gave for one of them (shared by the plain and the task tools of the everything server).

use mcpwire::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use serde_json::{json, Value};

/// The text a form answer gave for `field`.
pub fn answer_text(result: &ElicitResult, field: &str) -> String {
    let value = serde_json::to_value(result).unwrap_or(Value::Null);
    match &value["content"][field] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A form asking for `properties`.
pub fn form(message: &str, properties: Value, required: &[&str]) -> ElicitRequestParams {
    let form = json!({
        "message": message,
        "requestedSchema": { "type": "object", "properties": properties, "required": required },
    });
    serde_json::from_value(form).unwrap_or_else(|e| panic!("invalid fixture form: {e}"))
}
