//! `#[mcpwire::tool]`, `#[mcpwire::prompt]` and `#[mcpwire::resource]` on the signatures an
//! experienced Rust user writes: optional and list arguments, nested structs and enums of
//! their own, raw identifiers, descriptions from doc comments and `#[arg]`, extractors,
//! sync and async functions, `Result`s with each kind of error the docs name. Each must
//! compile, publish a schema a client can use (the spec's `inputSchema` rules: an object
//! at the root, the right `required`, every named type written in place rather than
//! behind a `$ref`), and run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use common::*;
use mcpwire::protocol::content::ContentBlock;
use mcpwire::protocol::tools::CallToolResult;
use mcpwire::server::{Args, Ctx, Json, Server, State, ToolError, Uri};
use mcpwire::McpError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A point on the plane.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Point {
    /// Across.
    x: f64,
    /// Up.
    y: f64,
}

/// A route: points and a label, nested two levels down.
#[derive(Debug, Deserialize, JsonSchema)]
struct Route {
    stops: Vec<Point>,
    label: Option<String>,
}

/// A unit-only enum, as a string.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Metres,
    Miles,
}

/// An internally tagged enum with data, as an argument.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Filter {
    Near { point: Point, within: f64 },
    Named { name: String },
}

/// Measures a route.
///
/// Adds up the straight lines between its stops.
#[mcpwire::tool(read_only_hint = true)]
async fn measure(
    #[arg(description = "The route to measure")] route: Route,
    unit: Option<Unit>,
    precision: Option<u8>,
) -> Result<String, ToolError> {
    if route.stops.is_empty() {
        return Err(ToolError::new("a route needs stops"));
    }
    let metres: f64 =
        route.stops.windows(2).map(|w| ((w[1].x - w[0].x).powi(2) + (w[1].y - w[0].y).powi(2)).sqrt()).sum();
    let (value, name) = match unit.unwrap_or(Unit::Metres) {
        Unit::Metres => (metres, "m"),
        Unit::Miles => (metres / 1609.344, "mi"),
    };
    let label = route.label.unwrap_or_default();
    Ok(format!("{label}{value:.prec$} {name}", prec = usize::from(precision.unwrap_or(0))))
}

/// Filters points.
#[mcpwire::tool]
async fn filter(points: Vec<Point>, filter: Filter, tags: Option<Vec<String>>) -> Vec<Point> {
    let _ = tags;
    match filter {
        Filter::Near { point, within } => points
            .into_iter()
            .filter(|p| ((p.x - point.x).powi(2) + (p.y - point.y).powi(2)).sqrt() <= within)
            .collect(),
        Filter::Named { name } => points.into_iter().filter(|_| name == "all").collect(),
    }
}

/// Raw identifiers are the arguments' names without `r#`; a map is an object.
#[mcpwire::tool(name = "type-count", title = "Type counter")]
fn type_count(r#type: String, counts: HashMap<String, u32>) -> Result<u32, String> {
    counts.get(&r#type).copied().ok_or_else(|| format!("no {type}", type = r#type))
}

/// The mean, as structured content, or an I/O error the model sees.
#[mcpwire::tool]
async fn mean(values: Vec<f64>) -> Result<Json<Stats>, std::io::Error> {
    if values.is_empty() {
        return Err(std::io::Error::other("no values"));
    }
    Ok(Json(Stats { count: values.len() as u32, mean: values.iter().sum::<f64>() / values.len() as f64 }))
}

#[derive(Serialize, JsonSchema)]
struct Stats {
    count: u32,
    mean: f64,
}

/// A struct returned in a `Result` with a boxed error.
#[mcpwire::tool]
async fn midpoint(a: Point, b: Point) -> Result<Point, Box<dyn std::error::Error + Send + Sync>> {
    if a.x.is_nan() {
        return Err("not a number".into());
    }
    Ok(Point { x: (a.x + b.x) / 2.0, y: (a.y + b.y) / 2.0 })
}

/// A protocol error rather than a tool error.
#[mcpwire::tool]
async fn strict(n: i64) -> Result<CallToolResult, McpError> {
    if n < 0 {
        return Err(McpError::invalid_params("n must not be negative"));
    }
    Ok(CallToolResult::text(n.to_string()))
}

/// Content blocks, or a serde error.
#[mcpwire::tool]
fn parse(text: String) -> Result<Vec<ContentBlock>, serde_json::Error> {
    let value: Value = serde_json::from_str(&text)?;
    Ok(vec![ContentBlock::text(value.to_string())])
}

/// Nothing back but success; a `&'static str` error.
#[mcpwire::tool]
async fn touch(path: String) -> Result<(), &'static str> {
    if path.is_empty() {
        return Err("no path");
    }
    Ok(())
}

