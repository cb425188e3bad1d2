//! The 2025-era session transport, beyond `http_server.rs`: when the server may end a
//! request's connection early (SEP-1699 polling), what a resumption replays, and what
//! an ended session's id gets. Over real loopback sockets, with the server of
//! `http_server_support`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http_server_support;
mod mcp_http;
mod raw_http;

use http_server_support::*;

/// POSTs `body` in session `sid` at `version`.
async fn post_at(addr: SocketAddr, sid: &str, version: &str, body: &Value) -> Response {
    send(addr, in_session(Req::post(body), sid, version)).await
}

/// The answer to a `reconnect` call (its tool ends the request's connection early) made
/// in session `sid` at `version`, from its JSON body or its SSE stream.
async fn reconnect_answer(addr: SocketAddr, sid: &str, version: &str) -> Value {
    let mut call = post_at(addr, sid, version, &call_body(2, "reconnect", json!({}))).await;
    assert_eq!(call.status, 200);
    if call.is_sse() {
        call.next_message().await
    } else {
        call.json().await
    }
}

// The spec (2025-11-25, Sending Messages) lets the server close a connection early only
// "after the server has sent an SSE event with an event ID": a stream without one cannot
// be resumed, so its answer would be lost.

#[tokio::test]
async fn a_stream_that_cannot_be_resumed_is_not_cut_short() {
    let t = start().await;
    let sid = open_session(t.addr, "2025-06-18").await;
    assert_eq!(reconnect_answer(t.addr, &sid, "2025-06-18").await, text_result(2, "resumed result"));
}

#[tokio::test]
async fn a_stream_without_an_event_store_is_not_cut_short() {
    let t = start_with(HttpSettings { event_store: None, ..Default::default() }).await;
    let sid = open_session(t.addr, V25).await;
    assert_eq!(reconnect_answer(t.addr, &sid, V25).await, text_result(2, "resumed result"));
}

#[tokio::test]
async fn a_json_answer_is_not_cut_short() {
    let t = start_with(HttpSettings { json_response: true, ..Default::default() }).await;
    let sid = open_session(t.addr, V25).await;
    let call = post(t.addr, &sid, &call_body(2, "reconnect", json!({}))).await;
    assert_eq!((call.status, call.content_type()), (200, "application/json"));
    assert_eq!(call.json().await, text_result(2, "resumed result"));
}

#[tokio::test]
async fn a_stream_whose_events_got_no_id_is_not_cut_short() {
    let t =
        start_with(HttpSettings { event_store: Some(Arc::new(RefusingStore)), ..Default::default() }).await;
    let sid = open_session(t.addr, V25).await;
    assert_eq!(reconnect_answer(t.addr, &sid, V25).await, text_result(2, "resumed result"));
}

// ---------------------------------------------------------------------------------------
// Session ids the server ended
// ---------------------------------------------------------------------------------------

/// 2025-11-25 Session Management 3: once the server ends a session it "MUST respond to
/// requests containing that session ID with HTTP 404 Not Found" — an `initialize`
/// included (the client must initialize again *without* the id).
#[tokio::test]
async fn an_initialize_naming_an_ended_session_gets_404() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let deleted = send(t.addr, in_session(Req::new("DELETE"), &sid, V25)).await;
    assert_eq!(deleted.status, 200);
    assert_eq!(t.service.session_count(), 0);
    let again = send(t.addr, Req::post(&initialize_body(1, V25)).header("mcp-session-id", &sid)).await;
    assert_eq!(again.status, 404);
    assert!(again.header("mcp-session-id").is_none());
    assert_eq!(t.service.session_count(), 0, "no session was opened");
    // Without the id, a new session opens.
    let fresh = open_session(t.addr, V25).await;
    assert_ne!(fresh, sid);
}

// ---------------------------------------------------------------------------------------
// MCP-Protocol-Version
// ---------------------------------------------------------------------------------------

/// 2025-11-25 Protocol Version Header: "If the server receives a request with an invalid
/// or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request" — a POST
/// carrying a notification too (it was accepted with 202, and dropped).
#[tokio::test]
async fn a_notification_under_an_unknown_protocol_version_gets_400() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let cancel =
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 5 } });
    for version in ["2099-01-01", "garbage"] {
        let in_a_session = send(t.addr, in_session(Req::post(&cancel), &sid, version)).await;
        assert_eq!(in_a_session.status, 400, "{version}");
        let alone = send(t.addr, Req::post(&cancel).header("mcp-protocol-version", version)).await;
        assert_eq!(alone.status, 400, "{version}");
    }
    // A version this server speaks is still accepted.
    let accepted = send(t.addr, in_session(Req::post(&cancel), &sid, V25)).await;
    assert_eq!(accepted.status, 202);
}

/// A quiet standalone GET stream gets an SSE comment each keep-alive interval (so that an
/// intermediary does not cut it as idle, and a write finds a client that vanished without
/// closing its connection), and carries the session's messages as before.
#[tokio::test]
async fn a_quiet_get_stream_gets_a_comment_each_keep_alive_interval() {
    let t = start_with(HttpSettings { keep_alive: Duration::from_millis(200), ..Default::default() }).await;
    let sid = open_session(t.addr, V25).await;
    let mut stream = get_stream(t.addr, &sid, None).await;
    assert_eq!((stream.status, stream.content_type()), (200, "text/event-stream"));
    let quiet = stream.text_within(Duration::from_millis(1100)).await;
    let comments = quiet.matches(": keep-alive\n\n").count();
    assert!((3..=6).contains(&comments), "{comments} comments in 1.1 s at 200 ms: {quiet:?}");
    let call = post(t.addr, &sid, &call_body(2, "notify", json!({}))).await.messages_to_end().await;
    assert_eq!(call, [text_result(2, "notified")]);
    let notification = stream.next_message().await;
    assert_eq!(notification, json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }));
}
