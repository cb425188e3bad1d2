//! The resource-server side of authorization over real loopback HTTP: an MCP server
//! behind `BearerAuthLayer` and `MetadataRouter`, a small authorization server in
//! `auth_server/test_as.rs` (JWK Set, introspection, authorization code + PKCE), and as
//! clients `mcpwire::client` over `HttpClientTransport` or the byte-exact `raw_http`
//! client where statuses and headers are asserted.
#![cfg(feature = "auth")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "mcp_http/mod.rs"]
mod mcp_http;
#[path = "auth_server/oauth_flow.rs"]
mod oauth_flow;
#[path = "auth_server/python_interop.rs"]
mod python_interop;
#[path = "raw_http/mod.rs"]
mod raw_http;
#[path = "auth_server/test_as.rs"]
mod test_as;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_http::stateless_request;
use mcpwire::auth::server::{
    serve_service, BearerAuthLayer, IntrospectionVerifier, JwtVerifier, MetadataRouter, ResourceMetadata,
    TokenClaims, TokenVerifier,
};
use mcpwire::client::Client;
use mcpwire::error::McpError;
use mcpwire::http::{Bound, McpService};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{tool, Ctx, Server};
use mcpwire::transport::http_client::HttpClientTransport;
use mcpwire::Principal;
use raw_http::{send, Req, Response};
use serde_json::{json, Value};
use test_as::{now, Signer, TestAs, RS_CLIENT};

const SCOPE: &str = "mcp:tools";

/// A protected MCP server on a loopback port.
struct Protected {
    addr: SocketAddr,
    resource: String,
    bound: Bound,
}

impl Drop for Protected {
    fn drop(&mut self) {
        self.bound.shutdown.cancel();
    }
}

impl Protected {
    fn url(&self) -> String {
        self.resource.clone()
    }

    fn metadata_url(&self) -> String {
        format!("http://{}/.well-known/oauth-protected-resource/mcp", self.addr)
    }

    /// Asserts the exact refusal: status, challenge (with the configured scope and
    /// `error`) and `error_description`.
    async fn assert_refused(
        &self,
        response: Response,
        status: u16,
        error: &str,
        description: &str,
        what: &str,
    ) {
        assert_eq!(response.status, status, "{what}");
        let challenge = self.challenge(SCOPE, Some(error));
        assert_eq!(response.header("www-authenticate"), Some(challenge.as_str()), "{what}");
        assert_eq!(error_description(response).await, description, "{what}");
    }

    /// The exact challenge expected with `error` (and the configured scope).
    fn challenge(&self, scope: &str, error: Option<&str>) -> String {
        let mut value = format!("Bearer resource_metadata=\"{}\", scope=\"{scope}\"", self.metadata_url());
        if let Some(error) = error {
            value.push_str(&format!(", error=\"{error}\""));
        }
        value
    }
}

fn mcp_server() -> Server {
    Server::builder("protected", "1.0.0")
        .tool(tool("whoami").description("The caller's principal").handler(|ctx: Ctx| async move {
            // The verified token reaches the handler too, with the scopes the layer checked.
            match ctx.extensions().get::<TokenClaims>() {
                Some(claims) if claims.scopes.iter().any(|s| s == SCOPE) => ctx
                    .extensions()
                    .get::<Principal>()
                    .map(|p| p.0.clone())
                    .unwrap_or_else(|| "nobody".into()),
                _ => "no verified token in the handler's context".into(),
            }
        }))
        .tool(
            tool("admin").description("Needs the mcp:admin scope").handler(|_ctx: Ctx| async { "admin ok" }),
        )
        .tool(tool("confirm").description("Asks the caller to confirm").handler(|ctx: Ctx| async move {
            let form =
                json!({ "message": "Sure?", "requestedSchema": { "type": "object", "properties": {} } });
            let answer = ctx.elicit_as("sure", serde_json::from_value(form).unwrap()).await?;
            Ok::<_, McpError>(format!("{:?}", answer.action))
        }))
        .build()
        .unwrap()
}

/// Starts the server behind the layer `verifier` builds, requiring [`SCOPE`].
async fn protect<V: TokenVerifier>(issuer: &str, verifier: impl FnOnce(&str) -> V) -> Protected {
    protect_with(issuer, verifier, |layer| layer).await
}

