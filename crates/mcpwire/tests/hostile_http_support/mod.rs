//! What `hostile_more_http.rs` and `faults.rs` share: the fixture server behind a real
//! socket, 2025 sessions and 2026 requests written with the raw HTTP client
//! (`raw_http`), waiting on the fixture's counters, and reading requests in a scripted fake
//! server. A module directory, not a test target; the including crate declares
//! `mod raw_http;` and `mod fixture;` at its root.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpwire::http::{serve_with_shutdown, Bound, HttpSettings, McpService};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::net::TcpStream;

use crate::fixture::{fixture_server, Stats};
use crate::raw_http::{send, Req, Response};

/// The 2025 revision these tests open sessions at.
pub const V25: &str = "2025-11-25";
/// The 2026 revision.
pub const V26: &str = "2026-07-28";

/// The fixture server at `/mcp` on a loopback port, in this process.
pub async fn local(settings: HttpSettings) -> (Bound, Arc<Stats>) {
    let (server, stats) = fixture_server();
    let bound = serve_with_shutdown(McpService::with_settings(server, settings), "127.0.0.1:0", "/mcp")
        .await
        .unwrap();
    (bound, stats)
}

/// A 2026 request with its `_meta` envelope and the headers a well-behaved client sends.
pub fn modern(id: i64, method: &str, mut params: Value) -> Req {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": V26,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let name = params.get("name").or_else(|| params.get("uri")).and_then(Value::as_str).map(str::to_owned);
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let mut req = Req::post(&body).header("mcp-protocol-version", V26).header("mcp-method", method);
    if let Some(name) = name {
        req = req.header("mcp-name", &name);
    }
    req
}

/// A `tools/call` request body.
pub fn call(id: impl Into<Value>, tool: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": "tools/call", "params": { "name": tool, "arguments": arguments } })
}

/// A POST of `body` in 2025 session `session` at `version`.
pub fn in_session(body: &Value, session: &str, version: &str) -> Req {
    Req::post(body).header("mcp-protocol-version", version).header("mcp-session-id", session)
}

/// Opens a 2025 session at `version` (initialize, then initialized); returns its id.
pub async fn open_session(addr: SocketAddr, version: &str) -> String {
    let init = json!({ "jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } });
    let resp = send(addr, Req::post(&init)).await;
    assert_eq!(resp.status, 200);
    let session = resp.header("mcp-session-id").expect("a session id").to_owned();
    let answer = answer(resp).await;
    assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    assert_eq!(send(addr, in_session(&note, &session, version)).await.status, 202);
    session
}

/// The JSON-RPC answer in a JSON body or an SSE stream (the first message without a
/// `method`).
pub async fn answer(mut resp: Response) -> Value {
    if !resp.is_sse() {
        return resp.json().await;
    }
    loop {
        let message = resp.next_message().await;
        if message.get("method").is_none() {
            return message;
        }
    }
}

/// The error code of an answer (fails the test when it is not an error).
pub fn code(answer: &Value) -> i64 {
    answer["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {answer}"))
}

/// Waits until `check` holds, failing after 10 s.
pub async fn wait_for(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Reads one HTTP request (its head, then a `Content-Length` body) from a client; returns
/// the JSON-RPC id of the body, `Value::Null` when it has none, `None` at end of stream.
pub async fn read_request_id(stream: &mut BufReader<TcpStream>) -> Option<Value> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read_until(b'\n', &mut head).await.ok()? == 0 {
            return None;
        }
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let length = head
        .split("\r\n")
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(request.get("id").cloned().unwrap_or(Value::Null))
}
