//! Our HTTP server "killed" and restarted under a live client (issue 10's fault test), in
//! both eras: a call in flight fails cleanly with a transport failure, a call while the
//! server is down fails the same way (connection refused), and once a new server listens
//! on the same port the next call works (2025: the stale session gets 404 and the client
//! re-initializes once; 2026: nothing to restore).
//!
//! The server runs in-process: each connection is a task in a `JoinSet` that the kill
//! aborts, so every socket closes abruptly, as when a process dies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http_client_support;
mod mcp_http;
mod raw_http;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use mcp_http::wait_for;
use mcpwire::client::{Client, ClientOptions};
use mcpwire::http::McpService;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{tool, Args, Server, State};
use mcpwire::transport::http_client::{HttpClientTransport, HttpMiddleware, MiddlewareError};
use mcpwire::RequestError;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

/// One server "process".
struct Process {
    service: McpService,
    task: JoinHandle<()>,
    /// `hang` calls started.
    started: Arc<AtomicUsize>,
}

impl Process {
    /// Listens on `addr` (retrying while the old socket is still being released).
    async fn start(addr: SocketAddr) -> (Process, SocketAddr) {
        let started = Arc::new(AtomicUsize::new(0));
        let server = Server::builder("restart-test", "0")
            .state(started.clone())
            .tool(
                tool("echo")
                    .handler(|Args(a): Args<serde_json::Map<String, Value>>| Value::Object(a).to_string()),
            )
            .tool(tool("hang").handler(|State(started): State<Arc<AtomicUsize>>| async move {
                started.fetch_add(1, Ordering::SeqCst);
                std::future::pending::<()>().await;
                "unreachable"
            }))
            .build()
            .unwrap();
        let service = McpService::new(server);
        let deadline = Instant::now() + Duration::from_secs(5);
        let listener = loop {
            match TcpListener::bind(addr).await {
                Ok(l) => break l,
                Err(e) => assert!(Instant::now() < deadline, "cannot bind {addr}: {e}"),
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let bound = listener.local_addr().unwrap();
        let accepting = service.clone();
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((tcp, _)) = accepted else { return };
                        let service = accepting.clone();
                        connections.spawn(async move {
                            http_client_support::serve_connection(tcp, service).await;
                        });
                    }
                    Some(_) = connections.join_next() => {}
                }
            }
        });
        (Process { service, task, started }, bound)
    }

    /// Dies: the listener and every connection close at once, mid-response.
    async fn kill(self) {
        self.task.abort();
        let _ = self.task.await;
        // What the dead process's handlers were doing ends with it.
        self.service.shutdown();
    }
}

/// Records the session of every GET the client sends (its standalone stream, opened or
/// resumed).
struct SessionGets(Arc<Mutex<Vec<String>>>);

impl HttpMiddleware for SessionGets {
    fn on_request<'a>(
        &'a self,
        request: &'a mut http::request::Parts,
    ) -> BoxFuture<'a, Result<(), MiddlewareError>> {
        Box::pin(async move {
            if request.method == http::Method::GET {
                let session = request.headers.get("mcp-session-id").and_then(|v| v.to_str().ok());
                self.0.lock().unwrap().push(session.unwrap_or_default().to_owned());
            }
            Ok(())
        })
    }
}

/// The distinct sessions the client's GETs carried, in order.
fn sessions_streamed(gets: &Mutex<Vec<String>>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for session in gets.lock().unwrap().iter() {
        if !seen.contains(session) {
            seen.push(session.clone());
        }
    }
    seen
}

async fn client(url: &str, version: &str, gets: Arc<Mutex<Vec<String>>>) -> Client {
    Client::builder("t", "0")
        .protocol_version(ProtocolVersion::parse(version))
        .options(ClientOptions { request_timeout: Duration::from_secs(30), ..Default::default() })
        .connect(HttpClientTransport::new(url).unwrap().middleware(SessionGets(gets)))
        .await
        .unwrap()
}

/// The transport's own failure, with its reason.
fn transport_reason(error: RequestError) -> String {
    match error {
        RequestError::Transport { reason } => reason,
        other => panic!("expected a transport failure, got {other:?}"),
    }
}

