//! Hostile input over Streamable HTTP, both ways, on real sockets.
//!
//! Server side: the fixture server behind `serve_with_shutdown` (in this process, or in a
//! child process where memory is measured or the process is restarted); requests are
//! written by hand on raw TCP so that every byte, header and disconnect is ours.
//!
//! Client side: the server is a raw TCP listener that misbehaves on purpose; the tests
//! assert what the client's calls return.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use fixture::{ChildServer, Stats};
use mcpwire::client::{Client, ClientOptions};
use mcpwire::http::{serve_with_shutdown, Bound, EventStore, HttpSettings, McpService};
use mcpwire::protocol::{codes, ProtocolVersion};
use mcpwire::transport::http_client::HttpClientTransport;
use mcpwire::RequestError;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

// ---------------------------------------------------------------------------------------
// A raw HTTP/1.1 client

/// A response whose body is read as it comes (content-length or chunked).
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    reader: BufReader<TcpStream>,
    chunked: bool,
    remaining: Option<usize>,
    /// Decoded body bytes not yet consumed.
    buf: Vec<u8>,
    done: bool,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Reads more of the body into `buf`; `false` at its end.
    async fn read_more(&mut self) -> bool {
        if self.done {
            return false;
        }
        if self.chunked {
            let mut size_line = String::new();
            if self.reader.read_line(&mut size_line).await.unwrap_or(0) == 0 {
                self.done = true;
                return false;
            }
            let size =
                usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
            if size == 0 {
                let mut trailer = String::new();
                let _ = self.reader.read_line(&mut trailer).await;
                self.done = true;
                return false;
            }
            let mut chunk = vec![0; size + 2];
            if self.reader.read_exact(&mut chunk).await.is_err() {
                self.done = true;
                return false;
            }
            chunk.truncate(size);
            self.buf.extend_from_slice(&chunk);
            return true;
        }
        let want = self.remaining.unwrap_or(64 * 1024).min(64 * 1024);
        if want == 0 {
            self.done = true;
            return false;
        }
        let mut chunk = vec![0; want];
        let n = self.reader.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            self.done = true;
            return false;
        }
        if let Some(r) = &mut self.remaining {
            *r -= n;
        }
        self.buf.extend_from_slice(&chunk[..n]);
        true
    }

    /// The whole body (10 s at most).
    async fn body(mut self) -> Vec<u8> {
        tokio::time::timeout(Duration::from_secs(10), async { while self.read_more().await {} })
            .await
            .expect("the body did not end");
        self.buf
    }

    async fn json(self) -> Value {
        let status = self.status;
        let body = self.body().await;
        serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("{status}: not JSON ({e}): {}", String::from_utf8_lossy(&body)))
    }

    /// The next SSE event's data as JSON (skipping comments and the empty priming event);
    /// `None` when the stream ends first.
    async fn next_event(&mut self, wait: Duration) -> Option<Value> {
        tokio::time::timeout(wait, async {
            loop {
                if let Some(end) = find(&self.buf, b"\n\n") {
                    let event: Vec<u8> = self.buf.drain(..end + 2).collect();
                    let text = String::from_utf8_lossy(&event).into_owned();
                    let data: Vec<&str> =
                        text.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim).collect();
                    let data = data.join("\n");
                    if data.is_empty() {
                        continue;
                    }
                    return Some(serde_json::from_str(&data).unwrap_or_else(|e| panic!("{e}: {data}")));
                }
                if !self.read_more().await {
                    return None;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no SSE event within {wait:?}"))
    }

    /// Events until the stream ends.
    async fn all_events(mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(e) = self.next_event(Duration::from_secs(10)).await {
            out.push(e);
        }
        out
    }

    /// The answer in a JSON or SSE body (the first message with an id and no method).
    async fn answer(mut self) -> Value {
        if self.header("content-type").is_some_and(|c| c.starts_with("text/event-stream")) {
            loop {
                let e = self
                    .next_event(Duration::from_secs(10))
                    .await
                    .expect("the stream ended without an answer");
                if e.get("method").is_none() {
                    return e;
                }
            }
        }
        self.json().await
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Writes a request head (with `Host: localhost` unless given) and returns the stream.
async fn send_head(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body_len: Option<usize>,
) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!("{method} /mcp HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str("host: localhost\r\n");
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(n) = body_len {
        head.push_str(&format!("content-length: {n}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

async fn read_head(stream: TcpStream) -> Resp {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(10), reader.read_line(&mut line))
        .await
        .expect("no response")
        .unwrap();
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).await.unwrap();
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let get = |n: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(n)).map(|(_, v)| v.clone());
    let chunked = get("transfer-encoding").is_some_and(|v| v.contains("chunked"));
    let remaining = get("content-length").and_then(|v| v.parse().ok());
    Resp { status, headers, reader, chunked, remaining, buf: Vec::new(), done: false }
}

/// One request on its own connection.
async fn raw(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
    let mut stream = send_head(addr, method, headers, Some(body.len())).await;
    stream.write_all(body).await.unwrap();
    read_head(stream).await
}

const JSON: (&str, &str) = ("content-type", "application/json");
const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");
const V2025: (&str, &str) = ("mcp-protocol-version", "2025-11-25");
const V2026: (&str, &str) = ("mcp-protocol-version", "2026-07-28");

fn meta() -> Value {
    json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} })
}

/// A 2026 request body and the headers a well-behaved client sends with it.
fn stateless_request(id: i64, method: &str, mut params: Value) -> (Vec<u8>, Vec<(String, String)>) {
    params["_meta"] = meta();
    let mut headers = vec![("mcp-method".to_owned(), method.to_owned())];
    if let Some(name) = params.get("name").or_else(|| params.get("uri")).and_then(Value::as_str) {
        headers.push(("mcp-name".to_owned(), name.to_owned()));
    }
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    (serde_json::to_vec(&body).unwrap(), headers)
}

async fn post_stateless(
    addr: SocketAddr,
    id: i64,
    method: &str,
    params: Value,
    extra: &[(&str, &str)],
) -> Resp {
    let (body, routing) = stateless_request(id, method, params);
    let mut headers: Vec<(&str, &str)> = vec![JSON, ACCEPT, V2026];
    headers.extend(routing.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    headers.extend_from_slice(extra);
    raw(addr, "POST", &headers, &body).await
}

/// A 2025 session: `initialize` at `version`, then `notifications/initialized`.
async fn open_session(addr: SocketAddr, version: &str) -> String {
    let body = json!({ "jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } });
    let resp = raw(addr, "POST", &[JSON, ACCEPT], &serde_json::to_vec(&body).unwrap()).await;
    assert_eq!(resp.status, 200);
    let session = resp.header("mcp-session-id").expect("a session id").to_owned();
    let answer = resp.answer().await;
    assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
    let note = raw(
        addr,
        "POST",
        &[JSON, ACCEPT, ("mcp-protocol-version", version), ("mcp-session-id", &session)],
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(note.status, 202);
    session
}

/// A POST in a 2025 session.
async fn post_session(addr: SocketAddr, session: &str, body: &Value) -> Resp {
    raw(addr, "POST", &[JSON, ACCEPT, V2025, ("mcp-session-id", session)], &serde_json::to_vec(body).unwrap())
        .await
}

fn call(id: impl Into<Value>, tool: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": "tools/call", "params": { "name": tool, "arguments": arguments } })
}

fn code(answer: &Value) -> i64 {
    answer["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {answer}"))
}

/// The fixture server in this process.
async fn local(settings: HttpSettings) -> (Bound, Arc<Stats>) {
    let (server, stats) = fixture::fixture_server();
    let bound = serve_with_shutdown(McpService::with_settings(server, settings), "127.0.0.1:0", "/mcp")
        .await
        .unwrap();
    (bound, stats)
}

async fn wait_for(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// ---------------------------------------------------------------------------------------
// Server side

#[tokio::test]
async fn malformed_bodies_get_exact_statuses_and_errors() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, "2025-11-25").await;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_member = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":{deep}}}");
    // (body, status, code, id); the same with and without a session.
    let cases: Vec<(Vec<u8>, u16, i64, Value)> = vec![
        (b"not json".to_vec(), 400, codes::PARSE_ERROR, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":".to_vec(), 400, codes::PARSE_ERROR, Value::Null),
        (b"".to_vec(), 400, codes::PARSE_ERROR, Value::Null),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}".to_vec(),
            400,
            codes::PARSE_ERROR,
            Value::Null,
        ),
        (b"42".to_vec(), 400, codes::INVALID_REQUEST, Value::Null),
        (b"{\"hello\":1}".to_vec(), 400, codes::INVALID_REQUEST, Value::Null),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}".to_vec(),
            400,
            codes::INVALID_REQUEST,
            Value::Null,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}".to_vec(),
            400,
            codes::INVALID_REQUEST,
            Value::Null,
        ),
        (
            b"{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}".to_vec(),
            400,
            codes::INVALID_REQUEST,
            json!(3),
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":[1]}".to_vec(),
            400,
            codes::INVALID_REQUEST,
            json!(4),
        ),
        ("[".repeat(100_000).into_bytes(), 400, codes::PARSE_ERROR, Value::Null),
        (deep.clone().into_bytes(), 400, codes::INVALID_REQUEST, Value::Null),
    ];
    for with_session in [false, true] {
        for (body, status, expected, id) in &cases {
            let mut headers = vec![JSON, ACCEPT, V2025];
            if with_session {
                headers.push(("mcp-session-id", &session));
            }
            let resp = raw(addr, "POST", &headers, body).await;
            let shown = String::from_utf8_lossy(&body[..body.len().min(40)]).into_owned();
            assert_eq!(resp.status, *status, "{shown}");
            let answer = resp.json().await;
            assert_eq!(code(&answer), *expected, "{shown}: {answer}");
            assert_eq!(answer.get("id").cloned().unwrap_or(Value::Null), *id, "{shown}: {answer}");
        }
    }
    // A deep unknown member is skipped without recursion: the request is served.
    let resp =
        raw(addr, "POST", &[JSON, ACCEPT, V2025, ("mcp-session-id", &session)], deep_member.as_bytes()).await;
    assert_eq!(resp.answer().await["result"], json!({}));
    // Deep tool arguments: a tool execution error.
    let body = format!("{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"a\":{deep}}}}}}}");
    let resp = raw(addr, "POST", &[JSON, ACCEPT, V2025, ("mcp-session-id", &session)], body.as_bytes()).await;
    assert_eq!(resp.answer().await["result"]["isError"], true);
    // Wrong media types and methods.
    let ping = br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;
    let resp = raw(addr, "POST", &[ACCEPT, V2025, ("mcp-session-id", &session)], ping).await;
    assert_eq!(resp.status, 415);
    let resp = raw(
        addr,
        "POST",
        &[("content-type", "text/plain"), ACCEPT, V2025, ("mcp-session-id", &session)],
        ping,
    )
    .await;
    assert_eq!(resp.status, 415);
    let resp = raw(addr, "POST", &[JSON, V2025, ("mcp-session-id", &session)], ping).await;
    assert_eq!(resp.status, 406);
    let resp = raw(addr, "PUT", &[JSON, ACCEPT, V2025, ("mcp-session-id", &session)], ping).await;
    assert_eq!(resp.status, 405);
    assert_eq!(resp.header("allow"), Some("GET, POST, DELETE"));
    // The session survived all of it.
    let resp = post_session(addr, &session, &json!({ "jsonrpc": "2.0", "id": "ok", "method": "ping" })).await;
    assert_eq!(resp.answer().await["result"], json!({}));
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_64_mib_body_is_refused_and_memory_stays_bounded() {
    let server = ChildServer::start("http", &[]).await;
    let addr: SocketAddr = server.addr.as_deref().unwrap().parse().unwrap();
    let pid = server.pid();
    let (_, hwm_before) = fixture::memory_of(pid);
    // Announced: refused before a byte of it is read.
    let stream = send_head(addr, "POST", &[JSON, ACCEPT], Some(64 << 20)).await;
    let resp = read_head(stream).await;
    assert_eq!(resp.status, 413);
    assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST);
    // Chunked: counted as it comes, refused past 4 MiB.
    let mut stream = send_head(addr, "POST", &[JSON, ACCEPT, ("transfer-encoding", "chunked")], None).await;
    let chunk = vec![b' '; 1 << 20];
    let header = format!("{:x}\r\n", chunk.len());
    for _ in 0..64 {
        if stream.write_all(header.as_bytes()).await.is_err()
            || stream.write_all(&chunk).await.is_err()
            || stream.write_all(b"\r\n").await.is_err()
        {
            break; // the server stopped reading and answered
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let resp = read_head(stream).await;
    assert_eq!(resp.status, 413);
    let (_, hwm_after) = fixture::memory_of(pid);
    let grown_mib = hwm_after.saturating_sub(hwm_before) / 1024;
    assert!(grown_mib < 32, "peak memory grew by {grown_mib} MiB for a 64 MiB body");
    // And the server goes on.
    let resp = post_stateless(addr, 1, "tools/list", json!({}), &[]).await;
    assert_eq!(resp.status, 200);
}

#[tokio::test]
async fn duplicate_ids_responses_and_unknown_cancels_in_a_session() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, "2025-11-25").await;
    let slow = post_session(addr, &session, &call(1, "sleep", json!({ "ms": 300 }))).await;
    assert_eq!(slow.status, 200);
    let dup = post_session(addr, &session, &call(1, "echo", json!({}))).await;
    assert_eq!(dup.status, 400);
    let answer = dup.json().await;
    assert_eq!((answer["id"].clone(), code(&answer)), (json!(1), codes::INVALID_REQUEST), "{answer}");
    let answer = slow.answer().await;
    assert_eq!(answer["result"]["content"][0]["text"], "slept", "{answer}");
    // Responses and notifications are accepted with 202 and no body.
    for body in [
        json!({ "jsonrpc": "2.0", "id": 777, "result": {} }),
        json!({ "jsonrpc": "2.0", "id": 778, "error": { "code": 1, "message": "x" } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 4242 } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/unknown" }),
    ] {
        let resp = post_session(addr, &session, &body).await;
        assert_eq!(resp.status, 202, "{body}");
        assert!(resp.body().await.is_empty());
    }
    let resp = post_session(addr, &session, &json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" })).await;
    assert_eq!(resp.answer().await["result"], json!({}));
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_cancel_racing_the_response_ends_each_stream_exactly_once() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, "2025-11-25").await;
    let mut streams = Vec::new();
    for i in 0..40 {
        let resp = post_session(addr, &session, &call(i, "sleep", json!({ "ms": i % 3 }))).await;
        let cancel =
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": i } });
        assert_eq!(post_session(addr, &session, &cancel).await.status, 202);
        streams.push((i, resp));
    }
    for (i, resp) in streams {
        let answers: Vec<Value> =
            resp.all_events().await.into_iter().filter(|e| e.get("method").is_none()).collect();
        assert_eq!(answers.len(), 1, "{i}: {answers:?}");
        let a = &answers[0];
        assert_eq!(a["id"], i);
        // Either its result, or the SDK's terminator for a cancelled request.
        assert!(a["result"]["content"][0]["text"] == "slept" || code(a) == codes::REQUEST_CANCELLED, "{a}");
    }
    let (started, dropped, finished) = (
        stats.started.load(Ordering::SeqCst),
        stats.dropped.load(Ordering::SeqCst),
        stats.finished.load(Ordering::SeqCst),
    );
    assert_eq!(started, dropped + finished);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn ten_thousand_requests_in_one_batch_and_a_thousand_concurrent_posts() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    // 2025-03-26 accepts batches.
    let session = open_session(addr, "2025-03-26").await;
    let batch: Vec<Value> =
        (0..10_000).map(|i| json!({ "jsonrpc": "2.0", "id": i, "method": "ping" })).collect();
    let resp = raw(
        addr,
        "POST",
        &[JSON, ACCEPT, ("mcp-protocol-version", "2025-03-26"), ("mcp-session-id", &session)],
        &serde_json::to_vec(&batch).unwrap(),
    )
    .await;
    assert_eq!(resp.status, 200);
    let mut seen: HashMap<i64, usize> = HashMap::new();
    for e in resp.all_events().await {
        assert_eq!(e["result"], json!({}), "{e}");
        *seen.entry(e["id"].as_i64().unwrap()).or_default() += 1;
    }
    assert_eq!(seen.len(), 10_000);
    assert!(seen.values().all(|n| *n == 1));
    // A batch at 2025-11-25 is refused.
    let late = open_session(addr, "2025-11-25").await;
    let resp = post_session(addr, &late, &json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }])).await;
    assert_eq!(resp.status, 400);
    assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST);
    // 1,000 2026 requests, 100 at a time (one connection each; more would only test the
    // kernel's accept queue).
    let gate = Arc::new(tokio::sync::Semaphore::new(100));
    let tasks: Vec<_> = (0..1000)
        .map(|i| {
            let gate = gate.clone();
            tokio::spawn(async move {
                let _permit = gate.acquire_owned().await.unwrap();
                post_stateless(addr, i, "tools/call", json!({ "name": "echo", "arguments": { "i": i } }), &[])
                    .await
                    .json()
                    .await
            })
        })
        .collect();
    for (i, t) in tasks.into_iter().enumerate() {
        let answer = t.await.unwrap();
        assert_eq!(answer["id"], i as i64);
        assert_eq!(answer["result"]["content"][0]["text"], json!({ "i": i }).to_string());
    }
    bound.shutdown.cancel();
}

