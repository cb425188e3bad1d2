//! A hand-driven server end for a real client, over an in-memory pair: reads exactly
//! what the client writes and answers by hand. A module directory, not a test target; the
//! including crate declares `mod common;` and `mod raw_server;` at its root.
#![allow(dead_code)]

use std::time::Duration;

use mcpwire::client::{Client, ClientBuilder};
use mcpwire::protocol::{Message, ProtocolVersion, Request, RequestId, Response};
use mcpwire::transport::{memory, Connection, Outgoing, TransportEvent};
use serde_json::{json, Value};

use crate::common::json_of;

/// How long "nothing else arrives" is watched for.
pub const QUIET: Duration = Duration::from_millis(200);

/// The server's end of an in-memory pair: reads exactly what the client writes and
/// answers by hand.
pub struct RawServer {
    pub conn: Connection,
}

impl RawServer {
    /// The next message the client wrote, failing the test after 5 s.
    pub async fn next(&mut self) -> Message {
        self.next_within(Duration::from_secs(5)).await.expect("timed out waiting for the client")
    }

    /// The next message the client wrote within `wait`, if any.
    pub async fn next_within(&mut self, wait: Duration) -> Option<Message> {
        match tokio::time::timeout(wait, self.conn.incoming.recv()).await {
            Err(_) => None,
            Ok(Some(TransportEvent::Message(inbound))) => Some(inbound.message),
            Ok(other) => panic!("expected a message from the client, got {other:?}"),
        }
    }

    /// The next message, which must be a request for `method`.
    pub async fn next_request(&mut self, method: &str) -> Request {
        match self.next().await {
            Message::Request(r) if r.method == method => r,
            other => panic!("expected a {method} request, got {}", json_of(&other)),
        }
    }

    /// Takes the next request, a `subscriptions/listen`, and acknowledges it as a stream
    /// of tool list changes; its id.
    pub async fn acknowledge_tools_listen(&mut self) -> RequestId {
        let listen = self.next_request("subscriptions/listen").await;
        let meta = json!({ "io.modelcontextprotocol/subscriptionId": listen.id.clone() });
        let ack = json!({ "notifications": { "toolsListChanged": true }, "_meta": meta });
        let ack = serde_json::value::to_raw_value(&ack).unwrap();
        self.send(mcpwire::protocol::Notification::new(
            "notifications/subscriptions/acknowledged",
            Some(ack),
        ))
        .await;
        listen.id
    }

    pub async fn send(&self, message: impl Into<Message>) {
        self.conn.outgoing.send(Outgoing::unrelated(message)).await.unwrap();
    }

    pub async fn answer(&self, id: RequestId, result: Value) {
        self.send(Response::new(id, serde_json::value::to_raw_value(&result).unwrap())).await;
    }
}

/// A request's params as JSON (`null` when absent).
pub fn params_of(request: &Request) -> Value {
    request.params.as_deref().map_or(Value::Null, |p| serde_json::from_str(p.get()).unwrap())
}

pub fn initialize_result() -> Value {
    json!({
        "protocolVersion": "2025-11-25",
        "capabilities": { "tools": {} },
        "serverInfo": { "name": "raw-server", "version": "1" },
    })
}

/// Answers the client's `initialize` and reads its `notifications/initialized`; returns
/// the `initialize` params.
pub async fn serve_handshake(raw: &mut RawServer) -> Value {
    let init = raw.next_request("initialize").await;
    raw.answer(init.id.clone(), initialize_result()).await;
    let initialized = raw.next().await;
    assert_eq!(initialized.method(), Some("notifications/initialized"), "{}", json_of(&initialized));
    params_of(&init)
}

/// A client pinned to 2025-11-25, connected to a hand-driven server; also the client's
/// `initialize` params.
pub async fn connect_2025(builder: ClientBuilder) -> (Client, RawServer, Value) {
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let (client, init) = tokio::join!(
        builder.protocol_version(ProtocolVersion::V2025_11_25).connect(ours),
        serve_handshake(&mut raw)
    );
    (client.unwrap(), raw, init)
}
