//! The OAuth client against a real (test) authorization server over loopback sockets:
//! DPoP proofs and nonce retries at the token endpoint and the resource server, refresh
//! before re-authorizing (and ahead of expiry), and the machine-to-machine grants.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod scratch;
#[path = "auth_client_support.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use mcpwire::auth::{
    ClientCredentials, DpopPolicy, Grant, IdentityProvider, OAuthClient, OAuthConfig, SigningKey,
    StaticAssertion,
};
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use support::{ath, verify_es256, verify_proof, Knobs, TestAs};

fn client(config: OAuthConfig) -> OAuthClient {
    OAuthClient::new(OAuthConfig { redirect_uri: "http://127.0.0.1:1/callback".into(), ..config })
}

/// A client of a machine-to-machine grant with pre-registered credentials.
fn with_grant(grant: Grant, credentials: ClientCredentials) -> OAuthClient {
    client(OAuthConfig { grant, pre_registered: Some((None, credentials)), ..OAuthConfig::default() })
}

fn uri(s: &str) -> http::Uri {
    s.parse().unwrap()
}

#[tokio::test]
async fn dpop_token_request_retries_with_the_servers_nonce_and_binds_requests() {
    let test_as =
        TestAs::start(Knobs { dpop: true, as_nonce: Some("as-nonce-1".into()), ..Knobs::default() }).await;
    let oauth = client(OAuthConfig::default());
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();

    let tokens = test_as.seen("/token");
    assert_eq!(tokens.len(), 2, "one use_dpop_nonce answer, one retry");
    let (_, first) = tokens[0].dpop.clone().expect("a proof on the first token request");
    let (_, retry) = tokens[1].dpop.clone().expect("a proof on the retry");
    assert!(first.get("nonce").is_none());
    assert_eq!(retry["nonce"], "as-nonce-1");
    assert_ne!(first["jti"], retry["jti"]);
    for claims in [&first, &retry] {
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], format!("{}/token", test_as.issuer));
        assert!(claims.get("ath").is_none(), "no access token at the token endpoint");
    }
    assert_eq!(tokens[1].form["grant_type"], "authorization_code");
    assert_eq!(tokens[1].form["resource"], test_as.resource);

    // Resource requests: `Authorization: DPoP`, a fresh proof bound to the token.
    let target = format!("{}?session=1#frag", test_as.resource);
    let headers = oauth.request_headers(&http::Method::POST, &uri(&target)).await;
    assert_eq!(headers["authorization"], "DPoP at-1");
    let (header, claims) = verify_proof(headers["dpop"].to_str().unwrap());
    assert_eq!(
        header["jwk"],
        tokens[1].dpop.as_ref().unwrap().0["jwk"],
        "the same key as at the token endpoint"
    );
    assert_eq!(claims["htm"], "POST");
    assert_eq!(claims["htu"], test_as.resource, "no query, no fragment");
    assert_eq!(claims["ath"], ath("at-1"));
    assert!(claims.get("nonce").is_none(), "the AS nonce is not the resource server's");
    let again = oauth.request_headers(&http::Method::GET, &uri(&test_as.resource)).await;
    let (_, again) = verify_proof(again["dpop"].to_str().unwrap());
    assert_eq!(again["htm"], "GET");
    assert_ne!(again["jti"], claims["jti"]);
}

#[tokio::test]
async fn resource_server_nonce_challenge_is_answered_without_a_new_token() {
    let test_as = TestAs::start(Knobs { dpop: true, ..Knobs::default() }).await;
    let oauth = client(OAuthConfig::default());
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let mut nonce_challenge = http::HeaderMap::new();
    nonce_challenge
        .insert("www-authenticate", r#"DPoP error="use_dpop_nonce", algs="ES256""#.parse().unwrap());
    nonce_challenge.insert("dpop-nonce", "rs-nonce-1".parse().unwrap());
    oauth.authorize(&test_as.resource, &nonce_challenge, false).await.unwrap();
    assert_eq!(test_as.seen("/token").len(), 1, "a nonce challenge needs no new token");
    let headers = oauth.request_headers(&http::Method::POST, &uri(&test_as.resource)).await;
    let (_, claims) = verify_proof(headers["dpop"].to_str().unwrap());
    assert_eq!(claims["nonce"], "rs-nonce-1");
    assert_eq!(headers["authorization"], "DPoP at-1");
    // The same nonce refused again: a server that keeps refusing is not retried forever.
    assert!(oauth.authorize(&test_as.resource, &nonce_challenge, false).await.is_err());
}

#[tokio::test]
async fn dpop_never_means_bearer_tokens_without_proofs() {
    let test_as = TestAs::start(Knobs { dpop: true, ..Knobs::default() }).await;
    let oauth = client(OAuthConfig { dpop: DpopPolicy::Never, ..OAuthConfig::default() });
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert!(test_as.seen("/token")[0].dpop.is_none());
    let headers = oauth.request_headers(&http::Method::POST, &uri(&test_as.resource)).await;
    assert_eq!(headers["authorization"], "Bearer at-1");
    assert!(headers.get("dpop").is_none());
}

#[tokio::test]
async fn a_401_refreshes_first_and_authorizes_again_when_the_refresh_is_refused() {
    let test_as = TestAs::start(Knobs { issue_refresh: true, ..Knobs::default() }).await;
    let oauth = client(OAuthConfig::default());
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert_eq!(oauth.access_token().await.as_deref(), Some("at-1"));

    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let tokens = test_as.seen("/token");
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[1].form["grant_type"], "refresh_token");
    assert_eq!(tokens[1].form["refresh_token"], "rt-1");
    assert_eq!(tokens[1].form["resource"], test_as.resource);
    assert_eq!(test_as.seen("/authorize").len(), 1, "no second trip through the user");
    assert_eq!(oauth.tokens().unwrap().refresh_token.as_deref(), Some("rt-2"));

    test_as.knobs(|k| k.refuse_refresh = true);
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let tokens = test_as.seen("/token");
    let grants: Vec<&str> = tokens.iter().map(|t| t.form["grant_type"].as_str()).collect();
    assert_eq!(grants, ["authorization_code", "refresh_token", "refresh_token", "authorization_code"]);
    assert_eq!(test_as.seen("/authorize").len(), 2);
    assert_eq!(oauth.access_token().await.as_deref(), Some("at-3"));
}

