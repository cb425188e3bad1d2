//! A call's timeout, started again by the server's progress when the caller asks
//! (`RequestOptions::reset_timeout_on_progress`), in both eras, against an mcpwire server
//! over an in-memory pair. Time is paused: it moves only when every task waits, so the
//! limits are exact. And a closed client: it says so, and fails calls, as soon as
//! `close` returns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use mcpwire::client::{Client, RequestOptions};
use mcpwire::error::RequestError;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::tasks::TaskSupport;
use mcpwire::server::{tool, Ctx, Server};
use serde_json::json;

/// Reports progress every 60 ms for 360 ms, then answers.
async fn long_job(ctx: Ctx) -> &'static str {
    for i in 1..=6 {
        tokio::time::sleep(Duration::from_millis(60)).await;
        ctx.progress(f64::from(i), Some(6.0), None).await;
    }
    "done"
}

/// `long` runs [`long_job`]; `long_task` runs it only as a task (2025-11-25).
fn server() -> Server {
    Server::builder("long", "1")
        .register(tool("long").description("reports progress, then answers").handler(long_job))
        .register(
            tool("long_task")
                .description("the same, as a task")
                .task_support(TaskSupport::Required)
                .handler(long_job),
        )
        .build()
        .unwrap()
}

async fn connected(version: ProtocolVersion) -> Client {
    let (a, b) = mcpwire::transport::memory::pair();
    let served = server();
    tokio::spawn(async move { served.serve(b).await });
    Client::builder("t", "1").protocol_version(version).connect(a).await.unwrap()
}

#[tokio::test(start_paused = true)]
async fn progress_keeps_a_long_call_alive_only_when_asked_in_both_eras() {
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = connected(version.clone()).await;
        let timeout = Duration::from_millis(150);

        // The plain timeout counts from the request: the call is given up on.
        let plain = RequestOptions::default().timeout(timeout);
        let err = client.call_tool_with("long", json!({}), plain).await.unwrap_err();
        assert!(matches!(err, RequestError::Timeout { .. }), "{version:?}: {err}");

        // Started again by each progress (60 ms apart), it never runs out.
        let restarting =
            RequestOptions::default().timeout(timeout).reset_timeout_on_progress(Duration::from_secs(5));
        let result = client.call_tool_with("long", json!({}), restarting).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("done"), "{version:?}");

        // The maximum bounds it whatever progress comes.
        let bounded =
            RequestOptions::default().timeout(timeout).reset_timeout_on_progress(Duration::from_millis(200));
        let started = tokio::time::Instant::now();
        let err = client.call_tool_with("long", json!({}), bounded).await.unwrap_err();
        assert!(
            matches!(err, RequestError::Timeout { timeout, .. } if timeout == Duration::from_millis(200)),
            "{version:?}: {err}"
        );
        assert_eq!(started.elapsed(), Duration::from_millis(200), "{version:?}");
        client.close().await;
    }
}

/// A task followed to its end is bounded by the call's timeout, and by its maximum when
/// progress starts the timeout again (as a 2026 call's input rounds are).
#[tokio::test(start_paused = true)]
async fn a_task_followed_to_its_end_is_bounded_by_the_maximum_when_asked() {
    let client = connected(ProtocolVersion::V2025_11_25).await;
    let timeout = Duration::from_millis(150);
    let plain = RequestOptions::default().timeout(timeout);
    let err = client.call_tool_with("long_task", json!({}), plain).await.unwrap_err();
    assert!(matches!(err, RequestError::Timeout { .. }), "{err}");
    let restarting =
        RequestOptions::default().timeout(timeout).reset_timeout_on_progress(Duration::from_secs(5));
    let result = client.call_tool_with("long_task", json!({}), restarting).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("done"));
    client.close().await;
}

/// A pinned version this client does not know (a typo) fails the connection at once,
/// naming the versions it knows, rather than connecting in a guessed era.
#[tokio::test]
async fn a_pinned_version_the_client_does_not_know_is_refused_at_connect() {
    let (a, _b) = mcpwire::transport::memory::pair();
    let refused =
        Client::builder("t", "1").protocol_version(ProtocolVersion::from("2025-11-5")).connect(a).await;
    let Err(e) = refused else { panic!("connected under an unknown version") };
    assert!(matches!(e, mcpwire::client::ConnectError::UnknownVersion { .. }), "{e}");
    assert!(e.to_string().contains("\"2025-11-5\"") && e.to_string().contains("2026-07-28"), "{e}");
}

