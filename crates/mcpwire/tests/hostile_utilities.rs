//! A hostile client against the server's utility methods: `completion/complete`,
//! `logging/setLevel` (and the 2026 per-request `logLevel`), list cursors,
//! `resources/read` and `resources/subscribe` with hostile URIs, `prompts/get` and
//! `tools/call` with arguments of the wrong types, the answers a 2025 client gives the
//! server's own requests (`roots/list`, `sampling/createMessage`, `elicitation/create`),
//! and the lifecycle methods sent out of turn. Each rule is checked over the in-memory
//! transport; the sweeps at the end send the same requests over newline-delimited JSON
//! (the stdio framing) and Streamable HTTP, in both eras.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod mcp_http;
mod raw_http;

use common::*;
use mcpwire::protocol::codes;
use mcpwire::protocol::completion::{CompleteResult, Completion};
use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams};
use mcpwire::protocol::{Message, Response};
use mcpwire::server::{
    prompt, resource, resource_template, tool, Args, Ctx, PromptArgs, ResourceRequest, Server,
};
use mcpwire::McpError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Typed {
    n: u8,
    s: String,
    deep: Option<Value>,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Greet {
    name: String,
    times: Option<u32>,
}

/// A server with a little of everything, two items a page; its completion offers 250
/// values.
fn server() -> Server {
    Server::builder("utilities", "1")
        .page_size(2)
        .tool(tool("typed").handler(|Args(a): Args<Typed>| format!("{} {}", a.n, a.s)))
        .tool(tool("t2").handler(|| "t2"))
        .tool(tool("t3").handler(|| "t3"))
        .tool(tool("roots").handler(|ctx: Ctx| async move {
            let roots = ctx.list_roots().await?;
            Ok::<_, McpError>(format!("{} roots", roots.roots.len()))
        }))
        .tool(tool("ask").handler(|ctx: Ctx| async move {
            let schema = json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string", "maxLength": 10 },
                    "age": { "type": "integer", "minimum": 0, "maximum": 150 },
                    "color": { "type": "string", "enum": ["red", "green"] },
                    "ok": { "type": "boolean" }
                },
                "required": ["name"]
            });
            let form = ElicitRequestFormParams {
                message: "Who?".into(),
                requested_schema: serde_json::from_value(schema).unwrap(),
                ..Default::default()
            };
            let answer = ctx.elicit(ElicitRequestParams::Form(form)).await?;
            Ok::<_, McpError>(format!("{:?} {}", answer.action, json!(answer.content)))
        }))
        .tool(tool("sample").handler(|ctx: Ctx| async move { ctx.sample_text("hi", 10).await }))
        .resource(resource("docs://a", "a").text("A"))
        .resource(resource("docs://b", "b").text("B"))
        .resource(resource("docs://c", "c").text("C"))
        .resource_template(
            resource_template("m://{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}{m}{n}{o}{p}{q}{r}{s}{t}", "many")
                .handler(
                    |r: ResourceRequest| async move { r.var("t").unwrap_or_default().len().to_string() },
                ),
        )
        .resource_template(
            resource_template("test://item/{id}", "item")
                .handler(|r: ResourceRequest| async move { r.var("id").unwrap_or_default().to_owned() }),
        )
        .prompt(prompt("greet").handler(|Args(g): Args<Greet>| async move { format!("hi {}", g.name) }))
        .prompt(prompt("free").handler(|a: PromptArgs| async move { format!("{} arguments", a.0.len()) }))
        .prompt(prompt("p3").handler(|| async { "p3" }))
        .completion(|_ctx, _p| async move {
            let values = (0..250).map(|i| format!("v{i}")).collect();
            Ok(CompleteResult {
                completion: Completion { values, ..Default::default() },
                ..Default::default()
            })
        })
        .on_subscribe(|_uri| async { Ok(()) })
        .build()
        .unwrap()
}

