//! The sealed `requestState` of a 2026 multi round-trip exchange carries the answers of
//! the rounds so far (a handler runs again from the start on each retry): large answers
//! (a long form field, a sampled text) still reach the last round, and the server never
//! hands out a state it would refuse when it comes back, nor carries answers to questions
//! it did not ask.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod mrtr_support;

use common::*;
use mcpwire::protocol::codes;
use mcpwire::server::request_state::MAX_TOKEN_LEN;
use mcpwire::server::{tool, Ctx, Server};
use mrtr_support::{keys_server, text_form};
use serde_json::{json, Value};

/// A server whose `two` tool asks for `a`, then (a second round) for `b`, and answers
/// with the length of each.
fn server() -> Server {
    Server::builder("s", "1")
        .tool(tool("two").handler(|ctx: Ctx| async move {
            let text = |r: mcpwire::protocol::elicitation::ElicitResult| {
                let content = serde_json::to_value(r.content.unwrap_or_default()).unwrap();
                content["text"].as_str().unwrap_or_default().len()
            };
            let a = text(ctx.elicit_as("a", text_form("A?")).await?);
            let b = text(ctx.elicit_as("b", text_form("B?")).await?);
            Ok::<_, mcpwire::McpError>(format!("{a} {b}"))
        }))
        .build()
        .unwrap()
}

fn answer(text: &str) -> Value {
    json!({ "action": "accept", "content": { "text": text } })
}

/// An answer of 100 KiB in the first round (the token that carries it is larger than
/// 64 KiB) is carried to the last round.
#[tokio::test]
async fn a_large_answer_is_carried_to_the_last_round() {
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server().serve(conn).await });
    let first = expect_result(&raw.call_tool_2026("two", 1, json!({})).await, 1);
    let big = "x".repeat(100 * 1024);
    let retry = json!({ "requestState": first["requestState"], "inputResponses": { "a": answer(&big) } });
    let second = expect_result(&raw.call_tool_2026("two", 2, retry).await, 2);
    assert_eq!(second["resultType"], "input_required");
    assert!(second["inputRequests"]["b"].is_object(), "{second}");
    let last = json!({ "requestState": second["requestState"], "inputResponses": { "b": answer("short") } });
    let done = expect_result(&raw.call_tool_2026("two", 3, last).await, 3);
    assert_eq!(done["content"][0]["text"], format!("{} 5", 100 * 1024), "{done}");
}

/// Answers too large for any token the server opens are refused when they arrive
/// (`-32603`, saying so), rather than sealed into a state the retry then finds "invalid
/// or expired".
#[tokio::test]
async fn answers_too_large_to_carry_are_refused_at_once() {
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server().serve(conn).await });
    let first = expect_result(&raw.call_tool_2026("two", 1, json!({})).await, 1);
    let huge = "x".repeat(MAX_TOKEN_LEN);
    let retry = json!({ "requestState": first["requestState"], "inputResponses": { "a": answer(&huge) } });
    let e = expect_error(&raw.call_tool_2026("two", 2, retry).await, 2);
    assert_eq!(e.code, codes::INTERNAL_ERROR, "{e:?}");
    assert!(e.message.contains("requestState"), "{e:?}");
}

/// An answer to nothing the server asked is ignored (MRTR: a server SHOULD ignore
/// responses it did not ask for): the handler does not see it, and the state does not
/// carry it to later rounds, where a client could grow it without bound.
#[tokio::test]
async fn an_answer_to_nothing_asked_is_neither_seen_nor_carried() {
    let (conn, mut raw) = raw_connection();
    let server = keys_server();
    tokio::spawn(async move { server.serve(conn).await });
    let first = expect_result(&raw.call_tool_2026("keys", 1, json!({})).await, 1);
    let stray = "x".repeat(10_000);
    let answers = json!({ "a": answer("short"), "stray": answer(&stray) });
    let retry = json!({ "requestState": first["requestState"], "inputResponses": answers });
    let second = expect_result(&raw.call_tool_2026("keys", 2, retry).await, 2);
    assert!(second["inputRequests"]["b"].is_object(), "{second}");
    let state = second["requestState"].as_str().unwrap();
    assert!(state.len() < stray.len(), "the stray answer was carried: {} bytes", state.len());
    let answers = json!({ "b": answer("short"), "stray": answer("again") });
    let last = json!({ "requestState": second["requestState"], "inputResponses": answers });
    let done = expect_result(&raw.call_tool_2026("keys", 3, last).await, 3);
    assert_eq!(done["content"][0]["text"], "a,b", "{done}");
}