#[tokio::test]
async fn the_2025_session_lifecycle_is_enforced() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    // Before initialize: no session.
    let resp = raw(addr, "POST", &[JSON, ACCEPT, V2025], &serde_json::to_vec(&list).unwrap()).await;
    assert_eq!(resp.status, 400);
    assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST);
    let resp = raw(addr, "GET", &[("accept", "text/event-stream"), V2025], b"").await;
    assert_eq!(resp.status, 400);
    let session = open_session(addr, "2025-11-25").await;
    assert_eq!(session.len(), 32);
    assert!(session.bytes().all(|b| b.is_ascii_hexdigit()));
    let resp = post_session(addr, &session, &list).await;
    assert!(resp.answer().await["result"]["tools"].is_array());
    // Ending the session: DELETE, then 404 for everything on it.
    let resp = raw(addr, "DELETE", &[V2025, ("mcp-session-id", &session)], b"").await;
    assert_eq!(resp.status, 200);
    let resp = post_session(addr, &session, &list).await;
    assert_eq!(resp.status, 404);
    let resp =
        raw(addr, "GET", &[("accept", "text/event-stream"), V2025, ("mcp-session-id", &session)], b"").await;
    assert_eq!(resp.status, 404);
    let resp = raw(addr, "DELETE", &[V2025, ("mcp-session-id", &session)], b"").await;
    assert_eq!(resp.status, 404);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn session_ids_cannot_be_guessed() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, "2025-11-25").await;
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    // Near misses and wild guesses.
    let mut guesses = vec![
        session.to_uppercase(),
        session[..31].to_owned(),
        format!("{session}0"),
        format!("{}{}", &session[..31], if session.ends_with('0') { "1" } else { "0" }),
        "0".repeat(32),
        "1".to_owned(),
        "../../etc/passwd".to_owned(),
    ];
    let mut seed = 0x243f_6a88_85a3_08d3_u64;
    for _ in 0..500 {
        let mut id = String::new();
        for _ in 0..2 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            id.push_str(&format!("{seed:016x}"));
        }
        guesses.push(id);
    }
    for guess in &guesses {
        let resp = post_session(addr, guess, &ping).await;
        assert_eq!(resp.status, 404, "{guess}");
        assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST);
    }
    let resp = post_session(addr, &session, &ping).await;
    assert_eq!(resp.answer().await["result"], json!({}));
    bound.shutdown.cancel();
}