/// Requests made every 20 ms until `done` (at most 10 s): whether it came.
async fn requests_until(oauth: &OAuthClient, test_as: &TestAs, done: impl Fn() -> bool) -> bool {
    let requests = async {
        while !done() {
            let headers = oauth.request_headers(&http::Method::POST, &uri(&test_as.resource)).await;
            assert_eq!(headers["authorization"], "Bearer at-1", "each request goes with the current token");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), requests).await.is_ok()
}

/// A token of 2 s, under twice the 60 s refresh-ahead window: refreshed in the
/// background once half its lifetime has passed, while requests go on with it.
#[tokio::test]
async fn a_token_near_its_expiry_is_refreshed_in_the_background() {
    let test_as = TestAs::start(Knobs { issue_refresh: true, expires_in: Some(2), ..Knobs::default() }).await;
    let oauth = client(OAuthConfig::default());
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let refreshed = requests_until(&oauth, &test_as, || test_as.seen("/token").len() >= 2).await;
    assert!(refreshed, "a request past half the token's lifetime started a refresh");
    let replaced = tokio::time::timeout(Duration::from_secs(10), async {
        while oauth.access_token().await.as_deref() != Some("at-2") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(replaced.is_ok(), "the background refresh replaced the token");
    assert_eq!(test_as.seen("/token")[1].form["grant_type"], "refresh_token");
}

#[tokio::test]
async fn a_refused_background_refresh_is_tried_once_per_token() {
    let test_as = TestAs::start(Knobs {
        issue_refresh: true,
        refuse_refresh: true,
        expires_in: Some(2),
        ..Knobs::default()
    })
    .await;
    let oauth = client(OAuthConfig::default());
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let tried = requests_until(&oauth, &test_as, || test_as.seen("/token").len() >= 2).await;
    assert!(tried, "the first request near expiry tries a refresh");
    for _ in 0..10 {
        let headers = oauth.request_headers(&http::Method::POST, &uri(&test_as.resource)).await;
        assert_eq!(headers["authorization"], "Bearer at-1");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let grants: Vec<String> = test_as.seen("/token").iter().map(|t| t.form["grant_type"].clone()).collect();
    assert_eq!(grants, ["authorization_code", "refresh_token"], "one refused refresh, not one per request");
}

/// A PKCS#8 PEM of a fresh P-256 key, and its public point.
fn es256_pem() -> (String, Vec<u8>) {
    let rng = ring::rand::SystemRandom::new();
    let der = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der.as_ref(), &rng).unwrap();
    let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, der.as_ref());
    (
        format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n"),
        pair.public_key().as_ref().to_vec(),
    )
}

#[tokio::test]
async fn client_credentials_with_private_key_jwt() {
    let test_as = TestAs::start(Knobs::default()).await;
    let (pem, public) = es256_pem();
    let credentials = ClientCredentials {
        client_id: "m2m".into(),
        signing_key: Some(Arc::new(SigningKey::from_pem(&pem, Some("ES256")).unwrap())),
        ..ClientCredentials::default()
    };
    let oauth = with_grant(Grant::ClientCredentials, credentials);
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert!(test_as.seen("/authorize").is_empty() && test_as.seen("/register").is_empty());
    let token = &test_as.seen("/token")[0];
    assert_eq!(token.form["grant_type"], "client_credentials");
    assert_eq!(token.form["resource"], test_as.resource);
    assert_eq!(token.form["client_assertion_type"], "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    let jwk = serde_json::json!({
        "x": base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, &public[1..33]),
        "y": base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, &public[33..]),
    });
    let (_, claims) =
        verify_es256(&token.form["client_assertion"], &jwk).expect("signed with the client's key");
    assert_eq!((claims["iss"].as_str(), claims["sub"].as_str()), (Some("m2m"), Some("m2m")));
    assert_eq!(claims["aud"], test_as.issuer);
    assert_eq!(oauth.access_token().await.as_deref(), Some("at-1"));
}

