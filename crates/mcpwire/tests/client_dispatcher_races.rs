//! The client's seat of the dispatcher under hostile orderings from a hand-driven server:
//! its callbacks cancelled, answers that are not answers, ids of every shape.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod raw_server;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcpwire::client::Client;
use mcpwire::protocol::sampling::CreateMessageResult;
use mcpwire::protocol::{codes, Message, Notification, Request, RequestId};
use mcpwire::McpError;
use raw_server::*;
use serde_json::json;

fn sampling_params() -> Option<mcpwire::protocol::RawJson> {
    to_raw(
        json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "x" } }], "maxTokens": 5 }),
    )
}

#[tokio::test]
async fn a_callback_the_server_cancelled_is_interrupted_and_not_answered() {
    let finished = Arc::new(AtomicUsize::new(0));
    let f = finished.clone();
    let builder = Client::builder("c", "1").on_sampling(move |_| {
        let f = f.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            f.fetch_add(1, Ordering::SeqCst);
            Err::<CreateMessageResult, _>(McpError::internal("never"))
        }
    });
    let (client, mut raw, _) = connect_2025(builder).await;
    raw.send(Request::new(7, "sampling/createMessage", sampling_params())).await;
    tokio::time::sleep(Duration::from_millis(30)).await;
    // A cancel naming "7" (a string) is another id: it changes nothing yet.
    raw.send(Notification::new("notifications/cancelled", to_raw(json!({ "requestId": "7" })))).await;
    raw.send(Notification::new("notifications/cancelled", to_raw(json!({ "requestId": 7 })))).await;
    assert!(raw.next_within(Duration::from_millis(500)).await.is_none(), "no answer for a cancelled request");
    assert_eq!(finished.load(Ordering::SeqCst), 0, "the callback was interrupted");
    // The client goes on: a ping with the same id is answered.
    raw.send(Request::new(7, "ping", None)).await;
    match raw.next().await {
        Message::Response(r) => assert_eq!(r.id, RequestId::from(7)),
        other => panic!("{}", json_of(&other)),
    }
    client.close().await;
}

#[tokio::test]
async fn answers_that_are_not_answers_do_not_reach_the_call() {
    let (client, mut raw, _) = connect_2025(Client::builder("c", "1")).await;
    let call = tokio::spawn(async move {
        let tools = client.list_tools(None).await;
        (client, tools)
    });
    let request = raw.next_request("tools/list").await;
    // Stray answers: an unknown id, and an error with no id at all.
    raw.answer(RequestId::from(4242), json!({ "tools": [] })).await;
    raw.send(Message::Error(mcpwire::protocol::ErrorResponse::new(
        None,
        mcpwire::protocol::ErrorObject::new(codes::PARSE_ERROR, "stray"),
    )))
    .await;
    // A request the client does not serve is refused with -32601.
    raw.send(Request::new("srv-1", "nope/unknown", None)).await;
    match raw.next().await {
        Message::Error(e) => {
            assert_eq!(e.id, Some(RequestId::from("srv-1")));
            assert_eq!(e.error.code, codes::METHOD_NOT_FOUND);
        }
        other => panic!("{}", json_of(&other)),
    }
    raw.answer(
        request.id.clone(),
        json!({ "tools": [{ "name": "t", "inputSchema": { "type": "object" } }] }),
    )
    .await;
    // A duplicate answer is dropped.
    raw.answer(request.id, json!({ "tools": [] })).await;
    let (client, tools) = call.await.unwrap();
    assert_eq!(tools.unwrap().tools.len(), 1);
    assert!(raw.next_within(QUIET).await.is_none());
    client.close().await;
}
