//! The HTTP client transport's authorization hook, with a hook of the test's own (no
//! OAuth): its headers go with every request, a response it wants to answer makes it
//! authorize and the request go out again, a response it does not want is the request's
//! failure, and a hook that keeps failing is given up on. Against an MCP server behind
//! `BearerAuthLayer` on a loopback socket, in both eras.
#![cfg(feature = "auth")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use mcpwire::auth::server::{
    serve_service, BearerAuthLayer, ResourceMetadata, TokenClaims, TokenError, TokenVerifier, VerifyFuture,
};
use mcpwire::client::Client;
use mcpwire::http::{Bound, McpService};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{tool, Ctx, Server};
use mcpwire::transport::http_client::{AuthHook, HttpClientTransport};
use mcpwire::{Principal, RequestError};
use serde_json::json;

const TOKEN: &str = "granted";

/// Accepts [`TOKEN`] as `hook-user`.
struct OneToken;

impl TokenVerifier for OneToken {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(async move {
            match token == TOKEN {
                true => Ok(TokenClaims { subject: Some("hook-user".into()), ..Default::default() }),
                false => Err(TokenError::Invalid("unknown token".into())),
            }
        })
    }
}

/// An MCP server whose `whoami` names the caller, behind a layer accepting [`TOKEN`].
async fn protected() -> (String, Bound) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Server::builder("protected", "1")
        .tool(tool("whoami").description("The caller").handler(|ctx: Ctx| async move {
            ctx.extensions().get::<Principal>().map(|p| p.0.clone()).unwrap_or_default()
        }))
        .build()
        .unwrap();
    let metadata = ResourceMetadata::new(&url, "http://127.0.0.1:9/unused");
    let layer = BearerAuthLayer::new(OneToken, metadata.url());
    (
        url.clone(),
        serve_service(listener, tower_layer::Layer::layer(&layer, McpService::new(server))).unwrap(),
    )
}

/// A hook with no token until it authorizes; `grant` is the token authorizing gives.
#[derive(Clone)]
struct Hook {
    token: Arc<Mutex<Option<String>>>,
    grant: &'static str,
    wants_401: bool,
    headers_asked: Arc<AtomicUsize>,
    authorized: Arc<AtomicUsize>,
}

impl Hook {
    fn new(grant: &'static str, wants_401: bool) -> Hook {
        Hook {
            token: Default::default(),
            grant,
            wants_401,
            headers_asked: Default::default(),
            authorized: Default::default(),
        }
    }
}

impl AuthHook for Hook {
    fn request_headers(&self, _method: &Method, _uri: &Uri) -> HeaderMap {
        self.headers_asked.fetch_add(1, Ordering::SeqCst);
        let mut headers = HeaderMap::new();
        if let Some(token) = self.token.lock().unwrap().as_deref() {
            headers.insert(
                http::header::AUTHORIZATION,
                HeaderValue::from_str(&format!("Bearer {token}")).unwrap(),
            );
        }
        headers
    }

    fn wants_authorization(&self, status: StatusCode, headers: &HeaderMap) -> bool {
        // The layer's challenge comes with the 401.
        assert!(headers.contains_key(http::header::WWW_AUTHENTICATE));
        self.wants_401 && status == StatusCode::UNAUTHORIZED
    }

    fn authorize<'a>(
        &'a self,
        url: &'a str,
        status: StatusCode,
        _headers: &'a HeaderMap,
    ) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>> {
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(url.ends_with("/mcp"), "{url}");
        self.authorized.fetch_add(1, Ordering::SeqCst);
        *self.token.lock().unwrap() = Some(self.grant.to_owned());
        Box::pin(async { Ok(()) })
    }
}

/// A [`Hook`] that has its token before the first request: [`AuthHook::prepare`] gives it
/// (as an OAuth client loads stored tokens there).
#[derive(Clone)]
struct Prepared {
    hook: Hook,
    prepared: Arc<AtomicUsize>,
}

