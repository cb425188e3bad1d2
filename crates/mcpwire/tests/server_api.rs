//! The two server-API gaps closed in issue 10: a tool taking `Args<serde_json::Value>`
//! builds (its input schema is `{"type": "object"}`, anything goes) and is callable; and a
//! stdio server's line limit is set with `serve_stdio_with` (checked on real pipes against
//! the fixture server in a child process).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;

use std::time::Duration;

use fixture::{ChildServer, MAX_LINE};
use mcpwire::client::Client;
use mcpwire::protocol::codes;
use mcpwire::server::{tool, Args, Server, StdioLimits};
use serde_json::{json, Value};

fn any_args_server() -> Server {
    Server::builder("any", "0")
        .tool(tool("any").handler(|Args(a): Args<Value>| a.to_string()))
        .build()
        .expect("a tool taking Args<Value> builds")
}

#[tokio::test]
async fn a_tool_taking_any_json_value_builds_with_an_open_object_schema() {
    let server = any_args_server();
    let listed: Vec<Value> = server.tools().map(|t| serde_json::to_value(t.tool()).unwrap()).collect();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["inputSchema"], json!({ "type": "object" }), "{}", listed[0]);
}

#[tokio::test]
async fn a_tool_taking_any_json_value_gets_the_arguments_verbatim() {
    let server = any_args_server();
    let (a, b) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(b).await });
    let client = Client::builder("t", "0").connect(a).await.unwrap();
    let tools = client.list_tools(None).await.unwrap();
    assert_eq!(serde_json::to_value(&tools.tools[0].input_schema).unwrap(), json!({ "type": "object" }));
    let arguments = json!({ "n": 1, "nested": { "list": [true, null, "x"] } });
    let result = client.call_tool("any", arguments.clone()).await.unwrap();
    let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
    assert_eq!(serde_json::from_str::<Value>(text.as_str().unwrap()).unwrap(), arguments);
    let result = client.call_tool("any", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "{}");
    client.close().await;
}

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
