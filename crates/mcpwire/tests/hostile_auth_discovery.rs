//! The OAuth client's discovery against hostile hosts on loopback sockets: resource and
//! authorization server metadata that is huge, endless, slow, not JSON, of the wrong
//! types or lying; redirects on every fetch; and `WWW-Authenticate` challenges that are
//! huge, repeated or malformed. Each ends in a clear error, in bounded time and memory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "auth_client_support.rs"]
mod support;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http::StatusCode;
use mcpwire::auth::{Challenge, OAuthClient, OAuthConfig};
use serde_json::{json, Value};
use support::{reply, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A metadata document built from its host's own base URL.
type Document = Box<dyn Fn(&str) -> Value + Send + Sync>;

/// Long enough for a loaded machine, far shorter than any hang.
const BOUND: Duration = Duration::from_secs(20);

fn client() -> OAuthClient {
    OAuthClient::new(OAuthConfig {
        redirect_uri: "http://127.0.0.1:1/callback".into(),
        ..OAuthConfig::default()
    })
}

/// A `401` whose `WWW-Authenticate` values are `challenges`, one header each.
fn challenged(challenges: &[String]) -> http::HeaderMap {
    let mut headers = http::HeaderMap::new();
    for c in challenges {
        headers.append(http::header::WWW_AUTHENTICATE, c.parse().unwrap());
    }
    headers
}

fn hinting(prm: &str) -> http::HeaderMap {
    challenged(&[format!(r#"Bearer resource_metadata="{prm}""#)])
}

/// Authorizes `resource` after a `401` with `headers`, within [`BOUND`]; the error.
async fn refused(resource: &str, headers: &http::HeaderMap) -> String {
    let outcome = tokio::time::timeout(BOUND, client().authorize(resource, headers, false))
        .await
        .expect("authorization ends in bounded time");
    match outcome {
        Err(e) => e.to_string(),
        Ok(()) => panic!("a hostile host was trusted"),
    }
}

/// Reads a request head from `socket`; `None` at EOF.
async fn read_head(socket: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if socket.read(&mut byte).await.ok()? == 0 || head.len() > 64 * 1024 {
            return None;
        }
        head.push(byte[0]);
    }
    Some(String::from_utf8_lossy(&head).into_owned())
}

/// A host that hands every connection's request head and socket to `answer`; returns
/// `http://127.0.0.1:PORT`.
async fn raw_host<F, Fut>(answer: F) -> String
where
    F: Fn(String, TcpStream) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let answer = answer.clone();
            tokio::spawn(async move {
                if let Some(head) = read_head(&mut socket).await {
                    answer(head, socket).await;
                }
            });
        }
    });
    base
}

/// Writes `chunk` until the peer goes away; adds what was written to `sent`.
async fn flood(mut socket: TcpStream, head: &str, chunk: &[u8], sent: Arc<AtomicUsize>) {
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    while socket.write_all(chunk).await.is_ok() {
        sent.fetch_add(chunk.len(), Ordering::Relaxed);
    }
}

/// Far less than the 300 MB claimed: the 1 MiB the client reads before giving up, and
/// room for what the kernel buffers on both ends of a loopback connection.
const READ_BOUND: usize = 32 * 1024 * 1024;

/// A resource metadata document that claims 300 MB, or streams chunks forever: the
/// client reads at most its limit, hangs up, and says why discovery failed.
#[tokio::test]
async fn huge_and_endless_resource_metadata_is_cut_off_with_a_clear_error() {
    let heads = [
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 300000000\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
    ];
    for (i, head) in heads.into_iter().enumerate() {
        let sent = Arc::new(AtomicUsize::new(0));
        let counter = sent.clone();
        let chunked = i == 1;
        // The named document floods; the well-known URLs tried after it are not there.
        let host = raw_host(move |request, mut socket| {
            let sent = counter.clone();
            async move {
                if !request.starts_with("GET /prm ") {
                    let _ = socket.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n").await;
                    return;
                }
                let chunk: Vec<u8> = match chunked {
                    true => [b"10000\r\n".as_slice(), &[b' '; 0x10000], b"\r\n"].concat(),
                    false => vec![b' '; 0x10000],
                };
                flood(socket, head, &chunk, sent).await;
            }
        })
        .await;
        let error = refused(&format!("{host}/mcp"), &hinting(&format!("{host}/prm"))).await;
        assert!(error.contains("resource metadata"), "{error}");
        assert!(error.contains("limit"), "the error says what went wrong: {error}");
        let sent = sent.load(Ordering::Relaxed);
        assert!(sent < READ_BOUND, "the client stopped reading: {sent} bytes sent");
    }
}

