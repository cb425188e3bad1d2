//! The Streamable HTTP server over real loopback sockets, one test per rule: the
//! 2025-era session transport (sessions, SSE, server-to-client requests, the GET stream,
//! resumption, cancellation, expiry, limits, batches), the 2026-07-28 stateless transport
//! (JSON or SSE answers, the header checks, removed methods, 405, cancel-by-close,
//! `subscriptions/listen`), and the security checks (Host, Origin, body size, media
//! types, malformed JSON, slow readers). Requests are written byte for byte by the tiny
//! client in `raw_http`, so statuses, headers and bodies are asserted exactly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod raw_http;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpwire::http::{serve_with_shutdown, Bound, HttpSettings, McpService, MemoryEventStore};
use mcpwire::jsonrpc::RequestContext;
use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams};
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::Request;
use mcpwire::server::{middleware_fn, tool, Args, Ctx, Next as MiddlewareNext, Server};
use mcpwire::McpError;
use raw_http::{send, Next, Req, Response};
use serde_json::{json, Value};

const V25: &str = "2025-11-25";
const V26: &str = "2026-07-28";

// ---------------------------------------------------------------------------------------
// The server under test
// ---------------------------------------------------------------------------------------

/// What the test tools report back to the tests.
#[derive(Default)]
struct Probe {
    /// A slow tool's handler was cancelled (its token fired or its future was dropped).
    cancelled: AtomicBool,
    /// A slow tool's handler started.
    started: AtomicBool,
    /// Log messages the flood tool has sent so far.
    flooded: AtomicUsize,
    /// The flood tool returned.
    flood_done: AtomicBool,
    /// Lets the `reconnect_wait` tool return.
    release: tokio::sync::Notify,
}

/// Sets `cancelled` when dropped before `finish` (a dropped handler future counts).
struct CancelGuard(Arc<Probe>, bool);

impl CancelGuard {
    fn finish(mut self) {
        self.1 = true;
    }
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        if !self.1 {
            self.0.cancelled.store(true, Ordering::SeqCst);
        }
    }
}

fn form(message: &str) -> ElicitRequestParams {
    ElicitRequestParams::Form(ElicitRequestFormParams {
        message: message.into(),
        requested_schema: serde_json::from_value(
            json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] }),
        )
        .unwrap(),
        ..Default::default()
    })
}

