//! The Streamable HTTP server's 2025-era session transport over real loopback sockets,
//! one test per rule: sessions, SSE and JSON answers, server-to-client requests, the GET
//! stream, resumption, cancellation, expiry, limits and batches, and a faulty event
//! store. Requests are written byte for byte by the tiny client in `raw_http`, so
//! statuses, headers and bodies are asserted exactly. The server under test is in
//! `http_server_support`; 2025 requests without sessions are tested in
//! `http_server_sessionless.rs`, the 2026 transport in `http_server_2026.rs`, the security
//! checks in `http_server_hygiene.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http_server_support;
mod mcp_http;
mod raw_http;

use http_server_support::*;

// ---------------------------------------------------------------------------------------
// 2025: sessions
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn initialize_mints_a_visible_ascii_session_id() {
    let t = start().await;
    let mut response = send(t.addr, Req::post(&initialize_body(1, V25))).await;
    assert_eq!(response.status, 200);
    let sid = response.header("mcp-session-id").unwrap().to_owned();
    assert!(sid.len() >= 32 && sid.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{sid:?}");
    let result = response.next_message().await;
    assert_eq!(result["id"], 1);
    assert_eq!(result["result"]["protocolVersion"], V25);
    assert_eq!(result["result"]["serverInfo"]["name"], "http-test-server");
    // Every session gets its own id.
    let other = send(t.addr, Req::post(&initialize_body(1, V25))).await;
    assert_ne!(other.header("mcp-session-id").unwrap(), sid);
    assert_eq!(t.service.session_count(), 2);
}

#[tokio::test]
async fn initialize_naming_an_unknown_version_negotiates_2025_11_25() {
    let t = start().await;
    for asked in [V26, "1999-01-01"] {
        let mut response = send(t.addr, Req::post(&initialize_body(1, asked))).await;
        assert_eq!(response.status, 200);
        assert!(response.header("mcp-session-id").is_some());
        assert_eq!(response.next_message().await["result"]["protocolVersion"], V25, "asked {asked}");
    }
}

#[tokio::test]
async fn a_request_without_the_session_id_gets_400() {
    let t = start().await;
    let _sid = open_session(t.addr, V25).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" });
    let response = send(t.addr, Req::post(&ping).header("mcp-protocol-version", V25)).await;
    assert_eq!(response.status, 400);
    assert_eq!(response.content_type(), "application/json");
    assert_eq!(
        response.json().await,
        transport_error(-32600, "Bad Request: the Mcp-Session-Id header is required")
    );
}

#[tokio::test]
async fn an_unknown_session_id_gets_404() {
    let t = start().await;
    let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" });
    let response = post(t.addr, "0123456789abcdef0123456789abcdef", &ping).await;
    assert_eq!(response.status, 404);
    assert_eq!(response.json().await, transport_error(-32600, "Session not found"));
    let response = get_stream(t.addr, "nope", None).await;
    assert_eq!(response.status, 404);
}

#[tokio::test]
async fn delete_ends_the_session_then_404() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let response = send(t.addr, in_session(Req::new("DELETE"), &sid, V25)).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.bytes().await, b"");
    assert_eq!(t.service.session_count(), 0);
    let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" });
    let response = post(t.addr, &sid, &ping).await;
    assert_eq!(response.status, 404);
    assert_eq!(response.json().await, transport_error(-32600, "Session not found"));
    let response = send(t.addr, in_session(Req::new("DELETE"), &sid, V25)).await;
    assert_eq!(response.status, 404, "a second DELETE");
}

#[tokio::test]
async fn delete_ends_the_sessions_open_streams_and_cancels_its_requests() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut get = get_stream(t.addr, &sid, None).await;
    let mut call = post(t.addr, &sid, &call_body(5, "slow", json!({}))).await;
    let _priming = call.next_event().await;
    wait_for("the slow tool to start", || t.probe.started.load(Ordering::SeqCst)).await;
    assert_eq!(send(t.addr, in_session(Req::new("DELETE"), &sid, V25)).await.status, 200);
    expect_session_end(&mut get, &mut call, 5, Duration::from_secs(5)).await;
    wait_for("the handler to be cancelled", || t.probe.cancelled.load(Ordering::SeqCst)).await;
}