/// A metadata host that answers a byte every five seconds: each fetch ends at the
/// exchange's time limit, and discovery with it (given a deadline past three fetches).
#[tokio::test(start_paused = true)]
async fn metadata_sent_a_byte_at_a_time_ends_at_the_time_limit() {
    let host = raw_host(|_, mut socket| async move {
        let _ = socket.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n").await;
        loop {
            tokio::time::sleep(Duration::from_secs(5)).await;
            if socket.write_all(b" ").await.is_err() {
                return;
            }
        }
    })
    .await;
    let client = OAuthClient::new(OAuthConfig {
        redirect_uri: "http://127.0.0.1:1/callback".into(),
        discovery_timeout: Duration::from_secs(300),
        ..OAuthConfig::default()
    });
    let outcome = tokio::time::timeout(
        Duration::from_secs(600),
        client.authorize(&format!("{host}/mcp"), &hinting(&format!("{host}/prm")), false),
    )
    .await
    .expect("discovery has a time limit");
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("no complete answer"), "{error}");
}

/// A resource host: its metadata document at `/prm` (nowhere else), built by `prm` from
/// its own base URL.
async fn resource_host(prm: impl Fn(&str) -> Value + Send + Sync + 'static) -> String {
    let cell = Arc::new(std::sync::Mutex::new(String::new()));
    let own = cell.clone();
    let base = serve(move |req| {
        let response = match req.uri().path() {
            "/prm" => reply(StatusCode::OK, &[], prm(&own.lock().unwrap())),
            _ => reply(StatusCode::NOT_FOUND, &[], json!({})),
        };
        Box::pin(async move { response })
    })
    .await;
    *cell.lock().unwrap() = base.clone();
    base
}

/// Resource metadata that is not JSON, not an object, of the wrong types, or for
/// another resource: each is refused, saying what was wrong.
#[tokio::test]
async fn resource_metadata_of_the_wrong_shape_or_for_another_resource_is_refused() {
    let cases: Vec<(&str, Document, &str)> = vec![
        ("an array", Box::new(|_| json!([1, 2])), "resource"),
        (
            "a numeric resource",
            Box::new(|_| json!({"resource": 5, "authorization_servers": ["x"]})),
            "resource",
        ),
        (
            "another resource",
            Box::new(|b| json!({"resource": "http://127.0.0.1:1/mcp", "authorization_servers": [b]})),
            "not",
        ),
        (
            "a sibling path",
            Box::new(|b| json!({"resource": format!("{b}/mc"), "authorization_servers": [b]})),
            "not",
        ),
        (
            "servers as a string",
            Box::new(|b| json!({"resource": format!("{b}/mcp"), "authorization_servers": b})),
            "no authorization server",
        ),
        (
            "no servers",
            Box::new(|b| json!({"resource": format!("{b}/mcp"), "authorization_servers": []})),
            "no authorization server",
        ),
        (
            "a numeric server",
            Box::new(|b| json!({"resource": format!("{b}/mcp"), "authorization_servers": [7]})),
            "no authorization server",
        ),
    ];
    for (what, prm, expected) in cases {
        let host = resource_host(prm).await;
        let error = refused(&format!("{host}/mcp"), &hinting(&format!("{host}/prm"))).await;
        assert!(error.contains(expected), "{what}: {error}");
    }
    // Not JSON at all.
    let host = serve(|_| {
        Box::pin(async {
            let mut response = reply(StatusCode::OK, &[], json!({}));
            *response.body_mut() =
                http_body_util::Full::new(bytes::Bytes::from_static(b"<html>hello</html>"));
            response
        })
    })
    .await;
    let error = refused(&format!("{host}/mcp"), &hinting(&format!("{host}/prm"))).await;
    assert!(error.contains("did not answer JSON"), "{error}");
}

