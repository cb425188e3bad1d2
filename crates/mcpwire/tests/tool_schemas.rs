//! The schemas a server publishes for its tools, as a client reads them: each one says
//! what the tool takes and sends, so that a client checking arguments or structured
//! content against it takes what the tool really does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use mcpwire::server::{tool, Args, Json, Server};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The listed tool `name` of a server, and the result of calling it with `arguments`.
async fn list_and_call(server: Server, name: &str, arguments: Value) -> (Value, Value) {
    let mut raw = initialized(server).await;
    raw.request(1, "tools/list", json!({})).await;
    let listed = expect_result(&raw.next().await, 1);
    let tool = listed["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).cloned().unwrap();
    raw.request(2, "tools/call", json!({ "name": name, "arguments": arguments })).await;
    (tool, expect_result(&raw.next().await, 2))
}

/// An output type whose serialized form differs from its deserialized one, as serde's
/// attributes make it.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all(serialize = "camelCase"))]
struct Report {
    title: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    next_page: String,
    #[serde(skip_deserializing)]
    row_count: u32,
}

/// A tool's output schema is that of what its type serializes to: a field serde may skip
/// is not required, and each is named as it is sent. (The schema of what the type
/// deserializes from required `warnings` and `next_page`, which the result leaves out,
/// named them in snake case and left out `rowCount`: a client checking the structured
/// content against the schema refused the result.)
#[tokio::test]
async fn the_output_schema_describes_the_serialized_value() {
    let server = Server::builder("s", "1")
        .tool(tool("report").handler(|| async {
            Json(Report { title: "t".into(), warnings: vec![], next_page: String::new(), row_count: 3 })
        }))
        .build()
        .unwrap();
    let (listed, result) = list_and_call(server, "report", json!({})).await;
    let schema = &listed["outputSchema"];
    let structured = &result["structuredContent"];
    assert_eq!(structured, &json!({ "title": "t", "rowCount": 3 }));
    // Sorted: built with the CLI, serde_json keeps insertion order (`preserve_order`).
    let mut properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    properties.sort();
    assert_eq!(properties, ["nextPage", "rowCount", "title", "warnings"], "{schema}");
    for required in schema["required"].as_array().unwrap() {
        assert!(structured.get(required.as_str().unwrap()).is_some(), "{required} is required: {schema}");
    }
}

/// Arguments that are one of several shapes, told apart by `kind`.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

/// Arguments that are one struct or another, untagged.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum Lookup {
    ById { id: u32 },
    ByName { name: String },
}

/// A tool whose arguments are an enum of objects builds, and its input schema is an
/// object schema (`"type": "object"` beside the generated `oneOf`/`anyOf`), which a
/// client takes and checks arguments against. (It had no root `type`, so the server
/// refused to build: "the input schema must be a JSON object with "type": "object"".)
#[tokio::test]
async fn arguments_of_an_enum_of_objects_have_an_object_schema() {
    let area = tool("area").handler(|Args(shape): Args<Shape>| async move {
        match shape {
            Shape::Circle { radius } => format!("{:.1}", std::f64::consts::PI * radius * radius),
            Shape::Square { side } => format!("{:.1}", side * side),
        }
    });
    let server = Server::builder("s", "1").tool(area).build().unwrap();
    let (listed, result) = list_and_call(server, "area", json!({ "kind": "square", "side": 3 })).await;
    let schema = &listed["inputSchema"];
    assert_eq!(schema["type"], "object", "{schema}");
    assert_eq!(schema["oneOf"].as_array().map(Vec::len), Some(2), "{schema}");
    assert_eq!(result["content"][0]["text"], "9.0", "{result}");

    let find = tool("find").handler(|Args(lookup): Args<Lookup>| async move {
        match lookup {
            Lookup::ById { id } => format!("id {id}"),
            Lookup::ByName { name } => format!("name {name}"),
        }
    });
    let server = Server::builder("s", "1").tool(find).build().unwrap();
    let (listed, result) = list_and_call(server, "find", json!({ "name": "ada" })).await;
    assert_eq!(listed["inputSchema"]["type"], "object", "{listed}");
    assert!(listed["inputSchema"]["anyOf"].is_array(), "{listed}");
    assert_eq!(result["content"][0]["text"], "name ada", "{result}");
}

/// Arguments with a variant that is not an object (a unit variant, a string).
#[derive(Deserialize, JsonSchema)]
enum Step {
    Stop,
    Move { by: i32 },
}

