//! A 2025-era call that times out or is cancelled must not leave its exchange reading the
//! server's SSE response forever: a raw hyper server answers `tools/call` with a stream
//! that never ends, and must see the client close it once the caller gave up.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_http;
mod raw_http;

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_http::wait_for;
use mcpwire::client::{Client, ClientOptions, RequestOptions};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;
use mcpwire::{CancellationToken, RequestError};
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// What the server saw.
#[derive(Default)]
struct Seen {
    /// Endless SSE responses opened.
    streams_opened: AtomicUsize,
    /// Endless SSE responses whose body was dropped (the connection closed).
    streams_closed: AtomicUsize,
    /// `notifications/cancelled` received.
    cancels: AtomicUsize,
    /// Whether `notifications/initialized` gets an endless SSE response, not `202`.
    hold_initialized: std::sync::atomic::AtomicBool,
    /// Whether `tools/list` is answered under another id.
    misanswer_list: std::sync::atomic::AtomicBool,
    /// Whether `initialize` names a session id with a space in it.
    bad_session_id: std::sync::atomic::AtomicBool,
}

/// Counts a stream as closed when hyper drops its body.
struct CloseGuard(Arc<Seen>);

impl Drop for CloseGuard {
    fn drop(&mut self) {
        self.0.streams_closed.fetch_add(1, Ordering::SeqCst);
    }
}

type Body = BoxBody<Bytes, Infallible>;

fn full(status: StatusCode, content_type: &str, body: Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", content_type)
        .header("mcp-session-id", "s-1")
        .body(Full::new(Bytes::from(body.to_string())).boxed())
        .unwrap()
}

fn empty(status: StatusCode) -> Response<Body> {
    Response::builder().status(status).body(Full::new(Bytes::new()).boxed()).unwrap()
}

/// A priming event, then a keep-alive comment every 20 ms, forever.
fn endless_sse(seen: Arc<Seen>) -> Response<Body> {
    seen.streams_opened.fetch_add(1, Ordering::SeqCst);
    let guard = CloseGuard(seen);
    let frames = futures_util::stream::unfold((guard, 0u64), |(guard, n)| async move {
        if n > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let text: &'static [u8] = if n == 0 { b"id: e1\ndata: \n\n" } else { b": still here\n\n" };
        Some((Ok::<_, Infallible>(Frame::data(Bytes::from_static(text))), (guard, n + 1)))
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(StreamBody::new(frames).boxed())
        .unwrap()
}

async fn handle(seen: Arc<Seen>, request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    if request.method() != Method::POST {
        // No standalone GET stream; DELETE is fine.
        return Ok(empty(if request.method() == Method::GET {
            StatusCode::METHOD_NOT_ALLOWED
        } else {
            StatusCode::OK
        }));
    }
    let body = request.into_body().collect().await.map(|c| c.to_bytes()).unwrap_or_default();
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = message.get("id").cloned();
    Ok(match (message["method"].as_str().unwrap_or(""), id) {
        ("initialize", Some(id)) => {
            let mut response = full(
                StatusCode::OK,
                "application/json",
                json!({ "jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": { "tools": {} },
                    "serverInfo": { "name": "endless", "version": "0" }
                } }),
            );
            if seen.bad_session_id.load(Ordering::SeqCst) {
                response
                    .headers_mut()
                    .insert("mcp-session-id", hyper::header::HeaderValue::from_static("s 1"));
            }
            response
        }
        ("tools/call", Some(_)) => endless_sse(seen),
        ("tools/list", Some(_)) if seen.misanswer_list.load(Ordering::SeqCst) => full(
            StatusCode::OK,
            "application/json",
            json!({ "jsonrpc": "2.0", "id": 999_999, "result": { "tools": [] } }),
        ),
        ("notifications/initialized", None) if seen.hold_initialized.load(Ordering::SeqCst) => {
            endless_sse(seen)
        }
        ("notifications/cancelled", None) => {
            seen.cancels.fetch_add(1, Ordering::SeqCst);
            empty(StatusCode::ACCEPTED)
        }
        (_, None) => empty(StatusCode::ACCEPTED),
        (_, Some(id)) => full(
            StatusCode::OK,
            "application/json",
            json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "no" } }),
        ),
    })
}

async fn endless_server() -> (String, Arc<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(Seen::default());
    let server_seen = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let seen = server_seen.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |r| handle(seen.clone(), r));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (url, seen)
}