#[tokio::test]
async fn missing_or_lying_2026_headers_are_refused() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let (body, _) =
        stateless_request(1, "tools/call", json!({ "name": "region", "arguments": { "region": "eu" } }));
    let good = [("mcp-method", "tools/call"), ("mcp-name", "region"), ("mcp-param-region", "eu")];
    let ok = raw(addr, "POST", &[JSON, ACCEPT, V2026, good[0], good[1], good[2]], &body).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().await["result"]["content"][0]["text"], "region \"eu\"");
    // (headers, status, code)
    type Case<'a> = (Vec<(&'a str, &'a str)>, u16, i64);
    let cases: Vec<Case> = vec![
        (vec![good[0], good[1], good[2]], 400, codes::HEADER_MISMATCH), // no version header
        (vec![V2026, good[1], good[2]], 400, codes::HEADER_MISMATCH),   // no Mcp-Method
        (vec![V2026, ("mcp-method", "tools/list"), good[1], good[2]], 400, codes::HEADER_MISMATCH),
        (vec![V2026, good[0], good[2]], 400, codes::HEADER_MISMATCH), // no Mcp-Name
        (vec![V2026, good[0], ("mcp-name", "echo"), good[2]], 400, codes::HEADER_MISMATCH),
        (vec![V2026, good[0], good[1]], 400, codes::HEADER_MISMATCH), // no Mcp-Param
        (vec![V2026, good[0], good[1], ("mcp-param-region", "us")], 400, codes::HEADER_MISMATCH),
        (vec![V2026, good[0], good[1], ("mcp-param-region", "=?base64?!!?=")], 400, codes::HEADER_MISMATCH),
        (vec![V2026, good[0], good[1], good[2], ("mcp-method", "tools/call")], 400, codes::HEADER_MISMATCH),
        (
            vec![("mcp-protocol-version", "2099-01-01"), good[0], good[1], good[2]],
            400,
            codes::HEADER_MISMATCH,
        ),
    ];
    for (extra, status, expected) in &cases {
        let mut headers = vec![JSON, ACCEPT];
        headers.extend_from_slice(extra);
        let resp = raw(addr, "POST", &headers, &body).await;
        assert_eq!(resp.status, *status, "{extra:?}");
        let answer = resp.json().await;
        assert_eq!(code(&answer), *expected, "{extra:?}: {answer}");
    }
    // The header names a 2025 version: the 2025 path, which wants a session.
    let resp = raw(addr, "POST", &[JSON, ACCEPT, V2025, good[0], good[1], good[2]], &body).await;
    assert_eq!(resp.status, 400);
    // Both say an unknown version: -32022 with the supported list.
    let mut unknown: Value = serde_json::from_slice(&body).unwrap();
    unknown["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let resp = raw(
        addr,
        "POST",
        &[JSON, ACCEPT, ("mcp-protocol-version", "2099-01-01"), good[0], good[1], good[2]],
        &serde_json::to_vec(&unknown).unwrap(),
    )
    .await;
    assert_eq!(resp.status, 400);
    let answer = resp.json().await;
    assert_eq!(code(&answer), codes::UNSUPPORTED_PROTOCOL_VERSION, "{answer}");
    assert_eq!(answer["error"]["data"]["supported"], json!(["2026-07-28"]));
    // 2026 with GET or DELETE: 405.
    let resp = raw(addr, "GET", &[("accept", "text/event-stream"), V2026], b"").await;
    assert_eq!(resp.status, 405);
    // A 2026 unknown method: 404 with -32601 in the body.
    let resp = post_stateless(addr, 3, "no/such", json!({}), &[]).await;
    assert_eq!(resp.status, 404);
    assert_eq!(code(&resp.json().await), codes::METHOD_NOT_FOUND);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_host_or_origin_from_another_site_is_refused() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let (body, routing) = stateless_request(1, "tools/list", json!({}));
    let m = ("mcp-method", routing[0].1.as_str());
    for (headers, status) in [
        (vec![("host", "evil.example")], 421),
        (vec![("host", "localhost.evil.example:80")], 421),
        (vec![("host", "127.0.0.1.nip.io")], 421),
        (vec![("origin", "http://evil.example")], 403),
        (vec![("origin", "http://localhost.evil.example")], 403),
        (vec![("origin", "null")], 403),
        (vec![("origin", "http://localhost:5173")], 200),
        (vec![("host", "127.0.0.1:9"), ("origin", "http://[::1]:3000")], 200),
    ] {
        let mut all = vec![JSON, ACCEPT, V2026, m];
        all.extend(headers.iter().copied());
        let resp = raw(addr, "POST", &all, &body).await;
        assert_eq!(resp.status, status, "{headers:?}");
        let _ = resp.body().await;
    }
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_slow_reader_loses_its_stream_and_the_server_stays_bounded() {
    let server = ChildServer::start("http", &[]).await;
    let addr: SocketAddr = server.addr.as_deref().unwrap().parse().unwrap();
    let pid = server.pid();
    let session = open_session(addr, "2025-11-25").await;
    let (_, hwm_before) = fixture::memory_of(pid);
    // A call that streams ~16 MB of progress (socket buffers take a few MB) on a response nobody reads.
    let body = json!({ "jsonrpc": "2.0", "id": "flood", "method": "tools/call", "params": {
        "name": "progress", "arguments": { "n": 4_000, "pad": 4096 }, "_meta": { "progressToken": "p" } } });
    let body = serde_json::to_vec(&body).unwrap();
    let mut stuck =
        send_head(addr, "POST", &[JSON, ACCEPT, V2025, ("mcp-session-id", &session)], Some(body.len())).await;
    stuck.write_all(&body).await.unwrap();
    // Meanwhile the server serves others, in this session and elsewhere.
    let started = Instant::now();
    let mut done = false;
    while started.elapsed() < Duration::from_secs(20) {
        let resp =
            post_session(addr, &session, &json!({ "jsonrpc": "2.0", "id": "stats", "method": "test/stats" }))
                .await;
        let stats = resp.answer().await;
        if stats["result"]["finished"].as_u64() == Some(1) {
            done = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(done, "the flooding handler did not finish: it was blocked by the slow reader");
    let (_, hwm_after) = fixture::memory_of(pid);
    let grown_mib = hwm_after.saturating_sub(hwm_before) / 1024;
    assert!(grown_mib < 64, "peak memory grew by {grown_mib} MiB while a reader stalled on ~16 MB");
    // The stalled stream was dropped: reading it now gives what was queued, then its end,
    // without the answer (which went to the event store for resumption).
    let resp = read_head(stuck).await;
    assert_eq!(resp.status, 200);
    let mut resp = resp;
    let mut events = 0;
    let mut answered = false;
    while let Some(e) = resp.next_event(Duration::from_secs(10)).await {
        events += 1;
        answered |= e["id"] == "flood";
    }
    assert!(!answered, "the answer went to a dropped connection");
    assert!(events < 4_000, "all {events} events were buffered");
    let resp = post_stateless(addr, 1, "tools/list", json!({}), &[]).await;
    assert_eq!(resp.status, 200);
}

#[tokio::test]
async fn a_2026_client_that_disconnects_mid_call_cancels_it_but_a_2025_one_does_not() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    // 2026: closing the response stream is the cancel.
    // (The answer is not committed yet, so only the request is written.)
    let (body, routing) = stateless_request(1, "tools/call", json!({ "name": "hang" }));
    let mut headers: Vec<(&str, &str)> = vec![JSON, ACCEPT, V2026];
    headers.extend(routing.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let mut stream = send_head(addr, "POST", &headers, Some(body.len())).await;
    stream.write_all(&body).await.unwrap();
    wait_for("the 2026 handler to start", || stats.started.load(Ordering::SeqCst) == 1).await;
    drop(stream);
    wait_for("the 2026 handler to be dropped", || stats.dropped.load(Ordering::SeqCst) == 1).await;
    // 2025: a disconnect is not a cancel; notifications/cancelled is.
    let session = open_session(addr, "2025-11-25").await;
    let resp = post_session(addr, &session, &call("h", "hang", json!({}))).await;
    wait_for("the 2025 handler to start", || stats.started.load(Ordering::SeqCst) == 2).await;
    drop(resp);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(stats.dropped.load(Ordering::SeqCst), 1, "a 2025 disconnect must not cancel");
    let cancel =
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": "h" } });
    assert_eq!(post_session(addr, &session, &cancel).await.status, 202);
    wait_for("the 2025 handler to be dropped", || stats.dropped.load(Ordering::SeqCst) == 2).await;
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error_over_http() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let resp = post_stateless(addr, 1, "tools/call", json!({ "name": "panic" }), &[]).await;
    assert_eq!(resp.status, 200);
    let answer = resp.json().await;
    assert_eq!(
        (code(&answer), answer["error"]["message"].clone()),
        (codes::INTERNAL_ERROR, json!("Internal error"))
    );
    let session = open_session(addr, "2025-11-25").await;
    let answer = post_session(addr, &session, &call(2, "panic", json!({}))).await.answer().await;
    assert_eq!(code(&answer), codes::INTERNAL_ERROR);
    let answer = post_session(addr, &session, &json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" }))
        .await
        .answer()
        .await;
    assert_eq!(answer["result"], json!({}));
    bound.shutdown.cancel();
}

/// An event store that stores nothing (as a broken remote store would).
struct FailingStore;

impl EventStore for FailingStore {
    fn store(&self, _: &str, _: Bytes) -> Option<String> {
        None
    }
    fn replay_after(&self, _: &str) -> Option<mcpwire::http::event_store::Replay> {
        None
    }
    fn forget(&self, _: &str) {}
}

#[tokio::test]
async fn a_failing_event_store_costs_resumption_not_answers() {
    let settings = HttpSettings { event_store: Some(Arc::new(FailingStore)), ..HttpSettings::default() };
    let (bound, _) = local(settings).await;
    let addr = bound.local_addr;
    let session = open_session(addr, "2025-11-25").await;
    let resp = post_session(addr, &session, &call(1, "progress", json!({ "n": 3 }))).await;
    let mut resp = resp;
    // No priming event (it has no id to resume from), no ids on events; the answer comes.
    let mut raw_events = Vec::new();
    while resp.read_more().await {}
    raw_events.extend_from_slice(&resp.buf);
    let text = String::from_utf8_lossy(&raw_events);
    assert!(!text.contains("id:"), "{text}");
    assert!(text.contains("\"id\":1"), "{text}");
    // Resuming is refused cleanly.
    let resp = raw(
        addr,
        "GET",
        &[("accept", "text/event-stream"), V2025, ("mcp-session-id", &session), ("last-event-id", "x#1")],
        b"",
    )
    .await;
    assert_eq!(resp.status, 404);
    // The standalone stream still opens.
    let resp =
        raw(addr, "GET", &[("accept", "text/event-stream"), V2025, ("mcp-session-id", &session)], b"").await;
    assert_eq!(resp.status, 200);
    drop(resp);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn shutdown_with_requests_in_flight_answers_each_exactly_once() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, "2025-11-25").await;
    let mut streams = Vec::new();
    for i in 0..5 {
        streams.push(post_session(addr, &session, &call(i, "sleep", json!({ "ms": 60_000 }))).await);
    }
    wait_for("the handlers to start", || stats.started.load(Ordering::SeqCst) == 5).await;
    bound.shutdown.cancel();
    for (i, resp) in streams.into_iter().enumerate() {
        let answers: Vec<Value> =
            resp.all_events().await.into_iter().filter(|e| e.get("method").is_none()).collect();
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!(answers[0]["id"], i as i64);
        assert_eq!(code(&answers[0]), codes::CONNECTION_CLOSED, "{}", answers[0]);
    }
    tokio::time::timeout(Duration::from_secs(10), bound.task).await.unwrap().unwrap();
    assert_eq!(stats.dropped.load(Ordering::SeqCst), 5);
}

// ---------------------------------------------------------------------------------------
// Client side

fn options(timeout_ms: u64) -> ClientOptions {
    ClientOptions {
        probe_timeout: Duration::from_millis(timeout_ms),
        request_timeout: Duration::from_millis(timeout_ms),
        ..Default::default()
    }
}

async fn stateless_client(url: &str, timeout_ms: u64) -> Client {
    Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse("2026-07-28"))
        .options(options(timeout_ms))
        .connect(HttpClientTransport::new(url).unwrap())
        .await
        .unwrap()
}

/// What a raw fake server does with each request it reads.
#[derive(Clone, Copy)]
enum Misbehave {
    Garbage,
    Huge,
    UnknownId,
    Silent,
    EndlessStream,
    Drip,
}

/// Reads one request (head and content-length body); returns its JSON-RPC id.
async fn read_request(stream: &mut BufReader<TcpStream>) -> Option<Value> {
    let mut len = 0;
    loop {
        let mut line = String::new();
        if stream.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; len];
    stream.read_exact(&mut body).await.ok()?;
    let value: Value = serde_json::from_slice(&body).ok()?;
    Some(value["id"].clone())
}

async fn fake_server(mode: Misbehave) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                while let Some(id) = read_request(&mut stream).await {
                    let s = stream.get_mut();
                    let json_head = |len: usize| {
                        format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len}\r\n\r\n")
                    };
                    let sse_head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
                    match mode {
                        Misbehave::Garbage => {
                            let body = b"<html>not json</html>";
                            let _ = s.write_all(json_head(body.len()).as_bytes()).await;
                            let _ = s.write_all(body).await;
                        }
                        Misbehave::Huge => {
                            let len = 20 << 20;
                            let _ = s.write_all(json_head(len).as_bytes()).await;
                            let chunk = vec![b' '; 1 << 20];
                            for _ in 0..20 {
                                if s.write_all(&chunk).await.is_err() {
                                    break;
                                }
                            }
                        }
                        Misbehave::UnknownId => {
                            let body =
                                serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 987654, "result": {} }))
                                    .unwrap();
                            let _ = s.write_all(json_head(body.len()).as_bytes()).await;
                            let _ = s.write_all(&body).await;
                        }
                        Misbehave::Silent => {
                            tokio::time::sleep(Duration::from_secs(3600)).await;
                        }
                        Misbehave::EndlessStream => {
                            let _ = s.write_all(sse_head.as_bytes()).await;
                            loop {
                                if s.write_all(b": still here\n\n").await.is_err() {
                                    return;
                                }
                                tokio::time::sleep(Duration::from_millis(20)).await;
                            }
                        }
                        Misbehave::Drip => {
                            let _ = s.write_all(sse_head.as_bytes()).await;
                            let event = format!(
                                "event: message\ndata: {}\n\n",
                                json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": "dripped" }] } })
                            );
                            for b in event.bytes() {
                                if s.write_all(&[b]).await.is_err() {
                                    return;
                                }
                                let _ = s.flush().await;
                                tokio::time::sleep(Duration::from_millis(1)).await;
                            }
                            // ...and never ends the stream.
                            tokio::time::sleep(Duration::from_secs(3600)).await;
                        }
                    }
                }
            });
        }
    });
    url
}