/// `?` on any error, through `ToolError`.
#[mcpwire::tool]
async fn parse_number(text: String) -> Result<i64, ToolError> {
    Ok(text.trim().parse::<i64>()?)
}

/// An `Option` returned is structured content, `{"result": ...}`.
#[mcpwire::tool]
async fn find_unit(name: String) -> Option<Unit> {
    match name.as_str() {
        "m" => Some(Unit::Metres),
        "mi" => Some(Unit::Miles),
        _ => None,
    }
}

/// Shared state and the context, beside arguments, in any order, named by path.
#[mcpwire::tool]
async fn count_calls(
    State(counter): State<Arc<std::sync::atomic::AtomicU32>>,
    by: Option<u32>,
    ctx: mcpwire::server::Ctx,
) -> String {
    assert!(!ctx.cancellation().is_cancelled());
    let n = counter.fetch_add(by.unwrap_or(1), std::sync::atomic::Ordering::SeqCst);
    n.to_string()
}

/// A sync function with `mut` parameters and a tuple.
#[mcpwire::tool]
fn scale(mut point: Point, factor: (f64, f64)) -> Point {
    point.x *= factor.0;
    point.y *= factor.1;
    point
}

/// The whole arguments as one struct.
#[mcpwire::tool]
async fn route_length(_ctx: Ctx, Args(route): Args<Route>) -> usize {
    route.stops.len()
}

/// Free-form JSON, under a nested name.
#[mcpwire::tool]
async fn echo_json(payload: Value, extra: Option<serde_json::Map<String, Value>>) -> Value {
    json!({ "payload": payload, "extra": extra })
}

mod nested {
    /// A tool in a module, registered by path.
    #[mcpwire::tool]
    pub async fn ping() -> &'static str {
        "pong"
    }
}

/// A prompt with a typed, an optional and an enum argument.
#[mcpwire::prompt(title = "Plan a trip")]
async fn plan(
    #[arg(description = "Where to")] destination: String,
    days: Option<u32>,
    unit: Option<Unit>,
    ctx: Ctx,
) -> Result<String, McpError> {
    let _ = ctx;
    let unit = match unit {
        Some(Unit::Miles) => "miles",
        _ => "metres",
    };
    Ok(format!("Plan {} days in {destination}, in {unit}.", days.unwrap_or(3)))
}

/// A template with two typed variables and the URI read.
#[mcpwire::resource(uri = "maps://{zone}/{zoom}", mime_type = "text/plain", title = "Map tile")]
async fn tile(zone: String, zoom: u8, Uri(uri): Uri) -> Result<String, McpError> {
    if zoom > 20 {
        return Err(McpError::invalid_params("zoom at most 20"));
    }
    Ok(format!("{uri}: {zone} at {zoom}"))
}

/// A fixed resource, sync, taking state.
#[mcpwire::resource(uri = "maps://index")]
fn index(State(counter): State<Arc<std::sync::atomic::AtomicU32>>) -> String {
    format!("{} calls", counter.load(std::sync::atomic::Ordering::SeqCst))
}

fn server() -> Server {
    Server::builder("signatures", "1")
        .state(Arc::new(std::sync::atomic::AtomicU32::new(0)))
        .register_all(mcpwire::definitions![
            measure,
            filter,
            type_count,
            mean,
            midpoint,
            strict,
            parse,
            touch,
            parse_number,
            find_unit,
            count_calls,
            scale,
            route_length,
            echo_json,
            nested::ping,
            plan,
            tile,
            index
        ])
        .build()
        .unwrap()
}

