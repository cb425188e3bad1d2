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
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};
use serde_json::{json, Value};

use super::schema_refs::{define_recurring_root, rebase_root_refs};

/// The schema of `T`, as a JSON object. `$schema` is left out: the dialect is 2020-12 by
/// default in MCP, and some clients reject a `$schema` they do not know.
///
/// Every named type (a struct or an enum of the arguments, a field's type, ...) is
/// written in place, not as a `$ref` into `$defs`: many hosts do not follow `$ref` (some
/// strip `$defs`, some fail on the tool), and an elicitation form's fields cannot refer to
/// definitions at all. A recursive type cannot be written out: where it recurs, its
/// schema refers to its definition (`#/$defs/Name`; only such types are defined under
/// `$defs`), or to the root (`#`) when the root is that type.
pub fn schema_for<T: JsonSchema>() -> JsonObject {
    generate::<T>(settings())
}

/// JSON Schema 2020-12, every named type that does not recur written in place.
fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true)
}

fn generate<T: JsonSchema>(settings: SchemaSettings) -> JsonObject {
    let generator = settings
        .with_transform(RecursiveTransform(standard_formats_only))
        .with_transform(RecursiveTransform(object_properties))
        .into_generator();
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

/// The `format`s of JSON Schema 2020-12's format vocabulary: validators know these, and
/// warn about (or, in strict mode, reject) any other.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Replaces the `format`s schemars gives Rust's number types (`uint32`, `int64`, `double`,
/// ...), which no JSON Schema validator knows (the TypeScript SDK's Ajv warns on every
/// call), by the range they stand for where the schema does not already state it.
fn standard_formats_only(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else { return };
    let Some(format) = object.get("format").and_then(Value::as_str) else { return };
    if STANDARD_FORMATS.contains(&format) {
        return;
    }
    let range: Option<(i64, u64)> = match format {
        "int8" => Some((i8::MIN.into(), i8::MAX as u64)),
        "int16" => Some((i16::MIN.into(), i16::MAX as u64)),
        "int32" => Some((i32::MIN.into(), i32::MAX as u64)),
        "uint8" => Some((0, u8::MAX.into())),
        "uint16" => Some((0, u16::MAX.into())),
        "uint32" => Some((0, u32::MAX.into())),
        _ => None,
    };
    let unsigned = format.starts_with("uint");
    object.remove("format");
    if let Some((min, max)) = range {
        object.entry("minimum").or_insert(min.into());
        object.entry("maximum").or_insert(max.into());
    } else if unsigned {
        object.entry("minimum").or_insert(0.into());
    }
}

/// Writes a property's schema `true` (what schemars makes of a `serde_json::Value` field)
/// as `{}`, and `false` as `{"not": {}}`: the same meaning, in the form the 2025 revisions'
/// `Tool` schema asks of every property (an object).
fn object_properties(schema: &mut Schema) {
    let Some(Value::Object(properties)) = schema.as_object_mut().and_then(|o| o.get_mut("properties")) else {
        return;
    };
    for property in properties.values_mut() {
        if let Value::Bool(matches) = property {
            *property = if *matches { json!({}) } else { json!({ "not": {} }) };
        }
    }
}

/// [`schema_for`], in the form tool schemas take: every nullable single type is written
/// as [`portable_nullable`] writes it.
pub fn tool_schema_for<T: JsonSchema>() -> JsonObject {
    let mut schema = schema_for::<T>();
    portable_nullable(&mut schema);
    schema
}

/// [`tool_schema_for`] of the values `T` serializes to rather than those it deserializes
/// from: what a tool's structured content is. The two differ where serde's attributes
/// do: a field under `skip_serializing_if` may be absent from the output (it is not
/// required), one under `skip_serializing` never appears in it, `rename(serialize = ..)`
/// and `rename_all(serialize = ..)` name it as it is sent, and an `Option` field (always
/// written, as `null` when `None`) is required.
pub fn serialized_tool_schema_for<T: JsonSchema>() -> JsonObject {
    let mut schema = generate::<T>(settings().for_serialize());
    portable_nullable(&mut schema);
    schema
}

/// Rewrites each `"type": [T, "null"]` in `schema` (what schemars makes of an `Option` of
/// a string, number, boolean, array or struct) as `"anyOf": [{"type": T, ...}, {"type":
/// "null"}]`, the constraints of `T` (`format`, `minimum`, `items`, `properties`, ...)
/// moving into the first branch and the annotations (`description`, `default`, ...)
/// staying where they were. An `enum` that lists `null` (an `Option` of a unit-only enum)
/// moves into the first branch without it; a schema that also has another keyword of any
/// type, such as an `enum` without `null` or a `$ref`, is left as it is. The two mean the
/// same; the second is what a client that maps tool schemas onto a dialect of one `type`
/// per schema (the OpenAPI subset of Gemini's function declarations, for one) can read,
/// and what the MCP Inspector's `--strict` check asks for. An `Option` of a type whose
/// schema has no `type` of its own (an enum with data) is already written that way by
/// schemars.
pub fn portable_nullable(schema: &mut JsonObject) {
    for (keyword, value) in schema.iter_mut() {
        match keyword.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(map) = value {
                    map.values_mut().for_each(portable_nullable_value);
                }
            }
            "items"
            | "additionalProperties"
            | "contains"
            | "not"
            | "if"
            | "then"
            | "else"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties" => portable_nullable_value(value),
            "prefixItems" | "anyOf" | "oneOf" | "allOf" => {
                if let Value::Array(list) = value {
                    list.iter_mut().for_each(portable_nullable_value);
                }
            }
            _ => {}
        }
    }
    let Some(Value::Array(types)) = schema.get("type") else { return };
    let mut others = types.iter().filter(|t| t.as_str() != Some("null"));
    let (Some(single), None) = (others.next().cloned(), others.next()) else { return };
    // Only the keywords of `T`'s own type move into the first branch; they hold for
    // `null` anyway, so the rewrite means exactly what the type list meant. One that may
    // hold for `null` or not (`$ref`, ...) keeps the list; so does an `enum` unless it
    // lists `null`, which the second branch then takes: the values of type `T` in it are
    // the first branch's.
    /// Keywords that constrain a value whatever its type.
    const ANY_TYPE: &[&str] =
        &["anyOf", "oneOf", "allOf", "not", "if", "then", "else", "const", "$ref", "$dynamicRef"];
    let nullable_enum = match schema.get("enum") {
        None => true,
        Some(Value::Array(values)) => values.contains(&Value::Null),
        Some(_) => false,
    };
    if types.len() != 2 || !nullable_enum || ANY_TYPE.iter().any(|k| schema.contains_key(*k)) {
        return;
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    /// Keywords that stay: those that say something about the value without constraining
    /// it, and those of the schema document (`$ref`s elsewhere point into its `$defs`).
    const STAY: &[&str] = &[
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "$schema",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$vocabulary",
        "$defs",
        "definitions",
    ];
    let mut branch = JsonObject::new();
    for (keyword, value) in std::mem::take(schema) {
        if STAY.contains(&keyword.as_str()) {
            schema.insert(keyword, value);
        } else if keyword == "type" {
            branch.insert(keyword, single.clone());
        } else {
            branch.insert(keyword, value);
        }
    }
    schema.insert("anyOf".into(), json!([branch, { "type": "null" }]));
}

