//! What a request's response survives over Streamable HTTP, on real sockets: a reader
//! that stalls (its stream is dropped, the server's memory stays bounded and it serves
//! everyone else), a client that hangs up mid-call (a cancel in 2026, not in 2025), a
//! handler that panics, an event store that fails, a resumption whose `Last-Event-ID` is
//! repeated or not text, and the server shutting down with requests in flight: each request is answered exactly once, or cancelled.
//!
//! The fixture server runs in this process, or in a child process where memory is
//! measured; requests are written by hand on raw TCP (`raw_http`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;
mod hostile_http_support;
mod mcp_http;
mod raw_http;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use fixture::ChildServer;
use hostile_http_support::{
    answer, call_body, code, get_stream, in_session, local, messages, open_session, post, stateless_request,
    wait_for, V25,
};
use mcpwire::http::{EventStore, HttpSettings};
use mcpwire::protocol::codes;
use raw_http::{read_response, send, send_only, Next, Req, READ_TIMEOUT};
use serde_json::{json, Value};

#[tokio::test]
async fn a_slow_reader_loses_its_stream_and_the_server_stays_bounded() {
    let server = ChildServer::start("http", &[]).await;
    let addr: SocketAddr = server.addr.as_deref().unwrap().parse().unwrap();
    let pid = server.pid();
    let session = open_session(addr, V25).await;
    let (_, hwm_before) = fixture::memory_of(pid);
    // A call that streams ~16 MB of progress (socket buffers take a few MB) on a response nobody reads.
    let body = json!({ "jsonrpc": "2.0", "id": "flood", "method": "tools/call", "params": {
        "name": "progress", "arguments": { "n": 4_000, "pad": 4096 }, "_meta": { "progressToken": "p" } } });
    let stuck = send_only(addr, in_session(Req::post(&body), &session, V25)).await;
    // Meanwhile the server serves others, in this session and elsewhere.
    let started = Instant::now();
    let mut done = false;
    while started.elapsed() < Duration::from_secs(20) {
        let resp =
            post(addr, &session, &json!({ "jsonrpc": "2.0", "id": "stats", "method": "test/stats" })).await;
        if answer(resp).await["result"]["finished"].as_u64() == Some(1) {
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
    let mut resp = read_response(stuck).await;
    assert_eq!(resp.status, 200);
    let mut events = 0;
    let mut answered = false;
    loop {
        match resp.next_within(READ_TIMEOUT).await {
            Next::Event(e) if e.data.is_empty() => {}
            Next::Event(e) => {
                events += 1;
                answered |= e.json()["id"] == "flood";
            }
            Next::End => break,
            Next::Timeout => panic!("no SSE event within {READ_TIMEOUT:?}"),
        }
    }
    assert!(!answered, "the answer went to a dropped connection");
    assert!(events < 4_000, "all {events} events were buffered");
    let resp = send(addr, stateless_request(1, "tools/list", json!({}))).await;
    assert_eq!(resp.status, 200);
}

#[tokio::test]
async fn a_2026_client_that_disconnects_mid_call_cancels_it_but_a_2025_one_does_not() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    // 2026: closing the response stream is the cancel.
    // (The answer is not committed yet, so only the request is written.)
    let stream = send_only(addr, stateless_request(1, "tools/call", json!({ "name": "hang" }))).await;
    wait_for("the 2026 handler to start", || stats.started.load(Ordering::SeqCst) == 1).await;
    drop(stream);
    wait_for("the 2026 handler to be dropped", || stats.dropped.load(Ordering::SeqCst) == 1).await;
    // 2025: a disconnect is not a cancel; notifications/cancelled is.
    let session = open_session(addr, V25).await;
    let resp = post(addr, &session, &call_body("h", "hang", json!({}))).await;
    wait_for("the 2025 handler to start", || stats.started.load(Ordering::SeqCst) == 2).await;
    drop(resp);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(stats.dropped.load(Ordering::SeqCst), 1, "a 2025 disconnect must not cancel");
    let cancel =
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": "h" } });
    assert_eq!(post(addr, &session, &cancel).await.status, 202);
    wait_for("the 2025 handler to be dropped", || stats.dropped.load(Ordering::SeqCst) == 2).await;
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error_over_http() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let resp = send(addr, stateless_request(1, "tools/call", json!({ "name": "panic" }))).await;
    assert_eq!(resp.status, 200);
    let answered = resp.json().await;
    assert_eq!(
        (code(&answered), answered["error"]["message"].clone()),
        (codes::INTERNAL_ERROR, json!("Internal error"))
    );
    let session = open_session(addr, V25).await;
    let answered = answer(post(addr, &session, &call_body(2, "panic", json!({}))).await).await;
    assert_eq!(code(&answered), codes::INTERNAL_ERROR);
    let ping = json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" });
    assert_eq!(answer(post(addr, &session, &ping).await).await["result"], json!({}));
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
    let session = open_session(addr, V25).await;
    let resp = post(addr, &session, &call_body(1, "progress", json!({ "n": 3 }))).await;
    // No priming event (it has no id to resume from), no ids on events; the answer comes.
    let text = resp.text().await;
    assert!(!text.contains("id:"), "{text}");
    assert!(text.contains("\"id\":1"), "{text}");
    // Resuming is refused cleanly.
    assert_eq!(get_stream(addr, &session, Some("x#1")).await.status, 400);
    // The standalone stream still opens.
    let resp = get_stream(addr, &session, None).await;
    assert_eq!(resp.status, 200);
    drop(resp);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn shutdown_with_requests_in_flight_answers_each_exactly_once() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let mut streams = Vec::new();
    for i in 0..5 {
        streams.push(post(addr, &session, &call_body(i, "sleep", json!({ "ms": 60_000 }))).await);
    }
    wait_for("the handlers to start", || stats.started.load(Ordering::SeqCst) == 5).await;
    bound.shutdown.cancel();
    for (i, resp) in streams.into_iter().enumerate() {
        let answers: Vec<Value> =
            messages(resp).await.into_iter().filter(|e| e.get("method").is_none()).collect();
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!(answers[0]["id"], i as i64);
        assert_eq!(code(&answers[0]), codes::CONNECTION_CLOSED, "{}", answers[0]);
    }
    tokio::time::timeout(Duration::from_secs(10), bound.task).await.unwrap().unwrap();
    assert_eq!(stats.dropped.load(Ordering::SeqCst), 5);
}

/// A `Last-Event-ID` sent twice, or not text, names no one event to resume after: the GET
/// is refused `400` (as an unknown id is), not served as a plain GET (the standalone
/// stream, where the answer the client waits for never comes); the stream it named can
/// still be resumed.
#[tokio::test]
async fn a_repeated_or_unreadable_last_event_id_is_refused() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let mut call = post(addr, &session, &call_body(1, "sleep", json!({ "ms": 300 }))).await;
    let primed = call.next_event().await.id.expect("a priming event id");
    let resume = |values: &[&str]| {
        let get = in_session(Req::new("GET").header("accept", "text/event-stream"), &session, V25);
        values.iter().fold(get, |get, v| get.header("last-event-id", v))
    };
    for values in [vec![primed.as_str(), "bogus"], vec![primed.as_str(), primed.as_str()], vec!["caf\u{e9}"]]
    {
        let resp = send(addr, resume(&values)).await;
        assert_eq!(resp.status, 400, "{values:?}");
        assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST, "{values:?}");
    }
    drop(call);
    let resumed = send(addr, resume(&[primed.as_str()])).await;
    assert_eq!(resumed.status, 200);
    assert_eq!(answer(resumed).await["result"]["content"][0]["text"], "slept");
    bound.shutdown.cancel();
}