#[tokio::test]
async fn client_credentials_with_client_secret_basic_and_post() {
    for (method, expect_header) in [("client_secret_basic", true), ("client_secret_post", false)] {
        let test_as = TestAs::start(Knobs::default()).await;
        let credentials = ClientCredentials {
            client_id: "m2m".into(),
            client_secret: Some("s3cret".into()),
            token_endpoint_auth_method: Some(method.into()),
            ..ClientCredentials::default()
        };
        let oauth = with_grant(Grant::ClientCredentials, credentials);
        oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
        let token = &test_as.seen("/token")[0];
        assert_eq!(token.form["grant_type"], "client_credentials");
        if expect_header {
            assert_eq!(token.authorization.as_deref(), Some("Basic bTJtOnMzY3JldA=="));
            assert!(!token.form.contains_key("client_secret"));
        } else {
            assert!(token.authorization.is_none());
            assert_eq!(
                (token.form["client_id"].as_str(), token.form["client_secret"].as_str()),
                ("m2m", "s3cret")
            );
        }
    }
}

#[tokio::test]
async fn client_credentials_need_pre_registered_credentials() {
    let test_as = TestAs::start(Knobs::default()).await;
    let oauth = client(OAuthConfig { grant: Grant::ClientCredentials, ..OAuthConfig::default() });
    assert!(oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.is_err());
    assert!(test_as.seen("/register").is_empty() && test_as.seen("/token").is_empty());
}

#[tokio::test]
async fn a_refused_workload_assertion_is_reported_and_not_sent_again() {
    let test_as = TestAs::start(Knobs { refuse_jwt_bearer: true, ..Knobs::default() }).await;
    let oauth = client(OAuthConfig {
        grant: Grant::JwtBearer(Arc::new(StaticAssertion("workload.jwt".into()))),
        pre_registered: Some((
            None,
            ClientCredentials { client_id: "wl".into(), ..ClientCredentials::default() },
        )),
        ..OAuthConfig::default()
    });
    assert!(oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.is_err());
    assert!(oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.is_err());
    let tokens = test_as.seen("/token");
    assert_eq!(tokens.len(), 1, "the refused assertion is not retried");
    assert_eq!(tokens[0].form["grant_type"], "urn:ietf:params:oauth:grant-type:jwt-bearer");
    assert_eq!(tokens[0].form["assertion"], "workload.jwt");
    assert_eq!(tokens[0].form["client_id"], "wl");
}

#[tokio::test]
async fn enterprise_id_jag_is_exchanged_then_presented() {
    let test_as = TestAs::start(Knobs::default()).await;
    let oauth = client(OAuthConfig {
        grant: Grant::IdentityAssertion(IdentityProvider {
            token_endpoint: format!("{}/idp/token", test_as.issuer),
            client_id: "idp-client".into(),
            client_secret: None,
            id_token: Arc::new(StaticAssertion("the-id-token".into())),
        }),
        pre_registered: Some((
            None,
            ClientCredentials {
                client_id: "mcp-client".into(),
                client_secret: Some("pw".into()),
                ..ClientCredentials::default()
            },
        )),
        ..OAuthConfig::default()
    });
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let exchange = &test_as.seen("/idp/token")[0].form;
    assert_eq!(exchange["grant_type"], "urn:ietf:params:oauth:grant-type:token-exchange");
    assert_eq!(exchange["requested_token_type"], "urn:ietf:params:oauth:token-type:id-jag");
    assert_eq!(exchange["subject_token"], "the-id-token");
    assert_eq!(exchange["subject_token_type"], "urn:ietf:params:oauth:token-type:id_token");
    assert_eq!(exchange["audience"], test_as.issuer);
    assert_eq!(exchange["resource"], test_as.resource);
    assert_eq!(exchange["client_id"], "idp-client");
    let token = &test_as.seen("/token")[0];
    assert_eq!(token.form["grant_type"], "urn:ietf:params:oauth:grant-type:jwt-bearer");
    assert_eq!(token.form["assertion"], "id-jag-for-the-id-token");
    assert_eq!(token.authorization.as_deref(), Some("Basic bWNwLWNsaWVudDpwdw=="));
    assert_eq!(oauth.access_token().await.as_deref(), Some("at-1"));
}

/// What the DPoP-protected MCP server saw on each authorized POST: (authorization,
/// proof claims).
type Presented = Arc<std::sync::Mutex<Vec<(String, serde_json::Value)>>>;

