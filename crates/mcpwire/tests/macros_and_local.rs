//! The `#[tool]` macro and local (non-`Send`) handlers, end to end over a connection.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::*;
use mcpwire::server::{tool, Args, Ctx, Server, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Adds two numbers.
#[mcpwire::tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[derive(Serialize, JsonSchema)]
struct Greeting {
    text: String,
}

#[mcpwire::tool(name = "greet", description = "Greets someone", title = "Greeter")]
fn greet_person(_ctx: Ctx, name: String, excited: Option<bool>) -> Result<Greeting, ToolError> {
    if name.is_empty() {
        return Err(ToolError::new("who?"));
    }
    let mark = if excited.unwrap_or(false) { "!" } else { "." };
    Ok(Greeting { text: format!("Hello, {name}{mark}") })
}

/// Plain text passes through untouched.
#[mcpwire::tool]
fn shout(text: String) -> String {
    text.to_uppercase()
}

/// A US state: the user's own type named like mcpwire's `State<T>` extractor.
#[derive(Deserialize, JsonSchema)]
enum State {
    Ohio,
    Utah,
}

#[mcpwire::tool]
fn capital(state: State) -> String {
    match state {
        State::Ohio => "Columbus".into(),
        State::Utah => "Salt Lake City".into(),
    }
}

/// Counts to `n`: prompt arguments are strings on the wire, typed here.
#[mcpwire::prompt]
async fn count_to(n: u32, loud: bool) -> String {
    let text = (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(" ");
    if loud {
        text + "!"
    } else {
        text
    }
}

/// An item by its number: template variables are strings on the wire, typed here.
#[mcpwire::resource(uri = "item://{id}")]
async fn item(id: u64) -> String {
    format!("item {}", id + 1)
}

#[derive(Deserialize, JsonSchema)]
struct CountArgs {
    times: u32,
}

fn server() -> Server {
    Server::builder("macros", "1")
        .tool(add_tool())
        .tool(greet_person_tool())
        .tool(shout_tool())
        .tool(capital_tool())
        .prompt(count_to_prompt())
        .resource_template(item_resource())
        .tool(
            tool("count_locally").description("Counts with an Rc<RefCell> held across awaits").local_handler(
                |_ctx: Ctx, Args(a): Args<CountArgs>| async move {
                    let counter = Rc::new(RefCell::new(0u32));
                    for _ in 0..a.times {
                        tokio::task::yield_now().await;
                        *counter.borrow_mut() += 1;
                    }
                    let n = *counter.borrow();
                    format!("counted {n}")
                },
            ),
        )
        .build()
        .unwrap()
}

async fn call(raw: &mut RawPeer, id: i64, name: &str, arguments: Value) -> Value {
    raw.request(id, "tools/call", json!({ "name": name, "arguments": arguments })).await;
    expect_result(&raw.next().await, id)
}

#[tokio::test]
async fn the_macro_derives_schemas_descriptions_and_structured_output() {
    let mut raw = initialized(server()).await;
    raw.request(1, "tools/list", json!({})).await;
    let tools = expect_result(&raw.next().await, 1)["tools"].clone();
    let add = &tools[0];
    assert_eq!(add["name"], "add");
    assert_eq!(add["description"], "Adds two numbers.");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(add["inputSchema"]["title"], "addArguments", "titled by the tool, not the hidden struct");
    assert_eq!(add["outputSchema"]["properties"]["result"]["type"], "integer");
    let greet = &tools[1];
    assert_eq!((greet["name"].clone(), greet["title"].clone()), (json!("greet"), json!("Greeter")));
    assert_eq!(
        greet["inputSchema"]["required"],
        json!(["name"]),
        "Ctx is not an argument; Option is optional"
    );
    assert_eq!(greet["inputSchema"]["title"], "greetArguments", "the tool's name, whatever the function's");
    assert_eq!(greet["outputSchema"]["properties"]["text"]["type"], "string");
    assert!(tools[2].get("outputSchema").is_none(), "text results have no output schema");

    assert_eq!(
        call(&mut raw, 2, "add", json!({ "a": 2, "b": 40 })).await["structuredContent"],
        json!({ "result": 42 })
    );
    let hello = call(&mut raw, 3, "greet", json!({ "name": "Ada", "excited": true })).await;
    assert_eq!(hello["structuredContent"], json!({ "text": "Hello, Ada!" }));
    let who = call(&mut raw, 4, "greet", json!({ "name": "" })).await;
    assert_eq!((who["isError"].clone(), who["content"][0]["text"].clone()), (json!(true), json!("who?")));
    assert_eq!(call(&mut raw, 5, "shout", json!({ "text": "hi" })).await["content"][0]["text"], "HI");

    // No doc comment: no description at all. An argument of a type of its own named
    // `State` is an argument, not the `State<T>` extractor.
    let capital = &tools[3];
    assert_eq!(capital["name"], "capital");
    assert!(capital.get("description").is_none(), "{capital}");
    assert_eq!(capital["inputSchema"]["required"], json!(["state"]));
    let answer = call(&mut raw, 6, "capital", json!({ "state": "Utah" })).await;
    assert_eq!(answer["content"][0]["text"], "Salt Lake City");
}

/// The argument names of the first prompt of a `prompts/list` result, in order.
fn first_prompts_arguments(listed: &Value) -> Vec<&str> {
    let arguments = listed["prompts"][0]["arguments"].as_array().unwrap();
    arguments.iter().map(|a| a["name"].as_str().unwrap()).collect()
}

/// A prompt whose arguments are Rust keywords, written as raw identifiers.
#[mcpwire::prompt]
async fn describe(r#type: String, zone: String, r#for: Option<String>) -> String {
    format!("{} in {zone} for {:?}", r#type, r#for)
}

/// A raw identifier's argument is listed under its name (`type`, not `r#type`) and in the
/// function's order like any other. (The order was looked up by `r#type`, which no
/// argument is called, so `type` and `for` went to the end of the list.)
#[tokio::test]
async fn prompt_arguments_named_by_raw_identifiers_keep_the_functions_order() {
    let server = Server::builder("s", "1").prompt(describe_prompt()).build().unwrap();
    let mut raw = initialized(server).await;
    raw.request(0, "prompts/list", json!({})).await;
    let listed = expect_result(&raw.next().await, 0);
    assert_eq!(first_prompts_arguments(&listed), ["type", "zone", "for"], "{listed}");
    raw.request(1, "prompts/get", json!({ "name": "describe", "arguments": { "type": "a", "zone": "b" } }))
        .await;
    let prompt = expect_result(&raw.next().await, 1);
    assert_eq!(prompt["messages"][0]["content"]["text"], "a in b for None");
}

/// Prompt arguments and template variables are strings on the wire; typed parameters
/// are parsed from them, and a value that does not parse is `-32602` naming it.
#[tokio::test]
async fn typed_prompt_arguments_and_template_variables_are_parsed_from_strings() {
    let mut raw = initialized(server()).await;
    raw.request(0, "prompts/list", json!({})).await;
    let listed = expect_result(&raw.next().await, 0);
    assert_eq!(first_prompts_arguments(&listed), ["n", "loud"], "the function's order, not the schema's");
    raw.request(1, "prompts/get", json!({ "name": "count_to", "arguments": { "n": "3", "loud": "true" } }))
        .await;
    let prompt = expect_result(&raw.next().await, 1);
    assert_eq!(prompt["messages"][0]["content"]["text"], "1 2 3!");
    raw.request(
        2,
        "prompts/get",
        json!({ "name": "count_to", "arguments": { "n": "three", "loud": "true" } }),
    )
    .await;
    let error = expect_error(&raw.next().await, 2);
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("n: expected a non-negative integer"), "{}", error.message);

    raw.request(3, "resources/read", json!({ "uri": "item://41" })).await;
    assert_eq!(expect_result(&raw.next().await, 3)["contents"][0]["text"], "item 42");
    // A variable that is not a value of its type names no resource.
    raw.request(4, "resources/read", json!({ "uri": "item://x" })).await;
    let error = expect_error(&raw.next().await, 4);
    assert_eq!(error.code, -32002, "{}", error.message);
    let reason = error.data.unwrap()["reason"].as_str().unwrap().to_owned();
    assert!(reason.contains("id: expected a non-negative integer"), "{reason}");
}

#[tokio::test]
async fn local_handlers_run_non_send_futures() {
    let mut raw = initialized(server()).await;
    let futures = (0..20).map(|i| i + 10);
    for id in futures.clone() {
        raw.request(id, "tools/call", json!({ "name": "count_locally", "arguments": { "times": id } })).await;
    }
    let mut seen = Vec::new();
    for _ in futures {
        let m = raw.next().await;
        let Some(id) = json_of(&m)["id"].as_i64() else { panic!("{}", json_of(&m)) };
        assert_eq!(expect_result(&m, id)["content"][0]["text"], format!("counted {id}"));
        seen.push(id);
    }
    assert_eq!(seen.len(), 20);
    // Bad arguments are still reported with the field's name.
    let bad = call(&mut raw, 99, "count_locally", json!({ "times": "x" })).await;
    assert_eq!(bad["isError"], json!(true));
    assert!(bad["content"][0]["text"].as_str().unwrap().contains("times"));
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Serialize, JsonSchema)]
enum Shape {
    Circle { r: f64 },
    Square(f64),
    Dot,
}

#[derive(Serialize, JsonSchema)]
enum Expr {
    Num(i64),
    Add(Box<Expr>, Box<Expr>),
}

#[mcpwire::tool]
async fn maybe_point(some: bool) -> Option<Point> {
    some.then_some(Point { x: 1, y: 2 })
}

#[mcpwire::tool]
async fn shape(which: u8) -> Shape {
    match which {
        0 => Shape::Circle { r: 1.5 },
        1 => Shape::Square(2.0),
        _ => Shape::Dot,
    }
}

#[mcpwire::tool]
async fn expression() -> Expr {
    Expr::Add(Box::new(Expr::Num(1)), Box::new(Expr::Num(2)))
}

#[mcpwire::tool]
async fn echo_any(value: Value) -> Value {
    value
}

#[mcpwire::tool]
async fn nothing_needed() -> &'static str {
    "none"
}