/// A session whose connection is closed from inside (a middleware calling `close` on the
/// request's peer handle) ends as a deleted one does: the request in flight is answered
/// "Connection closed", its stream and the GET stream end, and the session takes no
/// more messages.
#[tokio::test]
async fn a_session_closed_through_its_peer_handle_ends_its_requests_and_streams() {
    let server = Server::builder("closer", "0")
        .tool(tool("wait").description("Waits to be cancelled").handler(|ctx: Ctx| async move {
            ctx.cancellation().cancelled().await;
            "cancelled"
        }))
        .middleware(middleware_fn(|request: Request, ctx: RequestContext, next: MiddlewareNext| async move {
            if request.method == "ping" {
                ctx.peer().close();
            }
            next.run(request, ctx).await
        }))
        .build()
        .unwrap();
    let bound = serve_with_shutdown(McpService::new(server), "127.0.0.1:0", "/mcp").await.unwrap();
    let addr = bound.local_addr;
    let sid = open_session(addr, V25).await;
    let mut get = get_stream(addr, &sid, None).await;
    let mut call = post(addr, &sid, &call_body(5, "wait", json!({}))).await;
    let _priming = call.next_event().await;
    let mut ping = post(addr, &sid, &json!({ "jsonrpc": "2.0", "id": 6, "method": "ping" })).await;
    ping.expect_end_within(Duration::from_secs(5)).await;
    expect_session_end(&mut get, &mut call, 5, Duration::from_secs(5)).await;
    let later = post(addr, &sid, &call_body(7, "wait", json!({}))).await;
    assert_eq!(later.status, 404);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn notifications_and_client_responses_get_202() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" });
    let response = post(t.addr, &sid, &note).await;
    assert_eq!(response.status, 202);
    assert_eq!(response.header("content-length"), Some("0"));
    assert_eq!(response.bytes().await, b"");
    // A response to a request the server never sent is accepted (and ignored).
    let answer = json!({ "jsonrpc": "2.0", "id": 77, "result": {} });
    let response = post(t.addr, &sid, &answer).await;
    assert_eq!(response.status, 202);
    assert_eq!(response.bytes().await, b"");
    let error = json!({ "jsonrpc": "2.0", "id": 78, "error": { "code": -1, "message": "no" } });
    assert_eq!(post(t.addr, &sid, &error).await.status, 202);
}

// ---------------------------------------------------------------------------------------
// 2025: answers as SSE or JSON, server-to-client requests
// ---------------------------------------------------------------------------------------

/// A request answered before anything else was sent for it has nothing to stream and
/// nothing to resume: its answer is one JSON body.
#[tokio::test]
async fn a_post_answered_at_once_is_answered_as_json() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let response = post(t.addr, &sid, &call_body(2, "echo", json!({ "text": "hi" }))).await;
    assert_eq!((response.status, response.content_type()), (200, "application/json"));
    assert_eq!(response.json().await, text_result(2, "echo: hi"));
}

#[tokio::test]
async fn a_post_whose_handler_waits_is_answered_as_sse_with_a_priming_event() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let body = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "progress", "arguments": {}, "_meta": { "progressToken": "p" } } });
    let mut response = post(t.addr, &sid, &body).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.content_type(), "text/event-stream");
    assert_eq!(response.header("cache-control"), Some("no-cache"));
    let priming = response.next_event().await;
    assert!(priming.id.as_deref().is_some_and(|id| id.starts_with(&sid)), "{priming:?}");
    assert_eq!((priming.retry, priming.data.as_str()), (Some(1000), ""));
    let progress = response.next_event().await;
    assert_eq!(progress.json()["method"], "notifications/progress");
    let _second_progress = response.next_event().await;
    let answer = response.next_event().await;
    assert_eq!(answer.event.as_deref(), Some("message"));
    let ids = [&priming.id, &progress.id, &answer.id];
    assert!(
        answer.id.is_some() && ids[0] != ids[1] && ids[1] != ids[2],
        "every event has its own id: {ids:?}"
    );
    assert_eq!(answer.json(), text_result(2, "progressed"));
    assert!(response.events_to_end().await.is_empty(), "the answer ends the stream");

    // A handler that waits without sending anything gets its stream at once too.
    let mut response = post(t.addr, &sid, &call_body(3, "progress", json!({}))).await;
    assert_eq!(response.content_type(), "text/event-stream");
    assert_eq!(response.next_event().await.data, "", "the priming event");
    assert_eq!(response.next_message().await, text_result(3, "progressed"));
}