fn test_server(probe: Arc<Probe>) -> Server {
    let slow_probe = probe.clone();
    let progress_probe = probe.clone();
    let wait_probe = probe.clone();
    let flood_probe = probe;
    Server::builder("http-test-server", "0.1.0")
        .tool(
            tool("echo")
                .description("Echoes")
                .input_schema(json!({ "type": "object", "properties": { "text": { "type": "string" } } }))
                .handler(|Args(a): Args<Value>| async move {
                    format!("echo: {}", a["text"].as_str().unwrap_or(""))
                }),
        )
        .tool(tool("ask").description("Elicits a name").handler(|ctx: Ctx| async move {
            let answer = ctx.elicit(form("Your name?")).await?;
            let value = serde_json::to_value(&answer).unwrap_or(Value::Null);
            Ok::<_, McpError>(format!("hello {}", value["content"]["name"].as_str().unwrap_or("?")))
        }))
        .tool(tool("notify").description("Tool list changed").handler(|ctx: Ctx| {
            ctx.notify_tools_changed();
            "notified"
        }))
        .tool(tool("reconnect").description("Closes its SSE connection mid-call").handler(
            |ctx: Ctx| async move {
                ctx.close_sse_stream();
                tokio::time::sleep(Duration::from_millis(100)).await;
                "resumed result"
            },
        ))
        .tool(
            tool("reconnect_wait").description("Closes its SSE connection, then waits for the test").handler(
                move |ctx: Ctx| {
                    let probe = wait_probe.clone();
                    async move {
                        ctx.close_sse_stream();
                        probe.release.notified().await;
                        "released"
                    }
                },
            ),
        )
        .tool(tool("progress").description("Reports progress").handler(|ctx: Ctx| async move {
            ctx.progress(1.0, Some(2.0), Some("half")).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.progress(2.0, Some(2.0), None).await;
            "progressed"
        }))
        .tool(tool("slow").description("Runs until cancelled (30 s at most)").handler(move |ctx: Ctx| {
            let probe = slow_probe.clone();
            async move {
                probe.started.store(true, Ordering::SeqCst);
                let guard = CancelGuard(probe.clone(), false);
                let out = tokio::select! {
                    _ = ctx.cancellation().cancelled() => {
                        probe.cancelled.store(true, Ordering::SeqCst);
                        "cancelled"
                    }
                    _ = tokio::time::sleep(Duration::from_secs(30)) => "slept",
                };
                guard.finish();
                out
            }
        }))
        .tool(tool("slow_progress").description("Reports progress, then runs until cancelled").handler(
            move |ctx: Ctx| {
                let probe = progress_probe.clone();
                async move {
                    let guard = CancelGuard(probe.clone(), false);
                    ctx.progress(1.0, None, None).await;
                    probe.started.store(true, Ordering::SeqCst);
                    let out = tokio::select! {
                        _ = ctx.cancellation().cancelled() => {
                            probe.cancelled.store(true, Ordering::SeqCst);
                            "cancelled"
                        }
                        _ = tokio::time::sleep(Duration::from_secs(30)) => "slept",
                    };
                    guard.finish();
                    out
                }
            },
        ))
        .tool(
            tool("flood")
                .description("Sends many large log messages")
                .input_schema(json!({
                    "type": "object",
                    "properties": { "count": { "type": "integer" }, "size": { "type": "integer" } }
                }))
                .handler(move |ctx: Ctx, Args(a): Args<Value>| {
                    let probe = flood_probe.clone();
                    async move {
                        let count = a["count"].as_u64().unwrap_or(10) as usize;
                        let payload = "x".repeat(a["size"].as_u64().unwrap_or(16) as usize);
                        for _ in 0..count {
                            ctx.log(LoggingLevel::Info, &payload).await;
                            probe.flooded.fetch_add(1, Ordering::SeqCst);
                        }
                        probe.flood_done.store(true, Ordering::SeqCst);
                        "flooded"
                    }
                }),
        )
        .tool(
            tool("region")
                .description("Takes an x-mcp-header argument")
                .input_schema(json!({
                    "type": "object",
                    "properties": { "region": { "type": "string", "x-mcp-header": "Region" } },
                    "required": ["region"]
                }))
                .handler(|Args(a): Args<Value>| async move {
                    format!("region: {}", a["region"].as_str().unwrap_or(""))
                }),
        )
        .build()
        .unwrap()
}

/// A running endpoint at `/mcp`; shut down on drop.
struct TestServer {
    addr: SocketAddr,
    bound: Bound,
    service: McpService,
    probe: Arc<Probe>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.bound.shutdown.cancel();
    }
}

async fn start_with(settings: HttpSettings) -> TestServer {
    let probe = Arc::new(Probe::default());
    let service = McpService::with_settings(test_server(probe.clone()), settings);
    let bound = serve_with_shutdown(service.clone(), "127.0.0.1:0", "/mcp").await.unwrap();
    TestServer { addr: bound.local_addr, bound, service, probe }
}

async fn start() -> TestServer {
    start_with(HttpSettings::default()).await
}

/// Waits until `cond` holds (at most 5 s).
async fn wait_for(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The JSON-RPC error body the endpoint writes for transport-level failures. It has no
/// `id` member: since 2025-11-25 the schema makes `id` optional on error responses and
/// does not allow `null`.
fn transport_error(code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "error": { "code": code, "message": message } })
}

fn text_result(id: i64, text: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": text }] } })
}

// ---------------------------------------------------------------------------------------
// 2025-era helpers
// ---------------------------------------------------------------------------------------

fn initialize_body(id: i64, version: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": { "elicitation": { "form": {} } },
        "clientInfo": { "name": "raw-http-test", "version": "1" }
    } })
}

fn call_body(id: i64, name: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": arguments } })
}

/// A request of session `sid` at `version` (no version header for 2025-03-26).
fn in_session(req: Req, sid: &str, version: &str) -> Req {
    let req = req.header("mcp-session-id", sid);
    if version == "2025-03-26" {
        req
    } else {
        req.header("mcp-protocol-version", version)
    }
}

