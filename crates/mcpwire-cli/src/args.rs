//! Tool and prompt arguments from the command line: `key=value` typed by the tool's
//! `inputSchema`, `key:=JSON` always JSON, and `--args JSON` as the base object.

use serde_json::{Map, Value};

use crate::errors::Failure;

/// One `key=value` or `key:=JSON` from the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The argument name.
    pub key: String,
    /// The raw value text.
    pub value: String,
    /// `key:=JSON`: the value is JSON whatever the schema says.
    pub force_json: bool,
}

/// Parses `key=value` / `key:=JSON`.
pub fn parse_pair(s: &str) -> Result<Pair, Failure> {
    let Some(eq) = s.find('=') else {
        return Err(Failure::usage(format!("expected key=value, got {s:?}"))
            .hint("pass arguments as key=value (typed by the schema) or key:=JSON"));
    };
    let (key, force_json) = match s[..eq].strip_suffix(':') {
        Some(key) => (key, true),
        None => (&s[..eq], false),
    };
    if key.is_empty() {
        return Err(Failure::usage(format!("argument {s:?} has no name")).hint("write key=value"));
    }
    Ok(Pair { key: key.to_owned(), value: s[eq + 1..].to_owned(), force_json })
}

/// What a schema says a value should be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Taken as written.
    String,
    /// Parsed as JSON and checked to be of this JSON type.
    Json(&'static str),
    /// Several types, none of them string: parsed as JSON and checked to be one of them
    /// (see [`either`]).
    Either,
    /// A string, except that `null` is JSON null.
    StringOrNull,
}

/// Resolves a local `$ref` (`#/$defs/x`, `#/definitions/x`, any JSON pointer).
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..16 {
        match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
            Some(pointer) => match root.pointer(pointer) {
                Some(target) => schema = target,
                None => return schema,
            },
            None => return schema,
        }
    }
    schema
}

/// How many distinct subschemas [`types`] looks at for one property, at most: a
/// server's schema could otherwise make it walk alternatives to the power of their
/// nesting.
const MAX_TYPE_VISITS: usize = 256;

/// The JSON types a (resolved) property schema allows.
fn types(root: &Value, schema: &Value) -> Vec<String> {
    let mut walk = TypeWalk { visited: std::collections::HashSet::new() };
    let mut out = walk.collect(root, schema, 0);
    out.sort();
    out.dedup();
    out
}

/// The subschemas [`types`] has looked at (by address): each is looked at once.
struct TypeWalk {
    visited: std::collections::HashSet<*const Value>,
}

impl TypeWalk {
    /// [`types`] of one subschema, `depth` alternatives down.
    fn collect(&mut self, root: &Value, schema: &Value, depth: usize) -> Vec<String> {
        let schema = resolve(root, schema);
        if self.visited.len() >= MAX_TYPE_VISITS || !self.visited.insert(schema) {
            return Vec::new();
        }
        let mut out = Vec::new();
        match schema.get("type") {
            Some(Value::String(t)) => out.push(t.clone()),
            Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str).map(str::to_owned)),
            _ => {}
        }
        if out.is_empty() {
            if let Some(values) = schema.get("enum").and_then(Value::as_array) {
                out.extend(values.iter().map(|v| json_type(v).to_owned()));
            }
            if let Some(c) = schema.get("const") {
                out.push(json_type(c).to_owned());
            }
        }
        if out.is_empty() && depth < 4 {
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
                    for alternative in alternatives {
                        out.extend(self.collect(root, alternative, depth + 1));
                    }
                }
            }
        }
        out
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn shape(types: &[String]) -> Shape {
    match types {
        [] => Shape::String,
        [only] => match only.as_str() {
            "string" => Shape::String,
            "integer" => Shape::Json("integer"),
            "number" => Shape::Json("number"),
            "boolean" => Shape::Json("boolean"),
            "object" => Shape::Json("object"),
            "array" => Shape::Json("array"),
            "null" => Shape::Json("null"),
            _ => Shape::Either,
        },
        // `["string", "null"]`: a string unless it is literally `null`.
        _ if types.iter().any(|t| t == "string") => {
            if types.iter().any(|t| t == "null") {
                Shape::StringOrNull
            } else {
                Shape::String
            }
        }
        _ => Shape::Either,
    }
}

