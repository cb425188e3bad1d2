//! What a layer learned about a request reaches the tool: a value an HTTP layer in front
//! of the MCP service put on the request, and one an MCP middleware added, read through
//! the handler's context, in both eras over HTTP and on stdio-like connections.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::Router;
use mcpwire::client::Client;
use mcpwire::http::McpService;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{middleware_fn, tool, Ctx, Server};
use mcpwire::transport::http_client::HttpClientTransport;

/// Who an HTTP layer found behind the request.
#[derive(Clone)]
struct User(&'static str);

/// What an MCP middleware decided about the request.
#[derive(Clone)]
struct Tier(&'static str);

fn server() -> Server {
    let tiering = middleware_fn(|request, mut ctx, next| async move {
        ctx.extensions_mut().insert(Tier("gold"));
        next.run(request, ctx).await
    });
    Server::builder("facts", "1")
        .middleware(tiering)
        .tool(tool("whoami").handler(|ctx: Ctx| async move {
            let user = ctx.extensions().get::<User>().map_or("nobody", |u| u.0);
            let tier = ctx.extensions().get::<Tier>().map_or("none", |t| t.0);
            format!("{user}/{tier}")
        }))
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_http_layers_value_and_a_middlewares_value_reach_the_tool_in_both_eras() {
    let service = McpService::new(server());
    let app = Router::new().route_service("/mcp", service).layer(axum::middleware::from_fn(
        |mut request: axum::extract::Request, next: axum::middleware::Next| async move {
            request.extensions_mut().insert(User("alice"));
            next.run(request).await
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    for version in [ProtocolVersion::LATEST_STATEFUL, ProtocolVersion::LATEST] {
        let client = Client::builder("c", "1")
            .protocol_version(version.clone())
            .connect(HttpClientTransport::new(&url).unwrap())
            .await
            .unwrap();
        let result = client.call_tool("whoami", serde_json::json!({})).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("alice/gold"), "{version}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_middlewares_value_reaches_the_tool_on_a_connection() {
    let (a, b) = mcpwire::transport::memory::pair();
    let serving = server();
    tokio::spawn(async move { serving.serve(b).await });
    let client = Client::builder("c", "1").connect(a).await.unwrap();
    let result = client.call_tool("whoami", serde_json::json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("nobody/gold"));
}