/// The root branches that take no object are left out of such a schema: the arguments
/// are an object, and a branch that contradicts the root's `type` is refused by a strict
/// validator (Ajv's `strictTypes`).
#[tokio::test]
async fn no_root_branch_of_an_argument_schema_contradicts_its_object_type() {
    let step = tool("step").handler(|Args(step): Args<Step>| async move {
        match step {
            Step::Stop => "stop".to_owned(),
            Step::Move { by } => format!("move {by}"),
        }
    });
    let paged = tool("paged").handler(
        |Args(page): Args<Option<std::collections::HashMap<String, u32>>>| async move {
            format!("{}", page.map_or(0, |p| p.len()))
        },
    );
    let server = Server::builder("s", "1").tool(step).tool(paged).build().unwrap();
    let (listed, result) = list_and_call(server.clone(), "step", json!({ "Move": { "by": 2 } })).await;
    assert_eq!(listed["inputSchema"]["type"], "object");
    let branches = listed["inputSchema"]["oneOf"].as_array().unwrap();
    assert_eq!(branches.len(), 1, "{listed}");
    assert_eq!(branches[0]["required"], json!(["Move"]), "{listed}");
    assert_eq!(result["content"][0]["text"], "move 2", "{result}");
    let (listed, result) = list_and_call(server, "paged", json!({ "a": 1 })).await;
    let text = listed["inputSchema"].to_string();
    assert!(!text.contains(r#""null""#), "{text}");
    assert_eq!(result["content"][0]["text"], "1", "{result}");
}

/// Arguments whose type admits no object at all still cannot make an input schema.
#[test]
fn arguments_that_are_never_an_object_are_still_refused() {
    let refused = Server::builder("s", "1")
        .tool(tool("t").handler(|Args(text): Args<Option<String>>| async move { text.unwrap_or_default() }))
        .build()
        .unwrap_err();
    assert!(refused.to_string().contains("input schema"), "{refused}");
}

#[derive(Serialize, JsonSchema)]
struct Stats {
    count: u32,
    mean: f64,
}

/// A structured result with a NaN or an infinite number (JSON has neither; serde_json
/// writes `null`) is the tool's failure, named where it is, and not content that breaks
/// the output schema's `"type": "number"`, which a client checking it refused whole.
#[tokio::test]
async fn a_result_with_a_number_json_cannot_carry_is_a_tool_error() {
    let mean =
        tool("mean").handler(|Args(values): Args<std::collections::HashMap<String, Vec<f64>>>| async move {
            let values = values.get("values").cloned().unwrap_or_default();
            Json(Stats { count: values.len() as u32, mean: values.iter().sum::<f64>() / values.len() as f64 })
        });
    let server = Server::builder("s", "1").tool(mean).build().unwrap();
    let (listed, result) = list_and_call(server, "mean", json!({ "values": [] })).await;
    assert_eq!(listed["outputSchema"]["properties"]["mean"]["type"], "number");
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("NaN or infinite") && text.contains("`mean`"), "{text}");

    let mean = tool("mean").handler(|| async { Json(Stats { count: 2, mean: 1.5 }) });
    let server = Server::builder("s", "1").tool(mean).build().unwrap();
    let (_, result) = list_and_call(server, "mean", json!({})).await;
    assert_eq!(result["structuredContent"], json!({ "count": 2, "mean": 1.5 }), "{result}");
}

/// A ledger's totals, in integers wider than JSON numbers are read as (64 bits).
#[derive(Serialize, JsonSchema)]
struct Totals {
    entries: u32,
    balance: i128,
}

/// The total of some amounts, as a `#[mcpwire::tool]` returning a struct.
#[mcpwire::tool]
async fn total(amounts: Vec<i64>) -> Totals {
    Totals {
        entries: amounts.len() as u32,
        balance: amounts.iter().map(|a| i128::from(*a) * 1_000_000).sum(),
    }
}

/// A structured result that JSON cannot carry (a 128-bit integer beyond 64 bits, which
/// serde_json refuses to write, as it does a map whose keys are not strings) is the
/// tool's own failure: a result with `isError: true` saying where, not a JSON-RPC
/// `-32603` (the spec reports a tool's failures in its result), whichever way the tool
/// is declared. A 128-bit value that fits is sent as it is.
#[tokio::test]
async fn a_result_json_cannot_write_is_a_tool_error() {
    let wide = tool("wide").handler(|| async { Json(u128::MAX) });
    let keyed = tool("keyed")
        .handler(|| async { Json(std::collections::BTreeMap::from([((1, 2), "a pair as a key")])) });
    let server = Server::builder("s", "1").tool(total_tool()).tool(wide).tool(keyed).build().unwrap();
    let (_, result) =
        list_and_call(server.clone(), "total", json!({ "amounts": [i64::MAX, i64::MAX] })).await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("64 bits") && text.contains("`balance`"), "{text}");
    let (_, result) = list_and_call(server.clone(), "wide", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(result["content"][0]["text"].as_str().unwrap().contains("the value itself"), "{result}");
    let (_, result) = list_and_call(server.clone(), "keyed", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("cannot be written as JSON") && text.contains("key must be a string"), "{text}");
    let (_, result) = list_and_call(server, "total", json!({ "amounts": [1, -3] })).await;
    assert_eq!(result["structuredContent"], json!({ "entries": 2, "balance": -2_000_000 }), "{result}");
}

/// A place on the map.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
struct Place {
    /// Degrees north.
    lat: f64,
    lon: f64,
}

/// How to travel.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Walk,
    Drive,
}

