//! Edges of a 2026 client's `subscriptions/listen` streams, each driven by a hand-written
//! server: a listen request the server refuses or ends before acknowledging it, and a
//! resource subscription whose stream the server ended.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod raw_server;

use std::time::Duration;

use common::to_raw;
use mcpwire::client::Client;
use mcpwire::error::RequestError;
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::{ErrorObject, ErrorResponse, Notification, ProtocolVersion};
use mcpwire::transport::memory;
use raw_server::{params_of, RawServer, QUIET};
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

/// `Client::subscribe` opens a listen stream for the resource; once the server has ended
/// that stream (its final result), subscribing again opens a new one rather than taking
/// the ended stream for an open one.
#[tokio::test]
async fn subscribing_again_after_the_server_ended_the_stream_opens_a_new_one() {
    let (client, mut raw) = connect_2026().await;
    for _ in 0..2 {
        let server = async {
            let listen = raw.next_request("subscriptions/listen").await;
            let meta = json!({ "io.modelcontextprotocol/subscriptionId": listen.id.clone() });
            let granted = params_of(&listen)["notifications"].clone();
            let ack = json!({ "notifications": granted, "_meta": meta });
            raw.send(Notification::new("notifications/subscriptions/acknowledged", to_raw(ack))).await;
            listen.id
        };
        let (subscribed, id) = tokio::join!(client.subscribe("docs://a"), server);
        subscribed.unwrap();
        // The server ends the stream gracefully.
        let done =
            json!({ "resultType": "complete", "_meta": { "io.modelcontextprotocol/subscriptionId": id } });
        raw.answer(id, done).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    client.close().await;
}

/// A server that ends a listen stream with `notifications/cancelled` (the stdio teardown
/// form) has ended that request: the client's subscription ends, and dropping it later
/// sends no `notifications/cancelled` back for a request no longer in progress.
#[tokio::test]
async fn a_listen_the_server_cancelled_is_not_cancelled_again() {
    use mcpwire::protocol::Message;
    let (client, mut raw) = connect_2026().await;
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
    let (subscription, id) = tokio::join!(client.listen(filter), raw.acknowledge_tools_listen());
    let mut subscription = subscription.unwrap();
    let cancel = json!({ "requestId": id.clone(), "reason": "shutting down" });
    raw.send(Notification::new("notifications/cancelled", to_raw(cancel))).await;
    let end = tokio::time::timeout(Duration::from_secs(5), subscription.next()).await;
    assert!(matches!(end, Ok(None)), "the stream ends: {end:?}");
    drop(subscription);
    while let Some(message) = raw.next_within(QUIET).await {
        if let Message::Notification(n) = &message {
            assert_ne!(n.method, "notifications/cancelled", "the client cancelled {id} again");
        }
    }
    client.close().await;
}

/// A listen request the server ends (with its final result) before acknowledging it
/// fails as the server's protocol error: the connection is still up, so it is not
/// reported as a closed connection.
#[tokio::test]
async fn a_listen_ended_before_its_acknowledgement_is_not_a_closed_connection() {
    let (client, mut raw) = connect_2026().await;
    let server = async {
        let listen = raw.next_request("subscriptions/listen").await;
        let meta = json!({ "io.modelcontextprotocol/subscriptionId": listen.id.clone() });
        raw.answer(listen.id, json!({ "resultType": "complete", "_meta": meta })).await;
    };
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
    let (listened, ()) = tokio::join!(client.listen(filter), server);
    match listened {
        Err(RequestError::Protocol(message)) => assert!(message.contains("acknowledg"), "{message}"),
        other => panic!("a listen ended before its acknowledgement: {other:?}"),
    }
    assert!(!client.is_closed());
    client.close().await;
}

/// An acknowledgement that does not carry its `io.modelcontextprotocol/subscriptionId`
/// (which the spec requires on every notification of a listen stream, the acknowledgement
/// first), or carries one that is no request id, fails the listen at once as the server's
/// protocol error, rather than leaving it to wait out the request timeout.
#[tokio::test]
async fn an_acknowledgement_without_its_subscription_id_fails_the_listen_promptly() {
    for meta in [None, Some(json!({ "io.modelcontextprotocol/subscriptionId": null }))] {
        let (client, mut raw) = connect_2026().await;
        let server = async {
            let listen = raw.next_request("subscriptions/listen").await;
            let mut ack = json!({ "notifications": params_of(&listen)["notifications"].clone() });
            if let Some(meta) = &meta {
                ack["_meta"] = meta.clone();
            }
            raw.send(Notification::new("notifications/subscriptions/acknowledged", to_raw(ack))).await;
        };
        let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
        let listen = tokio::time::timeout(Duration::from_secs(5), client.listen(filter));
        let (listened, ()) = tokio::join!(listen, server);
        match listened.expect("the listen waited for an acknowledgement it had already had") {
            Err(RequestError::Protocol(message)) => assert!(message.contains("subscriptionId"), "{message}"),
            other => panic!("an acknowledgement with _meta {meta:?}: {other:?}"),
        }
        assert!(!client.is_closed());
        client.close().await;
    }
}
