//! The Streamable HTTP server's security checks and request hygiene over real loopback
//! sockets: Host, Origin, body size, media types, `Accept`, malformed JSON, slow readers,
//! unknown paths, the session limit under concurrency, and shutdown. Requests are
//! written byte for byte by the tiny client in `raw_http`; the server under test is in
//! `http_server_support`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http_server_support;
mod mcp_http;
mod raw_http;

use http_server_support::*;

// ---------------------------------------------------------------------------------------
// Security and request hygiene
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_foreign_host_gets_421() {
    let t = start().await;
    let response = send(t.addr, Req::post(&initialize_body(1, V25)).host("evil.example")).await;
    assert_eq!(response.status, 421);
    let refused = "Host not allowed: evil.example; a server for other hosts sets HttpSettings::hosts";
    assert_eq!(response.json().await, transport_error(-32600, refused));
    let response = send(t.addr, Req::post(&initialize_body(1, V25)).host("evil.example:80")).await;
    assert_eq!(response.status, 421);
    assert_eq!(t.service.session_count(), 0);
}

/// What a `fmt` subscriber writes, kept to read back.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_refused_host_is_logged_at_warn_once_then_at_debug() {
    let log = Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let t = start().await;
    for _ in 0..3 {
        let response = send(t.addr, Req::post(&initialize_body(1, V25)).host("evil.example")).await;
        assert_eq!(response.status, 421);
    }
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    let refusals: Vec<&str> = text.lines().filter(|l| l.contains("Host not allowed: evil.example")).collect();
    assert_eq!(refusals.len(), 3, "{text}");
    assert!(refusals[0].contains("WARN"), "{text}");
    assert!(refusals[1..].iter().all(|l| l.contains("DEBUG")), "{text}");
}

#[tokio::test]
async fn a_foreign_origin_gets_403() {
    let t = start().await;
    let response =
        send(t.addr, Req::post(&initialize_body(1, V25)).header("origin", "http://evil.example")).await;
    assert_eq!(response.status, 403);
    assert_eq!(response.json().await, transport_error(-32600, "Origin not allowed"));
    let response = send(
        t.addr,
        stateless_request(1, "tools/list", json!({})).header("origin", "https://localhost.evil.example"),
    )
    .await;
    assert_eq!(response.status, 403);
    assert_eq!(t.service.session_count(), 0);
}

#[tokio::test]
async fn loopback_hosts_and_origins_are_accepted() {
    let t = start().await;
    let port = t.addr.port();
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        "localhost".into(),
    ] {
        let response = send(t.addr, Req::post(&initialize_body(1, V25)).host(&host)).await;
        assert_eq!(response.status, 200, "Host: {host}");
    }
    for origin in [format!("http://localhost:{port}"), "http://127.0.0.1:5173".into(), "http://[::1]".into()]
    {
        let response = send(t.addr, Req::post(&initialize_body(1, V25)).header("origin", &origin)).await;
        assert_eq!(response.status, 200, "Origin: {origin}");
    }
}

fn padded_call(size: usize) -> Vec<u8> {
    serde_json::to_vec(&call_body(1, "echo", json!({ "text": "p".repeat(size) }))).unwrap()
}

#[tokio::test]
async fn an_oversized_body_gets_413_by_content_length() {
    let t = start_with(HttpSettings { max_body_bytes: 1024, ..Default::default() }).await;
    let req = Req::post(&json!(null)).body(padded_call(64 * 1024));
    let response = send(t.addr, req).await;
    assert_eq!(response.status, 413);
    assert_eq!(response.json().await, transport_error(-32600, "Request body exceeds 1024 bytes"));
    // Just under the limit is fine (and reaches the session checks).
    let small = Req::post(&json!(null)).body(padded_call(900));
    assert_eq!(send(t.addr, small).await.status, 400, "no session: 400, not 413");
}

#[tokio::test]
async fn an_oversized_chunked_body_gets_413() {
    let t = start_with(HttpSettings { max_body_bytes: 1024, ..Default::default() }).await;
    let req = Req::post(&json!(null)).body(padded_call(64 * 1024)).chunked();
    let response = send(t.addr, req).await;
    assert_eq!(response.status, 413);
    assert_eq!(response.json().await, transport_error(-32600, "Request body exceeds 1024 bytes"));
    let small = Req::post(&initialize_body(1, V25)).chunked();
    assert_eq!(send(t.addr, small).await.status, 200, "a small chunked body is read");
}