/// Initializes a session (and sends `notifications/initialized`); returns its id.
async fn open_session(addr: SocketAddr, version: &str) -> String {
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

/// POSTs `body` in session `sid` at 2025-11-25.
async fn post(addr: SocketAddr, sid: &str, body: &Value) -> Response {
    send(addr, in_session(Req::post(body), sid, V25)).await
}

/// The standalone GET stream (or a resumption with `last_event_id`).
async fn get_stream(addr: SocketAddr, sid: &str, last_event_id: Option<&str>) -> Response {
    let mut req = in_session(Req::new("GET").header("accept", "text/event-stream"), sid, V25);
    if let Some(id) = last_event_id {
        req = req.header("last-event-id", id);
    }
    send(addr, req).await
}

/// The session ended under an open call: within `limit` the GET stream ends with no
/// event, and the call's stream ends with exactly one: `id`'s "Connection closed".
async fn expect_session_end(get: &mut Response, call: &mut Response, id: i64, limit: Duration) {
    assert!(get.expect_end_within(limit).await.is_empty(), "the GET stream ends");
    let ended = call.expect_end_within(limit).await;
    assert_eq!(
        ended.iter().map(|e| e.json()).collect::<Vec<_>>(),
        vec![
            json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32000, "message": "Connection closed" } })
        ]
    );
}

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

#[tokio::test]
async fn a_post_is_answered_as_sse_with_a_priming_event() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut response = post(t.addr, &sid, &call_body(2, "echo", json!({ "text": "hi" }))).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.content_type(), "text/event-stream");
    assert_eq!(response.header("cache-control"), Some("no-cache"));
    let priming = response.next_event().await;
    assert!(priming.id.as_deref().is_some_and(|id| id.starts_with(&sid)), "{priming:?}");
    assert_eq!((priming.retry, priming.data.as_str()), (Some(1000), ""));
    let answer = response.next_event().await;
    assert_eq!(answer.event.as_deref(), Some("message"));
    assert!(answer.id.is_some() && answer.id != priming.id, "every event has its own id: {answer:?}");
    assert_eq!(answer.json(), text_result(2, "echo: hi"));
    assert!(response.events_to_end().await.is_empty(), "the answer ends the stream");
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
    let call = post(t.addr, &sid, &call_body(2, "notify", json!({}))).await.events_to_end().await;
    assert_eq!(call.last().unwrap().json(), text_result(2, "notified"));
    let notification = stream.next_message().await;
    assert_eq!(notification, json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }));
    // It went on the GET stream only (never broadcast to the POST's stream).
    assert!(call.iter().all(|e| !e.data.contains("list_changed")), "{call:?}");
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
    let call = post(t.addr, &busy, &call_body(2, "notify", json!({}))).await.events_to_end().await;
    assert_eq!(call.last().unwrap().json(), text_result(2, "notified"));
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
    let mut call = post(t.addr, &other, &call_body(2, "echo", json!({ "text": "x" }))).await;
    let foreign = call.next_event().await.id.unwrap();
    assert_eq!(get_stream(t.addr, &sid, Some("garbage")).await.status, 404);
    assert_eq!(get_stream(t.addr, &sid, Some(&foreign)).await.status, 404, "another session's event id");
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

#[tokio::test]
async fn a_batch_repeating_a_request_id_is_rejected() {
    let t = start().await;
    let sid = open_session(t.addr, "2025-03-26").await;
    let batch = json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }, { "jsonrpc": "2.0", "id": 1, "method": "ping" }]);
    let response = send(t.addr, in_session(Req::post(&batch), &sid, "2025-03-26")).await;
    assert_eq!(response.status, 400);
    assert_eq!(
        response.json().await,
        json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32600, "message": "Invalid request: request id 1 is already in flight" } })
    );
    // The session is unharmed.
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    let mut response = send(t.addr, in_session(Req::post(&ping), &sid, "2025-03-26")).await;
    assert_eq!(response.next_message().await, json!({ "jsonrpc": "2.0", "id": 1, "result": {} }));
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
// 2026-07-28: stateless requests
// ---------------------------------------------------------------------------------------

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V26,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A 2026 request with its envelope and every header it needs.
fn modern(id: i64, method: &str, mut params: Value) -> Req {
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

/// A 2026 text result (every 2026 result names the server in `_meta`).
fn complete_text(id: i64, text: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": {
        "content": [{ "type": "text", "text": text }],
        "resultType": "complete",
        "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "http-test-server", "version": "0.1.0" } }
    } })
}

