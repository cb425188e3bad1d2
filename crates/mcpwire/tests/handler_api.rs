//! Prompts and resources take extractors as tools do; `#[mcpwire::prompt]`,
//! `#[mcpwire::resource]` and `definitions!` register them without generated names; a
//! tool's result kind follows its type's traits, aliases included. End to end over a
//! connection, 2025-11-25.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use mcpwire::client::Client;
use mcpwire::protocol::completion::{CompleteResult, Completion};
use mcpwire::protocol::content::{ContentBlock, Role};
use mcpwire::protocol::prompts::PromptMessage;
use mcpwire::server::{prompt, resource, resource_template, tool, Args, BuildError, Ctx, Server, State, Uri};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// Writes a haiku.
#[mcpwire::prompt(title = "Haiku")]
async fn haiku(
    #[arg(description = "What the haiku is about")] topic: String,
    #[arg(description = "The mood")] mood: Option<String>,
) -> String {
    format!("Write a {} haiku about {topic}.", mood.as_deref().unwrap_or("calm"))
}

/// A note, by id.
#[mcpwire::resource(uri = "notes://{id}", mime_type = "text/plain")]
async fn note(id: String, State(prefix): State<&'static str>) -> String {
    format!("{prefix} {id}")
}

/// The server's motto.
#[mcpwire::resource(uri = "info://motto", name = "motto")]
fn motto(Uri(uri): Uri) -> String {
    format!("{uri}: small and exact")
}

/// A list of numbers is structured content, though its type's name is `Vec`.
type Numbers = Vec<i64>;

/// Counts up to `n`.
#[mcpwire::tool]
fn count(n: i64) -> Numbers {
    (1..=n).collect()
}

/// Content blocks under another name still go as content.
type Blocks = Vec<ContentBlock>;

/// Echoes as a content block.
#[mcpwire::tool]
async fn blocks(text: String) -> Blocks {
    vec![ContentBlock::text(text)]
}

/// A `Result` of text is text: being a tool result comes before being serializable.
#[mcpwire::tool]
async fn greet(name: String) -> Result<String, mcpwire::McpError> {
    Ok(format!("hello {name}"))
}

/// Reports progress out of order; only increasing values reach the client.
#[mcpwire::tool]
async fn wobble(ctx: Ctx) -> String {
    for value in [1.0, 1.0, 0.5, 2.0, f64::NAN, 3.0] {
        ctx.progress(value, Some(3.0), None).await;
    }
    "done".to_owned()
}

/// A `Result` of a serializable value sends its `Ok` value as structured content.
#[mcpwire::tool]
fn halve(n: i64) -> Result<i64, String> {
    if n % 2 == 0 {
        Ok(n / 2)
    } else {
        Err(format!("{n} is odd"))
    }
}

#[derive(Deserialize, JsonSchema)]
struct Review {
    /// The code to review.
    code: String,
    /// What to look at.
    focus: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct FileVars {
    dir: String,
    name: String,
}

fn server() -> Server {
    Server::builder("handlers", "1")
        .state("note")
        .register_all(mcpwire::definitions![haiku, note, motto, count, blocks, halve, greet, wobble])
        .register(prompt("review").description("Reviews code").handler(
            |ctx: Ctx, Args(r): Args<Review>| async move {
                let focus = r.focus.unwrap_or_else(|| "bugs".into());
                let version = ctx.protocol_version().to_string();
                vec![PromptMessage::text(Role::User, format!("[{version}] Review for {focus}:\n{}", r.code))]
            },
        ))
        .register(resource_template("files://{dir}/{name}", "file").handler(
            |Args(v): Args<FileVars>, Uri(uri): Uri| async move { format!("{uri} = {}/{}", v.dir, v.name) },
        ))
        .register(resource("info://plain", "plain").handler(|| async { "plain" }))
        .build()
        .unwrap()
}

async fn ask(raw: &mut RawPeer, id: i64, method: &str, params: Value) -> Value {
    raw.request(id, method, params).await;
    expect_result(&raw.next().await, id)
}

fn by_name<'a>(list: &'a Value, key: &str, name: &str) -> &'a Value {
    list.as_array().unwrap().iter().find(|v| v[key] == name).unwrap_or_else(|| panic!("no {name} in {list}"))
}