/// A 2025-11-25 session whose client declared roots, elicitation and sampling.
async fn session() -> RawPeer {
    initialized_with(server()).await
}

async fn initialized_with(server: Server) -> RawPeer {
    let raw = initialize_with(server, json!({ "roots": {}, "elicitation": {}, "sampling": {} })).await;
    raw.send(mcpwire::protocol::Notification::new("notifications/initialized", None)).await;
    raw
}

async fn ask(raw: &mut RawPeer, id: i64, method: &str, params: Value) -> Message {
    raw.request(id, method, params).await;
    raw.next().await
}

#[tokio::test]
async fn a_completion_for_an_unknown_huge_template_quotes_a_bounded_part_of_it() {
    let mut raw = session().await;
    let uri = format!("nope://{}", "x".repeat(1 << 20));
    let params =
        json!({ "ref": { "type": "ref/resource", "uri": uri }, "argument": { "name": "a", "value": "" } });
    let error = expect_error(&ask(&mut raw, 1, "completion/complete", params).await, 1);
    assert_eq!(error.code, codes::INVALID_PARAMS);
    assert!(error.message.starts_with("Unknown resource or template: nope://xxx"), "{:.100}", error.message);
    assert!(error.message.len() < 1024, "the error quotes {} bytes of the URI", error.message.len());
}

/// Subscribing to ever longer URIs: the session's set is bounded in bytes, not only in
/// URIs (4096 URIs of 1 MiB each would be 4 GiB). Past the bound a subscribe is refused,
/// saying so; unsubscribing makes room again.
#[tokio::test]
async fn a_session_subscribing_to_huge_uris_is_bounded_in_bytes() {
    let mut raw = session().await;
    let huge = |i: usize| format!("docs://{i}/{}", "u".repeat(256 * 1024));
    let mut accepted = 0;
    let mut refused = None;
    for i in 0..64 {
        let answer =
            json_of(&ask(&mut raw, i as i64, "resources/subscribe", json!({ "uri": huge(i) })).await);
        if answer.get("result").is_some() {
            accepted += 1;
        } else {
            refused = Some((i, answer));
            break;
        }
    }
    let Some((at, error)) = refused else { panic!("all 64 subscriptions of 256 KiB were kept") };
    assert!(accepted <= 4, "{accepted} URIs of 256 KiB kept");
    assert_eq!(error["error"]["code"], codes::INTERNAL_ERROR, "{error:.300}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("unsubscribe"), "{message}");
    assert!(message.len() < 1024, "{:.300}", message);
    // Short URIs still fit, and giving one up makes room for the one refused.
    expect_result(&ask(&mut raw, 100, "resources/subscribe", json!({ "uri": "docs://a" })).await, 100);
    expect_result(&ask(&mut raw, 101, "resources/unsubscribe", json!({ "uri": huge(0) })).await, 101);
    expect_result(&ask(&mut raw, 102, "resources/subscribe", json!({ "uri": huge(at) })).await, 102);
    // A URI longer than a session may follow in all is the request's fault, not a full set.
    let too_long = format!("docs://{}", "u".repeat(2 << 20));
    let error =
        expect_error(&ask(&mut raw, 103, "resources/subscribe", json!({ "uri": too_long })).await, 103);
    assert_eq!(error.code, codes::INVALID_PARAMS, "{:.300}", error.message);
    assert!(error.message.contains("1048576") && error.message.len() < 1024, "{:.300}", error.message);
}

/// A URI longer than any a template matches (64 KiB) is not matched at all: matching a
/// megabyte against a template of twenty adjacent variables would hold a worker thread
/// for seconds. Shorter ones still match, and a fixed resource's URI is looked up as it is.
#[tokio::test]
async fn a_megabyte_uri_is_not_matched_against_the_templates() {
    let mut raw = session().await;
    let huge = format!("m://{}", "x".repeat(1 << 20));
    let error = expect_error(&ask(&mut raw, 1, "resources/read", json!({ "uri": huge })).await, 1);
    assert_eq!(error.code, codes::RESOURCE_NOT_FOUND, "{:.200}", error.message);
    assert_eq!(error.data.unwrap()["uri"].as_str().unwrap().len(), huge.len());
    let long = format!("test://item/{}", "y".repeat(60 * 1024));
    let read = expect_result(&ask(&mut raw, 2, "resources/read", json!({ "uri": long })).await, 2);
    assert_eq!(read["contents"][0]["text"].as_str().unwrap().len(), 60 * 1024);
    let read = expect_result(
        &ask(&mut raw, 3, "resources/read", json!({ "uri": "m://abcdefghijklmnopqrstuvwxyz" })).await,
        3,
    );
    assert_eq!(read["contents"][0]["text"], "7");
}

/// Answers the server's one request (which must be `method`) with `result`; the answer
/// to the call that asked it.
async fn answer_question(raw: &mut RawPeer, method: &str, result: Value) -> Message {
    let question = match raw.next().await {
        Message::Request(r) if r.method == method => r,
        other => panic!("expected {method}, got {}", json_of(&other)),
    };
    raw.send(Response::new(question.id, serde_json::value::to_raw_value(&result).unwrap())).await;
    raw.next().await
}

/// The same in 2026: a retry answering the roots question with a root that is no
/// `file://` URI is `-32602` naming it.
#[tokio::test]
async fn a_2026_roots_answer_naming_a_root_that_is_no_file_uri_is_refused() {
    let (conn, mut raw) = raw_connection();
    let server = server();
    tokio::spawn(async move { server.serve(conn).await });
    let envelope = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "roots": {} }
    });
    raw.request(1, "tools/call", json!({ "_meta": envelope, "name": "roots" })).await;
    let first = expect_result(&raw.next().await, 1);
    assert_eq!(first["resultType"], "input_required", "{first}");
    let key = first["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let roots = json!({ "roots": [{ "uri": "file:///home" }, { "uri": "https://evil.example/" }] });
    let retry = json!({
        "_meta": envelope,
        "name": "roots",
        "inputResponses": { key: roots },
        "requestState": first["requestState"].clone(),
    });
    raw.request(2, "tools/call", retry).await;
    let error = expect_error(&raw.next().await, 2);
    assert_eq!(error.code, codes::INVALID_PARAMS, "{}", error.message);
    assert!(error.message.contains("https://evil.example/"), "{}", error.message);
}

