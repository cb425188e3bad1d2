//! Shared test helpers: a raw connection that shows exactly which frames a dispatcher
//! writes, and the path of the test peer example binary.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use mcpwire::protocol::{ErrorObject, Message, Notification, RawJson, Request, RequestId};
use mcpwire::transport::{Connection, InboundMeta, Outgoing, TransportEvent};
use serde_json::Value;
use tokio::sync::mpsc;

/// The far end of a [`Connection`] handed to a dispatcher: we inject events and read the
/// exact messages it writes.
pub struct RawPeer {
    pub events: mpsc::Sender<TransportEvent>,
    pub written: mpsc::Receiver<Outgoing>,
}

/// A connection for a dispatcher, and the raw end to drive it with.
pub fn raw_connection() -> (Connection, RawPeer) {
    let (ev_tx, ev_rx) = mpsc::channel(4096);
    let (out_tx, out_rx) = mpsc::channel(4096);
    (Connection { incoming: ev_rx, outgoing: out_tx }, RawPeer { events: ev_tx, written: out_rx })
}

/// A server serving one connection whose 2025-11-25 `initialize` (id 0) is done and
/// `notifications/initialized` sent.
pub async fn initialized(server: mcpwire::server::Server) -> RawPeer {
    let raw = initialize_only(server).await;
    raw.send(Notification::new("notifications/initialized", None)).await;
    raw
}

/// A server serving one connection whose 2025-11-25 `initialize` (id 0) is answered; the
/// client has not sent `notifications/initialized`.
pub async fn initialize_only(server: mcpwire::server::Server) -> RawPeer {
    initialize_with(server, serde_json::json!({})).await
}

/// [`initialize_only`], the client declaring `capabilities`.
pub async fn initialize_with(server: mcpwire::server::Server, capabilities: Value) -> RawPeer {
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });
    let params = serde_json::json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": { "name": "c", "version": "1" } });
    raw.request(0, "initialize", params).await;
    expect_result(&raw.next().await, 0);
    raw
}

pub fn to_raw(value: Value) -> Option<RawJson> {
    Some(serde_json::value::to_raw_value(&value).unwrap())
}

impl RawPeer {
    pub async fn send(&self, message: impl Into<Message>) {
        self.send_with(message, InboundMeta::default()).await;
    }

    pub async fn send_with(&self, message: impl Into<Message>, meta: InboundMeta) {
        self.events.send(TransportEvent::message(message, meta)).await.unwrap();
    }

    pub async fn request(&self, id: impl Into<RequestId>, method: &str, params: Value) {
        self.send(Request::new(id, method, to_raw(params))).await;
    }

    pub async fn cancel(&self, id: impl Into<RequestId>) {
        let id: RequestId = id.into();
        self.send(Notification::new(
            "notifications/cancelled",
            to_raw(serde_json::json!({ "requestId": id })),
        ))
        .await;
    }

    /// Sends a 2026 `tools/call` of the tool `name` (its envelope declaring elicitation,
    /// so the server may ask questions) with the members of `extra` added or replaced, and
    /// returns the next written message: one round of a multi round-trip request.
    pub async fn call_tool_2026(&mut self, name: &str, id: i64, extra: Value) -> Message {
        let envelope = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} }
        });
        let mut params = serde_json::json!({ "_meta": envelope, "name": name });
        params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        self.request(id, "tools/call", params).await;
        self.next().await
    }

    /// Ends the input, as a peer that hangs up does.
    pub fn hang_up(&mut self) {
        let (closed, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.events, closed));
    }

    /// The next written message, failing the test after 5 s.
    pub async fn next(&mut self) -> Message {
        tokio::time::timeout(Duration::from_secs(5), self.written.recv())
            .await
            .expect("timed out waiting for a frame")
            .expect("the dispatcher closed its writer")
            .into_parts()
            .0
    }

    /// Asserts nothing is written for `wait`.
    pub async fn expect_silence(&mut self, wait: Duration) {
        if let Ok(Some(out)) = tokio::time::timeout(wait, self.written.recv()).await {
            panic!("expected no frame, got {}", String::from_utf8_lossy(&out.message().to_vec()));
        }
    }
}

/// The next frame that is not a `notifications/tasks/status` (a 2025 task sends one at
/// each change of its status, between the frames a test waits for).
pub async fn next_past_task_status(raw: &mut RawPeer) -> Message {
    loop {
        match raw.next().await {
            Message::Notification(n) if n.method == "notifications/tasks/status" => continue,
            other => return other,
        }
    }
}

/// Sends request `id` and returns the next frame that is not a task's status.
pub async fn call_past_task_status(raw: &mut RawPeer, id: i64, method: &str, params: Value) -> Message {
    raw.request(id, method, params).await;
    next_past_task_status(raw).await
}

/// Calls tool `tool` as a 2025 task (request 1) and asks for its result (request 2, left
/// waiting): the task's id and the first question the task asks the client meanwhile.
pub async fn task_asking(raw: &mut RawPeer, tool: &str) -> (String, Request) {
    let call = call_past_task_status(raw, 1, "tools/call", serde_json::json!({ "name": tool, "task": {} }));
    let created = expect_result(&call.await, 1);
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    raw.request(2, "tasks/result", serde_json::json!({ "taskId": id })).await;
    let Message::Request(question) = next_past_task_status(raw).await else {
        panic!("expected a question to the client")
    };
    (id, question)
}

/// A message as JSON, for assertions.
pub fn json_of(message: &Message) -> Value {
    serde_json::from_slice(&message.to_vec()).unwrap()
}

pub fn expect_result(message: &Message, id: impl Into<RequestId>) -> Value {
    match message {
        Message::Response(r) if r.id == id.into() => serde_json::from_str(r.result.get()).unwrap(),
        other => panic!("expected a result, got {}", json_of(other)),
    }
}

pub fn expect_error(message: &Message, id: impl Into<RequestId>) -> ErrorObject {
    match message {
        Message::Error(e) if e.id == Some(id.into()) => e.error.clone(),
        other => panic!("expected an error, got {}", json_of(other)),
    }
}

/// The example binary `jsonrpc_test_peer`, built by `cargo test` next to the test binaries.
pub fn test_peer_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let path = dir.join("examples").join(format!("jsonrpc_test_peer{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is missing: build the examples (cargo test builds them)", path.display());
    path
}