/// [`protect`], with the layer adjusted by `configure`.
async fn protect_with<V: TokenVerifier>(
    issuer: &str,
    verifier: impl FnOnce(&str) -> V,
    configure: impl FnOnce(BearerAuthLayer) -> BearerAuthLayer,
) -> Protected {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let mut metadata = ResourceMetadata::new(&resource, issuer);
    metadata.scopes_supported = vec![SCOPE.into()];
    metadata.resource_name = Some("Protected test server".into());
    let auth = configure(BearerAuthLayer::new(verifier(&resource), metadata.url()).required_scopes([SCOPE]));
    // Through tower's trait, as `ServiceBuilder` or axum would apply it.
    let app = MetadataRouter::new(&metadata, tower_layer::Layer::layer(&auth, McpService::new(mcp_server())));
    let bound = serve_service(listener, app).unwrap();
    Protected { addr, resource, bound }
}

/// A server trusting `auth`'s JWTs, with the key set found through its metadata.
async fn protect_with_jwt(auth: &TestAs) -> Protected {
    let issuer = auth.issuer.clone();
    protect(&auth.issuer, |resource| JwtVerifier::from_issuer(issuer, resource)).await
}

/// Claims of a good token for `resource`, with `changes` applied (`null` removes).
fn claims(auth: &TestAs, resource: &str, changes: Value) -> Value {
    let mut claims = json!({
        "iss": auth.issuer, "sub": "alice", "aud": resource, "client_id": "app",
        "scope": format!("openid {SCOPE}"), "exp": now() + 300, "iat": now()
    });
    for (k, v) in changes.as_object().unwrap() {
        match v {
            Value::Null => claims.as_object_mut().unwrap().remove(k),
            v => claims.as_object_mut().unwrap().insert(k.clone(), v.clone()),
        };
    }
    claims
}

/// An EdDSA token of the AS's published key `ed`.
fn ed_token(auth: &TestAs, claims: &Value) -> String {
    auth.signer.token(json!({"alg": "EdDSA", "kid": "ed", "typ": "at+jwt"}), claims)
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
}

fn with_token(req: Req, token: &str) -> Req {
    req.header("authorization", &format!("Bearer {token}"))
}

/// A 2025 `initialize` POST carrying `token`.
async fn init_with(addr: SocketAddr, token: Option<&str>) -> Response {
    let req = Req::post(&initialize("2025-11-25"));
    send(addr, if let Some(t) = token { with_token(req, t) } else { req }).await
}

async fn error_description(response: Response) -> String {
    response.json().await["error_description"].as_str().unwrap_or_default().to_owned()
}

async fn whoami(url: &str, token: &str, version: &str) -> Result<String, String> {
    let transport = HttpClientTransport::new(url).unwrap().bearer_token(token).unwrap();
    let client = Client::builder("auth-test", "0")
        .protocol_version(ProtocolVersion::parse(version))
        .connect(transport)
        .await
        .map_err(|e| e.to_string())?;
    let result = client.call_tool("whoami", json!({})).await.map_err(|e| e.to_string())?;
    client.close().await;
    Ok(result.content[0].as_text().unwrap().to_owned())
}

