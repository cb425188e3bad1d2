//! A small authorization server and protected-resource metadata host over real sockets,
//! for the OAuth client tests (`auth_client.rs`, `auth_client_cli.rs` include this file).
//! It records every request, checks DPoP proofs and client assertions with ring, and
//! has knobs for nonces, refresh refusals and expiry. Run alone, it tests nothing.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};
use serde_json::{json, Value};

#[path = "loopback_http/mod.rs"]
mod loopback_http;
pub use loopback_http::serve;

/// How the test authorization server behaves.
#[derive(Clone, Debug, Default)]
pub struct Knobs {
    /// Advertise DPoP (ES256) and bind tokens to the proof key.
    pub dpop: bool,
    /// Answer `use_dpop_nonce` to token requests whose proof lacks this nonce.
    pub as_nonce: Option<String>,
    /// Refuse `refresh_token` grants.
    pub refuse_refresh: bool,
    /// Issue refresh tokens.
    pub issue_refresh: bool,
    /// Take each refresh token once (they rotate: every answer carries a new one): a
    /// refresh token spent, or never issued, is refused with `invalid_grant`.
    pub single_use_refresh: bool,
    /// `expires_in` of access tokens.
    pub expires_in: Option<u64>,
    /// Refuse every `jwt-bearer` grant with `invalid_grant`.
    pub refuse_jwt_bearer: bool,
    /// Answer `/authorize` with this `state` instead of the request's.
    pub wrong_state: bool,
    /// Client ids the server no longer knows (expired or deleted registrations): their
    /// token requests are refused with `401 invalid_client`.
    pub dead_clients: Vec<String>,
    /// Also refuse the dead clients at `/authorize`, with a redirect carrying
    /// `error=invalid_client`.
    pub dead_at_authorize: bool,
    /// Refuse every client at the token endpoint with `invalid_client`.
    pub refuse_all_clients: bool,
    /// Registrations issue a `client_secret` expiring at this time (`client_secret_expires_at`).
    pub secret_expires_at: Option<u64>,
}

/// One request the server received.
#[derive(Clone, Debug)]
pub struct Seen {
    /// The HTTP method.
    pub method: String,
    /// The path.
    pub path: String,
    /// The decoded query parameters.
    pub query: HashMap<String, String>,
    /// The decoded form fields (token requests).
    pub form: HashMap<String, String>,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// The raw body.
    pub body: String,
    /// The DPoP proof's (header, claims), verified.
    pub dpop: Option<(Value, Value)>,
}

/// The server's state.
#[derive(Default)]
pub struct Shared {
    /// Its behaviour.
    pub knobs: Knobs,
    /// Every request, in order.
    pub seen: Vec<Seen>,
    /// How many access tokens it issued (`at-N` is the N-th).
    pub issued: usize,
    /// The refresh tokens spent (with `single_use_refresh`).
    pub spent: std::collections::HashSet<String>,
}

/// The authorization server, and on another origin the protected resource (its
/// metadata, and a `401` to every POST).
#[derive(Clone)]
pub struct TestAs {
    /// `http://127.0.0.1:PORT`: the issuer.
    pub issuer: String,
    /// `http://127.0.0.1:PORT/mcp`: the protected resource.
    pub resource: String,
    /// The state, shared with the server tasks.
    pub shared: Arc<Mutex<Shared>>,
}

fn decode(s: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(s).expect("base64url")
}

/// Verifies a compact ES256 JWS with the P-256 JWK given; returns (header, claims).
pub fn verify_es256(jwt: &str, jwk: &Value) -> Option<(Value, Value)> {
    let parts: Vec<&str> = jwt.split('.').collect();
    if parts.len() != 3 {
        return None;
    }
    let mut point = vec![4u8];
    point.extend(decode(jwk["x"].as_str()?));
    point.extend(decode(jwk["y"].as_str()?));
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &decode(parts[2]))
        .ok()?;
    Some((serde_json::from_slice(&decode(parts[0])).ok()?, serde_json::from_slice(&decode(parts[1])).ok()?))
}

/// Verifies a DPoP proof against its own embedded key; panics when it does not verify
/// or lacks a member RFC 9449 §4.2 requires.
pub fn verify_proof(proof: &str) -> (Value, Value) {
    let header: Value = serde_json::from_slice(&decode(proof.split('.').next().unwrap())).unwrap();
    let verified = verify_es256(proof, &header["jwk"]).expect("the DPoP proof verifies with its jwk");
    assert_eq!(verified.0["typ"], "dpop+jwt");
    assert_eq!(verified.0["alg"], "ES256");
    for claim in ["jti", "htm", "htu", "iat"] {
        assert!(verified.1.get(claim).is_some(), "the proof has {claim}");
    }
    verified
}