/// A request whose message cannot even be queued, because the peer stopped reading and
/// everything in between is full (a `SIGSTOP`ped server under load, say), still ends at
/// its timeout, or at its caller's cancel, instead of waiting for room for ever: a proxy
/// relaying `tools/list` to such a server answers its client rather than hanging. It
/// ends as `NotSent`, not `Timeout`: its bytes never left, so the peer never saw it.
#[tokio::test(start_paused = true)]
async fn a_request_that_cannot_be_queued_still_ends_at_its_timeout_or_cancel() {
    // A transport whose queue holds one message, and which nobody reads.
    let (outgoing, _unread) = tokio::sync::mpsc::channel(1);
    let (_peer_side, incoming) = tokio::sync::mpsc::channel(1);
    let client = Client::builder("t", "1")
        .protocol_version(ProtocolVersion::parse("2026-07-28"))
        .options(mcpwire::client::ClientOptions {
            request_timeout: Duration::from_millis(300),
            ..Default::default()
        })
        .connect(mcpwire::transport::Connection { incoming, outgoing })
        .await
        .unwrap();
    let started = tokio::time::Instant::now();
    // The first fills the queue; the others find no room.
    for n in 0..3 {
        let outcome = tokio::time::timeout(
            Duration::from_secs(60),
            client.send_request("tools/list", json!({}), RequestOptions::default()),
        )
        .await;
        let error = outcome.unwrap_or_else(|_| panic!("request {n} waited past its timeout for room"));
        match n {
            // Queued, unanswered: a timeout.
            0 => assert!(matches!(error, Err(RequestError::Timeout { .. })), "request {n}: {error:?}"),
            _ => {
                let Err(RequestError::NotSent { method, waited }) = error else {
                    panic!("request {n}: {error:?}")
                };
                assert_eq!((method.as_str(), waited), ("tools/list", Duration::from_millis(300)));
            }
        }
    }
    assert_eq!(started.elapsed(), Duration::from_millis(900));
    // A timeout that progress starts again is bounded the same way.
    let restarting = RequestOptions::default().reset_timeout_on_progress(Duration::from_millis(500));
    let error = client.send_request("tools/list", json!({}), restarting).await.unwrap_err();
    assert!(matches!(error, RequestError::NotSent { .. }), "{error:?}");
    // And the caller's cancel ends the wait for room at once.
    let cancel = tokio_util::sync::CancellationToken::new();
    let options = RequestOptions::default().timeout(Duration::from_secs(3600)).cancel_on(cancel.clone());
    let waiting = tokio::spawn({
        let client = client.clone();
        async move { client.send_request("tools/list", json!({}), options).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    cancel.cancel();
    let error = tokio::time::timeout(Duration::from_secs(1), waiting).await.unwrap().unwrap().unwrap_err();
    assert!(matches!(error, RequestError::Cancelled { .. }), "{error:?}");
}

/// `Client::is_closed` tells the truth as soon as `close` returns, over any transport
/// (an in-memory pair has no goodbye for `close` to wait for), and a call made then fails
/// at once without being sent.
#[tokio::test]
async fn a_closed_client_says_so_as_soon_as_close_returns() {
    let server = mcpwire::server::Server::builder("s", "1")
        .tool(mcpwire::server::tool("ping").handler(|| "pong"))
        .build()
        .unwrap();
    for version in ["2025-11-25", "2026-07-28"] {
        let (ours, theirs) = mcpwire::transport::memory::pair();
        let serving = tokio::spawn({
            let server = server.clone();
            async move { server.serve(theirs).await }
        });
        let client = Client::builder("t", "0")
            .protocol_version(ProtocolVersion::parse(version))
            .connect(ours)
            .await
            .unwrap();
        client.call_tool("ping", json!({})).await.unwrap();
        assert!(!client.is_closed());
        client.close().await;
        assert!(client.is_closed(), "{version}: open after close returned");
        let error = client.call_tool("ping", json!({})).await.unwrap_err();
        assert!(matches!(error, RequestError::ConnectionClosed { .. }), "{version}: {error:?}");
        tokio::time::timeout(Duration::from_secs(5), serving).await.unwrap().unwrap();
    }
}