#[tokio::test]
async fn valid_tokens_of_every_algorithm_reach_the_handler_with_their_principal() {
    let auth = TestAs::start().await;
    let (ec, rsa) = (Signer::p256(), Signer::rsa());
    auth.publish_also(ec.jwk("ec"));
    auth.publish_also(rsa.jwk("rsa"));
    let server = protect_with_jwt(&auth).await;
    let cases: [(&Signer, &str, &str); 4] =
        [(&auth.signer, "EdDSA", "ed"), (&ec, "ES256", "ec"), (&rsa, "RS256", "rsa"), (&rsa, "PS256", "rsa")];
    for (signer, alg, kid) in cases {
        let claims = claims(&auth, &server.resource, json!({ "sub": format!("user-{alg}") }));
        let token = signer.token(json!({"alg": alg, "kid": kid}), &claims);
        for version in ["2025-11-25", "2026-07-28"] {
            assert_eq!(
                whoami(&server.url(), &token, version).await,
                Ok(format!("user-{alg}")),
                "{alg} {version}"
            );
        }
    }
    // A client-credentials token names no user: the client is the principal.
    let token = ed_token(&auth, &claims(&auth, &server.resource, json!({"sub": null, "client_id": "robot"})));
    assert_eq!(whoami(&server.url(), &token, "2026-07-28").await, Ok("robot".into()));
    // The key set was fetched once (through the issuer's metadata) for all of them.
    assert_eq!(auth.jwks_fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_request_without_a_token_gets_401_with_the_challenge() {
    let auth = TestAs::start().await;
    let server = protect_with_jwt(&auth).await;
    let response = init_with(server.addr, None).await;
    assert_eq!(response.status, 401);
    // RFC 6750 §3.1: no error code when the request carried no credentials.
    assert_eq!(response.header("www-authenticate"), Some(server.challenge(SCOPE, None).as_str()));
    let response =
        send(server.addr, Req::post(&initialize("2025-11-25")).header("authorization", "Basic YTpi")).await;
    assert_eq!(response.status, 401);
    assert_eq!(response.header("www-authenticate"), Some(server.challenge(SCOPE, None).as_str()));
    // Our own client without a token cannot connect.
    let transport = HttpClientTransport::new(&server.url()).unwrap();
    assert!(Client::builder("t", "0").connect(transport).await.is_err());
}

/// Rule 10.4: `offline_access` is not this resource's scope, so the challenge never
/// asks for it, even when configured among the required scopes.
#[tokio::test]
async fn the_challenge_never_asks_for_offline_access() {
    let auth = TestAs::start().await;
    let issuer = auth.issuer.clone();
    let server = protect_with(
        &auth.issuer,
        |resource| JwtVerifier::from_issuer(issuer, resource),
        |layer| layer.required_scopes([SCOPE, "offline_access"]),
    )
    .await;
    let response = init_with(server.addr, None).await;
    assert_eq!(response.status, 401);
    assert_eq!(response.header("www-authenticate"), Some(server.challenge(SCOPE, None).as_str()));
}

#[tokio::test]
async fn bad_tokens_get_401_invalid_token() {
    let auth = TestAs::start().await;
    let server = protect_with_jwt(&auth).await;
    let good = |changes: Value| claims(&auth, &server.resource, changes);
    let other_key = Signer::ed25519();
    let header = |alg: &str| json!({"alg": alg, "kid": "ed"});
    let none_token = {
        let b = |v: &Value| base64_url(v.to_string().as_bytes());
        format!("{}.{}.", b(&header("none")), b(&good(json!({}))))
    };
    let hs_token = {
        let b = |v: &Value| base64_url(v.to_string().as_bytes());
        format!("{}.{}.{}", b(&header("HS256")), b(&good(json!({}))), base64_url(b"mac"))
    };
    let cases = [
        ("expired", ed_token(&auth, &good(json!({"exp": now() - 120}))), "the token expired"),
        ("not yet valid", ed_token(&auth, &good(json!({"nbf": now() + 600}))), "the token is not valid yet"),
        ("no expiry", ed_token(&auth, &good(json!({"exp": null}))), "the token has no exp"),
        (
            "wrong audience",
            ed_token(&auth, &good(json!({"aud": "http://elsewhere/mcp"}))),
            "the token is not for this resource",
        ),
        ("no audience", ed_token(&auth, &good(json!({"aud": null}))), "the token is not for this resource"),
        (
            "wrong issuer",
            ed_token(&auth, &good(json!({"iss": "http://evil.example"}))),
            "the token comes from another issuer",
        ),
        ("wrong signature", other_key.token(header("EdDSA"), &good(json!({}))), "bad signature"),
        ("alg none", none_token, "algorithm \"none\" is not allowed"),
        ("alg HS256", hs_token, "algorithm \"HS256\" is not allowed"),
        (
            "alg mismatch",
            auth.signer.token(header("ES256"), &good(json!({}))),
            "no known key matches the token's kid and alg",
        ),
        ("not a JWT", "abc.def".to_owned(), "not a JWS in compact form"),
        (
            "20 KiB long",
            format!("{}.{}.{}", "a".repeat(10240), "b".repeat(10240), "c"),
            "the token is too long",
        ),
        (
            "no subject",
            ed_token(&auth, &good(json!({"sub": null, "client_id": null}))),
            "the token names neither a subject nor a client",
        ),
    ];
    for (what, token, description) in cases {
        let response = init_with(server.addr, Some(&token)).await;
        server.assert_refused(response, 401, "invalid_token", description, what).await;
    }
    // Within the 60 s leeway, a just-expired token still works.
    let token = ed_token(&auth, &good(json!({"exp": now() - 10})));
    assert_eq!(init_with(server.addr, Some(&token)).await.status, 200);
}

/// The claims of a JWT, unverified (to look at what the AS issued).
fn decode_claims(token: &str) -> Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).unwrap();
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap())
        .unwrap()
}