/// [`portable_nullable`] for a subschema, which may also be `true` or `false`.
fn portable_nullable_value(value: &mut Value) {
    if let Value::Object(schema) = value {
        portable_nullable(schema);
    }
}

/// The input schema of a tool whose arguments decode into `T`. Tool arguments are always a
/// JSON object, and `inputSchema` must say so (`"type": "object"`). A type that accepts any
/// JSON value (`serde_json::Value`) generates the schema `true`, which does not; since any
/// arguments object decodes into it, its input schema is an object with anything in it.
/// An object schema always has `properties`, empty for a tool without arguments: some
/// hosts (those that hand the schema to OpenAI's function calling) refuse an object
/// schema without it. Other schemas are kept as
/// [`tool_schema_for`] writes them.
///
/// A schema without a root `type` that admits objects among other values (an enum whose
/// variants are objects: internally or adjacently tagged, untagged structs, an
/// externally tagged one with data, an `Option` of a struct) gets `"type": "object"`
/// beside its `oneOf`/`anyOf`/`$ref`, and loses the root branches that take no object:
/// the arguments are an object whatever the type would otherwise take, and the spec asks
/// for that `type` at the root of every input schema, composition keywords included.
/// Where such a type recurs (its schema refers to the root, `#`), the reference goes to a
/// definition of the type as generated, under `$defs`: a value nested in the arguments
/// may still be any value of the type (a unit variant's string, say).
pub fn input_schema_for<T: JsonSchema>() -> JsonObject {
    let mut schema = tool_schema_for::<T>();
    if !constrains(&schema) {
        any_object(&mut schema);
    }
    if !schema.contains_key("type") {
        let whole = Value::Object(schema.clone());
        if admits_object(&whole, &whole, 0) {
            // Where the type recurs, its schema refers to the root, which is about to take
            // objects only: those places refer to a definition of the type as generated.
            define_recurring_root(&mut schema);
            let whole = Value::Object(schema.clone());
            schema.insert("type".into(), "object".into());
            // A branch that takes no object (an `Option`'s `null`, a unit variant's
            // string) can no longer match; it goes, so that no branch contradicts the
            // root's `type` (which a strict validator, Ajv's `strictTypes`, refuses).
            for keyword in ["anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = schema.get_mut(keyword) {
                    branches.retain(|b| admits_object(b, &whole, 0));
                }
            }
        }
    }
    if is_object_schema(&schema) {
        schema.entry("properties").or_insert_with(|| Value::Object(JsonObject::new()));
    }
    schema
}

