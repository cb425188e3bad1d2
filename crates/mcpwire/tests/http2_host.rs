//! The endpoint over HTTP/2 (h2c with prior knowledge), as an application serves it when
//! it mounts `McpService` behind an HTTP/2-capable server (hyper-util's auto builder
//! here; `mcpwire::http::serve` itself speaks HTTP/1.1 only). HTTP/2 names the host in
//! the `:authority` pseudo-header, not in a `Host` header: the Host check must read it
//! there, refuse a foreign one, and refuse a `Host` that disagrees with it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http::{HeaderValue, Request, StatusCode, Version};
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use mcpwire::http::{HostPolicy, HttpSettings, McpService};
use mcpwire::server::Server;
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};

/// Serves `service` at `/mcp` on a loopback port, HTTP/1.1 or HTTP/2 per connection.
async fn serve(service: McpService) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let service = service.clone();
            let handler = service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(service.handle(request).await) }
            });
            tokio::spawn(async move {
                let _ = auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), handler)
                    .await;
            });
        }
    });
    addr
}

/// The endpoint of a server with no tools, with `settings`.
async fn endpoint(settings: HttpSettings) -> SocketAddr {
    let server = Server::builder("h2-test", "1.0.0").build().unwrap();
    serve(McpService::with_settings(server, settings)).await
}

/// What came back: the status and the body as text.
struct Answer {
    status: StatusCode,
    body: String,
}

impl Answer {
    /// The JSON-RPC error message of an error answer.
    fn error_message(&self) -> String {
        let value: Value = serde_json::from_str(&self.body).expect("a JSON body");
        value["error"]["message"].as_str().expect("an error message").to_owned()
    }
}

/// POSTs a 2025 `initialize` over HTTP/2 (prior knowledge) to `addr`, with `authority`
/// as `:authority`, extra `headers`, and no `Host` unless `headers` has one.
async fn initialize_h2(addr: SocketAddr, authority: &str, headers: &[(&str, &str)]) -> Answer {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream)).await.unwrap();
    tokio::spawn(connection);
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "h2-client", "version": "1.0.0" }
        }
    });
    let mut request = Request::post(format!("http://{authority}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    for (name, value) in headers {
        let name = http::HeaderName::from_bytes(name.as_bytes()).unwrap();
        request.headers_mut().append(name, HeaderValue::from_str(value).unwrap());
    }
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.version(), Version::HTTP_2);
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    Answer { status, body: String::from_utf8(body.to_vec()).unwrap() }
}

#[tokio::test]
async fn a_loopback_authority_is_served_over_http2() {
    let addr = endpoint(HttpSettings::default()).await;
    let answer = initialize_h2(addr, &format!("localhost:{}", addr.port()), &[]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert!(answer.body.contains("h2-test"), "{}", answer.body);
    let answer = initialize_h2(addr, &addr.to_string(), &[]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
}

#[tokio::test]
async fn a_foreign_authority_gets_421_over_http2() {
    let addr = endpoint(HttpSettings::default()).await;
    let answer = initialize_h2(addr, "evil.example", &[]).await;
    assert_eq!(answer.status, StatusCode::MISDIRECTED_REQUEST, "{}", answer.body);
    assert!(answer.error_message().starts_with("Host not allowed"), "{}", answer.body);
}

#[tokio::test]
async fn a_host_header_that_disagrees_with_the_authority_is_refused() {
    let addr = endpoint(HttpSettings::default()).await;
    let authority = format!("localhost:{}", addr.port());
    let answer = initialize_h2(addr, &authority, &[("host", "evil.example")]).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.body);
    let answer = initialize_h2(addr, &authority, &[("host", &authority.to_uppercase())]).await;
    assert_eq!(answer.status, StatusCode::OK, "a Host that agrees: {}", answer.body);
}

#[tokio::test]
async fn with_any_host_an_origin_naming_the_authority_is_served_over_http2() {
    let settings = HttpSettings { hosts: HostPolicy::any_host(), ..HttpSettings::default() };
    let addr = endpoint(settings).await;
    let authority = format!("mcp.example:{}", addr.port());
    let answer = initialize_h2(addr, &authority, &[("origin", "https://mcp.example")]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let answer = initialize_h2(addr, &authority, &[("origin", "https://evil.example")]).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
}