#[tokio::test]
async fn prompt_arguments_come_from_the_handlers_types() {
    let mut raw = initialized(server()).await;
    let prompts = ask(&mut raw, 1, "prompts/list", json!({})).await["prompts"].clone();
    let haiku = by_name(&prompts, "name", "haiku");
    assert_eq!(haiku["title"], "Haiku");
    assert_eq!(haiku["description"], "Writes a haiku.");
    let args = &haiku["arguments"];
    assert_eq!(by_name(args, "name", "topic")["description"], "What the haiku is about");
    assert_eq!(by_name(args, "name", "topic")["required"], true);
    assert_eq!(by_name(args, "name", "mood")["required"], false, "an Option is optional");
    let review = by_name(&prompts, "name", "review");
    assert_eq!(by_name(&review["arguments"], "name", "code")["description"], "The code to review.");

    let got =
        ask(&mut raw, 2, "prompts/get", json!({ "name": "haiku", "arguments": { "topic": "rain" } })).await;
    assert_eq!(got["messages"][0]["content"]["text"], "Write a calm haiku about rain.");
    assert_eq!(got["messages"][0]["role"], "user");
    let got = ask(
        &mut raw,
        3,
        "prompts/get",
        json!({ "name": "review", "arguments": { "code": "x+1", "focus": "style" } }),
    )
    .await;
    assert_eq!(got["messages"][0]["content"]["text"], "[2025-11-25] Review for style:\nx+1");

    raw.request(4, "prompts/get", json!({ "name": "haiku", "arguments": { "mood": "dark" } })).await;
    let error = expect_error(&raw.next().await, 4);
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("topic"), "{}", error.message);
}

#[tokio::test]
async fn resource_handlers_take_typed_variables_and_the_uri() {
    let mut raw = initialized(server()).await;
    let templates =
        ask(&mut raw, 1, "resources/templates/list", json!({})).await["resourceTemplates"].clone();
    let note = by_name(&templates, "uriTemplate", "notes://{id}");
    assert_eq!((note["name"].clone(), note["mimeType"].clone()), (json!("note"), json!("text/plain")));
    assert_eq!(note["description"], "A note, by id.");
    let resources = ask(&mut raw, 2, "resources/list", json!({})).await["resources"].clone();
    assert_eq!(by_name(&resources, "uri", "info://motto")["name"], "motto");

    let read = |id, uri: &str| (id, json!({ "uri": uri }));
    let (id, params) = read(3, "notes://42");
    assert_eq!(ask(&mut raw, id, "resources/read", params).await["contents"][0]["text"], "note 42");
    let (id, params) = read(4, "files://docs/a.txt");
    let contents = ask(&mut raw, id, "resources/read", params).await["contents"][0].clone();
    assert_eq!(contents["text"], "files://docs/a.txt = docs/a.txt");
    assert_eq!(contents["uri"], "files://docs/a.txt");
    let (id, params) = read(5, "info://motto");
    assert_eq!(
        ask(&mut raw, id, "resources/read", params).await["contents"][0]["text"],
        "info://motto: small and exact"
    );
    let (id, params) = read(6, "info://plain");
    assert_eq!(ask(&mut raw, id, "resources/read", params).await["contents"][0]["text"], "plain");
}

/// A resource handler may return a value as JSON (`Json<T>`): JSON text, typed
/// `application/json` unless the resource says otherwise.
#[tokio::test]
async fn a_resource_returns_a_value_as_json() {
    #[derive(serde::Serialize)]
    struct Stats {
        notes: u32,
    }
    let server = Server::builder("stats", "1")
        .register(
            resource("stats://now", "stats").handler(|| async { mcpwire::server::Json(Stats { notes: 3 }) }),
        )
        .build()
        .unwrap();
    let mut raw = initialized(server).await;
    let read = ask(&mut raw, 1, "resources/read", json!({ "uri": "stats://now" })).await;
    let contents = &read["contents"][0];
    assert_eq!(contents["mimeType"], "application/json");
    assert_eq!(
        serde_json::from_str::<Value>(contents["text"].as_str().unwrap()).unwrap(),
        json!({ "notes": 3 })
    );
}