/// A sync tool runs on the blocking pool, so it has not answered when its POST has
/// delivered it; answering a moment later (a few ms, which a loaded machine may not give
/// that thread: then SSE, as it may), it is still answered as one JSON body (an SSE event
/// of a large answer is more than some clients take): one of ten calls at least.
#[tokio::test]
async fn a_sync_tools_quick_answer_is_one_json_body() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut as_json = 0;
    for id in 2..12 {
        let mut response = post(t.addr, &sid, &call_body(id, "notify", json!({}))).await;
        let json = (response.status, response.content_type()) == (200, "application/json");
        as_json += usize::from(json);
        let answer = if json { response.json().await } else { response.next_message().await };
        assert_eq!(answer, text_result(id, "notified"));
    }
    assert!(as_json > 0, "none of 10 quick sync answers came as one JSON body");
}

#[tokio::test]
async fn json_response_mode_answers_with_one_json_body() {
    let t = start_with(HttpSettings { json_response: true, ..Default::default() }).await;
    let response = send(t.addr, Req::post(&initialize_body(1, V25))).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.content_type(), "application/json");
    let sid = response.header("mcp-session-id").unwrap().to_owned();
    assert_eq!(response.json().await["result"]["protocolVersion"], V25);
    let response = post(t.addr, &sid, &call_body(2, "echo", json!({ "text": "json" }))).await;
    assert_eq!((response.status, response.content_type()), (200, "application/json"));
    assert_eq!(response.json().await, text_result(2, "echo: json"));
    // Progress has nowhere to go in this mode: dropped, and the answer still comes.
    let body = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": { "name": "progress", "arguments": {}, "_meta": { "progressToken": "p" } } });
    assert_eq!(post(t.addr, &sid, &body).await.json().await, text_result(3, "progressed"));
}

#[tokio::test]
async fn a_server_to_client_request_travels_on_the_posts_stream() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut call = post(t.addr, &sid, &call_body(2, "ask", json!({}))).await;
    let request = call.next_message().await;
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Your name?");
    let answer = json!({ "jsonrpc": "2.0", "id": request["id"],
        "result": { "action": "accept", "content": { "name": "Ada" } } });
    let posted = post(t.addr, &sid, &answer).await;
    assert_eq!(posted.status, 202);
    assert_eq!(call.next_message().await, text_result(2, "hello Ada"));
    assert!(call.events_to_end().await.is_empty());
}

#[tokio::test]
async fn in_json_mode_a_server_to_client_request_fails_fast() {
    let t = start_with(HttpSettings { json_response: true, ..Default::default() }).await;
    let sid = open_session(t.addr, V25).await;
    let started = Instant::now();
    let response = post(t.addr, &sid, &call_body(2, "ask", json!({}))).await;
    assert_eq!(response.status, 200);
    let answer = response.json().await;
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    // The back channel is missing: the tool's `ctx.elicit` fails at once (and the tool
    // lets the error through).
    assert_eq!(
        answer,
        json!({ "jsonrpc": "2.0", "id": 2, "error": { "code": -32603, "message": "Internal error" } })
    );
}

// ---------------------------------------------------------------------------------------
// 2025: the standalone GET stream
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn the_get_stream_carries_tools_list_changed() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut stream = get_stream(t.addr, &sid, None).await;
    assert_eq!((stream.status, stream.content_type()), (200, "text/event-stream"));
    let call = post(t.addr, &sid, &call_body(2, "notify", json!({}))).await.messages_to_end().await;
    let notification = stream.next_message().await;
    assert_eq!(notification, json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }));
    // It went on the GET stream only (never broadcast to the POST's stream).
    assert_eq!(call, [text_result(2, "notified")]);
}

/// A session with nothing in flight still gets change notifications on its GET stream
/// (from another session's tool here), as a busy one does.
#[tokio::test]
async fn an_idle_sessions_get_stream_carries_change_notifications() {
    let t = start().await;
    let idle = open_session(t.addr, V25).await;
    let mut stream = get_stream(t.addr, &idle, None).await;
    assert_eq!(stream.status, 200);
    let busy = open_session(t.addr, V25).await;
    let call = post(t.addr, &busy, &call_body(2, "notify", json!({}))).await.messages_to_end().await;
    assert_eq!(call, [text_result(2, "notified")]);
    let notification = stream.next_message().await;
    assert_eq!(notification, json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }));
}