/// A region and the regions in it: a recursive type.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Region {
    name: String,
    parts: Vec<Region>,
}

/// A trip as planned: where it starts and its legs.
#[derive(Serialize, JsonSchema)]
struct Plan {
    start: Place,
    legs: Vec<Leg>,
}

#[derive(Serialize, JsonSchema)]
struct Leg {
    to: Place,
    mode: Mode,
}

/// Plans a trip.
#[mcpwire::tool]
async fn trip(
    /// Where to start.
    from: Place,
    mode: Mode,
    via: Option<Place>,
    stops: Vec<Place>,
    back: Option<Mode>,
    region: Region,
) -> Plan {
    let legs = via.into_iter().chain(stops).map(|to| Leg { to, mode: back.unwrap_or(mode) }).collect();
    let _ = region.parts.len();
    Plan { start: from, legs }
}

// The same fields as `trip`'s parameters on purpose, not merged into it: the test below
// holds the two ways to declare a tool's arguments (parameters of `#[mcpwire::tool]`,
// and `Args<T>`) to one schema, and needs one tool of each.
/// The arguments of `trip`, as one struct.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Trip {
    /// Where to start.
    from: Place,
    mode: Mode,
    via: Option<Place>,
    stops: Vec<Place>,
    back: Option<Mode>,
    region: Region,
}

/// Every non-recursive named type of a tool's schemas is written in place, as hosts that
/// do not follow `$ref` (several strip `$defs`, or fail on them) need: a nested struct,
/// an enum, an `Option` and a `Vec` of them, in the arguments of `#[mcpwire::tool]` and
/// of `Args<T>`, and in structured results. A recursive type keeps a `$ref` to its one
/// definition under `$defs` where it recurs.
#[tokio::test]
async fn named_types_are_written_in_place_and_only_recursion_refers() {
    let place = json!({
        "description": "A place on the map.",
        "type": "object",
        "properties": { "lat": { "description": "Degrees north.", "type": "number" }, "lon": { "type": "number" } },
        "required": ["lat", "lon"]
    });
    let place_fields = json!({
        "type": "object",
        "properties": place["properties"],
        "required": ["lat", "lon"]
    });
    let mode = json!({ "description": "How to travel.", "type": "string", "enum": ["walk", "drive"] });
    let region = region_schema();
    let mut from = place.clone();
    from["description"] = json!("Where to start.");
    let properties = json!({
        "from": from,
        "mode": mode,
        "via": { "description": "A place on the map.", "anyOf": [place_fields, { "type": "null" }] },
        "stops": { "type": "array", "items": place },
        "back": { "description": "How to travel.", "anyOf": [{ "type": "string", "enum": ["walk", "drive"] }, { "type": "null" }] },
        "region": region
    });
    let plan = json!({
        "title": "Plan",
        "description": "A trip as planned: where it starts and its legs.",
        "type": "object",
        "properties": {
            "start": place,
            "legs": { "type": "array", "items": {
                "type": "object",
                "properties": { "to": place, "mode": mode },
                "required": ["to", "mode"]
            } }
        },
        "required": ["start", "legs"]
    });
    let whole = tool("trip_whole")
        .handler(|Args(trip): Args<Trip>| async move { Json(Plan { start: trip.from, legs: vec![] }) });
    let server = Server::builder("s", "1").tool(trip_tool()).tool(whole).build().unwrap();
    let arguments = json!({
        "from": { "lat": 1.0, "lon": 2.0 },
        "mode": "walk",
        "via": { "lat": 3.0, "lon": 4.0 },
        "stops": [{ "lat": 5.0, "lon": 6.0 }],
        "back": null,
        "region": { "name": "a", "parts": [{ "name": "b", "parts": [] }] }
    });
    for (name, title) in [("trip", "tripArguments"), ("trip_whole", "Trip")] {
        let (listed, result) = list_and_call(server.clone(), name, arguments.clone()).await;
        let schema = &listed["inputSchema"];
        let mut expected = json!({
            "title": title,
            "type": "object",
            "properties": properties,
            "required": ["from", "mode", "stops", "region"],
            "$defs": { "Region": region }
        });
        if name == "trip_whole" {
            expected["description"] = json!("The arguments of `trip`, as one struct.");
        }
        assert_eq!(schema, &expected, "{name}: {schema:#}");
        assert_eq!(listed["outputSchema"], plan, "{name}: {:#}", listed["outputSchema"]);
        assert_eq!(result["structuredContent"]["start"], json!({ "lat": 1.0, "lon": 2.0 }), "{result}");
    }
}