#[tokio::test]
async fn modern_answers_json_when_nothing_streams() {
    let t = start().await;
    let response =
        send(t.addr, modern(1, "tools/call", json!({ "name": "echo", "arguments": { "text": "m" } }))).await;
    assert_eq!((response.status, response.content_type()), (200, "application/json"));
    assert_eq!(response.header("mcp-session-id"), None, "no session in 2026");
    assert_eq!(response.json().await, complete_text(1, "echo: m"));
    assert_eq!(t.service.session_count(), 0);
}

#[tokio::test]
async fn modern_answers_sse_when_progress_comes_first() {
    let t = start().await;
    let req = modern(
        1,
        "tools/call",
        json!({ "name": "progress", "arguments": {}, "_meta": { "progressToken": "tok" } }),
    );
    let mut response = send(t.addr, req).await;
    assert_eq!((response.status, response.content_type()), (200, "text/event-stream"));
    assert_eq!(response.header("x-accel-buffering"), Some("no"));
    let events = response.events_to_end().await;
    let messages: Vec<Value> = events.iter().map(|e| e.json()).collect();
    assert!(
        events.iter().all(|e| e.id.is_none() && e.retry.is_none()),
        "no ids or priming in 2026: {events:?}"
    );
    assert_eq!(
        messages,
        vec![
            json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                "params": { "progressToken": "tok", "progress": 1.0, "total": 2.0, "message": "half" } }),
            json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                "params": { "progressToken": "tok", "progress": 2.0, "total": 2.0 } }),
            complete_text(1, "progressed"),
        ]
    );
}

async fn expect_header_mismatch(addr: SocketAddr, req: Req, id: Option<i64>, detail: &str) {
    let response = send(addr, req).await;
    assert_eq!(response.status, 400, "{detail}");
    let body = response.json().await;
    assert_eq!(body["error"]["code"], -32020, "{detail}: {body}");
    assert_eq!(body["id"], id.map_or(Value::Null, Value::from), "{detail}: {body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("Header mismatch: ") && message.contains(detail), "{detail}: {message}");
}

#[tokio::test]
async fn modern_version_header_is_required_and_must_match() {
    let t = start().await;
    let call = || modern(1, "tools/call", json!({ "name": "echo", "arguments": {} }));
    expect_header_mismatch(
        t.addr,
        call().without("mcp-protocol-version"),
        Some(1),
        "MCP-Protocol-Version header is required",
    )
    .await;
    let mut other = call().set("mcp-protocol-version", V26);
    other.body = serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {},
        "_meta": { "io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {} }
    } }))
    .unwrap();
    expect_header_mismatch(t.addr, other, Some(1), "does not match _meta").await;
}

#[tokio::test]
async fn modern_method_and_name_headers_are_checked() {
    let t = start().await;
    let call = || modern(1, "tools/call", json!({ "name": "echo", "arguments": {} }));
    expect_header_mismatch(t.addr, call().without("mcp-method"), Some(1), "Mcp-Method header is required")
        .await;
    expect_header_mismatch(t.addr, call().set("mcp-method", "tools/list"), Some(1), "Mcp-Method header")
        .await;
    expect_header_mismatch(t.addr, call().without("mcp-name"), Some(1), "Mcp-Name header is required").await;
    expect_header_mismatch(t.addr, call().set("mcp-name", "other"), Some(1), "does not match the body").await;
    // The base64 form of the right name is accepted.
    let ok = send(t.addr, call().set("mcp-name", "=?base64?ZWNobw==?=")).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().await, complete_text(1, "echo: "));
    // A method without a name needs no Mcp-Name.
    let list = send(t.addr, modern(2, "tools/list", json!({}))).await;
    assert_eq!(list.status, 200);
}