/// A URI of a template's shape whose variable is not a value of its type names no
/// resource: `-32002` (2025), with the reason in `data`, not "invalid arguments".
#[tokio::test]
async fn a_template_variable_of_the_wrong_type_is_a_resource_not_found() {
    #[derive(Deserialize, JsonSchema)]
    struct User {
        id: u32,
    }
    let server = Server::builder("users", "1")
        .register(
            resource_template("users://{id}/profile", "profile")
                .handler(|Args(u): Args<User>| async move { format!("user {}", u.id) }),
        )
        .build()
        .unwrap();
    let mut raw = initialized(server).await;
    raw.request(1, "resources/read", json!({ "uri": "users://abc/profile" })).await;
    let error = expect_error(&raw.next().await, 1);
    assert_eq!(error.code, mcpwire::protocol::codes::RESOURCE_NOT_FOUND, "{}", error.message);
    let data = error.data.unwrap();
    assert_eq!(data["uri"], "users://abc/profile");
    assert!(data["reason"].as_str().unwrap().starts_with("id: "), "{data}");
    assert_eq!(
        ask(&mut raw, 2, "resources/read", json!({ "uri": "users://7/profile" })).await["contents"][0]
            ["text"],
        "user 7"
    );
}

#[tokio::test]
async fn a_tools_result_kind_follows_its_traits_not_its_name() {
    let mut raw = initialized(server()).await;
    let tools = ask(&mut raw, 1, "tools/list", json!({})).await["tools"].clone();
    assert_eq!(by_name(&tools, "name", "count")["outputSchema"]["properties"]["result"]["type"], "array");
    assert!(by_name(&tools, "name", "blocks").get("outputSchema").is_none(), "content has no output schema");
    assert_eq!(by_name(&tools, "name", "halve")["outputSchema"]["properties"]["result"]["type"], "integer");
    assert!(by_name(&tools, "name", "greet").get("outputSchema").is_none(), "Result<String, _> is text");

    let call = |id, name: &str, arguments: Value| (id, json!({ "name": name, "arguments": arguments }));
    let (id, p) = call(2, "count", json!({ "n": 3 }));
    assert_eq!(ask(&mut raw, id, "tools/call", p).await["structuredContent"], json!({ "result": [1, 2, 3] }));
    let (id, p) = call(3, "blocks", json!({ "text": "hi" }));
    let result = ask(&mut raw, id, "tools/call", p).await;
    assert_eq!((result["content"][0]["text"].clone(), result.get("structuredContent")), (json!("hi"), None));
    let (id, p) = call(4, "halve", json!({ "n": 8 }));
    assert_eq!(ask(&mut raw, id, "tools/call", p).await["structuredContent"], json!({ "result": 4 }));
    let (id, p) = call(6, "greet", json!({ "name": "Ada" }));
    let result = ask(&mut raw, id, "tools/call", p).await;
    assert_eq!(
        (result["content"][0]["text"].clone(), result.get("structuredContent")),
        (json!("hello Ada"), None)
    );
    let (id, p) = call(5, "halve", json!({ "n": 7 }));
    let odd = ask(&mut raw, id, "tools/call", p).await;
    assert_eq!((odd["isError"].clone(), odd["content"][0]["text"].clone()), (json!(true), json!("7 is odd")));
}

/// Says hello (no arguments).
#[mcpwire::tool]
async fn hello() -> &'static str {
    "hello"
}

/// A tool without arguments declares the spec's recommended schema (only the empty object,
/// with empty `properties` beside it) whether made with the macro or with a closure; a
/// client that sends arguments anyway is still served.
#[tokio::test]
async fn a_tool_without_arguments_declares_only_the_empty_object() {
    let server = Server::builder("none", "0")
        .tool(hello_tool())
        .tool(tool("closure").handler(|| async { "closure" }))
        .build()
        .unwrap();
    let (a, b) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(b).await });
    let client = Client::builder("t", "0").connect(a).await.unwrap();
    let tools = client.list_tools(None).await.unwrap().tools;
    assert_eq!(tools.len(), 2);
    for listed in &tools {
        let mut schema = serde_json::to_value(&listed.input_schema).unwrap();
        // The macro's schema is titled like its hidden arguments struct's.
        let title = schema.as_object_mut().unwrap().remove("title");
        assert_eq!(title, (listed.name == "hello").then(|| json!("helloArguments")));
        assert_eq!(
            schema,
            json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            "{}",
            listed.name
        );
        let result = client.call_tool(&listed.name, json!({ "unexpected": 1 })).await.unwrap();
        assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], listed.name.as_str());
    }
    client.close().await;
}