#[tokio::test]
async fn a_wrong_content_type_gets_415() {
    let t = start().await;
    for ct in [Some("text/plain"), Some("application/jsonx"), None] {
        let mut req = Req::post(&initialize_body(1, V25)).without("content-type");
        if let Some(ct) = ct {
            req = req.header("content-type", ct);
        }
        let response = send(t.addr, req).await;
        assert_eq!(response.status, 415, "{ct:?}");
        assert_eq!(response.json().await, transport_error(-32600, "Content-Type must be application/json"));
    }
    let ok = Req::post(&initialize_body(1, V25)).set("content-type", "application/json; charset=utf-8");
    assert_eq!(send(t.addr, ok).await.status, 200);
}

#[tokio::test]
async fn a_missing_accept_gets_406() {
    let t = start().await;
    let response = send(t.addr, Req::post(&initialize_body(1, V25)).without("accept")).await;
    assert_eq!(response.status, 406);
    assert_eq!(
        response.json().await,
        transport_error(-32600, "Accept must list application/json and text/event-stream")
    );
    let json_only = Req::post(&initialize_body(1, V25)).set("accept", "application/json");
    assert_eq!(send(t.addr, json_only).await.status, 406);
    let stateless_json_only = stateless_request(1, "tools/list", json!({})).set("accept", "application/json");
    assert_eq!(send(t.addr, stateless_json_only).await.status, 406);
    let sid = open_session(t.addr, V25).await;
    let get = in_session(Req::new("GET"), &sid, V25);
    let response = send(t.addr, get).await;
    assert_eq!(response.status, 406);
    assert_eq!(response.json().await, transport_error(-32600, "Accept must list text/event-stream"));
}

