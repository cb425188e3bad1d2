//! A client's answer to a form elicitation, checked against the schema the form asked
//! with: the spec has both parties validate the content (SHOULD), and a handler that
//! asked for an integer between 0 and 150 should not be handed `"seven"` or `1e9` by a
//! client that ignored the form. The schema is the flat one forms have (strings, numbers,
//! booleans, single and multiple choices), so each field is checked on its own.
//!
//! A string's `format` is not checked (a date or an email address is the handler's to
//! read), and content members the schema does not name are left as they are (JSON
//! Schema allows them).

use mcpwire_protocol::elicitation::{
    ElicitAction, ElicitRequestParams, ElicitResult, ElicitValue, ElicitationSchema, EnumOption,
    NumberSchema, NumberType, PrimitiveSchemaDefinition as Field, StringSchema,
};

use crate::error::{shown, McpError};

/// The answer as the handler gets it: an accepted form's content checked against
/// `params`' schema (`-32602` naming the field when it does not fit); the content of a
/// form declined or cancelled, which the spec has only an accepted form carry, dropped.
pub(crate) fn checked(
    params: &ElicitRequestParams,
    mut answer: ElicitResult,
) -> Result<ElicitResult, McpError> {
    let ElicitRequestParams::Form(form) = params else { return Ok(answer) };
    if answer.action != ElicitAction::Accept {
        answer.content = None;
        return Ok(answer);
    }
    if let Err(why) = fits(&form.requested_schema, &answer) {
        return Err(McpError::invalid_params(format!(
            "The client's answer to elicitation/create does not fit the requested schema: {why}"
        )));
    }
    Ok(answer)
}

/// Why an accepted answer does not fit `schema`, if it does not.
fn fits(schema: &ElicitationSchema, answer: &ElicitResult) -> Result<(), String> {
    let content = answer.content.as_ref();
    for name in schema.required.iter().flatten() {
        if !content.is_some_and(|c| c.contains_key(name)) {
            return Err(format!("{}: required, and missing", shown(name, 100)));
        }
    }
    for (name, value) in content.into_iter().flatten() {
        if let Some(field) = schema.properties.get(name) {
            field_fits(field, value).map_err(|why| format!("{}: {why}", shown(name, 100)))?;
        }
    }
    Ok(())
}

/// Why one value does not fit its field, if it does not.
fn field_fits(field: &Field, value: &ElicitValue) -> Result<(), String> {
    match (field, value) {
        (Field::String(s), ElicitValue::String(v)) => string_fits(s, v),
        (Field::Number(n), ElicitValue::Number(v)) => number_fits(n, v),
        (Field::Boolean(_), ElicitValue::Boolean(_)) => Ok(()),
        (Field::UntitledSingleSelectEnum(e), ElicitValue::String(v)) => one_of(e.values.iter(), v),
        (Field::LegacyTitledEnum(e), ElicitValue::String(v)) => one_of(e.values.iter(), v),
        (Field::TitledSingleSelectEnum(e), ElicitValue::String(v)) => one_of(values(&e.one_of), v),
        (Field::UntitledMultiSelectEnum(e), ElicitValue::StringArray(v)) => {
            count_fits(e.min_items, e.max_items, v.len())?;
            v.iter().try_for_each(|v| one_of(e.items.values.iter(), v))
        }
        (Field::TitledMultiSelectEnum(e), ElicitValue::StringArray(v)) => {
            count_fits(e.min_items, e.max_items, v.len())?;
            v.iter().try_for_each(|v| one_of(values(&e.items.any_of), v))
        }
        (field, _) => Err(format!("expected {}", kind(field))),
    }
}

fn string_fits(schema: &StringSchema, value: &str) -> Result<(), String> {
    let chars = value.chars().count() as u64;
    match (schema.min_length, schema.max_length) {
        (Some(min), _) if chars < min => Err(format!("{chars} characters, fewer than the {min} asked")),
        (_, Some(max)) if chars > max => Err(format!("{chars} characters, more than the {max} asked")),
        _ => Ok(()),
    }
}

fn number_fits(schema: &NumberSchema, value: &serde_json::Number) -> Result<(), String> {
    let v = value.as_f64().unwrap_or(f64::NAN);
    // `7.0` is an integer too, as JSON Schema counts them.
    if schema.kind == NumberType::Integer && v.fract() != 0.0 {
        return Err(format!("expected an integer, got {value}"));
    }
    match (schema.minimum, schema.maximum) {
        (Some(min), _) if v < min => Err(format!("{value} is below the minimum {min}")),
        (_, Some(max)) if v > max => Err(format!("{value} is above the maximum {max}")),
        _ => Ok(()),
    }
}

fn count_fits(min: Option<u64>, max: Option<u64>, count: usize) -> Result<(), String> {
    let count = count as u64;
    match (min, max) {
        (Some(min), _) if count < min => Err(format!("{count} choices, fewer than the {min} asked")),
        (_, Some(max)) if count > max => Err(format!("{count} choices, more than the {max} asked")),
        _ => Ok(()),
    }
}

fn values(options: &[EnumOption]) -> impl Iterator<Item = &String> {
    options.iter().map(|o| &o.value)
}

fn one_of<'a>(mut choices: impl Iterator<Item = &'a String>, value: &str) -> Result<(), String> {
    if choices.any(|c| c == value) {
        Ok(())
    } else {
        Err(format!("{:?} is not one of the choices", shown(value, 100)))
    }
}

/// What a field takes, for an error.
fn kind(field: &Field) -> &'static str {
    match field {
        Field::String(_) => "a string",
        Field::Number(n) if n.kind == NumberType::Integer => "an integer",
        Field::Number(_) => "a number",
        Field::Boolean(_) => "a boolean",
        Field::UntitledSingleSelectEnum(_)
        | Field::TitledSingleSelectEnum(_)
        | Field::LegacyTitledEnum(_) => "one of the choices (a string)",
        Field::UntitledMultiSelectEnum(_) | Field::TitledMultiSelectEnum(_) => "a list of the choices",
    }
}