/// A tool taking `Args<serde_json::Value>`: its input schema is `{"type": "object"}`, and
/// any arguments reach it verbatim.
fn any_args_server() -> Server {
    Server::builder("any", "0")
        .tool(tool("any").handler(|Args(a): Args<Value>| a.to_string()))
        .build()
        .expect("a tool taking Args<Value> builds")
}

#[tokio::test]
async fn a_tool_taking_any_json_value_builds_with_an_open_object_schema() {
    let server = any_args_server();
    let listed: Vec<Value> = server.tools().iter().map(|t| serde_json::to_value(t.tool()).unwrap()).collect();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["inputSchema"], json!({ "type": "object", "properties": {} }), "{}", listed[0]);
}

#[tokio::test]
async fn a_tool_taking_any_json_value_gets_the_arguments_verbatim() {
    let server = any_args_server();
    let (a, b) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(b).await });
    let client = Client::builder("t", "0").connect(a).await.unwrap();
    let tools = client.list_tools(None).await.unwrap();
    assert_eq!(
        serde_json::to_value(&tools.tools[0].input_schema).unwrap(),
        json!({ "type": "object", "properties": {} })
    );
    let arguments = json!({ "n": 1, "nested": { "list": [true, null, "x"] } });
    let result = client.call_tool("any", arguments.clone()).await.unwrap();
    let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
    assert_eq!(serde_json::from_str::<Value>(text.as_str().unwrap()).unwrap(), arguments);
    let result = client.call_tool("any", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "{}");
    client.close().await;
}

