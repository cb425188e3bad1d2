//! The server in both eras over the in-memory transport, frame by frame.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use mcpwire::protocol::content::ContentBlock;
use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams};
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::{codes, Message};
use mcpwire::server::{
    prompt, resource, resource_template, tool, Args, Ctx, Json, PromptArgs, ResourceRequest, Server,
    ServerBuilder, ServerEvent, ToolError,
};
use mcpwire::McpError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first number.
    a: i64,
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

fn server() -> Server {
    builder().build().unwrap()
}

fn builder() -> ServerBuilder {
    Server::builder("test-server", "0.1.0")
        .instructions("Use add to add.")
        .tool(
            tool("add")
                .description("Adds")
                .handler(|Args(a): Args<AddArgs>| async move { Json(Sum { sum: a.a + a.b }) }),
        )
        .tool(tool("sync_text").description("Sync").handler(|| "plain text"))
        .tool(
            tool("fails")
                .description("Fails")
                .handler(|| async { Err::<String, _>(ToolError::new("it broke")) }),
        )
        .tool(
            tool("protocol_fail")
                .description("Fails hard")
                .handler(|| async { Err::<String, _>(McpError::invalid_params("nope")) }),
        )
        .tool(tool("logs").description("Logs").handler(|ctx: Ctx| async move {
            ctx.log(LoggingLevel::Debug, "debug line").await;
            ctx.log(LoggingLevel::Error, "error line").await;
            "logged"
        }))
        .tool(tool("ask").description("Elicits").handler(|ctx: Ctx| async move {
            let form = ElicitRequestFormParams {
                message: "Name?".into(),
                requested_schema: serde_json::from_value(
                    json!({ "type": "object", "properties": { "name": { "type": "string" } } }),
                )
                .unwrap(),
                ..Default::default()
            };
            let answer = ctx.elicit(ElicitRequestParams::Form(form)).await?;
            Ok::<_, McpError>(format!("{:?}", answer.action))
        }))
        .resource(resource("test://static", "Static").mime_type("text/plain").text("static text"))
        .resource_template(
            resource_template("test://items/{id}", "Item").handler(|req: ResourceRequest| async move {
                format!("item {}", req.var("id").unwrap_or("?"))
            }),
        )
        .prompt(prompt("greet").argument("name", "who", true).handler(|args: PromptArgs| async move {
            vec![mcpwire::protocol::prompts::PromptMessage::text(
                mcpwire::protocol::content::Role::User,
                format!("Hello {}", args.get("name").unwrap_or("")),
            )]
        }))
}

fn start() -> RawPeer {
    start_serving(server())
}

fn start_serving(server: Server) -> RawPeer {
    let (conn, raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });
    raw
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} },
        "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "1" }
    })
}

async fn call(raw: &mut RawPeer, id: i64, method: &str, params: Value) -> Message {
    raw.request(id, method, params).await;
    raw.next().await
}