/// An authorization server host whose metadata document is built by `metadata` from its
/// own base URL; every other path answers `404`. Counts the requests to other paths.
async fn as_host(metadata: impl Fn(&str) -> Value + Send + Sync + 'static) -> (String, Arc<AtomicUsize>) {
    let cell = Arc::new(std::sync::Mutex::new(String::new()));
    let own = cell.clone();
    let others = Arc::new(AtomicUsize::new(0));
    let counted = others.clone();
    let base = serve(move |req| {
        let path = req.uri().path().to_owned();
        let response = match path.starts_with("/.well-known/") {
            true => reply(StatusCode::OK, &[], metadata(&own.lock().unwrap())),
            false => {
                counted.fetch_add(1, Ordering::Relaxed);
                reply(StatusCode::NOT_FOUND, &[], json!({}))
            }
        };
        Box::pin(async move { response })
    })
    .await;
    *cell.lock().unwrap() = base.clone();
    (base, others)
}

/// The resource at `{host}/mcp` of the authorization server `issuer`.
async fn resource_of(issuer: &str) -> String {
    let issuer = issuer.to_owned();
    let host =
        resource_host(move |b| json!({"resource": format!("{b}/mcp"), "authorization_servers": [issuer]}))
            .await;
    format!("{host}/mcp")
}

/// Authorization server metadata that names another issuer, has the wrong types, or
/// sends secrets over plain HTTP to a host that is not this machine: refused before any
/// request goes to the endpoints it names.
#[tokio::test]
async fn lying_authorization_server_metadata_is_refused_before_its_endpoints_are_used() {
    let cases: Vec<(&str, Document, &str)> = vec![
        ("another issuer", Box::new(|_| json!({"issuer": "https://honest.example"})), "issuer"),
        ("a numeric issuer", Box::new(|_| json!({"issuer": 5})), "issuer"),
        ("not an object", Box::new(|_| json!("metadata")), "issuer"),
        (
            "no PKCE",
            Box::new(
                |b| json!({"issuer": b, "authorization_endpoint": format!("{b}/a"), "token_endpoint": format!("{b}/t")}),
            ),
            "PKCE",
        ),
        (
            "PKCE as a string",
            Box::new(
                |b| json!({"issuer": b, "code_challenge_methods_supported": "S256", "token_endpoint": format!("{b}/t")}),
            ),
            "PKCE",
        ),
        (
            "a plain-HTTP token endpoint elsewhere",
            Box::new(|b| {
                json!({
                    "issuer": b, "code_challenge_methods_supported": ["S256"],
                    "authorization_endpoint": format!("{b}/authorize"),
                    "token_endpoint": "http://token.example/token",
                    "registration_endpoint": format!("{b}/register"),
                })
            }),
            "https",
        ),
        (
            "a plain-HTTP authorization endpoint elsewhere",
            Box::new(|b| {
                json!({
                    "issuer": b, "code_challenge_methods_supported": ["S256"],
                    "authorization_endpoint": "http://login.example/authorize",
                    "token_endpoint": format!("{b}/token"),
                    "registration_endpoint": format!("{b}/register"),
                })
            }),
            "https",
        ),
        (
            "a plain-HTTP registration endpoint elsewhere",
            Box::new(|b| {
                json!({
                    "issuer": b, "code_challenge_methods_supported": ["S256"],
                    "authorization_endpoint": format!("{b}/authorize"),
                    "token_endpoint": format!("{b}/token"),
                    "registration_endpoint": "http://register.example/register",
                })
            }),
            "https",
        ),
    ];
    for (what, metadata, expected) in cases {
        let (issuer, others) = as_host(metadata).await;
        let resource = resource_of(&issuer).await;
        let error = refused(&resource, &hinting(&resource.replace("/mcp", "/prm"))).await;
        assert!(error.contains(expected), "{what}: {error}");
        assert_eq!(others.load(Ordering::Relaxed), 0, "{what}: no endpoint of a refused document is used");
    }
}

/// A resource that names a plain-HTTP authorization server on a host that is not this
/// machine, or points its challenge at plain-HTTP metadata elsewhere: refused at once,
/// nothing fetched there (RFC 8414 issuers and RFC 9728 resources are `https` URLs; plain
/// HTTP is for loopback development only).
#[tokio::test]
async fn plain_http_off_this_machine_is_refused_without_a_fetch() {
    let resource = resource_of("http://10.255.255.1").await;
    let error = refused(&resource, &hinting(&resource.replace("/mcp", "/prm"))).await;
    assert!(error.contains("https"), "{error}");
    let host = resource_host(|b| json!({"resource": format!("{b}/mcp"), "authorization_servers": [b]})).await;
    let error = refused(&format!("{host}/mcp"), &hinting("http://10.255.255.1/prm")).await;
    assert!(error.contains("https"), "{error}");
}

