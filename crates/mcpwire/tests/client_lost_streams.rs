//! The client when a stream breaks under it: a 2026 listen stream whose HTTP connection
//! breaks is sent again under a new id, and goes on delivering to its subscription.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpwire::client::{Client, ClientOptions};
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// Reads one HTTP request's JSON body (`Value::Null` for none); `None` at end of stream.
async fn read_body(stream: &mut BufReader<TcpStream>) -> Option<Value> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read_until(b'\n', &mut head).await.ok()? == 0 {
            return None;
        }
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let length = head
        .split("\r\n")
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    Some(serde_json::from_slice(&body).unwrap_or(Value::Null))
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
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let listens = Arc::new(AtomicUsize::new(0));
    let count = listens.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let count = count.clone();
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                while let Some(request) = read_body(&mut stream).await {
                    let s = stream.get_mut();
                    if request["method"] != "subscriptions/listen" {
                        let _ = s.write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n").await;
                        continue;
                    }
                    let id = request["id"].clone();
                    let meta = json!({ "io.modelcontextprotocol/subscriptionId": id });
                    let ack = json!({ "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                        "params": { "notifications": { "toolsListChanged": true }, "_meta": meta } });
                    let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n").await;
                    let _ = s.write_all(event(ack).as_bytes()).await;
                    let _ = s.flush().await;
                    if count.fetch_add(1, Ordering::SeqCst) == 0 {
                        return; // the first stream breaks
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    let changed = json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                        "params": { "_meta": meta } });
                    let _ = s.write_all(event(changed).as_bytes()).await;
                    let _ = s.flush().await;
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                }
            });
        }
    });
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
