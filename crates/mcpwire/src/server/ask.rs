//! Typed questions to the client: a form whose fields are a Rust type's, and a plain
//! text completion. Both go through [`Ctx::elicit`] and [`Ctx::sample`], so they work in
//! both eras (a 2025 request to the client, or a 2026 `input_required` round).

use std::collections::BTreeMap;

use mcpwire_protocol::common::OneOrMany;
use mcpwire_protocol::content::{Role, SamplingContent};
use mcpwire_protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitValue};
use mcpwire_protocol::sampling::{CreateMessageRequestParams, SamplingMessage};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::arguments::as_integers;
use super::context::Ctx;
use super::schema;
use crate::error::McpError;

/// What the user did with a form asked for by [`Ctx::elicit_form`].
#[derive(Clone, Debug, PartialEq)]
pub enum Elicited<T> {
    /// Submitted it, with these values.
    Accepted(T),
    /// Explicitly declined.
    Declined,
    /// Dismissed it without choosing.
    Cancelled,
}

impl Ctx {
    /// Asks the user to fill a form whose fields are `T`'s. Forms hold flat values only
    /// (strings, numbers, booleans, string enums); an `Option` field is optional.
    pub async fn elicit_form<T: DeserializeOwned + JsonSchema>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, McpError> {
        let params = form_params::<T>(message.into())?;
        let result = self.elicit(params).await?;
        match result.action {
            ElicitAction::Decline => Ok(Elicited::Declined),
            ElicitAction::Cancel => Ok(Elicited::Cancelled),
            ElicitAction::Accept => submitted(result.content).map(Elicited::Accepted),
        }
    }

    /// Asks the client's model to answer `prompt` in at most `max_tokens` tokens, and
    /// returns the text of its answer.
    pub async fn sample_text(&self, prompt: impl Into<String>, max_tokens: u64) -> Result<String, McpError> {
        let params = CreateMessageRequestParams {
            messages: vec![SamplingMessage::text(Role::User, prompt)],
            max_tokens,
            ..Default::default()
        };
        let result = self.sample(params).await?;
        let blocks = match result.content {
            OneOrMany::One(block) => vec![block],
            OneOrMany::Many(blocks) => blocks,
        };
        let texts: Vec<String> = blocks
            .into_iter()
            .filter_map(|block| match block {
                SamplingContent::Text(text) => Some(text.text),
                _ => None,
            })
            .collect();
        if texts.is_empty() {
            return Err(McpError::internal("the client's model answered without text"));
        }
        Ok(texts.join("\n"))
    }
}

/// An accepted form's values as a `T`. A number without a fraction written as a float
/// (`3.0`) fills an integer field, as the form's `"type": "integer"` lets it
/// ([`as_integers`]).
fn submitted<T: DeserializeOwned>(content: Option<BTreeMap<String, ElicitValue>>) -> Result<T, McpError> {
    let mut content = serde_json::to_value(content.unwrap_or_default())?;
    let decoded = match T::deserialize(&content) {
        Err(_) if as_integers(&mut content) => T::deserialize(&content),
        decoded => decoded,
    };
    decoded.map_err(|e| McpError::invalid_params(format!("the submitted form does not fit: {e}")))
}

/// The form for `T`: its schema's properties and required list, each property made the
/// flat field a form holds ([`form_field`]).
fn form_params<T: JsonSchema>(message: String) -> Result<ElicitRequestParams, McpError> {
    let schema = schema::schema_for::<T>();
    let mut properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    properties.values_mut().for_each(form_field);
    let required = schema.get("required").cloned().unwrap_or_else(|| json!([]));
    let form = json!({
        "message": message,
        "requestedSchema": { "type": "object", "properties": properties, "required": required },
    });
    serde_json::from_value(form).map_err(|e| {
        let message = format!("{} cannot be an elicitation form: {e}", std::any::type_name::<T>());
        tracing::error!("{message}");
        McpError::internal(message)
    })
}