#[tokio::test]
async fn stateful_session_lists_and_calls() {
    let mut raw = start();
    let r = expect_result(
        &call(&mut raw, 1, "initialize", json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } })).await,
        1,
    );
    assert_eq!(r["protocolVersion"], "2025-06-18");
    assert_eq!(r["serverInfo"]["name"], "test-server");
    assert_eq!(r["capabilities"]["tools"], json!({ "listChanged": true }));
    assert!(r.get("resultType").is_none());
    raw.send(mcpwire::protocol::Notification::new("notifications/initialized", None)).await;

    let tools = expect_result(&call(&mut raw, 2, "tools/list", json!({})).await, 2);
    let add = &tools["tools"][0];
    assert_eq!(add["name"], "add");
    assert_eq!(add["inputSchema"]["type"], "object");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(add["outputSchema"]["properties"]["sum"]["type"], "integer");
    assert!(tools.get("ttlMs").is_none());

    let r = expect_result(
        &call(&mut raw, 3, "tools/call", json!({ "name": "add", "arguments": { "a": 2, "b": 3 } })).await,
        3,
    );
    assert_eq!(r["structuredContent"], json!({ "sum": 5 }));
    assert_eq!(r["content"][0]["text"], "{\"sum\":5}");

    // 2025-06-18: bad arguments are a protocol error naming the field.
    let e = expect_error(
        &call(&mut raw, 4, "tools/call", json!({ "name": "add", "arguments": { "a": "x", "b": 3 } })).await,
        4,
    );
    assert_eq!(e.code, codes::INVALID_PARAMS);
    assert!(e.message.contains("a: invalid type"), "{}", e.message);

    let r = expect_result(&call(&mut raw, 5, "tools/call", json!({ "name": "sync_text" })).await, 5);
    assert_eq!(r["content"], json!([{ "type": "text", "text": "plain text" }]));
    let r = expect_result(&call(&mut raw, 6, "tools/call", json!({ "name": "fails" })).await, 6);
    assert_eq!((r["isError"].clone(), r["content"][0]["text"].clone()), (json!(true), json!("it broke")));
    assert_eq!(
        expect_error(&call(&mut raw, 7, "tools/call", json!({ "name": "protocol_fail" })).await, 7).code,
        codes::INVALID_PARAMS
    );
    assert_eq!(
        expect_error(&call(&mut raw, 8, "tools/call", json!({ "name": "nope" })).await, 8).code,
        codes::INVALID_PARAMS
    );

    // Resources: static, template, not found (-32002 before 2026).
    let r = expect_result(&call(&mut raw, 9, "resources/read", json!({ "uri": "test://static" })).await, 9);
    assert_eq!(
        r["contents"][0],
        json!({ "uri": "test://static", "mimeType": "text/plain", "text": "static text" })
    );
    let r =
        expect_result(&call(&mut raw, 10, "resources/read", json!({ "uri": "test://items/42" })).await, 10);
    assert_eq!(r["contents"][0]["text"], "item 42");
    let e = expect_error(&call(&mut raw, 11, "resources/read", json!({ "uri": "test://missing" })).await, 11);
    assert_eq!((e.code, e.data), (codes::RESOURCE_NOT_FOUND, Some(json!({ "uri": "test://missing" }))));

    let r = expect_result(
        &call(&mut raw, 12, "prompts/get", json!({ "name": "greet", "arguments": { "name": "Ada" } })).await,
        12,
    );
    assert_eq!(r["messages"][0]["content"]["text"], "Hello Ada");
    assert_eq!(
        expect_error(&call(&mut raw, 13, "prompts/get", json!({ "name": "greet" })).await, 13).code,
        codes::INVALID_PARAMS
    );
    assert_eq!(expect_result(&call(&mut raw, 14, "ping", json!({})).await, 14), json!({}));
    assert_eq!(
        expect_error(&call(&mut raw, 15, "server/discover", json!({})).await, 15).code,
        codes::METHOD_NOT_FOUND
    );
}

/// The 2026 envelope's members, as text to put in a `_meta` object beside others.
fn envelope_members() -> String {
    let text = envelope().to_string();
    text[1..text.len() - 1].to_owned()
}

/// `tools/call` params as text, exactly as given (escapes and all).
async fn call_text(raw: &mut RawPeer, id: i64, params: &str) -> Message {
    let params = serde_json::value::RawValue::from_string(params.to_owned()).unwrap();
    raw.send(mcpwire::protocol::Request::new(id, "tools/call", Some(params))).await;
    raw.next().await
}