/// A session that went idle between two calls asks its client again (an
/// `elicitation/create` on the POST's stream) under a new id: ids are never reused
/// within a session.
#[tokio::test]
async fn a_session_idle_between_calls_asks_the_client_again_under_a_new_id() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut ids = Vec::new();
    for (n, name) in [(2, "Ada"), (3, "Bob")] {
        let mut call = post(t.addr, &sid, &call_body(n, "ask", json!({}))).await;
        let request = call.next_message().await;
        assert_eq!(request["method"], "elicitation/create");
        ids.push(request["id"].clone());
        let answer = json!({ "jsonrpc": "2.0", "id": request["id"],
            "result": { "action": "accept", "content": { "name": name } } });
        assert_eq!(post(t.addr, &sid, &answer).await.status, 202);
        assert_eq!(call.next_message().await, text_result(n, &format!("hello {name}")));
        assert!(call.events_to_end().await.is_empty());
        // Idle: nothing in flight, no stream open.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_ne!(ids[0], ids[1], "a server-to-client request id was reused");
}

#[tokio::test]
async fn a_second_concurrent_get_stream_gets_409() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let first = get_stream(t.addr, &sid, None).await;
    assert_eq!(first.status, 200);
    let second = get_stream(t.addr, &sid, None).await;
    assert_eq!(second.status, 409);
    assert_eq!(second.json().await, transport_error(-32600, "A GET stream is already open for this session"));
    // Once the first one is gone, a new GET is accepted.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let again = get_stream(t.addr, &sid, None).await;
        if again.status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "a GET after the first stream closed still gets {}", again.status);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn the_get_stream_is_resumed_with_what_it_missed() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let changed = json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" });
    let mut get = get_stream(t.addr, &sid, None).await;
    post(t.addr, &sid, &call_body(2, "notify", json!({}))).await.events_to_end().await;
    let first = get.next_event().await;
    assert_eq!(first.json(), changed);
    drop(get);
    // Sent while no GET stream is connected: kept for the resumption.
    tokio::time::sleep(Duration::from_millis(50)).await;
    post(t.addr, &sid, &call_body(3, "notify", json!({}))).await.events_to_end().await;
    let mut resumed = get_stream(t.addr, &sid, first.id.as_deref()).await;
    assert_eq!(resumed.status, 200);
    let missed = resumed.next_event().await;
    assert_eq!(missed.json(), changed);
    assert_ne!(missed.id, first.id);
    // The resumed connection is the GET stream now: it carries what comes next.
    post(t.addr, &sid, &call_body(4, "notify", json!({}))).await.events_to_end().await;
    assert_eq!(resumed.next_message().await, changed);
    assert!(matches!(resumed.next_within(Duration::from_millis(200)).await, Next::Timeout), "nothing else");
}

// ---------------------------------------------------------------------------------------
// 2025: resumption and cancellation
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_closed_stream_is_resumed_with_last_event_id() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut call = post(t.addr, &sid, &call_body(2, "reconnect", json!({}))).await;
    let priming = call.next_event().await;
    let last = priming.id.clone().unwrap();
    assert_eq!(priming.retry, Some(1000));
    // The server ends the connection before the result.
    assert!(call.expect_end_within(Duration::from_secs(5)).await.is_empty());
    let mut resumed = get_stream(t.addr, &sid, Some(&last)).await;
    assert_eq!((resumed.status, resumed.content_type()), (200, "text/event-stream"));
    let event = resumed.next_event().await;
    assert!(event.id.is_some());
    assert_eq!(event.json(), text_result(2, "resumed result"));
    assert!(resumed.events_to_end().await.is_empty(), "the replay ends with the response");
    // Resuming again from the same point replays the same answer.
    let mut again = get_stream(t.addr, &sid, Some(&last)).await;
    assert_eq!(again.next_message().await, text_result(2, "resumed result"));
}

#[tokio::test]
async fn a_resumed_stream_carries_the_answer_live() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut call = post(t.addr, &sid, &call_body(2, "reconnect_wait", json!({}))).await;
    let priming = call.next_event().await.id.unwrap();
    assert!(call.expect_end_within(Duration::from_secs(5)).await.is_empty());
    // Resumed while the request is still running: nothing to replay yet.
    let mut resumed = get_stream(t.addr, &sid, Some(&priming)).await;
    assert_eq!(resumed.status, 200);
    assert!(matches!(resumed.next_within(Duration::from_millis(200)).await, Next::Timeout));
    t.probe.release.notify_one();
    assert_eq!(resumed.next_message().await, text_result(2, "released"));
    assert!(resumed.events_to_end().await.is_empty(), "the answer ends the resumed stream");
}