/// Every metadata fetch answered with a redirect (to another host, to plain HTTP, or to
/// itself forever): the client follows none, and says that nothing could be read.
#[tokio::test]
async fn redirects_on_every_fetch_are_never_followed() {
    let elsewhere = Arc::new(AtomicUsize::new(0));
    let counted = elsewhere.clone();
    let other = serve(move |_| {
        counted.fetch_add(1, Ordering::Relaxed);
        Box::pin(async { reply(StatusCode::OK, &[], json!({})) })
    })
    .await;
    for target in [format!("{other}/prm"), "http://10.255.255.1/prm".to_owned(), "SELF".to_owned()] {
        let host = raw_host(move |head, mut socket| {
            let target = target.clone();
            async move {
                let path = head.split(' ').nth(1).unwrap_or("/").to_owned();
                let location = if target == "SELF" { path } else { target };
                let answer =
                    format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n");
                let _ = socket.write_all(answer.as_bytes()).await;
            }
        })
        .await;
        let error = refused(&format!("{host}/mcp"), &hinting(&format!("{host}/prm"))).await;
        assert!(error.contains("answered 302 Found"), "the error says why: {error}");
    }
    assert_eq!(elsewhere.load(Ordering::Relaxed), 0, "no redirect was followed to another host");
    // The authorization server's metadata redirects too.
    let redirecting = raw_host(move |_, mut socket| async move {
        let answer = "HTTP/1.1 301 Moved\r\nLocation: http://10.255.255.1/x\r\nContent-Length: 0\r\n\r\n";
        let _ = socket.write_all(answer.as_bytes()).await;
    })
    .await;
    let resource = resource_of(&redirecting).await;
    let error = refused(&resource, &hinting(&resource.replace("/mcp", "/prm"))).await;
    assert!(error.contains("no authorization server metadata") && error.contains("301"), "{error}");
}

/// Dynamic Client Registration answered without a `client_id`, with a numeric, empty or
/// 500 KB one (it would go into every authorization URL and the token store), with a body
/// that is not JSON, with a redirect or with 2 MiB: each is a clear error, and no
/// authorization is attempted.
#[tokio::test]
async fn hostile_registration_answers_are_clear_errors() {
    type Answer = fn() -> http::Response<http_body_util::Full<bytes::Bytes>>;
    let cases: [(&str, Answer, &str); 7] = [
        ("no client_id", || reply(StatusCode::CREATED, &[], json!({"client_secret": "s"})), "no client_id"),
        ("an empty client_id", || reply(StatusCode::CREATED, &[], json!({"client_id": ""})), "client_id"),
        (
            "a 500 KB client_id",
            || reply(StatusCode::CREATED, &[], json!({"client_id": "c".repeat(500_000)})),
            "client_id",
        ),
        ("a numeric client_id", || reply(StatusCode::CREATED, &[], json!({"client_id": 7})), "no client_id"),
        (
            "not JSON",
            || http::Response::new(http_body_util::Full::new(bytes::Bytes::from_static(b"ok"))),
            "registration failed",
        ),
        (
            "a redirect",
            || reply(StatusCode::FOUND, &[("location", "http://10.255.255.1/r".into())], json!({})),
            "302",
        ),
        (
            "2 MiB",
            || http::Response::new(http_body_util::Full::new(bytes::Bytes::from(vec![b' '; 2 << 20]))),
            "limit",
        ),
    ];
    for (what, answer, expected) in cases {
        let cell = Arc::new(std::sync::Mutex::new(String::new()));
        let own = cell.clone();
        let authorizations = Arc::new(AtomicUsize::new(0));
        let counted = authorizations.clone();
        let issuer = serve(move |req| {
            let base = own.lock().unwrap().clone();
            let response = match req.uri().path() {
                "/register" => answer(),
                "/.well-known/oauth-authorization-server" => reply(
                    StatusCode::OK,
                    &[],
                    json!({
                        "issuer": base, "code_challenge_methods_supported": ["S256"],
                        "authorization_endpoint": format!("{base}/authorize"),
                        "token_endpoint": format!("{base}/token"),
                        "registration_endpoint": format!("{base}/register"),
                    }),
                ),
                _ => {
                    counted.fetch_add(1, Ordering::Relaxed);
                    reply(StatusCode::NOT_FOUND, &[], json!({}))
                }
            };
            Box::pin(async move { response })
        })
        .await;
        *cell.lock().unwrap() = issuer.clone();
        let resource = resource_of(&issuer).await;
        let error = refused(&resource, &hinting(&resource.replace("/mcp", "/prm"))).await;
        assert!(error.contains(expected), "{what}: {error}");
        assert_eq!(authorizations.load(Ordering::Relaxed), 0, "{what}: no authorization without a client");
    }
}

