//! The mcpwire HTTP client (`Client` over `HttpClientTransport`) against real servers
//! over loopback sockets:
//!
//! - the Python SDK (`mcp` 2.3.0) serving the stdio fixture's tools over Streamable HTTP
//!   (both eras: `auto` probes into 2026-07-28, `2025` pins 2025-11-25) and over the
//!   legacy HTTP+SSE transport (`fixtures/python_http_server.py`);
//! - the TypeScript SDK (`@modelcontextprotocol/sdk` 1.32.2, 2025 era and older) with
//!   `StreamableHTTPServerTransport` and `SSEServerTransport` (`fixtures/ts_http_server.cjs`);
//! - our own `everything-server --http`: 2026 `input_required` rounds and
//!   `subscriptions/listen`, resumption after a killed SSE stream, stale session recovery.
//!
//! The peers come from `scripts/install-peers.sh` (`.tools/`); without them a peer's tests
//! are skipped (they print why), except under `CI`, where they fail. Every test has an
//! overall time limit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

mod checks;
mod fixtures;
mod ours;
mod python;
mod typescript;

/// The proxy's SSE scanner (its one piece of parsing), tested here once rather than in
/// every target that includes `common`.
#[test]
fn proxy_finds_the_first_sse_event_with_data_whatever_the_line_ends() {
    use common::proxy::first_data_event_end;
    let lf = b"id: 0\nretry: 5\ndata: \n\nid: 1\ndata: {}\n\nid: 2\n";
    assert_eq!(first_data_event_end(lf), Some(lf.len() - 6));
    let crlf = b"id: 0\r\ndata:\r\n\r\nevent: message\r\ndata: {}\r\n\r\nrest";
    assert_eq!(first_data_event_end(crlf), Some(crlf.len() - 4));
    assert_eq!(first_data_event_end(b"data: {}\r\n\r"), None);
    assert_eq!(first_data_event_end(b"data: {}\n"), None);
    assert_eq!(first_data_event_end(b": ping\n\n"), None);
}
