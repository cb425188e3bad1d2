//! The HTTP client on the 2024-11-05 HTTP+SSE transport, against a hand-written server:
//! every answer travels on the one SSE stream the client opened with GET, so when the
//! server ends that stream the connection is over and calls fail at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpwire::client::{Client, ClientOptions};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;
use mcpwire::RequestError;
use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Mutex, Notify};

mod raw_http_server;

/// A 2024-11-05 server: a POST to `/mcp` gets 405, the GET stream names `/messages` as the
/// endpoint and carries the answers to what is posted there (to `tools/call`, an answer
/// that is not JSON: a `NaN`). `end` ends the stream.
async fn legacy_server(end: Arc<Notify>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (answers, stream_answers) = mpsc::channel::<String>(16);
    let stream_answers = Arc::new(Mutex::new(stream_answers));
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let (answers, stream_answers, end) = (answers.clone(), stream_answers.clone(), end.clone());
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                while let Some((head, body)) = raw_http_server::read(&mut stream).await {
                    let s = stream.get_mut();
                    if head.starts_with("GET") {
                        let open = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
                        let _ = s
                            .write_all(format!("{open}event: endpoint\ndata: /messages\n\n").as_bytes())
                            .await;
                        let mut answers = stream_answers.lock().await;
                        loop {
                            tokio::select! {
                                _ = end.notified() => return, // the connection closes
                                answer = answers.recv() => {
                                    let Some(answer) = answer else { return };
                                    let event = format!("event: message\ndata: {answer}\n\n");
                                    let _ = s.write_all(event.as_bytes()).await;
                                }
                            }
                        }
                    }
                    if head.starts_with("POST /mcp ") {
                        let _ = s
                            .write_all(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
                            .await;
                        continue;
                    }
                    let result = match body.get("method").and_then(Value::as_str) {
                        Some("initialize") => Some(json!({
                            "protocolVersion": "2024-11-05",
                            "capabilities": { "tools": {} },
                            "serverInfo": { "name": "legacy", "version": "1" },
                        })),
                        Some(_) if body.get("id").is_some() => Some(json!({ "tools": [] })),
                        _ => None,
                    };
                    let answer = match body.get("method").and_then(Value::as_str) {
                        Some("tools/call") => {
                            Some(format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"x":NaN}}}}"#, body["id"]))
                        }
                        _ => result.map(|result| {
                            json!({ "jsonrpc": "2.0", "id": body["id"], "result": result }).to_string()
                        }),
                    };
                    if let Some(answer) = answer {
                        let _ = answers.send(answer).await;
                    }
                    let _ = s.write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n").await;
                }
            });
        }
    });
    url
}

/// A client of the legacy server at `url` (it falls back from 2025-11-25), with requests
/// timing out after `timeout`.
async fn connect_with_timeout(url: &str, timeout: Duration) -> Client {
    let options = ClientOptions { request_timeout: timeout, ..Default::default() };
    Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2025_11_25)
        .options(options)
        .connect(HttpClientTransport::new(url).unwrap())
        .await
        .unwrap()
}

/// A 2024-11-05 server that ends its SSE stream can answer nothing more: a call made
/// after that fails at once with the connection closed, not at its timeout.
#[tokio::test]
async fn calls_fail_at_once_when_the_legacy_stream_ends() {
    let end = Arc::new(Notify::new());
    let url = legacy_server(end.clone()).await;
    let client = connect_with_timeout(&url, Duration::from_secs(5)).await;
    assert_eq!(client.protocol_version().as_str(), "2024-11-05");
    // Its stream is the session, though there is no `Mcp-Session-Id`.
    assert!(client.legacy_http_sse() && client.session_id().is_none());
    assert!(client.list_tools(None).await.unwrap().tools.is_empty(), "answered on the stream");
    end.notify_one();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let error = client.list_tools(None).await.expect_err("answered without a stream");
    assert!(matches!(error, RequestError::ConnectionClosed { .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(2), "failed only after {:?}", started.elapsed());
    assert!(client.is_closed());
    client.close().await;
}

/// An answer on the legacy stream that is not JSON but names its request's id fails that
/// call at once with the reason, rather than at its timeout.
#[tokio::test]
async fn an_answer_on_the_legacy_stream_that_is_not_json_fails_its_call_at_once() {
    let url = legacy_server(Arc::new(Notify::new())).await;
    let client = connect_with_timeout(&url, Duration::from_secs(20)).await;
    let error = client.call_tool("x", json!({})).await.expect_err("a broken answer");
    let RequestError::Transport { reason } = &error else { panic!("{error:?}") };
    assert!(reason.starts_with("the server's answer is not JSON-RPC: Parse error"), "{reason}");
    assert!(client.list_tools(None).await.unwrap().tools.is_empty(), "the stream goes on");
    client.close().await;
}