impl AuthHook for Prepared {
    fn request_headers(&self, method: &Method, uri: &Uri) -> HeaderMap {
        self.hook.request_headers(method, uri)
    }

    fn wants_authorization(&self, status: StatusCode, headers: &HeaderMap) -> bool {
        self.hook.wants_authorization(status, headers)
    }

    fn authorize<'a>(
        &'a self,
        url: &'a str,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>> {
        self.hook.authorize(url, status, headers)
    }

    fn prepare<'a>(&'a self, url: &'a str) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(async move {
            assert!(url.ends_with("/mcp"), "{url}");
            tokio::task::yield_now().await;
            self.prepared.fetch_add(1, Ordering::SeqCst);
            *self.hook.token.lock().unwrap() = Some(TOKEN.to_owned());
        })
    }
}

async fn connect(
    url: &str,
    hook: impl AuthHook,
    era_2025: bool,
) -> Result<Client, mcpwire::client::ConnectError> {
    let mut builder = Client::builder("hook-test", "1");
    builder = match era_2025 {
        true => builder.protocol_version(ProtocolVersion::V2025_11_25),
        false => builder.protocol_version(ProtocolVersion::V2026_07_28),
    };
    builder.connect(HttpClientTransport::new(url).unwrap().oauth(hook)).await
}

#[tokio::test]
async fn a_hook_authorizes_on_a_401_and_its_headers_go_with_every_request() {
    let (url, bound) = protected().await;
    for era_2025 in [true, false] {
        let hook = Hook::new(TOKEN, true);
        let client = connect(&url, hook.clone(), era_2025).await.unwrap();
        for _ in 0..2 {
            let result = client.call_tool("whoami", json!({})).await.unwrap();
            assert_eq!(result.content[0].as_text(), Some("hook-user"), "2025: {era_2025}");
        }
        assert_eq!(hook.authorized.load(Ordering::SeqCst), 1, "one authorization, 2025: {era_2025}");
        assert!(hook.headers_asked.load(Ordering::SeqCst) >= 3, "asked on every request");
        client.close().await;
    }
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_hook_gets_ready_once_before_the_first_request() {
    let (url, bound) = protected().await;
    for era_2025 in [true, false] {
        let hook = Prepared { hook: Hook::new("unused", true), prepared: Default::default() };
        let client = connect(&url, hook.clone(), era_2025).await.unwrap();
        for _ in 0..2 {
            let result = client.call_tool("whoami", json!({})).await.unwrap();
            assert_eq!(result.content[0].as_text(), Some("hook-user"), "2025: {era_2025}");
        }
        assert_eq!(hook.prepared.load(Ordering::SeqCst), 1, "once per connection, 2025: {era_2025}");
        assert_eq!(hook.hook.authorized.load(Ordering::SeqCst), 0, "no 401, 2025: {era_2025}");
        client.close().await;
    }
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_401_the_hook_does_not_want_fails_the_request_and_a_useless_grant_is_given_up_on() {
    let (url, bound) = protected().await;
    // Not wanted: the 401 is the request's failure, without an authorization.
    let hook = Hook::new(TOKEN, false);
    let client = connect(&url, hook.clone(), false).await.unwrap();
    let error = client.call_tool("whoami", json!({})).await.unwrap_err();
    assert!(
        matches!(&error, RequestError::Transport { reason } if reason.starts_with("HTTP 401 Unauthorized")),
        "{error:?}"
    );
    assert_eq!(hook.authorized.load(Ordering::SeqCst), 0);
    client.close().await;
    // Wanted, but the grant never satisfies the server: tried a bounded number of times.
    let hook = Hook::new("useless", true);
    let client = connect(&url, hook.clone(), false).await.unwrap();
    let error = client.call_tool("whoami", json!({})).await.unwrap_err();
    assert!(
        matches!(&error, RequestError::Transport { reason } if reason.contains("unknown token")),
        "{error:?}"
    );
    assert_eq!(hook.authorized.load(Ordering::SeqCst), 3, "three authorizations, then the 401 stands");
    client.close().await;
    bound.shutdown.cancel();
}