#[derive(Deserialize, JsonSchema)]
struct SomeArgs {
    some: bool,
}

fn structured_server() -> Server {
    Server::builder("structured", "1")
        .tool(maybe_point_tool())
        .tool(shape_tool())
        .tool(expression_tool())
        .tool(echo_any_tool())
        .tool(nothing_needed_tool())
        .tool(tool("json_maybe_point").handler(|Args(a): Args<SomeArgs>| async move {
            mcpwire::server::Json(a.some.then_some(Point { x: 3, y: 4 }))
        }))
        .tool(tool("raw_list").handler(|| async {
            mcpwire::protocol::tools::CallToolResult {
                structured_content: Some(json!([1, 2])),
                ..Default::default()
            }
        }))
        .build()
        .unwrap()
}

/// Whatever a value of the tool's type turns out to be (an `Option` of a struct is an
/// object one call and `null` the next; an enum's variants differ), its structured
/// content has the shape of the output schema the tool advertises: the client, which
/// checks each result against it, takes every one, in both eras.
#[tokio::test]
async fn structured_content_always_has_the_shape_of_its_output_schema() {
    for version in
        [mcpwire::protocol::ProtocolVersion::V2025_11_25, mcpwire::protocol::ProtocolVersion::V2026_07_28]
    {
        let (a, b) = mcpwire::transport::memory::pair();
        let served = structured_server();
        tokio::spawn(async move { served.serve(b).await });
        let client = mcpwire::client::Client::builder("t", "1")
            .protocol_version(version.clone())
            .connect(a)
            .await
            .unwrap();
        let tools = client.list_all_tools().await.unwrap();
        let listed = serde_json::to_value(&tools).unwrap();
        for tool in listed.as_array().unwrap() {
            let input = &tool["inputSchema"];
            assert_eq!(input["type"], "object", "{tool}");
            assert!(input["properties"].is_object(), "every input schema has properties: {tool}");
            for property in input["properties"].as_object().unwrap().values() {
                assert!(
                    property.is_object(),
                    "a property's schema is an object (2025's Tool schema): {tool}"
                );
            }
        }
        let cases = [
            ("maybe_point", json!({ "some": true }), json!({ "result": { "x": 1, "y": 2 } })),
            ("maybe_point", json!({ "some": false }), json!({ "result": null })),
            ("json_maybe_point", json!({ "some": true }), json!({ "result": { "x": 3, "y": 4 } })),
            ("json_maybe_point", json!({ "some": false }), json!({ "result": null })),
            ("shape", json!({ "which": 0 }), json!({ "result": { "Circle": { "r": 1.5 } } })),
            ("shape", json!({ "which": 2 }), json!({ "result": "Dot" })),
            ("expression", json!({}), json!({ "result": { "Add": [{ "Num": 1 }, { "Num": 2 }] } })),
            ("echo_any", json!({ "value": { "k": 1 } }), json!({ "k": 1 })),
            ("echo_any", json!({ "value": 7 }), json!({ "result": 7 })),
        ];
        for (name, arguments, structured) in cases {
            let result =
                client.call_tool(name, arguments).await.unwrap_or_else(|e| panic!("{name} ({version}): {e}"));
            let result = serde_json::to_value(result).unwrap();
            assert_eq!(result["structuredContent"], structured, "{name} ({version})");
            assert_eq!(
                result["content"][0]["text"],
                structured.to_string(),
                "the text copy is the structured content"
            );
        }
        // Without an output schema, a value that is not an object goes as it is where the
        // era takes it (2026), wrapped where it does not.
        let raw = serde_json::to_value(client.call_tool("raw_list", json!({})).await.unwrap()).unwrap();
        let expected = if version == mcpwire::protocol::ProtocolVersion::V2026_07_28 {
            json!([1, 2])
        } else {
            json!({ "result": [1, 2] })
        };
        assert_eq!(raw["structuredContent"], expected, "{version}");
        let listed_expression = tools.iter().find(|t| t.name == "expression").unwrap();
        let text = serde_json::to_string(&listed_expression.output_schema).unwrap();
        assert!(
            text.contains(r##""$ref":"#/properties/result""##),
            "the recursion points at the wrapped type: {text}"
        );
        client.close().await;
    }
}

#[test]
fn a_hand_written_output_schema_that_is_not_an_object_schema_is_refused() {
    let refused = Server::builder("s", "1")
        .tool(tool("h").output_schema(json!({ "type": "string" })).handler(|| async { "x" }))
        .build()
        .unwrap_err();
    assert!(refused.to_string().contains("output schema"), "{refused}");
}

/// Sleeps: a sync tool that blocks its thread.
#[mcpwire::tool]
fn nap(ms: u64) -> String {
    std::thread::sleep(std::time::Duration::from_millis(ms));
    format!("slept {ms}")
}

#[derive(Deserialize, JsonSchema)]
struct NapArgs {
    ms: u64,
}

fn napping_server() -> Server {
    Server::builder("naps", "1")
        .tool(nap_tool())
        .tool(tool("nap_builder").handler(|Args(a): Args<NapArgs>| {
            std::thread::sleep(std::time::Duration::from_millis(a.ms));
            format!("slept {}", a.ms)
        }))
        .tool(shout_tool())
        .build()
        .unwrap()
}

/// A sync tool that blocks runs off the runtime's workers: on a runtime of one worker,
/// a quick call made after it is answered first, and a cancellation of it is read while
/// it runs, so the cancelled call is never answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_blocking_sync_tool_holds_up_no_other_call_and_can_be_cancelled() {
    for slow in ["nap", "nap_builder"] {
        let mut raw = initialized(napping_server()).await;
        raw.request(1, "tools/call", json!({ "name": slow, "arguments": { "ms": 600 } })).await;
        raw.request(2, "tools/call", json!({ "name": "shout", "arguments": { "text": "quick" } })).await;
        assert_eq!(expect_result(&raw.next().await, 2)["content"][0]["text"], "QUICK", "{slow}");
        assert_eq!(expect_result(&raw.next().await, 1)["content"][0]["text"], "slept 600", "{slow}");

        raw.request(3, "tools/call", json!({ "name": slow, "arguments": { "ms": 600 } })).await;
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        raw.cancel(3).await;
        raw.request(4, "tools/call", json!({ "name": "shout", "arguments": { "text": "after" } })).await;
        assert_eq!(expect_result(&raw.next().await, 4)["content"][0]["text"], "AFTER", "{slow}");
        raw.expect_silence(std::time::Duration::from_millis(900)).await;
    }
}