#[tokio::test]
async fn modern_param_headers_follow_x_mcp_header() {
    let t = start().await;
    let call = |region: &str| {
        modern(1, "tools/call", json!({ "name": "region", "arguments": { "region": region } }))
    };
    expect_header_mismatch(t.addr, call("eu-west-1"), Some(1), "Mcp-Param-Region header is required").await;
    expect_header_mismatch(
        t.addr,
        call("eu-west-1").header("mcp-param-region", "us-east-1"),
        Some(1),
        "Mcp-Param-Region header does not match",
    )
    .await;
    let ok = send(t.addr, call("eu-west-1").header("Mcp-Param-Region", "eu-west-1")).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().await, complete_text(1, "region: eu-west-1"));
    // A value that is not plain visible ASCII travels base64-encoded.
    let ok = send(t.addr, call("Zürich ").header("mcp-param-region", "=?base64?WsO8cmljaCA=?=")).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().await, complete_text(1, "region: Zürich "));
    expect_header_mismatch(
        t.addr,
        call("eu").header("mcp-param-region", "=?base64?not base64?="),
        Some(1),
        "malformed",
    )
    .await;
}

#[tokio::test]
async fn modern_missing_meta_gets_400_32602() {
    let t = start().await;
    let body = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {} });
    let req = Req::post(&body).header("mcp-protocol-version", V26).header("mcp-method", "tools/list");
    let response = send(t.addr, req).await;
    assert_eq!(response.status, 400);
    assert_eq!(
        response.json().await,
        json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32602,
            "message": "Invalid params: missing _meta member \"io.modelcontextprotocol/protocolVersion\"" } })
    );
}

#[tokio::test]
async fn modern_notifications_get_202_and_responses_or_batches_400() {
    let t = start().await;
    let headers = |req: Req| req.header("mcp-protocol-version", V26);
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 1 } });
    let response = send(t.addr, headers(Req::post(&note))).await;
    assert_eq!(response.status, 202);
    assert_eq!(response.bytes().await, b"");
    let invalid = transport_error(-32600, "Invalid request: the body must be one request or notification");
    let answer = json!({ "jsonrpc": "2.0", "id": 1, "result": {} });
    let response = send(t.addr, headers(Req::post(&answer))).await;
    assert_eq!(response.status, 400);
    assert_eq!(response.json().await, invalid);
    let batch =
        json!([{ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": envelope() } }]);
    let response = send(t.addr, headers(Req::post(&batch)).header("mcp-method", "tools/list")).await;
    assert_eq!(response.status, 400);
    assert_eq!(response.json().await, invalid);
}

#[tokio::test]
async fn an_enveloped_request_without_any_header_takes_the_2026_path() {
    let t = start().await;
    let req = modern(1, "tools/list", json!({})).without("mcp-protocol-version");
    expect_header_mismatch(t.addr, req, Some(1), "MCP-Protocol-Version header is required").await;
    assert_eq!(t.service.session_count(), 0);
}

#[tokio::test]
async fn modern_unsupported_version_gets_32022() {
    let t = start().await;
    let body = json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": { "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {} } } });
    let req =
        Req::post(&body).header("mcp-protocol-version", "2099-01-01").header("mcp-method", "tools/list");
    let response = send(t.addr, req).await;
    assert_eq!(response.status, 400);
    let body = response.json().await;
    assert_eq!(body["id"], 4);
    assert_eq!(body["error"]["code"], -32022);
    assert_eq!(body["error"]["data"], json!({ "supported": [V26], "requested": "2099-01-01" }));
}

#[tokio::test]
async fn modern_removed_methods_get_404_32601() {
    let t = start().await;
    for (id, method) in
        [(1, "ping"), (2, "initialize"), (3, "logging/setLevel"), (4, "resources/subscribe"), (5, "no/such")]
    {
        let params = if method == "logging/setLevel" { json!({ "level": "info" }) } else { json!({}) };
        let response = send(t.addr, modern(id, method, params)).await;
        assert_eq!(response.status, 404, "{method}");
        let body = response.json().await;
        assert_eq!(
            (body["id"].clone(), body["error"]["code"].clone()),
            (json!(id), json!(-32601)),
            "{method}: {body}"
        );
    }
}