async fn client(url: &str, timeout: Duration) -> Client {
    Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse("2025-11-25"))
        .options(ClientOptions { request_timeout: timeout, ..Default::default() })
        .connect(HttpClientTransport::new(url).unwrap())
        .await
        .unwrap()
}

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current().metrics().num_alive_tasks()
}

#[tokio::test]
async fn a_2025_call_that_times_out_closes_its_endless_stream() {
    let (url, seen) = endless_server().await;
    // The handshake keeps a long timeout; the call's own is short, but long enough for
    // its stream to open on a busy machine.
    let client = client(&url, Duration::from_secs(10)).await;
    // Settle the handshake's connections and tasks before counting.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let baseline = alive_tasks();
    let short = RequestOptions::default().timeout(Duration::from_secs(1));
    let error = client.call_tool_with("x", json!({}), short).await.unwrap_err();
    assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
    assert_eq!(seen.streams_opened.load(Ordering::SeqCst), 1);
    wait_for("the server to see the stream closed", || seen.streams_closed.load(Ordering::SeqCst) == 1).await;
    // A disconnect is no cancel in 2025: the notification was sent as well.
    wait_for("notifications/cancelled", || seen.cancels.load(Ordering::SeqCst) == 1).await;
    // The exchange task and the connection's tasks (both sides) are gone.
    wait_for("the tasks to end", || alive_tasks() <= baseline).await;
    client.close().await;
}

#[tokio::test]
async fn a_cancelled_2025_call_closes_its_endless_stream_and_close_stops_the_rest() {
    let (url, seen) = endless_server().await;
    let client = client(&url, Duration::from_secs(60)).await;
    let cancel = CancellationToken::new();
    let call = {
        let client = client.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            client.call_tool_with("x", json!({}), RequestOptions::default().cancel_on(cancel)).await
        })
    };
    wait_for("the stream to open", || seen.streams_opened.load(Ordering::SeqCst) == 1).await;
    cancel.cancel();
    let error = call.await.unwrap().unwrap_err();
    assert!(matches!(error, RequestError::Cancelled { .. }), "{error:?}");
    wait_for("the server to see the stream closed", || seen.streams_closed.load(Ordering::SeqCst) == 1).await;
    // A call in flight when the client closes: its stream is closed too.
    let call = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("x", json!({})).await })
    };
    wait_for("the second stream to open", || seen.streams_opened.load(Ordering::SeqCst) == 2).await;
    client.close().await;
    let _ = call.await.unwrap();
    wait_for("the server to see the second stream closed", || {
        seen.streams_closed.load(Ordering::SeqCst) == 2
    })
    .await;
}

/// A server that never acknowledges `notifications/initialized` (its POST gets an SSE
/// response that never ends) holds up the requests sent after it only for a moment: they
/// reach the server and get its answer, rather than waiting out their timeout unsent.
#[tokio::test]
async fn an_unacknowledged_notification_holds_up_later_requests_only_for_a_moment() {
    let (url, seen) = endless_server().await;
    seen.hold_initialized.store(true, Ordering::SeqCst);
    let client = client(&url, Duration::from_secs(30)).await;
    let started = std::time::Instant::now();
    match client.list_tools(None).await {
        Err(RequestError::Peer(e)) => assert_eq!(e.code, -32601, "the server's own answer"),
        other => panic!("expected the server's answer, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
    client.close().await;
}

/// A JSON answer under another id is the only answer its POST gets: the request fails at
/// once with a clear reason, rather than waiting out its timeout.
#[tokio::test]
async fn a_json_answer_under_another_id_fails_the_request_at_once() {
    let (url, seen) = endless_server().await;
    seen.misanswer_list.store(true, Ordering::SeqCst);
    let client = client(&url, Duration::from_secs(30)).await;
    let started = std::time::Instant::now();
    match client.list_tools(None).await {
        Err(RequestError::Transport { reason }) => {
            assert!(reason.contains("did not carry this request's id"), "{reason}")
        }
        other => panic!("expected a local failure, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
    client.close().await;
}

/// A session id that is not visible ASCII (here a space) fails the handshake with a clear
/// reason, rather than being dropped so that the client runs on without a session.
#[tokio::test]
async fn a_session_id_that_is_not_visible_ascii_fails_the_handshake() {
    let (url, seen) = endless_server().await;
    seen.bad_session_id.store(true, Ordering::SeqCst);
    let connected = Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse("2025-11-25"))
        .connect(HttpClientTransport::new(&url).unwrap())
        .await;
    let Err(error) = connected else { panic!("the handshake should fail") };
    let error = error.to_string();
    assert!(error.contains("Mcp-Session-Id is not 1 to 4096 visible ASCII characters"), "{error}");
}