/// A 2025 client's answers of the wrong shape (a roots answer without `roots`, a sampling
/// answer without content, an elicitation with an unknown `action`) are the client's
/// mistake: `-32602` saying which answer did not fit, as a 2026 retry's answers of the
/// wrong shape are, not an internal error of the server.
#[tokio::test]
async fn a_2025_answer_of_the_wrong_shape_is_invalid_params_naming_the_request() {
    let mut raw = session().await;
    let cases = [
        ("roots", "roots/list", json!({ "nope": 1 })),
        ("roots", "roots/list", json!({ "roots": [{ "uri": 5 }] })),
        ("sample", "sampling/createMessage", json!({ "role": "user" })),
        ("sample", "sampling/createMessage", json!("text")),
        ("ask", "elicitation/create", json!({ "action": "maybe" })),
        ("ask", "elicitation/create", json!({ "action": "accept", "content": { "name": { "a": 1 } } })),
    ];
    for (i, (tool, method, answer)) in cases.into_iter().enumerate() {
        let id = i as i64 + 1;
        raw.request(id, "tools/call", json!({ "name": tool })).await;
        let error = expect_error(&answer_question(&mut raw, method, answer.clone()).await, id);
        assert_eq!(error.code, codes::INVALID_PARAMS, "{answer}: {}", error.message);
        assert!(error.message.contains(method), "{answer}: {}", error.message);
    }
}

