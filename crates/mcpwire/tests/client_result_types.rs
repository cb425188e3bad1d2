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

/// A peer that answers `server/discover` with `discover` and `tools/call` with `call`.
fn discovering_peer(discover: Value, call: Value) -> mcpwire::transport::Connection {
    let (ours, mut theirs) = memory::pair();
    tokio::spawn(async move {
        while let Some(event) = theirs.incoming.recv().await {
            let TransportEvent::Message(inbound) = event else { continue };
            let Message::Request(request) = inbound.message else { continue };
            let result = if request.method == "server/discover" { &discover } else { &call };
            let answer = Outgoing::unrelated(Response::new(
                request.id,
                serde_json::value::to_raw_value(result).unwrap(),
            ));
            if theirs.outgoing.send(answer).await.is_err() {
                return;
            }
        }
    });
    ours
}

fn discover_result(result_type: &str, capabilities: Value) -> Value {
    json!({ "resultType": result_type, "supportedVersions": ["2026-07-28"], "capabilities": capabilities,
        "ttlMs": 0, "cacheScope": "private",
        "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "s", "version": "1" } } })
}

/// The valid result types are the core ones and the extensions' that both sides declared:
/// a task from a server whose discover result does not advertise the tasks extension is
/// refused; a discover result that is not `complete` fails the connection.
#[tokio::test]
async fn a_task_from_a_server_that_does_not_advertise_tasks_and_a_strange_discover_are_refused() {
    let task = json!({ "resultType": "task", "taskId": "t1", "status": "working",
        "createdAt": "2026-12-04T00:00:00Z", "lastUpdatedAt": "2026-12-04T00:00:00Z", "ttlMs": 60000 });
    let peer = discovering_peer(discover_result("complete", json!({ "tools": {} })), task);
    let client = Client::builder("c", "1").connect(peer).await.unwrap();
    match client.call_tool("t", json!({})).await {
        Err(RequestError::Protocol(message)) => assert!(message.contains("does not advertise"), "{message}"),
        other => panic!("a task the server never offered: {other:?}"),
    }
    client.close().await;

    let peer = discovering_peer(discover_result("weird", json!({})), json!({}));
    let connected = Client::builder("c", "1").connect(peer).await;
    let Err(error) = connected else { panic!("a discover result that is not complete was taken") };
    assert!(error.to_string().contains("weird"), "{error}");
}

/// Only `tools/call`, `prompts/get` and `resources/read` may answer `input_required`, and
/// only `tools/call` may become a task: the same result types on any other method are
/// protocol errors, not results read as that method's (a list whose `tools` is empty, a
/// raw result handed on as complete).
#[tokio::test]
async fn input_required_and_tasks_on_other_methods_are_refused() {
    let tasks = json!({ "tools": {}, "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let input = json!({ "resultType": "input_required", "tools": [], "completion": { "values": [] },
        "inputRequests": { "q": { "method": "roots/list" } }, "requestState": "s" });
    let task = json!({ "resultType": "task", "taskId": "t1", "status": "working", "tools": [],
        "createdAt": "2026-12-04T00:00:00Z", "lastUpdatedAt": "2026-12-04T00:00:00Z", "ttlMs": 60000 });
    for answer in [input, task] {
        let peer = discovering_peer(discover_result("complete", tasks.clone()), answer.clone());
        let client = Client::builder("c", "1").connect(peer).await.unwrap();
        match client.list_tools(None).await {
            Err(RequestError::Protocol(message)) => assert!(message.contains("tools/list"), "{message}"),
            other => panic!("tools/list answered with {answer}: {other:?}"),
        }
        let raw = client.send_request("completion/complete", json!({}), Default::default()).await;
        match raw {
            Err(RequestError::Protocol(message)) => {
                assert!(message.contains("completion/complete"), "{message}")
            }
            other => panic!("completion/complete answered with {answer}: {other:?}"),
        }
        client.close().await;
    }
}