#[tokio::test]
async fn an_unknown_last_event_id_is_rejected() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let other = open_session(t.addr, V25).await;
    let mut call = post(t.addr, &other, &call_body(2, "progress", json!({}))).await;
    let foreign = call.next_event().await.id.unwrap();
    // 400, not 404: a 404 would tell the client its (live) session ended.
    let response = get_stream(t.addr, &sid, Some("garbage")).await;
    assert_eq!(response.status, 400);
    assert_eq!(response.json().await["error"]["code"], -32600);
    assert_eq!(get_stream(t.addr, &sid, Some(&foreign)).await.status, 400, "another session's event id");
    let ping = json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" });
    assert_eq!(post(t.addr, &sid, &ping).await.status, 200, "the session lives on");
}

#[tokio::test]
async fn a_failed_initialize_opens_no_session() {
    let t = start().await;
    let no_version = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" }
    } });
    let no_params = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize" });
    for body in [no_version, no_params] {
        let mut response = send(t.addr, Req::post(&body)).await;
        assert_eq!(response.status, 200, "{body}");
        assert_eq!(response.header("mcp-session-id"), None, "{body}");
        let answer = if response.is_sse() { response.next_message().await } else { response.json().await };
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
    }
    assert_eq!(t.service.session_count(), 0);
    // A good one still opens one.
    open_session(t.addr, V25).await;
    assert_eq!(t.service.session_count(), 1);
}

#[tokio::test]
async fn get_and_delete_under_an_unknown_protocol_version_get_400() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    for method in ["GET", "DELETE"] {
        let req = Req::new(method)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", "1999-01-01");
        let response = send(t.addr, req).await;
        assert_eq!(response.status, 400, "{method}");
        assert!(response.json().await["error"]["message"].as_str().unwrap().contains("1999-01-01"));
    }
    // The 2026 revision has no GET stream: 405, as before.
    let req = Req::new("GET").header("accept", "text/event-stream").header("mcp-protocol-version", V26);
    assert_eq!(send(t.addr, req).await.status, 405);
    assert_eq!(t.service.session_count(), 1, "the session was not deleted");
}

#[tokio::test]
async fn a_cancelled_request_ends_its_stream_with_32800() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut call = post(t.addr, &sid, &call_body(7, "slow", json!({}))).await;
    let priming = call.next_event().await.id.unwrap();
    wait_for("the slow tool to start", || t.probe.started.load(Ordering::SeqCst)).await;
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 7, "reason": "test" } });
    assert_eq!(post(t.addr, &sid, &cancel).await.status, 202);
    let terminator =
        json!({ "jsonrpc": "2.0", "id": 7, "error": { "code": -32800, "message": "Request cancelled" } });
    assert_eq!(call.next_message().await, terminator);
    assert!(call.events_to_end().await.is_empty());
    wait_for("the handler to see the cancellation", || t.probe.cancelled.load(Ordering::SeqCst)).await;
    // A client that lost the connection learns the same from a resumption.
    let mut resumed = get_stream(t.addr, &sid, Some(&priming)).await;
    assert_eq!(resumed.status, 200);
    assert_eq!(resumed.next_message().await, terminator);
    assert!(resumed.events_to_end().await.is_empty());
}

#[tokio::test]
async fn a_duplicate_in_flight_request_id_is_rejected_and_the_original_still_answers() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut first = post(t.addr, &sid, &call_body(5, "slow", json!({}))).await;
    let _priming = first.next_event().await;
    wait_for("the slow tool to start", || t.probe.started.load(Ordering::SeqCst)).await;
    let duplicate = post(t.addr, &sid, &call_body(5, "echo", json!({ "text": "dup" }))).await;
    assert_eq!(duplicate.status, 400);
    assert_eq!(
        duplicate.json().await,
        json!({ "jsonrpc": "2.0", "id": 5, "error": { "code": -32600, "message": "Invalid request: request id 5 is already in flight" } })
    );
    // The original request keeps its stream: its cancellation still ends it.
    let cancel =
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 5 } });
    assert_eq!(post(t.addr, &sid, &cancel).await.status, 202);
    let events = first.expect_end_within(Duration::from_secs(5)).await;
    assert_eq!(
        events.iter().map(|e| e.json()).collect::<Vec<_>>(),
        vec![
            json!({ "jsonrpc": "2.0", "id": 5, "error": { "code": -32800, "message": "Request cancelled" } })
        ]
    );
    // Once answered, the id may be used again.
    let mut again = post(t.addr, &sid, &call_body(5, "echo", json!({ "text": "reused" }))).await;
    assert_eq!(again.next_message().await, text_result(5, "echo: reused"));
    // "5" is another id than 5: with 5 in flight again, it runs and is answered as "5".
    let mut slow = post(t.addr, &sid, &call_body(5, "slow", json!({}))).await;
    let _priming = slow.next_event().await;
    let mut string_id = post(t.addr, &sid, &call_body("5", "echo", json!({ "text": "string id" }))).await;
    assert_eq!(string_id.status, 200);
    let mut expected = text_result(0, "echo: string id");
    expected["id"] = json!("5");
    assert_eq!(string_id.next_message().await, expected);
}

