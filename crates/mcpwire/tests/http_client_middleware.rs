//! Two stacked middlewares on the HTTP client transport, against our own server in both
//! eras: they see every request in the order added (and may change it), every response
//! in reverse order, and one may refuse a request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use mcpwire::client::Client;
use mcpwire::http::{serve_with_shutdown, McpService};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{tool, Ctx, Server};
use mcpwire::transport::http_client::{HttpClientTransport, HttpMiddleware, MiddlewareError};
use mcpwire::RequestError;
use serde_json::{json, Value};

/// What the middlewares saw, in order: `(middleware, what)`.
type Log = Arc<Mutex<Vec<(&'static str, String)>>>;

/// Adds `x-first: 1` and logs.
struct First(Log);

impl HttpMiddleware for First {
    fn on_request<'a>(
        &'a self,
        request: &'a mut http::request::Parts,
    ) -> BoxFuture<'a, Result<(), MiddlewareError>> {
        Box::pin(async move {
            tokio::task::yield_now().await; // async work is allowed
            request.headers.insert("x-first", http::HeaderValue::from_static("1"));
            self.0.lock().unwrap().push(("first", format!("request {}", request.method)));
            Ok(())
        })
    }

    fn on_response<'a>(&'a self, response: &'a http::response::Parts) -> BoxFuture<'a, ()> {
        Box::pin(
            async move { self.0.lock().unwrap().push(("first", format!("response {}", response.status))) },
        )
    }
}

/// Runs after `First`: says whether it saw `x-first`, and refuses every request while
/// its flag is set.
struct Second(Log, Arc<AtomicBool>);

impl HttpMiddleware for Second {
    fn on_request<'a>(
        &'a self,
        request: &'a mut http::request::Parts,
    ) -> BoxFuture<'a, Result<(), MiddlewareError>> {
        Box::pin(async move {
            let saw = if request.headers.contains_key("x-first") { "saw-first" } else { "missing" };
            request.headers.insert("x-second", http::HeaderValue::from_static(saw));
            self.0.lock().unwrap().push(("second", format!("request {}", request.method)));
            if self.1.load(Ordering::SeqCst) {
                return Err("tool forbidden by policy".into());
            }
            Ok(())
        })
    }

    fn on_response<'a>(&'a self, response: &'a http::response::Parts) -> BoxFuture<'a, ()> {
        Box::pin(
            async move { self.0.lock().unwrap().push(("second", format!("response {}", response.status))) },
        )
    }
}

/// A server whose `headers` tool answers with the middleware headers it received.
fn server() -> Server {
    Server::builder("middleware-test", "0")
        .tool(tool("headers").handler(|ctx: Ctx| {
            let headers = ctx.extensions().get::<http::HeaderMap>().cloned().unwrap_or_default();
            let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
            json!({ "first": get("x-first"), "second": get("x-second") }).to_string()
        }))
        .build()
        .unwrap()
}

async fn check(version: &str) -> Vec<(&'static str, String)> {
    let bound = serve_with_shutdown(McpService::new(server()), "127.0.0.1:0", "/mcp").await.unwrap();
    let url = format!("http://{}/mcp", bound.local_addr);
    let log: Log = Arc::default();
    let refuse = Arc::new(AtomicBool::new(false));
    let transport = HttpClientTransport::new(&url)
        .unwrap()
        .middleware(First(log.clone()))
        .middleware(Second(log.clone(), refuse.clone()));
    let client = Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse(version))
        .connect(transport)
        .await
        .unwrap();
    let result = client.call_tool("headers", json!({})).await.unwrap();
    let text: Value = serde_json::from_str(result.content[0].as_text().unwrap()).unwrap();
    assert_eq!(text, json!({ "first": "1", "second": "saw-first" }), "{version}");
    refuse.store(true, Ordering::SeqCst);
    let error = client.call_tool("headers", json!({})).await.unwrap_err();
    refuse.store(false, Ordering::SeqCst);
    let reason = match &error {
        RequestError::Transport { reason } => reason.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(reason, "HTTP request failed: a middleware refused the request: tool forbidden by policy");
    client.close().await;
    if version == "2025-11-25" {
        // The session's DELETE goes out once the connection has wound down: wait for
        // its response to pass the last middleware.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let done = {
                let log = log.lock().unwrap();
                let delete = log.iter().position(|(_, what)| what == "request DELETE");
                delete.is_some_and(|i| log.len() == i + 4)
            };
            if done {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "no DELETE: {:?}", log.lock().unwrap());
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
    bound.shutdown.cancel();
    let log = log.lock().unwrap().clone();
    log
}

/// Splits the log into exchanges and checks each is `first, second` on the way out and
/// `second, first` on the way back (or only the way out, for the refused one).
fn exchanges(log: &[(&'static str, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < log.len() {
        assert_eq!(log[i].0, "first", "{log:?}");
        assert_eq!((log[i + 1].0, &log[i + 1].1), ("second", &log[i].1), "{log:?}");
        if log.get(i + 2).is_some_and(|(who, what)| *who == "second" && what.starts_with("response")) {
            assert_eq!((log[i + 3].0, &log[i + 3].1), ("first", &log[i + 2].1), "{log:?}");
            out.push(format!("{} -> {}", log[i].1, log[i + 2].1));
            i += 4;
        } else {
            out.push(format!("{} -> refused", log[i].1));
            i += 2;
        }
    }
    out
}

#[tokio::test]
async fn stacked_middlewares_see_every_2026_exchange() {
    let log = check("2026-07-28").await;
    assert_eq!(
        exchanges(&log),
        [
            "request POST -> response 200 OK", // server/discover
            "request POST -> response 200 OK", // tools/call
            "request POST -> refused",         // tools/call while refusing
        ],
        "{log:?}"
    );
}

#[tokio::test]
async fn stacked_middlewares_see_every_2025_exchange_including_get_and_delete() {
    let log = check("2025-11-25").await;
    let seen = exchanges(&log);
    assert_eq!(seen[0], "request POST -> response 200 OK", "initialize: {log:?}");
    assert_eq!(seen[1], "request POST -> response 202 Accepted", "initialized: {log:?}");
    assert!(seen.contains(&"request GET -> response 200 OK".to_owned()), "the standalone stream: {log:?}");
    assert!(seen.contains(&"request POST -> refused".to_owned()), "{log:?}");
    assert_eq!(seen.last().unwrap(), "request DELETE -> response 200 OK", "{log:?}");
}
