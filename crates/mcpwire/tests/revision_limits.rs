//! What a 2025 session sends stays within its negotiated revision: no request, content
//! block or message kind that revision does not have, whatever the client declared.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use mcpwire::protocol::content::{ContentBlock, Role};
use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams, ElicitRequestURLParams};
use mcpwire::protocol::prompts::PromptMessage;
use mcpwire::protocol::sampling::CreateMessageRequestParams;
use mcpwire::protocol::{codes, Message, Notification};
use mcpwire::server::{prompt, tool, Ctx, Server};
use mcpwire::McpError;
use serde_json::{json, Value};

fn form() -> ElicitRequestParams {
    ElicitRequestParams::Form(ElicitRequestFormParams {
        message: "Name?".into(),
        requested_schema: serde_json::from_value(
            json!({ "type": "object", "properties": { "name": { "type": "string" } } }),
        )
        .unwrap(),
        ..Default::default()
    })
}

fn url() -> ElicitRequestParams {
    ElicitRequestParams::Url(
        serde_json::from_value::<ElicitRequestURLParams>(json!({
            "mode": "url", "message": "Sign in", "url": "https://example.com/login", "elicitationId": "e1"
        }))
        .unwrap(),
    )
}

fn multi_select() -> ElicitRequestParams {
    ElicitRequestParams::Form(ElicitRequestFormParams {
        message: "Pick".into(),
        requested_schema: serde_json::from_value(json!({ "type": "object", "properties": {
            "colors": { "type": "array", "items": { "type": "string", "enum": ["red", "green"] } }
        } }))
        .unwrap(),
        ..Default::default()
    })
}