/// A 2025 client's answers to `roots/list`: a root must be a `file://` URI (both eras'
/// schemas: "This *must* start with file://"), so an answer naming another is refused
/// (`-32602`, naming it) rather than handed to a handler that takes roots for
/// directories. 100,000 roots are read as they are.
#[tokio::test]
async fn a_2025_roots_answer_naming_a_root_that_is_no_file_uri_is_refused() {
    let mut raw = session().await;
    for (id, uri) in [(1, "http://evil.example/"), (2, "javascript:alert(1)"), (3, "FILE:/etc"), (4, "")] {
        raw.request(id, "tools/call", json!({ "name": "roots" })).await;
        let roots = json!({ "roots": [{ "uri": "file:///home" }, { "uri": uri }] });
        let error = expect_error(&answer_question(&mut raw, "roots/list", roots).await, id);
        assert_eq!(error.code, codes::INVALID_PARAMS, "{uri}: {}", error.message);
        assert!(error.message.contains("file://") && error.message.contains(uri), "{}", error.message);
    }
    raw.request(5, "tools/call", json!({ "name": "roots" })).await;
    let many: Vec<Value> = (0..100_000).map(|i| json!({ "uri": format!("file:///r{i}") })).collect();
    let result = expect_result(&answer_question(&mut raw, "roots/list", json!({ "roots": many })).await, 5);
    assert_eq!(result["content"][0]["text"], "100000 roots");
}

