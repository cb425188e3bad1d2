//! Edges of a 2026 client's `subscriptions/listen` streams, each driven by a hand-written
//! server: a listen request the server refuses.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod raw_server;

use mcpwire::client::Client;
use mcpwire::error::RequestError;
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::{ErrorObject, ErrorResponse, ProtocolVersion};
use mcpwire::transport::memory;
use raw_server::RawServer;
use serde_json::json;

/// A 2026 client (pinned: no probe) and the hand-driven server it talks to.
async fn connect_2026() -> (Client, RawServer) {
    let (ours, theirs) = memory::pair();
    let client =
        Client::builder("c", "1").protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();
    (client, RawServer { conn: theirs })
}

/// A listen request the server answers with an error (here `-32021`, a capability the
/// request did not declare) fails with that error, as any refused request does: not as a
/// connection that closed.
#[tokio::test]
async fn a_refused_listen_request_fails_with_the_servers_error() {
    let (client, mut raw) = connect_2026().await;
    let server = async {
        let listen = raw.next_request("subscriptions/listen").await;
        let mut error = ErrorObject::new(-32021, "Missing required client capability");
        error.data = Some(json!({ "requiredCapabilities": { "extensions": { "com.example/x": {} } } }));
        raw.send(ErrorResponse::new(Some(listen.id), error)).await;
    };
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
    let (listened, ()) = tokio::join!(client.listen(filter), server);
    match listened {
        Err(RequestError::Peer(e)) => assert_eq!(e.code, -32021, "{e:?}"),
        other => panic!("a refused listen request: {other:?}"),
    }
    client.close().await;
}