fn server() -> Server {
    Server::builder("limits", "0.1.0")
        .tool(tool("ask_form").description("Form elicitation").handler(|ctx: Ctx| async move {
            let answer = ctx.elicit(form()).await?;
            Ok::<_, McpError>(format!("{:?}", answer.action))
        }))
        .tool(tool("ask_url").description("URL elicitation").handler(|ctx: Ctx| async move {
            let answer = ctx.elicit(url()).await?;
            Ok::<_, McpError>(format!("{:?}", answer.action))
        }))
        .tool(tool("ask_multi").description("Multi-select form").handler(|ctx: Ctx| async move {
            let answer = ctx.elicit(multi_select()).await?;
            Ok::<_, McpError>(format!("{:?}", answer.action))
        }))
        .tool(tool("media").description("Audio and a resource link").handler(|| async { media() }))
        .tool(tool("sample").description("Sampling of a given shape").handler(
            |ctx: Ctx, args: mcpwire::server::Args<SampleArgs>| async move {
                let answer = ctx.sample(sampling(&args.0.shape)).await?;
                Ok::<_, McpError>(answer.model)
            },
        ))
        .prompt(prompt("media").description("Audio and a resource link").handler(|| async {
            media().into_iter().map(|c| PromptMessage { role: Role::User, content: c }).collect::<Vec<_>>()
        }))
        .build()
        .unwrap()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SampleArgs {
    shape: String,
}

/// A sampling request: `tools` (offering a tool), `two_blocks` (a message of two text
/// blocks), `one_in_array` (a message whose one block is in an array), `audio`.
fn sampling(shape: &str) -> CreateMessageRequestParams {
    let text = json!({ "type": "text", "text": "Hi" });
    let content = match shape {
        "two_blocks" => json!([text, text]),
        "one_in_array" => json!([text]),
        "audio" => json!({ "type": "audio", "data": "AAAA", "mimeType": "audio/wav" }),
        _ => text,
    };
    let mut params = json!({ "messages": [{ "role": "user", "content": content }], "maxTokens": 10 });
    if shape == "tools" {
        params["tools"] = json!([{ "name": "t", "inputSchema": { "type": "object" } }]);
    }
    serde_json::from_value(params).unwrap()
}

fn media() -> Vec<ContentBlock> {
    let block = |v: Value| serde_json::from_value::<ContentBlock>(v).unwrap();
    vec![
        block(json!({ "type": "audio", "data": "AAAA", "mimeType": "audio/wav" })),
        block(
            json!({ "type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "description": "A file" }),
        ),
        block(json!({ "type": "text", "text": "plain" })),
    ]
}

/// A server on one connection whose client negotiated `version`, declaring `capabilities`.
async fn session(server: Server, version: &str, capabilities: Value) -> RawPeer {
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });
    let params = json!({ "protocolVersion": version, "capabilities": capabilities, "clientInfo": { "name": "c", "version": "1" } });
    raw.request(0, "initialize", params).await;
    assert_eq!(expect_result(&raw.next().await, 0)["protocolVersion"], version);
    raw.send(Notification::new("notifications/initialized", None)).await;
    raw
}

/// What the server writes after `tools/call name` (id 1): the call's answer, or the
/// server's request to the client.
async fn call_tool(raw: &mut RawPeer, name: &str) -> Message {
    raw.request(1, "tools/call", json!({ "name": name })).await;
    tokio::time::timeout(Duration::from_secs(5), raw.next()).await.expect("the server wrote nothing")
}

const ALL_ELICITATION: fn() -> Value = || json!({ "elicitation": { "form": {}, "url": {} } });

#[tokio::test]
async fn no_elicitation_request_reaches_a_client_of_a_revision_without_it() {
    // `elicitation/create` is not a request of 2024-11-05 or 2025-03-26 (their
    // `ServerRequest` is ping | sampling/createMessage | roots/list), even if the client
    // declared the capability: the handler gets -32601 and the client gets no request.
    for version in ["2024-11-05", "2025-03-26"] {
        for name in ["ask_form", "ask_url"] {
            let mut raw = session(server(), version, ALL_ELICITATION()).await;
            let answer = call_tool(&mut raw, name).await;
            let e = expect_error(&answer, 1);
            assert_eq!(e.code, codes::METHOD_NOT_FOUND, "{version} {name}: {e:?}");
        }
    }
}

#[tokio::test]
async fn url_elicitation_needs_2025_11_25() {
    // 2025-06-18 has form elicitation only: its `ElicitRequest` requires `requestedSchema`
    // and has no `mode`/`url`.
    let mut raw = session(server(), "2025-06-18", ALL_ELICITATION()).await;
    let e = expect_error(&call_tool(&mut raw, "ask_url").await, 1);
    assert_eq!(e.code, codes::METHOD_NOT_FOUND, "{e:?}");

    // Form mode is asked there, and URL mode at 2025-11-25.
    for (version, name) in [("2025-06-18", "ask_form"), ("2025-11-25", "ask_url")] {
        let mut raw = session(server(), version, ALL_ELICITATION()).await;
        match call_tool(&mut raw, name).await {
            Message::Request(r) => assert_eq!(r.method, "elicitation/create", "{version} {name}"),
            other => panic!("{version} {name}: expected elicitation/create, got {other:?}"),
        }
    }
}

/// The content blocks of a tool result (`tools/call media`) and of a prompt
/// (`prompts/get media`) at `version`: their `type`s, and the first two blocks.
async fn media_at(version: &str) -> Vec<Value> {
    let mut raw = session(server(), version, json!({})).await;
    let tool = expect_result(&call_tool(&mut raw, "media").await, 1);
    raw.request(2, "prompts/get", json!({ "name": "media" })).await;
    let prompt = expect_result(&raw.next().await, 2);
    let from_prompt: Vec<Value> =
        prompt["messages"].as_array().unwrap().iter().map(|m| m["content"].clone()).collect();
    assert_eq!(tool["content"].as_array().unwrap(), &from_prompt, "{version}");
    from_prompt
}

fn types(blocks: &[Value]) -> Vec<&str> {
    blocks.iter().map(|b| b["type"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn content_blocks_are_those_of_the_negotiated_revision() {
    // 2024-11-05: CallToolResult.content and PromptMessage.content are
    // TextContent | ImageContent | EmbeddedResource: no audio, no resource link.
    let blocks = media_at("2024-11-05").await;
    assert_eq!(types(&blocks), ["text", "text", "text"]);
    assert!(blocks[0]["text"].as_str().unwrap().contains("audio/wav"), "{blocks:?}");
    assert_eq!(blocks[1]["text"], "Resource link: a.txt <file:///a.txt>: A file");
    // 2025-03-26 added AudioContent; resource_link came in 2025-06-18.
    let blocks = media_at("2025-03-26").await;
    assert_eq!(types(&blocks), ["audio", "text", "text"]);
    assert_eq!(blocks[0], json!({ "type": "audio", "data": "AAAA", "mimeType": "audio/wav" }));
    for version in ["2025-06-18", "2025-11-25"] {
        assert_eq!(types(&media_at(version).await), ["audio", "resource_link", "text"], "{version}");
    }
}

#[tokio::test]
async fn multi_select_fields_need_2025_11_25() {
    // 2025-06-18's PrimitiveSchemaDefinition is StringSchema | NumberSchema | BooleanSchema
    // | EnumSchema: an array field makes the request invalid there. The handler gets the
    // error and nothing reaches the client.
    let mut raw = session(server(), "2025-06-18", ALL_ELICITATION()).await;
    let e = expect_error(&call_tool(&mut raw, "ask_multi").await, 1);
    assert_eq!(e.code, codes::INTERNAL_ERROR, "{e:?}");
    assert!(e.message.contains("colors"), "{e:?}");
    let mut raw = session(server(), "2025-11-25", ALL_ELICITATION()).await;
    match call_tool(&mut raw, "ask_multi").await {
        Message::Request(r) => assert_eq!(r.method, "elicitation/create"),
        other => panic!("expected elicitation/create, got {other:?}"),
    }
}

/// What the server writes for `tools/call sample` with `shape` at `version` (a client
/// declaring sampling with tools).
async fn sample_at(version: &str, shape: &str) -> Message {
    let mut raw = session(server(), version, json!({ "sampling": { "tools": {} } })).await;
    raw.request(1, "tools/call", json!({ "name": "sample", "arguments": { "shape": shape } })).await;
    tokio::time::timeout(Duration::from_secs(5), raw.next()).await.expect("the server wrote nothing")
}

#[tokio::test]
async fn sampling_stays_within_the_negotiated_revision() {
    // Before 2025-11-25, CreateMessageRequest has no `tools`/`toolChoice` and a
    // SamplingMessage's `content` is one block (text or image, and audio from
    // 2025-03-26): the handler gets the error and nothing reaches the client.
    let e = expect_error(&sample_at("2025-06-18", "tools").await, 1);
    assert_eq!(e.code, codes::METHOD_NOT_FOUND, "{e:?}");
    assert_eq!(e.data.unwrap()["requiredCapabilities"], json!({ "sampling": { "tools": {} } }));
    let e = expect_error(&sample_at("2025-06-18", "two_blocks").await, 1);
    assert_eq!(e.code, codes::INTERNAL_ERROR, "{e:?}");
    let e = expect_error(&sample_at("2024-11-05", "audio").await, 1);
    assert_eq!(e.code, codes::INTERNAL_ERROR, "{e:?}");
    // An array of one block is sent as that block; audio is asked at 2025-03-26; all of
    // them as they are at 2025-11-25.
    let asked = |message: Message| match message {
        Message::Request(r) if r.method == "sampling/createMessage" => {
            serde_json::from_str::<Value>(r.params.unwrap().get()).unwrap()
        }
        other => panic!("expected sampling/createMessage, got {other:?}"),
    };
    let params = asked(sample_at("2025-06-18", "one_in_array").await);
    assert_eq!(params["messages"][0]["content"], json!({ "type": "text", "text": "Hi" }));
    let params = asked(sample_at("2025-03-26", "audio").await);
    assert_eq!(params["messages"][0]["content"]["type"], "audio");
    for shape in ["tools", "two_blocks", "one_in_array"] {
        let params = asked(sample_at("2025-11-25", shape).await);
        assert_eq!(params["messages"][0]["content"].is_array(), shape != "tools", "{shape}");
    }
}
