//! The Python SDK (`mcp` 2.3.0) over Streamable HTTP in both eras, and over the legacy
//! HTTP+SSE transport (the client is pointed at the SSE endpoint and must fall back).

use crate::checks;
use crate::fixtures::{case_tests, limited, open_on, start_python, Case, Connected, Mode, Peer};

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

/// Runs `check` on a Python server of its own, which no other test shares, through the
/// recording proxy when `via_proxy`.
async fn on_own_server(what: &str, mode: Mode, via_proxy: bool, check: impl AsyncFn(&Connected, Case)) {
    limited(what, async {
        let Some(server) = start_python("streamable") else { return };
        let case = Case { peer: Peer::Python, mode, legacy_sse: false };
        let c = open_on(&server, case, via_proxy).await;
        check(&c, case).await;
        c.client.close().await;
    })
    .await;
}

/// Logging changes the fixture's process-wide level, so each era gets its own server.
#[tokio::test]
async fn logging_auto() {
    on_own_server("python logging", Mode::Auto, false, checks::logging).await;
}

#[tokio::test]
async fn logging_pinned_2025() {
    on_own_server("python logging", Mode::Pinned2025, false, checks::logging).await;
}

/// Resumption gets a server of its own too. The Python SDK names a POST's SSE stream
/// after the request's JSON-RPC id, and the fixture's event store (like the SDK's example
/// one) replays a stream by that name alone: on the shared server, another session's
/// request with the same id, stored after the cut, was replayed into this one's resumed
/// stream (a resumed call once got another session's `echo` answer).
#[tokio::test]
async fn resumption_auto() {
    on_own_server("python resumption", Mode::Auto, true, checks::resumption).await;
}

#[tokio::test]
async fn resumption_pinned_2025() {
    on_own_server("python resumption", Mode::Pinned2025, true, checks::resumption).await;
}
