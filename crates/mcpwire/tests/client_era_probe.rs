//! The client's era probe against a hand-driven server: what it does with the server's
//! requests that arrive before the era is known, and how a saved discover result that no
//! longer fits the server is dropped for a new probe.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod raw_server;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::json_of;
use mcpwire::client::{Client, ClientBuilder};
use mcpwire::protocol::{codes, ErrorObject, ErrorResponse, Message, ProtocolVersion, Request, RequestId};
use mcpwire::transport::memory;
use raw_server::*;
use serde_json::{json, Value};

/// A client with sampling and roots callbacks that count their calls.
fn counting(calls: &Arc<AtomicUsize>) -> ClientBuilder {
    let (roots, sampling) = (calls.clone(), calls.clone());
    Client::builder("c", "1")
        .on_roots(move || {
            roots.fetch_add(1, Ordering::SeqCst);
            async { Ok(mcpwire::protocol::roots::ListRootsResult { roots: vec![], ..Default::default() }) }
        })
        .on_sampling(move |_| {
            sampling.fetch_add(1, Ordering::SeqCst);
            async { Err(mcpwire::McpError::internal("not here")) }
        })
}

fn server_request(id: &str, method: &str, params: Value) -> Request {
    Request::new(
        RequestId::String(id.into()),
        method,
        Some(serde_json::value::to_raw_value(&params).unwrap()),
    )
}

/// The client's answers to the server's requests, by id, until there are `n`.
async fn answers(raw: &mut RawServer, n: usize) -> Vec<(String, Value)> {
    let mut seen = Vec::new();
    while seen.len() < n {
        let (id, answer) = match raw.next().await {
            Message::Response(r) => (r.id, serde_json::from_str::<Value>(r.result.get()).unwrap()),
            Message::Error(e) => (e.id.unwrap(), json!({ "error": e.error.code })),
            other => panic!("expected an answer, got {}", json_of(&other)),
        };
        let id = match id {
            RequestId::String(s) => s,
            RequestId::Number(n) => n.to_string(),
        };
        seen.push((id, answer));
    }
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    seen
}

fn refused(id: RequestId, code: i64) -> ErrorResponse {
    ErrorResponse::new(Some(id), ErrorObject::new(code, "scripted error"))
}

/// The server's requests that arrive while the probe is out (no era, no capabilities
/// declared to anyone yet): `ping` is answered, as in both eras' handshakes; the others
/// are refused with `-32600`, without calling the callbacks. Once the 2025 handshake is
/// done the same request reaches its callback.
#[tokio::test]
async fn requests_before_the_era_is_known_get_ping_answered_and_the_rest_refused() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let connecting = tokio::spawn(counting(&calls).connect(ours));
    let probe = raw.next_request("server/discover").await;
    raw.send(server_request("a-ping", "ping", json!({}))).await;
    raw.send(server_request("b-roots", "roots/list", json!({}))).await;
    let sample = json!({ "messages": [], "maxTokens": 1 });
    raw.send(server_request("c-sampling", "sampling/createMessage", sample)).await;
    let seen = answers(&mut raw, 3).await;
    assert_eq!(
        seen,
        [
            ("a-ping".to_owned(), json!({})),
            ("b-roots".to_owned(), json!({ "error": codes::INVALID_REQUEST })),
            ("c-sampling".to_owned(), json!({ "error": codes::INVALID_REQUEST })),
        ]
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0, "a callback ran before the era was known");
    // A 2025-era server: the handshake, then the same question is answered.
    raw.send(refused(probe.id, codes::METHOD_NOT_FOUND)).await;
    serve_handshake(&mut raw).await;
    let client = connecting.await.unwrap().unwrap();
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25);
    raw.send(server_request("d-roots", "roots/list", json!({}))).await;
    let seen = answers(&mut raw, 1).await;
    assert_eq!(seen, [("d-roots".to_owned(), json!({ "roots": [] }))]);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    client.close().await;
}