/// A completion handler that returns more than the 100 values a result may carry, and a
/// `total` below what it returned: the result carries 100, says there are more, and its
/// `total` is at least as many as the handler returned.
#[tokio::test]
async fn a_completion_is_cut_to_100_values_and_its_total_is_never_below_them() {
    let server = Server::builder("s", "1")
        .prompt(prompt("p").handler(|| async { "p" }))
        .completion(|_ctx, _p| async move {
            let values = (0..250).map(|i| format!("v{i}")).collect();
            let completion = Completion { values, total: Some(3), has_more: Some(false) };
            Ok(CompleteResult { completion, ..Default::default() })
        })
        .build()
        .unwrap();
    let mut raw = initialized_with(server).await;
    let params =
        json!({ "ref": { "type": "ref/prompt", "name": "p" }, "argument": { "name": "x", "value": "" } });
    let result = expect_result(&ask(&mut raw, 1, "completion/complete", params).await, 1);
    let completion = &result["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), 100);
    assert_eq!((completion["total"].clone(), completion["hasMore"].clone()), (json!(250), json!(true)));
}

/// A question the server asks the 2025 client that the client answers only after the
/// server gave up on it (the connection's request timeout): the call that asked fails,
/// the late answer is dropped unanswered, and the session goes on.
#[tokio::test]
async fn an_answer_after_the_question_timed_out_is_dropped() {
    let config = mcpwire::jsonrpc::DispatcherConfig {
        request_timeout: Some(std::time::Duration::from_millis(300)),
        ..Default::default()
    };
    let server = Server::builder("s", "1")
        .dispatcher_config(config)
        .tool(tool("roots").handler(|ctx: Ctx| async move {
            let roots = ctx.list_roots().await?;
            Ok::<_, McpError>(format!("{} roots", roots.roots.len()))
        }))
        .build()
        .unwrap();
    let mut raw = initialized_with(server).await;
    raw.request(1, "tools/call", json!({ "name": "roots" })).await;
    let question = match raw.next().await {
        Message::Request(r) if r.method == "roots/list" => r,
        other => panic!("expected roots/list, got {}", json_of(&other)),
    };
    // The server gives up: it cancels its question and the call fails.
    let mut failed = None;
    for _ in 0..2 {
        match json_of(&raw.next().await) {
            m if m["method"] == "notifications/cancelled" => {
                assert_eq!(m["params"]["requestId"], json_of(&Message::Request(question.clone()))["id"]);
            }
            m => failed = Some(m),
        }
    }
    let failed = failed.expect("the call was answered");
    assert_eq!(failed["id"], 1, "{failed}");
    assert!(failed.get("error").is_some(), "{failed}");
    let late = json!({ "roots": [{ "uri": "file:///late" }] });
    raw.send(Response::new(question.id, serde_json::value::to_raw_value(&late).unwrap())).await;
    raw.expect_silence(std::time::Duration::from_millis(200)).await;
    expect_result(&ask(&mut raw, 2, "ping", json!({})).await, 2);
}

/// A notification's method sent as a request (with an id) is a request for a method that
/// does not exist (`-32601`): a `notifications/cancelled` request cancels nothing, in
/// either era, and the call it names is still answered.
#[tokio::test]
async fn a_notification_sent_with_an_id_is_method_not_found_and_cancels_nothing() {
    let slow = || {
        Server::builder("s", "1")
            .tool(tool("slow").handler(|| async {
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                "done"
            }))
            .build()
            .unwrap()
    };
    let mut raw = initialized_with(slow()).await;
    raw.request(3, "tools/call", json!({ "name": "slow" })).await;
    raw.request(5, "notifications/cancelled", json!({ "requestId": 3 })).await;
    raw.request(6, "notifications/progress", json!({ "progressToken": 3, "progress": 1 })).await;
    assert_eq!(expect_error(&raw.next().await, 5).code, codes::METHOD_NOT_FOUND);
    assert_eq!(expect_error(&raw.next().await, 6).code, codes::METHOD_NOT_FOUND);
    assert_eq!(expect_result(&raw.next().await, 3)["content"][0]["text"], "done");

    let (conn, mut raw) = raw_connection();
    let server = slow();
    tokio::spawn(async move { server.serve(conn).await });
    let envelope = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    raw.request(3, "tools/call", json!({ "name": "slow", "_meta": envelope })).await;
    raw.request(5, "notifications/cancelled", json!({ "requestId": 3, "_meta": envelope })).await;
    assert_eq!(expect_error(&raw.next().await, 5).code, codes::METHOD_NOT_FOUND);
    assert_eq!(expect_result(&raw.next().await, 3)["content"][0]["text"], "done");
}

/// Arguments nested 10,000 deep for a typed handler (within the message size, past
/// serde_json's depth of 128): an `isError` result whose text names a bounded part of
/// the path, and the session goes on.
#[tokio::test]
async fn arguments_nested_ten_thousand_deep_are_an_error_result_of_bounded_size() {
    let mut raw = session().await;
    let depth = 10_000;
    let arguments = format!("{{\"n\":1,\"s\":\"x\",\"deep\":{}{}}}", "[".repeat(depth), "]".repeat(depth));
    let params = format!("{{\"name\":\"typed\",\"arguments\":{arguments}}}");
    let params = serde_json::value::RawValue::from_string(params).unwrap();
    raw.send(mcpwire::protocol::Request::new(1, "tools/call", Some(params))).await;
    let result = expect_result(&raw.next().await, 1);
    assert_eq!(result["isError"], true, "{result:.300}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("recursion limit exceeded") && text.len() < 1024, "{text:.300}");
    expect_result(&ask(&mut raw, 2, "ping", json!({})).await, 2);
}

// -- the same requests over stdio framing and Streamable HTTP, in both eras ------------

/// What a sweep request must get: an error with this code, or a result that passes the
/// check.
enum Want {
    Code(i64),
    Result(fn(&Value) -> bool),
}

/// Hostile utility requests a 2025 session gets after `initialize`, each with what it
/// must get.
fn sweep_2025() -> Vec<(&'static str, Value, Want)> {
    use Want::*;
    let completion = |reference: Value, rest: Value| {
        let mut p = json!({ "ref": reference, "argument": { "name": "a", "value": "" } });
        p.as_object_mut().unwrap().extend(rest.as_object().unwrap().clone());
        p
    };
    let prompt_ref = json!({ "type": "ref/prompt", "name": "greet" });
    let huge = "x".repeat(1 << 20);
    let ten_thousand: serde_json::Map<String, Value> =
        (0..10_000).map(|i| (format!("k{i}"), json!("v"))).collect();
    let tools_cursor = mcpwire::server::cursor::encode_position(2, "t2");
    vec![
        (
            "completion/complete",
            completion(json!({ "type": "ref/tool", "name": "greet" }), json!({})),
            Code(-32602),
        ),
        (
            "completion/complete",
            completion(json!({ "type": "ref/prompt", "name": "nope" }), json!({})),
            Code(-32602),
        ),
        (
            "completion/complete",
            completion(json!({ "type": "ref/resource", "uri": format!("n://{huge}") }), json!({})),
            Code(-32602),
        ),
        ("completion/complete", json!({ "ref": prompt_ref }), Code(-32602)),
        (
            "completion/complete",
            completion(prompt_ref.clone(), json!({ "context": { "arguments": [1, 2] } })),
            Code(-32602),
        ),
        (
            "completion/complete",
            completion(prompt_ref.clone(), json!({ "context": { "arguments": { "x": 1 } } })),
            Code(-32602),
        ),
        (
            "completion/complete",
            completion(prompt_ref.clone(), json!({ "argument": { "name": "a", "value": huge } })),
            Result(|r| {
                r["completion"]["values"].as_array().unwrap().len() == 100
                    && r["completion"]["hasMore"] == true
                    && r["completion"]["total"] == 250
            }),
        ),
        ("logging/setLevel", json!({ "level": "verbose" }), Code(-32602)),
        ("logging/setLevel", json!({ "level": 3 }), Code(-32602)),
        ("logging/setLevel", json!({}), Code(-32602)),
        ("logging/setLevel", json!({ "level": "debug" }), Result(|r| *r == json!({}))),
        ("tools/list", json!({ "cursor": "garbage" }), Code(-32602)),
        ("tools/list", json!({ "cursor": 5 }), Code(-32602)),
        ("tools/list", json!({ "cursor": huge }), Code(-32602)),
        ("tools/list", json!({ "cursor": tools_cursor }), Result(|r| r["tools"][0]["name"] == "t3")),
        ("prompts/list", json!({ "cursor": tools_cursor }), Code(-32602)),
        ("resources/list", json!({ "cursor": tools_cursor }), Code(-32602)),
        ("resources/templates/list", json!({ "cursor": tools_cursor }), Code(-32602)),
        ("resources/read", json!({ "uri": format!("m://{huge}") }), Code(-32002)),
        ("resources/read", json!({ "uri": "test://item/%ff%fe" }), Code(-32002)),
        (
            "resources/read",
            json!({ "uri": "test://item/..%2F..%2Fetc" }),
            Result(|r| r["contents"][0]["text"] == "../../etc"),
        ),
        ("resources/read", json!({ "uri": 5 }), Code(-32602)),
        ("resources/subscribe", json!({ "uri": 5 }), Code(-32602)),
        ("resources/subscribe", json!({ "uri": "never://heard-of" }), Result(|r| *r == json!({}))),
        ("resources/unsubscribe", json!({ "uri": "never://subscribed" }), Result(|r| *r == json!({}))),
        ("prompts/get", json!({ "name": "greet", "arguments": { "name": 5 } }), Code(-32602)),
        ("prompts/get", json!({ "name": "greet", "arguments": { "name": { "a": 1 } } }), Code(-32602)),
        ("prompts/get", json!({ "name": "greet", "arguments": {} }), Code(-32602)),
        (
            "prompts/get",
            json!({ "name": "free", "arguments": ten_thousand }),
            Result(|r| r["messages"][0]["content"]["text"] == "10000 arguments"),
        ),
        (
            "tools/call",
            json!({ "name": "typed", "arguments": { "n": 300, "s": "x" } }),
            Result(|r| r["isError"] == true),
        ),
        (
            "tools/call",
            json!({ "name": "typed", "arguments": { "n": 1e300, "s": "x" } }),
            Result(|r| r["isError"] == true),
        ),
        (
            "tools/call",
            json!({ "name": "typed", "arguments": { "n": 1, "s": "x", "extra": { "a": [1] } } }),
            Result(|r| r["content"][0]["text"] == "1 x"),
        ),
        ("ping", json!({ "unexpected": [1, 2] }), Result(|r| *r == json!({}))),
        ("notifications/initialized", json!({}), Code(-32601)),
    ]
}

/// Hostile utility requests of the 2026 revision (each gets the envelope in `_meta`,
/// with `logLevel` when `level` is not `null`).
fn sweep_2026() -> Vec<(&'static str, Value, Value, Want)> {
    use Want::*;
    let long = format!("m://{}", "x".repeat(70 * 1024));
    vec![
        ("tools/list", json!("verbose"), json!({}), Code(-32602)),
        ("tools/list", json!(3), json!({}), Code(-32602)),
        ("tools/list", json!({ "a": 1 }), json!({}), Code(-32602)),
        ("tools/list", json!("x".repeat(1 << 20)), json!({}), Code(-32602)),
        ("tools/list", json!("debug"), json!({ "cursor": "garbage" }), Code(-32602)),
        ("tools/list", json!(null), json!({ "cursor": 5 }), Code(-32602)),
        (
            "completion/complete",
            json!("debug"),
            json!({
                "ref": { "type": "ref/prompt", "name": "greet" }, "argument": { "name": "a", "value": "" }
            }),
            Result(|r| r["completion"]["values"].as_array().unwrap().len() == 100),
        ),
        (
            "completion/complete",
            json!(null),
            json!({ "ref": { "type": "ref/prompt", "name": "greet" } }),
            Code(-32602),
        ),
        ("resources/read", json!(null), json!({ "uri": long }), Code(-32602)),
        ("prompts/get", json!(null), json!({ "name": "greet", "arguments": { "name": 5 } }), Code(-32602)),
        ("logging/setLevel", json!(null), json!({ "level": "debug" }), Code(-32601)),
        ("resources/subscribe", json!(null), json!({ "uri": "docs://a" }), Code(-32601)),
        ("ping", json!(null), json!({}), Code(-32601)),
    ]
}

/// The 2026 params of a sweep request.
fn with_envelope(level: &Value, params: &Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    if !level.is_null() {
        meta["io.modelcontextprotocol/logLevel"] = level.clone();
    }
    let mut params = params.clone();
    params["_meta"] = meta;
    params
}

fn check(what: &str, answer: &Value, want: &Want) {
    let shown = || {
        let text = answer.to_string();
        format!("{what}: {:.300}", text)
    };
    match want {
        Want::Code(code) => assert_eq!(answer["error"]["code"], *code, "{}", shown()),
        Want::Result(ok) => assert!(ok(&answer["result"]), "{}", shown()),
    }
}

/// The server on one end of an in-process pipe, framed as stdio is (a JSON message a
/// line); the raw line end.
struct Lines {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
}

impl Lines {
    fn start() -> Lines {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (reader, writer) = tokio::io::split(theirs);
        let server = server();
        tokio::spawn(
            async move { server.serve(mcpwire::transport::io::IoTransport::new(reader, writer)).await },
        );
        let (read, write) = tokio::io::split(ours);
        Lines { write, read: tokio::io::BufReader::new(read) }
    }

    async fn send(&mut self, message: &Value) {
        use tokio::io::AsyncWriteExt;
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.write.write_all(&line).await.unwrap();
    }

    async fn line(&mut self) -> Value {
        use tokio::io::AsyncBufReadExt;
        let mut line = String::new();
        let read = self.read.read_line(&mut line);
        tokio::time::timeout(std::time::Duration::from_secs(10), read)
            .await
            .expect("no line within 10 s")
            .unwrap();
        serde_json::from_str(&line).unwrap()
    }

    async fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        let answer = self.line().await;
        assert_eq!(answer["id"], id, "{answer:.300}");
        answer
    }
}

#[tokio::test]
async fn hostile_utility_requests_over_stdio_framing_in_both_eras() {
    let mut s = Lines::start();
    let init = json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } });
    assert!(s.call(0, "initialize", init).await.get("result").is_some());
    s.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    for (i, (method, params, want)) in sweep_2025().into_iter().enumerate() {
        let answer = s.call(i as i64 + 1, method, params).await;
        check(method, &answer, &want);
    }
    // A repeated `initialize` is refused, a repeated `notifications/initialized` not
    // answered; the session goes on.
    let init = json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "c", "version": "2" } });
    assert_eq!(s.call(99, "initialize", init).await["error"]["code"], -32600);
    s.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    assert_eq!(s.call(100, "ping", json!({})).await["result"], json!({}));

    let mut s = Lines::start();
    for (i, (method, level, params, want)) in sweep_2026().into_iter().enumerate() {
        let answer = s.call(i as i64 + 1, method, with_envelope(&level, &params)).await;
        check(method, &answer, &want);
    }
}