/// A 2025-11-25 MCP server that wants DPoP with its own nonce: 401 `DPoP` without a
/// token, 401 `use_dpop_nonce` for a proof without the nonce, else JSON-RPC answers.
async fn dpop_mcp_server(as_url: String, presented: Presented) -> String {
    let base = Arc::new(std::sync::Mutex::new(String::new()));
    let cell = base.clone();
    let url = support::serve(move |req| {
        let (as_url, presented, base) = (as_url.clone(), presented.clone(), cell.lock().unwrap().clone());
        Box::pin(async move {
            use http_body_util::BodyExt;
            let json = |status: u16, headers: &[(&str, String)], body: serde_json::Value| {
                let mut r = http::Response::builder().status(status).header("content-type", "application/json");
                for (k, v) in headers {
                    r = r.header(*k, v.as_str());
                }
                r.body(http_body_util::Full::new(bytes::Bytes::from(body.to_string()))).unwrap()
            };
            let prm = format!("{base}/.well-known/oauth-protected-resource/mcp");
            if req.method() == http::Method::GET {
                if req.uri().path() == "/mcp" {
                    return json(405, &[], serde_json::json!({}));
                }
                return json(200, &[], serde_json::json!({ "resource": format!("{base}/mcp"), "authorization_servers": [as_url] }));
            }
            let header = |n: &str| req.headers().get(n).map(|v| v.to_str().unwrap().to_owned());
            let (authorization, proof) = (header("authorization"), header("dpop"));
            let body = req.into_body().collect().await.unwrap().to_bytes();
            let Some(authorization) = authorization else {
                return json(401, &[("www-authenticate", format!(r#"DPoP resource_metadata="{prm}""#))], serde_json::json!({}));
            };
            let (_, claims) = verify_proof(&proof.expect("a DPoP proof with the token"));
            presented.lock().unwrap().push((authorization, claims.clone()));
            if claims.get("nonce").and_then(|n| n.as_str()) != Some("rs-nonce") {
                let challenge = format!(r#"DPoP error="use_dpop_nonce", resource_metadata="{prm}""#);
                return json(401, &[("www-authenticate", challenge), ("dpop-nonce", "rs-nonce".into())], serde_json::json!({}));
            }
            let message: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let result = match message["method"].as_str() {
                Some("initialize") => serde_json::json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": { "tools": {} },
                    "serverInfo": { "name": "dpop-test", "version": "1" },
                }),
                Some("tools/list") => serde_json::json!({ "tools": [] }),
                _ => return json(202, &[], serde_json::json!({})),
            };
            json(200, &[], serde_json::json!({ "jsonrpc": "2.0", "id": message["id"], "result": result }))
        })
    })
    .await;
    *base.lock().unwrap() = url.clone();
    format!("{url}/mcp")
}

#[tokio::test]
async fn the_transport_presents_dpop_tokens_and_retries_with_the_resource_servers_nonce() {
    use mcpwire::client::Client;
    use mcpwire::protocol::ProtocolVersion;
    use mcpwire::transport::http_client::HttpClientTransport;

    let test_as =
        TestAs::start(Knobs { dpop: true, as_nonce: Some("as-nonce".into()), ..Knobs::default() }).await;
    let presented: Presented = Arc::default();
    let url = dpop_mcp_server(test_as.issuer.clone(), presented.clone()).await;
    let transport = HttpClientTransport::new(&url).unwrap().oauth(client(OAuthConfig::default()));
    let mcp = tokio::time::timeout(
        Duration::from_secs(20),
        Client::builder("dpop-e2e", "1")
            .protocol_version(ProtocolVersion::LATEST_STATEFUL)
            .connect(transport),
    )
    .await
    .expect("connects in time")
    .expect("connects");
    assert!(mcp.list_all_tools().await.unwrap().is_empty());
    mcp.close().await;

    assert_eq!(test_as.seen("/token").len(), 2, "the token endpoint's nonce retry");
    let presented = presented.lock().unwrap().clone();
    assert!(presented.len() >= 3, "challenged once, then initialize and tools/list: {presented:?}");
    assert!(presented[0].1.get("nonce").is_none(), "the first proof had no nonce to carry");
    for (authorization, claims) in &presented {
        assert_eq!(authorization, "DPoP at-1");
        assert_eq!(claims["htu"], url);
        assert_eq!(claims["ath"], ath("at-1"));
    }
    assert!(presented[1..].iter().all(|(_, c)| c["nonce"] == "rs-nonce"));
    let jtis: std::collections::HashSet<_> = presented.iter().map(|(_, c)| c["jti"].to_string()).collect();
    assert_eq!(jtis.len(), presented.len(), "a fresh proof on every request");
}

/// The headers of a refusal by the resource at `base` (`http://host:port`, resource
/// `/mcp`): a `Bearer` challenge with `params` before its `resource_metadata`.
fn challenge_of(base: &str, params: &str) -> http::HeaderMap {
    let value =
        format!(r#"Bearer {params}resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#);
    http::HeaderMap::from_iter([(http::header::WWW_AUTHENTICATE, value.parse().unwrap())])
}

/// A `403 insufficient_scope` naming `scope`.
fn insufficient(test_as: &TestAs, scope: &str) -> http::HeaderMap {
    let base = test_as.resource.trim_end_matches("/mcp");
    challenge_of(base, &format!(r#"error="insufficient_scope", scope="{scope}", "#))
}

/// A long-lived client steps up once for each tool that needs a scope of its own, however
/// many; a server that keeps refusing what it was given is given up on after
/// `max_step_ups` (2) step-ups in a row. Each step-up asks for what was granted before too.
#[tokio::test]
async fn step_ups_for_new_scopes_are_met_and_repeated_refusals_bounded() {
    let test_as = TestAs::start(Knobs::default()).await;
    let credentials = ClientCredentials {
        client_id: "m2m".into(),
        client_secret: Some("s3cret".into()),
        ..ClientCredentials::default()
    };
    let oauth = with_grant(Grant::ClientCredentials, credentials);
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    for scope in ["a", "b", "c", "d"] {
        oauth.authorize(&test_as.resource, &insufficient(&test_as, scope), true).await.unwrap();
    }
    let last = test_as.seen("/token").last().unwrap().form["scope"].clone();
    assert_eq!(
        last.split_whitespace().collect::<std::collections::BTreeSet<_>>(),
        ["a", "b", "c", "d"].into()
    );
    for _ in 0..2 {
        oauth.authorize(&test_as.resource, &insufficient(&test_as, "d"), true).await.unwrap();
    }
    let refused = oauth.authorize(&test_as.resource, &insufficient(&test_as, "d"), true).await;
    assert!(refused.is_err_and(|e| e.to_string().contains("still forbidden after 2 step-ups")));
}

/// A DPoP key is kept in the token store beside the tokens bound to it: a client made
/// later (the next `mcpwire` command) signs its proofs with the same key, so the saved
/// DPoP-bound token still works there.
#[tokio::test]
async fn the_dpop_key_lives_in_the_token_store_with_its_tokens() {
    let test_as = TestAs::start(Knobs { dpop: true, ..Knobs::default() }).await;
    let dir = scratch::Scratch::new("dpop-store");
    let path = dir.join("auth.json");
    let config = || OAuthConfig {
        store: Arc::new(mcpwire::auth::FileTokenStore::new(&path)),
        ..OAuthConfig::default()
    };
    let first = client(config());
    first.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let proof_key = async |oauth: &OAuthClient| {
        let headers = oauth.request_headers(&http::Method::POST, &uri(&test_as.resource)).await;
        assert_eq!(headers["authorization"], "DPoP at-1");
        verify_proof(headers["dpop"].to_str().unwrap()).0["jwk"].clone()
    };
    let key = proof_key(&first).await;
    // Its first request_headers loads the stored tokens and key.
    let later = client(config());
    assert_eq!(proof_key(&later).await, key, "the same key in a client made later");
    assert_eq!(test_as.seen("/token").len(), 1, "no new token needed");
}

/// A server that names its resource metadata (so of a revision after 2025-03-26) where
/// none can be read: authorization fails, saying so, instead of guessing endpoints
/// (and PKCE support) at the server's origin as for a 2025-03-26 server.
#[tokio::test]
async fn named_resource_metadata_that_cannot_be_read_fails_discovery() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let base = support::serve(move |req| {
        log.lock().unwrap().push(req.uri().path().to_owned());
        Box::pin(async { support::reply(http::StatusCode::NOT_FOUND, &[], serde_json::json!({})) })
    })
    .await;
    let oauth = client(OAuthConfig::default());
    let refused = oauth.authorize(&format!("{base}/mcp"), &challenge_of(&base, ""), false).await;
    assert!(refused.is_err_and(|e| e.to_string().contains("names its resource metadata")));
    let paths = seen.lock().unwrap().clone();
    assert!(paths.iter().all(|p| p.starts_with("/.well-known/oauth-protected-resource")), "{paths:?}");
}

/// An authorization server that binds tokens to DPoP keys, in front of a resource that
/// takes bearer tokens only (its challenge offers `Bearer` alone and its metadata lists
/// no DPoP algorithm, as mcpwire's own `BearerAuthLayer`): the client asks for a bearer
/// token, which that resource can use. (The other tests' resource lists DPoP: DPoP.)
#[tokio::test]
async fn dpop_is_used_only_where_the_resource_takes_it() {
    let test_as = TestAs::start(Knobs { dpop: true, ..Knobs::default() }).await;
    let issuer = test_as.issuer.clone();
    let own_url = Arc::new(std::sync::Mutex::new(String::new()));
    let cell = own_url.clone();
    let base = support::serve(move |_req| {
        let body = serde_json::json!({
            "resource": format!("{}/mcp", cell.lock().unwrap()),
            "authorization_servers": [issuer.clone()],
        });
        Box::pin(async move { support::reply(http::StatusCode::OK, &[], body) })
    })
    .await;
    *own_url.lock().unwrap() = base.clone();
    let oauth = client(OAuthConfig::default());
    let resource = format!("{base}/mcp");
    oauth.authorize(&resource, &challenge_of(&base, ""), false).await.unwrap();
    let token = &test_as.seen("/token")[0];
    assert!(token.dpop.is_none(), "no proof: a bearer token was asked for");
    let headers = oauth.request_headers(&http::Method::POST, &uri(&resource)).await;
    assert!(headers["authorization"].to_str().unwrap().starts_with("Bearer "), "{headers:?}");
    assert!(headers.get("dpop").is_none());
}

/// A resource that moves to another authorization server (its metadata names a new
/// issuer): the client registers anew there and authorizes from scratch; neither the
/// registration made at the first server nor the refresh token it issued is sent to the
/// second, and the first hears nothing more (credentials and tokens are bound to their
/// issuer).
#[tokio::test]
async fn a_resource_that_changes_authorization_server_gets_new_credentials_there() {
    let knobs = Knobs { issue_refresh: true, ..Knobs::default() };
    let (first, second) = (TestAs::start(knobs.clone()).await, TestAs::start(knobs).await);
    let issuer = Arc::new(std::sync::Mutex::new(first.issuer.clone()));
    let own_url = Arc::new(std::sync::Mutex::new(String::new()));
    let (named, cell) = (issuer.clone(), own_url.clone());
    let base = support::serve(move |_req| {
        let body = serde_json::json!({
            "resource": format!("{}/mcp", cell.lock().unwrap()),
            "authorization_servers": [named.lock().unwrap().clone()],
        });
        Box::pin(async move { support::reply(http::StatusCode::OK, &[], body) })
    })
    .await;
    *own_url.lock().unwrap() = base.clone();
    let oauth = client(OAuthConfig::default());
    let resource = format!("{base}/mcp");
    oauth.authorize(&resource, &challenge_of(&base, ""), false).await.unwrap();
    assert_eq!(oauth.tokens().unwrap().issuer.as_deref(), Some(first.issuer.as_str()));
    let heard = first.shared.lock().unwrap().seen.len();
    *issuer.lock().unwrap() = second.issuer.clone();
    oauth.authorize(&resource, &challenge_of(&base, ""), false).await.unwrap();
    assert_eq!(first.shared.lock().unwrap().seen.len(), heard, "nothing more went to the first server");
    assert_eq!(second.seen("/register").len(), 1, "the client registered at the new server");
    let token = &second.seen("/token")[0];
    assert_eq!(token.form["grant_type"], "authorization_code");
    let sent: Vec<String> = second.shared.lock().unwrap().seen.iter().map(|s| format!("{s:?}")).collect();
    assert!(sent.iter().all(|s| !s.contains("rt-1")), "the first server's refresh token stayed: {sent:?}");
    assert_eq!(oauth.tokens().unwrap().issuer.as_deref(), Some(second.issuer.as_str()));
}

/// The authorization code flow as the spec has it: the authorization request carries a
/// PKCE S256 challenge, a fresh `state` and the `resource` (RFC 8707); the token
/// request redeems the code with the verifier of that challenge, the same redirect URI
/// and the same `resource`; the newest token goes in the `Authorization` header.
#[tokio::test]
async fn the_code_flow_sends_pkce_state_and_the_resource_indicator() {
    let test_as = TestAs::start(Knobs::default()).await;
    let oauth = client(OAuthConfig::default());
    for _ in 0..2 {
        oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    }
    let (authorizations, tokens) = (test_as.seen("/authorize"), test_as.seen("/token"));
    assert_eq!((authorizations.len(), tokens.len()), (2, 2), "no refresh token: two full flows");
    for (authorize, token) in authorizations.iter().zip(&tokens) {
        let (query, form) = (&authorize.query, &token.form);
        assert_eq!(query["response_type"], "code");
        assert_eq!(query["code_challenge_method"], "S256");
        assert_eq!(query["resource"], test_as.resource);
        assert!(query["state"].len() >= 16, "an unguessable state: {:?}", query["state"]);
        let verifier = &form["code_verifier"];
        assert!((43..=128).contains(&verifier.len()), "RFC 7636 verifier length: {verifier}");
        assert_eq!(query["code_challenge"], ath(verifier), "the challenge is the S256 of the verifier");
        assert_eq!(form["grant_type"], "authorization_code");
        assert_eq!(form["code"], "the-code");
        assert_eq!(form["redirect_uri"], query["redirect_uri"]);
        assert_eq!(form["resource"], test_as.resource);
    }
    let (first, second) = (&authorizations[0].query, &authorizations[1].query);
    assert_ne!(first["state"], second["state"], "a fresh state per authorization");
    assert_ne!(first["code_challenge"], second["code_challenge"], "a fresh verifier per authorization");
    let target = format!("{}?a=1", test_as.resource);
    let headers = oauth.request_headers(&http::Method::POST, &uri(&target)).await;
    assert_eq!(headers["authorization"], "Bearer at-2");
    assert!(headers.values().all(|v| !v.to_str().unwrap().contains("at-1")), "the old token is gone");
}

/// A DPoP-bound token kept in the store, loaded by a client without a DPoP key (DPoP
/// turned off since it was issued): it is not sent as a bearer token, which RFC 9449
/// forbids, so no `Authorization` goes out (the resource's `401` then starts a new
/// authorization). A bearer token kept there is sent as one.
#[tokio::test]
async fn a_stored_dpop_token_is_never_sent_as_a_bearer_token() {
    use mcpwire::auth::{MemoryTokenStore, TokenStore, Tokens};
    let resource = "http://127.0.0.1:1/mcp";
    for (token_type, expected) in [("DPoP", None), ("dpop", None), ("Bearer", Some("Bearer at"))] {
        let store = Arc::new(MemoryTokenStore::new());
        let kept = Tokens { access_token: "at".into(), token_type: token_type.into(), ..Tokens::default() };
        store.save_tokens(resource, Some(&kept)).unwrap();
        let oauth = client(OAuthConfig { dpop: DpopPolicy::Never, store, ..OAuthConfig::default() });
        oauth.load_stored(resource).await;
        let headers = oauth.request_headers(&http::Method::POST, &uri(resource)).await;
        let sent = headers.get("authorization").map(|v| v.to_str().unwrap());
        assert_eq!(sent, expected, "{token_type}");
        assert!(headers.get("dpop").is_none(), "{token_type}");
    }
}

/// Approves the first authorization (as [`mcpwire::auth::FetchRedirect`] does) and
/// declines every later one, as a user who will not consent to more scopes.
#[derive(Default)]
struct DeclinesAfterFirst(std::sync::atomic::AtomicBool);

impl mcpwire::auth::AuthorizationHandler for DeclinesAfterFirst {
    fn authorize(
        &self,
        url: String,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<String, mcpwire::auth::AuthError>> + Send>>
    {
        let asked_before = self.0.swap(true, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move {
            match asked_before {
                false => mcpwire::auth::FetchRedirect.authorize(url).await,
                true => Err(mcpwire::auth::AuthError::Denied("the user declined".into())),
            }
        })
    }
}

/// A step-up the user declines leaves the token already granted (still good for what it
/// was granted for) in use and in the store, with its refresh token.
#[tokio::test]
async fn a_declined_step_up_keeps_the_token_already_granted() {
    use mcpwire::auth::{MemoryTokenStore, TokenStore};
    let test_as = TestAs::start(Knobs { issue_refresh: true, ..Knobs::default() }).await;
    let store = Arc::new(MemoryTokenStore::new());
    let authorizer = Arc::new(DeclinesAfterFirst::default());
    let oauth = client(OAuthConfig { authorizer, store: store.clone(), ..OAuthConfig::default() });
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let granted = oauth.tokens().unwrap();
    assert!(granted.refresh_token.is_some());
    let declined = oauth.authorize(&test_as.resource, &insufficient(&test_as, "admin"), true).await;
    assert!(declined.is_err_and(|e| e.to_string().contains("the user declined")));
    assert_eq!(oauth.tokens().as_ref(), Some(&granted), "the token in use");
    assert_eq!(store.load_tokens(&test_as.resource).as_ref(), Some(&granted), "the stored token");
}

/// Two clients sharing one token file (two `mcpwire` commands), at an authorization
/// server whose refresh tokens rotate and are single-use. Once one has refreshed, the
/// other, on a `401`, takes up the tokens it saved instead of presenting the refresh
/// token already spent (refused `invalid_grant`) and sending the user through a login
/// again; when the saved access token has expired, it refreshes with the saved refresh
/// token. The tokens are DPoP-bound to the key the file keeps, which both clients use.
#[tokio::test]
async fn clients_sharing_a_store_take_up_each_others_rotated_tokens() {
    use mcpwire::auth::{FileTokenStore, TokenStore};
    let knobs = Knobs { dpop: true, issue_refresh: true, single_use_refresh: true, ..Knobs::default() };
    let test_as = TestAs::start(knobs).await;
    let dir = scratch::Scratch::new("shared-store");
    let path = dir.join("auth.json");
    let config = || OAuthConfig { store: Arc::new(FileTokenStore::new(&path)), ..OAuthConfig::default() };
    let (first, second) = (client(config()), client(config()));
    first.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    second.load_stored(&test_as.resource).await;
    assert_eq!(second.access_token().await.as_deref(), Some("at-1"));
    // The first's token is refused: it spends rt-1 for at-2 and rt-2, saved.
    first.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert_eq!(first.tokens().unwrap().refresh_token.as_deref(), Some("rt-2"));

    second.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert_eq!(second.access_token().await.as_deref(), Some("at-2"), "the saved token is taken up");
    let headers = second.request_headers(&http::Method::POST, &uri(&test_as.resource)).await;
    assert_eq!(headers["authorization"], "DPoP at-2");
    let (header, _) = verify_proof(headers["dpop"].to_str().unwrap());
    assert_eq!(header["jwk"], test_as.seen("/token")[1].dpop.as_ref().unwrap().0["jwk"], "the same key");
    assert_eq!(test_as.seen("/authorize").len(), 1, "no second login");
    assert_eq!(test_as.seen("/token").len(), 2, "taking up the saved token needs no token request");

    // The second refreshes (rt-2 for at-3 and rt-3, saved), and at-3 expires meanwhile.
    second.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let store = FileTokenStore::new(&path);
    let mut saved = store.load_tokens(&test_as.resource).unwrap();
    assert_eq!(saved.access_token, "at-3");
    saved.expires_at = Some(1);
    store.save_tokens(&test_as.resource, Some(&saved)).unwrap();
    // The first's at-2 is refused: the saved at-3 has expired, so it refreshes with rt-3.
    first.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert_eq!(first.access_token().await.as_deref(), Some("at-4"));
    let tokens = test_as.seen("/token");
    let spent: Vec<&str> = tokens[1..].iter().map(|t| t.form["refresh_token"].as_str()).collect();
    assert_eq!(spent, ["rt-1", "rt-2", "rt-3"], "each refresh token presented once");
    assert_eq!(test_as.seen("/authorize").len(), 1, "still one login");
    assert_eq!(store.load_tokens(&test_as.resource).unwrap().access_token, "at-4");
}

/// A store whose next read of tokens answers what it held before the last save (a read
/// made just before another process saved), then reads through.
struct ReadBeforeSave {
    inner: Arc<mcpwire::auth::MemoryTokenStore>,
    stale: std::sync::Mutex<Option<mcpwire::auth::Tokens>>,
}

impl mcpwire::auth::TokenStore for ReadBeforeSave {
    fn load_tokens(&self, resource: &str) -> Option<mcpwire::auth::Tokens> {
        let stale = self.stale.lock().unwrap().take();
        stale.or_else(|| self.inner.load_tokens(resource))
    }
    fn save_tokens(
        &self,
        resource: &str,
        tokens: Option<&mcpwire::auth::Tokens>,
    ) -> Result<(), mcpwire::auth::AuthError> {
        self.inner.save_tokens(resource, tokens)
    }
    fn load_client(&self, issuer: &str) -> Option<ClientCredentials> {
        self.inner.load_client(issuer)
    }
    fn save_client(
        &self,
        issuer: &str,
        credentials: &ClientCredentials,
    ) -> Result<(), mcpwire::auth::AuthError> {
        self.inner.save_client(issuer, credentials)
    }
}

/// Another client sharing the store rotates the refresh token between this one's read
/// of the store and its refresh: the refresh is refused `invalid_grant`, and the store,
/// read again, has the tokens the other saved: they are taken up, no login.
#[tokio::test]
async fn a_refresh_refused_after_another_client_rotated_it_takes_up_the_saved_tokens() {
    use mcpwire::auth::{MemoryTokenStore, TokenStore};
    let knobs = Knobs { issue_refresh: true, single_use_refresh: true, ..Knobs::default() };
    let test_as = TestAs::start(knobs).await;
    let inner = Arc::new(MemoryTokenStore::new());
    let lagging = Arc::new(ReadBeforeSave { inner: inner.clone(), stale: Default::default() });
    let first = client(OAuthConfig { store: inner.clone(), ..OAuthConfig::default() });
    let second = client(OAuthConfig { store: lagging.clone(), ..OAuthConfig::default() });
    first.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    second.load_stored(&test_as.resource).await;
    let before = inner.load_tokens(&test_as.resource);
    first.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    *lagging.stale.lock().unwrap() = before;

    second.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert_eq!(second.access_token().await.as_deref(), Some("at-2"));
    assert_eq!(test_as.seen("/authorize").len(), 1, "no second login");
    let tokens = test_as.seen("/token");
    let spent: Vec<&str> = tokens[1..].iter().map(|t| t.form["refresh_token"].as_str()).collect();
    assert_eq!(spent, ["rt-1", "rt-1"], "the second presented rt-1 once, refused, and no other");
}

/// Another process empties the shared store (a logout, which revoked the refresh token):
/// the next `401` ends in a login, whose tokens are saved again.
#[tokio::test]
async fn a_store_emptied_by_another_process_leads_to_a_login() {
    use mcpwire::auth::{FileTokenStore, TokenStore};
    let test_as = TestAs::start(Knobs { issue_refresh: true, ..Knobs::default() }).await;
    let dir = scratch::Scratch::new("emptied-store");
    let path = dir.join("auth.json");
    let oauth = client(OAuthConfig { store: Arc::new(FileTokenStore::new(&path)), ..OAuthConfig::default() });
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    FileTokenStore::new(&path).save_tokens(&test_as.resource, None).unwrap();
    test_as.knobs(|k| k.refuse_refresh = true);
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert_eq!(test_as.seen("/authorize").len(), 2, "a login");
    assert_eq!(oauth.access_token().await.as_deref(), Some("at-2"));
    let saved = FileTokenStore::new(&path).load_tokens(&test_as.resource).unwrap();
    assert_eq!(saved.access_token, "at-2");
}
