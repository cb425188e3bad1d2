//! A hand-written 2025 Streamable HTTP server on a raw socket, for the HTTP client's
//! tests: it answers `initialize` (with a session), acknowledges notifications with 202,
//! and answers GETs and other requests as the test's [`Script`] says, byte for byte. A
//! module directory, not a test target.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// What the server says.
#[derive(Clone, Copy)]
pub struct Script {
    /// The `protocolVersion` of its `initialize` result.
    pub version: &'static str,
    /// The SSE body of the `n`th GET (from 0), sent before the connection ends; `None`
    /// answers 405.
    pub get: fn(usize) -> Option<String>,
    /// The SSE body that answers a request other than `initialize`, sent before the
    /// connection ends.
    pub request: fn(&Value) -> String,
}

/// Listens on a free loopback port and runs `connection` on each connection accepted, in
/// a task of its own (the accept loop every hand-written server here shares); the URL of
/// its `/mcp`.
pub async fn accept_each<F, Fut>(connection: F) -> String
where
    F: Fn(BufReader<TcpStream>) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(connection(BufReader::new(stream)));
        }
    });
    url
}

/// Serves `script` at `/mcp`; its URL.
pub async fn serve(script: Script) -> String {
    let gets = Arc::new(AtomicUsize::new(0));
    accept_each(move |mut stream| {
        let gets = gets.clone();
        async move {
                loop {
                    let Some((head, body)) = read(&mut stream).await else { return };
                    let s = stream.get_mut();
                    let sse =
                        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                    if head.starts_with("GET") {
                        let reply = match (script.get)(gets.fetch_add(1, Ordering::SeqCst)) {
                            Some(events) => format!("{sse}{events}"),
                            None => "HTTP/1.1 405 Method Not Allowed\r\nconnection: close\r\n\r\n".to_owned(),
                        };
                        let _ = s.write_all(reply.as_bytes()).await;
                        return;
                    }
                    let reply = match body.get("method").and_then(Value::as_str) {
                        Some("initialize") => {
                            let result = json!({ "jsonrpc": "2.0", "id": body["id"], "result": {
                                "protocolVersion": script.version,
                                "capabilities": { "tools": { "listChanged": true } },
                                "serverInfo": { "name": "raw", "version": "1" },
                            } })
                            .to_string();
                            format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: s1\r\ncontent-length: {}\r\n\r\n{result}",
                                result.len()
                            )
                        }
                        Some(_) if body.get("id").is_some() => {
                            let _ = s.write_all(format!("{sse}{}", (script.request)(&body)).as_bytes()).await;
                            return;
                        }
                        _ => "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n".to_owned(),
                    };
                    if s.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
        }
    })
    .await
}

/// One request's head and JSON body (`null` without one).
pub async fn read(stream: &mut BufReader<tokio::net::TcpStream>) -> Option<(String, Value)> {
    let mut head = String::new();
    while !head.ends_with("\r\n\r\n") {
        if stream.read_line(&mut head).await.ok()? == 0 {
            return None;
        }
    }
    let length = head
        .to_ascii_lowercase()
        .split("\r\n")
        .find_map(|l| l.strip_prefix("content-length:").and_then(|v| v.trim().parse().ok()))
        .unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    Some((head, serde_json::from_slice(&body).unwrap_or_default()))
}
