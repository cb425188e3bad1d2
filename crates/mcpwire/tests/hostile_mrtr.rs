//! A hostile 2026 client against the server's multi round-trip requests: a `requestState`
//! is bound to the arguments it was issued for, whatever their shape, and answers the
//! server did not ask for are never carried from round to round.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use mcpwire::protocol::codes;
use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams};
use mcpwire::server::{tool, Args, Ctx, Server};
use serde::Deserialize;
use serde_json::{json, Value};

/// A form asking for one boolean, `ok`.
fn confirm_form() -> ElicitRequestParams {
    let form = json!({ "message": "Sure?", "requestedSchema": {
        "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] } });
    ElicitRequestParams::Form(serde_json::from_value::<ElicitRequestFormParams>(form).unwrap())
}

/// The arguments of `pay`: members it does not know are ignored, as serde does by default.
#[derive(Deserialize, schemars::JsonSchema)]
struct Pay {
    amount: u64,
}

/// A server whose `pay` tool asks the user to confirm before it pays `amount`.
fn server() -> Server {
    Server::builder("s", "1")
        .tool(tool("pay").handler(|ctx: Ctx, Args(Pay { amount }): Args<Pay>| async move {
            ctx.elicit_as("confirm", confirm_form()).await?;
            Ok::<_, mcpwire::McpError>(format!("paid {amount}"))
        }))
        .build()
        .unwrap()
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} }
    })
}

async fn call(raw: &mut RawPeer, id: i64, params: Value) -> mcpwire::protocol::Message {
    let mut all = json!({ "_meta": envelope(), "name": "pay" });
    all.as_object_mut().unwrap().extend(params.as_object().unwrap().clone());
    raw.request(id, "tools/call", all).await;
    raw.next().await
}

/// `depth` arrays, one inside the other: deeper than serde_json reads into a tree.
fn nested(depth: usize) -> Value {
    let mut v = json!(0);
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

fn yes() -> Value {
    json!({ "confirm": { "action": "accept", "content": { "ok": true } } })
}

/// Arguments holding a member nested too deep to read as a tree (which the tool ignores)
/// bind the state as much as any others: the state the server sealed for one amount
/// does not open for another, nor for arguments it was not issued for at all.
#[tokio::test]
async fn a_state_for_arguments_too_deep_to_read_opens_for_those_arguments_alone() {
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server().serve(conn).await });
    let arguments = json!({ "amount": 5, "padding": nested(200) });
    let first = expect_result(&call(&mut raw, 1, json!({ "arguments": arguments })).await, 1);
    assert_eq!(first["resultType"], "input_required", "{first}");
    let state = first["requestState"].clone();
    let others = [
        json!({ "amount": 5000, "padding": nested(200) }),
        json!({ "amount": 5000, "padding": nested(300) }),
        json!({}),
    ];
    for (i, other) in others.into_iter().enumerate() {
        let id = 2 + i as i64;
        let retry = json!({ "arguments": other, "requestState": state, "inputResponses": yes() });
        let e = expect_error(&call(&mut raw, id, retry).await, id);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{other}: {e:?}");
        assert!(e.message.contains("requestState"), "{e:?}");
    }
    let retry = json!({ "arguments": arguments, "requestState": state, "inputResponses": yes() });
    let done = expect_result(&call(&mut raw, 9, retry).await, 9);
    assert_eq!(done["content"][0]["text"], "paid 5", "{done}");
}
