//! The endpoint's own bounds, over real loopback sockets: TCP connections past
//! `HttpSettings::max_connections` are answered `503` with `Retry-After` and closed, and
//! 2026-era requests past `HttpSettings::max_concurrent_requests` are answered `503` with
//! `Retry-After` and a JSON-RPC error carrying their id, while 2025 sessions go on. A
//! slot comes back as soon as its connection or request ends.
//!
//! A connection has `HttpSettings::head_timeout` to send each request head, keep-alive
//! idle time included: a client that trickles a head is cut off at that deadline, while
//! one that keeps sending requests keeps its connection for as long as it likes. A body
//! has `HttpSettings::body_timeout`: one trickled past it is answered `408` and its
//! connection closed. And a client that reads nothing of its answer loses its connection
//! (and gives its slot back) once the write has waited `HttpSettings::write_timeout`.
//!
//! And a 2026-era client that never reads its SSE response: the server's memory stays
//! bounded (the per-request queue, then the socket buffers), and once the stream has
//! taken nothing for one keep-alive interval it is dropped: the handler is cancelled, the
//! response ends without its answer, and the server goes on serving everyone else.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;
mod hostile_http_support;
mod mcp_http;
mod raw_http;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use hostile_http_support::{local, stateless_request, wait_for};
use mcpwire::http::HttpSettings;
use mcpwire::protocol::codes;
use raw_http::{send, send_only, Req};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn initialize() -> Req {
    Req::post(&json!({ "jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } }))
}

/// Reads until the server closes the connection; fails if it stays open.
async fn expect_closed(stream: &mut (impl AsyncRead + Unpin)) {
    let mut sink = vec![0u8; 64 * 1024];
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the connection stayed open");
}

/// Retries `tools/list` until it is served (a slot was freed asynchronously); returns its status.
async fn served_within(addr: SocketAddr, wait: Duration) -> u16 {
    let deadline = Instant::now() + wait;
    loop {
        let resp = send(addr, stateless_request(9, "tools/list", json!({}))).await;
        if resp.status == 200 || Instant::now() >= deadline {
            return resp.status;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[test]
fn the_defaults_bound_connections_and_concurrent_requests() {
    let settings = HttpSettings::default();
    assert_eq!(settings.max_connections, 1024);
    assert_eq!(settings.max_concurrent_requests, 1024);
    assert_eq!(settings.head_timeout, Duration::from_secs(30));
    assert_eq!(settings.body_timeout, Duration::from_secs(60));
    assert_eq!(settings.write_timeout, Duration::from_secs(60));
}

/// Reads one response with a `Content-Length` body from `stream`; returns its status.
async fn read_response(stream: &mut (impl AsyncRead + Unpin)) -> u16 {
    read_response_and_body(stream).await.0
}

/// Reads one response with a `Content-Length` body from `stream`: its status and body.
async fn read_response_and_body(stream: &mut (impl AsyncRead + Unpin)) -> (u16, Value) {
    let mut buf = Vec::new();
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .expect("a Content-Length");
            if buf.len() >= end + 4 + length {
                let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).expect("a status");
                let body = serde_json::from_slice(&buf[end + 4..end + 4 + length]).unwrap_or(Value::Null);
                return (status, body);
            }
        }
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut chunk))
            .await
            .expect("timed out reading a response")
            .expect("reading a response");
        assert!(n > 0, "the connection closed before its response: {:?}", String::from_utf8_lossy(&buf));
        buf.extend_from_slice(&chunk[..n]);
    }
}

#[tokio::test]
async fn a_head_trickled_past_the_head_timeout_ends_the_connection() {
    let timeout = Duration::from_millis(600);
    let (bound, _) = local(HttpSettings { head_timeout: timeout, ..HttpSettings::default() }).await;
    let mut stream = TcpStream::connect(bound.local_addr).await.unwrap();
    let started = Instant::now();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\n").await.unwrap();
    // One more byte of a header every 100 ms: never a whole head.
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        for byte in b"x-slow: ".iter().cycle() {
            if stream.write_all(&[*byte]).await.is_err() {
                return;
            }
            let mut sink = [0u8; 1024];
            let read = tokio::time::timeout(Duration::from_millis(100), stream.read(&mut sink)).await;
            // Closed (or reset) by the server; anything else is another 100 ms gone.
            if let Ok(Ok(0) | Err(_)) = read {
                return;
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "a trickled head kept its connection for 10 s");
    assert!(started.elapsed() >= timeout, "closed after {:?}, before the head timeout", started.elapsed());
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_body_trickled_past_the_body_timeout_gets_408_and_the_connection_closes() {
    let timeout = Duration::from_millis(500);
    let (bound, _) = local(HttpSettings { body_timeout: timeout, ..HttpSettings::default() }).await;
    let addr = bound.local_addr;
    let whole = stateless_request(1, "tools/list", json!({})).encode(addr);
    let body_start = whole.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let (mut read, mut write) = TcpStream::connect(addr).await.unwrap().into_split();
    let started = Instant::now();
    // The head and the body's first byte, then one more byte every 100 ms: the body
    // (over 100 bytes) would take more than ten seconds.
    write.write_all(&whole[..=body_start]).await.unwrap();
    let rest = whole[body_start + 1..].to_vec();
    let _trickle = tokio::spawn(async move {
        for byte in rest {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if write.write_all(&[byte]).await.is_err() {
                return;
            }
        }
    });
    let (status, answer) = read_response_and_body(&mut read).await;
    assert_eq!(status, 408, "{answer}");
    assert_eq!(answer["error"]["code"], codes::INVALID_REQUEST, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert!(started.elapsed() >= timeout, "answered after {:?}, before the body timeout", started.elapsed());
    expect_closed(&mut read).await;
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_client_that_reads_nothing_loses_its_connection_at_the_write_timeout() {
    let settings = HttpSettings {
        write_timeout: Duration::from_millis(500),
        max_connections: 1,
        ..HttpSettings::default()
    };
    let (bound, _) = local(settings).await;
    let addr = bound.local_addr;
    // The one connection slot: a call whose answer (32 MiB) is far more than the socket
    // buffers hold, and which the client never reads.
    let big = stateless_request(1, "tools/call", json!({ "name": "big", "arguments": { "n": 32 << 20 } }));
    let stalled = send_only(addr, big).await;
    let started = Instant::now();
    // Once the answer's write has waited past the timeout, the server closes that
    // connection and its slot serves another.
    assert_eq!(served_within(addr, Duration::from_secs(15)).await, 200);
    assert!(started.elapsed() >= Duration::from_millis(500));
    drop(stalled);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_connection_that_keeps_sending_requests_outlives_many_head_timeouts() {
    let timeout = Duration::from_secs(1);
    let (bound, _) = local(HttpSettings { head_timeout: timeout, ..HttpSettings::default() }).await;
    let addr = bound.local_addr;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let started = Instant::now();
    // Each head comes well inside its own deadline (600 ms to spare, for a busy machine);
    // together they span nearly five timeouts.
    for id in 0..12 {
        stream.write_all(&stateless_request(id, "tools/list", json!({})).encode(addr)).await.unwrap();
        assert_eq!(read_response(&mut stream).await, 200, "request {id}");
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
    assert!(started.elapsed() >= 4 * timeout);
    // Then, idle past its deadline, the connection is closed.
    expect_closed(&mut stream).await;
    bound.shutdown.cancel();
}

#[tokio::test]
async fn connections_past_the_limit_get_503_with_retry_after_and_are_closed() {
    let (bound, _) = local(HttpSettings { max_connections: 2, ..HttpSettings::default() }).await;
    let addr = bound.local_addr;
    // Two idle connections take both slots (the server accepts in connection order).
    let first = TcpStream::connect(addr).await.unwrap();
    let _second = TcpStream::connect(addr).await.unwrap();

    let resp = send(addr, stateless_request(1, "ping", json!({}))).await;
    assert_eq!(resp.status, 503);
    assert_eq!(resp.header("retry-after"), Some("1"));
    assert_eq!(resp.header("connection"), Some("close"));
    assert_eq!(resp.content_type(), "application/json");
    let answer = resp.json().await;
    assert_eq!(answer["error"]["code"], codes::INTERNAL_ERROR, "{answer}");
    assert_eq!(answer["error"]["message"], "Too many connections; try again later", "{answer}");
    assert_eq!(answer["id"], Value::Null, "the request was not read, so its id is unknown");

    // The refused connection is closed by the server.
    let mut refused = send_only(addr, stateless_request(2, "ping", json!({}))).await;
    expect_closed(&mut refused).await;

    // Closing a connection gives its slot back.
    drop(first);
    assert_eq!(served_within(addr, Duration::from_secs(5)).await, 200);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn concurrent_2026_requests_past_the_limit_get_503_and_sessions_go_on() {
    let settings = HttpSettings { max_concurrent_requests: 2, ..HttpSettings::default() };
    let (bound, stats) = local(settings).await;
    let addr = bound.local_addr;
    // Two calls that never return hold both slots.
    let hung_1 = send_only(addr, stateless_request(1, "tools/call", json!({ "name": "hang" }))).await;
    let _hung_2 = send_only(addr, stateless_request(2, "tools/call", json!({ "name": "hang" }))).await;
    wait_for("both handlers to start", || stats.started.load(Ordering::SeqCst) == 2).await;

    let resp =
        send(addr, stateless_request(3, "tools/call", json!({ "name": "echo", "arguments": {} }))).await;
    assert_eq!(resp.status, 503);
    assert_eq!(resp.header("retry-after"), Some("1"));
    let answer = resp.json().await;
    assert_eq!(
        answer,
        json!({ "jsonrpc": "2.0", "id": 3, "error": {
            "code": codes::INTERNAL_ERROR, "message": "Too many requests in progress; try again later" } })
    );
    assert_eq!(stats.started.load(Ordering::SeqCst), 2, "the refused call never ran");

    // A 2025 session is not counted against the 2026 limit.
    let resp = send(addr, initialize()).await;
    assert_eq!(resp.status, 200);
    assert!(resp.header("mcp-session-id").is_some());

    // Closing one hung call cancels it and frees its slot.
    drop(hung_1);
    wait_for("the closed call to be cancelled", || stats.dropped.load(Ordering::SeqCst) == 1).await;
    assert_eq!(served_within(addr, Duration::from_secs(5)).await, 200);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn sessionless_posts_share_the_request_limit() {
    let settings = HttpSettings {
        max_concurrent_requests: 1,
        sessionless: true,
        json_response: true,
        ..HttpSettings::default()
    };
    let (bound, stats) = local(settings).await;
    let addr = bound.local_addr;
    let call = |id: i64, name: &str| {
        Req::post(&json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": name, "arguments": {} } }))
        .header("mcp-protocol-version", "2025-11-25")
    };
    let hung = send_only(addr, call(1, "hang")).await;
    wait_for("the handler to start", || stats.started.load(Ordering::SeqCst) == 1).await;
    let resp = send(addr, call(2, "echo")).await;
    assert_eq!(resp.status, 503);
    assert_eq!(resp.header("retry-after"), Some("1"));
    assert_eq!(resp.json().await["id"], 2);
    drop(hung);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let resp = send(addr, call(3, "echo")).await;
        if resp.status == 200 {
            assert_eq!(resp.json().await["id"], 3);
            break;
        }
        assert!(Instant::now() < deadline, "the slot never came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    bound.shutdown.cancel();
}

// ---------------------------------------------------------------------------------------
// A 2026 client that never reads its stream

#[tokio::test]
async fn a_2026_stream_nobody_reads_is_dropped_and_memory_stays_bounded() {
    let settings =
        HttpSettings { keep_alive: Duration::from_millis(300), stream_queue: 16, ..HttpSettings::default() };
    let (bound, stats) = local(settings).await;
    let addr = bound.local_addr;
    let (_, peak_before) = fixture::memory_kib();

    // 200,000 progress notifications of ~1 KiB each (~200 MiB) on a response nobody reads.
    let flood = json!({ "name": "progress", "arguments": { "n": 200_000, "pad": 1024 },
        "_meta": { "progressToken": "p" } });
    let mut stuck = send_only(addr, stateless_request(1, "tools/call", flood)).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while stats.dropped.load(Ordering::SeqCst) == 0 {
        assert_eq!(
            stats.finished.load(Ordering::SeqCst),
            0,
            "the handler ran to its end: nothing pushed back"
        );
        assert!(Instant::now() < deadline, "the stalled stream was never dropped (handler still blocked)");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(stats.started.load(Ordering::SeqCst), 1);

    let (_, peak_after) = fixture::memory_kib();
    let grown_mib = peak_after.saturating_sub(peak_before) / 1024;
    assert!(grown_mib < 48, "peak memory grew by {grown_mib} MiB while a 2026 reader stalled");

    // The server goes on serving.
    let resp = send(addr, stateless_request(2, "tools/list", json!({}))).await;
    assert_eq!(resp.status, 200);
    assert!(resp.json().await["result"]["tools"].is_array());

    // What the stalled client finally reads: the events that were queued, then the end of
    // the response, without the answer (the request was cancelled).
    // (The connection itself stays open for keep-alive: read up to the last chunk.)
    let mut received = Vec::new();
    let read_all = tokio::time::timeout(Duration::from_secs(20), async {
        let mut chunk = vec![0u8; 256 * 1024];
        while !received.ends_with(b"\r\n0\r\n\r\n") {
            match stuck.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await;
    assert!(read_all.is_ok(), "the dropped stream never ended");
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200"), "{}", &text[..text.len().min(200)]);
    assert!(text.contains("text/event-stream"));
    let events = text.matches("notifications/progress").count();
    assert!(events > 0 && events < 200_000, "{events} progress events reached the client");
    assert!(!text.contains("\"result\""), "a cancelled request was answered");
    bound.shutdown.cancel();
}

/// A client that sends a whole body over the limit before it reads gets the `413` (what
/// is left of the body is read and dropped first; answering and closing at once would
/// give it a broken pipe instead), and its connection stays usable. Both ways of saying
/// the size: a `Content-Length` over the limit, and chunks that pass it.
#[tokio::test]
async fn a_client_that_sends_an_oversized_body_whole_reads_its_413() {
    let limit = 64 * 1024;
    let (bound, _) = local(HttpSettings { max_body_bytes: limit, ..HttpSettings::default() }).await;
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","pad":"{}"}}"#, "x".repeat(64 * limit));
    let head = "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
        accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-11-25\r\n";
    for chunked in [false, true] {
        let mut stream = TcpStream::connect(bound.local_addr).await.unwrap();
        let mut request = head.as_bytes().to_vec();
        if chunked {
            request.extend_from_slice(b"transfer-encoding: chunked\r\n\r\n");
            for piece in body.as_bytes().chunks(8 * 1024) {
                request.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
                request.extend_from_slice(piece);
                request.extend_from_slice(b"\r\n");
            }
            request.extend_from_slice(b"0\r\n\r\n");
        } else {
            request.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
            request.extend_from_slice(body.as_bytes());
        }
        // Sent whole before anything is read, as a fetch() does.
        stream.write_all(&request).await.expect("the server took the whole body");
        assert_eq!(read_response(&mut stream).await, 413, "chunked: {chunked}");
        stream.write_all(&initialize().encode(bound.local_addr)).await.unwrap();
        assert_eq!(
            read_response(&mut stream).await,
            200,
            "the connection is still usable (chunked: {chunked})"
        );
    }
    bound.shutdown.cancel();
}

/// The requests of 2025 sessions share one bound across the service
/// (`HttpSettings::max_session_requests`): past it a POST is answered `503` with
/// `Retry-After` and its request never runs; a request's slot comes back when the request
/// settles (a cancelled one included), not when its POST's connection ends.
#[tokio::test]
async fn session_requests_past_the_service_limit_get_503() {
    let settings = HttpSettings { max_session_requests: 2, ..HttpSettings::default() };
    let (bound, stats) = local(settings).await;
    let addr = bound.local_addr;
    let mut sessions = Vec::new();
    for _ in 0..2 {
        let resp = send(addr, initialize()).await;
        let sid = resp.header("mcp-session-id").unwrap().to_owned();
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        assert_eq!(send(addr, in_session(Req::post(&initialized), &sid)).await.status, 202);
        sessions.push(sid);
    }
    let call = |id: i64, name: &str, sid: &str| {
        in_session(
            Req::post(&json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": name, "arguments": {} } })),
            sid,
        )
    };
    // One hung call in each session holds both slots.
    let _hung_1 = send_only(addr, call(1, "hang", &sessions[0])).await;
    let hung_2 = send_only(addr, call(2, "hang", &sessions[1])).await;
    wait_for("both handlers to start", || stats.started.load(Ordering::SeqCst) == 2).await;
    let resp = send(addr, call(3, "echo", &sessions[0])).await;
    assert_eq!(resp.status, 503);
    assert_eq!(resp.header("retry-after"), Some("1"));
    assert_eq!(resp.json().await["id"], 3);
    // A 2025 request goes on when its POST's connection ends: its slot stays taken.
    drop(hung_2);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(send(addr, call(4, "echo", &sessions[1])).await.status, 503);
    // Cancelled, it settles and gives its slot back.
    let cancel =
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 2 } });
    assert_eq!(send(addr, in_session(Req::post(&cancel), &sessions[1])).await.status, 202);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let resp = send(addr, call(5, "echo", &sessions[1])).await;
        if resp.status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the cancelled request's slot never came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    bound.shutdown.cancel();
}

/// `req` in session `sid`, at 2025-11-25.
fn in_session(req: Req, sid: &str) -> Req {
    req.header("mcp-session-id", sid).header("mcp-protocol-version", "2025-11-25")
}