#[tokio::test]
async fn modern_get_and_delete_get_405_allow_post() {
    let t = start().await;
    for method in ["GET", "DELETE"] {
        let req = Req::new(method).header("accept", "text/event-stream").header("mcp-protocol-version", V26);
        let response = send(t.addr, req).await;
        assert_eq!(response.status, 405, "{method}");
        assert_eq!(response.header("allow"), Some("POST"), "{method}");
        assert_eq!(response.json().await, transport_error(-32600, "Method not allowed"));
    }
}

#[tokio::test]
async fn closing_a_modern_response_cancels_the_handler() {
    // Before anything was sent (the answer is not committed yet).
    let t = start().await;
    // No response head comes yet: the server waits to choose JSON or SSE.
    let connection =
        raw_http::send_only(t.addr, modern(1, "tools/call", json!({ "name": "slow", "arguments": {} })))
            .await;
    wait_for("the slow tool to start", || t.probe.started.load(Ordering::SeqCst)).await;
    assert!(!t.probe.cancelled.load(Ordering::SeqCst));
    drop(connection);
    wait_for("the handler to be cancelled", || t.probe.cancelled.load(Ordering::SeqCst)).await;
}

#[tokio::test]
async fn closing_a_modern_sse_response_cancels_the_handler() {
    // After progress committed the answer to SSE.
    let t = start().await;
    let req = modern(
        1,
        "tools/call",
        json!({ "name": "slow_progress", "arguments": {}, "_meta": { "progressToken": 5 } }),
    );
    let mut response = send(t.addr, req).await;
    assert!(response.is_sse());
    assert_eq!(response.next_message().await["method"], "notifications/progress");
    wait_for("the tool to be past its progress", || t.probe.started.load(Ordering::SeqCst)).await;
    assert!(!t.probe.cancelled.load(Ordering::SeqCst));
    drop(response);
    wait_for("the handler to be cancelled", || t.probe.cancelled.load(Ordering::SeqCst)).await;
}

#[tokio::test]
async fn modern_listen_acknowledges_then_forwards_list_changed() {
    let t = start().await;
    let listen = modern(7, "subscriptions/listen", json!({ "notifications": { "toolsListChanged": true } }));
    let mut stream = send(t.addr, listen).await;
    assert_eq!((stream.status, stream.content_type()), (200, "text/event-stream"));
    let ack = stream.next_message().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true);
    let trigger = send(t.addr, modern(8, "tools/call", json!({ "name": "notify", "arguments": {} }))).await;
    assert_eq!(trigger.json().await, complete_text(8, "notified"));
    let changed = stream.next_message().await;
    assert_eq!(
        changed,
        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": 7 } } })
    );
}

// ---------------------------------------------------------------------------------------
// Security and request hygiene
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_foreign_host_gets_421() {
    let t = start().await;
    let response = send(t.addr, Req::post(&initialize_body(1, V25)).host("evil.example")).await;
    assert_eq!(response.status, 421);
    assert_eq!(response.json().await, transport_error(-32600, "Host not allowed"));
    let response = send(t.addr, Req::post(&initialize_body(1, V25)).host("evil.example:80")).await;
    assert_eq!(response.status, 421);
    assert_eq!(t.service.session_count(), 0);
}

