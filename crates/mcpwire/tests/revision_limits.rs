//! What a 2025 session sends stays within its negotiated revision: no request, content
//! block or message kind that revision does not have, whatever the client declared.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams, ElicitRequestURLParams};
use mcpwire::protocol::{codes, Message, Notification};
use mcpwire::server::{tool, Ctx, Server};
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
        .build()
        .unwrap()
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