/// The spec's rules for an `inputSchema` (2025-11-25 and 2026-07-28): an object at the
/// root, each property an object schema, `required` naming properties only.
fn check_input_schema(name: &str, schema: &Value) {
    assert_eq!(schema["type"], "object", "{name}: {schema}");
    let properties = schema["properties"].as_object().unwrap_or_else(|| panic!("{name}: {schema}"));
    for (property, subschema) in properties {
        assert!(subschema.is_object(), "{name}.{property}: {subschema}");
    }
    for required in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
        assert!(
            properties.contains_key(required.as_str().unwrap()),
            "{name}: {required} required, not a property"
        );
    }
}

fn required(schema: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    names.sort();
    names
}

async fn list(raw: &mut RawPeer, id: i64, method: &str) -> Value {
    raw.request(id, method, json!({})).await;
    expect_result(&raw.next().await, id)
}

async fn call(raw: &mut RawPeer, id: i64, name: &str, arguments: Value) -> Value {
    raw.request(id, "tools/call", json!({ "name": name, "arguments": arguments })).await;
    expect_result(&raw.next().await, id)
}

#[tokio::test]
async fn every_tool_publishes_a_schema_a_client_can_use() {
    let mut raw = initialized(server()).await;
    let listed = list(&mut raw, 1, "tools/list").await;
    let tools: HashMap<&str, &Value> =
        listed["tools"].as_array().unwrap().iter().map(|t| (t["name"].as_str().unwrap(), t)).collect();
    assert_eq!(tools.len(), 15, "{listed}");
    for (name, tool) in &tools {
        check_input_schema(name, &tool["inputSchema"]);
        // No type here recurs: no schema refers to a definition.
        let text = tool.to_string();
        assert!(!text.contains("$ref") && !text.contains("$defs"), "{name}: {text}");
        if let Some(output) = tool.get("outputSchema") {
            assert_eq!(output["type"], "object", "{name}: {output}");
        }
    }

    let measure = tools["measure"];
    assert_eq!(measure["description"], "Measures a route.\n\nAdds up the straight lines between its stops.");
    assert_eq!(measure["annotations"]["readOnlyHint"], true);
    let schema = &measure["inputSchema"];
    assert_eq!(required(schema), ["route"]);
    assert_eq!(schema["properties"]["route"]["description"], "The route to measure", "{schema}");
    // Nested types are written in place, the parameter's description winning over the
    // type's doc comment.
    let route = &schema["properties"]["route"];
    assert_eq!(route["type"], "object", "{schema}");
    assert_eq!(required(route), ["stops"]);
    let point = &route["properties"]["stops"]["items"];
    assert_eq!(point["description"], "A point on the plane.", "{point}");
    assert_eq!(point["properties"]["x"]["description"], "Across.", "{point}");
    assert!(measure.get("outputSchema").is_none(), "text results declare no output schema");

    let filter = &tools["filter"]["inputSchema"];
    assert_eq!(required(filter), ["filter", "points"]);
    let tags = &filter["properties"]["tags"];
    assert_eq!(tags["anyOf"][1], json!({ "type": "null" }), "optional in the portable form: {tags}");
    assert_eq!(tools["filter"]["outputSchema"]["required"], json!(["result"]));

    let counter = &tools["type-count"];
    assert_eq!(counter["title"], "Type counter");
    assert_eq!(required(&counter["inputSchema"]), ["counts", "type"]);
    assert_eq!(counter["inputSchema"]["properties"]["counts"]["type"], "object");

    assert_eq!(required(&tools["count_calls"]["inputSchema"]), Vec::<&str>::new());
    assert!(tools["count_calls"]["inputSchema"]["properties"].get("ctx").is_none());
    assert_eq!(tools["route_length"]["inputSchema"]["required"], json!(["stops"]));
    assert_eq!(tools["ping"]["inputSchema"]["properties"], json!({}));
    assert_eq!(tools["mean"]["outputSchema"]["required"], json!(["count", "mean"]));
    assert_eq!(tools["echo_json"]["inputSchema"]["properties"]["payload"], json!({}));
}