/// `Region`'s schema, written in place, where it recurs referring to its definition.
fn region_schema() -> Value {
    json!({
        "description": "A region and the regions in it: a recursive type.",
        "type": "object",
        "properties": {
            "name": { "type": "string" },
            "parts": { "type": "array", "items": { "$ref": "#/$defs/Region" } }
        },
        "required": ["name", "parts"]
    })
}

/// A region, as the result of a tool.
#[mcpwire::tool]
async fn regions(name: String) -> Vec<Region> {
    vec![Region { name, parts: vec![] }]
}

/// A recursive type as a result: where it recurs, the schema refers to its one
/// definition; at its root, to the root (`#`), moved with it when the value is wrapped.
#[tokio::test]
async fn a_recursive_result_refers_to_its_definition() {
    let region = tool("region").handler(|| async { Json(Region { name: "a".into(), parts: vec![] }) });
    let server = Server::builder("s", "1").tool(regions_tool()).tool(region).build().unwrap();
    let (listed, result) = list_and_call(server.clone(), "regions", json!({ "name": "x" })).await;
    assert_eq!(
        listed["outputSchema"],
        json!({
            "type": "object",
            "properties": { "result": { "title": "Array_of_Region", "type": "array", "items": region_schema() } },
            "required": ["result"],
            "$defs": { "Region": region_schema() }
        }),
        "{:#}",
        listed["outputSchema"]
    );
    assert_eq!(result["structuredContent"], json!({ "result": [{ "name": "x", "parts": [] }] }), "{result}");
    let (listed, _) = list_and_call(server, "region", json!({})).await;
    assert_eq!(listed["outputSchema"]["properties"]["parts"]["items"], json!({ "$ref": "#" }), "{listed}");
    assert!(listed["outputSchema"].get("$defs").is_none(), "{listed}");
}

/// A calculation: a recursive type with a variant that is not an object.
#[derive(Debug, Deserialize, JsonSchema)]
enum Calc {
    Zero,
    Num(i64),
    Add(Box<Calc>, Box<Calc>),
}

impl Calc {
    fn value(&self) -> i64 {
        match self {
            Calc::Zero => 0,
            Calc::Num(n) => *n,
            Calc::Add(a, b) => a.value() + b.value(),
        }
    }
}

/// The schema `$ref` points at, within `document`.
fn resolve<'a>(document: &'a Value, reference: &Value) -> &'a Value {
    let pointer = reference.as_str().and_then(|r| r.strip_prefix('#')).unwrap();
    document.pointer(pointer).unwrap()
}

/// Arguments of a recursive type whose root the input schema narrows to objects (the
/// arguments are one) still take, where the type recurs, every value of it: a nested
/// `"Zero"`, which the tool takes, is one of the shapes the schema allows there. (Those
/// places referred to the root, `#`, which takes objects only: a client or model checking
/// arguments against the schema refused `{"Add": ["Zero", {"Num": 1}]}`.)
#[tokio::test]
async fn where_a_narrowed_root_type_recurs_every_value_of_it_is_allowed() {
    let calc = tool("calc").handler(|Args(calc): Args<Calc>| async move { calc.value().to_string() });
    let server = Server::builder("s", "1").tool(calc).build().unwrap();
    let arguments = json!({ "Add": ["Zero", { "Num": 2 }] });
    let (listed, result) = list_and_call(server, "calc", arguments).await;
    assert_eq!(result["content"][0]["text"], "2", "{result}");
    let schema = &listed["inputSchema"];
    assert_eq!(schema["type"], "object", "{schema}");
    let root: Vec<&Value> = schema["oneOf"].as_array().unwrap().iter().collect();
    assert_eq!(root.len(), 2, "the root takes objects only: {schema}");
    assert!(!schema.to_string().contains(r##""$ref":"#""##), "{schema}");
    let add = root.iter().find(|b| b["required"] == json!(["Add"])).unwrap();
    for item in add["properties"]["Add"]["prefixItems"].as_array().unwrap() {
        let calc = resolve(schema, &item["$ref"]);
        let shapes = calc["oneOf"].as_array().unwrap();
        assert_eq!(shapes.len(), 3, "{calc}");
        assert!(shapes.contains(&json!({ "type": "string", "enum": ["Zero"] })), "{calc}");
        assert!(calc.get("type").is_none(), "{calc}");
    }
}
