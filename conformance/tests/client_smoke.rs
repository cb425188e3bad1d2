//! The Rust client against the everything-server over a real child process, both eras.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::peers::EverythingHttp;
use mcpwire::client::Client;
use mcpwire::protocol::content::{Role, SamplingContent};
use mcpwire::protocol::elicitation::{ElicitAction, ElicitResult};
use mcpwire::protocol::roots::{ListRootsResult, Root};
use mcpwire::protocol::sampling::CreateMessageResult;
use mcpwire::protocol::{Era, ProtocolVersion};
use mcpwire::transport::child::ChildProcess;
use serde_json::json;

fn server() -> ChildProcess {
    ChildProcess::new(env!("CARGO_BIN_EXE_everything-server")).arg("--stdio")
}

async fn connect(pin: Option<ProtocolVersion>) -> Client {
    let mut builder = Client::builder("smoke", "1.0")
        .on_sampling(|_| async {
            Ok(serde_json::from_value::<CreateMessageResult>(json!({
                "role": "assistant", "content": { "type": "text", "text": "Paris" }, "model": "m"
            }))
            .unwrap())
        })
        .on_elicitation(|_| async {
            Ok(serde_json::from_value::<ElicitResult>(
                json!({ "action": "accept", "content": { "name": "Ada", "ok": true, "color": "blue" } }),
            )
            .unwrap())
        })
        .on_roots(|| async { Ok(ListRootsResult { roots: vec![Root::new("file:///tmp")], meta: None }) });
    if let Some(v) = pin {
        builder = builder.protocol_version(v);
    }
    builder.spawn(server()).await.unwrap()
}

fn text(result: &mcpwire::protocol::tools::CallToolResult) -> String {
    result.content[0].as_text().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn probes_to_the_2026_era_and_runs_mrtr() {
    let client = connect(None).await;
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(client.server_info().unwrap().name, "mcp-conformance-test-server");
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.len() > 20);
    assert_eq!(
        text(&client.call_tool("test_simple_text", json!({})).await.unwrap()),
        "This is a simple text response for testing."
    );
    assert_eq!(
        text(&client.call_tool("test_input_required_result_multi_round", json!({})).await.unwrap()),
        "Multi-round complete for Ada who likes blue"
    );
    assert_eq!(
        text(&client.call_tool("test_sampling", json!({ "prompt": "q" })).await.unwrap()),
        "LLM response: Paris"
    );
    let _ = (Role::User, SamplingContent::text(""), ElicitAction::Accept);
    client.close().await;
}

#[tokio::test]
async fn pinned_2025_uses_the_handshake_and_callbacks() {
    let client = connect(Some(ProtocolVersion::V2025_11_25)).await;
    assert_eq!(client.era(), Era::Stateful);
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25);
    assert_eq!(
        text(&client.call_tool("test_sampling", json!({ "prompt": "q" })).await.unwrap()),
        "LLM response: Paris"
    );
    assert_eq!(
        text(&client.call_tool("test_input_required_result_list_roots", json!({})).await.unwrap()),
        "Found 1 root(s)"
    );
    client.ping().await.unwrap();
    client.close().await;
}

async fn connect_http(url: &str, pin: Option<ProtocolVersion>) -> Client {
    let transport = mcpwire::transport::http_client::HttpClientTransport::new(url).unwrap();
    let mut builder = Client::builder("smoke", "1.0")
        .on_sampling(|_| async {
            Ok(serde_json::from_value::<CreateMessageResult>(json!({
                "role": "assistant", "content": { "type": "text", "text": "Paris" }, "model": "m"
            }))
            .unwrap())
        })
        .on_elicitation(|_| async {
            Ok(serde_json::from_value::<ElicitResult>(
                json!({ "action": "accept", "content": { "name": "Ada", "ok": true, "color": "blue" } }),
            )
            .unwrap())
        });
    if let Some(v) = pin {
        builder = builder.protocol_version(v);
    }
    builder.connect(transport).await.unwrap()
}

