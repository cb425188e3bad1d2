//! A server's own limits: a stdio server's line limit set with `serve_stdio_with`
//! (checked on real pipes against the fixture server in a child process), and a handler
//! timeout that bounds a tool that never returns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;

use std::time::Duration;

use fixture::{ChildServer, MAX_LINE};
use mcpwire::client::Client;
use mcpwire::protocol::codes;
use mcpwire::server::{tool, Server, StdioLimits};
use serde_json::json;

#[test]
fn stdio_limits_default_to_the_transport_defaults() {
    let limits = StdioLimits::default();
    assert_eq!(limits.max_line_bytes, mcpwire::transport::lines::DEFAULT_MAX_LINE_BYTES);
    assert_eq!(limits.channel_capacity, mcpwire::transport::DEFAULT_CHANNEL_CAPACITY);
}

#[tokio::test]
async fn serve_stdio_with_enforces_its_line_limit_and_goes_on() {
    let mut s = ChildServer::start("stdio", &[(MAX_LINE, "1024")]).await;
    s.initialize().await;
    // 1024 bytes with its newline stripped passes; 1025 does not.
    let head = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#;
    let tail = br#""}}"#;
    let fits = 1024 - head.len() - tail.len();
    let mut line = head.to_vec();
    line.extend(std::iter::repeat_n(b'x', fits));
    line.extend_from_slice(tail);
    assert_eq!(line.len(), 1024);
    line.push(b'\n');
    s.write(&line).await;
    let answer = s.line().await;
    assert_eq!((answer["id"].clone(), answer["result"].clone()), (json!(1), json!({})), "{answer}");
    let mut long = head.to_vec();
    long[25] = b'2';
    long.extend(std::iter::repeat_n(b'x', fits + 1));
    long.extend_from_slice(tail);
    long.push(b'\n');
    s.write(&long).await;
    let answer = s.line().await;
    assert_eq!(answer["error"]["code"], codes::INVALID_REQUEST, "{answer}");
    // (The overwritten byte is in the key "method": with no method seen, the line is
    // answered without an id.)
    assert!(answer.get("id").is_none(), "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert_eq!(message, "Invalid request: a message of 1025 bytes exceeds the 1024-byte message size limit");
    let answer = s.call(json!(3), "ping", json!({})).await;
    assert_eq!(answer["result"], json!({}));
    s.close_stdin();
    assert_eq!(s.line_within(Duration::from_secs(10)).await, None);
}

/// `ServerBuilder::handler_timeout` bounds a tool that never returns, in both eras: the
/// client gets `-32603` once, the handler's cancellation token fires, and the server goes on.
#[tokio::test]
async fn a_handler_timeout_bounds_a_tool_that_never_returns() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let fired = Arc::new(AtomicUsize::new(0));
    let seen = fired.clone();
    let server = Server::builder("slow", "0")
        .tool(tool("never").handler(move |ctx: mcpwire::server::Ctx| {
            let seen = seen.clone();
            async move {
                let token = ctx.cancellation().clone();
                tokio::spawn(async move {
                    token.cancelled().await;
                    seen.fetch_add(1, Ordering::SeqCst);
                });
                std::future::pending::<String>().await
            }
        }))
        .tool(tool("quick").handler(|| "quick"))
        .handler_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    use mcpwire::protocol::ProtocolVersion;
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let (a, b) = mcpwire::transport::memory::pair();
        let server = server.clone();
        tokio::spawn(async move { server.serve(b).await });
        let client = Client::builder("t", "0").protocol_version(version.clone()).connect(a).await.unwrap();
        let before = fired.load(Ordering::SeqCst);
        let error = client.call_tool("never", json!({})).await.unwrap_err();
        match error {
            mcpwire::RequestError::Peer(e) => {
                assert_eq!(e.code, codes::INTERNAL_ERROR, "{version}");
                assert!(e.message.starts_with("Request timed out"), "{version}: {}", e.message);
            }
            other => panic!("{version}: {other:?}"),
        }
        for _ in 0..100 {
            if fired.load(Ordering::SeqCst) > before {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(fired.load(Ordering::SeqCst), before + 1, "{version}: the handler's token fired");
        let result = client.call_tool("quick", json!({})).await.unwrap();
        assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "quick", "{version}");
        client.close().await;
    }
}