#[tokio::test]
async fn malformed_json_gets_400_32700() {
    let t = start().await;
    let response = send(t.addr, Req::post(&json!(null)).body(b"{\"jsonrpc\":\"2.0\",".to_vec())).await;
    assert_eq!(response.status, 400);
    let body = response.json().await;
    assert_eq!((body["id"].clone(), body["error"]["code"].clone()), (Value::Null, json!(-32700)), "{body}");
    let response = send(t.addr, Req::post(&json!(null)).body(Vec::new())).await;
    assert_eq!(response.status, 400);
    assert_eq!(
        response.json().await,
        transport_error(-32700, "Parse error: EOF while parsing a value at line 1 column 0")
    );
    let sid = open_session(t.addr, V25).await;
    let response =
        send(t.addr, in_session(Req::post(&json!(null)).body(b"not json".to_vec()), &sid, V25)).await;
    assert_eq!(response.status, 400);
    assert_eq!(response.json().await["error"]["code"], -32700);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_is_dropped_and_others_are_served() {
    const COUNT: usize = 1000;
    const SIZE: usize = 32 * 1024;
    // What is kept for resumption is bounded too (here 4 MiB; 64 MiB by default).
    const KEPT: usize = 4 * 1024 * 1024;
    let store = Arc::new(MemoryEventStore::with_byte_limit(1024, 4096, KEPT));
    let settings = HttpSettings { stream_queue: 16, event_store: Some(store.clone()), ..Default::default() };
    let t = start_with(settings).await;
    let sid = open_session(t.addr, V25).await;
    // 1000 log messages of 32 KiB (31 MiB) to a client that does not read them.
    let flood_started = Instant::now();
    let mut slow = post(t.addr, &sid, &call_body(2, "flood", json!({ "count": COUNT, "size": SIZE }))).await;
    assert!(slow.is_sse());
    let priming = slow.next_event().await.id.unwrap();
    // Meanwhile the server answers others, in this session and in another one.
    let other = open_session(t.addr, V25).await;
    let mut answer = post(t.addr, &other, &call_body(3, "echo", json!({ "text": "still here" }))).await;
    assert_eq!(answer.next_message().await, text_result(3, "echo: still here"));
    let mut same = post(t.addr, &sid, &call_body(4, "echo", json!({ "text": "same session" }))).await;
    assert_eq!(same.next_message().await, text_result(4, "echo: same session"));
    // The flood completes although nobody reads: the server neither blocks nor buffers it.
    let deadline = Instant::now() + Duration::from_secs(30);
    assert!(flood_started.elapsed() < Duration::from_secs(10), "others waited {:?}", flood_started.elapsed());
    while !t.probe.flood_done.load(Ordering::SeqCst) {
        assert!(
            Instant::now() < deadline,
            "the flood stalled at {} of {COUNT}",
            t.probe.flooded.load(Ordering::SeqCst)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // What reaches the slow reader is bounded by the stream queue and the socket buffers;
    // then its connection ends.
    let received = slow.drain_count(Duration::from_secs(10)).await;
    assert!(
        received < (COUNT * SIZE) / 4,
        "the slow reader got {received} bytes: the server buffered it all"
    );
    assert!(store.stored_bytes() <= KEPT, "the event store keeps {} bytes", store.stored_bytes());
    // The dropped reader resumes and gets the latest events, ending with its answer. (The
    // last log messages and the answer may still be on their way to the store: a resume
    // before they are stored gets them live, and may overflow its queue in turn; then
    // resume again.)
    let mut replayed = Vec::new();
    for _ in 0..50 {
        let mut resumed = get_stream(t.addr, &sid, Some(&priming)).await;
        assert_eq!(resumed.status, 200);
        replayed = resumed.events_to_end().await;
        if replayed.last().is_some_and(|e| e.json()["id"] == 2) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(replayed.len() < COUNT, "only what the store kept: {}", replayed.len());
    assert_eq!(replayed.last().unwrap().json(), text_result(2, "flooded"));
    let mut late = post(t.addr, &sid, &call_body(5, "echo", json!({ "text": "after" }))).await;
    assert_eq!(late.next_message().await, text_result(5, "echo: after"));
}

/// A session's finished requests do not cost another session's running request its
/// resumption: the event store gives up completed streams first. (The helper that found
/// this ran 5,000 pings in one session while another's call was disconnected; its
/// resume then got `404`, or an empty stream once the call had answered under a
/// reused event id.)
#[tokio::test]
async fn another_sessions_finished_requests_do_not_evict_a_running_stream() {
    let store = Arc::new(MemoryEventStore::new(16, 8));
    let t = start_with(HttpSettings { event_store: Some(store), ..Default::default() }).await;
    let sid = open_session(t.addr, V25).await;
    // The call's connection closes (the tool closes it) while the call keeps running.
    let mut waiting = post(t.addr, &sid, &call_body(2, "reconnect_wait", json!({}))).await;
    let priming = waiting.next_event().await.id.unwrap();
    assert!(matches!(waiting.next_within(Duration::from_secs(5)).await, Next::End));
    let busy = open_session(t.addr, V25).await;
    for id in 10..60 {
        let mut ping = post(t.addr, &busy, &json!({ "jsonrpc": "2.0", "id": id, "method": "ping" })).await;
        assert_eq!(ping.next_message().await["id"], id);
    }
    let mut resumed = get_stream(t.addr, &sid, Some(&priming)).await;
    assert_eq!(resumed.status, 200, "the running call's stream is still known");
    t.probe.release.notify_one();
    assert_eq!(resumed.next_message().await, text_result(2, "released"));
}

#[tokio::test]
async fn an_unknown_path_gets_404() {
    let t = start().await;
    let mut req = Req::post(&initialize_body(1, V25));
    req.path = "/other".into();
    let response = send(t.addr, req).await;
    assert_eq!(response.status, 404);
    let says_where = "Not found: no MCP endpoint at /other (this server's is /mcp)";
    assert_eq!(response.json().await, transport_error(-32600, says_where));
}

/// Sanity check of the raw client: a response read as events ends cleanly.
#[tokio::test]
async fn raw_client_reads_a_closed_stream_as_end() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    // A handler that waits gets an SSE stream.
    let mut response = post(t.addr, &sid, &call_body(2, "progress", json!({}))).await;
    let _priming = response.next_event().await;
    assert_eq!(response.next_message().await, text_result(2, "progressed"));
    assert!(matches!(response.next_within(Duration::from_secs(5)).await, Next::End));
}

/// Concurrent initializes never take the table past `max_sessions`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_initializes_respect_max_sessions() {
    let t = start_with(HttpSettings { max_sessions: 3, ..Default::default() }).await;
    let addr = t.addr;
    let mut tasks = Vec::new();
    for _ in 0..60 {
        tasks.push(tokio::spawn(async move { send(addr, Req::post(&initialize_body(1, V25))).await.status }));
    }
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap());
    }
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 3, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 503).count(), 57, "{statuses:?}");
    assert_eq!(t.service.session_count(), 3);
}

