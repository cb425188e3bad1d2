//! The Streamable HTTP server under test, shared by the files that test it over real
//! loopback sockets: `http_server.rs` (the 2025-era session transport),
//! `http_server_sessionless.rs` (2025 requests without sessions), `http_server_2026.rs`
//! (the 2026-07-28 stateless transport) and `http_server_hygiene.rs` (security and
//! request hygiene). The test tools and what they report, a running endpoint, and the
//! request builders of both eras.

// Each test file uses part of this module, and takes all of it with one `use`.
#![allow(dead_code, unused_imports)]

pub use std::net::SocketAddr;
pub use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
pub use std::sync::Arc;
pub use std::time::{Duration, Instant};

pub use mcpwire::http::{serve_with_shutdown, Bound, HttpSettings, McpService, MemoryEventStore};
pub use mcpwire::jsonrpc::RequestContext;
pub use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams};
pub use mcpwire::protocol::logging::LoggingLevel;
pub use mcpwire::protocol::Request;
pub use mcpwire::server::{middleware_fn, tool, Args, Ctx, Json, Next as MiddlewareNext, Server};
pub use mcpwire::McpError;
pub use serde_json::{json, Value};

pub use crate::mcp_http::*;
pub use crate::raw_http::{send, Next, Req, Response};

// ---------------------------------------------------------------------------------------
// The server under test
// ---------------------------------------------------------------------------------------

/// What the test tools report back to the tests.
#[derive(Default)]
pub struct Probe {
    /// A slow tool's handler was cancelled (its token fired or its future was dropped).
    pub cancelled: AtomicBool,
    /// A slow tool's handler started.
    pub started: AtomicBool,
    /// Log messages the flood tool has sent so far.
    pub flooded: AtomicUsize,
    /// The flood tool returned.
    pub flood_done: AtomicBool,
    /// Lets the `reconnect_wait` tool return.
    pub release: tokio::sync::Notify,
}

/// Sets `cancelled` when dropped before `finish` (a dropped handler future counts).
pub struct CancelGuard(Arc<Probe>, bool);

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

/// Waits until the request is cancelled (recorded in `probe`) or 30 s pass.
async fn until_cancelled(ctx: &Ctx, probe: &Probe) -> &'static str {
    tokio::select! {
        _ = ctx.cancellation().cancelled() => {
            probe.cancelled.store(true, Ordering::SeqCst);
            "cancelled"
        }
        _ = tokio::time::sleep(Duration::from_secs(30)) => "slept",
    }
}

pub fn form(message: &str) -> ElicitRequestParams {
    ElicitRequestParams::Form(ElicitRequestFormParams {
        message: message.into(),
        requested_schema: serde_json::from_value(
            json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] }),
        )
        .unwrap(),
        ..Default::default()
    })
}

pub fn test_server(probe: Arc<Probe>) -> Server {
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
                let out = until_cancelled(&ctx, &probe).await;
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
                    let out = until_cancelled(&ctx, &probe).await;
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
        .tool(tool("meta").description("Shows _meta and the envelope").handler(|ctx: Ctx| async move {
            let meta = ctx.meta().cloned().map(Value::Object).unwrap_or(Value::Null);
            let client = ctx.client_info().map(|i| i.name.clone());
            let elicits = ctx.client_capabilities().elicitation.is_some();
            Json(json!({ "meta": meta, "client": client, "elicits": elicits }))
        }))
        .tool(
            tool("region")
                .description("Takes x-mcp-header arguments, one of them nested")
                .input_schema(json!({
                    "type": "object",
                    "properties": {
                        "region": { "type": "string", "x-mcp-header": "Region" },
                        "place": { "type": "object", "properties": {
                            "zone": { "type": "string", "x-mcp-header": "Zone" }
                        } }
                    },
                    "required": ["region"]
                }))
                .handler(|Args(a): Args<Value>| async move {
                    match a["place"]["zone"].as_str() {
                        Some(zone) => format!("region: {}, zone: {zone}", a["region"].as_str().unwrap_or("")),
                        None => format!("region: {}", a["region"].as_str().unwrap_or("")),
                    }
                }),
        )
        .build()
        .unwrap()
}

/// A running endpoint at `/mcp`; shut down on drop.
pub struct TestServer {
    pub addr: SocketAddr,
    pub bound: Bound,
    pub service: McpService,
    pub probe: Arc<Probe>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.bound.shutdown.cancel();
    }
}

pub async fn start_with(settings: HttpSettings) -> TestServer {
    let probe = Arc::new(Probe::default());
    let service = McpService::with_settings(test_server(probe.clone()), settings);
    let bound = serve_with_shutdown(service.clone(), "127.0.0.1:0", "/mcp").await.unwrap();
    TestServer { addr: bound.local_addr, bound, service, probe }
}

pub async fn start() -> TestServer {
    start_with(HttpSettings::default()).await
}

/// The JSON-RPC error body the endpoint writes for transport-level failures. It has no
/// `id` member: since 2025-11-25 the schema makes `id` optional on error responses and
/// does not allow `null`.
pub fn transport_error(code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "error": { "code": code, "message": message } })
}

pub fn text_result(id: i64, text: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": text }] } })
}

// ---------------------------------------------------------------------------------------
// 2025-era helpers
// ---------------------------------------------------------------------------------------

/// The session ended under an open call: within `limit` the GET stream ends with no
/// event, and the call's stream ends with exactly one: `id`'s "Connection closed".
pub async fn expect_session_end(get: &mut Response, call: &mut Response, id: i64, limit: Duration) {
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
// 2026-era helpers
// ---------------------------------------------------------------------------------------

/// A 2026 text result (every 2026 result names the server in `_meta`).
pub fn complete_text(id: i64, text: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": {
        "content": [{ "type": "text", "text": text }],
        "resultType": "complete",
        "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "http-test-server", "version": "0.1.0" } }
    } })
}

// ---------------------------------------------------------------------------------------
// Task leaks
// ---------------------------------------------------------------------------------------

/// The runtime's live tasks once they settle (the test's own tasks included).
pub async fn settled_tasks() -> usize {
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

/// Waits (up to 5 s) until the runtime's live tasks are back to `baseline`; fails the
/// test if they are not.
pub async fn tasks_back_to(baseline: usize) {
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

/// An event store that refuses every event (a remote store that is down): no event gets
/// an id, so no stream can be resumed.
pub struct RefusingStore;

impl mcpwire::http::EventStore for RefusingStore {
    fn store(&self, _: &str, _: bytes::Bytes) -> Option<String> {
        None
    }
    fn replay_after(&self, _: &str) -> Option<mcpwire::http::event_store::Replay> {
        None
    }
    fn forget(&self, _: &str) {}
}
