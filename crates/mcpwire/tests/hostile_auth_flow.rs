//! The OAuth client's token requests, loopback callback and token store against hostile
//! input on loopback sockets: token endpoints that answer without a token, with a token
//! type nobody knows, with huge or non-JSON bodies or echoes of the secrets sent; a
//! refresh that always "succeeds" for a resource that always refuses; a DPoP nonce
//! demanded forever; callbacks that are slow, forged, huge or elsewhere; and store files
//! that are corrupt, huge or of another format. Each ends in a clear error, in bounded
//! time and memory, with no secret in the error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "auth_client_support.rs"]
mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::StatusCode;
use http_body_util::{BodyExt, Full};
use mcpwire::auth::{
    AuthorizationHandler, ClientCredentials, DpopPolicy, FileTokenStore, Grant, LoopbackRedirect,
    OAuthClient, OAuthConfig, TokenStore, Tokens,
};
use serde_json::{json, Value};
use support::{reply, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Long enough for a loaded machine, far shorter than any hang.
const BOUND: Duration = Duration::from_secs(20);
const SECRET: &str = "client-secret-0123456789";

type Answer = Arc<dyn Fn(&str, usize) -> http::Response<Full<Bytes>> + Send + Sync>;

/// An authorization server whose token endpoint answers with `token(form, n)` (the
/// n-th token request, from 1), and a resource whose metadata names it (and which
/// answers `401` to every POST). Returns the resource URL and the count of token
/// requests.
async fn with_token_endpoint(token: Answer, extra: Value) -> (String, Arc<AtomicUsize>) {
    with_counted_resource(token, extra, Arc::default()).await
}

/// How the resource at `base` refuses its n-th POST (from 0): a status and a challenge.
type Refusal = Arc<dyn Fn(&str, usize) -> (StatusCode, String) + Send + Sync>;

/// [`with_token_endpoint`], counting the resource's POSTs in `posts`.
async fn with_counted_resource(
    token: Answer,
    extra: Value,
    posts: Arc<AtomicUsize>,
) -> (String, Arc<AtomicUsize>) {
    let unauthorized: Refusal = Arc::new(|base, _| {
        (StatusCode::UNAUTHORIZED, format!(r#"Bearer error="invalid_token", resource_metadata="{base}/prm""#))
    });
    with_refusing_resource(token, extra, posts, unauthorized).await
}

/// [`with_counted_resource`], the resource refusing every POST as `refusal` says.
async fn with_refusing_resource(
    token: Answer,
    extra: Value,
    posts: Arc<AtomicUsize>,
    refusal: Refusal,
) -> (String, Arc<AtomicUsize>) {
    let cell = Arc::new(std::sync::Mutex::new(String::new()));
    let own = cell.clone();
    let count = Arc::new(AtomicUsize::new(0));
    let counted = count.clone();
    let issuer = serve(move |req| {
        let (base, token, counted, extra) =
            (own.lock().unwrap().clone(), token.clone(), counted.clone(), extra.clone());
        Box::pin(async move {
            let path = req.uri().path().to_owned();
            let form = req.into_body().collect().await.unwrap().to_bytes();
            let form = String::from_utf8_lossy(&form).into_owned();
            match path.as_str() {
                "/.well-known/oauth-authorization-server" => {
                    let mut metadata = json!({
                        "issuer": base,
                        "token_endpoint": format!("{base}/token"),
                        "code_challenge_methods_supported": ["S256"],
                    });
                    for (k, v) in extra.as_object().unwrap() {
                        metadata[k] = v.clone();
                    }
                    reply(StatusCode::OK, &[], metadata)
                }
                "/token" => token(&form, counted.fetch_add(1, Ordering::Relaxed) + 1),
                _ => reply(StatusCode::NOT_FOUND, &[], json!({})),
            }
        })
    })
    .await;
    *cell.lock().unwrap() = issuer.clone();
    let rs = Arc::new(std::sync::Mutex::new(String::new()));
    let rs_own = rs.clone();
    // The resource: its metadata on GET, a refusal pointing at it to every POST.
    let host = serve(move |req| {
        let base = rs_own.lock().unwrap().clone();
        let response = match req.method() == http::Method::POST {
            true => {
                let (status, challenge) = refusal(&base, posts.fetch_add(1, Ordering::Relaxed));
                reply(status, &[("www-authenticate", challenge)], json!({}))
            }
            false => reply(
                StatusCode::OK,
                &[],
                json!({"resource": format!("{base}/mcp"), "authorization_servers": [issuer.clone()]}),
            ),
        };
        Box::pin(async move { response })
    })
    .await;
    *rs.lock().unwrap() = host.clone();
    (format!("{host}/mcp"), count)
}

/// A `client_credentials` client authenticating with [`SECRET`] in the form.
fn machine_client(dpop: DpopPolicy) -> OAuthClient {
    let credentials = ClientCredentials {
        client_id: "machine".into(),
        client_secret: Some(SECRET.into()),
        token_endpoint_auth_method: Some("client_secret_post".into()),
        ..ClientCredentials::default()
    };
    OAuthClient::new(OAuthConfig {
        grant: Grant::ClientCredentials,
        pre_registered: Some((None, credentials)),
        dpop,
        ..OAuthConfig::default()
    })
}

/// Connects a machine client (`dpop`) to the MCP endpoint `url`, which must refuse it
/// within [`BOUND`]: the connect's error.
async fn refused_connect(url: &str, dpop: DpopPolicy) -> String {
    let transport =
        mcpwire::transport::http_client::HttpClientTransport::new(url).unwrap().oauth(machine_client(dpop));
    let connecting = mcpwire::client::Client::builder("hostile", "0").connect(transport);
    let outcome = tokio::time::timeout(BOUND, connecting).await.expect("the connect ends in bounded time");
    let Err(error) = outcome else { panic!("a resource that refuses everything is not connected to") };
    error.to_string()
}

fn raw(status: StatusCode, body: impl Into<Bytes>) -> http::Response<Full<Bytes>> {
    http::Response::builder().status(status).body(Full::new(body.into())).unwrap()
}

fn unauthorized() -> http::HeaderMap {
    http::HeaderMap::new()
}

async fn authorize(client: &OAuthClient, resource: &str) -> Result<(), String> {
    tokio::time::timeout(BOUND, client.authorize(resource, &unauthorized(), false))
        .await
        .expect("authorization ends in bounded time")
        .map_err(|e| e.to_string())
}

/// Token answers without a token, with a token no header can carry (empty, a line break,
/// not ASCII), with a token type the client cannot use, not JSON, huge, or a refusal that
/// is not JSON: each is a clear error, no token is kept.
#[tokio::test]
async fn broken_token_answers_are_clear_errors_and_keep_no_token() {
    let cases: Vec<(&str, Answer, &str)> = vec![
        (
            "no access_token",
            Arc::new(|_, _| reply(StatusCode::OK, &[], json!({"token_type": "Bearer"}))),
            "no access_token",
        ),
        (
            "a numeric access_token",
            Arc::new(|_, _| reply(StatusCode::OK, &[], json!({"access_token": 5, "token_type": "Bearer"}))),
            "no access_token",
        ),
        (
            "an empty access_token",
            Arc::new(|_, _| reply(StatusCode::OK, &[], json!({"access_token": "", "token_type": "Bearer"}))),
            "access_token",
        ),
        (
            "an access_token with a line break",
            Arc::new(|_, _| {
                reply(StatusCode::OK, &[], json!({"access_token": "a\r\nX-Evil: 1", "token_type": "Bearer"}))
            }),
            "access_token",
        ),
        (
            "a non-ASCII access_token",
            Arc::new(|_, _| {
                reply(StatusCode::OK, &[], json!({"access_token": "t\u{f6}ken", "token_type": "Bearer"}))
            }),
            "access_token",
        ),
        (
            "an unknown token type",
            Arc::new(|_, _| reply(StatusCode::OK, &[], json!({"access_token": "t", "token_type": "mac"}))),
            "token_type",
        ),
        ("not JSON", Arc::new(|_, _| raw(StatusCode::OK, "access_token=t")), "not JSON"),
        ("2 MiB", Arc::new(|_, _| raw(StatusCode::OK, vec![b' '; 2 << 20])), "limit"),
        ("an HTML refusal", Arc::new(|_, _| raw(StatusCode::BAD_GATEWAY, "<html>bad gateway</html>")), "502"),
        ("a huge refusal", Arc::new(|_, _| raw(StatusCode::BAD_REQUEST, vec![b'x'; 500_000])), "400"),
        ("a redirect", Arc::new(|_, _| raw(StatusCode::TEMPORARY_REDIRECT, "")), "307"),
    ];
    for (what, answer, expected) in cases {
        let (resource, _) = with_token_endpoint(answer, json!({})).await;
        let client = machine_client(DpopPolicy::Never);
        let error = authorize(&client, &resource).await.unwrap_err();
        assert!(error.contains(expected), "{what}: {error}");
        assert!(error.len() < 2048, "{what}: the error is bounded: {} bytes", error.len());
        assert!(client.tokens().is_none(), "{what}: no token kept");
    }
}

/// `expires_in` negative, fractional, a word or beyond any clock, and scopes wider than
/// asked: the token is taken (the expiry as unknown or saturated), nothing panics.
#[tokio::test]
async fn odd_expiries_and_wide_scopes_are_taken_without_a_panic() {
    for (expires_in, expected) in [
        (json!(-5), None),
        (json!(1.5), None),
        (json!("soon"), None),
        (json!(1e300), None),
        (json!(u64::MAX), Some(u64::MAX)),
    ] {
        let answer = json!({"access_token": "t", "token_type": "bearer", "expires_in": expires_in, "scope": "everything admin"});
        let (resource, _) =
            with_token_endpoint(Arc::new(move |_, _| reply(StatusCode::OK, &[], answer.clone())), json!({}))
                .await;
        let client = machine_client(DpopPolicy::Never);
        authorize(&client, &resource).await.unwrap();
        let tokens = client.tokens().unwrap();
        assert_eq!(tokens.expires_at, expected, "{expires_in}");
        assert_eq!(tokens.scope.as_deref(), Some("everything admin"));
    }
}

/// A token endpoint that refuses with an echo of the request it got: the client secret
/// and the refresh token it carried are not in the error.
#[tokio::test]
async fn a_refusal_echoing_the_request_puts_no_secret_in_the_error() {
    let answer: Answer = Arc::new(|form, n| match n {
        1 => reply(
            StatusCode::OK,
            &[],
            json!({"access_token": "t1", "token_type": "Bearer", "refresh_token": "refresh-secret-0123456789"}),
        ),
        _ => raw(StatusCode::BAD_REQUEST, format!("{{\"error\":\"invalid_grant\",\"echo\":\"{form}\"}}")),
    });
    let (resource, count) = with_token_endpoint(answer, json!({})).await;
    let client = machine_client(DpopPolicy::Never);
    authorize(&client, &resource).await.unwrap();
    // The next 401 refreshes (refused, with the echo), then asks again (refused too).
    let error = authorize(&client, &resource).await.unwrap_err();
    assert_eq!(count.load(Ordering::Relaxed), 3, "a refresh, then a new grant");
    assert!(error.contains("invalid_grant"), "{error}");
    assert!(!error.contains(SECRET), "the client secret is not in the error: {error}");
    assert!(!error.contains("refresh-secret"), "the refresh token is not in the error: {error}");
}

/// An authorization server that demands a new DPoP nonce on every token request: the
/// client retries once with it, then gives up, saying so.
#[tokio::test]
async fn a_dpop_nonce_demanded_forever_is_retried_once() {
    let answer: Answer = Arc::new(|_, n| {
        reply(
            StatusCode::BAD_REQUEST,
            &[("dpop-nonce", format!("nonce-{n}"))],
            json!({"error": "use_dpop_nonce"}),
        )
    });
    let (resource, count) =
        with_token_endpoint(answer, json!({"dpop_signing_alg_values_supported": ["ES256"]})).await;
    let client = machine_client(DpopPolicy::Always);
    let error = authorize(&client, &resource).await.unwrap_err();
    assert!(error.contains("use_dpop_nonce"), "{error}");
    assert_eq!(count.load(Ordering::Relaxed), 2, "one retry with the nonce, no more");
}

/// A resource that answers `401` to every request while its authorization server issues
/// and refreshes tokens without end: each request is authorized three times (a grant,
/// then two refreshes), then fails with the resource's refusal; no loop.
#[tokio::test]
async fn a_refresh_that_always_succeeds_for_a_resource_that_always_refuses_is_bounded() {
    let answer: Answer = Arc::new(|_, n| {
        reply(
            StatusCode::OK,
            &[],
            json!({"access_token": format!("t{n}"), "token_type": "Bearer", "refresh_token": format!("r{n}")}),
        )
    });
    let posts = Arc::new(AtomicUsize::new(0));
    let (resource, count) = with_counted_resource(answer, json!({}), posts.clone()).await;
    let error = refused_connect(&resource, DpopPolicy::Never).await;
    assert!(error.contains("401"), "{error}");
    // Each POST is sent at most four times (three authorizations), each 401 but the last
    // of each request leads to one token request.
    let (requests, posts) = (count.load(Ordering::Relaxed), posts.load(Ordering::Relaxed));
    assert!(posts.is_multiple_of(4) && posts <= 16, "{posts} POSTs");
    assert_eq!(requests, posts / 4 * 3, "three token requests per MCP request");
}

/// A resource that demands a new DPoP nonce in every `401`, forever: each nonce is taken
/// once (a retry with it, no new token), each request gives up after three, and the
/// connect fails with the resource's refusal.
#[tokio::test]
async fn a_resource_demanding_a_new_dpop_nonce_forever_is_bounded() {
    let posts = Arc::new(AtomicUsize::new(0));
    let counted = posts.clone();
    let resource = serve(move |_| {
        let n = counted.fetch_add(1, Ordering::Relaxed);
        let headers = [
            ("www-authenticate", r#"DPoP error="use_dpop_nonce", algs="ES256""#.to_owned()),
            ("dpop-nonce", format!("nonce-{n}")),
        ];
        Box::pin(async move { reply(StatusCode::UNAUTHORIZED, &headers, json!({})) })
    })
    .await;
    let error = refused_connect(&format!("{resource}/mcp"), DpopPolicy::Always).await;
    assert!(error.contains("401"), "{error}");
    let posts = posts.load(Ordering::Relaxed);
    assert!(posts.is_multiple_of(4) && posts <= 16, "each request is sent at most four times: {posts} POSTs");
}

/// Sends `request` to the loopback listener at `base` and returns the status line, or
/// `None` if the connection closed without one.
async fn visit(base: &str, request: &[u8]) -> Option<String> {
    let mut socket = TcpStream::connect(base.trim_start_matches("http://")).await.ok()?;
    socket.write_all(request).await.ok()?;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(BOUND, socket.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).lines().next().map(str::to_owned)
}

/// The loopback listener waiting for `state`; returns its base URL and the wait.
fn listen(state: &str) -> (String, tokio::task::JoinHandle<Result<String, mcpwire::auth::AuthError>>) {
    let handler = LoopbackRedirect::bind().unwrap().with_timeout(BOUND).with_opener(|_| {});
    let base = handler.redirect_uri().trim_end_matches("/callback").to_owned();
    let url = format!("http://as.invalid/authorize?state={state}");
    (base, tokio::spawn(async move { handler.authorize(url).await }))
}

/// Clients that open the callback and never finish their request do not hold up the
/// browser's real redirect: it is answered and ends the wait at once.
#[tokio::test]
async fn slow_clients_do_not_block_the_real_callback() {
    let (base, wait) = listen("the-state");
    let mut stalled = Vec::new();
    for _ in 0..8 {
        let mut socket = TcpStream::connect(base.trim_start_matches("http://")).await.unwrap();
        socket.write_all(b"GET /callback?state=the-st").await.unwrap();
        stalled.push(socket);
    }
    let status = visit(&base, b"GET /callback?code=c&state=the-state HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert_eq!(status.as_deref(), Some("HTTP/1.1 200 OK"));
    let redirect = tokio::time::timeout(Duration::from_secs(5), wait)
        .await
        .expect("the real callback ended the wait while the slow clients stalled")
        .unwrap()
        .unwrap();
    assert!(redirect.contains("code=c"), "{redirect}");
    drop(stalled);
}

/// Requests to other paths, a forged state, a query too big for the listener, then an
/// `error` redirect: each is answered (404, 400, 431) and only the last ends the wait,
/// carrying the error for the flow to report.
#[tokio::test]
async fn forged_huge_and_foreign_callbacks_are_answered_and_ignored() {
    let (base, wait) = listen("s1");
    let get = |target: &str| format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").into_bytes();
    assert_eq!(visit(&base, &get("/favicon.ico")).await.as_deref(), Some("HTTP/1.1 404 Not Found"));
    assert_eq!(
        visit(&base, &get("/callback?code=c&state=forged")).await.as_deref(),
        Some("HTTP/1.1 400 Bad Request")
    );
    let huge = get(&format!("/callback?code={}&state=s1", "a".repeat(100_000)));
    let status = visit(&base, &huge).await;
    assert_eq!(status.as_deref(), Some("HTTP/1.1 431 Request Header Fields Too Large"));
    assert!(!wait.is_finished(), "none of those ended the wait");
    let status = visit(&base, &get("/callback?error=access_denied%3Cscript%3E&state=s1")).await;
    assert_eq!(status.as_deref(), Some("HTTP/1.1 200 OK"));
    let redirect = wait.await.unwrap().unwrap();
    assert!(redirect.contains("error=access_denied"), "{redirect}");
}

/// A directory of this test process's own, removed with everything in it when dropped
/// (a failed assertion included), so that runs leave nothing behind.
struct Scratch(std::path::PathBuf);

impl Scratch {
    /// The directory for the test `tag` (tests run side by side in one process).
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("mcpwire-hostile-store-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// The path of a store file in a directory of its own, named `name`.
    fn store_path(&self, name: &str) -> std::path::PathBuf {
        let dir = self.0.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("auth.json")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn a_token() -> Tokens {
    Tokens { access_token: "at".into(), token_type: "Bearer".into(), ..Tokens::default() }
}

/// Store files that are garbage, huge, or JSON of the wrong types read as an empty
/// store (no panic, bounded reads); a save keeps the unreadable file aside instead of
/// destroying it, and a JSON document with members of its own keeps them; a path the
/// file system will not read is left alone.
#[tokio::test]
async fn corrupt_huge_and_foreign_store_files_are_not_destroyed() {
    let scratch = Scratch::new("corrupt");
    let garbage: &[u8] = b"\x00\xffnot json at all";
    let huge = vec![b' '; 3 << 20];
    for (what, contents) in
        [("garbage", garbage.to_vec()), ("huge", huge), ("wrong types", br#"{"tokens": 5}"#.to_vec())]
    {
        let path = scratch.store_path(what);
        std::fs::write(&path, &contents).unwrap();
        let store = FileTokenStore::new(&path);
        assert_eq!(store.load_tokens("http://rs/mcp"), None, "{what}");
        store.save_tokens("http://rs/mcp", Some(&a_token())).unwrap();
        assert_eq!(store.load_tokens("http://rs/mcp"), Some(a_token()), "{what}: the new store works");
        let mut aside = path.clone().into_os_string();
        aside.push(".corrupt");
        assert_eq!(std::fs::read(&aside).unwrap(), contents, "{what}: the unreadable file was kept aside");
    }
    let path = scratch.store_path("foreign");
    std::fs::write(&path, br#"{"version": 7, "accounts": ["a"], "tokens": {}}"#).unwrap();
    let store = FileTokenStore::new(&path);
    store.save_tokens("http://rs/mcp", Some(&a_token())).unwrap();
    let saved: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!((saved["version"].clone(), saved["accounts"].clone()), (json!(7), json!(["a"])), "{saved}");
    assert_eq!(store.load_tokens("http://rs/mcp"), Some(a_token()));
    // A store path that is a directory is left alone, and saving says why it failed.
    let path = scratch.store_path("directory");
    std::fs::create_dir(&path).unwrap();
    let error = FileTokenStore::new(&path).save_tokens("http://rs/mcp", Some(&a_token())).unwrap_err();
    assert!(error.to_string().contains("auth.json"), "{error}");
    assert!(path.is_dir(), "the directory is still there");
}

/// An authorizer that answers every authorization URL with a redirect carrying `query`,
/// its `{state}` replaced by the request's state.
struct Redirects(String);

impl AuthorizationHandler for Redirects {
    fn authorize(
        &self,
        url: String,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<String, mcpwire::auth::AuthError>> + Send>>
    {
        let state = url.split("state=").nth(1).unwrap().split('&').next().unwrap().to_owned();
        let redirect = format!("http://127.0.0.1:1/callback?{}", self.0.replace("{state}", &state));
        Box::pin(async move { Ok(redirect) })
    }
}

/// Authorization responses whose `error` or `iss` is huge and full of control
/// characters (a terminal escape, a forged second line): the error says what was refused
/// in a bounded line of visible characters, and no code is redeemed.
#[tokio::test]
async fn a_hostile_authorization_error_is_shown_bounded_and_inert() {
    let test_as = support::TestAs::start(support::Knobs::default()).await;
    let iss = test_as.issuer.replace(':', "%3A").replace('/', "%2F");
    let noise = format!("%1B%5B31m{}%0D%0Aforged%20line", "x".repeat(20_000));
    for query in
        [format!("error={noise}&state={{state}}&iss={iss}"), format!("code=c&state={{state}}&iss={noise}")]
    {
        let client = OAuthClient::new(OAuthConfig {
            authorizer: Arc::new(Redirects(query)),
            redirect_uri: "http://127.0.0.1:1/callback".into(),
            ..OAuthConfig::default()
        });
        let error = authorize(&client, &test_as.resource).await.unwrap_err();
        assert!(error.len() < 512, "the error is bounded: {} bytes", error.len());
        assert!(!error.chars().any(char::is_control), "no control characters: {error:?}");
    }
    assert!(test_as.seen("/token").is_empty(), "no code was redeemed");
}

/// A resource whose every `403 insufficient_scope` names a scope not asked for before
/// (100 bytes each), and an authorization server that grants whatever is asked: each
/// step-up brings something new, so the scope the client asks for would grow without
/// end, and a user would be sent to consent again at every request. The client stops
/// once the scope would pass its limit, saying so, without a token request, and keeps
/// the token it has.
#[tokio::test]
async fn a_step_up_asking_for_a_new_scope_every_time_is_bounded() {
    let longest = Arc::new(AtomicUsize::new(0));
    let seen = longest.clone();
    let answer: Answer = Arc::new(move |form, n| {
        let scope = form.split('&').find_map(|p| p.strip_prefix("scope=")).unwrap_or("");
        seen.fetch_max(scope.replace("%20", " ").len(), Ordering::Relaxed);
        reply(StatusCode::OK, &[], json!({"access_token": format!("t{n}"), "token_type": "Bearer"}))
    });
    let (resource, count) = with_token_endpoint(answer, json!({})).await;
    let client = machine_client(DpopPolicy::Never);
    authorize(&client, &resource).await.unwrap();
    let mut refusal = None;
    for round in 0..200 {
        let challenge = format!(r#"Bearer error="insufficient_scope", scope="{round:0>100}""#);
        let headers =
            http::HeaderMap::from_iter([(http::header::WWW_AUTHENTICATE, challenge.parse().unwrap())]);
        let outcome = tokio::time::timeout(BOUND, client.authorize(&resource, &headers, true))
            .await
            .expect("a step-up ends in bounded time");
        if let Err(e) = outcome {
            refusal = Some((round, e.to_string()));
            break;
        }
    }
    let (round, error) = refusal.expect("the step-ups stop");
    assert!(error.contains("scope") && error.contains("2048"), "the error says why: {error}");
    assert!(longest.load(Ordering::Relaxed) <= 2048, "no token request asked for more");
    assert_eq!(count.load(Ordering::Relaxed), round + 1, "the refused step-up sent no token request");
    assert!(client.tokens().is_some(), "the token for the scopes granted is kept");
}

/// Runs `f` on a thread of its own; its result, or a panic naming `what` if it does not
/// end within [`BOUND`] (after `release`, which lets the blocked thread end: a FIFO
/// opened for reading waits for a writer in the kernel, a lock for its holder).
fn without_blocking<T: Send + 'static>(
    what: &str,
    release: impl FnOnce(),
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(BOUND) {
        Ok(outcome) => outcome,
        Err(_) => {
            release();
            panic!("{what} blocked");
        }
    }
}

/// Opens a FIFO for reading and writing (which never waits), so that a thread blocked
/// opening it for either goes on.
#[cfg(unix)]
fn unblock(fifo: &std::path::Path) {
    let _ = std::fs::OpenOptions::new().read(true).write(true).open(fifo);
}

/// A token store path that is a FIFO (a reader of it waits for a writer forever, a
/// writer for a reader), and FIFOs where the store puts its lock and temporary files:
/// nothing blocks. The store file is refused as not a regular file (loads read as
/// empty, saves fail saying why) and left as it is; a FIFO lock file is not taken, and a
/// leftover temporary file of any kind is replaced.
#[cfg(unix)]
#[test]
fn a_store_path_that_is_a_fifo_is_refused_without_blocking() {
    use std::os::unix::fs::FileTypeExt;
    let scratch = Scratch::new("fifo");
    let mkfifo = |path: &std::path::Path| {
        let made = std::process::Command::new("mkfifo").arg(path).status().unwrap();
        assert!(made.success(), "mkfifo {}", path.display());
    };
    let path = scratch.store_path("fifo");
    mkfifo(&path);
    let store = FileTokenStore::new(&path);
    let fifo = path.clone();
    let (tokens, saved, client) = without_blocking(
        "the store",
        || unblock(&fifo),
        move || {
            let tokens = store.load_tokens("http://rs/mcp");
            let saved = store.save_tokens("http://rs/mcp", Some(&a_token())).map_err(|e| e.to_string());
            (tokens, saved, store.load_client("http://as"))
        },
    );
    assert_eq!(tokens, None);
    assert!(client.is_none());
    let error = saved.unwrap_err();
    assert!(error.contains("auth.json") && error.contains("not a regular file"), "{error}");
    assert!(std::fs::metadata(&path).unwrap().file_type().is_fifo(), "the FIFO is left as it is");
    // The store is a file; its lock file and this process's temporary file are FIFOs.
    for (what, suffix) in [("lock", ".lock".to_owned()), ("temporary", format!(".tmp{}", std::process::id()))]
    {
        let path = scratch.store_path(what);
        let mut fifo = path.clone().into_os_string();
        fifo.push(&suffix);
        let fifo = std::path::PathBuf::from(fifo);
        mkfifo(&fifo);
        let store = FileTokenStore::new(&path);
        let saved = without_blocking(
            what,
            || unblock(&fifo),
            move || {
                store.save_tokens("http://rs/mcp", Some(&a_token())).map_err(|e| e.to_string())?;
                Ok::<_, String>(store.load_tokens("http://rs/mcp"))
            },
        );
        assert_eq!(saved, Ok(Some(a_token())), "{what}: the store works");
    }
}

/// A store holding one server's login, then tokens (from a hostile authorization
/// server) so large that the file would pass the 1 MiB the store reads: written, the
/// file would read as corrupt, every login in it lost to the next save. The save is
/// refused instead, saying why, and the login already there stays.
#[test]
fn tokens_too_large_for_the_store_file_leave_the_other_logins_in_it() {
    let scratch = Scratch::new("large");
    let path = scratch.store_path("large");
    let store = FileTokenStore::new(&path);
    store.save_tokens("http://rs/mcp", Some(&a_token())).unwrap();
    let huge =
        Tokens { access_token: "a".repeat(700_000), refresh_token: Some("r".repeat(400_000)), ..a_token() };
    let error = store.save_tokens("http://evil/mcp", Some(&huge)).unwrap_err().to_string();
    assert!(error.contains("auth.json") && error.contains("1048576"), "{error}");
    assert_eq!(store.load_tokens("http://rs/mcp"), Some(a_token()), "the other login is still there");
    store.save_tokens("http://rs2/mcp", Some(&a_token())).unwrap();
    assert_eq!(store.load_tokens("http://rs/mcp"), Some(a_token()), "and survives the next save");
    let mut aside = path.into_os_string();
    aside.push(".corrupt");
    assert!(!std::path::Path::new(&aside).exists(), "nothing was set aside");
}

/// An authorization response from another issuer (RFC 9207 `iss` that is not the one
/// asked, here carrying an `error`), and one without `iss` from a server that advertises
/// it: refused as coming from the wrong server, the error fields ignored, no code
/// redeemed.
#[tokio::test]
async fn an_authorization_response_from_another_issuer_is_refused_and_its_error_ignored() {
    let test_as = support::TestAs::start(support::Knobs::default()).await;
    let other = format!("{}/", test_as.issuer).replace(':', "%3A").replace('/', "%2F");
    for (query, expected) in [
        (format!("error=temporarily_unavailable&state={{state}}&iss={other}"), "came from issuer"),
        ("code=c&state={state}".to_owned(), "has no iss"),
    ] {
        let client = OAuthClient::new(OAuthConfig {
            authorizer: Arc::new(Redirects(query)),
            redirect_uri: "http://127.0.0.1:1/callback".into(),
            ..OAuthConfig::default()
        });
        let error = authorize(&client, &test_as.resource).await.unwrap_err();
        assert!(error.contains(expected) && !error.contains("temporarily_unavailable"), "{error}");
    }
    assert!(test_as.seen("/token").is_empty(), "no code was redeemed");
}

/// Another process holding the store's lock file and never letting go (stopped in the
/// middle of a save): a save waits a bounded time for it, then goes on without it, and
/// the token is saved.
#[test]
fn a_store_lock_held_forever_does_not_block_a_save() {
    let scratch = Scratch::new("lock");
    let path = scratch.store_path("held");
    let mut lock = path.clone().into_os_string();
    lock.push(".lock");
    let held = std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(&lock).unwrap();
    held.lock().unwrap();
    let store = FileTokenStore::new(&path);
    let saved = without_blocking(
        "a save behind a held lock",
        move || drop(held),
        move || {
            store.save_tokens("http://rs/mcp", Some(&a_token())).map_err(|e| e.to_string())?;
            Ok::<_, String>(store.load_tokens("http://rs/mcp"))
        },
    );
    assert_eq!(saved, Ok(Some(a_token())));
}

/// A resource that answers every request `403 insufficient_scope` naming a scope not
/// asked for before, its authorization server granting each: each request steps up three
/// times at most, then fails with the `403`; the connect ends.
#[tokio::test]
async fn a_resource_forbidding_every_request_with_a_new_scope_is_bounded_per_request() {
    let answer: Answer = Arc::new(|_, n| {
        reply(StatusCode::OK, &[], json!({"access_token": format!("t{n}"), "token_type": "Bearer"}))
    });
    let forbidden: Refusal = Arc::new(|base, n| {
        let challenge =
            format!(r#"Bearer error="insufficient_scope", scope="s{n}", resource_metadata="{base}/prm""#);
        (StatusCode::FORBIDDEN, challenge)
    });
    let posts = Arc::new(AtomicUsize::new(0));
    let (resource, count) = with_refusing_resource(answer, json!({}), posts.clone(), forbidden).await;
    let error = refused_connect(&resource, DpopPolicy::Never).await;
    assert!(error.contains("403"), "{error}");
    let (requests, posts) = (count.load(Ordering::Relaxed), posts.load(Ordering::Relaxed));
    assert!(posts.is_multiple_of(4) && posts <= 16, "each request is sent at most four times: {posts} POSTs");
    assert_eq!(requests, posts / 4 * 3, "three step-ups per MCP request");
}

/// A token endpoint that answers a request which carried no DPoP proof with a DPoP-bound
/// token (any case): the client could only send it as a bearer token, which RFC 9449
/// forbids, so it is refused, saying why, and kept nowhere; a `token_type` that is not a
/// string is refused too. `Bearer` is taken in any case.
#[tokio::test]
async fn a_dpop_token_for_a_request_without_a_proof_is_refused() {
    let cases: Vec<(&str, Answer, &str)> = vec![
        (
            "DPoP",
            Arc::new(|_, _| reply(StatusCode::OK, &[], json!({"access_token": "t", "token_type": "DPoP"}))),
            "DPoP",
        ),
        (
            "dpop",
            Arc::new(|_, _| reply(StatusCode::OK, &[], json!({"access_token": "t", "token_type": "dpop"}))),
            "DPoP",
        ),
        (
            "a numeric token_type",
            Arc::new(|_, _| reply(StatusCode::OK, &[], json!({"access_token": "t", "token_type": 5}))),
            "token_type",
        ),
    ];
    for (what, answer, expected) in cases {
        let (resource, _) = with_token_endpoint(answer, json!({})).await;
        let client = machine_client(DpopPolicy::Never);
        let error = authorize(&client, &resource).await.unwrap_err();
        assert!(error.contains(expected), "{what}: {error}");
        assert!(client.tokens().is_none(), "{what}: no token kept");
    }
    let bearer: Answer =
        Arc::new(|_, _| reply(StatusCode::OK, &[], json!({"access_token": "t", "token_type": "BEARER"})));
    let (resource, _) = with_token_endpoint(bearer, json!({})).await;
    let client = machine_client(DpopPolicy::Never);
    authorize(&client, &resource).await.unwrap();
    let headers = client.request_headers(&http::Method::POST, &resource.parse().unwrap()).await;
    assert_eq!(headers["authorization"], "Bearer t");
}