// ---------------------------------------------------------------------------------------
// 2025: limits and batches
// ---------------------------------------------------------------------------------------

/// An idle session holds no task of its own (its POSTs take its messages in): opening
/// sessions leaves the runtime's task count where it was once their POSTs are over.
#[tokio::test]
async fn idle_sessions_hold_no_task() {
    let t = start().await;
    // The first session also starts the session table's reaper.
    open_session(t.addr, V25).await;
    let metrics = tokio::runtime::Handle::current().metrics();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let before = metrics.num_alive_tasks();
    for _ in 0..20 {
        open_session(t.addr, V25).await;
    }
    assert_eq!(t.service.session_count(), 21);
    wait_for("the POSTs to end", || metrics.num_alive_tasks() <= before).await;
}

#[tokio::test]
async fn an_idle_session_expires() {
    let settings = HttpSettings { session_idle_timeout: Duration::from_millis(200), ..Default::default() };
    let t = start_with(settings).await;
    let sid = open_session(t.addr, V25).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" });
    assert_eq!(post(t.addr, &sid, &ping).await.status, 200, "still alive");
    tokio::time::sleep(Duration::from_millis(700)).await;
    let response = post(t.addr, &sid, &ping).await;
    assert_eq!(response.status, 404);
    assert_eq!(response.json().await, transport_error(-32600, "Session not found"));
    assert_eq!(t.service.session_count(), 0);
}

#[tokio::test]
async fn max_sessions_reached_gets_503() {
    let t = start_with(HttpSettings { max_sessions: 2, ..Default::default() }).await;
    let first = open_session(t.addr, V25).await;
    let _second = open_session(t.addr, V25).await;
    let response = send(t.addr, Req::post(&initialize_body(9, V25))).await;
    assert_eq!(response.status, 503);
    assert_eq!(response.header("mcp-session-id"), None);
    assert_eq!(
        response.json().await,
        json!({ "jsonrpc": "2.0", "id": 9, "error": { "code": -32603, "message": "Too many sessions; try again later" } })
    );
    // Ending one makes room.
    assert_eq!(send(t.addr, in_session(Req::new("DELETE"), &first, V25)).await.status, 200);
    open_session(t.addr, V25).await;
}

/// Sessions whose clients never sent `notifications/initialized` give their places up
/// after `uninitialized_session_timeout`, so a flood of half-opened sessions locks new
/// clients out for seconds, not for the whole idle timeout; initialized ones stay.
#[tokio::test]
async fn half_opened_sessions_give_their_places_up_early() {
    let settings = HttpSettings {
        max_sessions: 3,
        uninitialized_session_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let t = start_with(settings).await;
    let kept = open_session(t.addr, V25).await;
    for id in 0..2 {
        assert_eq!(send(t.addr, Req::post(&initialize_body(id, V25))).await.status, 200);
    }
    assert_eq!(send(t.addr, Req::post(&initialize_body(9, V25))).await.status, 503, "full");
    tokio::time::sleep(Duration::from_millis(600)).await;
    // The two half-opened sessions expired; the initialized one (idle as long) did not.
    open_session(t.addr, V25).await;
    open_session(t.addr, V25).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 5, "method": "ping" });
    assert_eq!(post(t.addr, &kept, &ping).await.status, 200);
}

/// A half-opened session ends at `uninitialized_session_timeout` even while the table
/// has room: the reaper runs often enough for that timeout, not only for the idle one.
#[tokio::test]
async fn a_half_opened_session_expires_at_its_own_timeout() {
    let settings =
        HttpSettings { uninitialized_session_timeout: Duration::from_millis(200), ..Default::default() };
    let t = start_with(settings).await;
    let response = send(t.addr, Req::post(&initialize_body(1, V25))).await;
    let sid = response.header("mcp-session-id").expect("a session").to_owned();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" });
    assert_eq!(post(t.addr, &sid, &ping).await.status, 404, "the half-opened session ended");
    assert_eq!(t.service.session_count(), 0);
}

