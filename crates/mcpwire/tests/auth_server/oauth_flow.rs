//! Our own OAuth client ([`OAuthClient`] on [`HttpClientTransport`]) completing real
//! flows against the test authorization server and the protected server: discovery from
//! the `401` challenge and the metadata documents, Dynamic Client Registration, the
//! authorization code with PKCE and the resource indicator, then a step-up on `403
//! insufficient_scope` raised by a per-tool scope policy, in both eras.

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

/// Calling the `admin` tool needs [`ADMIN_SCOPE`].
pub(crate) fn admin_policy(layer: BearerAuthLayer) -> BearerAuthLayer {
    layer.scope_policy(|_parts, calls| {
        let admin = calls.iter().any(|c| c.method == "tools/call" && c.target.as_deref() == Some("admin"));
        if admin {
            vec![ADMIN_SCOPE.to_owned()]
        } else {
            Vec::new()
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

async fn authorize_then_step_up(version: &str) {
    let auth = TestAs::start().await;
    let issuer = auth.issuer.clone();
    let server =
        protect_with(&auth.issuer, |resource| JwtVerifier::from_issuer(issuer, resource), admin_policy).await;
    let (client, oauth) = connect(&server.url(), version).await;
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
async fn our_oauth_client_authorizes_then_steps_up_for_a_tool_needing_more_scope_2026() {
    authorize_then_step_up("2026-07-28").await;
}

#[tokio::test]
async fn our_oauth_client_authorizes_then_steps_up_for_a_tool_needing_more_scope_2025() {
    authorize_then_step_up("2025-11-25").await;
}
