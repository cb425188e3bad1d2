//! The Python SDK (`mcp` 2.3.0) over Streamable HTTP in both eras, and over the legacy
//! HTTP+SSE transport (the client is pointed at the SSE endpoint and must fall back).

use crate::checks;
use crate::fixtures::{case_tests, connect, limited, open_on, start_python, Case, Mode, Peer};

case_tests!(
    Python, legacy_sse = false;
    handshake,
    typed_calls,
    progress,
    callbacks,
    list_changed,
    close,
    stale_session,
    cancellation
);

/// The legacy HTTP+SSE transport (2024-11-05 wire, 2025-11-25 negotiated).
mod legacy_sse {
    use crate::fixtures::case_tests;
    case_tests!(
        Python, legacy_sse = true;
        handshake,
        typed_calls,
        progress,
        callbacks,
        list_changed,
        cancellation
    );
    case_tests!(Python, legacy_sse = true; close);
}

/// Logging changes the fixture's process-wide level, so each era gets its own server.
async fn logging(mode: Mode) {
    limited("python logging", async {
        let Some(server) = start_python("streamable") else { return };
        let c = connect(&server.url("/mcp"), mode).await;
        checks::logging(&c, Case { peer: Peer::Python, mode, legacy_sse: false }).await;
        c.client.close().await;
    })
    .await;
}

#[tokio::test]
async fn logging_auto() {
    logging(Mode::Auto).await;
}

#[tokio::test]
async fn logging_pinned_2025() {
    logging(Mode::Pinned2025).await;
}

/// Resumption gets a server of its own. The Python SDK names a POST's SSE stream after
/// the request's JSON-RPC id, and the fixture's event store (like the SDK's example one)
/// replays a stream by that name alone: on the shared server, another session's request
/// with the same id, stored after the cut, was replayed to this one's resumed stream (a
/// resumed call once got another session's `echo` answer).
async fn resumption(mode: Mode) {
    limited("python resumption", async {
        let Some(server) = start_python("streamable") else { return };
        let case = Case { peer: Peer::Python, mode, legacy_sse: false };
        let c = open_on(&server, case, true).await;
        checks::resumption(&c, case).await;
        c.client.close().await;
    })
    .await;
}

#[tokio::test]
async fn resumption_auto() {
    resumption(Mode::Auto).await;
}

#[tokio::test]
async fn resumption_pinned_2025() {
    resumption(Mode::Pinned2025).await;
}
