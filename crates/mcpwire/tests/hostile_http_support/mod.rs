//! What the tests of the fixture server over HTTP share (`hostile_http_*.rs`,
//! `http_floods_and_disconnects.rs`, `http_limits.rs`, `faults.rs`): the fixture server
//! behind a real socket, and reading requests in a scripted fake server; the MCP request
//! builders come from `mcp_http`, re-exported here. A module directory, not a test target;
//! the including crate declares `mod raw_http;`, `mod mcp_http;` and `mod fixture;` at its
//! root.
#![allow(dead_code)]

use std::future::Future;
use std::sync::Arc;

use mcpwire::http::{serve_with_shutdown, Bound, HttpSettings, McpService};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use crate::fixture::{fixture_server, Stats};
pub use crate::mcp_http::*;

/// The fixture server at `/mcp` on a loopback port, in this process.
pub async fn local(settings: HttpSettings) -> (Bound, Arc<Stats>) {
    let (server, stats) = fixture_server();
    let bound = serve_with_shutdown(McpService::with_settings(server, settings), "127.0.0.1:0", "/mcp")
        .await
        .unwrap();
    (bound, stats)
}

/// Reads one HTTP request (its head, then a `Content-Length` body) from a client; returns
/// its JSON body, `Value::Null` when it has none, `None` at end of stream.
pub async fn read_request(stream: &mut BufReader<TcpStream>) -> Option<Value> {
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

/// A scripted fake server on a loopback port: each request read on each connection (its
/// JSON body, as [`read_request`] gives it) goes to `answer` with the connection, which
/// writes what it likes and hands the connection back to read the next request from, or
/// `None` to close it. Returns the URL of its `/mcp` endpoint.
pub async fn fake_http_server<F, Fut>(answer: F) -> String
where
    F: Fn(Value, BufReader<TcpStream>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Option<BufReader<TcpStream>>> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                while let Some(request) = read_request(&mut stream).await {
                    match answer(request, stream).await {
                        Some(back) => stream = back,
                        None => return,
                    }
                }
            });
        }
    });
    url
}

/// [`read_request`]'s JSON-RPC id (`Value::Null` when it has none).
pub async fn read_request_id(stream: &mut BufReader<TcpStream>) -> Option<Value> {
    let request = read_request(stream).await?;
    Some(request.get("id").cloned().unwrap_or(Value::Null))
}