/// A sync call cancelled while it waits for a thread of the blocking pool (all busy) is
/// never run: cancelled calls cannot pile up work for the pool.
#[test]
fn a_sync_call_cancelled_before_its_turn_never_runs() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = ran.clone();
        let server = Server::builder("queued", "1")
            .tool(nap_tool())
            .tool(tool("mark").handler(move || seen.store(true, std::sync::atomic::Ordering::SeqCst)))
            .build()
            .unwrap();
        let mut raw = initialized(server).await;
        raw.request(1, "tools/call", json!({ "name": "nap", "arguments": { "ms": 400 } })).await;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        raw.request(2, "tools/call", json!({ "name": "mark", "arguments": {} })).await;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        raw.cancel(2).await;
        assert_eq!(expect_result(&raw.next().await, 1)["content"][0]["text"], "slept 400");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(!ran.load(std::sync::atomic::Ordering::SeqCst), "the cancelled call ran");
        raw.expect_silence(std::time::Duration::from_millis(100)).await;
    });
}

/// Lists things.
///
/// Example:
///
///     list(limit = 3)
///
/// - a
///   - nested
#[mcpwire::tool]
async fn indented() -> String {
    String::new()
}

/// Searches the notes.
#[doc = include_str!("fixtures/search_description.md")]
#[mcpwire::tool]
async fn from_file() -> String {
    String::new()
}

