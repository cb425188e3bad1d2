//! `Client::subscribe` and `unsubscribe` in both eras: `resources/subscribe` on a 2025
//! session, a `subscriptions/listen` stream for the resource in 2026; either way the
//! resource's updates reach `on_change` until the client unsubscribes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use mcpwire::client::{Client, ServerChange};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{resource, Server, ServerEvent};
use tokio::sync::mpsc;

/// Long enough for a notification on a loaded machine.
const WAIT: Duration = Duration::from_secs(10);
/// How long "nothing more arrives" is watched for.
const QUIET: Duration = Duration::from_millis(300);

#[tokio::test]
async fn a_subscribed_resources_updates_reach_on_change_in_both_eras() {
    for version in [ProtocolVersion::LATEST_STATEFUL, ProtocolVersion::LATEST] {
        let server =
            Server::builder("docs", "1").resource(resource("docs://a", "a").text("A")).build().unwrap();
        let (ours, theirs) = mcpwire::transport::memory::pair();
        let serving = server.clone();
        tokio::spawn(async move { serving.serve(theirs).await });
        let (tx, mut changes) = mpsc::unbounded_channel();
        let client = Client::builder("c", "1")
            .protocol_version(version.clone())
            .on_change(move |change| {
                let _ = tx.send(change);
            })
            .connect(ours)
            .await
            .unwrap();
        client.subscribe("docs://a").await.unwrap();
        server.notify(ServerEvent::ResourceUpdated("docs://b".into()));
        server.notify(ServerEvent::ResourceUpdated("docs://a".into()));
        let heard = tokio::time::timeout(WAIT, changes.recv()).await.expect("an update").unwrap();
        assert_eq!(
            heard,
            ServerChange::ResourceUpdated("docs://a".into()),
            "{version}: only the subscribed URI"
        );

        client.unsubscribe("docs://a").await.unwrap();
        // A round trip: the unsubscription has reached the server.
        client.list_resources(None).await.unwrap();
        server.notify(ServerEvent::ResourceUpdated("docs://a".into()));
        let after = tokio::time::timeout(QUIET, changes.recv()).await;
        assert!(after.is_err(), "{version}: an update after unsubscribing: {after:?}");
        client.close().await;
    }
}

/// The server's subscription hooks: `on_subscribe` hears each resource a client starts
/// following and may refuse it; `on_unsubscribe` hears each one it stops following, by
/// unsubscribing or by going away (a 2025 session's end, a 2026 listen stream's).
#[tokio::test]
async fn the_subscription_hooks_hear_each_start_and_end_in_both_eras() {
    use std::sync::{Arc, Mutex};
    for version in [ProtocolVersion::LATEST_STATEFUL, ProtocolVersion::LATEST] {
        let heard = Arc::new(Mutex::new(Vec::<String>::new()));
        let (on_start, on_end) = (heard.clone(), heard.clone());
        let server = Server::builder("docs", "1")
            .resource(resource("docs://a", "a").text("A"))
            .on_subscribe(move |uri| {
                let heard = on_start.clone();
                async move {
                    if uri.contains("secret") {
                        return Err(mcpwire::McpError::invalid_params(format!("{uri} cannot be followed")));
                    }
                    heard.lock().unwrap().push(format!("+{uri}"));
                    Ok(())
                }
            })
            .on_unsubscribe(move |uri| on_end.lock().unwrap().push(format!("-{uri}")))
            .build()
            .unwrap();
        let (ours, theirs) = mcpwire::transport::memory::pair();
        let serving = server.clone();
        tokio::spawn(async move { serving.serve(theirs).await });
        let client = Client::builder("c", "1").protocol_version(version.clone()).connect(ours).await.unwrap();
        client.subscribe("docs://a").await.unwrap();
        client.subscribe("docs://a").await.unwrap();
        client.unsubscribe("docs://a").await.unwrap();
        client.list_resources(None).await.unwrap();
        let refused = client.subscribe("docs://secret").await.unwrap_err();
        assert!(refused.to_string().contains("secret"), "{version}: {refused}");
        client.subscribe("docs://b").await.unwrap();
        client.close().await;
        let deadline = tokio::time::Instant::now() + WAIT;
        while heard.lock().unwrap().len() < 4 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(*heard.lock().unwrap(), ["+docs://a", "-docs://a", "+docs://b", "-docs://b"], "{version}");
    }
}