#[tokio::test]
async fn hostile_utility_requests_over_streamable_http_in_both_eras() {
    use mcp_http::{answer, open_session, post, stateless_request, V25};
    let bound =
        mcpwire::http::serve_with_shutdown(mcpwire::http::McpService::new(server()), "127.0.0.1:0", "/mcp")
            .await
            .unwrap();
    let addr = bound.local_addr;
    let sid = open_session(addr, V25).await;
    for (i, (method, params, want)) in sweep_2025().into_iter().enumerate() {
        let body = json!({ "jsonrpc": "2.0", "id": i + 1, "method": method, "params": params });
        let response = post(addr, &sid, &body).await;
        assert_eq!(response.status, 200, "{method}");
        check(method, &answer(response).await, &want);
    }
    for (i, (method, level, params, want)) in sweep_2026().into_iter().enumerate() {
        let response =
            raw_http::send(addr, stateless_request(i as i64 + 1, method, with_envelope(&level, &params)))
                .await;
        check(method, &answer(response).await, &want);
    }
    bound.shutdown.cancel();
    let _ = bound.task.await;
}

/// An `initialize` POSTed in a live 2025 session (its `Mcp-Session-Id` sent along) is
/// refused as a repeated `initialize` is on stdio (`400`, `-32600`), rather than opening a
/// second session beside the first; the session goes on. A new session starts with an
/// `initialize` sent without the header.
#[tokio::test]
async fn an_initialize_posted_in_a_live_session_is_refused_and_the_session_goes_on() {
    use mcp_http::{answer, code, in_session, initialize_body, open_session, post, V25};
    let bound =
        mcpwire::http::serve_with_shutdown(mcpwire::http::McpService::new(server()), "127.0.0.1:0", "/mcp")
            .await
            .unwrap();
    let addr = bound.local_addr;
    let sid = open_session(addr, V25).await;
    let response =
        raw_http::send(addr, in_session(raw_http::Req::post(&initialize_body(7, V25)), &sid, V25)).await;
    assert_eq!(response.status, 400);
    assert_eq!(response.header("mcp-session-id"), None);
    let refused = response.json().await;
    assert_eq!((code(&refused), refused["id"].clone()), (codes::INVALID_REQUEST, json!(7)), "{refused}");
    let ping = json!({ "jsonrpc": "2.0", "id": 8, "method": "ping" });
    assert_eq!(answer(post(addr, &sid, &ping).await).await["result"], json!({}));
    assert_ne!(open_session(addr, V25).await, sid);
    bound.shutdown.cancel();
    let _ = bound.task.await;
}