/// Makes one generated property a form field: an `Option`'s `["string", "null"]` or
/// `anyOf: [{...}, {"type": "null"}]` becomes its one type; a unit enum's `oneOf` of
/// `const`s (what schemars writes for variants with doc comments) becomes a plain
/// `enum` of strings, unless every choice has a `title` (a titled choice); a `null` left
/// in an `enum` goes. A list of enum values gets the same for its `items`.
fn form_field(property: &mut Value) {
    let Some(field) = property.as_object_mut() else { return };
    if let Some(Value::Array(types)) = field.get("type") {
        let single = types.iter().find(|t| t.as_str() != Some("null")).cloned().unwrap_or(Value::Null);
        field.insert("type".into(), single);
    }
    if let Some(Value::Array(branches)) = field.get("anyOf") {
        let mut not_null = branches.iter().filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        if let (Some(Value::Object(only)), None) = (not_null.next().cloned(), not_null.next()) {
            field.remove("anyOf");
            for (keyword, value) in only {
                field.entry(keyword).or_insert(value);
            }
        }
    }
    if let Some(Value::Array(choices)) = field.get("oneOf") {
        let values: Option<Vec<Value>> = choices.iter().map(|c| c.get("const").cloned()).collect();
        let titled = choices.iter().all(|c| c.get("title").is_some());
        if let Some(values) = values.filter(|_| !titled) {
            field.remove("oneOf");
            field.insert("enum".into(), Value::Array(values));
        }
        field.entry("type").or_insert_with(|| "string".into());
    }
    if let Some(Value::Array(values)) = field.get_mut("enum") {
        values.retain(|v| !v.is_null());
        field.entry("type").or_insert_with(|| "string".into());
    }
    if let Some(items) = field.get_mut("items") {
        form_field(items);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde::Deserialize;

    #[allow(dead_code)]
    #[derive(Debug, Deserialize, JsonSchema)]
    struct Booking {
        /// Your name.
        name: String,
        guests: u8,
        vegetarian: Option<bool>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    enum Color {
        Red,
        Green,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    enum Size {
        /// Small.
        S,
        /// Large.
        L,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Order {
        color: Color,
        size: Option<Size>,
        extras: Vec<Color>,
    }

    #[test]
    fn enums_are_written_in_place_as_string_choices() {
        let ElicitRequestParams::Form(form) = form_params::<Order>("Order".into()).unwrap() else {
            panic!("not a form")
        };
        let schema = serde_json::to_value(&form.requested_schema).unwrap();
        let properties = &schema["properties"];
        assert_eq!(properties["color"], json!({ "type": "string", "enum": ["Red", "Green"] }));
        assert_eq!(properties["size"]["enum"], json!(["S", "L"]), "{schema}");
        assert_eq!(properties["size"]["type"], "string");
        assert_eq!(properties["extras"]["type"], "array");
        assert_eq!(properties["extras"]["items"]["enum"], json!(["Red", "Green"]), "{schema}");
        assert_eq!(schema["required"], json!(["color", "extras"]));
    }

    /// A form's integer field takes a number without a fraction written as a float
    /// (`3.0`): the form's schema says `"type": "integer"`, which JSON Schema lets it
    /// meet, and a client that keeps numbers as doubles sends it so. A fraction is still
    /// refused.
    #[test]
    fn an_integer_field_takes_a_number_without_a_fraction() {
        let content = |guests: Value| {
            let mut content = std::collections::BTreeMap::new();
            content.insert("name".to_owned(), serde_json::from_value(json!("Ada")).unwrap());
            content.insert("guests".to_owned(), serde_json::from_value(guests).unwrap());
            content
        };
        let booking: Booking = submitted(Some(content(json!(3.0)))).unwrap();
        assert_eq!((booking.name.as_str(), booking.guests, booking.vegetarian), ("Ada", 3, None));
        let refused = submitted::<Booking>(Some(content(json!(3.5)))).unwrap_err();
        assert_eq!(refused.code(), -32602);
        assert!(refused.to_string().contains("does not fit"), "{refused}");
    }

    #[test]
    fn a_flat_struct_becomes_a_form_with_its_required_fields() {
        let ElicitRequestParams::Form(form) = form_params::<Booking>("Book a table".into()).unwrap() else {
            panic!("not a form")
        };
        assert_eq!(form.message, "Book a table");
        let schema = serde_json::to_value(&form.requested_schema).unwrap();
        assert_eq!(schema["properties"]["name"]["type"], "string");
        assert_eq!(schema["properties"]["name"]["description"], "Your name.");
        assert_eq!(schema["properties"]["guests"]["type"], "integer");
        assert_eq!(schema["properties"]["vegetarian"]["type"], "boolean");
        assert_eq!(schema["required"], json!(["name", "guests"]));
    }
}