/// The server reads `tools/call` params in place, borrowing the name and the arguments
/// from the request's text: an escaped name, `null` arguments, arguments that are not an
/// object and large arguments read as they always did, in both eras.
#[tokio::test]
async fn tool_call_params_read_in_place_keep_the_wire_rules() {
    let meta_2026 = format!(r#","_meta":{}"#, envelope());
    for (era, meta) in [("2025", ""), ("2026", meta_2026.as_str())] {
        // A connection speaks one era.
        let mut raw = start();
        if era == "2025" {
            let init = json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } });
            expect_result(&call(&mut raw, 1, "initialize", init).await, 1);
        }
        // An escaped name is the same name.
        let r = expect_result(
            &call_text(&mut raw, 2, &format!(r#"{{"name":"ad\u0064","arguments":{{"a":2,"b":3}}{meta}}}"#))
                .await,
            2,
        );
        assert_eq!(r["structuredContent"], json!({ "sum": 5 }), "{era}");
        // `null` arguments read as none.
        let r = expect_result(
            &call_text(&mut raw, 3, &format!(r#"{{"name":"sync_text","arguments":null{meta}}}"#)).await,
            3,
        );
        assert_eq!(r["content"][0]["text"], "plain text", "{era}");
        // Arguments that are not an object are invalid params, saying what they were.
        for (id, (arguments, found)) in
            [("[1]", "an array"), (r#""x""#, "a string"), ("7", "a number"), ("true", "a boolean")]
                .into_iter()
                .enumerate()
        {
            let id = 10 + id as i64;
            let e = expect_error(
                &call_text(&mut raw, id, &format!(r#"{{"name":"add","arguments":{arguments}{meta}}}"#)).await,
                id,
            );
            assert_eq!(e.code, codes::INVALID_PARAMS, "{era} {arguments}");
            assert!(
                e.message.contains(found) && e.message.contains("expected a JSON object"),
                "{era}: {}",
                e.message
            );
        }
        // A name that is not a string is refused as the wire type refuses it.
        let e = expect_error(&call_text(&mut raw, 20, &format!(r#"{{"name":1{meta}}}"#)).await, 20);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{era}");
        assert!(e.message.contains("expected a string"), "{era}: {}", e.message);
        // Large arguments, with a progress token beside them.
        let big = 3 * 40_000;
        let params = format!(
            r#"{{"name":"add","arguments":{{"a":{big},"b":1,"pad":"{}"}},"_meta":{{"progressToken":"p"{}}}}}"#,
            "x".repeat(big),
            if era == "2025" { String::new() } else { format!(",{}", envelope_members()) }
        );
        let r = expect_result(&call_text(&mut raw, 21, &params).await, 21);
        assert_eq!(r["structuredContent"], json!({ "sum": big + 1 }), "{era}");
    }
}

#[tokio::test]
async fn stateful_logging_follows_set_level() {
    let mut raw = start();
    call(&mut raw, 1, "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } })).await;
    raw.request(2, "tools/call", json!({ "name": "logs" })).await;
    let levels: Vec<Value> = vec![json_of(&raw.next().await), json_of(&raw.next().await)];
    assert_eq!(levels[0]["params"]["level"], "debug");
    assert_eq!(levels[1]["params"]["level"], "error");
    expect_result(&raw.next().await, 2);
    assert_eq!(
        expect_result(&call(&mut raw, 3, "logging/setLevel", json!({ "level": "warning" })).await, 3),
        json!({})
    );
    raw.request(4, "tools/call", json!({ "name": "logs" })).await;
    assert_eq!(json_of(&raw.next().await)["params"]["level"], "error");
    expect_result(&raw.next().await, 4);
    // 2025-11-25: bad arguments are a tool execution error.
    let r = expect_result(
        &call(&mut raw, 5, "tools/call", json!({ "name": "add", "arguments": { "a": 1 } })).await,
        5,
    );
    assert_eq!(r["isError"], json!(true));
    assert!(r["content"][0]["text"].as_str().unwrap().contains("missing field `b`"));
}

#[tokio::test]
async fn requests_before_initialize_are_refused_and_initialize_once() {
    let mut raw = start();
    assert_eq!(
        expect_error(&call(&mut raw, 1, "tools/list", json!({})).await, 1).code,
        codes::INVALID_REQUEST
    );
    assert_eq!(expect_result(&call(&mut raw, 2, "ping", json!({})).await, 2), json!({}));
    let init = json!({ "protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } });
    assert_eq!(
        expect_result(&call(&mut raw, 3, "initialize", init.clone()).await, 3)["protocolVersion"],
        "2025-11-25"
    );
    assert_eq!(expect_error(&call(&mut raw, 4, "initialize", init).await, 4).code, codes::INVALID_REQUEST);
}

#[tokio::test]
async fn stateless_requests_are_stamped_and_checked() {
    let mut raw = start();
    let d = expect_result(&call(&mut raw, 1, "server/discover", json!({ "_meta": envelope() })).await, 1);
    assert_eq!(d["resultType"], "complete");
    assert_eq!(d["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "test-server");
    assert_eq!((d["ttlMs"].clone(), d["cacheScope"].clone()), (json!(0), json!("private")));

    let t = expect_result(&call(&mut raw, 2, "tools/list", json!({ "_meta": envelope() })).await, 2);
    assert_eq!((t["resultType"].clone(), t["cacheScope"].clone()), (json!("complete"), json!("private")));
    let r = expect_result(
        &call(
            &mut raw,
            3,
            "tools/call",
            json!({ "_meta": envelope(), "name": "add", "arguments": { "a": 1, "b": 1 } }),
        )
        .await,
        3,
    );
    assert_eq!(
        (r["resultType"].clone(), r["structuredContent"]["sum"].clone()),
        (json!("complete"), json!(2))
    );
    assert!(r.get("ttlMs").is_none());

    assert_eq!(
        expect_error(&call(&mut raw, 4, "tools/list", json!({})).await, 4).code,
        codes::INVALID_PARAMS
    );
    let mut old = envelope();
    old["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let e = expect_error(&call(&mut raw, 5, "tools/list", json!({ "_meta": old })).await, 5);
    assert_eq!(
        (e.code, e.data.unwrap()["supported"].clone()),
        (codes::UNSUPPORTED_PROTOCOL_VERSION, json!(["2026-07-28"]))
    );
    for (i, m) in ["ping", "logging/setLevel", "resources/subscribe", "nope/nope"].iter().enumerate() {
        let e = expect_error(
            &call(&mut raw, 10 + i as i64, m, json!({ "_meta": envelope() })).await,
            10 + i as i64,
        );
        assert_eq!(e.code, codes::METHOD_NOT_FOUND, "{m}");
    }
    let e =
        expect_error(&call(&mut raw, 20, "initialize", json!({ "protocolVersion": "2025-11-25" })).await, 20);
    assert_eq!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
    let e = expect_error(
        &call(&mut raw, 21, "resources/read", json!({ "_meta": envelope(), "uri": "test://missing" })).await,
        21,
    );
    assert_eq!(e.code, codes::INVALID_PARAMS);
    // Logs only when the request asked for them.
    let r = call(&mut raw, 22, "tools/call", json!({ "_meta": envelope(), "name": "logs" })).await;
    expect_result(&r, 22);
    let mut with_level = envelope();
    with_level["io.modelcontextprotocol/logLevel"] = json!("error");
    raw.request(23, "tools/call", json!({ "_meta": with_level, "name": "logs" })).await;
    assert_eq!(json_of(&raw.next().await)["params"]["level"], "error");
    expect_result(&raw.next().await, 23);
}

#[tokio::test]
async fn stateless_elicitation_is_a_multi_round_trip() {
    let mut raw = start();
    let first = expect_result(
        &call(&mut raw, 1, "tools/call", json!({ "_meta": envelope(), "name": "ask" })).await,
        1,
    );
    assert_eq!(first["resultType"], "input_required");
    let requests = first["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");
    let state = first["requestState"].as_str().unwrap().to_owned();
    let retry = json!({
        "_meta": envelope(), "name": "ask",
        "inputResponses": { key.clone(): { "action": "accept", "content": { "name": "Ada" } } },
        "requestState": state,
    });
    let done = expect_result(&call(&mut raw, 2, "tools/call", retry).await, 2);
    assert_eq!(
        (done["resultType"].clone(), done["content"][0]["text"].clone()),
        (json!("complete"), json!("Accept"))
    );
    // Without the elicitation capability: -32021.
    let mut no_caps = envelope();
    no_caps["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let e =
        expect_error(&call(&mut raw, 3, "tools/call", json!({ "_meta": no_caps, "name": "ask" })).await, 3);
    assert_eq!(e.code, codes::MISSING_REQUIRED_CLIENT_CAPABILITY);
    let _ = ContentBlock::text("");
}

/// The `requestState` of an `input_required` round: a retry can replay it by default; a
/// single-use sealer opens it once and refuses the replay.
#[tokio::test]
async fn a_single_use_request_state_is_refused_when_replayed() {
    use mcpwire::server::request_state::StateSealer;
    async fn answer_twice(raw: &mut RawPeer) -> (Value, Message) {
        let first = expect_result(
            &call(raw, 1, "tools/call", json!({ "_meta": envelope(), "name": "ask" })).await,
            1,
        );
        let key = first["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
        let retry = json!({
            "_meta": envelope(), "name": "ask", "requestState": first["requestState"],
            "inputResponses": { key: { "action": "accept", "content": { "name": "Ada" } } },
        });
        let done = expect_result(&call(raw, 2, "tools/call", retry.clone()).await, 2);
        (done, call(raw, 3, "tools/call", retry).await)
    }
    let (done, replay) = answer_twice(&mut start()).await;
    assert_eq!(done["content"][0]["text"], "Accept");
    assert_eq!(expect_result(&replay, 3)["content"][0]["text"], "Accept");

    let single_use = builder().request_state_sealer(StateSealer::random().unwrap().single_use());
    let (done, replay) = answer_twice(&mut start_serving(single_use.build().unwrap())).await;
    assert_eq!(done["content"][0]["text"], "Accept");
    let e = expect_error(&replay, 3);
    assert_eq!((e.code, e.message.as_str()), (codes::INVALID_PARAMS, "Invalid or expired requestState"));
}

#[tokio::test]
async fn middleware_wraps_every_message_of_both_eras() {
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let server = Server::builder("mw", "1")
        .tool(tool("ok").description("ok").handler(|| "ok"))
        .middleware(mcpwire::server::middleware_fn(move |request, ctx, next| {
            log.lock().unwrap().push(request.method.clone());
            async move {
                if request.method == "tools/call"
                    && request.params.as_ref().is_some_and(|p| p.get().contains("forbidden"))
                {
                    return Err(McpError::invalid_request("refused by middleware"));
                }
                next.run(request, ctx).await
            }
        }))
        .build()
        .unwrap();
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });
    expect_result(&call(&mut raw, 1, "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } })).await, 1);
    expect_error(&call(&mut raw, 2, "no/such/method", json!({})).await, 2);
    expect_result(&call(&mut raw, 3, "tools/call", json!({ "name": "ok" })).await, 3);
    let e = expect_error(
        &call(&mut raw, 4, "tools/call", json!({ "name": "ok", "arguments": { "x": "forbidden" } })).await,
        4,
    );
    assert_eq!(e.message, "refused by middleware");
    assert_eq!(*seen.lock().unwrap(), vec!["initialize", "no/such/method", "tools/call", "tools/call"]);
}

/// A handler sees the request's whole `_meta` and its envelope in both eras, whatever
/// form the server kept them in.
#[tokio::test]
async fn handlers_see_the_whole_meta_and_the_envelope() {
    let server = Server::builder("meta-server", "0.1.0")
        .tool(tool("meta").description("Shows _meta").handler(|ctx: Ctx| async move {
            let meta = ctx.meta().cloned().map(Value::Object).unwrap_or(Value::Null);
            let client = ctx.client_info().map(|i| i.name.clone());
            let elicits = ctx.client_capabilities().elicitation.is_some();
            Json(json!({ "meta": meta, "client": client, "elicits": elicits }))
        }))
        .build()
        .unwrap();
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });

    let mut meta = envelope();
    meta["progressToken"] = json!("p-1");
    meta["example.com/trace"] = json!({ "spans": [1, 2], "escaped": "a\"b" });
    let r =
        expect_result(&call(&mut raw, 1, "tools/call", json!({ "_meta": meta, "name": "meta" })).await, 1);
    assert_eq!(r["structuredContent"], json!({ "meta": meta, "client": "t", "elicits": true }));

    // A repeated envelope member: a JSON reader keeps the last one.
    let text = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"first","version":"1"},"io.modelcontextprotocol/clientInfo":{"name":"last","version":"1"}},"name":"meta"}"#;
    let params = serde_json::value::RawValue::from_string(text.to_owned()).unwrap();
    raw.send(mcpwire::protocol::Request::new(2, "tools/call", Some(params))).await;
    let r = expect_result(&raw.next().await, 2);
    assert_eq!(
        (r["structuredContent"]["client"].clone(), r["structuredContent"]["elicits"].clone()),
        (json!("last"), json!(false))
    );

    let e = expect_error(&call(&mut raw, 3, "tools/call", json!({ "_meta": 5, "name": "meta" })).await, 3);
    assert_eq!(e.code, codes::INVALID_PARAMS);
    assert!(e.message.contains("invalid type: integer `5`"), "{}", e.message);
}

/// A server that relays another declares that one's capabilities with
/// `extra_capabilities` and serves its methods with `method`: the declared capabilities
/// are honoured (list changes reach a 2025 session), the registered methods still serve
/// the requests, and a capability member that is not what the schema says fails the build.
#[tokio::test]
async fn declared_capabilities_are_honoured_and_custom_methods_still_serve() {
    let extra = json!({ "tools": { "listChanged": true }, "resources": { "subscribe": true } });
    let server = Server::builder("relay", "1")
        .extra_capabilities(extra.as_object().unwrap().clone())
        .method("tools/list", |_ctx, _params| async {
            Ok(json!({ "tools": [{ "name": "elsewhere", "inputSchema": { "type": "object" } }] }))
        })
        .build()
        .unwrap();
    assert!(server.capabilities().tools.is_some(), "the typed capability is set");
    let mut raw = initialized(server.clone()).await;
    raw.send(mcpwire::protocol::Notification::new("notifications/initialized", None)).await;
    let listed = expect_result(&call(&mut raw, 1, "tools/list", json!({})).await, 1);
    assert_eq!(listed["tools"][0]["name"], "elsewhere", "the custom method served it");
    // The session records a subscription (the capability says it can), and hears of
    // list changes.
    expect_result(&call(&mut raw, 2, "resources/subscribe", json!({ "uri": "x://y" })).await, 2);
    server.notify(ServerEvent::ToolsChanged);
    match raw.next().await {
        Message::Notification(n) => assert_eq!(n.method, "notifications/tools/list_changed"),
        other => panic!("expected the list change, got {other:?}"),
    }
    let bad = Server::builder("relay", "1")
        .extra_capabilities(json!({ "tools": true }).as_object().unwrap().clone())
        .build();
    assert!(matches!(bad, Err(mcpwire::server::BuildError::InvalidCapabilities(_))), "{bad:?}");
}

/// A custom method the server would never reach (a protocol method, or one of a family
/// something was registered for) fails the build, naming why; the same method with
/// nothing of its family registered serves, as above.
#[test]
fn a_custom_method_the_server_answers_itself_fails_the_build() {
    use mcpwire::server::BuildError;
    let handler = |_ctx, _params| async { Ok(json!({})) };
    let shadowed = [
        Server::builder("s", "1").tool(tool("t").handler(|| "x")).method("tools/list", handler).build(),
        Server::builder("s", "1")
            .resource(resource("docs://a", "a").text("a"))
            .method("resources/list", handler)
            .build(),
        Server::builder("s", "1").method("ping", handler).build(),
    ];
    for (built, method) in shadowed.into_iter().zip(["tools/list", "resources/list", "ping"]) {
        match built {
            Err(e @ BuildError::ShadowedMethod(..)) => {
                assert!(e.to_string().contains(method) && e.to_string().contains("never run"), "{e}")
            }
            other => panic!("{method}: expected ShadowedMethod, got {:?}", other.map(|_| ())),
        }
    }
    assert!(Server::builder("s", "1")
        .tool(tool("t").handler(|| "x"))
        .method("resources/list", handler)
        .build()
        .is_ok());
}

/// A listen stream is granted what the server declared: `listChanged` per list, and
/// resource subscriptions only with `resources.subscribe`.
#[tokio::test]
async fn a_listen_stream_is_granted_what_the_capabilities_declare() {
    let extra =
        json!({ "tools": { "listChanged": true }, "resources": { "listChanged": true }, "prompts": {} });
    let server =
        Server::builder("caps", "1").extra_capabilities(extra.as_object().unwrap().clone()).build().unwrap();
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });
    let asked = json!({ "notifications": {
        "toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true,
        "resourceSubscriptions": ["x://y"] }, "_meta": envelope() });
    raw.request(1, "subscriptions/listen", asked).await;
    let ack = json_of(&raw.next().await);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    let granted = &ack["params"]["notifications"];
    assert_eq!(granted["toolsListChanged"], true, "{ack}");
    assert_eq!(granted["resourcesListChanged"], true, "{ack}");
    assert!(granted.get("promptsListChanged").is_none(), "prompts without listChanged: {ack}");
    assert!(granted.get("resourceSubscriptions").is_none(), "resources without subscribe: {ack}");
}

/// A standard family served by hand (custom methods, nothing of it registered) still
/// answers its 2026 cacheable methods with `ttlMs` and `cacheScope`, which every
/// `complete` result of them MUST carry: the configured hint, else the default, unless
/// the handler set its own. Other methods get none.
#[tokio::test]
async fn a_cacheable_method_served_by_hand_carries_cache_hints_in_2026() {
    use mcpwire::protocol::{CacheHint, CacheScope};
    let extra = json!({ "resources": {} });
    let server = Server::builder("relay", "1")
        .extra_capabilities(extra.as_object().unwrap().clone())
        .cache_hint("resources/list", CacheHint { ttl_ms: 5000, scope: CacheScope::Public })
        .method("resources/list", |_ctx, _params| async { Ok(json!({ "resources": [] })) })
        .method("resources/templates/list", |_ctx, _params| async {
            Ok(json!({ "resourceTemplates": [], "ttlMs": 7, "cacheScope": "public" }))
        })
        .method("resources/read", |_ctx, _params| async {
            Ok(json!({ "contents": [{ "uri": "x://y", "text": "y" }] }))
        })
        .method("acme/other", |_ctx, _params| async { Ok(json!({})) })
        .build()
        .unwrap();
    let mut raw = start_serving(server);
    let params = |extra: Value| {
        let mut p = json!({ "_meta": envelope() });
        p.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        p
    };
    let hints = |result: &Value| (result["ttlMs"].clone(), result["cacheScope"].clone());
    let listed = expect_result(&call(&mut raw, 1, "resources/list", params(json!({}))).await, 1);
    assert_eq!(hints(&listed), (json!(5000), json!("public")), "{listed}");
    let templates = expect_result(&call(&mut raw, 2, "resources/templates/list", params(json!({}))).await, 2);
    assert_eq!(hints(&templates), (json!(7), json!("public")), "the handler's own hint is kept");
    let read =
        expect_result(&call(&mut raw, 3, "resources/read", params(json!({ "uri": "x://y" }))).await, 3);
    assert_eq!(hints(&read), (json!(0), json!("private")), "{read}");
    let other = expect_result(&call(&mut raw, 4, "acme/other", params(json!({}))).await, 4);
    assert_eq!(hints(&other), (Value::Null, Value::Null), "{other}");
}

/// On stdio only `initialize` (the 2025 era) or an enveloped request (2026) opens a
/// stream's era: a stray request before either (here a `tools/list` without `_meta`,
/// refused as a 2025 request before `initialize`) does not fix the stream to 2025, so a
/// 2026 client's enveloped requests after it are served statelessly.
#[tokio::test]
async fn a_stray_request_before_either_era_opens_does_not_fix_the_era() {
    let mut raw = start();
    let stray = call(&mut raw, 1, "tools/list", json!({})).await;
    assert_eq!(expect_error(&stray, 1).code, codes::INVALID_REQUEST);
    let listed = expect_result(&call(&mut raw, 2, "tools/list", json!({ "_meta": envelope() })).await, 2);
    assert_eq!(listed["resultType"], "complete", "{listed}");
    // The stream is 2026 now: `initialize` is refused as a 2026 stream refuses it.
    let init = json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } });
    let refused = call(&mut raw, 3, "initialize", init).await;
    assert_eq!(expect_error(&refused, 3).code, codes::UNSUPPORTED_PROTOCOL_VERSION);
}

/// A hand-made `input_required` result (`McpError::needs_input`) is held to what the
/// request declared, as `ctx.elicit` and friends are: a question of a kind the client did
/// not declare is `-32021` naming it, not sent; one of no kind a client can answer is an
/// internal error.
#[tokio::test]
async fn a_hand_made_input_round_asks_only_what_the_client_declared() {
    use mcpwire::protocol::mrtr::{InputRequest, InputRequiredResult};
    let asking = |request: Value| {
        move || {
            let request = request.clone();
            async move {
                let mut result = InputRequiredResult::new();
                let request: InputRequest = serde_json::from_value(request).unwrap();
                result.input_requests = Some([("q".to_owned(), request)].into_iter().collect());
                Err::<String, _>(McpError::needs_input(result))
            }
        }
    };
    let sampling = json!({ "method": "sampling/createMessage",
        "params": { "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }], "maxTokens": 5 } });
    let server = builder()
        .tool(tool("sample").handler(asking(sampling)))
        .tool(tool("roots").handler(asking(json!({ "method": "roots/list" }))))
        .tool(tool("other").handler(asking(json!({ "method": "tools/call", "params": {} }))))
        .build()
        .unwrap();
    let mut raw = start_serving(server);
    // `envelope()` declares elicitation only.
    for (id, name, required) in
        [(1, "sample", json!({ "sampling": {} })), (2, "roots", json!({ "roots": {} }))]
    {
        let answer = call(&mut raw, id, "tools/call", json!({ "_meta": envelope(), "name": name })).await;
        let e = expect_error(&answer, id);
        assert_eq!(e.code, codes::MISSING_REQUIRED_CLIENT_CAPABILITY, "{name}: {e:?}");
        assert_eq!(e.data.unwrap()["requiredCapabilities"], required, "{name}");
    }
    let answer = call(&mut raw, 3, "tools/call", json!({ "_meta": envelope(), "name": "other" })).await;
    assert_eq!(expect_error(&answer, 3).code, codes::INTERNAL_ERROR);
    // Declared, the same question is asked.
    let mut sampling_declared = envelope();
    sampling_declared["io.modelcontextprotocol/clientCapabilities"] = json!({ "sampling": {} });
    let asked =
        call(&mut raw, 4, "tools/call", json!({ "_meta": sampling_declared, "name": "sample" })).await;
    assert_eq!(expect_result(&asked, 4)["inputRequests"]["q"]["method"], "sampling/createMessage");
}

/// "Resource not found" is `-32002` in 2025 and `-32602` in 2026, which must not emit
/// `-32002`: a middleware's error is answered in its request's era's terms too, as a
/// handler's is (a middleware that hides resources a caller may not see, say).
#[tokio::test]
async fn a_middlewares_resource_not_found_is_answered_in_the_eras_terms() {
    let hiding = || {
        builder()
            .middleware(mcpwire::server::middleware_fn(|request, ctx, next| async move {
                if request.method == "resources/read" {
                    return Err(McpError::resource_not_found("docs://hidden"));
                }
                next.run(request, ctx).await
            }))
            .build()
            .unwrap()
    };
    let mut raw = start_serving(hiding());
    let params = json!({ "_meta": envelope(), "uri": "docs://hidden" });
    let e = expect_error(&call(&mut raw, 1, "resources/read", params).await, 1);
    assert_eq!(e.code, codes::INVALID_PARAMS, "2026: {e:?}");
    assert_eq!(e.data.unwrap()["uri"], "docs://hidden");

    let mut raw = initialized(hiding()).await;
    let e = expect_error(&call(&mut raw, 1, "resources/read", json!({ "uri": "docs://hidden" })).await, 1);
    assert_eq!(e.code, codes::RESOURCE_NOT_FOUND, "2025: {e:?}");
}
