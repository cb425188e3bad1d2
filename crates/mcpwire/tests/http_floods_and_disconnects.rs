//! Hostile input to our HTTP server that the `hostile_http_*.rs` files do not cover: a
//! flood of notifications (memory measured in a child process), params of the wrong type in
//! both eras, a body cut short by a disconnect, and a client that disconnects mid-call,
//! with the handler's cancellation token observed in each era.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;
mod hostile_http_support;
mod mcp_http;
mod raw_http;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use fixture::ChildServer;
use hostile_http_support::{
    answer, call_body, code, in_session, local, open_session, stateless_request, wait_for, V25,
};
use mcpwire::http::HttpSettings;
use mcpwire::protocol::codes;
use raw_http::{send, send_only, Req};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

/// `n` notifications as a JSON array (a batch, accepted at 2025-03-26), half of them
/// progress for tokens nobody issued, half of a method nobody handles.
fn notification_batch(n: usize, offset: usize) -> Value {
    let notes: Vec<Value> = (offset..offset + n)
        .map(|i| {
            if i % 2 == 0 {
                json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": i, "progress": 1 } })
            } else {
                json!({ "jsonrpc": "2.0", "method": "notifications/whatever", "params": { "i": i } })
            }
        })
        .collect();
    Value::Array(notes)
}

#[tokio::test]
async fn a_flood_of_notifications_over_http_is_absorbed_with_bounded_memory() {
    let server = ChildServer::start("http", &[]).await;
    let addr: SocketAddr = server.addr.as_deref().unwrap().parse().unwrap();
    let pid = server.pid();
    let old = open_session(addr, "2025-03-26").await;
    let session = open_session(addr, V25).await;
    let (_, hwm_before) = fixture::memory_of(pid);
    // 200,000 in batches of 10,000 (the most a batch may hold; each ~0.8 MB, under the
    // 4 MiB body limit).
    for b in 0..20 {
        let batch = notification_batch(10_000, b * 10_000);
        let resp = send(addr, in_session(Req::post(&batch), &old, "2025-03-26")).await;
        assert_eq!(resp.status, 202, "batch {b}");
        assert!(resp.bytes().await.is_empty());
    }
    // 3,000 single POSTs, 50 at a time: in a 2025-11-25 session and as 2026 requests.
    let gate = Arc::new(tokio::sync::Semaphore::new(50));
    let posts: Vec<_> = (0..3_000)
        .map(|i| {
            let (gate, session) = (gate.clone(), session.clone());
            tokio::spawn(async move {
                let _permit = gate.acquire_owned().await.unwrap();
                let note = json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": i, "progress": 1 } });
                let req = if i % 2 == 0 {
                    in_session(Req::post(&note), &session, V25)
                } else {
                    Req::post(&note).header("mcp-protocol-version", hostile_http_support::V26)
                };
                let resp = send(addr, req).await;
                (resp.status, resp.bytes().await.len())
            })
        })
        .collect();
    for post in posts {
        assert_eq!(post.await.unwrap(), (202, 0));
    }
    // Nothing answered a notification; both sessions still answer.
    for (sid, version) in [(&old, "2025-03-26"), (&session, V25)] {
        let ping = json!({ "jsonrpc": "2.0", "id": "after", "method": "ping" });
        let reply = answer(send(addr, in_session(Req::post(&ping), sid, version)).await).await;
        assert_eq!(reply, json!({ "jsonrpc": "2.0", "id": "after", "result": {} }));
    }
    let (_, hwm_after) = fixture::memory_of(pid);
    let grown_mib = hwm_after.saturating_sub(hwm_before) / 1024;
    assert!(grown_mib < 64, "peak memory grew by {grown_mib} MiB for 203,000 notifications");
}