fn base64_url(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[tokio::test]
async fn a_token_lacking_the_required_scope_gets_403_naming_it() {
    let auth = TestAs::start().await;
    let server = protect_with_jwt(&auth).await;
    let token = ed_token(&auth, &claims(&auth, &server.resource, json!({"scope": "openid mcp:other"})));
    let response = init_with(server.addr, Some(&token)).await;
    let description = "the token lacks a required scope";
    server.assert_refused(response, 403, "insufficient_scope", description, "mcp:other").await;
    // Scopes as an `scp` array count too.
    let token = ed_token(&auth, &claims(&auth, &server.resource, json!({"scope": null, "scp": [SCOPE]})));
    assert_eq!(init_with(server.addr, Some(&token)).await.status, 200);
}

#[tokio::test]
async fn query_string_tokens_and_malformed_credentials_get_400() {
    let auth = TestAs::start().await;
    let server = protect_with_jwt(&auth).await;
    let token = ed_token(&auth, &claims(&auth, &server.resource, json!({})));
    let mut in_query = with_token(Req::post(&initialize("2025-11-25")), &token);
    in_query.path = format!("/mcp?access_token={token}");
    let twice = with_token(with_token(Req::post(&initialize("2025-11-25")), &token), &token);
    let spaced = Req::post(&initialize("2025-11-25")).header("authorization", "Bearer a b");
    for (what, req, description) in [
        ("token in the query", in_query, "access tokens are not accepted in the query string"),
        ("two Authorization headers", twice, "more than one Authorization header"),
        ("not a b64token", spaced, "the bearer token is malformed"),
    ] {
        let response = send(server.addr, req).await;
        server.assert_refused(response, 400, "invalid_request", description, what).await;
    }
}

#[tokio::test]
async fn an_unknown_kid_refetches_the_key_set_at_most_once_per_interval() {
    let auth = TestAs::start().await;
    let jwks = auth.url("/jwks");
    let issuer = auth.issuer.clone();
    // Long enough for each flood below to fit inside it on a busy machine.
    let interval = Duration::from_secs(4);
    let server = protect(&auth.issuer, |resource| {
        JwtVerifier::new(jwks, issuer, resource).min_refetch_interval(interval)
    })
    .await;
    let good = claims(&auth, &server.resource, json!({}));
    assert_eq!(init_with(server.addr, Some(&ed_token(&auth, &good))).await.status, 200);
    assert_eq!(auth.jwks_fetches.load(Ordering::SeqCst), 1);
    // A flood of made-up kids right after a fetch: refused without asking the AS.
    let started = std::time::Instant::now();
    for i in 0..10 {
        let token = auth.signer.token(json!({"alg": "EdDSA", "kid": format!("random-{i}")}), &good);
        let response = init_with(server.addr, Some(&token)).await;
        assert_eq!(response.status, 401);
        assert_eq!(error_description(response).await, "no known key matches the token's kid and alg");
    }
    // The AS rotates in a new key: tokens naming it work once the interval has passed,
    // after exactly one more fetch.
    let rotated = Signer::ed25519();
    auth.publish_also(rotated.jwk("new"));
    let token = rotated.token(json!({"alg": "EdDSA", "kid": "new"}), &good);
    assert!(started.elapsed() < interval, "the flood took longer than the refetch interval");
    assert_eq!(init_with(server.addr, Some(&token)).await.status, 401);
    assert_eq!(auth.jwks_fetches.load(Ordering::SeqCst), 1);
    tokio::time::sleep(interval + Duration::from_millis(100)).await;
    assert_eq!(init_with(server.addr, Some(&token)).await.status, 200);
    assert_eq!(auth.jwks_fetches.load(Ordering::SeqCst), 2);
    for i in 0..5 {
        let token = auth.signer.token(json!({"alg": "EdDSA", "kid": format!("again-{i}")}), &good);
        assert_eq!(init_with(server.addr, Some(&token)).await.status, 401);
    }
    assert_eq!(auth.jwks_fetches.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_slow_key_set_fetch_does_not_hold_up_tokens_of_known_keys() {
    let auth = TestAs::start().await;
    let (jwks, issuer) = (auth.url("/jwks"), auth.issuer.clone());
    let server = protect(&auth.issuer, |resource| {
        JwtVerifier::new(jwks, issuer, resource)
            .min_refetch_interval(Duration::ZERO)
            .fetch_timeout(Duration::from_secs(30))
    })
    .await;
    let good = claims(&auth, &server.resource, json!({}));
    let known = ed_token(&auth, &good);
    assert_eq!(init_with(server.addr, Some(&known)).await.status, 200);
    // An unknown kid starts a refetch that the AS answers only after 20 s.
    *auth.jwks_delay.lock().unwrap() = Duration::from_secs(20);
    let unknown = auth.signer.token(json!({"alg": "EdDSA", "kid": "unknown"}), &good);
    // Sent without reading the answer, so that nothing times out meanwhile.
    let pending =
        raw_http::send_only(server.addr, with_token(Req::post(&initialize("2025-11-25")), &unknown)).await;
    while auth.jwks_fetches.load(Ordering::SeqCst) < 2 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(init_with(server.addr, Some(&known)).await.status, 200);
    assert_eq!(auth.jwks_answers.load(Ordering::SeqCst), 1, "the known key waited for the refetch");
    drop(pending);
}

/// Verifications that queued behind a key-set fetch that timed out use the stale keys,
/// rather than each fetching again after the one before timed out (one fetch, not six,
/// and not six fetch timeouts one after another).
#[tokio::test]
async fn requests_waiting_on_a_hanging_key_set_fetch_it_once() {
    let auth = TestAs::start().await;
    let (jwks, issuer) = (auth.url("/jwks"), auth.issuer.clone());
    let server = protect(&auth.issuer, |resource| {
        JwtVerifier::new(jwks, issuer, resource)
            .jwks_ttl(Duration::from_millis(100))
            .min_refetch_interval(Duration::from_millis(500))
            .fetch_timeout(Duration::from_millis(500))
    })
    .await;
    let known = ed_token(&auth, &claims(&auth, &server.resource, json!({})));
    assert_eq!(init_with(server.addr, Some(&known)).await.status, 200);
    // The keys go stale and a refetch falls due; the AS then hangs.
    tokio::time::sleep(Duration::from_millis(700)).await;
    *auth.jwks_delay.lock().unwrap() = Duration::from_secs(30);
    let requests = (0..6).map(|_| init_with(server.addr, Some(&known)));
    let answers = futures_util::future::join_all(requests).await;
    assert!(answers.iter().all(|a| a.status == 200), "the stale keys still serve");
    assert_eq!(auth.jwks_fetches.load(Ordering::SeqCst), 2, "one refetch for all six");
}

#[tokio::test]
async fn typ_at_jwt_can_be_required() {
    let auth = TestAs::start().await;
    let issuer = auth.issuer.clone();
    let server =
        protect(&auth.issuer, |resource| JwtVerifier::from_issuer(issuer, resource).require_at_jwt_typ(true))
            .await;
    let good = claims(&auth, &server.resource, json!({}));
    for typ in ["at+jwt", "application/at+jwt", "AT+JWT"] {
        let token = auth.signer.token(json!({"alg": "EdDSA", "kid": "ed", "typ": typ}), &good);
        assert_eq!(init_with(server.addr, Some(&token)).await.status, 200, "{typ}");
    }
    for header in [json!({"alg": "EdDSA", "kid": "ed", "typ": "JWT"}), json!({"alg": "EdDSA", "kid": "ed"})] {
        let response = init_with(server.addr, Some(&auth.signer.token(header.clone(), &good))).await;
        let what = header.to_string();
        server.assert_refused(response, 401, "invalid_token", "the token is not typed at+jwt", &what).await;
    }
}

async fn protect_with_introspection(auth: &TestAs, secret: &str) -> Protected {
    let endpoint = auth.url("/introspect");
    let issuer = auth.issuer.clone();
    let secret = secret.to_owned();
    protect(&auth.issuer, move |resource| {
        IntrospectionVerifier::new(endpoint, RS_CLIENT.0, &secret, resource)
            .claim_rules(|r| r.issuer = Some(issuer))
    })
    .await
}

#[tokio::test]
async fn introspection_accepts_active_tokens_caches_them_and_refuses_the_rest() {
    let auth = TestAs::start().await;
    let server = protect_with_introspection(&auth, RS_CLIENT.1).await;
    let active = |aud: &str| json!({"active": true, "iss": auth.issuer, "sub": "carol", "aud": aud, "scope": SCOPE, "exp": now() + 300});
    auth.set_introspection("opaque-carol", active(&server.resource));
    auth.set_introspection("opaque-elsewhere", active("http://elsewhere/mcp"));
    auth.set_introspection("opaque-revoked", json!({"active": false, "sub": "carol"}));
    auth.set_introspection(
        "opaque-expired",
        json!({"active": true, "iss": auth.issuer, "sub": "carol",
        "aud": server.resource, "scope": SCOPE, "exp": now() - 3600}),
    );

    assert_eq!(whoami(&server.url(), "opaque-carol", "2026-07-28").await, Ok("carol".into()));
    let asked = auth.introspections.load(Ordering::SeqCst);
    assert_eq!(asked, 1, "one introspection for the whole connection (cached)");
    assert_eq!(whoami(&server.url(), "opaque-carol", "2025-11-25").await, Ok("carol".into()));
    assert_eq!(auth.introspections.load(Ordering::SeqCst), 1);

    for (token, description) in [
        ("opaque-revoked", "the token is not active"),
        ("opaque-unknown", "the token is not active"),
        ("opaque-elsewhere", "the token is not for this resource"),
        ("opaque-expired", "the token expired"),
    ] {
        let response = init_with(server.addr, Some(token)).await;
        server.assert_refused(response, 401, "invalid_token", description, token).await;
    }
    // Refusals are not cached: asking again asks the AS again.
    let before = auth.introspections.load(Ordering::SeqCst);
    assert_eq!(init_with(server.addr, Some("opaque-revoked")).await.status, 401);
    assert_eq!(auth.introspections.load(Ordering::SeqCst), before + 1);
}

/// A token longer than any verifier reads is refused before introspection sends it on.
#[tokio::test]
async fn introspection_refuses_an_overlong_token_without_asking_the_as() {
    let auth = TestAs::start().await;
    let server = protect_with_introspection(&auth, RS_CLIENT.1).await;
    let huge = "t".repeat(100 * 1024);
    let response = init_with(server.addr, Some(&huge)).await;
    assert_eq!(response.status, 401);
    assert_eq!(auth.introspections.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn introspection_the_as_refuses_answers_503() {
    let auth = TestAs::start().await;
    let server = protect_with_introspection(&auth, "wrong secret").await;
    auth.set_introspection("opaque-carol", json!({"active": true, "sub": "carol", "aud": server.resource}));
    let response = init_with(server.addr, Some("opaque-carol")).await;
    assert_eq!(response.status, 503);
    assert_eq!(response.header("www-authenticate"), None);
}

#[tokio::test]
async fn an_unreachable_key_set_answers_503_without_a_challenge() {
    let auth = TestAs::start().await;
    // A port nothing listens on (bound, then released).
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let issuer = auth.issuer.clone();
    let server = protect(&auth.issuer, |resource| {
        JwtVerifier::new(format!("http://{closed}/jwks"), issuer, resource)
            .fetch_timeout(Duration::from_secs(2))
    })
    .await;
    let token = ed_token(&auth, &claims(&auth, &server.resource, json!({})));
    let response = init_with(server.addr, Some(&token)).await;
    assert_eq!(response.status, 503);
    assert_eq!(response.header("www-authenticate"), None);
    let body = response.json().await;
    assert_eq!(
        body,
        json!({"error": "temporarily_unavailable", "error_description": "token verification is temporarily unavailable"})
    );
    // Requests before the next fetch is due are still undecided, not invalid: a 401
    // would make the client throw its good token away.
    for _ in 0..2 {
        let response = init_with(server.addr, Some(&token)).await;
        assert_eq!(response.status, 503);
        assert_eq!(response.header("www-authenticate"), None);
    }
}

#[tokio::test]
async fn a_scope_policy_reads_the_tool_from_the_body_in_2025_too() {
    let auth = TestAs::start().await;
    let issuer = auth.issuer.clone();
    let server = protect_with(
        &auth.issuer,
        |resource| JwtVerifier::from_issuer(issuer, resource),
        |layer| oauth_flow::admin_policy(layer).max_body_bytes(64 * 1024),
    )
    .await;
    let token = ed_token(&auth, &claims(&auth, &server.resource, json!({})));
    let opened = init_with(server.addr, Some(&token)).await;
    assert_eq!(opened.status, 200);
    let sid = opened.header("mcp-session-id").unwrap().to_owned();
    let call =
        |name: &str| json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name}});
    let response = send(server.addr, with_token(in_session(&call("admin"), &sid), &token)).await;
    let needed = format!("{SCOPE} mcp:admin");
    assert_eq!(response.status, 403);
    let challenge = server.challenge(&needed, Some("insufficient_scope"));
    assert_eq!(response.header("www-authenticate"), Some(challenge.as_str()));
    let mut response = send(server.addr, with_token(in_session(&call("whoami"), &sid), &token)).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.next_message().await["result"]["content"][0]["text"], "alice");
    // A repeated member could be read differently by the policy and the endpoint: 400.
    let twice =
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","name":"admin"}}"#;
    let response =
        send(server.addr, with_token(in_session(&json!({}), &sid).body(twice.to_vec()), &token)).await;
    let description = "the body is not a readable JSON-RPC message";
    server.assert_refused(response, 400, "invalid_request", description, "repeated name").await;
    let huge = in_session(&json!({"pad": "x".repeat(70 * 1024)}), &sid);
    let response = send(server.addr, with_token(huge, &token)).await;
    assert_eq!((response.status, response.header("www-authenticate")), (413, None));
    // Without a token, the body is not read at all: 401, not 413.
    let huge = in_session(&json!({"pad": "x".repeat(70 * 1024)}), &sid);
    assert_eq!(send(server.addr, huge).await.status, 401);
}

#[tokio::test]
async fn a_client_that_never_finishes_its_request_head_is_disconnected() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let auth = TestAs::start().await;
    let server = protect_with_jwt(&auth).await;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
    // hyper's header read timeout is 30 s; the connection must end well before a minute.
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server kept a half-sent request open for a minute");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "{answer}");
}

