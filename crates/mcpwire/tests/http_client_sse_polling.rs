//! A 2025-11-25 server that polls (SEP-1699): it ends an SSE connection after each event,
//! with a `retry` delay, and keeps the stream. The HTTP client waits the whole delay
//! before it reconnects, and follows such a stream for as long as it goes on, however
//! many connections that takes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod raw_http_server;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpwire::client::{Client, RequestOptions};
use mcpwire::http::{serve_with_shutdown, HttpSettings, McpService};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{tool, Ctx, Server};
use mcpwire::transport::http_client::HttpClientTransport;

/// How many connections the polling tool's answer takes.
const CONNECTIONS: u32 = 8;

fn polling_server() -> Server {
    Server::builder("polling", "1")
        .tool(tool("poll").description("Ends its SSE connection after each progress report").handler(
            |ctx: Ctx| async move {
                for step in 1..CONNECTIONS {
                    ctx.progress(f64::from(step), Some(f64::from(CONNECTIONS)), None).await;
                    ctx.close_sse_stream();
                    tokio::time::sleep(Duration::from_millis(60)).await;
                }
                "polled to the end"
            },
        ))
        .tool(tool("once").description("Ends its SSE connection once").handler(|ctx: Ctx| async move {
            ctx.close_sse_stream();
            tokio::time::sleep(Duration::from_millis(50)).await;
            "resumed"
        }))
        .build()
        .unwrap()
}

/// A client pinned to 2025-11-25 over HTTP to the polling server, whose SSE events say
/// `retry: retry_ms`; and the server's shutdown.
async fn connect(retry_ms: u64) -> (Client, tokio_util::sync::CancellationToken) {
    let settings = HttpSettings { sse_retry_ms: retry_ms, ..HttpSettings::default() };
    let service = McpService::with_settings(polling_server(), settings);
    let bound = serve_with_shutdown(service, "127.0.0.1:0", "/mcp").await.unwrap();
    let url = format!("http://{}/mcp", bound.local_addr);
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2025_11_25)
        .connect(HttpClientTransport::new(&url).unwrap())
        .await
        .unwrap();
    (client, bound.shutdown.clone())
}

/// Rule 4.1.9: a request's stream the server keeps while it ends each connection is
/// resumed every time it makes progress; only resumes that bring nothing are limited.
#[tokio::test]
async fn a_polled_response_stream_is_followed_to_its_answer() {
    let (client, shutdown) = connect(10).await;
    let progress = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = progress.clone();
    let options = RequestOptions::default().on_progress(move |p| seen.lock().unwrap().push(p.progress));
    let result = client.call_tool_with("poll", serde_json::json!({}), options).await;
    let result = result.expect("the polled call failed");
    assert_eq!(result.content.len(), 1, "{result:?}");
    assert_eq!(progress.lock().unwrap().len(), CONNECTIONS as usize - 1, "every progress report arrived");
    client.close().await;
    shutdown.cancel();
}

/// Rule 4.1.9: the client waits the server's whole `retry` delay before it reconnects
/// (the spec's MUST), a long one too; the call's own timeout bounds the wait.
#[tokio::test]
async fn a_long_retry_delay_is_waited_in_full() {
    const RETRY: Duration = Duration::from_secs(31);
    let (client, shutdown) = connect(RETRY.as_millis() as u64).await;
    let started = std::time::Instant::now();
    let result = client.call_tool("once", serde_json::json!({})).await.expect("the resumed call failed");
    let waited = started.elapsed();
    assert_eq!(result.content.len(), 1, "{result:?}");
    assert!(waited >= RETRY, "reconnected after {waited:?}, before the server's retry of {RETRY:?}");
    client.close().await;
    shutdown.cancel();
}

/// A raw 2025-11-25 server whose standalone GET stream polls: each GET gets one
/// `tools/list_changed` event with a new id and the `retry` that `event` writes, then the
/// connection ends.
async fn polling_get_server(event: fn(usize) -> Option<String>) -> String {
    raw_http_server::serve(raw_http_server::Script {
        version: "2025-11-25",
        get: event,
        request: |_| String::new(),
    })
    .await
}

/// The `n`th GET's event, with `retry: RETRY` (milliseconds).
fn change_event<const RETRY: u64>(n: usize) -> Option<String> {
    let note = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    Some(format!("id: g{n}\nretry: {RETRY}\ndata: {note}\n\n"))
}

/// A 2025-11-25 client of `url` and the count of change notifications it has been told.
async fn counting_client(url: &str) -> (Client, Arc<AtomicUsize>) {
    let changes = Arc::new(AtomicUsize::new(0));
    let seen = changes.clone();
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2025_11_25)
        .on_change(move |_| {
            seen.fetch_add(1, Ordering::SeqCst);
        })
        .connect(HttpClientTransport::new(url).unwrap())
        .await
        .unwrap();
    (client, changes)
}

/// Rule 4.1.9 on the standalone GET stream: a server that ends each of its connections
/// after an event keeps reaching the client, round after round.
#[tokio::test]
async fn a_polled_get_stream_keeps_being_resumed() {
    let url = polling_get_server(change_event::<10>).await;
    let (client, changes) = counting_client(&url).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while changes.load(Ordering::SeqCst) < 8 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let seen = changes.load(Ordering::SeqCst);
    assert!(seen >= 8, "the GET stream was given up after {seen} rounds");
    client.close().await;
}

/// A server that asks for no delay at all (`retry: 0`) after every event is still
/// followed, but not in a busy loop: the client keeps a floor between reconnections.
#[tokio::test]
async fn a_retry_of_zero_does_not_make_the_get_stream_spin() {
    let url = polling_get_server(change_event::<0>).await;
    let (client, changes) = counting_client(&url).await;
    const WINDOW: Duration = Duration::from_secs(1);
    let start = changes.load(Ordering::SeqCst);
    tokio::time::sleep(WINDOW).await;
    let rounds = changes.load(Ordering::SeqCst) - start;
    client.close().await;
    assert!(rounds >= 3, "the GET stream was given up after {rounds} rounds");
    // A floor of tens of milliseconds allows a few dozen rounds a second; a busy loop
    // makes hundreds or thousands.
    assert!(rounds <= 100, "{rounds} reconnections in {WINDOW:?}: the client spins on retry: 0");
}