#[tokio::test]
async fn a_foreign_origin_gets_403() {
    let t = start().await;
    let response =
        send(t.addr, Req::post(&initialize_body(1, V25)).header("origin", "http://evil.example")).await;
    assert_eq!(response.status, 403);
    assert_eq!(response.json().await, transport_error(-32600, "Origin not allowed"));
    let response =
        send(t.addr, modern(1, "tools/list", json!({})).header("origin", "https://localhost.evil.example"))
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
    let modern_json_only = modern(1, "tools/list", json!({})).set("accept", "application/json");
    assert_eq!(send(t.addr, modern_json_only).await.status, 406);
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

#[tokio::test]
async fn an_unknown_path_gets_404() {
    let t = start().await;
    let mut req = Req::post(&initialize_body(1, V25));
    req.path = "/other".into();
    let response = send(t.addr, req).await;
    assert_eq!(response.status, 404);
    assert_eq!(response.json().await, transport_error(-32600, "Not found"));
}

/// Sanity check of the raw client: a response read as events ends cleanly.
#[tokio::test]
async fn raw_client_reads_a_closed_stream_as_end() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    let mut response = post(t.addr, &sid, &json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" })).await;
    let _priming = response.next_event().await;
    assert_eq!(response.next_message().await, json!({ "jsonrpc": "2.0", "id": 2, "result": {} }));
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
    let listen = modern(7, "subscriptions/listen", json!({ "notifications": { "toolsListChanged": true } }));
    let mut subscription = send(t.addr, listen).await;
    assert_eq!(subscription.next_message().await["method"], "notifications/subscriptions/acknowledged");
    let slow = modern(
        8,
        "tools/call",
        json!({ "name": "slow_progress", "arguments": {}, "_meta": { "progressToken": 1 } }),
    );
    let mut modern_call = send(t.addr, slow).await;
    assert_eq!(modern_call.next_message().await["method"], "notifications/progress");

    let started = Instant::now();
    let Bound { shutdown, task, .. } = &t.bound;
    shutdown.cancel();
    let limit = Duration::from_secs(2);
    expect_session_end(&mut get, &mut call, 2, limit).await;
    let ended = subscription.expect_end_within(limit).await;
    assert_eq!(
        ended.iter().map(|e| e.json()).collect::<Vec<_>>(),
        vec![json!({ "jsonrpc": "2.0", "id": 7,
            "result": { "resultType": "complete", "_meta": { "io.modelcontextprotocol/subscriptionId": 7 } } })],
        "a listen stream ends with its final result"
    );
    assert!(modern_call.expect_end_within(limit).await.is_empty(), "a 2026 call's stream is closed");
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

// ---------------------------------------------------------------------------------------
// 2025 without sessions (`stateless_2025`), and leaks
// ---------------------------------------------------------------------------------------

fn stateless() -> HttpSettings {
    HttpSettings { stateless_2025: true, ..Default::default() }
}

/// The runtime's live tasks once they settle (the test's own tasks included).
async fn settled_tasks() -> usize {
    let metrics = tokio::runtime::Handle::current().metrics();
    let mut last = metrics.num_alive_tasks();
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let now = metrics.num_alive_tasks();
        if now == last {
            return now;
        }
        last = now;
    }
    last
}

async fn tasks_back_to(baseline: usize) {
    let metrics = tokio::runtime::Handle::current().metrics();
    let deadline = Instant::now() + Duration::from_secs(5);
    while metrics.num_alive_tasks() > baseline {
        assert!(
            Instant::now() < deadline,
            "{} tasks still alive, {baseline} before: something leaked",
            metrics.num_alive_tasks()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn stateless_2025_serves_posts_without_a_session() {
    let t = start_with(stateless()).await;
    let mut init = send(t.addr, Req::post(&initialize_body(1, V25))).await;
    assert_eq!((init.status, init.header("mcp-session-id")), (200, None));
    assert_eq!(init.next_message().await["result"]["protocolVersion"], V25);
    // No session id needed (and none kept): every POST stands alone.
    let req =
        Req::post(&call_body(2, "echo", json!({ "text": "alone" }))).header("mcp-protocol-version", V25);
    let mut call = send(t.addr, req).await;
    assert_eq!((call.status, call.content_type()), (200, "text/event-stream"));
    let events = call.events_to_end().await;
    assert_eq!(events.len(), 1, "no priming event: nothing can be resumed: {events:?}");
    assert_eq!((events[0].id.clone(), events[0].json()), (None, text_result(2, "echo: alone")));
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    assert_eq!(send(t.addr, Req::post(&note).header("mcp-protocol-version", V25)).await.status, 202);
    assert_eq!(t.service.session_count(), 0);
    // Without a header the request runs at 2025-03-26, where batches are accepted.
    let batch = json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }, call_body(2, "echo", json!({ "text": "b" }))]);
    let mut answers: Vec<Value> =
        send(t.addr, Req::post(&batch)).await.events_to_end().await.iter().map(|e| e.json()).collect();
    answers.sort_by_key(|a| a["id"].as_i64());
    assert_eq!(answers, vec![json!({ "jsonrpc": "2.0", "id": 1, "result": {} }), text_result(2, "echo: b")]);
    let response = send(t.addr, Req::post(&batch).header("mcp-protocol-version", V25)).await;
    assert_eq!(response.status, 400);
}

#[tokio::test]
async fn stateless_2025_json_mode_and_no_client_capabilities() {
    let t =
        start_with(HttpSettings { stateless_2025: true, json_response: true, ..Default::default() }).await;
    let req = |body: &Value| Req::post(body).header("mcp-protocol-version", V25);
    let response = send(t.addr, req(&call_body(2, "echo", json!({ "text": "j" })))).await;
    assert_eq!((response.status, response.content_type()), (200, "application/json"));
    assert_eq!(response.json().await, text_result(2, "echo: j"));
    // The throwaway session knows no client capabilities: asking the client fails at once.
    let started = Instant::now();
    let answer = send(t.addr, req(&call_body(3, "ask", json!({})))).await.json().await;
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        answer,
        json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32021, "message": "Missing required client capability",
            "data": { "requiredCapabilities": { "elicitation": { "form": {} } } } } })
    );
}