#[tokio::test]
async fn every_tool_runs_with_what_its_schema_describes() {
    let mut raw = initialized(server()).await;
    let route = json!({ "stops": [{ "x": 0, "y": 0 }, { "x": 3, "y": 4 }], "label": "walk: " });
    let result =
        call(&mut raw, 1, "measure", json!({ "route": route, "unit": "metres", "precision": 1 })).await;
    assert_eq!(result["content"][0]["text"], "walk: 5.0 m", "{result}");
    let result = call(&mut raw, 2, "measure", json!({ "route": { "stops": [] } })).await;
    assert_eq!(
        (result["isError"].clone(), result["content"][0]["text"].clone()),
        (json!(true), json!("a route needs stops"))
    );

    let points = json!([{ "x": 0, "y": 0 }, { "x": 9, "y": 9 }]);
    let near = json!({ "kind": "near", "point": { "x": 1, "y": 1 }, "within": 2 });
    let result = call(&mut raw, 3, "filter", json!({ "points": points, "filter": near, "tags": null })).await;
    assert_eq!(result["structuredContent"], json!({ "result": [{ "x": 0.0, "y": 0.0 }] }), "{result}");

    let result = call(&mut raw, 4, "type-count", json!({ "type": "a", "counts": { "a": 2 } })).await;
    assert_eq!(result["structuredContent"], json!({ "result": 2 }), "{result}");
    let result = call(&mut raw, 5, "type-count", json!({ "type": "b", "counts": {} })).await;
    assert_eq!(result["content"][0]["text"], "no b", "{result}");

    let result = call(&mut raw, 6, "mean", json!({ "values": [1, 2] })).await;
    assert_eq!(result["structuredContent"], json!({ "count": 2, "mean": 1.5 }), "{result}");
    let result = call(&mut raw, 7, "mean", json!({ "values": [] })).await;
    assert_eq!(
        (result["isError"].clone(), result["content"][0]["text"].clone()),
        (json!(true), json!("no values"))
    );

    let result =
        call(&mut raw, 8, "midpoint", json!({ "a": { "x": 0, "y": 0 }, "b": { "x": 2, "y": 4 } })).await;
    assert_eq!(result["structuredContent"], json!({ "x": 1.0, "y": 2.0 }), "{result}");

    let result = call(&mut raw, 9, "strict", json!({ "n": 4 })).await;
    assert_eq!(result["content"][0]["text"], "4");
    raw.request(10, "tools/call", json!({ "name": "strict", "arguments": { "n": -1 } })).await;
    assert_eq!(expect_error(&raw.next().await, 10).code, -32602);

    let result = call(&mut raw, 11, "parse", json!({ "text": "[1" })).await;
    assert_eq!(result["isError"], true, "{result}");
    let result = call(&mut raw, 12, "touch", json!({ "path": "" })).await;
    assert_eq!(result["content"][0]["text"], "no path");
    let result = call(&mut raw, 13, "touch", json!({ "path": "a" })).await;
    assert_eq!(result["content"], json!([]), "{result}");
    let result = call(&mut raw, 14, "parse_number", json!({ "text": "x" })).await;
    assert_eq!(result["content"][0]["text"], "invalid digit found in string", "{result}");
    let result = call(&mut raw, 15, "find_unit", json!({ "name": "mi" })).await;
    assert_eq!(result["structuredContent"], json!({ "result": "miles" }), "{result}");
    let result = call(&mut raw, 16, "find_unit", json!({ "name": "?" })).await;
    assert_eq!(result["structuredContent"], json!({ "result": null }), "{result}");

    let result = call(&mut raw, 17, "count_calls", json!({ "by": 5 })).await;
    assert_eq!(result["content"][0]["text"], "0", "{result}");
    let result = call(&mut raw, 18, "count_calls", json!({})).await;
    assert_eq!(result["content"][0]["text"], "5", "{result}");
    let result = call(&mut raw, 19, "scale", json!({ "point": { "x": 1, "y": 2 }, "factor": [2, 3] })).await;
    assert_eq!(result["structuredContent"], json!({ "x": 2.0, "y": 6.0 }), "{result}");
    let result = call(&mut raw, 20, "route_length", json!({ "stops": [{ "x": 0, "y": 0 }] })).await;
    assert_eq!(result["structuredContent"], json!({ "result": 1 }), "{result}");
    let result = call(&mut raw, 21, "echo_json", json!({ "payload": [1, "a"] })).await;
    assert_eq!(result["structuredContent"], json!({ "payload": [1, "a"], "extra": null }), "{result}");
    let result = call(&mut raw, 22, "ping", json!({})).await;
    assert_eq!(result["content"][0]["text"], "pong");

    // Arguments the schema refuses are refused before the function runs.
    raw.request(23, "tools/call", json!({ "name": "measure", "arguments": { "unit": "metres" } })).await;
    let refused = raw.next().await;
    let text = json_of(&refused).to_string();
    assert!(text.contains("route"), "{text}");
}