#[tokio::test]
async fn batches_are_accepted_at_2025_03_26() {
    let t = start().await;
    let sid = open_session(t.addr, "2025-03-26").await;
    let batch = json!([
        { "jsonrpc": "2.0", "id": 1, "method": "ping" },
        { "jsonrpc": "2.0", "method": "notifications/roots/list_changed" },
        call_body(2, "echo", json!({ "text": "b" })),
    ]);
    let mut response = send(t.addr, in_session(Req::post(&batch), &sid, "2025-03-26")).await;
    assert_eq!((response.status, response.content_type()), (200, "text/event-stream"));
    let events = response.events_to_end().await;
    // No priming event before 2025-11-25 (an empty data line would confuse older clients).
    assert!(events.iter().all(|e| e.retry.is_none() && !e.data.is_empty()), "{events:?}");
    let mut answers: Vec<Value> = events.iter().map(|e| e.json()).collect();
    answers.sort_by_key(|a| a["id"].as_i64());
    assert_eq!(answers, vec![json!({ "jsonrpc": "2.0", "id": 1, "result": {} }), text_result(2, "echo: b")]);
    // A batch of notifications only: 202.
    let notes = json!([{ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }]);
    assert_eq!(send(t.addr, in_session(Req::post(&notes), &sid, "2025-03-26")).await.status, 202);
}

/// 2025-03-26 lifecycle: "The initialize request MUST NOT be part of a JSON-RPC batch",
/// even a batch of one: it opens no session.
#[tokio::test]
async fn initialize_in_a_batch_is_refused() {
    let t = start().await;
    let batch = json!([initialize_body(1, "2025-03-26")]);
    let response = send(t.addr, Req::post(&batch)).await;
    assert_eq!(response.status, 400);
    assert!(response.header("mcp-session-id").is_none());
    assert_eq!(response.json().await["error"]["code"], -32600);
}

/// A batch's members are answered one by one: one that is not a valid message gets its
/// own error in the answer (with its id when it has one), and the others are served.
#[tokio::test]
async fn a_batch_member_that_is_invalid_gets_its_own_error_beside_the_others_answers() {
    let t = start().await;
    let sid = open_session(t.addr, "2025-03-26").await;
    let batch = json!([
        { "jsonrpc": "2.0", "id": 1, "method": "ping" },
        { "jsonrpc": "2.0", "id": null, "method": "ping" },
        5,
        { "jsonrpc": "2.0", "id": 3, "method": "ping", "params": [1] },
    ]);
    let response = send(t.addr, in_session(Req::post(&batch), &sid, "2025-03-26")).await;
    assert_eq!((response.status, response.content_type()), (200, "application/json"));
    let answers = response.json().await;
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), 4, "{answers:?}");
    assert!(answers.contains(&json!({ "jsonrpc": "2.0", "id": 1, "result": {} })), "{answers:?}");
    let errors: Vec<&Value> = answers.iter().filter(|a| a["error"]["code"] == -32600).collect();
    assert_eq!(errors.len(), 3, "{answers:?}");
    assert!(errors.iter().any(|e| e["id"] == 3), "the member with an id is answered under it: {answers:?}");
    // Notifications beside an invalid member: its error alone, 200.
    let batch = json!([{ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }, "x"]);
    let response = send(t.addr, in_session(Req::post(&batch), &sid, "2025-03-26")).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json().await[0]["error"]["code"], -32600);
    // Nothing valid at all: 400, and still an error per member (JSON-RPC 2.0 answers
    // `[1,2]` with an array of two; only `[]` or unparseable text get one error object).
    let response = send(t.addr, in_session(Req::post(&json!([1, 2])), &sid, "2025-03-26")).await;
    assert_eq!((response.status, response.content_type()), (400, "application/json"));
    let errors = response.json().await;
    let errors = errors.as_array().unwrap_or_else(|| panic!("one array: {errors}"));
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.iter().all(|e| e["error"]["code"] == -32600 && e["id"].is_null()), "{errors:?}");
    // An empty batch is one error object.
    let response = send(t.addr, in_session(Req::post(&json!([])), &sid, "2025-03-26")).await;
    assert_eq!(response.status, 400);
    assert_eq!(response.json().await["error"]["code"], -32600);
    // The session goes on.
    let ping = json!({ "jsonrpc": "2.0", "id": 9, "method": "ping" });
    assert_eq!(send(t.addr, in_session(Req::post(&ping), &sid, "2025-03-26")).await.status, 200);
}

