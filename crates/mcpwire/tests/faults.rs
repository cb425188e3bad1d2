//! Faults over Streamable HTTP that the `hostile_http_*.rs` files do not cover: shutdown
//! with 2026 and 2025 requests in flight, a handler that never returns under a 2025
//! client's timeout, the server process restarted under a 2026 client, and a server that
//! floods notifications or answers with JSON that is not JSON-RPC. Real sockets throughout;
//! the restarted server is a child process.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;
mod hostile_http_support;
mod mcp_http;
mod raw_http;

use std::sync::atomic::Ordering;
use std::time::Duration;

use fixture::ChildServer;
use hostile_http_support::{
    call_body, code, in_session, local, messages, open_session, read_request_id, stateless_request, wait_for,
    V25, V26,
};
use mcpwire::client::{Client, ClientOptions, RequestOptions};
use mcpwire::http::HttpSettings;
use mcpwire::protocol::{codes, ProtocolVersion};
use mcpwire::transport::http_client::HttpClientTransport;
use mcpwire::RequestError;
use raw_http::{send, Req};
use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

fn options(timeout_ms: u64) -> ClientOptions {
    ClientOptions {
        probe_timeout: Duration::from_millis(timeout_ms),
        request_timeout: Duration::from_millis(timeout_ms),
        ..Default::default()
    }
}

async fn client_at(url: &str, version: &str, timeout_ms: u64) -> Client {
    Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse(version))
        .options(options(timeout_ms))
        .connect(HttpClientTransport::new(url).unwrap())
        .await
        .unwrap()
}

fn text_of(result: &mcpwire::protocol::tools::CallToolResult) -> Value {
    serde_json::to_value(&result.content).unwrap()[0]["text"].clone()
}

#[tokio::test]
async fn shutdown_with_2026_and_2025_requests_in_flight_answers_each_exactly_once() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    // Each request on its own connection, read by its own task: a 2026 answer that has
    // not started streaming has no response head yet.
    let mut pending = Vec::new();
    for i in 0..10 {
        let req = if i < 5 {
            stateless_request(i, "tools/call", json!({ "name": "hang" }))
        } else {
            in_session(Req::post(&call_body(i, "hang", json!({}))), &session, V25)
        };
        pending.push((
            i,
            tokio::spawn(async move {
                let response = send(addr, req).await;
                (response.status, messages(response).await)
            }),
        ));
    }
    wait_for("the handlers to start", || stats.started.load(Ordering::SeqCst) == 10).await;
    bound.shutdown.cancel();
    for (i, task) in pending {
        let (status, answers) = task.await.unwrap();
        // An answered request, as every other answered error of either era.
        assert_eq!(status, 200, "request {i}");
        let answers: Vec<Value> = answers.into_iter().filter(|m| m.get("method").is_none()).collect();
        assert_eq!(answers.len(), 1, "request {i}: {answers:?}");
        assert_eq!(answers[0]["id"], i, "{}", answers[0]);
        // A request in flight at shutdown is answered as every transport answers it: in
        // 2025 (by the session's dispatcher) with the SDKs' `-32000`; in 2026 (by the
        // service, for the request it drops), which asks that `-32000…-32019` not be
        // used, with `-32603`.
        let expected = match i < 5 {
            true => (codes::INTERNAL_ERROR, "Internal error: the server is shutting down"),
            false => (codes::CONNECTION_CLOSED, "Connection closed"),
        };
        let message = answers[0]["error"]["message"].as_str().unwrap_or_default();
        assert_eq!((code(&answers[0]), message), expected, "request {i}: {}", answers[0]);
    }
    tokio::time::timeout(Duration::from_secs(10), bound.task).await.unwrap().unwrap();
    assert_eq!(stats.dropped.load(Ordering::SeqCst), 10);
    assert_eq!(stats.cancelled.load(Ordering::SeqCst), 10, "every handler's token fired");
}

#[tokio::test]
async fn a_2025_http_call_that_never_returns_times_out_and_cancels_the_handler() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let url = format!("http://{}/mcp", bound.local_addr);
    // Only the hanging call has a short timeout: the handshake and the echo after it keep
    // a long one, which a busy machine cannot run out.
    let client = client_at(&url, V25, 10_000).await;
    let short = RequestOptions::default().timeout(Duration::from_millis(300));
    let error = client.call_tool_with("hang", json!({}), short).await.unwrap_err();
    assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
    // The client's notifications/cancelled reaches the handler.
    wait_for("the handler's token to fire", || stats.cancelled.load(Ordering::SeqCst) == 1).await;
    wait_for("the handler to be dropped", || stats.dropped.load(Ordering::SeqCst) == 1).await;
    // The session goes on.
    let result = client.call_tool("echo", json!({ "n": 1 })).await.unwrap();
    assert_eq!(text_of(&result), json!({ "n": 1 }).to_string());
    client.close().await;
    bound.shutdown.cancel();
}

#[tokio::test]
async fn the_http_server_restarted_under_a_2026_client() {
    let first = ChildServer::start("http", &[]).await;
    let addr = first.addr.clone().unwrap();
    let url = format!("http://{addr}/mcp");
    let client = client_at(&url, V26, 5_000).await;
    let result = client.call_tool("echo", json!({ "n": 1 })).await.unwrap();
    assert_eq!(text_of(&result), json!({ "n": 1 }).to_string());
    // The server dies: the call fails (how is the transport's business), it does not hang.
    let mut first = first;
    first.child.kill().await.unwrap();
    let outcome = client.call_tool("echo", json!({ "n": 2 })).await;
    assert!(outcome.is_err(), "{outcome:?}");
    // A new process on the same address: 2026 keeps no session, so the next call works.
    let second = ChildServer::start("http", &[("MCPWIRE_HOSTILE_ADDR", &addr)]).await;
    let result = client.call_tool("echo", json!({ "n": 3 })).await.unwrap();
    assert_eq!(text_of(&result), json!({ "n": 3 }).to_string());
    client.close().await;
    drop(second);
}