#[tokio::test]
async fn stateless_2025_get_and_delete_get_405() {
    let t = start_with(stateless()).await;
    for method in ["GET", "DELETE"] {
        let req = Req::new(method).header("accept", "text/event-stream").header("mcp-protocol-version", V25);
        let response = send(t.addr, req).await;
        assert_eq!(response.status, 405, "{method}");
        assert_eq!(response.header("allow"), Some("POST"), "{method}");
    }
}

#[tokio::test]
async fn stateless_2025_closing_the_response_cancels_and_nothing_leaks() {
    let t = start_with(stateless()).await;
    let req = |body: &Value| Req::post(body).header("mcp-protocol-version", V25);
    send(t.addr, req(&call_body(1, "echo", json!({})))).await.events_to_end().await;
    let baseline = settled_tasks().await;
    for id in 2..22 {
        let mut call = send(t.addr, req(&call_body(id, "echo", json!({ "text": "x" })))).await;
        assert_eq!(call.next_message().await["id"], id);
    }
    tasks_back_to(baseline).await;
    let call = send(t.addr, req(&call_body(30, "slow", json!({})))).await;
    wait_for("the slow tool to start", || t.probe.started.load(Ordering::SeqCst)).await;
    drop(call);
    wait_for("the handler to be cancelled", || t.probe.cancelled.load(Ordering::SeqCst)).await;
    tasks_back_to(baseline).await;
}

#[tokio::test]
async fn deleted_and_modern_requests_leave_no_task_behind() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    send(t.addr, in_session(Req::new("DELETE"), &sid, V25)).await.bytes().await;
    let modern_call = || modern(1, "tools/call", json!({ "name": "echo", "arguments": {} }));
    send(t.addr, modern_call()).await.json().await;
    let baseline = settled_tasks().await;
    for _ in 0..10 {
        let sid = open_session(t.addr, V25).await;
        let mut call = post(t.addr, &sid, &call_body(2, "echo", json!({}))).await;
        call.events_to_end().await;
        send(t.addr, in_session(Req::new("DELETE"), &sid, V25)).await.bytes().await;
        send(t.addr, modern_call()).await.json().await;
    }
    tasks_back_to(baseline).await;
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

/// An event store that refuses every event (a remote store that is down).
struct RefusingStore;

impl mcpwire::http::EventStore for RefusingStore {
    fn store(&self, _: &str, _: bytes::Bytes) -> Option<String> {
        None
    }
    fn replay_after(&self, _: &str) -> Option<mcpwire::http::event_store::Replay> {
        None
    }
    fn forget(&self, _: &str) {}
}

/// With `store`, a session still answers every request (events without ids, no priming
/// event), refuses resumption with 404, and ends cleanly.
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
    assert_eq!(get_stream(t.addr, &sid, Some(&format!("{sid}-1#0"))).await.status, 404);
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
