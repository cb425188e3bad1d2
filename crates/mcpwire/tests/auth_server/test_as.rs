//! A small authorization server for the tests, on a real loopback socket: RFC 8414
//! metadata, a JWK Set (Ed25519 and P-256 keys generated here, an RSA key from the
//! fixture) whose published keys the test controls, RFC 7662 introspection with
//! `client_secret_basic`, Dynamic Client Registration, and an authorization code + PKCE
//! flow whose authorize endpoint approves at once. It counts key-set fetches and
//! introspection requests so the tests can assert caching.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use ring::rand::SystemRandom;
use ring::signature::{
    self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair, RsaPublicKeyComponents,
    ECDSA_P256_SHA256_FIXED_SIGNING,
};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The client the resource server introspects as.
pub const RS_CLIENT: (&str, &str) = ("resource-server", "rs secret:1");

/// A signing key of the test AS.
pub enum Signer {
    Ed(Ed25519KeyPair),
    Ec(EcdsaKeyPair),
    Rsa(RsaKeyPair),
}

impl Signer {
    pub fn ed25519() -> Signer {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
        Signer::Ed(Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap())
    }

    pub fn p256() -> Signer {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        Signer::Ec(EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap())
    }

    pub fn rsa() -> Signer {
        Signer::Rsa(RsaKeyPair::from_pkcs8(include_bytes!("../fixtures/test_rsa2048.pk8.der")).unwrap())
    }

    /// The public JWK with this `kid`.
    pub fn jwk(&self, kid: &str) -> Value {
        let b = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        match self {
            Signer::Ed(k) => {
                json!({"kty": "OKP", "crv": "Ed25519", "kid": kid, "x": b(k.public_key().as_ref())})
            }
            Signer::Ec(k) => {
                let point = k.public_key().as_ref();
                json!({"kty": "EC", "crv": "P-256", "kid": kid, "x": b(&point[1..33]), "y": b(&point[33..65])})
            }
            Signer::Rsa(k) => {
                let c = RsaPublicKeyComponents::<Vec<u8>>::from(k.public());
                json!({"kty": "RSA", "kid": kid, "n": b(&c.n), "e": b(&c.e)})
            }
        }
    }

    /// Signs `message` with `alg` (RS256 or PS256 for the RSA key).
    fn sign(&self, alg: &str, message: &[u8]) -> Vec<u8> {
        let rng = SystemRandom::new();
        match self {
            Signer::Ed(k) => k.sign(message).as_ref().to_vec(),
            Signer::Ec(k) => k.sign(&rng, message).unwrap().as_ref().to_vec(),
            Signer::Rsa(k) => {
                let padding: &dyn signature::RsaEncoding =
                    if alg == "PS256" { &signature::RSA_PSS_SHA256 } else { &signature::RSA_PKCS1_SHA256 };
                let mut out = vec![0; k.public().modulus_len()];
                k.sign(padding, &rng, message, &mut out).unwrap();
                out
            }
        }
    }

    /// A compact JWS of `claims` with this header.
    pub fn token(&self, header: Value, claims: &Value) -> String {
        let alg = header["alg"].as_str().unwrap_or("").to_owned();
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self.sign(&alg, signing_input.as_bytes());
        format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature))
    }
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// An issued authorization code: what the token request must match.
struct Grant {
    challenge: String,
    resource: Option<String>,
    scope: String,
    client_id: String,
    redirect_uri: String,
}

#[derive(Default)]
struct State {
    /// The JWK Set served now.
    jwks: Vec<Value>,
    /// Introspection answers by token (unknown tokens are inactive).
    introspection: HashMap<String, Value>,
    codes: HashMap<String, Grant>,
    next: u64,
}