/// Whether `value` is of JSON type `ty` (an integer is also a number).
fn is_type(value: &Value, ty: &str) -> bool {
    match (ty, value) {
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        ("number", Value::Number(_)) => true,
        ("boolean", Value::Bool(_)) => true,
        ("object", Value::Object(_)) => true,
        ("array", Value::Array(_)) => true,
        ("null", Value::Null) => true,
        ("string", Value::String(_)) => true,
        _ => false,
    }
}

/// The most of a property's fixed choices [`describe_type`] names ...
const MAX_DESCRIBED_CHOICES: usize = 8;
/// ... and the most characters it gives them, past which they end with `…`: a table
/// row stays readable whatever the size of a server's enum.
const MAX_DESCRIBED_WIDTH: usize = 40;

/// A short description of what a property takes, for messages and tables: its fixed
/// choices when it has them (`celsius|fahrenheit`, `array of a|b` for an array of
/// them; [`choices`], shortened with `…`), else its JSON types.
pub fn describe_type(root: &Value, schema: &Value) -> String {
    let mut visits = 0;
    if let Some(allowed) = choices(root, schema, 0, &mut visits) {
        return choice_list(&allowed);
    }
    let ts = types(root, schema);
    if ts == ["array"] {
        let items = resolve(root, schema).get("items");
        if let Some(allowed) = items.and_then(|items| choices(root, items, 0, &mut visits)) {
            return format!("array of {}", choice_list(&allowed));
        }
    }
    if ts.is_empty() {
        "any".to_owned()
    } else {
        ts.join("|")
    }
}

/// Choices as `a|b|c`: strings as they are, other values as JSON; at most
/// [`MAX_DESCRIBED_CHOICES`] of them in at most [`MAX_DESCRIBED_WIDTH`] characters.
fn choice_list(allowed: &[&Value]) -> String {
    let shown: Vec<std::borrow::Cow<'_, str>> = allowed
        .iter()
        .take(MAX_DESCRIBED_CHOICES)
        .map(|v| match v.as_str() {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(v.to_string()),
        })
        .collect();
    let mut list = shown.join("|");
    if allowed.len() > MAX_DESCRIBED_CHOICES {
        list.push_str("|…");
    }
    crate::ui::truncate(&list, MAX_DESCRIBED_WIDTH)
}