#[tokio::test]
async fn params_of_the_wrong_type_are_invalid_params_over_http() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    // (method, params, the 2026 code): at 2026 a name or URI that is not a string cannot
    // be mirrored in `Mcp-Name`, so the missing header is answered first (-32020); with a
    // header sent, the params are invalid (-32602, `http_server_2026.rs`).
    let cases = [
        ("tools/call", json!({ "name": 42 }), codes::HEADER_MISMATCH),
        ("tools/call", json!({ "name": "echo", "arguments": "not an object" }), codes::INVALID_PARAMS),
        ("resources/read", json!({ "uri": ["test://item/1"] }), codes::HEADER_MISMATCH),
        ("resources/list", json!({ "cursor": false }), codes::INVALID_PARAMS),
        ("tools/list", json!({ "cursor": 7 }), codes::INVALID_PARAMS),
    ];
    for (i, (method, params, stateless_code)) in cases.iter().enumerate() {
        let id = i as i64;
        // 2025 session.
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let reply = answer(send(addr, in_session(Req::post(&body), &session, V25)).await).await;
        assert_eq!(
            (reply["id"].clone(), code(&reply)),
            (json!(id), codes::INVALID_PARAMS),
            "{method} {params}: {reply}"
        );
        // 2026 request.
        let resp = send(addr, stateless_request(id, method, params.clone())).await;
        let status = resp.status;
        let reply = answer(resp).await;
        assert_eq!(
            (reply["id"].clone(), code(&reply)),
            (json!(id), *stateless_code),
            "{method} {params}: {reply}"
        );
        // A header that cannot match is a malformed request (400); params that do not
        // fit the method are that request's own error, answered with 200 (`http/status.rs`).
        let expected = if *stateless_code == codes::HEADER_MISMATCH { 400 } else { 200 };
        assert_eq!(status, expected, "{method} {params}: {reply}");
    }
    assert_session_serves(addr, &session).await;
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_body_cut_short_by_a_disconnect_runs_nothing() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    for stateless_era in [false, true] {
        let req = if stateless_era {
            stateless_request(1, "tools/call", json!({ "name": "hang" }))
        } else {
            in_session(Req::post(&call_body(1, "hang", json!({}))), &session, V25)
        };
        // The head announces the whole body; half of it comes, then the client goes.
        let mut head =
            format!("POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-length: {}\r\n", req.body.len());
        for (name, value) in &req.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(&req.body[..req.body.len() / 2]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        drop(stream);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(stats.started.load(Ordering::SeqCst), 0, "a handler ran on half a body");
    assert_session_serves(addr, &session).await;
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_client_disconnecting_mid_call_fires_the_handlers_cancellation_token() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let fired = || stats.cancelled.load(Ordering::SeqCst);
    // 2026: closing the response is the cancel.
    let stream = send_only(addr, stateless_request(1, "tools/call", json!({ "name": "hang" }))).await;
    wait_for("the 2026 handler to start", || stats.started.load(Ordering::SeqCst) == 1).await;
    drop(stream);
    wait_for("the 2026 handler's token to fire", || fired() == 1).await;
    // 2025 session: a disconnect is not a cancel (the spec: SHOULD NOT be read as one) ...
    let session = open_session(addr, V25).await;
    let stream =
        send_only(addr, in_session(Req::post(&call_body("h", "hang", json!({}))), &session, V25)).await;
    wait_for("the 2025 handler to start", || stats.started.load(Ordering::SeqCst) == 2).await;
    drop(stream);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(fired(), 1, "a 2025 disconnect must not cancel");
    // ... ending the session is.
    let delete = Req::new("DELETE").header("mcp-protocol-version", V25).header("mcp-session-id", &session);
    assert_eq!(send(addr, delete).await.status, 200);
    wait_for("the 2025 handler's token to fire on DELETE", || fired() == 2).await;
    bound.shutdown.cancel();
    // 2025 without sessions (`sessionless`): the response is all there is, so closing
    // it cancels.
    let (bound, stats) = local(HttpSettings { sessionless: true, ..HttpSettings::default() }).await;
    let addr = bound.local_addr;
    let req = Req::post(&call_body(1, "hang", json!({}))).header("mcp-protocol-version", V25);
    let stream = send_only(addr, req).await;
    wait_for("the stateless 2025 handler to start", || stats.started.load(Ordering::SeqCst) == 1).await;
    drop(stream);
    wait_for("the stateless 2025 handler's token to fire", || stats.cancelled.load(Ordering::SeqCst) == 1)
        .await;
    assert_eq!(stats.dropped.load(Ordering::SeqCst), 1);
    bound.shutdown.cancel();
}

/// The session still answers a ping.
async fn assert_session_serves(addr: std::net::SocketAddr, session: &str) {
    let ping = json!({ "jsonrpc": "2.0", "id": "ok", "method": "ping" });
    assert_eq!(
        answer(send(addr, in_session(Req::post(&ping), session, V25)).await).await["result"],
        json!({})
    );
}
