//! A 2026 client takes the core result types and those of the extensions it declared:
//! an unknown `resultType`, or a task the client did not ask for, is a protocol error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcpwire::client::{Client, ClientBuilder};
use mcpwire::protocol::{Message, ProtocolVersion, Response};
use mcpwire::transport::{memory, Outgoing, TransportEvent};
use mcpwire::RequestError;
use serde_json::{json, Value};

/// Connects `builder` (pinned to 2026: no probe) to a peer that answers every request
/// with `result`, and returns what `tools/call` gave back.
async fn call_answered_with(builder: ClientBuilder, result: Value) -> Result<Value, RequestError> {
    let (ours, mut theirs) = memory::pair();
    tokio::spawn(async move {
        while let Some(event) = theirs.incoming.recv().await {
            if let TransportEvent::Message(inbound) = event {
                if let Message::Request(request) = inbound.message {
                    let raw = serde_json::value::to_raw_value(&result).unwrap();
                    let answer = Outgoing::unrelated(Response::new(request.id, raw));
                    if theirs.outgoing.send(answer).await.is_err() {
                        return;
                    }
                }
            }
        }
    });
    let client = builder.protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();
    let called = client.call_tool("t", json!({})).await.map(|r| serde_json::to_value(r).unwrap());
    client.close().await;
    called
}

#[tokio::test]
async fn unknown_result_types_and_undeclared_tasks_are_refused() {
    let task = json!({ "resultType": "task", "taskId": "t1", "status": "working",
        "createdAt": "2026-12-04T00:00:00Z", "lastUpdatedAt": "2026-12-04T00:00:00Z", "ttlMs": 60000 });
    let refused = call_answered_with(Client::builder("c", "1").without_tasks(), task).await;
    match refused {
        Err(RequestError::Protocol(message)) => assert!(message.contains("tasks extension"), "{message}"),
        other => panic!("a task the client did not ask for: {other:?}"),
    }
    let unknown = json!({ "resultType": "later", "content": [] });
    match call_answered_with(Client::builder("c", "1"), unknown).await {
        Err(RequestError::Protocol(message)) => assert!(message.contains("later"), "{message}"),
        other => panic!("an unknown resultType: {other:?}"),
    }
    let complete = json!({ "resultType": "complete", "content": [{ "type": "text", "text": "ok" }] });
    let done = call_answered_with(Client::builder("c", "1").without_tasks(), complete).await.unwrap();
    assert_eq!(done["content"][0]["text"], "ok");
}
