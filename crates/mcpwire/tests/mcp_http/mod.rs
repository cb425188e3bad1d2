//! MCP over the raw HTTP client (`raw_http`), for every test of the Streamable HTTP
//! endpoint: the revisions, 2025 sessions opened and posted to, 2026 requests with their
//! envelope and headers, answers read from JSON or SSE, and waiting on a condition. A
//! module directory, not a test target; the including crate declares `mod raw_http;` and
//! `mod mcp_http;` at its root.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::raw_http::{send, Next, Req, Response, READ_TIMEOUT};

/// The 2025 revision these tests open sessions at.
pub const V25: &str = "2025-11-25";
/// The 2026 revision.
pub const V26: &str = "2026-07-28";

/// Waits until `check` holds, failing after 10 s: the one wait of every HTTP test, long
/// enough for a loaded machine, short enough that a hang fails the test.
pub async fn wait_for(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A `tools/call` request body.
pub fn call_body(id: impl Into<Value>, name: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": "tools/call", "params": { "name": name, "arguments": arguments } })
}

/// An `initialize` body at `version`, declaring form elicitation.
pub fn initialize_body(id: i64, version: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": { "elicitation": { "form": {} } },
        "clientInfo": { "name": "raw-http-test", "version": "1" }
    } })
}

/// A request of session `sid` at `version` (no version header for 2025-03-26).
pub fn in_session(req: Req, sid: &str, version: &str) -> Req {
    let req = req.header("mcp-session-id", sid);
    if version == "2025-03-26" {
        req
    } else {
        req.header("mcp-protocol-version", version)
    }
}

/// POSTs `body` in session `sid` at 2025-11-25.
pub async fn post(addr: SocketAddr, sid: &str, body: &Value) -> Response {
    send(addr, in_session(Req::post(body), sid, V25)).await
}

/// The standalone GET stream (or a resumption with `last_event_id`).
pub async fn get_stream(addr: SocketAddr, sid: &str, last_event_id: Option<&str>) -> Response {
    let mut req = in_session(Req::new("GET").header("accept", "text/event-stream"), sid, V25);
    if let Some(id) = last_event_id {
        req = req.header("last-event-id", id);
    }
    send(addr, req).await
}

/// Initializes a session (and sends `notifications/initialized`); returns its id.
pub async fn open_session(addr: SocketAddr, version: &str) -> String {
    let mut response = send(addr, Req::post(&initialize_body(1, version))).await;
    assert_eq!(response.status, 200);
    let sid = response.header("mcp-session-id").expect("an Mcp-Session-Id").to_owned();
    let answer = if response.is_sse() { response.next_message().await } else { response.json().await };
    assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let response = send(addr, in_session(Req::post(&initialized), &sid, version)).await;
    assert_eq!(response.status, 202);
    sid
}

/// The `_meta` envelope of a 2026 request.
pub fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V26,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A 2026 request with its envelope (merged into any `_meta` given) and every header it
/// needs.
pub fn stateless_request(id: i64, method: &str, mut params: Value) -> Req {
    let meta = params.as_object_mut().unwrap().entry("_meta").or_insert_with(|| json!({}));
    for (k, v) in envelope().as_object().unwrap() {
        meta.as_object_mut().unwrap().entry(k.clone()).or_insert(v.clone());
    }
    let name = params.get("name").or_else(|| params.get("uri")).and_then(Value::as_str).map(str::to_owned);
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let mut req = Req::post(&body).header("mcp-protocol-version", V26).header("mcp-method", method);
    if let Some(name) = name.filter(|_| matches!(method, "tools/call" | "prompts/get" | "resources/read")) {
        req = req.header("mcp-name", &name);
    }
    req
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

/// Every JSON-RPC message a response carries, to its end: its JSON body, or the data of
/// each of its SSE events (priming events, which carry none, skipped).
pub async fn messages(mut resp: Response) -> Vec<Value> {
    if !resp.is_sse() {
        let body = resp.bytes().await;
        return if body.is_empty() { Vec::new() } else { vec![serde_json::from_slice(&body).unwrap()] };
    }
    let mut out = Vec::new();
    loop {
        match resp.next_within(READ_TIMEOUT).await {
            Next::Event(e) if e.data.is_empty() => {}
            Next::Event(e) => out.push(e.json()),
            Next::End => return out,
            Next::Timeout => panic!("the stream did not end; messages so far: {out:?}"),
        }
    }
}

/// The error code of an answer (fails the test when it is not an error).
pub fn code(answer: &Value) -> i64 {
    answer["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {answer}"))
}
