//! Our own OAuth client ([`OAuthClient`] on [`HttpClientTransport`]) completing real
//! flows against the test authorization server and the protected server: discovery from
//! the `401` challenge and the metadata documents, Dynamic Client Registration, the
//! authorization code with PKCE and the resource indicator, then a step-up on `403
//! insufficient_scope` raised by a per-tool scope policy.

use std::sync::atomic::Ordering;

use mcpwire::auth::server::{BearerAuthLayer, JwtVerifier};
use mcpwire::auth::{OAuthClient, OAuthConfig};
use mcpwire::client::Client;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;
use serde_json::json;

use super::test_as::TestAs;
use super::{protect_with, SCOPE};

const ADMIN_SCOPE: &str = "mcp:admin";

/// Calling the `admin` tool (2026 requests name it in `Mcp-Name`) needs [`ADMIN_SCOPE`].
fn admin_policy(layer: BearerAuthLayer) -> BearerAuthLayer {
    layer.scope_policy(|parts| {
        let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
        match (header("mcp-method"), header("mcp-name")) {
            (Some("tools/call"), Some("admin")) => vec![ADMIN_SCOPE.to_owned()],
            _ => Vec::new(),
        }
    })
}

async fn connect(url: &str, version: &str) -> (Client, OAuthClient) {
    let oauth = OAuthClient::new(OAuthConfig::default());
    let transport = HttpClientTransport::new(url).unwrap().oauth(oauth.clone());
    let client = Client::builder("oauth-e2e", "0")
        .protocol_version(ProtocolVersion::parse(version))
        .connect(transport)
        .await
        .unwrap();
    (client, oauth)
}

fn text(result: &mcpwire::protocol::tools::CallToolResult) -> &str {
    result.content[0].as_text().unwrap()
}

#[tokio::test]
async fn our_oauth_client_authorizes_then_steps_up_for_a_tool_needing_more_scope() {
    let auth = TestAs::start().await;
    let issuer = auth.issuer.clone();
    let server =
        protect_with(&auth.issuer, |resource| JwtVerifier::from_issuer(issuer, resource), admin_policy).await;
    let (client, oauth) = connect(&server.url(), "2026-07-28").await;
    let whoami = client.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(text(&whoami), "alice");
    assert_eq!(auth.tokens_issued.load(Ordering::SeqCst), 1);
    let first = oauth.access_token().await.unwrap();

    // `admin` needs one more scope: 403 insufficient_scope, a second authorization asking
    // for both scopes, then the call succeeds.
    let admin = client.call_tool("admin", json!({})).await.unwrap();
    assert_eq!(text(&admin), "admin ok");
    assert_eq!(auth.tokens_issued.load(Ordering::SeqCst), 2);
    let second = oauth.access_token().await.unwrap();
    assert_ne!(first, second);
    let claims = super::decode_claims(&second);
    let mut scopes: Vec<&str> = claims["scope"].as_str().unwrap().split(' ').collect();
    scopes.sort_unstable();
    assert_eq!(scopes, [ADMIN_SCOPE, SCOPE]);
    assert_eq!(claims["aud"], server.resource.as_str());
    client.close().await;
}

#[tokio::test]
async fn our_oauth_client_authorizes_a_2025_session() {
    let auth = TestAs::start().await;
    let issuer = auth.issuer.clone();
    let server =
        protect_with(&auth.issuer, |resource| JwtVerifier::from_issuer(issuer, resource), admin_policy).await;
    let (client, _) = connect(&server.url(), "2025-11-25").await;
    let whoami = client.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(text(&whoami), "alice");
    // 2025 requests carry no Mcp-Name, so the per-tool policy cannot apply: the global
    // scope suffices.
    assert_eq!(text(&client.call_tool("admin", json!({})).await.unwrap()), "admin ok");
    assert_eq!(auth.tokens_issued.load(Ordering::SeqCst), 1);
    client.close().await;
}