/// Builds a tool's arguments: `base` (from `--args`), then each pair typed by `schema`
/// (the tool's `inputSchema`; `None` when unknown: values are strings). Checks unknown
/// names (when the schema forbids extra properties) and missing required arguments.
pub fn tool_arguments(
    tool: &str,
    schema: Option<&Value>,
    base: Option<&str>,
    pairs: &[Pair],
) -> Result<Map<String, Value>, Failure> {
    let mut args = match base {
        None => Map::new(),
        Some(text) => match exact_json(text) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                return Err(Failure::usage("--args must be a JSON object")
                    .hint(r#"for example --args '{"name": "value"}'"#))
            }
            Err(e) => {
                return Err(Failure::usage(format!("--args is not valid JSON: {e}"))
                    .hint(r#"for example --args '{"name": "value"}'"#))
            }
        },
    };
    let empty = Value::Object(Map::new());
    let root = schema.unwrap_or(&empty);
    let properties = root.get("properties").and_then(Value::as_object);
    let closed = root.get("additionalProperties") == Some(&Value::Bool(false));
    for pair in pairs {
        let property = properties.and_then(|p| p.get(&pair.key));
        if property.is_none() && closed {
            let known: Vec<&str> =
                properties.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
            return Err(Failure::usage(format!("tool {tool:?} has no argument {:?}", pair.key)).hint(
                if known.is_empty() {
                    "it takes no arguments".to_owned()
                } else {
                    format!("it takes: {}", known.join(", "))
                },
            ));
        }
        let value = if pair.force_json {
            exact_json(&pair.value).map_err(|e| {
                Failure::usage(format!("argument {:?}: {:?} is not valid JSON: {e}", pair.key, pair.value))
                    .hint(
                        r#"key:=JSON takes JSON, for example n:=3, ok:=true, tags:='["a","b"]', s:='"text"'"#,
                    )
            })?
        } else {
            match property.map(|p| shape(&types(root, p))).unwrap_or(Shape::String) {
                Shape::String => Value::String(pair.value.clone()),
                Shape::Either => either(tool, &pair.key, &pair.value, root, property)?,
                Shape::StringOrNull if pair.value == "null" => Value::Null,
                Shape::StringOrNull => Value::String(pair.value.clone()),
                Shape::Json(ty) => {
                    let parsed: Option<Value> = exact_json(&pair.value).ok();
                    match parsed {
                        Some(v) if is_type(&v, ty) => v,
                        _ => {
                            return Err(Failure::usage(format!(
                                "argument {:?} of tool {tool:?} must be {} {ty}, got {:?}",
                                pair.key,
                                article(ty),
                                pair.value
                            ))
                            .hint(example(&pair.key, ty, root, property)))
                        }
                    }
                }
            }
        };
        if let Some(property) = property.filter(|_| !pair.force_json) {
            check_choice(tool, &pair.key, &value, root, property)?;
        }
        args.insert(pair.key.clone(), value);
    }
    if let Some(required) = root.get("required").and_then(Value::as_array) {
        let missing: Vec<String> = required
            .iter()
            .filter_map(Value::as_str)
            .filter(|name| !args.contains_key(*name))
            .map(|name| {
                let ty = properties.and_then(|p| p.get(name)).map(|p| describe_type(root, p));
                match ty {
                    Some(ty) => format!("{name} ({ty})"),
                    None => name.to_owned(),
                }
            })
            .collect();
        if !missing.is_empty() {
            return Err(Failure::usage(format!(
                "tool {tool:?} needs {}: {}",
                if missing.len() == 1 { "an argument" } else { "arguments" },
                missing.join(", ")
            ))
            .hint("pass them as key=value"));
        }
    }
    Ok(args)
}

/// The most choices of an `enum` a usage error lists.
const MAX_CHOICES_SHOWN: usize = 20;

/// The most values [`choices`] gathers from a property's alternatives.
const MAX_CHOICES: usize = 10_000;

/// Refuses a value outside the choices `property` allows (its `enum` or `const`, or those
/// of its alternatives), naming them and the closest: the server would refuse it too,
/// and some say so as the tool's own error. A property without fixed choices takes any
/// value of its types.
fn check_choice(tool: &str, key: &str, value: &Value, root: &Value, property: &Value) -> Result<(), Failure> {
    let mut visits = 0;
    let Some(allowed) = choices(root, property, 0, &mut visits) else { return Ok(()) };
    // Numbers are equal as numbers: `3` is the choice `3.0`.
    let same = |choice: &Value| match (choice, value) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => choice == value,
    };
    if allowed.iter().any(|choice| same(choice)) {
        return Ok(());
    }
    let shown: Vec<String> = allowed.iter().take(MAX_CHOICES_SHOWN).map(|v| v.to_string()).collect();
    let more = allowed.len().saturating_sub(MAX_CHOICES_SHOWN);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    let words: Vec<String> = allowed.iter().map(|v| text(v)).collect();
    let hint = match crate::suggest::closest(&text(value), words.iter().map(String::as_str)) {
        Some(near) => format!("did you mean {key}={}?", crate::target::quote_word(near)),
        None => format!("for example {key}={}", crate::target::quote_word(&words[0])),
    };
    Err(Failure::usage(format!(
        "argument {key:?} of tool {tool:?} must be one of {}{more}, got {}",
        shown.join(", "),
        value
    ))
    .hint(hint))
}

/// The `null` choice of a `{"type": "null"}` alternative.
static NULL: Value = Value::Null;

/// The fixed values a (resolved) schema allows (borrowed from it): its `enum`, its `const`, or those of all
/// its `anyOf`/`oneOf` alternatives (`null` for a `{"type": "null"}` one); `None` when it
/// allows other values too, or when finding them would take more than
/// [`MAX_TYPE_VISITS`] subschemas or gather more than [`MAX_CHOICES`] values (a server's
/// alternatives referring to alternatives would otherwise be walked, and their values
/// copied, to the power of their nesting): the server then judges the value alone.
/// `depth`: alternatives down, bounded as [`types`] is; `visits`: subschemas looked at.
fn choices<'a>(
    root: &'a Value,
    schema: &'a Value,
    depth: usize,
    visits: &mut usize,
) -> Option<Vec<&'a Value>> {
    *visits += 1;
    if *visits > MAX_TYPE_VISITS {
        return None;
    }
    let schema = resolve(root, schema);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.iter().collect::<Vec<_>>()).filter(|v| !v.is_empty());
    }
    if let Some(value) = schema.get("const") {
        return Some(vec![value]);
    }
    if schema.get("type").and_then(Value::as_str) == Some("null") {
        return Some(vec![&NULL]);
    }
    if depth >= 4 || schema.get("type").is_some() {
        return None;
    }
    let alternatives = ["anyOf", "oneOf"].iter().find_map(|k| schema.get(*k).and_then(Value::as_array))?;
    let mut all = Vec::new();
    for alternative in alternatives {
        all.extend(choices(root, alternative, depth + 1, visits)?);
        if all.len() > MAX_CHOICES {
            return None;
        }
    }
    Some(all).filter(|a| !a.is_empty())
}