#[tokio::test]
async fn shutdown_ends_every_open_stream_promptly() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut get = get_stream(t.addr, &sid, None).await;
    let mut call = post(t.addr, &sid, &call_body(2, "slow", json!({}))).await;
    let _priming = call.next_event().await;
    let listen = stateless_request(
        7,
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true } }),
    );
    let mut subscription = send(t.addr, listen).await;
    assert_eq!(subscription.next_message().await["method"], "notifications/subscriptions/acknowledged");
    let slow = stateless_request(
        8,
        "tools/call",
        json!({ "name": "slow_progress", "arguments": {}, "_meta": { "progressToken": 1 } }),
    );
    let mut stateless_call = send(t.addr, slow).await;
    assert_eq!(stateless_call.next_message().await["method"], "notifications/progress");

    let started = Instant::now();
    let Bound { shutdown, task, .. } = &t.bound;
    shutdown.cancel();
    let limit = Duration::from_secs(2);
    expect_session_end(&mut get, &mut call, 2, limit).await;
    let ended: Vec<Value> = subscription.expect_end_within(limit).await.iter().map(|e| e.json()).collect();
    assert_eq!(ended.len(), 1, "a listen stream ends with its final result: {ended:?}");
    let result = &ended[0]["result"];
    assert_eq!((ended[0]["id"].clone(), result["resultType"].clone()), (json!(7), json!("complete")));
    assert_eq!(result["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    assert!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object(),
        "stamped like any result: {result}"
    );
    // A 2026 call already streaming ends with the answer every transport gives a request
    // in flight at shutdown (`-32603` in this era), then its stream closes.
    let ended: Vec<Value> = stateless_call.expect_end_within(limit).await.iter().map(|e| e.json()).collect();
    let shutting_down = json!({ "code": -32603, "message": "Internal error: the server is shutting down" });
    assert_eq!(ended, vec![json!({ "jsonrpc": "2.0", "id": 8, "error": shutting_down })]);
    wait_for("the 2026 handler to be cancelled", || t.probe.cancelled.load(Ordering::SeqCst)).await;
    while !task.is_finished() {
        assert!(started.elapsed() < limit, "the server did not stop within {limit:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(tokio::net::TcpStream::connect(t.addr).await.is_err(), "no longer listening");
}

#[tokio::test]
async fn after_shutdown_the_service_answers_503() {
    let t = start().await;
    t.service.shutdown();
    let response = send(t.addr, Req::post(&initialize_body(1, V25))).await;
    assert_eq!(response.status, 503);
    assert_eq!(response.json().await, transport_error(-32603, "The server is shutting down"));
}

/// A response is written into its request's own header map when the handler is done with
/// it (hyper then parses the connection's next request into that map): none of the
/// request's headers may survive into the response, whatever the era and body.
#[tokio::test]
async fn a_response_carries_none_of_its_requests_headers() {
    let probe = |req: Req| req.header("x-probe", "request-only").header("authorization", "Bearer secret");
    let assert_clean = |response: &raw_http::Response, what: &str| {
        assert_eq!(response.status, 200, "{what}");
        for name in ["x-probe", "authorization", "mcp-method", "mcp-name"] {
            assert!(response.header(name).is_none(), "{what}: the response carries {name}");
        }
    };

    // 2025, a session: the answer as SSE (the handler waits), as JSON (it answers at
    // once), and as JSON in JSON mode.
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let waits = call_body(2, "progress", json!({}));
    let mut response = send(t.addr, probe(in_session(Req::post(&waits), &sid, V25))).await;
    assert_clean(&response, "2025 SSE");
    assert_eq!(response.content_type(), "text/event-stream");
    assert_eq!(response.next_message().await, text_result(2, "progressed"));
    let call = call_body(2, "echo", json!({ "text": "hi" }));
    let response = send(t.addr, probe(in_session(Req::post(&call), &sid, V25))).await;
    assert_clean(&response, "2025 JSON at once");
    assert_eq!(response.content_type(), "application/json");
    assert_eq!(response.json().await, text_result(2, "echo: hi"));
    let t = start_with(HttpSettings { json_response: true, ..HttpSettings::default() }).await;
    let sid = open_session(t.addr, V25).await;
    let response = send(t.addr, probe(in_session(Req::post(&call), &sid, V25))).await;
    assert_clean(&response, "2025 JSON");
    assert_eq!(response.content_type(), "application/json");
    assert_eq!(response.json().await, text_result(2, "echo: hi"));

    // 2026: a JSON answer, and an SSE one (the handler reports progress first).
    let t = start().await;
    let response = send(
        t.addr,
        probe(stateless_request(3, "tools/call", json!({ "name": "echo", "arguments": { "text": "hi" } }))),
    )
    .await;
    assert_clean(&response, "2026 JSON");
    assert_eq!(response.content_type(), "application/json");
    assert_eq!(response.json().await, complete_text(3, "echo: hi"));
    let params = json!({ "name": "progress", "arguments": {}, "_meta": { "progressToken": "p" } });
    let mut response = send(t.addr, probe(stateless_request(4, "tools/call", params))).await;
    assert_clean(&response, "2026 SSE");
    assert!(response.is_sse());
    let last = response.events_to_end().await.pop().expect("events").json();
    assert_eq!(last, complete_text(4, "progressed"));
}