#[tokio::test]
async fn over_http_in_both_eras() {
    let server = EverythingHttp::start();
    let stateless = connect_http(&server.url(), None).await;
    assert_eq!(stateless.era(), Era::Stateless);
    assert!(stateless.list_all_tools().await.unwrap().len() > 20);
    assert_eq!(
        text(&stateless.call_tool("test_x_mcp_header", json!({ "region": "eu-west" })).await.unwrap()),
        "Region: eu-west"
    );
    assert_eq!(
        text(&stateless.call_tool("test_input_required_result_multi_round", json!({})).await.unwrap()),
        "Multi-round complete for Ada who likes blue"
    );
    stateless.close().await;

    let legacy = connect_http(&server.url(), Some(ProtocolVersion::V2025_11_25)).await;
    assert_eq!(legacy.era(), Era::Stateful);
    assert_eq!(
        text(&legacy.call_tool("test_sampling", json!({ "prompt": "q" })).await.unwrap()),
        "LLM response: Paris"
    );
    // The server closes this call's SSE stream mid-call; the client resumes with Last-Event-ID.
    assert!(text(&legacy.call_tool("test_reconnection", json!({})).await.unwrap())
        .starts_with("Reconnection test completed"));
    legacy.close().await;
}

#[tokio::test]
async fn structured_content_is_checked_against_the_output_schema() {
    use mcpwire::protocol::tools::CallToolResult;
    use mcpwire::server::{tool, Server};
    let server = Server::builder("schemas", "1")
        .tool(
            tool("good")
                .description("conforms")
                .output_schema(json!({ "type": "object", "properties": { "n": { "type": "integer" } }, "required": ["n"] }))
                .handler(|| CallToolResult::structured(json!({ "n": 1 }))),
        )
        .tool(
            tool("bad")
                .description("does not conform")
                .output_schema(json!({ "type": "object", "properties": { "n": { "type": "integer" } }, "required": ["n"] }))
                .handler(|| CallToolResult::structured(json!({ "n": "one" }))),
        )
        .tool(
            tool("missing")
                .description("no structured content")
                .output_schema(json!({ "type": "object" }))
                .handler(|| "just text"),
        )
        .build()
        .unwrap();
    let (a, b) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(b).await });
    let client = Client::builder("c", "1").connect(a).await.unwrap();
    assert_eq!(
        client.call_tool("good", json!({})).await.unwrap().structured_content,
        Some(json!({ "n": 1 }))
    );
    let bad = client.call_tool("bad", json!({})).await.unwrap_err().to_string();
    assert!(bad.contains("does not match its outputSchema"), "{bad}");
    let missing = client.call_tool("missing", json!({})).await.unwrap_err().to_string();
    assert!(missing.contains("no structuredContent"), "{missing}");
}

