//! The HTTP client follows a server's same-origin `307`/`308` redirects (an endpoint at
//! `/mcp` that the user called `/mcp/`, as Starlette-based servers such as fastmcp
//! answer), in both eras, and follows neither a redirect to another origin (the request
//! carries credentials for this one) nor an endless chain.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::any;
use axum::Router;
use mcpwire::client::Client;
use mcpwire::http::McpService;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{tool, Server};
use mcpwire::transport::http_client::HttpClientTransport;

fn redirect(status: StatusCode, to: &'static str) -> impl IntoResponse {
    (status, [(header::LOCATION, to)])
}

/// An MCP endpoint at `/mcp`, and redirects: `/mcp/` (307) and `/old` (308) to it,
/// `/elsewhere` to another origin, `/loop` to itself, `/r1` through five hops to it, and
/// `/a/old` to it by a relative reference.
async fn serve() -> String {
    let server = Server::builder("redirected", "1").tool(tool("hello").handler(|| "hi")).build().unwrap();
    let app = Router::new()
        .route_service("/mcp", McpService::new(server))
        .route("/mcp/", any(|| async { redirect(StatusCode::TEMPORARY_REDIRECT, "/mcp") }))
        .route("/old", any(|| async { redirect(StatusCode::PERMANENT_REDIRECT, "/mcp") }))
        .route(
            "/elsewhere",
            any(|| async { redirect(StatusCode::TEMPORARY_REDIRECT, "http://evil.example/mcp") }),
        )
        .route("/loop", any(|| async { redirect(StatusCode::TEMPORARY_REDIRECT, "/loop") }))
        // Exactly five redirects: /r1 -> /r2 -> ... -> /r5 -> /mcp.
        .route("/r1", any(|| async { redirect(StatusCode::TEMPORARY_REDIRECT, "/r2") }))
        .route("/r2", any(|| async { redirect(StatusCode::TEMPORARY_REDIRECT, "/r3") }))
        .route("/r3", any(|| async { redirect(StatusCode::TEMPORARY_REDIRECT, "/r4") }))
        .route("/r4", any(|| async { redirect(StatusCode::TEMPORARY_REDIRECT, "/r5") }))
        .route("/r5", any(|| async { redirect(StatusCode::TEMPORARY_REDIRECT, "/mcp") }))
        // A relative reference, as RFC 9110 allows in `Location`.
        .route("/a/old", any(|| async { redirect(StatusCode::PERMANENT_REDIRECT, "../mcp") }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

async fn connect(url: &str, version: ProtocolVersion) -> Result<Client, mcpwire::client::ConnectError> {
    Client::builder("c", "1").protocol_version(version).connect(HttpClientTransport::new(url).unwrap()).await
}

#[tokio::test]
async fn same_origin_redirects_are_followed_in_both_eras() {
    let base = serve().await;
    for path in ["/mcp/", "/old"] {
        for version in [ProtocolVersion::LATEST_STATEFUL, ProtocolVersion::LATEST] {
            let client = connect(&format!("{base}{path}"), version.clone()).await.unwrap();
            let result = client.call_tool("hello", serde_json::json!({})).await.unwrap();
            assert_eq!(result.content[0].as_text(), Some("hi"), "{path} {version}");
            client.close().await;
        }
    }
}

#[tokio::test]
async fn other_origins_and_endless_chains_are_not_followed() {
    let base = serve().await;
    let elsewhere = "a redirect to http://evil.example/mcp, not followed";
    for (path, why) in [("/elsewhere", elsewhere), ("/loop", "more than 5 redirects")] {
        // Pinned to 2026, connecting sends nothing: the first call meets the redirect.
        let client = connect(&format!("{base}{path}"), ProtocolVersion::LATEST).await.unwrap();
        let error = client.list_tools(None).await.unwrap_err();
        assert!(error.to_string().contains(why), "{path}: {error}");
    }
}

#[tokio::test]
async fn five_redirects_and_relative_locations_are_followed() {
    let base = serve().await;
    for path in ["/r1", "/a/old"] {
        let client = connect(&format!("{base}{path}"), ProtocolVersion::LATEST).await.unwrap();
        let result = client.call_tool("hello", serde_json::json!({})).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("hi"), "{path}");
        client.close().await;
    }
}