/// The output schema of a tool whose structured content is a `T` (the schema of what `T`
/// serializes to, [`serialized_tool_schema_for`]), and whether that
/// content is sent as `{"result": value}` whatever each value is. An object schema is
/// kept. A type that may be anything (`serde_json::Value`) gets `{"type": "object"}`: an
/// object value is sent as it is and any other as `{"result": value}`, both objects. Any
/// other schema (a number's, an `Option`'s, an enum's) is wrapped
/// ([`wrap_in_result_object`]) and so is every value, an object or not, to match it.
pub(crate) fn output_schema_for<T: JsonSchema>() -> (JsonObject, bool) {
    let mut schema = serialized_tool_schema_for::<T>();
    if is_object_schema(&schema) {
        (schema, false)
    } else if !constrains(&schema) {
        any_object(&mut schema);
        (schema, false)
    } else {
        (wrap_in_result_object(schema), true)
    }
}

/// Whether `schema` admits some JSON object, as far as its `type`, `enum`, `const`,
/// composition keywords and references within the document `root` tell (a keyword it
/// does not read is taken to admit one).
fn admits_object(schema: &Value, root: &Value, depth: usize) -> bool {
    let Value::Object(object) = schema else { return schema != &Value::Bool(false) };
    // A reference cycle (a recursive type) or a deep nesting: no more is known.
    if depth > 32 {
        return true;
    }
    let admits = |s: &Value| admits_object(s, root, depth + 1);
    let branches = |keyword: &str| object.get(keyword).and_then(Value::as_array);
    let typed = match object.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => true,
    };
    let referenced = match object.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => root.pointer(pointer).is_none_or(admits),
        None => true,
    };
    typed
        && referenced
        && branches("anyOf").is_none_or(|b| b.iter().any(admits))
        && branches("oneOf").is_none_or(|b| b.iter().any(admits))
        && branches("allOf").is_none_or(|b| b.iter().all(admits))
        && branches("enum").is_none_or(|values| values.iter().any(Value::is_object))
        && object.get("const").is_none_or(Value::is_object)
}

/// Whether a schema says anything of the values it takes (the root `true`, written as
/// `{}` and perhaps annotated, does not).
fn constrains(schema: &JsonObject) -> bool {
    schema.keys().any(|k| !matches!(k.as_str(), "title" | "description" | "$comment"))
}

/// Makes an unconstrained schema one of any object. Its generated `title` (such as
/// `AnyValue`) named the value's type and is dropped; a `description` is kept.
fn any_object(schema: &mut JsonObject) {
    schema.remove("title");
    schema.remove("$comment");
    schema.insert("type".into(), "object".into());
}

/// Whether a schema describes JSON objects (its root `type` is `"object"`).
pub fn is_object_schema(schema: &JsonObject) -> bool {
    schema.get("type") == Some(&Value::String("object".into()))
}

/// The input schema of a tool that takes no arguments: `{"type": "object", "properties":
/// {}, "additionalProperties": false}`, the form the spec recommends (only the empty
/// object), with the empty `properties` that some clients expect of every tool. Arguments
/// sent anyway are not refused: the handler reads none of them.
pub fn empty_object_schema() -> JsonObject {
    let mut o = JsonObject::new();
    o.insert("type".into(), "object".into());
    o.insert("properties".into(), Value::Object(JsonObject::new()));
    o.insert("additionalProperties".into(), Value::Bool(false));
    o
}