#[test]
fn a_template_without_the_variables_its_handler_needs_does_not_build() {
    let template = resource_template("files://{dir}", "file")
        .handler(|Args(v): Args<FileVars>| async move { format!("{}/{}", v.dir, v.name) });
    let error = Server::builder("s", "1").register(template).build().unwrap_err();
    match &error {
        BuildError::InvalidTemplate { template, reason } => {
            assert_eq!(template, "files://{dir}");
            assert!(reason.contains("\"name\""), "{reason}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// A forecast's arguments, two of them mirrored into `Mcp-Param-*` headers.
#[derive(Deserialize, JsonSchema)]
struct Forecast {
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
    #[schemars(extend("x-mcp-header" = "Days"))]
    days: u32,
}

/// The same with a fractional number of days, which no header may mirror.
#[derive(Deserialize, JsonSchema)]
struct FractionalForecast {
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
    #[schemars(extend("x-mcp-header" = "Days"))]
    days: f64,
}

#[test]
fn an_x_mcp_header_on_a_number_does_not_build() {
    let good = tool("forecast").handler(|Args(f): Args<Forecast>| format!("{} {}", f.region, f.days));
    assert!(Server::builder("s", "1").tool(good).build().is_ok());
    let bad =
        tool("forecast").handler(|Args(f): Args<FractionalForecast>| format!("{} {}", f.region, f.days));
    match Server::builder("s", "1").tool(bad).build().unwrap_err() {
        BuildError::InvalidParamHeader { tool, reason } => {
            assert_eq!(tool, "forecast");
            assert!(reason.contains("\"days\"") && reason.contains("number"), "{reason}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn progress_that_does_not_increase_is_not_sent() {
    let mut raw = initialized(server()).await;
    let params = json!({ "name": "wobble", "arguments": {}, "_meta": { "progressToken": "p" } });
    raw.request(1, "tools/call", params).await;
    let mut seen = Vec::new();
    loop {
        let message = json_of(&raw.next().await);
        if message["method"] == "notifications/progress" {
            seen.push(message["params"]["progress"].clone());
            continue;
        }
        assert_eq!(message["result"]["content"][0]["text"], "done", "{message}");
        break;
    }
    assert_eq!(seen, vec![json!(1.0), json!(2.0), json!(3.0)]);
}

#[tokio::test]
async fn unknown_prompts_and_methods_of_capabilities_not_offered_are_errors() {
    let mut raw = initialized(server()).await;
    raw.request(1, "prompts/get", json!({ "name": "nope" })).await;
    let error = expect_error(&raw.next().await, 1);
    assert_eq!(error.code, -32602, "an unknown prompt is invalid params");
    assert!(error.message.contains("nope"), "{}", error.message);
    // This server offers no completion: the method is not found.
    raw.request(
        2,
        "completion/complete",
        json!({
            "ref": { "type": "ref/prompt", "name": "haiku" }, "argument": { "name": "topic", "value": "r" }
        }),
    )
    .await;
    assert_eq!(expect_error(&raw.next().await, 2).code, -32601);
}

/// A name the client sent that names nothing is quoted in the error's message up to 200
/// characters, as a URI already was: a 5 MB tool, prompt or method name made a 5 MB
/// message. (`-32601`'s `data` still names the method whole.)
#[tokio::test]
async fn a_huge_unknown_name_is_cut_in_the_error_message() {
    let mut raw = initialized(server()).await;
    let huge = "n".repeat(5 << 20);
    let cut = format!("{}…", &huge[..200]);
    raw.request(1, "tools/call", json!({ "name": huge, "arguments": {} })).await;
    let error = expect_error(&raw.next().await, 1);
    assert_eq!((error.code, error.message), (-32602, format!("Unknown tool: {cut}")));
    raw.request(2, "prompts/get", json!({ "name": huge })).await;
    let error = expect_error(&raw.next().await, 2);
    assert_eq!((error.code, error.message), (-32602, format!("Unknown prompt: {cut}")));
    raw.request(3, &huge, json!({})).await;
    let error = expect_error(&raw.next().await, 3);
    assert_eq!((error.code, error.message), (-32601, format!("Method not found: {cut}")));
    assert_eq!(error.data, Some(json!({ "method": huge })));
    raw.request(4, "tools/call", json!({ "name": "nope", "arguments": {} })).await;
    assert_eq!(expect_error(&raw.next().await, 4).message, "Unknown tool: nope");
}

#[tokio::test]
async fn a_completion_of_more_than_100_values_is_cut_and_says_so() {
    let server = Server::builder("s", "1")
        .register(prompt("p").handler(|| async { "p" }))
        .completion(|_ctx, _params| async {
            let values = (0..250).map(|i| format!("v{i}")).collect();
            Ok(CompleteResult {
                completion: Completion { values, ..Default::default() },
                ..Default::default()
            })
        })
        .build()
        .unwrap();
    let mut raw = initialized(server).await;
    let params =
        json!({ "ref": { "type": "ref/prompt", "name": "p" }, "argument": { "name": "x", "value": "" } });
    let completion = ask(&mut raw, 1, "completion/complete", params).await["completion"].clone();
    assert_eq!(completion["values"].as_array().unwrap().len(), 100);
    assert_eq!((completion["total"].clone(), completion["hasMore"].clone()), (json!(250), json!(true)));
    // A prompt or resource the server does not have is invalid params, not an empty list.
    for (id, reference) in [
        (2, json!({ "type": "ref/prompt", "name": "nope" })),
        (3, json!({ "type": "ref/resource", "uri": "nope://{x}" })),
    ] {
        let params = json!({ "ref": reference, "argument": { "name": "x", "value": "" } });
        raw.request(id, "completion/complete", params).await;
        let error = expect_error(&raw.next().await, id);
        assert_eq!(error.code, -32602, "{}", error.message);
        assert!(error.message.contains("nope"), "{}", error.message);
    }
}

/// What `search` is asked.
#[derive(Deserialize, JsonSchema)]
struct Query {
    /// Words to find.
    text: String,
    /// At most this many.
    limit: Option<u32>,
}

/// Searches, its arguments taken whole.
#[mcpwire::tool]
async fn search(_ctx: Ctx, Args(query): Args<Query>) -> String {
    format!("{} (at most {})", query.text, query.limit.unwrap_or(10))
}

/// A `#[tool]` function may take its arguments as one typed struct, `Args<T>` (as rmcp's
/// `Parameters<T>`): `T`'s schema is the tool's `inputSchema`.
#[tokio::test]
async fn a_macro_tool_takes_its_arguments_whole_as_args() {
    let server = Server::builder("search", "1").register_all(mcpwire::definitions![search]).build().unwrap();
    let mut raw = initialized(server).await;
    let listed = ask(&mut raw, 1, "tools/list", json!({})).await;
    let schema = &listed["tools"][0]["inputSchema"];
    assert_eq!(schema["required"], json!(["text"]), "{schema}");
    assert_eq!(schema["properties"]["text"]["description"], "Words to find.", "{schema}");
    let called =
        ask(&mut raw, 2, "tools/call", json!({ "name": "search", "arguments": { "text": "tea" } })).await;
    assert_eq!(called["content"][0]["text"], "tea (at most 10)");
}
