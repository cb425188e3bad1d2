//! The HTTP client against hostile servers, on real sockets: a raw TCP listener that
//! answers with garbage, a huge body, an unknown id, silence, an endless or dripping
//! stream; a 2026 call that never returns; the server process killed and restarted under
//! a 2025 client; a 2026 listen stream that breaks and is sent again. The tests assert
//! what the client's calls return: a clear error or a timeout, never a hang.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;
mod hostile_http_support;
mod mcp_http;
mod raw_http;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fixture::ChildServer;
use hostile_http_support::{fake_http_server, local, wait_for};
use mcpwire::client::{Client, ClientOptions};
use mcpwire::http::HttpSettings;
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;
use mcpwire::RequestError;
use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

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
    /// Starts an SSE response and closes the connection without the answer.
    BreakStream,
    /// Answers on an SSE stream with an event that is not JSON (a `NaN`), then ends it.
    BrokenAnswerEvent,
    /// Answers on an SSE stream with one event, the data its function makes of the
    /// request's id, then ends it.
    AnswerEvent(fn(&Value) -> String),
}

async fn fake_server(mode: Misbehave) -> String {
    fake_server_seeing(mode).await.0
}

/// [`fake_server`], and the ids of the requests it read, in order.
async fn fake_server_seeing(mode: Misbehave) -> (String, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let ids = seen.clone();
    let url = fake_http_server(move |request, stream| {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        ids.lock().unwrap().push(id.clone());
        misbehave(mode, id, stream)
    })
    .await;
    (url, seen)
}

/// Answers the request `id` as `mode` says; gives back the connection to read on, or
/// `None` to close it.
async fn misbehave(
    mode: Misbehave,
    id: Value,
    mut stream: BufReader<TcpStream>,
) -> Option<BufReader<TcpStream>> {
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
            let body = serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 987654, "result": {} })).unwrap();
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
                    return None;
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
                    return None;
                }
                let _ = s.flush().await;
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            // ...and never ends the stream.
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Misbehave::BrokenAnswerEvent | Misbehave::AnswerEvent(_) => {
            let data = match mode {
                Misbehave::AnswerEvent(data) => data(&id),
                _ => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"x":NaN}}}}"#),
            };
            let event = format!("event: message\ndata: {data}\n\n");
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n",
                event.len()
            );
            let _ = s.write_all(format!("{head}{event}").as_bytes()).await;
        }
        Misbehave::BreakStream => {
            let _ = s.write_all(sse_head.as_bytes()).await;
            let _ = s.write_all(b": working\n\n").await;
            return None;
        }
    }
    Some(stream)
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
async fn the_client_times_out_silence_and_endless_streams() {
    for mode in [Misbehave::Silent, Misbehave::EndlessStream] {
        let url = fake_server(mode).await;
        let client = stateless_client(&url, 300).await;
        let started = Instant::now();
        let error = client.call_tool("x", json!({})).await.unwrap_err();
        assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    }
}

/// An HTTP server that takes the connection but never answers: the probe's timeout (no
/// answer at all, where a 2025-era server would have refused `server/discover` at once)
/// means the server is unresponsive, so `connect` fails then, without a second full wait
/// for an `initialize` that would meet the same silence.
#[tokio::test]
async fn connecting_to_a_silent_http_server_waits_one_timeout_not_two() {
    let (url, seen) = fake_server_seeing(Misbehave::Silent).await;
    let started = Instant::now();
    let error = Client::builder("t", "0")
        .options(options(1000))
        .connect(HttpClientTransport::new(&url).unwrap())
        .await
        .unwrap_err();
    let elapsed = started.elapsed();
    assert!(
        matches!(&error, mcpwire::client::ConnectError::Handshake(RequestError::Timeout { .. })),
        "{error:?}"
    );
    let requests: Vec<Value> = seen.lock().unwrap().iter().filter(|id| !id.is_null()).cloned().collect();
    assert_eq!(requests.len(), 1, "only the probe is sent, no initialize after it: {requests:?}");
    assert!(elapsed < Duration::from_millis(1900), "{elapsed:?}");
}

