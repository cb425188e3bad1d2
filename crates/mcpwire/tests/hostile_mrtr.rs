//! A hostile 2026 client against the server's multi round-trip requests: a `requestState`
//! is bound to the arguments it was issued for, whatever their shape, and answers the
//! server did not ask for are never carried from round to round.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod mrtr_support;

use common::*;
use mcpwire::protocol::codes;
use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams};
use mcpwire::server::request_state::MAX_TOKEN_LEN;
use mcpwire::server::{tool, Args, Ctx, Server};
use mrtr_support::keys_server;
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
    let first = expect_result(&raw.call_tool_2026("pay", 1, json!({ "arguments": arguments })).await, 1);
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
        let e = expect_error(&raw.call_tool_2026("pay", id, retry).await, id);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{other}: {e:?}");
        assert!(e.message.contains("requestState"), "{e:?}");
    }
    let retry = json!({ "arguments": arguments, "requestState": state, "inputResponses": yes() });
    let done = expect_result(&raw.call_tool_2026("pay", 9, retry).await, 9);
    assert_eq!(done["content"][0]["text"], "paid 5", "{done}");
}

/// Answers a client sends without a `requestState` (which this server puts on every
/// `input_required` result, so the client dropped it) are answers to nothing the server
/// can show it asked: the handler may take them in that round, but they are not sealed
/// into the next round's state, so a client cannot grow that state with them (nor make
/// the server fail the call as if the state were its own to blame).
#[tokio::test]
async fn answers_sent_without_a_state_are_not_carried_into_the_next() {
    let (conn, mut raw) = raw_connection();
    let server = keys_server();
    tokio::spawn(async move { server.serve(conn).await });
    let text = |t: &str| json!({ "action": "accept", "content": { "text": t } });
    let stray = "x".repeat(MAX_TOKEN_LEN);
    let answers = json!({ "a": text("short"), "stray": text(&stray) });
    let first = expect_result(&raw.call_tool_2026("keys", 1, json!({ "inputResponses": answers })).await, 1);
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert!(first["inputRequests"]["b"].is_object(), "{first}");
    let state = first["requestState"].as_str().unwrap();
    assert!(state.len() < 1024, "answers sent without a state were carried: {} bytes", state.len());
    // The retry that keeps the state: every answer the handler asks for comes through it.
    let mut id = 2;
    let mut state = json!(state);
    let done = loop {
        let round = expect_result(
            &raw.call_tool_2026(
                "keys",
                id,
                json!({ "requestState": state, "inputResponses": {
            "a": text("short"), "b": text("short"), "stray": text("again") } }),
            )
            .await,
            id,
        );
        if round["resultType"] != "input_required" {
            break round;
        }
        assert!(id < 5, "the exchange does not end: {round}");
        state = round["requestState"].clone();
        id += 1;
    };
    assert_eq!(done["content"][0]["text"], "a,b", "{done}");
}

/// Retry fields of the wrong type are invalid params; an answer of the wrong kind (a
/// sampling result where a form was asked), or `null` answers, leave the question asked
/// again; a state of the wrong type, or one this server never sealed, is refused.
#[tokio::test]
async fn retry_fields_of_the_wrong_type_or_kind() {
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server().serve(conn).await });
    let arguments = json!({ "amount": 1 });
    let first = expect_result(&raw.call_tool_2026("pay", 1, json!({ "arguments": arguments })).await, 1);
    let state = first["requestState"].clone();
    let refused = [
        json!({ "inputResponses": [yes()] }),
        json!({ "inputResponses": "yes" }),
        json!({ "inputResponses": { "confirm": null } }),
        json!({ "inputResponses": { "confirm": { "action": "maybe" } } }),
        json!({ "requestState": 5 }),
        json!({ "requestState": "not.sealed" }),
        json!({ "requestState": "x".repeat(MAX_TOKEN_LEN + 1) }),
    ];
    for (i, fields) in refused.into_iter().enumerate() {
        let id = 10 + i as i64;
        let mut params = json!({ "arguments": arguments, "requestState": state });
        params.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        let e = expect_error(&raw.call_tool_2026("pay", id, params).await, id);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{fields}: {e:?}");
    }
    let sampled = json!({ "confirm": { "role": "assistant", "model": "m", "content": { "type": "text", "text": "yes" } } });
    for (i, answers) in [sampled, Value::Null].into_iter().enumerate() {
        let id = 20 + i as i64;
        let params = json!({ "arguments": arguments, "requestState": state, "inputResponses": answers });
        let again = expect_result(&raw.call_tool_2026("pay", id, params).await, id);
        assert_eq!(again["resultType"], "input_required", "{again}");
        assert!(again["inputRequests"]["confirm"].is_object(), "{again}");
    }
}

/// `count` answers under keys nobody asked, and the one `pay` asks for.
fn many_answers(count: usize) -> Value {
    let mut answers = yes();
    let map = answers.as_object_mut().unwrap();
    for i in 0..count {
        map.insert(format!("k{i}"), json!({ "action": "decline" }));
    }
    answers
}

/// A retry carries at most 100 answers (a server asks a handful of questions a round, and
/// no client of this SDK answers more than 100 at once): past that the request is invalid
/// params, said at once, whether or not it has a state, and before the answers are held;
/// up to it, answers nobody asked are ignored as the spec says.
#[tokio::test]
async fn more_answers_than_a_round_can_ask_are_invalid_params() {
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server().serve(conn).await });
    let first =
        expect_result(&raw.call_tool_2026("pay", 1, json!({ "arguments": { "amount": 3 } })).await, 1);
    let state = first["requestState"].clone();
    let too_many = [
        json!({ "arguments": { "amount": 3 }, "inputResponses": many_answers(10_000) }),
        json!({ "arguments": { "amount": 3 }, "requestState": state, "inputResponses": many_answers(100) }),
    ];
    for (id, params) in (2..).zip(too_many) {
        let e = expect_error(&raw.call_tool_2026("pay", id, params).await, id);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{e:?}");
        assert!(e.message.contains("inputResponses") && e.message.contains("at most 100"), "{e:?}");
    }
    let retry =
        json!({ "arguments": { "amount": 3 }, "requestState": state, "inputResponses": many_answers(99) });
    let done = expect_result(&raw.call_tool_2026("pay", 9, retry).await, 9);
    assert_eq!(done["content"][0]["text"], "paid 3", "{done}");
}