// ---------------------------------------------------------------------------------------
// Our client against a server that misbehaves on purpose

/// A raw HTTP server that answers every request with `respond(id)` (head and body) and
/// keeps the connection; returns its URL.
async fn scripted_server(respond: fn(&Value) -> Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                while let Some(id) = read_request_id(&mut stream).await {
                    if stream.get_mut().write_all(&respond(&id)).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    url
}

/// Held by the tests of this binary that allocate a lot or measure this process's peak
/// memory, so a measurement does not count a neighbour's allocations.
static MEMORY_MEASURED: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn json_response(body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

#[tokio::test]
async fn the_client_reads_its_answer_after_a_flood_of_notifications() {
    let url = scripted_server(|id| {
        let mut body = Vec::new();
        for i in 0..20_000 {
            let note = json!({ "jsonrpc": "2.0", "method": "notifications/message", "params": { "level": "info", "data": i } });
            body.extend_from_slice(format!("event: message\ndata: {note}\n\n").as_bytes());
        }
        let answer = json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": "after the flood" }] } });
        body.extend_from_slice(format!("event: message\ndata: {answer}\n\n").as_bytes());
        let mut out =
            format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n", body.len())
                .into_bytes();
        out.extend_from_slice(&body);
        out
    })
    .await;
    let client = client_at(&url, V26, 20_000).await;
    let _alone = MEMORY_MEASURED.lock().await;
    let (_, hwm_before) = fixture::memory_kib();
    for _ in 0..3 {
        let result = client.call_tool("x", json!({})).await.unwrap();
        assert_eq!(text_of(&result), "after the flood");
    }
    let (_, hwm_after) = fixture::memory_kib();
    let grown_mib = hwm_after.saturating_sub(hwm_before) / 1024;
    assert!(grown_mib < 64, "peak memory grew by {grown_mib} MiB for 60,000 notifications");
}

#[tokio::test]
async fn the_client_refuses_json_that_is_not_a_json_rpc_answer_and_goes_on() {
    let _alone = MEMORY_MEASURED.lock().await;
    // Each server answers the client's first request (id 1) badly and later ones well,
    // so the client must come out of the bad answer usable.
    type Respond = fn(&Value) -> Vec<u8>;
    fn good(id: &Value) -> Vec<u8> {
        let answer = json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [{ "type": "text", "text": "good" }] } });
        json_response(answer.to_string().as_bytes())
    }
    let bad: [(&str, Respond); 6] = [
        ("not JSON-RPC", |id| if *id == 1 { json_response(br#"{"hello":"world"}"#) } else { good(id) }),
        ("an array", |id| if *id == 1 { json_response(b"[1,2,3]") } else { good(id) }),
        ("a null id", |id| {
            if *id == 1 {
                json_response(br#"{"jsonrpc":"2.0","id":null,"result":{}}"#)
            } else {
                good(id)
            }
        }),
        ("invalid UTF-8", |id| {
            if *id == 1 {
                json_response(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"\xff\"}}")
            } else {
                good(id)
            }
        }),
        ("a body cut short", |id| {
            if *id == 1 {
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"jsonrpc\"".to_vec()
            } else {
                good(id)
            }
        }),
        ("100k-deep nesting", |id| {
            if *id == 1 {
                json_response(format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).as_bytes())
            } else {
                good(id)
            }
        }),
    ];
    for (what, respond) in bad {
        let url = scripted_server(respond).await;
        let client = client_at(&url, V26, 1_000).await;
        // A failure (local or a parse error; its kind is the transport's business):
        // never a result, never a hang past the call's timeout.
        let outcome = client.call_tool("x", json!({})).await;
        assert!(outcome.is_err(), "{what}: {outcome:?}");
        let result = client.call_tool("x", json!({})).await;
        assert_eq!(result.map(|r| text_of(&r)).map_err(|e| e.to_string()), Ok(json!("good")), "{what}");
        client.close().await;
    }
}

/// Requests the never-satisfied server of the next test has read.
static ASKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[tokio::test]
async fn a_server_that_always_needs_more_input_is_given_up_on_after_max_rounds() {
    let url = scripted_server(|id| {
        ASKED.fetch_add(1, Ordering::SeqCst);
        let again = json!({ "jsonrpc": "2.0", "id": id, "result": { "resultType": "input_required", "requestState": "again" } });
        json_response(again.to_string().as_bytes())
    })
    .await;
    let options = ClientOptions { max_input_rounds: 3, ..options(20_000) };
    let client = Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse(V26))
        .options(options)
        .connect(HttpClientTransport::new(&url).unwrap())
        .await
        .unwrap();
    let error = client.call_tool("x", json!({})).await.unwrap_err();
    match &error {
        RequestError::Protocol(message) => {
            assert_eq!(message, "tools/call still needed input after 3 rounds; giving up")
        }
        other => panic!("{other:?}"),
    }
    // The first request and one retry per round.
    assert_eq!(ASKED.load(Ordering::SeqCst), 4);
    client.close().await;
}