#[tokio::test]
async fn the_client_against_a_server_sending_garbage_or_huge_bodies() {
    let url = fake_server(Misbehave::Garbage).await;
    let client = stateless_client(&url, 2_000).await;
    let error = client.call_tool("x", json!({})).await.unwrap_err();
    assert!(is_transport_failure(&error, "the server's answer is not JSON-RPC"), "{error:?}");
    let url = fake_server(Misbehave::Huge).await;
    let client = stateless_client(&url, 10_000).await;
    let error = client.call_tool("x", json!({})).await.unwrap_err();
    // The error names the limit (HttpClientTransport::max_message_bytes raises it).
    assert!(
        is_transport_failure(&error, "the response body exceeds the 16777216-byte message size limit"),
        "{error:?}"
    );
}

/// Whether the client's error is the HTTP transport's own failure, with a reason starting
/// with `reason`, rather than anything the server said.
fn is_transport_failure(error: &RequestError, reason: &str) -> bool {
    matches!(error, RequestError::Transport { reason: r } if r.starts_with(reason))
}

#[tokio::test]
async fn the_client_times_out_unknown_ids_silence_and_endless_streams() {
    for mode in [Misbehave::UnknownId, Misbehave::Silent, Misbehave::EndlessStream] {
        let url = fake_server(mode).await;
        let client = stateless_client(&url, 300).await;
        let started = Instant::now();
        let error = client.call_tool("x", json!({})).await.unwrap_err();
        assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    }
}