#[tokio::test]
async fn batches_in_json_mode_are_answered_as_one_array() {
    let t = start_with(HttpSettings { json_response: true, ..Default::default() }).await;
    let sid = open_session(t.addr, "2025-03-26").await;
    let batch = json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }, { "jsonrpc": "2.0", "id": 2, "method": "ping" }]);
    let response = send(t.addr, in_session(Req::post(&batch), &sid, "2025-03-26")).await;
    assert_eq!((response.status, response.content_type()), (200, "application/json"));
    let mut answers = response.json().await.as_array().unwrap().clone();
    answers.sort_by_key(|a| a["id"].as_i64());
    assert_eq!(
        answers,
        vec![
            json!({ "jsonrpc": "2.0", "id": 1, "result": {} }),
            json!({ "jsonrpc": "2.0", "id": 2, "result": {} })
        ]
    );
}

#[tokio::test]
async fn batches_are_rejected_at_2025_11_25() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let batch = json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }, { "jsonrpc": "2.0", "id": 2, "method": "ping" }]);
    let response = post(t.addr, &sid, &batch).await;
    assert_eq!(response.status, 400);
    assert_eq!(
        response.json().await,
        transport_error(-32600, "Invalid request: batches are only accepted at protocol version 2025-03-26")
    );
}

// ---------------------------------------------------------------------------------------
// 2025: a faulty event store costs resumption, never answers or the session
// ---------------------------------------------------------------------------------------

/// An event store whose every call panics (a bug in a custom store).
struct PanickingStore;

impl mcpwire::http::EventStore for PanickingStore {
    fn store(&self, _: &str, _: bytes::Bytes) -> Option<String> {
        panic!("the event store is broken")
    }
    fn replay_after(&self, _: &str) -> Option<mcpwire::http::event_store::Replay> {
        panic!("the event store is broken")
    }
    fn forget(&self, _: &str) {
        panic!("the event store is broken")
    }
}

/// With `store`, a session still answers every request (events without ids, no priming
/// event), refuses resumption with 400, and ends cleanly.
async fn a_faulty_store_degrades_to_no_resumption(store: Arc<dyn mcpwire::http::EventStore>) {
    let t = start_with(HttpSettings { event_store: Some(store), ..HttpSettings::default() }).await;
    let sid = open_session(t.addr, V25).await;
    for id in 2..5 {
        let mut body = call_body(id, "progress", json!({}));
        body["params"]["_meta"] = json!({ "progressToken": "p" });
        let mut call = post(t.addr, &sid, &body).await;
        assert_eq!((call.status, call.content_type()), (200, "text/event-stream"));
        let events = call.events_to_end().await;
        assert!(events.iter().all(|e| e.id.is_none()), "no event can be resumed: {events:?}");
        let messages: Vec<Value> = events.iter().filter(|e| !e.data.is_empty()).map(|e| e.json()).collect();
        assert_eq!(messages.len(), 3, "two progress notifications and the answer: {messages:?}");
        assert_eq!(messages[0]["method"], "notifications/progress", "{messages:?}");
        assert_eq!(messages[2], text_result(id, "progressed"));
    }
    assert_eq!(get_stream(t.addr, &sid, Some(&format!("{sid}-1#0"))).await.status, 400);
    let mut standalone = get_stream(t.addr, &sid, None).await;
    assert_eq!(standalone.status, 200);
    let notify = post(t.addr, &sid, &call_body(9, "notify", json!({}))).await;
    assert_eq!(standalone.next_message().await["method"], "notifications/tools/list_changed");
    drop(notify);
    let deleted = send(t.addr, in_session(Req::new("DELETE"), &sid, V25)).await;
    assert_eq!(deleted.status, 200);
    assert_eq!(post(t.addr, &sid, &call_body(10, "echo", json!({}))).await.status, 404);
}

#[tokio::test]
async fn a_panicking_event_store_costs_resumption_not_answers() {
    a_faulty_store_degrades_to_no_resumption(Arc::new(PanickingStore)).await;
}

#[tokio::test]
async fn a_refusing_event_store_costs_resumption_not_answers() {
    a_faulty_store_degrades_to_no_resumption(Arc::new(RefusingStore)).await;
}