#[tokio::test]
async fn prompts_and_resources_from_the_macros_list_and_run() {
    let mut raw = initialized(server()).await;
    let prompts = list(&mut raw, 1, "prompts/list").await;
    let plan = &prompts["prompts"][0];
    assert_eq!((plan["name"].clone(), plan["title"].clone()), (json!("plan"), json!("Plan a trip")));
    let arguments: Vec<(String, bool)> = plan["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap().to_owned(), a["required"] == true))
        .collect();
    let expected = [("destination", true), ("days", false), ("unit", false)].map(|(n, r)| (n.to_owned(), r));
    assert_eq!(arguments, expected, "{plan}");
    assert_eq!(plan["arguments"][0]["description"], "Where to");
    let params =
        json!({ "name": "plan", "arguments": { "destination": "Oslo", "days": "2", "unit": "miles" } });
    raw.request(2, "prompts/get", params).await;
    let got = expect_result(&raw.next().await, 2);
    assert_eq!(got["messages"][0]["content"]["text"], "Plan 2 days in Oslo, in miles.", "{got}");

    let templates = list(&mut raw, 3, "resources/templates/list").await;
    let tile = &templates["resourceTemplates"][0];
    assert_eq!(tile["uriTemplate"], "maps://{zone}/{zoom}");
    assert_eq!((tile["title"].clone(), tile["mimeType"].clone()), (json!("Map tile"), json!("text/plain")));
    assert_eq!(tile["description"], "A template with two typed variables and the URI read.");
    raw.request(4, "resources/read", json!({ "uri": "maps://north/3" })).await;
    let read = expect_result(&raw.next().await, 4);
    assert_eq!(read["contents"][0]["text"], "maps://north/3: north at 3", "{read}");
    raw.request(5, "resources/read", json!({ "uri": "maps://north/30" })).await;
    assert_eq!(expect_error(&raw.next().await, 5).code, -32602);

    let resources = list(&mut raw, 6, "resources/list").await;
    assert_eq!(resources["resources"][0]["uri"], "maps://index", "{resources}");
    raw.request(7, "resources/read", json!({ "uri": "maps://index" })).await;
    let read = expect_result(&raw.next().await, 7);
    assert_eq!(read["contents"][0]["text"], "0 calls", "{read}");
}

/// Books a room: its arguments described by their doc comments.
#[mcpwire::tool]
async fn book(
    /// The guest's name.
    guest: String,
    /// How many nights,
    /// at least one.
    nights: Option<u32>,
    /// Loses to the attribute.
    #[arg(description = "The room's number")]
    room: u32,
    /// An extractor's doc comment is dropped.
    _ctx: Ctx,
) -> String {
    format!("{guest}: room {room}, {} nights", nights.unwrap_or(1))
}

/// A prompt whose argument has a doc comment.
#[mcpwire::prompt]
async fn welcome(
    /// Who arrives.
    guest: String,
) -> String {
    format!("Welcome {guest}.")
}

#[tokio::test]
async fn doc_comments_on_parameters_describe_the_arguments() {
    let server =
        Server::builder("docs", "1").register_all(mcpwire::definitions![book, welcome]).build().unwrap();
    let mut raw = initialized(server).await;
    let listed = list(&mut raw, 1, "tools/list").await;
    let schema = &listed["tools"][0]["inputSchema"];
    check_input_schema("book", schema);
    assert_eq!(required(schema), ["guest", "room"], "{schema}");
    let properties = &schema["properties"];
    assert_eq!(properties["guest"]["description"], "The guest's name.", "{schema}");
    assert_eq!(properties["nights"]["description"], "How many nights,\nat least one.", "{schema}");
    assert_eq!(properties["room"]["description"], "The room's number", "{schema}");
    assert!(properties.get("_ctx").is_none(), "{schema}");
    let result = call(&mut raw, 2, "book", json!({ "guest": "Ada", "room": 7 })).await;
    assert_eq!(result["content"][0]["text"], "Ada: room 7, 1 nights", "{result}");

    let prompts = list(&mut raw, 3, "prompts/list").await;
    assert_eq!(prompts["prompts"][0]["arguments"][0]["description"], "Who arrives.", "{prompts}");
}

/// Finds a user's posts: arguments renamed on the wire.
#[mcpwire::tool]
async fn posts(
    #[arg(rename = "userId", description = "Whose posts")] user_id: String,
    #[arg(rename = "maxResults")] max_results: Option<u32>,
    r#type: Option<String>,
) -> String {
    format!("{user_id}: {} {}", max_results.unwrap_or(10), r#type.unwrap_or_default())
}

/// A prompt with a renamed, required argument.
#[mcpwire::prompt]
async fn review(
    #[arg(rename = "pullRequest")] pull_request: u32,
    #[arg(rename = "inDepth")] in_depth: Option<bool>,
) -> String {
    format!("Review #{pull_request}{}.", if in_depth.unwrap_or(false) { " in depth" } else { "" })
}

/// A template whose variable is renamed.
#[mcpwire::resource(uri = "users://{userId}")]
async fn user(#[arg(rename = "userId")] user_id: String) -> String {
    format!("user {user_id}")
}

#[tokio::test]
async fn renamed_arguments_go_by_their_wire_names() {
    let server = Server::builder("rename", "1")
        .register_all(mcpwire::definitions![posts, review, user])
        .build()
        .unwrap();
    let mut raw = initialized(server).await;
    let listed = list(&mut raw, 1, "tools/list").await;
    let schema = &listed["tools"][0]["inputSchema"];
    check_input_schema("posts", schema);
    let mut properties: Vec<&str> =
        schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
    properties.sort();
    assert_eq!(properties, ["maxResults", "type", "userId"], "{schema}");
    assert_eq!(required(schema), ["userId"], "{schema}");
    assert_eq!(schema["properties"]["userId"]["description"], "Whose posts", "{schema}");
    let result =
        call(&mut raw, 2, "posts", json!({ "userId": "ada", "maxResults": 3, "type": "draft" })).await;
    assert_eq!(result["content"][0]["text"], "ada: 3 draft", "{result}");
    let result = call(&mut raw, 3, "posts", json!({ "userId": "ada" })).await;
    assert_eq!(result["content"][0]["text"], "ada: 10 ", "{result}");
    // The Rust name is not the wire name: without `userId` the call is refused.
    raw.request(4, "tools/call", json!({ "name": "posts", "arguments": { "user_id": "ada" } })).await;
    let refused = json_of(&raw.next().await).to_string();
    assert!(refused.contains("userId"), "{refused}");

    let prompts = list(&mut raw, 5, "prompts/list").await;
    let arguments: Vec<(String, bool)> = prompts["prompts"][0]["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap().to_owned(), a["required"] == true))
        .collect();
    assert_eq!(arguments, [("pullRequest".to_owned(), true), ("inDepth".to_owned(), false)], "{prompts}");
    let params = json!({ "name": "review", "arguments": { "pullRequest": "12", "inDepth": "true" } });
    raw.request(6, "prompts/get", params).await;
    let got = expect_result(&raw.next().await, 6);
    assert_eq!(got["messages"][0]["content"]["text"], "Review #12 in depth.", "{got}");

    raw.request(7, "resources/read", json!({ "uri": "users://ada" })).await;
    let read = expect_result(&raw.next().await, 7);
    assert_eq!(read["contents"][0]["text"], "user ada", "{read}");
}