/// A JSON answer under an id the client never sent is all the answer that POST gets: the
/// call fails at once, saying so, rather than at its timeout.
#[tokio::test]
async fn a_json_answer_under_an_unknown_id_fails_the_call_at_once() {
    let url = fake_server(Misbehave::UnknownId).await;
    let client = stateless_client(&url, 10_000).await;
    let started = Instant::now();
    let error = client.call_tool("x", json!({})).await.unwrap_err();
    assert!(is_transport_failure(&error, "the server's answer did not carry this request's id"), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

/// 2026: a response stream that breaks before the answer loses the request, which is sent
/// again under a new id, twice at most and each time after a longer wait (100 ms, then
/// 200: a tool that may not be idempotent is not rerun in a tight loop); then the call
/// fails with the reason.
#[tokio::test]
async fn a_2026_request_whose_stream_keeps_breaking_is_reissued_twice_then_fails() {
    let (url, seen) = fake_server_seeing(Misbehave::BreakStream).await;
    let client = stateless_client(&url, 10_000).await;
    let started = Instant::now();
    let error = client.call_tool("x", json!({})).await.unwrap_err();
    assert!(is_transport_failure(&error, "the response stream ended before the answer arrived"), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert!(started.elapsed() >= Duration::from_millis(300), "no backoff: {:?}", started.elapsed());
    let ids = seen.lock().unwrap().clone();
    let call = &ids[ids.len() - 3];
    let base = call.as_i64().map(|n| n.to_string()).unwrap_or_else(|| call.as_str().unwrap().to_owned());
    assert_eq!(
        ids[ids.len() - 3..],
        [call.clone(), json!(format!("{base}-reissued-1")), json!(format!("{base}-reissued-2"))],
        "{ids:?}"
    );
}

/// 2026: an answer that came on the response stream but is not JSON is the request's
/// answer all the same: the call fails at once with the reason, and the request is not
/// sent again as if its stream had been lost (a tool that is not idempotent would run
/// three times, and the error would say that no answer came).
#[tokio::test]
async fn a_2026_answer_event_that_is_not_json_fails_the_call_without_a_reissue() {
    let (url, seen) = fake_server_seeing(Misbehave::BrokenAnswerEvent).await;
    let client = stateless_client(&url, 10_000).await;
    let error = client.call_tool("x", json!({})).await.unwrap_err();
    assert!(is_transport_failure(&error, "the server's answer is not JSON-RPC: Parse error"), "{error:?}");
    let ids = seen.lock().unwrap().clone();
    assert_eq!(ids.len(), 1, "{ids:?}");
}

/// 2026: an answer on the response stream whose id is of no type an id can have (an
/// object, an array, a boolean, a fraction) answers that request all the same, the only
/// one the stream is for: the call fails at once saying why, without a reissue. An id
/// that is the request's number written with a fraction of zero (`7.0`, the same JSON
/// number) is its answer.
#[tokio::test]
async fn a_2026_answer_event_with_an_id_of_the_wrong_type_fails_the_call_without_a_reissue() {
    let wrong: [fn(&Value) -> String; 4] = [
        |_| r#"{"jsonrpc":"2.0","id":{},"result":{}}"#.into(),
        |id| format!(r#"{{"jsonrpc":"2.0","id":[{id}],"result":{{}}}}"#),
        |_| r#"{"jsonrpc":"2.0","id":true,"error":{"code":-32603,"message":"no"}}"#.into(),
        |id| format!(r#"{{"jsonrpc":"2.0","id":{id}.5,"result":{{}}}}"#),
    ];
    for data in wrong {
        let (url, seen) = fake_server_seeing(Misbehave::AnswerEvent(data)).await;
        let client = stateless_client(&url, 10_000).await;
        let error = client.call_tool("x", json!({})).await.unwrap_err();
        assert!(
            is_transport_failure(&error, "the server's answer is not JSON-RPC: Invalid request: id must be"),
            "{error:?}"
        );
        let ids = seen.lock().unwrap().clone();
        assert_eq!(ids.len(), 1, "{ids:?}");
    }
    let (url, _) = fake_server_seeing(Misbehave::AnswerEvent(|id| {
        format!(r#"{{"jsonrpc":"2.0","id":{id}.0,"result":{{"content":[{{"type":"text","text":"same number"}}]}}}}"#)
    }))
    .await;
    let client = stateless_client(&url, 10_000).await;
    let result = client.call_tool("x", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "same number");
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

/// One SSE event carrying `message`.
fn event(message: Value) -> String {
    format!("event: message\ndata: {message}\n\n")
}

/// A 2026 server whose first listen stream breaks right after its acknowledgement (as
/// when something between drops the connection); the next listen stream is acknowledged
/// and then carries a `tools/list_changed`, each stamped with the id of the request it
/// answers, as the spec says. Returns the URL and the count of listen requests.
async fn breaking_listen_server() -> (String, Arc<AtomicUsize>) {
    let listens = Arc::new(AtomicUsize::new(0));
    let count = listens.clone();
    let url = fake_http_server(move |request, mut stream| {
        let count = count.clone();
        async move {
            let s = stream.get_mut();
            if request["method"] != "subscriptions/listen" {
                let _ = s.write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n").await;
                return Some(stream);
            }
            let id = request["id"].clone();
            let meta = json!({ "io.modelcontextprotocol/subscriptionId": id });
            let ack = json!({ "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                "params": { "notifications": { "toolsListChanged": true }, "_meta": meta } });
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n").await;
            let _ = s.write_all(event(ack).as_bytes()).await;
            let _ = s.flush().await;
            if count.fetch_add(1, Ordering::SeqCst) == 0 {
                return None; // the first stream breaks
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            let changed = json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                "params": { "_meta": meta } });
            let _ = s.write_all(event(changed).as_bytes()).await;
            let _ = s.flush().await;
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Some(stream)
        }
    })
    .await;
    (url, listens)
}

/// 2026 over HTTP: a listen stream that breaks is re-issued under a new id (the spec's
/// MUST for a lost request), and the server stamps what the new stream carries with that
/// id. The subscription still gets it: it does not go deaf while looking open.
#[tokio::test]
async fn a_broken_2026_listen_stream_is_reissued_and_still_delivers() {
    let (url, listens) = breaking_listen_server().await;
    let client = Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse("2026-07-28"))
        .options(ClientOptions { request_timeout: Duration::from_secs(10), ..Default::default() })
        .connect(HttpClientTransport::new(&url).unwrap())
        .await
        .unwrap();
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
    let mut stream = client.listen(filter).await.unwrap();
    // The new stream's acknowledgement, then its notification.
    let mut seen = Vec::new();
    let next = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(note) = stream.next().await {
            seen.push(note.method.clone());
            if note.method == "notifications/tools/list_changed" {
                return;
            }
        }
    })
    .await;
    assert_eq!(listens.load(Ordering::SeqCst), 2, "the listen request was not sent again");
    assert!(next.is_ok(), "the re-issued stream's notification never reached the subscription: {seen:?}");
    assert_eq!(seen, ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"]);
    client.close().await;
}

/// A 2025 server that answers `initialize` (with a session), acknowledges
/// `notifications/initialized`, refuses the standalone GET (405) and answers every other
/// request with an empty result, but never acknowledges any other notification or answer
/// the client POSTs: it takes each and keeps the connection silent. Returns the URL and
/// the count of those unacknowledged messages it has read.
async fn unacknowledging_2025_server() -> (String, Arc<AtomicUsize>) {
    let unacknowledged = Arc::new(AtomicUsize::new(0));
    let count = unacknowledged.clone();
    let url = fake_http_server(move |message, mut stream| {
        let count = count.clone();
        async move {
            let s = stream.get_mut();
            let head = |len: usize| {
                format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: s1\r\ncontent-length: {len}\r\n\r\n")
            };
            let result = match (&message["method"], &message["id"]) {
                (Value::Null, Value::Null) => {
                    let _ = s.write_all(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n").await;
                    return Some(stream);
                }
                (m, Value::Null) if m == "notifications/initialized" => {
                    let _ = s.write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n").await;
                    return Some(stream);
                }
                (m, _) if m == "initialize" => {
                    json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                    "serverInfo": { "name": "mute", "version": "1" } })
                }
                (Value::String(_), Value::Null) | (Value::Null, _) => {
                    count.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    return None;
                }
                _ => json!({}),
            };
            let body = json!({ "jsonrpc": "2.0", "id": message["id"], "result": result }).to_string();
            let _ = s.write_all(format!("{}{body}", head(body.len())).as_bytes()).await;
            Some(stream)
        }
    })
    .await;
    (url, unacknowledged)
}

/// 2025: a server that never acknowledges the client's notifications does not hold up the
/// client's requests sent after them (each would otherwise wait out the acknowledgement
/// wait, longer together than the request's timeout), and each notification still reaches
/// the server.
#[tokio::test]
async fn unacknowledged_notifications_do_not_hold_up_later_requests() {
    let (url, unacknowledged) = unacknowledging_2025_server().await;
    let client = Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse("2025-11-25"))
        .options(options(4_000))
        .connect(HttpClientTransport::new(&url).unwrap())
        .await
        .unwrap();
    for _ in 0..3 {
        client.send_notification("notifications/roots/list_changed", None).await;
    }
    client.ping().await.unwrap();
    wait_for("the server to read every notification", || unacknowledged.load(Ordering::SeqCst) == 3).await;
}