#[tokio::test]
async fn the_client_reads_a_dripping_stream() {
    let url = fake_server(Misbehave::Drip).await;
    let client = stateless_client(&url, 10_000).await;
    let result = client.call_tool("x", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "dripped");
}

#[tokio::test]
async fn a_2026_call_that_never_returns_times_out_and_the_server_drops_it() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let url = format!("http://{}/mcp", bound.local_addr);
    let client = stateless_client(&url, 300).await;
    let error = client.call_tool("hang", json!({})).await.unwrap_err();
    assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
    wait_for("the server to drop the handler", || stats.dropped.load(Ordering::SeqCst) == 1).await;
    client.close().await;
    bound.shutdown.cancel();
}

#[tokio::test]
async fn the_http_server_restarted_under_a_2025_client() {
    let first = ChildServer::start("http", &[]).await;
    let addr = first.addr.clone().unwrap();
    let url = format!("http://{addr}/mcp");
    let client = Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse("2025-11-25"))
        .options(options(5_000))
        .connect(HttpClientTransport::new(&url).unwrap())
        .await
        .unwrap();
    let result = client.call_tool("echo", json!({ "n": 1 })).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], json!({ "n": 1 }).to_string());
    // The server dies: a clean error, not a hang.
    let mut first = first;
    first.child.kill().await.unwrap();
    let started = Instant::now();
    let error = client.call_tool("echo", json!({ "n": 2 })).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert!(
        is_transport_failure(&error, "HTTP request failed")
            || matches!(error, RequestError::ConnectionClosed { .. }),
        "{error:?}"
    );
    // A new process on the same address: it does not know the session; the client
    // re-initializes on its next call and goes on.
    let second = ChildServer::start("http", &[("MCPWIRE_HOSTILE_ADDR", &addr)]).await;
    let result = client.call_tool("echo", json!({ "n": 3 })).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], json!({ "n": 3 }).to_string());
    client.close().await;
    drop(second);
}