/// The JSON types a schema can name.
const JSON_TYPES: [&str; 7] = ["array", "boolean", "integer", "null", "number", "object", "string"];

/// A value for a property of several types, none of them string (an optional argument,
/// `anyOf: [{type: T}, {type: null}]`): JSON of one of them. When a type is not one JSON
/// names, the value goes as JSON if it parses, else as a string.
fn either(
    tool: &str,
    key: &str,
    value: &str,
    root: &Value,
    property: Option<&Value>,
) -> Result<Value, Failure> {
    let allowed = property.map(|p| types(root, p)).unwrap_or_default();
    let known = !allowed.is_empty() && allowed.iter().all(|t| JSON_TYPES.contains(&t.as_str()));
    match exact_json(value) {
        Ok(v) if !known || allowed.iter().any(|t| is_type(&v, t)) => Ok(v),
        Err(_) if !known => Ok(Value::String(value.to_owned())),
        _ => {
            let ty = allowed.iter().find(|t| *t != "null").map_or("null", String::as_str);
            Err(Failure::usage(format!(
                "argument {key:?} of tool {tool:?} must be {}, got {value:?}",
                allowed.join(" or ")
            ))
            .hint(example(key, ty, root, property)))
        }
    }
}

/// `text` read as JSON, refused when it has an integer too large for 64 bits: serde_json
/// would read it as the nearest float, and the server would get another number than the
/// one typed.
fn exact_json(text: &str) -> Result<Value, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match inexact_integer(text) {
        Some(literal) => Err(format!(
            "the integer {literal} does not fit in 64 bits and would not be sent as typed (give it as a string, or as a float such as {literal}.0)"
        )),
        None => Ok(value),
    }
}

/// The first integer literal of the JSON text `text` (outside strings) that is neither
/// an `i64` nor a `u64`.
fn inexact_integer(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let (mut at, mut in_string) = (0, false);
    while at < bytes.len() {
        let b = bytes[at];
        if in_string {
            match b {
                b'\\' => at += 1,
                b'"' => in_string = false,
                _ => {}
            }
            at += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            at += 1;
            continue;
        }
        if b == b'-' || b.is_ascii_digit() {
            let start = at;
            while at < bytes.len() && matches!(bytes[at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                at += 1;
            }
            let literal = &text[start..at];
            let integer = !literal.contains(['.', 'e', 'E']);
            if integer && literal.parse::<i64>().is_err() && literal.parse::<u64>().is_err() {
                return Some(literal);
            }
            continue;
        }
        at += 1;
    }
    None
}

fn article(ty: &str) -> &'static str {
    match ty {
        "integer" | "object" | "array" => "an",
        _ => "a",
    }
}

/// A hint with an example of `key=VALUE` for a property of type `ty`: an array or an
/// object after its schema (`property`, in the input schema `root`), so that an array
/// of objects is shown with their members, not as an array of strings.
fn example(key: &str, ty: &str, root: &Value, property: Option<&Value>) -> String {
    let sample = match (ty, property) {
        ("integer", _) => "3".to_owned(),
        ("number", _) => "2.5".to_owned(),
        ("boolean", _) => "true".to_owned(),
        ("object" | "array", Some(property)) => {
            let mut visits = 0;
            let value = sample_of(root, property, ty, 0, &mut visits);
            // JSON of an array or an object always needs the shell's quotes.
            crate::target::quote_word(&value.to_string())
        }
        ("object", None) => r#"'{"k": "v"}'"#.to_owned(),
        ("array", None) => r#"'["a", "b"]'"#.to_owned(),
        _ => "null".to_owned(),
    };
    format!("for example {key}={sample}")
}