async fn echo(client: &Client, n: u64) -> Result<String, RequestError> {
    let result = client.call_tool("echo", json!({ "n": n })).await?;
    Ok(result.content[0].as_text().unwrap_or_default().to_owned())
}

async fn restart_under_a_live_client(version: &str) {
    let (first, addr) = Process::start("127.0.0.1:0".parse().unwrap()).await;
    let url = format!("http://{addr}/mcp");
    let gets = Arc::new(Mutex::new(Vec::new()));
    let client = client(&url, version, gets.clone()).await;
    let stateful = version == "2025-11-25";
    assert_eq!(echo(&client, 1).await.unwrap(), json!({ "n": 1 }).to_string());

    // (The standalone stream opens right after `notifications/initialized`, which the
    // writer sends ahead of the first call.)
    assert_eq!(sessions_streamed(&gets).len(), usize::from(stateful), "{version}");

    // A call in flight when the server dies: a clean transport failure, well before the
    // 30 s request timeout.
    let in_flight = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("hang", json!({})).await })
    };
    wait_for("the hang call to start", || first.started.load(Ordering::SeqCst) != 0).await;
    first.kill().await;
    let started = Instant::now();
    let error = tokio::time::timeout(Duration::from_secs(20), in_flight).await.unwrap().unwrap().unwrap_err();
    let reason = transport_reason(error);
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    assert!(
        reason == "the response stream ended before the answer arrived"
            || reason.starts_with("HTTP request failed"),
        "{version}: {reason}"
    );

    // While nothing listens: connection refused, as a transport failure.
    let reason = transport_reason(echo(&client, 2).await.unwrap_err());
    assert!(reason.starts_with("HTTP request failed") && reason.contains("refused"), "{version}: {reason}");

    // A new server on the same port: the next call works.
    let (second, again) = Process::start(addr).await;
    assert_eq!(again, addr);
    assert_eq!(echo(&client, 3).await.unwrap(), json!({ "n": 3 }).to_string(), "{version}");
    assert_eq!(echo(&client, 4).await.unwrap(), json!({ "n": 4 }).to_string(), "{version}");
    let sessions = second.service.session_count();
    // 2025: the new session got its own standalone stream.
    assert_eq!(sessions_streamed(&gets).len(), 2 * usize::from(stateful), "{version}: {gets:?}");
    client.close().await;
    second.kill().await;
    // 2025: one new session (the client re-initialized once); 2026 has none.
    assert_eq!(sessions, usize::from(stateful), "{version}");
}

#[tokio::test]
async fn a_restarted_server_under_a_2025_client() {
    restart_under_a_live_client("2025-11-25").await;
}

#[tokio::test]
async fn a_restarted_server_under_a_2026_client() {
    restart_under_a_live_client("2026-07-28").await;
}

/// A 2025 server restarted under a client with several calls to make at once: each of
/// them meets the stale session's 404, and the client re-initializes once for all of
/// them, not once per call (which left as many sessions open on the server, every one
/// but the last forgotten by the client, and never deleted).
#[tokio::test]
async fn concurrent_calls_meeting_a_stale_session_reinitialize_once() {
    let (first, addr) = Process::start("127.0.0.1:0".parse().unwrap()).await;
    let url = format!("http://{addr}/mcp");
    let client = client(&url, "2025-11-25", Arc::new(Mutex::new(Vec::new()))).await;
    assert_eq!(echo(&client, 0).await.unwrap(), json!({ "n": 0 }).to_string());
    first.kill().await;
    let (second, _) = Process::start(addr).await;
    let calls: Vec<_> = (1..=8)
        .map(|n| {
            let client = client.clone();
            tokio::spawn(async move { echo(&client, n).await })
        })
        .collect();
    for (n, call) in (1..=8).zip(calls) {
        let answer = tokio::time::timeout(Duration::from_secs(20), call).await.unwrap().unwrap();
        assert_eq!(answer.unwrap(), json!({ "n": n }).to_string());
    }
    assert_eq!(second.service.session_count(), 1, "one new session, shared by every call");
    client.close().await;
    wait_for("the session to be deleted", || second.service.session_count() == 0).await;
    second.kill().await;
}