/// The running authorization server.
pub struct TestAs {
    pub addr: SocketAddr,
    pub issuer: String,
    pub jwks_fetches: AtomicUsize,
    pub introspections: AtomicUsize,
    pub tokens_issued: AtomicUsize,
    /// JWK Set requests answered (after the delay).
    pub jwks_answers: AtomicUsize,
    /// How long the JWK Set endpoint waits before answering.
    pub jwks_delay: Mutex<std::time::Duration>,
    /// Signs the tokens the token endpoint issues (kid `ed`).
    pub signer: Signer,
    state: Mutex<State>,
}

impl TestAs {
    pub async fn start() -> Arc<TestAs> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = Arc::new(TestAs {
            addr,
            issuer: format!("http://{addr}"),
            jwks_fetches: AtomicUsize::new(0),
            introspections: AtomicUsize::new(0),
            tokens_issued: AtomicUsize::new(0),
            jwks_answers: AtomicUsize::new(0),
            jwks_delay: Mutex::new(std::time::Duration::ZERO),
            signer: Signer::ed25519(),
            state: Mutex::new(State::default()),
        });
        server.publish(vec![server.signer.jwk("ed")]);
        let accepting = server.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let server = accepting.clone();
                tokio::spawn(async move {
                    let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                        let server = server.clone();
                        async move { Ok::<_, std::convert::Infallible>(server.handle(request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), handler)
                        .await;
                });
            }
        });
        server
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.issuer)
    }

    /// Replaces the published JWK Set.
    pub fn publish(&self, keys: Vec<Value>) {
        self.state.lock().unwrap().jwks = keys;
    }

    /// Adds a key to the published set.
    pub fn publish_also(&self, key: Value) {
        self.state.lock().unwrap().jwks.push(key);
    }

    /// Sets the introspection answer for `token`.
    pub fn set_introspection(&self, token: &str, answer: Value) {
        self.state.lock().unwrap().introspection.insert(token.into(), answer);
    }

    fn metadata(&self) -> Value {
        json!({
            "issuer": self.issuer,
            "authorization_endpoint": self.url("/authorize"),
            "token_endpoint": self.url("/token"),
            "registration_endpoint": self.url("/register"),
            "introspection_endpoint": self.url("/introspect"),
            "jwks_uri": self.url("/jwks"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
            "scopes_supported": ["mcp:tools"]
        })
    }

    async fn handle(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let (parts, body) = request.into_parts();
        let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        let form = || -> HashMap<String, String> {
            query_pairs(std::str::from_utf8(&body).unwrap_or("")).into_iter().collect()
        };
        match (parts.method.as_str(), parts.uri.path()) {
            ("GET", "/.well-known/oauth-authorization-server") => {
                json_response(StatusCode::OK, &self.metadata())
            }
            ("GET", "/jwks") => {
                self.jwks_fetches.fetch_add(1, Ordering::SeqCst);
                let delay = *self.jwks_delay.lock().unwrap();
                tokio::time::sleep(delay).await;
                self.jwks_answers.fetch_add(1, Ordering::SeqCst);
                let keys = self.state.lock().unwrap().jwks.clone();
                json_response(StatusCode::OK, &json!({ "keys": keys }))
            }
            ("POST", "/introspect") => {
                self.introspections.fetch_add(1, Ordering::SeqCst);
                let expected = format!("Basic {}", STANDARD.encode("resource-server:rs%20secret%3A1"));
                if parts.headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str())
                {
                    return json_response(StatusCode::UNAUTHORIZED, &json!({"error": "invalid_client"}));
                }
                let token = form().remove("token").unwrap_or_default();
                let answer = self.state.lock().unwrap().introspection.get(&token).cloned();
                json_response(StatusCode::OK, &answer.unwrap_or(json!({"active": false})))
            }
            ("POST", "/register") => {
                let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let mut answer = request.clone();
                answer["client_id"] = json!(format!("dyn-client-{}", self.next_id()));
                answer["token_endpoint_auth_method"] = json!("none");
                json_response(StatusCode::CREATED, &answer)
            }
            ("GET", "/authorize") => self.authorize(parts.uri.query().unwrap_or("")),
            ("POST", "/token") => self.token(form()),
            _ => json_response(StatusCode::NOT_FOUND, &json!({"error": "not found"})),
        }
    }

    fn next_id(&self) -> u64 {
        let mut state = self.state.lock().unwrap();
        state.next += 1;
        state.next
    }

    /// Approves at once: redirects to `redirect_uri` with a code bound to the PKCE
    /// challenge, the resource and the scope.
    fn authorize(&self, query: &str) -> Response<Full<Bytes>> {
        let q: HashMap<String, String> = query_pairs(query).into_iter().collect();
        if q.get("code_challenge_method").map(String::as_str) != Some("S256")
            || q.get("response_type").map(String::as_str) != Some("code")
        {
            return json_response(StatusCode::BAD_REQUEST, &json!({"error": "invalid_request"}));
        }
        let code = format!("code-{}", self.next_id());
        let grant = Grant {
            challenge: q.get("code_challenge").cloned().unwrap_or_default(),
            resource: q.get("resource").cloned(),
            scope: q.get("scope").cloned().unwrap_or_default(),
            client_id: q.get("client_id").cloned().unwrap_or_default(),
            redirect_uri: q.get("redirect_uri").cloned().unwrap_or_default(),
        };
        let location = format!(
            "{}?code={code}&state={}",
            grant.redirect_uri,
            encode(q.get("state").map(String::as_str).unwrap_or(""))
        );
        self.state.lock().unwrap().codes.insert(code, grant);
        let mut response = Response::new(Full::new(Bytes::new()));
        *response.status_mut() = StatusCode::FOUND;
        response.headers_mut().insert("location", location.parse().unwrap());
        response
    }

    /// Redeems a code: the verifier must hash to the challenge, and the resource and
    /// client must be the ones authorized. Issues an EdDSA JWT for user `alice`.
    fn token(&self, form: HashMap<String, String>) -> Response<Full<Bytes>> {
        let bad = |e: &str| json_response(StatusCode::BAD_REQUEST, &json!({"error": e}));
        if form.get("grant_type").map(String::as_str) != Some("authorization_code") {
            return bad("unsupported_grant_type");
        }
        let Some(grant) = form.get("code").and_then(|c| self.state.lock().unwrap().codes.remove(c)) else {
            return bad("invalid_grant");
        };
        let verifier = form.get("code_verifier").cloned().unwrap_or_default();
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        if challenge != grant.challenge
            || form.get("resource") != grant.resource.as_ref()
            || form.get("client_id").is_some_and(|c| c != &grant.client_id)
            || form.get("redirect_uri").is_some_and(|r| r != &grant.redirect_uri)
        {
            return bad("invalid_grant");
        }
        self.tokens_issued.fetch_add(1, Ordering::SeqCst);
        let claims = json!({
            "iss": self.issuer, "sub": "alice", "aud": grant.resource, "client_id": grant.client_id,
            "scope": grant.scope, "exp": now() + 300, "iat": now()
        });
        let token = self.signer.token(json!({"alg": "EdDSA", "kid": "ed", "typ": "at+jwt"}), &claims);
        json_response(
            StatusCode::OK,
            &json!({"access_token": token, "token_type": "Bearer", "expires_in": 300, "scope": grant.scope}),
        )
    }
}

fn json_response(status: StatusCode, body: &Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert("content-type", "application/json".parse().unwrap());
    response
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `a=1&b=2` decoded (`+` is a space).
fn query_pairs(query: &str) -> Vec<(String, String)> {
    let decode = |s: &str| {
        let bytes = s.replace('+', " ").into_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' && i + 2 < bytes.len() {
                if let Ok(b) =
                    u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16)
                {
                    out.push(b);
                    i += 3;
                    continue;
                }
            }
            out.push(bytes[i]);
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}