/// `base64url(sha256(token))`, the `ath` of a proof.
pub fn ath(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, token.as_bytes()))
}

fn parse_pairs(s: &str) -> HashMap<String, String> {
    url_pairs(s).into_iter().collect()
}

fn url_pairs(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (unescape(k), unescape(v))
        })
        .collect()
}

fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// The client a token request authenticates as: its `client_id` field, else the id in
/// its `Basic` credentials.
fn client_id(form: &HashMap<String, String>, authorization: Option<&str>) -> Option<String> {
    if let Some(id) = form.get("client_id") {
        return Some(id.clone());
    }
    let basic = authorization?.strip_prefix("Basic ")?;
    let pair = String::from_utf8(base64::engine::general_purpose::STANDARD.decode(basic).ok()?).ok()?;
    Some(unescape(pair.split_once(':')?.0))
}

/// A JSON response.
pub fn reply(status: StatusCode, headers: &[(&str, String)], body: Value) -> Response<Full<Bytes>> {
    let mut builder = Response::builder().status(status).header("content-type", "application/json");
    for (k, v) in headers {
        builder = builder.header(*k, v.as_str());
    }
    builder.body(Full::new(Bytes::from(body.to_string()))).unwrap()
}

impl TestAs {
    /// Starts the authorization server and the resource's metadata host.
    pub async fn start(knobs: Knobs) -> TestAs {
        let shared = Arc::new(Mutex::new(Shared { knobs, ..Shared::default() }));
        let issuer_cell = Arc::new(Mutex::new(String::new()));
        let (s, cell) = (shared.clone(), issuer_cell.clone());
        let issuer = serve(move |req| {
            let (s, cell) = (s.clone(), cell.clone());
            let issuer = cell.lock().unwrap().clone();
            Box::pin(async move { handle_as(req, &s, &issuer).await })
        })
        .await;
        *issuer_cell.lock().unwrap() = issuer.clone();
        let as_url = issuer.clone();
        let rs_cell = Arc::new(Mutex::new(String::new()));
        let cell = rs_cell.clone();
        // The resource: its metadata on GET, a 401 pointing at it on POST (an MCP request).
        let rs = serve(move |req| {
            let (as_url, rs) = (as_url.clone(), cell.lock().unwrap().clone());
            let post = req.method() == http::Method::POST;
            Box::pin(async move {
                if post {
                    let challenge = format!(
                        r#"Bearer resource_metadata="{rs}/.well-known/oauth-protected-resource/mcp""#
                    );
                    return reply(StatusCode::UNAUTHORIZED, &[("www-authenticate", challenge)], json!({}));
                }
                reply(
                    StatusCode::OK,
                    &[],
                    // It takes DPoP-bound tokens (whether they are used is the AS's knob).
                    json!({
                        "resource": format!("{rs}/mcp"),
                        "authorization_servers": [as_url],
                        "dpop_signing_alg_values_supported": ["ES256"],
                    }),
                )
            })
        })
        .await;
        *rs_cell.lock().unwrap() = rs.clone();
        TestAs { issuer, resource: format!("{rs}/mcp"), shared }
    }

    /// The 401 headers a protected resource sends: `WWW-Authenticate` with its metadata.
    pub fn challenge(&self) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        let prm = self.resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
        let value = format!(r#"Bearer error="invalid_token", resource_metadata="{prm}""#);
        headers.insert(http::header::WWW_AUTHENTICATE, value.parse().unwrap());
        headers
    }

    /// The requests to `path`, in order.
    pub fn seen(&self, path: &str) -> Vec<Seen> {
        self.shared.lock().unwrap().seen.iter().filter(|s| s.path == path).cloned().collect()
    }

    /// Changes the behaviour.
    pub fn knobs(&self, f: impl FnOnce(&mut Knobs)) {
        f(&mut self.shared.lock().unwrap().knobs);
    }
}