/// A client remembers a server's era only in the [`EraCache`](mcpwire::client::EraCache)
/// it is given: connections sharing one probe a 2025-only server once; connections without
/// one (the default) keep no memory and probe every time.
#[tokio::test]
async fn the_era_of_an_http_server_is_remembered_per_endpoint() {
    use mcpwire::client::EraCache;
    use mcpwire::server::{middleware_fn, Server};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let probes = Arc::new(AtomicUsize::new(0));
    let seen = probes.clone();
    // A 2025-only server: it refuses the 2026 probe.
    let server = Server::builder("legacy-only", "1")
        .tool(mcpwire::server::tool("t").description("t").handler(|| "ok"))
        .middleware(middleware_fn(move |request, ctx, next| {
            let seen = seen.clone();
            async move {
                if request.method == "server/discover" {
                    seen.fetch_add(1, Ordering::SeqCst);
                    return Err(mcpwire::McpError::method_not_found("server/discover"));
                }
                next.run(request, ctx).await
            }
        }))
        .build()
        .unwrap();
    let bound =
        mcpwire::http::serve_with_shutdown(mcpwire::http::McpService::new(server), "127.0.0.1:0", "/mcp")
            .await
            .unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", bound.local_addr.port());
    let eras = EraCache::new();
    for _ in 0..3 {
        let transport = mcpwire::transport::http_client::HttpClientTransport::new(&url).unwrap();
        let client = Client::builder("c", "1").era_cache(eras.clone()).connect(transport).await.unwrap();
        assert_eq!(client.era(), Era::Stateful);
        client.close().await;
    }
    assert_eq!(probes.load(Ordering::SeqCst), 1, "only the first connection sharing the cache probes");
    assert_eq!(eras.get(&url), Some(Era::Stateful));
    for _ in 0..2 {
        let transport = mcpwire::transport::http_client::HttpClientTransport::new(&url).unwrap();
        let client = Client::builder("c", "1").connect(transport).await.unwrap();
        assert_eq!(client.era(), Era::Stateful);
        client.close().await;
    }
    assert_eq!(probes.load(Ordering::SeqCst), 3, "a client without a cache probes every time");
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_cancelled_call_fails_cleanly_and_the_server_handler_sees_it() {
    use mcpwire::client::RequestOptions;
    use mcpwire::server::{tool, Ctx, Server};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    for pin in [Some(ProtocolVersion::V2025_11_25), None] {
        /// Records that the handler was stopped before it finished (interrupt mode drops it).
        struct Stopped(Arc<AtomicBool>);
        impl Drop for Stopped {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let saw_cancel = Arc::new(AtomicBool::new(false));
        let flag = saw_cancel.clone();
        let server = Server::builder("slow", "1")
            .tool(tool("slow").description("waits").handler(move |_ctx: Ctx| {
                let guard = Stopped(flag.clone());
                async move {
                    tokio::time::sleep(std::time::Duration::from_secs(30)).await;
                    // Finished: not stopped early.
                    std::mem::forget(guard);
                    "done"
                }
            }))
            .build()
            .unwrap();
        let (a, b) = mcpwire::transport::memory::pair();
        tokio::spawn(async move { server.serve(b).await });
        let mut builder = Client::builder("c", "1");
        if let Some(v) = pin {
            builder = builder.protocol_version(v);
        }
        let client = builder.connect(a).await.unwrap();
        let token = mcpwire::CancellationToken::new();
        let trigger = token.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            trigger.cancel();
        });
        let started = std::time::Instant::now();
        let err = client
            .call_tool_with("slow", json!({}), RequestOptions::default().cancel_on(token))
            .await
            .unwrap_err();
        assert!(matches!(err, mcpwire::RequestError::Cancelled { .. }), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert!(
            saw_cancel.load(Ordering::SeqCst),
            "the server's handler saw the cancellation ({:?})",
            client.era()
        );
    }
}

#[tokio::test]
async fn lists_are_paginated_with_opaque_cursors_and_custom_methods_answer() {
    use mcpwire::server::{tool, Server};
    let mut builder = Server::builder("many", "1").page_size(3);
    for i in 0..8 {
        builder = builder.tool(tool(format!("t{i}")).description("t").handler(|| "ok"));
    }
    let server = builder
        .method("acme/echo", |_ctx, params| async move { Ok(json!({ "echo": params["x"] })) })
        .build()
        .unwrap();
    let (a, b) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(b).await });
    let client =
        Client::builder("c", "1").protocol_version(ProtocolVersion::V2025_11_25).connect(a).await.unwrap();
    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["t0", "t1", "t2"]);
    let cursor = first.next_cursor.clone().unwrap();
    assert!(cursor.parse::<usize>().is_err(), "cursors are opaque: {cursor}");
    let all = client.list_all_tools().await.unwrap();
    assert_eq!(
        all.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"]
    );
    let err = client.list_tools(Some("not-a-cursor")).await.unwrap_err();
    assert_eq!(err.code(), -32602);
    let echoed = client.send_request("acme/echo", json!({ "x": 7 }), Default::default()).await.unwrap();
    assert_eq!(echoed, json!({ "echo": 7 }));
    assert_eq!(
        client.send_request("acme/missing", json!({}), Default::default()).await.unwrap_err().code(),
        -32601
    );
}