/// Wraps a non-object output schema as `{ "type": "object", "properties": { "result": S } }`,
/// matching how such results are sent as structured content (`{"result": value}`), since
/// revisions before 2026 require structured content to be an object.
/// References to the schema's root (`"$ref": "#"`, a recursive type's) are pointed at its
/// new place; references into `$defs` stay as they are, the definitions moving to the
/// root with them.
pub fn wrap_in_result_object(mut schema: JsonObject) -> JsonObject {
    let mut defs = schema.remove("$defs");
    schema.values_mut().chain(defs.as_mut()).for_each(|v| rebase_root_refs(v, "#/properties/result"));
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
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Point {
        x: i32,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Numbers {
        count: usize,
        small: u16,
        offset: i32,
        big: u64,
        ratio: f64,
        when: Vec<Stamp>,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Stamp {
        #[schemars(extend("format" = "date-time"))]
        at: String,
        seconds: u32,
    }

    #[test]
    fn number_formats_become_ranges_and_standard_formats_stay() {
        let schema = Value::Object(input_schema_for::<Numbers>());
        let properties = &schema["properties"];
        assert_eq!(properties["count"], json!({ "type": "integer", "minimum": 0 }));
        assert_eq!(properties["small"], json!({ "type": "integer", "minimum": 0, "maximum": 65535 }));
        assert_eq!(
            properties["offset"],
            json!({ "type": "integer", "minimum": -2147483648_i64, "maximum": 2147483647 })
        );
        assert_eq!(properties["big"], json!({ "type": "integer", "minimum": 0 }));
        assert_eq!(properties["ratio"], json!({ "type": "number" }));
        let stamp = &schema["properties"]["when"]["items"]["properties"];
        assert_eq!(stamp["at"], json!({ "type": "string", "format": "date-time" }));
        assert_eq!(stamp["seconds"], json!({ "type": "integer", "minimum": 0, "maximum": 4294967295_u64 }));
    }

    #[test]
    fn any_value_arguments_get_an_open_object_schema() {
        assert_eq!(Value::Object(input_schema_for::<Value>()), json!({ "type": "object", "properties": {} }));
    }

    #[test]
    fn typed_arguments_keep_their_generated_schema() {
        assert_eq!(input_schema_for::<Point>(), schema_for::<Point>());
        assert!(is_object_schema(&input_schema_for::<Point>()));
        let map = input_schema_for::<serde_json::Map<String, Value>>();
        let mut generated = schema_for::<serde_json::Map<String, Value>>();
        assert!(!generated.contains_key("properties"));
        generated.insert("properties".into(), json!({}));
        assert_eq!(map, generated);
        assert!(is_object_schema(&map));
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct NoFields {}

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct AnyFields {
        anything: Value,
        maybe: Option<Value>,
    }

    #[test]
    fn arguments_without_fields_still_have_properties() {
        let schema = input_schema_for::<NoFields>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"], json!({}));
    }

    #[test]
    fn a_property_of_any_value_is_an_empty_object_schema() {
        let schema = input_schema_for::<AnyFields>();
        assert_eq!(schema["properties"]["anything"], json!({}));
        assert!(schema["properties"]["maybe"].is_object(), "{schema:?}");
        let output = tool_schema_for::<AnyFields>();
        assert_eq!(output["properties"]["anything"], json!({}));
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Expr {
        Num(i64),
        Add(Box<Expr>, Box<Expr>),
    }

    /// A recursive struct: under `$defs`, where it recurs.
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Node {
        children: Vec<Node>,
    }

    #[test]
    fn a_wrapped_recursive_schema_still_refers_to_itself() {
        let schema = tool_schema_for::<Expr>();
        assert!(
            schema.get("$ref").is_none()
                && serde_json::to_string(&schema).unwrap().contains(r##""$ref":"#""##)
        );
        let wrapped = Value::Object(wrap_in_result_object(schema));
        let text = wrapped.to_string();
        assert!(!text.contains(r##""$ref":"#""##), "{text}");
        assert!(text.contains(r##""$ref":"#/properties/result""##), "{text}");
        let mut defs = Value::Object(wrap_in_result_object(tool_schema_for::<Option<Vec<Node>>>()));
        let recurs = "/properties/result/anyOf/0/items/properties/children/items/$ref";
        assert_eq!(defs.pointer(recurs), Some(&json!("#/$defs/Node")), "{defs}");
        assert!(defs["$defs"]["Node"].is_object(), "{defs}");
        rebase_root_refs(&mut defs, "#/properties/result");
        assert_eq!(defs.pointer(recurs), Some(&json!("#/$defs/Node")), "{defs}");
    }

    /// Two types that recur through each other, beside one that does not.
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Person {
        name: String,
        employer: Option<Box<Company>>,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Company {
        staff: Vec<Person>,
        seat: Point,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Directory {
        first: Person,
        at: Point,
    }

    #[test]
    fn types_that_recur_through_each_other_are_defined_once_and_the_rest_written_in_place() {
        let schema = Value::Object(input_schema_for::<Directory>());
        let x = json!({ "type": "integer", "minimum": -2147483648_i64, "maximum": 2147483647 });
        let point = json!({ "type": "object", "properties": { "x": x }, "required": ["x"] });
        assert_eq!(schema["properties"]["at"], point, "{schema}");
        let defs = schema["$defs"].as_object().unwrap();
        let mut names: Vec<&String> = defs.keys().collect();
        names.sort();
        assert_eq!(names, ["Company", "Person"], "{schema}");
        assert_eq!(defs["Company"]["properties"]["seat"], point, "{schema}");
        assert_eq!(defs["Company"]["properties"]["staff"]["items"], json!({ "$ref": "#/$defs/Person" }));
        let employer = &schema["properties"]["first"]["properties"]["employer"]["anyOf"][0];
        assert_eq!(employer["properties"]["staff"]["items"], json!({ "$ref": "#/$defs/Person" }), "{schema}");
    }

    #[test]
    fn a_non_object_type_is_still_not_an_object_schema() {
        assert!(!is_object_schema(&input_schema_for::<String>()));
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        tag: Option<String>,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Optional {
        /// A label.
        label: Option<String>,
        #[schemars(default)]
        small: Option<u8>,
        list: Vec<Option<i64>>,
        words: Option<Vec<String>>,
        inner: Option<Inner>,
        nested: Inner,
        side: Option<Side>,
    }

    /// A side.
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Side {
        Left,
        Right,
    }

    #[test]
    fn a_nullable_single_type_becomes_two_branches_with_its_constraints_in_the_first() {
        let schema = input_schema_for::<Optional>();
        let properties = &schema["properties"];
        assert_eq!(
            properties["label"],
            json!({ "description": "A label.", "anyOf": [{ "type": "string" }, { "type": "null" }] })
        );
        assert_eq!(
            properties["small"],
            json!({
                "default": null,
                "anyOf": [
                    { "type": "integer", "minimum": 0, "maximum": 255 },
                    { "type": "null" }
                ]
            })
        );
        assert_eq!(
            properties["list"]["items"],
            json!({ "anyOf": [{ "type": "integer" }, { "type": "null" }] })
        );
        assert_eq!(
            properties["words"],
            json!({ "anyOf": [{ "type": "array", "items": { "type": "string" } }, { "type": "null" }] })
        );
        // A struct, written in place: its properties move into the first branch, and are
        // rewritten too.
        let tag = json!({ "anyOf": [{ "type": "string" }, { "type": "null" }] });
        assert_eq!(
            properties["inner"],
            json!({ "anyOf": [{ "type": "object", "properties": { "tag": tag } }, { "type": "null" }] })
        );
        assert_eq!(properties["nested"], json!({ "type": "object", "properties": { "tag": tag } }));
        // A unit-only enum, whose `enum` lists `null`: the first branch lists the rest.
        assert_eq!(
            properties["side"],
            json!({
                "description": "A side.",
                "anyOf": [{ "type": "string", "enum": ["Left", "Right"] }, { "type": "null" }]
            })
        );
        assert!(schema.get("$defs").is_none(), "{schema:?}");
        assert_eq!(schema["required"], json!(["list", "nested"]));
        assert!(!serde_json::to_string(&schema).unwrap().contains(r#""null"]"#), "no type array is left");
    }

    #[test]
    fn the_definitions_stay_at_the_root_of_a_nullable_root() {
        let schema = tool_schema_for::<Option<Vec<Node>>>();
        let node = json!({
            "description": "A recursive struct: under `$defs`, where it recurs.",
            "type": "object",
            "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/Node" } } },
            "required": ["children"]
        });
        assert_eq!(schema["$defs"], json!({ "Node": node }), "{schema:?}");
        assert_eq!(schema["anyOf"], json!([{ "type": "array", "items": node }, { "type": "null" }]));
    }

    #[test]
    fn other_type_lists_and_property_names_are_left_alone() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "type": { "type": ["string", "number"] },
                "either": { "type": ["string", "number", "null"] },
                "already": { "type": ["string", "null"], "anyOf": [{ "minLength": 1 }, { "type": "null" }] },
                "closed": { "type": ["string", "null"], "enum": ["a", "b"] },
                "named": { "type": ["object", "null"], "$ref": "#/$defs/Inner" }
            }
        })
        .as_object()
        .cloned()
        .unwrap();
        let before = schema.clone();
        portable_nullable(&mut schema);
        assert_eq!(schema, before);
    }
}