/// A 2025 request in session `sid`.
fn in_session(body: &Value, sid: &str) -> Req {
    Req::post(body).header("mcp-session-id", sid).header("mcp-protocol-version", "2025-11-25")
}

#[tokio::test]
async fn another_principals_token_cannot_use_a_2025_session() {
    let auth = TestAs::start().await;
    let server = protect_with_jwt(&auth).await;
    let alice = ed_token(&auth, &claims(&auth, &server.resource, json!({})));
    let bob = ed_token(&auth, &claims(&auth, &server.resource, json!({"sub": "bob"})));
    let opened = init_with(server.addr, Some(&alice)).await;
    assert_eq!(opened.status, 200);
    let sid = opened.header("mcp-session-id").unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(send(server.addr, with_token(in_session(&initialized, &sid), &alice)).await.status, 202);

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let get = Req::new("GET").header("accept", "text/event-stream").header("mcp-session-id", &sid);
    let delete = Req::new("DELETE").header("mcp-session-id", &sid);
    for (what, req) in [("POST", in_session(&list, &sid)), ("GET", get), ("DELETE", delete)] {
        let response = send(server.addr, with_token(req, &bob)).await;
        assert_eq!(response.status, 404, "bob's {what}");
        assert_eq!(response.json().await["error"]["message"], "Session not found", "bob's {what}");
    }
    // The session survived bob's DELETE and still serves alice.
    let mut response = send(server.addr, with_token(in_session(&list, &sid), &alice)).await;
    assert_eq!(response.status, 200);
    let message = response.next_message().await;
    assert_eq!(message["result"]["tools"][0]["name"], "whoami");
}