/// How deep [`sample_of`] goes into arrays and objects, and how many subschemas it looks
/// at in all: a server's schema may be recursive or wide.
const SAMPLE_DEPTH: usize = 4;
const SAMPLE_VISITS: usize = 64;

/// A value of `schema` (as type `ty`) to show in a hint: an enum's or a const's first
/// value; an object with its required members (all of them when it names none); an
/// array of one item; `"text"`, `3`, `2.5` or `true` for the plain types.
fn sample_of(root: &Value, schema: &Value, ty: &str, depth: usize, visits: &mut usize) -> Value {
    *visits += 1;
    let schema = resolve(root, schema);
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    // `anyOf`/`oneOf` (an optional array, `["array", "null"]` as alternatives): the
    // alternative of that type.
    if schema.get("type").is_none() && *visits < SAMPLE_VISITS {
        let alternatives = ["anyOf", "oneOf"].iter().filter_map(|k| schema.get(*k).and_then(Value::as_array));
        if let Some(alternative) = alternatives.flatten().find(|a| types(root, a).iter().any(|t| t == ty)) {
            return sample_of(root, alternative, ty, depth, visits);
        }
    }
    let deeper = depth < SAMPLE_DEPTH && *visits < SAMPLE_VISITS;
    match ty {
        "integer" => Value::from(3),
        "number" => Value::from(2.5),
        "boolean" => Value::Bool(true),
        "null" => Value::Null,
        "array" => {
            let items = schema.get("items").filter(|_| deeper);
            Value::Array(
                items.map(|items| vec![sample_any(root, items, depth + 1, visits)]).unwrap_or_default(),
            )
        }
        "object" => {
            let properties = schema.get("properties").and_then(Value::as_object).filter(|_| deeper);
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut object = Map::new();
            for (name, member) in properties.into_iter().flatten() {
                if required.is_empty() || required.contains(&name.as_str()) {
                    object.insert(name.clone(), sample_any(root, member, depth + 1, visits));
                }
            }
            Value::Object(object)
        }
        _ => Value::String("text".to_owned()),
    }
}