/// `WWW-Authenticate` values that are huge, repeated, split over several headers,
/// unterminated or full of challenges: parsed without a panic, each parameter taken from
/// the scheme it belongs to.
#[test]
fn hostile_challenges_parse_without_a_panic() {
    let huge = format!(r#"Bearer scope="{}", resource_metadata="http://h/prm""#, "s ".repeat(200_000));
    let c = Challenge::parse(&huge).unwrap();
    assert_eq!(c.resource_metadata.as_deref(), Some("http://h/prm"));
    let many = format!("{}Bearer error=\"invalid_token\"", "Basic realm=\"x\", ".repeat(10_000));
    assert_eq!(Challenge::parse(&many).unwrap().error.as_deref(), Some("invalid_token"));
    for malformed in [
        r#"Bearer resource_metadata="http://h/prm"#,
        r#"Bearer resource_metadata="\"#,
        r#"Bearer ="#,
        "Bearer ,,,,,=,=,=",
        "Bearer \u{e9}=\u{e9}\u{e9}, scope=\"\u{1F600}",
        "bearer",
        "Bearerx scope=a",
    ] {
        let _ = Challenge::parse(malformed);
    }
    assert_eq!(
        Challenge::parse(r#"Bearer resource_metadata="http://h/prm"#).unwrap().resource_metadata.as_deref(),
        Some("http://h/prm"),
        "an unterminated quote ends with the header"
    );
    assert!(Challenge::parse("Bearerx scope=a").is_none(), "a scheme is a whole word");
}

/// A resource whose `401` carries its challenges in two `WWW-Authenticate` headers (RFC
/// 9110 allows a list to be split so), the `Bearer` one second: the client reads both
/// and finds the metadata the second names.
#[tokio::test]
async fn a_challenge_in_a_second_www_authenticate_header_is_read() {
    let (issuer, _) = as_host(|_| json!({})).await;
    let resource = resource_of(&issuer).await;
    let prm = resource.replace("/mcp", "/prm");
    let headers =
        challenged(&[r#"Basic realm="legacy""#.to_owned(), format!(r#"Bearer resource_metadata="{prm}""#)]);
    // Discovery reads the named metadata, then the server's (empty) metadata fails the
    // issuer check: proof the hint of the second header was used.
    let error = refused(&resource, &headers).await;
    assert!(error.contains("issuer"), "the second header's metadata was read: {error}");
}

/// A `resource_metadata` on another origin is fetched (RFC 9728 allows it), but a
/// document there that claims the resource it was not asked about is refused.
#[tokio::test]
async fn resource_metadata_on_another_origin_must_still_name_this_resource() {
    let elsewhere =
        resource_host(|b| json!({"resource": format!("{b}/mcp"), "authorization_servers": [b]})).await;
    let resource = resource_of("http://127.0.0.1:1").await;
    let error = refused(&resource, &hinting(&format!("{elsewhere}/prm"))).await;
    assert!(error.contains("is for"), "{error}");
}

/// A host that answers every metadata probe just before the exchange's 30 s limit (the
/// named document and the path-based one missing, the root one naming an issuer with a
/// path, whose three metadata URLs are missing): six slow probes would hold the login
/// for three minutes; discovery as a whole ends at its own deadline, saying so.
#[tokio::test(start_paused = true)]
async fn slow_answers_to_every_probe_end_at_the_discovery_deadline() {
    let cell = Arc::new(std::sync::Mutex::new(String::new()));
    let own = cell.clone();
    let probes = Arc::new(AtomicUsize::new(0));
    let counted = probes.clone();
    let host = raw_host(move |head, mut socket| {
        let base = own.lock().unwrap().clone();
        counted.fetch_add(1, Ordering::Relaxed);
        async move {
            tokio::time::sleep(Duration::from_secs(29)).await;
            let answer = match head.starts_with("GET /.well-known/oauth-protected-resource ") {
                true => json!({"resource": format!("{base}/mcp"), "authorization_servers": [format!("{base}/tenant")]})
                    .to_string(),
                false => String::new(),
            };
            let status = if answer.is_empty() { "404 Not Found" } else { "200 OK" };
            let head = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\n\r\n", answer.len());
            let _ = socket.write_all(format!("{head}{answer}").as_bytes()).await;
        }
    })
    .await;
    *cell.lock().unwrap() = host.clone();
    let started = tokio::time::Instant::now();
    let outcome = tokio::time::timeout(
        Duration::from_secs(600),
        client().authorize(&format!("{host}/mcp"), &hinting(&format!("{host}/prm")), false),
    )
    .await
    .expect("discovery has a time limit");
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("discovery") && error.contains("60s"), "the error names the deadline: {error}");
    let taken = started.elapsed();
    assert!(taken < Duration::from_secs(90), "discovery stopped at its deadline, not after {taken:?}");
    assert!(probes.load(Ordering::Relaxed) < 6, "not every slow probe was waited for");
}

/// The discovery deadline is the client's to set: with 2 s, hosts that take every
/// connection and never answer end discovery in 2 s (not 30 s a fetch), saying so.
#[tokio::test]
async fn the_discovery_deadline_is_configurable() {
    let host = raw_host(|_, socket| async move {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        drop(socket);
    })
    .await;
    let client = OAuthClient::new(OAuthConfig {
        redirect_uri: "http://127.0.0.1:1/callback".into(),
        discovery_timeout: Duration::from_secs(2),
        ..OAuthConfig::default()
    });
    let outcome = tokio::time::timeout(
        BOUND,
        client.authorize(&format!("{host}/mcp"), &hinting(&format!("{host}/prm")), false),
    )
    .await
    .expect("discovery ends at the deadline set");
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("did not finish within 2s"), "{error}");
}

/// Metadata whose `resource`, authorization server or endpoint is 100 KB long and full
/// of terminal escapes and line breaks: refused, and the error that says so (for a user
/// or a log) quotes it bounded and inert.
#[tokio::test]
async fn hostile_strings_in_metadata_are_quoted_bounded_and_inert_in_errors() {
    let noise = format!("\u{1b}[2J\r\nforged line{}", "x".repeat(100_000));
    let junk = noise.clone();
    let resource = resource_host(
        move |b| json!({"resource": format!("http://127.0.0.1:1/{junk}"), "authorization_servers": [b]}),
    )
    .await;
    let mut errors = vec![refused(&format!("{resource}/mcp"), &hinting(&format!("{resource}/prm"))).await];
    let named = resource_of(&format!("http://evil.example/{noise}")).await;
    errors.push(refused(&named, &hinting(&named.replace("/mcp", "/prm"))).await);
    let junk = noise.clone();
    let (issuer, _) = as_host(move |b| {
        json!({
            "issuer": b, "code_challenge_methods_supported": ["S256"],
            "authorization_endpoint": format!("{b}/authorize"),
            "token_endpoint": format!("http://token.example/{junk}"),
        })
    })
    .await;
    let named = resource_of(&issuer).await;
    errors.push(refused(&named, &hinting(&named.replace("/mcp", "/prm"))).await);
    for error in errors {
        assert!(error.len() < 1024, "the error is bounded: {} bytes", error.len());
        assert!(!error.chars().any(char::is_control), "no control characters: {error:?}");
        assert!(error.contains("forged line"), "the value is quoted: {error}");
    }
}

/// A `resource_metadata` URL of plain ASCII, 5000 characters long, on the server's own
/// origin, where nothing answers: the error that says so quotes the URL cut to 256
/// characters wherever it names it (the hint, and why it could not be read).
#[tokio::test]
async fn a_long_resource_metadata_url_is_cut_in_errors() {
    let host = resource_host(|_| json!({})).await;
    let tail = "a".repeat(5000);
    let hint = format!("{host}/missing/{tail}");
    let error = refused(&format!("{host}/mcp"), &hinting(&hint)).await;
    assert!(error.contains("could not be read"), "{error}");
    assert!(!error.contains(&"a".repeat(257)), "the URL is cut: {} bytes: {error}", error.len());
    assert!(error.len() < 1024, "the error is bounded: {} bytes", error.len());
}