/// Rule 6.7: a 2026 `requestState` is bound to the principal it was sealed for, so a
/// retry carrying it under another principal's token is refused, and its own still works.
#[tokio::test]
async fn a_request_state_is_bound_to_its_principal() {
    let auth = TestAs::start().await;
    let server = protect_with_jwt(&auth).await;
    let alice = ed_token(&auth, &claims(&auth, &server.resource, json!({})));
    let bob = ed_token(&auth, &claims(&auth, &server.resource, json!({"sub": "bob"})));
    let caps = json!({ "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } } });
    let first = json!({ "name": "confirm", "arguments": {}, "_meta": caps });
    let first = mcp_http::answer(
        send(server.addr, with_token(stateless_request(1, "tools/call", first), &alice)).await,
    )
    .await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap();
    let retry = |id| {
        let params = json!({ "name": "confirm", "arguments": {}, "requestState": state, "_meta": caps,
            "inputResponses": { "sure": { "action": "accept", "content": {} } } });
        stateless_request(id, "tools/call", params)
    };
    let stolen = mcp_http::answer(send(server.addr, with_token(retry(2), &bob)).await).await;
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    assert_eq!(stolen["error"]["message"], "Invalid or expired requestState", "{stolen}");
    let own = mcp_http::answer(send(server.addr, with_token(retry(3), &alice)).await).await;
    assert_eq!(own["result"]["content"][0]["text"], "Accept", "{own}");
}

#[tokio::test]
async fn the_metadata_document_is_served_at_both_well_known_paths() {
    let auth = TestAs::start().await;
    let server = protect_with_jwt(&auth).await;
    let expected = json!({
        "resource": server.resource,
        "authorization_servers": [auth.issuer],
        "scopes_supported": [SCOPE],
        "bearer_methods_supported": ["header"],
        "resource_name": "Protected test server"
    });
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let mut req = Req::new("GET");
        req.path = path.into();
        let response = send(server.addr, req).await;
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert_eq!(response.json().await, expected, "{path}");
    }
    let mut post = Req::post(&json!({}));
    post.path = "/.well-known/oauth-protected-resource/mcp".into();
    let response = send(server.addr, post).await;
    assert_eq!((response.status, response.header("allow")), (405, Some("GET, HEAD")));
    let mut elsewhere = Req::new("GET");
    elsewhere.path = "/other".into();
    assert_eq!(send(server.addr, elsewhere).await.status, 404);
    assert_eq!(
        server.metadata_url(),
        ResourceMetadata::new(server.resource.clone(), auth.issuer.clone()).url()
    );
}

/// Credentials a hostile client may send: a token with non-ASCII bytes, a scheme in
/// other cases (`bearer`, `BEARER`: RFC 9110 schemes are case-insensitive), another
/// scheme, an empty one, an 18 KiB token and a 1 MiB header. Each gets its exact refusal
/// (or, past the server's head limit, no answer) and the server serves on; no refusal
/// repeats the token.
#[tokio::test]
async fn hostile_credentials_get_exact_refusals_and_the_server_serves_on() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let auth = TestAs::start().await;
    let server = protect_with_jwt(&auth).await;
    let token = ed_token(&auth, &claims(&auth, &server.resource, json!({})));
    for scheme in ["bearer", "BEARER", "bEaReR"] {
        let req = Req::post(&initialize("2025-11-25")).header("authorization", &format!("{scheme} {token}"));
        assert_eq!(send(server.addr, req).await.status, 200, "{scheme}");
    }
    let long = format!("{}.{}.{}", "a".repeat(9000), "b".repeat(9000), "c");
    let cases = [
        ("Bearer t\u{f6}ken", 400, "the Authorization header is not text"),
        ("Basic YTpi", 401, "no bearer token"),
        ("Bearer", 401, "no bearer token"),
        ("Bearer ===", 400, "the bearer token is malformed"),
        (long.as_str(), 401, "the token is too long"),
    ];
    for (value, status, description) in cases {
        let value = if value == long { format!("Bearer {long}") } else { value.to_owned() };
        let req = Req::post(&initialize("2025-11-25")).header("authorization", &value);
        let response = send(server.addr, req).await;
        assert_eq!(response.status, status, "{description}");
        let body = response.text().await;
        assert!(body.contains(description), "{body}");
        assert!(!body.contains("aaaaaaaa"), "the refusal does not repeat the token");
    }
    // A 1 MiB header: refused by the HTTP server itself, without a hang.
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\r\n",
        "a".repeat(1 << 20)
    );
    let _ = stream.write_all(head.as_bytes()).await;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server answered or closed");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 431"), "{answer}");
    assert_eq!(init_with(server.addr, Some(&token)).await.status, 200, "the server serves on");
}