async fn handle_as(req: Request<Incoming>, shared: &Mutex<Shared>, issuer: &str) -> Response<Full<Bytes>> {
    let method = req.method().to_string();
    let path = req.uri().path().to_owned();
    let query = parse_pairs(req.uri().query().unwrap_or(""));
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let (authorization, proof) = (header("authorization"), header("dpop"));
    let body = req.into_body().collect().await.unwrap().to_bytes();
    let form = parse_pairs(std::str::from_utf8(&body).unwrap_or(""));
    let dpop = proof.as_deref().map(verify_proof);
    let shared = &mut *shared.lock().unwrap();
    shared.seen.push(Seen {
        method,
        path: path.clone(),
        query: query.clone(),
        form: form.clone(),
        authorization,
        body: String::from_utf8_lossy(&body).into_owned(),
        dpop: dpop.clone(),
    });
    let knobs = shared.knobs.clone();
    match path.as_str() {
        "/.well-known/oauth-authorization-server" => {
            let mut metadata = json!({
                "issuer": issuer,
                "authorization_endpoint": format!("{issuer}/authorize"),
                "token_endpoint": format!("{issuer}/token"),
                "registration_endpoint": format!("{issuer}/register"),
                "code_challenge_methods_supported": ["S256"],
                "authorization_response_iss_parameter_supported": true,
            });
            if knobs.dpop {
                metadata["dpop_signing_alg_values_supported"] = json!(["ES256"]);
            }
            reply(StatusCode::OK, &[], metadata)
        }
        "/register" => {
            // The first registration is `registered-client`, the N-th `registered-client-N`.
            let n = shared.seen.iter().filter(|s| s.path == "/register").count();
            let id = if n == 1 { "registered-client".to_owned() } else { format!("registered-client-{n}") };
            let mut answer = json!({ "client_id": id });
            if let Some(at) = knobs.secret_expires_at {
                answer["client_secret"] = json!(format!("secret-{n}"));
                answer["client_secret_expires_at"] = json!(at);
            }
            reply(StatusCode::CREATED, &[], answer)
        }
        "/authorize" if knobs.dead_at_authorize && knobs.dead_clients.contains(&query["client_id"]) => {
            let location = format!(
                "{}?error=invalid_client&state={}&iss={}",
                query["redirect_uri"],
                query["state"],
                issuer.replace(':', "%3A").replace('/', "%2F")
            );
            reply(StatusCode::FOUND, &[("location", location)], json!({}))
        }
        "/authorize" => {
            let state = if knobs.wrong_state { "forged".to_owned() } else { query["state"].clone() };
            let location = format!(
                "{}?code=the-code&state={state}&iss={}",
                query["redirect_uri"],
                issuer.replace(':', "%3A").replace('/', "%2F")
            );
            reply(StatusCode::FOUND, &[("location", location)], json!({}))
        }
        "/idp/token" => reply(
            StatusCode::OK,
            &[],
            json!({
                "access_token": format!("id-jag-for-{}", form.get("subject_token").cloned().unwrap_or_default()),
                "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "token_type": "N_A",
            }),
        ),
        "/token" => {
            if let (Some(nonce), Some((_, claims))) = (&knobs.as_nonce, &dpop) {
                if claims.get("nonce").and_then(Value::as_str) != Some(nonce.as_str()) {
                    return reply(
                        StatusCode::BAD_REQUEST,
                        &[("dpop-nonce", nonce.clone())],
                        json!({ "error": "use_dpop_nonce" }),
                    );
                }
            }
            let client = client_id(&form, shared.seen.last().and_then(|s| s.authorization.as_deref()));
            if knobs.refuse_all_clients || client.is_some_and(|c| knobs.dead_clients.contains(&c)) {
                return reply(StatusCode::UNAUTHORIZED, &[], json!({ "error": "invalid_client" }));
            }
            let grant = form.get("grant_type").cloned().unwrap_or_default();
            if (grant == "refresh_token" && knobs.refuse_refresh)
                || (grant.ends_with("jwt-bearer") && knobs.refuse_jwt_bearer)
            {
                return reply(StatusCode::BAD_REQUEST, &[], json!({ "error": "invalid_grant" }));
            }
            if grant == "refresh_token" && knobs.single_use_refresh {
                let presented = form.get("refresh_token").cloned().unwrap_or_default();
                let issued = presented
                    .strip_prefix("rt-")
                    .and_then(|n| n.parse::<usize>().ok())
                    .is_some_and(|n| (1..=shared.issued).contains(&n));
                if !issued || !shared.spent.insert(presented) {
                    return reply(StatusCode::BAD_REQUEST, &[], json!({ "error": "invalid_grant" }));
                }
            }
            shared.issued += 1;
            let n = shared.issued;
            let mut answer = json!({
                "access_token": format!("at-{n}"),
                "token_type": if knobs.dpop && dpop.is_some() { "DPoP" } else { "Bearer" },
            });
            if knobs.issue_refresh {
                answer["refresh_token"] = json!(format!("rt-{n}"));
            }
            if let Some(e) = knobs.expires_in {
                answer["expires_in"] = json!(e);
            }
            reply(StatusCode::OK, &[], answer)
        }
        _ => reply(StatusCode::NOT_FOUND, &[], json!({ "error": "not_found" })),
    }
}
