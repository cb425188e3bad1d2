//! `ServerBuilder::on_roots_changed`: a 2025 client's `notifications/roots/list_changed`
//! runs the hook, which asks that client for its roots as they are now, over a
//! stdio-like connection and over a Streamable HTTP session (where the question goes out
//! on the session's own stream, the notification's POST having none). A client without
//! roots never has the hook run for it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::{Client, ClientBuilder};
use mcpwire::http::{serve_with_shutdown, McpService};
use mcpwire::protocol::roots::{ListRootsResult, Root};
use mcpwire::protocol::{methods, ProtocolVersion};
use mcpwire::server::{tool, Server};
use mcpwire::transport::http_client::HttpClientTransport;
use mcpwire::transport::{memory, Transport};
use tokio::sync::mpsc;

/// A server whose hook sends each list it got (or the error) to the test.
fn server() -> (Server, mpsc::Receiver<Result<Vec<String>, String>>) {
    let (tx, rx) = mpsc::channel(8);
    let server = Server::builder("roots", "1")
        .tool(tool("t").handler(|| "t"))
        .on_roots_changed(move |session| {
            let tx = tx.clone();
            async move {
                let listed = session.list_roots().await;
                let uris =
                    listed.map(|l| l.roots.into_iter().map(|r| r.uri).collect()).map_err(|e| e.to_string());
                tx.send(uris).await.unwrap();
            }
        })
        .build()
        .unwrap();
    (server, rx)
}

/// A client whose roots are whatever `roots` holds when the server asks.
fn client_with(roots: Arc<Mutex<Vec<String>>>) -> ClientBuilder {
    Client::builder("c", "1").protocol_version(ProtocolVersion::LATEST_STATEFUL).on_roots(move || {
        let uris = roots.lock().unwrap().clone();
        async move {
            let roots = uris.into_iter().map(Root::new).collect();
            Ok(ListRootsResult { roots, meta: None })
        }
    })
}

async fn next(rx: &mut mpsc::Receiver<Result<Vec<String>, String>>) -> Result<Vec<String>, String> {
    tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.expect("the hook ran").unwrap()
}

/// Changes the client's roots twice; the hook hears of each and reads the new list.
async fn each_change_is_heard(
    transport: impl Transport,
    rx: &mut mpsc::Receiver<Result<Vec<String>, String>>,
) {
    let roots = Arc::new(Mutex::new(vec!["file:///a".to_owned()]));
    let client = client_with(roots.clone()).connect(transport).await.unwrap();
    *roots.lock().unwrap() = vec!["file:///a".to_owned(), "file:///b".to_owned()];
    client.notify_roots_changed().await;
    assert_eq!(next(rx).await, Ok(vec!["file:///a".to_owned(), "file:///b".to_owned()]));
    *roots.lock().unwrap() = vec![];
    client.notify_roots_changed().await;
    assert_eq!(next(rx).await, Ok(vec![]));
    client.close().await;
}

#[tokio::test]
async fn the_hook_asks_the_client_for_its_new_roots() {
    let (server, mut rx) = server();
    let (ours, theirs) = memory::pair();
    tokio::spawn(async move { server.serve(theirs).await });
    each_change_is_heard(ours, &mut rx).await;
}

#[tokio::test]
async fn the_hook_asks_an_http_session_on_its_own_stream() {
    let (server, mut rx) = server();
    let bound = serve_with_shutdown(McpService::new(server), "127.0.0.1:0", "/mcp").await.unwrap();
    let url = format!("http://{}/mcp", bound.local_addr);
    each_change_is_heard(HttpClientTransport::new(&url).unwrap(), &mut rx).await;
    bound.shutdown.cancel();
}

/// A 2025 client without roots, connected to `server` over an in-memory pair.
async fn rootless_client(server: Server) -> Client {
    let (ours, theirs) = memory::pair();
    tokio::spawn(async move { server.serve(theirs).await });
    Client::builder("c", "1").protocol_version(ProtocolVersion::LATEST_STATEFUL).connect(ours).await.unwrap()
}

/// The connection still serves calls, and the hook stayed quiet.
async fn assert_never_asked(client: &Client, rx: &mut mpsc::Receiver<Result<Vec<String>, String>>) {
    client.call_tool("t", serde_json::json!({})).await.unwrap();
    let quiet = tokio::time::timeout(Duration::from_millis(300), rx.recv()).await;
    assert!(quiet.is_err(), "the hook ran for a client without roots: {quiet:?}");
}

#[tokio::test]
async fn a_client_without_roots_is_never_asked() {
    let (server, mut rx) = server();
    let client = rootless_client(server).await;
    client.send_notification(methods::NOTIFICATION_ROOTS_LIST_CHANGED, None).await;
    assert_never_asked(&client, &mut rx).await;
}

/// `Client::notify_roots_changed` sends the notification only where it exists and was
/// declared: not from a 2025 client without roots (the hook stays quiet), and not in the
/// 2026 era (no frame at all reaches the server).
#[tokio::test]
async fn roots_changed_is_sent_only_by_a_2025_client_that_declared_roots() {
    let (server, mut rx) = server();
    let plain = rootless_client(server).await;
    plain.notify_roots_changed().await;
    assert_never_asked(&plain, &mut rx).await;

    // A 2026 client with roots: its transport sees the call and nothing else.
    let (ours, mut theirs) = memory::pair();
    let roots = Arc::new(Mutex::new(vec!["file:///a".to_owned()]));
    let client =
        client_with(roots).protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();
    client.notify_roots_changed().await;
    let sent = tokio::time::timeout(Duration::from_millis(300), theirs.incoming.recv()).await;
    assert!(sent.is_err(), "a 2026 client sent a frame: {sent:?}");
}
