//! References to the root of a generated schema (`"$ref": "#"`, what schemars writes
//! where the root type recurs), kept meaning what they meant when the root moves
//! ([`rebase_root_refs`]) or is about to change ([`define_recurring_root`]).

use mcpwire_protocol::common::JsonObject;
use serde_json::Value;

/// The part of a `$ref` after the root it names (`""` for `#`, `"/items"` for
/// `#/items`), if it names the root or a place in it other than a definition (those stay
/// where they are when the root moves).
fn into_root(target: &str) -> Option<&str> {
    let rest = target.strip_prefix('#')?;
    (rest.is_empty() || (rest.starts_with('/') && !rest.starts_with("/$defs/"))).then_some(rest)
}

/// Points every `$ref` to the root (`#`) or into it (`#/...`, but not `#/$defs/...`) in
/// `value` at `new_root` (such as `#/properties/result`), where the root has moved.
pub(super) fn rebase_root_refs(value: &mut Value, new_root: &str) {
    match value {
        Value::Object(object) => {
            for (keyword, member) in object.iter_mut() {
                match member {
                    Value::String(target) if keyword == "$ref" => {
                        if let Some(rest) = into_root(target) {
                            *target = format!("{new_root}{rest}");
                        }
                    }
                    other => rebase_root_refs(other, new_root),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rebase_root_refs(item, new_root)),
        _ => {}
    }
}

/// Whether `value` holds a `$ref` to the root or into it ([`into_root`]).
fn refers_to_root(value: &Value) -> bool {
    match value {
        Value::Object(object) => object.iter().any(|(keyword, member)| match member {
            Value::String(target) if keyword == "$ref" => into_root(target).is_some(),
            other => refers_to_root(other),
        }),
        Value::Array(items) => items.iter().any(refers_to_root),
        _ => false,
    }
}

/// Before the root of `schema` is narrowed (an input schema's root takes objects only),
/// gives the places where its type recurs, which refer to the root, a definition of the
/// root as it is now: a copy under `$defs`, named after its `title`, which they refer to
/// instead. The root stays written out in place for hosts that do not follow `$ref`; a
/// value nested in it keeps every shape its type takes (a unit variant's string, say)
/// where the narrowed root would refuse it. A schema that does not refer to its root is
/// left as it is.
pub(super) fn define_recurring_root(schema: &mut JsonObject) {
    let mut defs = match schema.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        Some(other) => {
            schema.insert("$defs".into(), other);
            return;
        }
        None => JsonObject::new(),
    };
    let refers = schema.values().chain(defs.values()).any(refers_to_root);
    if refers {
        let name = definition_name(schema.get("title").and_then(Value::as_str), &defs);
        let target = format!("#/$defs/{name}");
        let mut copy = Value::Object(schema.clone());
        rebase_root_refs(&mut copy, &target);
        schema.values_mut().chain(defs.values_mut()).for_each(|v| rebase_root_refs(v, &target));
        defs.insert(name, copy);
    }
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
}

/// A name for the root's definition that no other definition has: its title's letters,
/// digits, `_`, `-` and `.` (which a JSON pointer and a URI fragment take as they are), or
/// `Root` without them, followed by a number if it is taken.
fn definition_name(title: Option<&str>, defs: &JsonObject) -> String {
    let base: String = title
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .collect();
    let base = if base.is_empty() { "Root".to_owned() } else { base };
    let mut name = base.clone();
    let mut n = 1;
    while defs.contains_key(&name) {
        n += 1;
        name = format!("{base}{n}");
    }
    name
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(o) => o,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn a_root_that_recurs_is_defined_under_a_name_of_its_own() {
        let mut schema = object(json!({
            "title": "a/b~c",
            "oneOf": [{ "type": "string" }, { "type": "array", "items": { "$ref": "#" } }],
            "$defs": { "abc": { "items": { "$ref": "#/oneOf/1" } }, "Other": { "$ref": "#/$defs/abc" } }
        }));
        define_recurring_root(&mut schema);
        let schema = Value::Object(schema);
        assert_eq!(schema["oneOf"][1]["items"]["$ref"], "#/$defs/abc2", "{schema}");
        assert_eq!(schema["$defs"]["abc"]["items"]["$ref"], "#/$defs/abc2/oneOf/1", "{schema}");
        assert_eq!(schema["$defs"]["Other"]["$ref"], "#/$defs/abc", "{schema}");
        let copy = &schema["$defs"]["abc2"];
        assert_eq!(copy["oneOf"][1]["items"]["$ref"], "#/$defs/abc2", "{schema}");
        assert!(copy.get("$defs").is_none(), "{schema}");
    }

    #[test]
    fn a_root_that_does_not_recur_is_left_alone() {
        for schema in [
            json!({ "type": "object", "properties": { "a": { "$ref": "#/$defs/A" } }, "$defs": { "A": {} } }),
            json!({ "oneOf": [{ "type": "object" }] }),
        ] {
            let mut changed = object(schema.clone());
            define_recurring_root(&mut changed);
            assert_eq!(Value::Object(changed), schema);
        }
    }
}