#[mcpwire::tool(description = include_str!("fixtures/search_description.md"))]
async fn from_option() -> String {
    String::new()
}

#[test]
fn descriptions_keep_their_indentation_and_may_come_from_files() {
    let description = |def: mcpwire::server::ToolDef| def.tool().description.clone().unwrap();
    assert_eq!(
        description(indented_tool()),
        "Lists things.\n\nExample:\n\n    list(limit = 3)\n\n- a\n  - nested"
    );
    let file = include_str!("fixtures/search_description.md");
    assert_eq!(description(from_file_tool()), format!("Searches the notes.\n{}", file.trim_end()));
    assert_eq!(description(from_option_tool()), file);
}

/// An error of the user's own, with a source, as thiserror makes them.
#[derive(Debug)]
struct StoreError(std::io::Error);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("reading notes.db")
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

fn read_store() -> Result<String, StoreError> {
    Err(StoreError(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied")))
}

#[mcpwire::tool]
async fn read_notes() -> Result<String, mcpwire::server::ToolError> {
    Ok(read_store()?)
}

#[tokio::test]
async fn any_error_becomes_a_tool_error_with_question_mark() {
    let server = mcpwire::server::Server::builder("s", "1").tool(read_notes_tool()).build().unwrap();
    let (a, b) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(b).await });
    let client = mcpwire::client::Client::builder("c", "1").connect(a).await.unwrap();
    let result = client.call_tool("read_notes", serde_json::json!({})).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.content[0].as_text(), Some("reading notes.db: permission denied"));
}