/// [`sample_of`] a subschema of whichever type it allows (not null, when it allows more).
fn sample_any(root: &Value, schema: &Value, depth: usize, visits: &mut usize) -> Value {
    let allowed = types(root, schema);
    let ty = allowed.iter().find(|t| *t != "null").or(allowed.first()).map_or("string", String::as_str);
    sample_of(root, schema, ty, depth, visits)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(items: &[&str]) -> Vec<Pair> {
        items.iter().map(|s| parse_pair(s).unwrap()).collect()
    }

    #[test]
    fn integers_too_large_for_64_bits_are_refused_not_rounded() {
        assert_eq!(inexact_integer("99999999999999999999999"), Some("99999999999999999999999"));
        assert_eq!(inexact_integer(r#"{"a":[1,-99999999999999999999]}"#), Some("-99999999999999999999"));
        assert_eq!(inexact_integer(r#"{"a":"99999999999999999999999","b\"":1}"#), None, "inside strings");
        assert_eq!(inexact_integer("[18446744073709551615,-9223372036854775808,1.5e300,2E5]"), None);
        let err = tool_arguments("t", None, None, &pairs(&["b:=99999999999999999999999"])).unwrap_err();
        assert!(err.to_string().contains("does not fit in 64 bits"), "{err}");
        assert!(tool_arguments("t", None, Some(r#"{"b":1e400}"#), &[]).is_err());
        let schema = json!({ "type": "object", "properties": { "n": { "type": "integer" } } });
        assert!(tool_arguments("t", Some(&schema), None, &pairs(&["n=123456789012345678901234"])).is_err());
        let args = tool_arguments("t", Some(&schema), None, &pairs(&["n=18446744073709551615"])).unwrap();
        assert_eq!(args["n"], json!(18446744073709551615u64));
    }

    #[test]
    fn a_value_outside_an_enum_is_refused_with_the_choices() {
        let schema = json!({ "type": "object", "$defs": { "Order": { "enum": ["oldest", "newest"] } }, "properties": {
            "kind": { "type": "string", "enum": ["error", "success", "debug"] },
            "order": { "anyOf": [{ "$ref": "#/$defs/Order" }, { "type": "null" }] },
            "level": { "enum": [1, 2, 3] },
            "free": { "anyOf": [{ "type": "string" }, { "type": "null" }] } } });
        let call = |items: &[&str]| tool_arguments("t", Some(&schema), None, &pairs(items));
        let err = call(&["kind=sucess"]).unwrap_err();
        assert!(
            err.message.ends_with(r#"must be one of "error", "success", "debug", got "sucess""#),
            "{err}"
        );
        assert_eq!(err.hint.as_deref(), Some("did you mean kind=success?"));
        let err = call(&["order=last"]).unwrap_err();
        assert!(err.message.ends_with(r#"one of "oldest", "newest", null, got "last""#), "{err}");
        assert_eq!(err.hint.as_deref(), Some("for example order=oldest"));
        assert!(call(&["level=4"]).is_err());
        let halves = json!({ "type": "object", "properties": { "n": { "enum": [1.0, 1.5] } } });
        assert!(tool_arguments("t", Some(&halves), None, &pairs(&["n=1"])).is_ok(), "1 is the choice 1.0");
        let args = call(&["kind=debug", "order=null", "level=2", "free=anything"]).unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"kind": "debug", "order": null, "level": 2, "free": "anything"})
        );
        // key:=JSON is sent as written.
        assert!(call(&["kind:=\"other\""]).is_ok());
    }

    /// A thousand alternatives that each refer back to their own list, four levels deep,
    /// would be 10^12 visits; each subschema is looked at once.
    #[test]
    fn self_referring_alternatives_are_each_looked_at_once() {
        let alternatives: Vec<Value> = (0..1000).map(|_| json!({ "$ref": "#/$defs/a" })).collect();
        let mut with_string = alternatives.clone();
        with_string.push(json!({ "type": "string" }));
        for (list, expected) in
            [(alternatives, Vec::<String>::new()), (with_string, vec!["string".to_owned()])]
        {
            let schema = json!({ "type": "object", "properties": { "p": { "$ref": "#/$defs/a" } },
                "$defs": { "a": { "anyOf": list } } });
            let started = std::time::Instant::now();
            let found = types(&schema, &schema["properties"]["p"]);
            assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
            assert_eq!(found, expected);
        }
    }

    /// Alternatives that each refer to a list of a thousand more, three levels down, would
    /// be 10^9 enums copied: the walk gives up and leaves the value to the server.
    #[test]
    fn fanned_out_choices_are_not_walked_to_the_end() {
        let level = |next: &str| {
            let refs: Vec<Value> = (0..1000).map(|_| json!({ "$ref": format!("#/$defs/{next}") })).collect();
            json!({ "anyOf": refs })
        };
        let schema = json!({ "type": "object", "properties": { "p": { "$ref": "#/$defs/a" } },
            "$defs": { "a": level("b"), "b": level("c"), "c": level("d"), "d": { "enum": ["x", "y"] } } });
        let mut visits = 0;
        assert_eq!(choices(&schema, &schema["properties"]["p"], 0, &mut visits), None);
        assert!(visits <= MAX_TYPE_VISITS + 1, "{visits} subschemas looked at");
        assert!(tool_arguments("t", Some(&schema), None, &pairs(&["p=anything"])).is_ok());
        // A plain enum behind one reference is still checked.
        let plain = json!({ "type": "object", "properties": { "p": { "$ref": "#/$defs/d" } },
            "$defs": { "d": { "enum": ["x", "y"] } } });
        assert!(tool_arguments("t", Some(&plain), None, &pairs(&["p=z"])).is_err());
    }

    #[test]
    fn parses_pairs() {
        assert_eq!(
            parse_pair("a=b=c").unwrap(),
            Pair { key: "a".into(), value: "b=c".into(), force_json: false }
        );
        assert_eq!(
            parse_pair("n:=3").unwrap(),
            Pair { key: "n".into(), value: "3".into(), force_json: true }
        );
        assert_eq!(parse_pair("e=").unwrap().value, "");
        assert!(parse_pair("novalue").is_err());
        assert!(parse_pair("=x").is_err());
    }

    #[test]
    fn types_values_by_schema() {
        let schema = json!({
            "type": "object",
            "$defs": { "addr": { "type": "object" } },
            "properties": {
                "s": { "type": "string" }, "i": { "type": "integer" }, "n": { "type": "number" },
                "b": { "type": "boolean" }, "o": { "$ref": "#/$defs/addr" }, "a": { "type": "array" },
                "opt": { "type": ["integer", "null"] }, "e": { "enum": [1, 2] },
                "sn": { "type": ["string", "null"] }
            },
            "required": ["s"]
        });
        let args = tool_arguments(
            "t",
            Some(&schema),
            None,
            &pairs(&[
                "s=42",
                "i=7",
                "n=2.5",
                "b=true",
                r#"o={"c":"x"}"#,
                "a=[1]",
                "opt=null",
                "e=2",
                "x=free",
                "sn=42",
            ]),
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({ "s": "42", "i": 7, "n": 2.5, "b": true, "o": { "c": "x" }, "a": [1], "opt": null, "e": 2, "x": "free", "sn": "42" })
        );
    }

    #[test]
    fn rejects_bad_values_and_missing_arguments() {
        let schema =
            json!({ "type": "object", "properties": { "i": { "type": "integer" } }, "required": ["i"] });
        assert!(tool_arguments("t", Some(&schema), None, &pairs(&["i=abc"])).is_err());
        assert!(tool_arguments("t", Some(&schema), None, &pairs(&["i=1.5"])).is_err());
        let missing = tool_arguments("t", Some(&schema), None, &[]).unwrap_err();
        assert!(missing.message.contains("i (integer)"), "{}", missing.message);
        let closed = json!({ "type": "object", "properties": {}, "additionalProperties": false });
        assert!(tool_arguments("t", Some(&closed), None, &pairs(&["z=1"])).is_err());
    }

    #[test]
    fn forced_json_and_base_object() {
        let schema = json!({ "type": "object", "properties": { "s": { "type": "string" } } });
        let args = tool_arguments(
            "t",
            Some(&schema),
            Some(r#"{"k": 1, "s": "old"}"#),
            &pairs(&["s:=5", "u:=[true]"]),
        )
        .unwrap();
        assert_eq!(Value::Object(args), json!({ "k": 1, "s": 5, "u": [true] }));
        assert!(tool_arguments("t", None, Some("[1]"), &[]).is_err());
        assert!(tool_arguments("t", None, Some("{"), &[]).is_err());
        assert!(tool_arguments("t", None, None, &pairs(&["bad:={"])).is_err());
    }

    #[test]
    fn hints_show_an_example_after_the_schema() {
        // pydantic's shapes: an array of `$ref` objects, an enum, a recursive model.
        let schema = json!({
            "type": "object",
            "properties": {
                "points": { "type": "array", "items": { "$ref": "#/$defs/Point" } },
                "tree": { "$ref": "#/$defs/Tree" }
            },
            "$defs": {
                "Point": { "type": "object", "properties": {
                    "x": { "type": "number" }, "color": { "enum": ["red", "blue"] }, "label": { "type": "string" },
                    "tags": { "anyOf": [{ "type": "array", "items": { "type": "string" } }, { "type": "null" }] }
                }, "required": ["x", "color", "tags"] },
                "Tree": { "type": "object", "properties": {
                    "children": { "type": "array", "items": { "$ref": "#/$defs/Tree" } }
                } }
            }
        });
        let hint = |pair: &str| tool_arguments("t", Some(&schema), None, &pairs(&[pair])).unwrap_err().hint;
        assert_eq!(
            hint("points=5").as_deref(),
            Some(r#"for example points='[{"x":2.5,"color":"red","tags":["text"]}]'"#)
        );
        let tree = hint("tree=5").unwrap();
        assert!(tree.starts_with(r#"for example tree='{"children":[{"children":[{"#), "{tree}");
    }
}
