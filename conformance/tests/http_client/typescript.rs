//! The TypeScript SDK (`@modelcontextprotocol/sdk` 1.32.2) over Streamable HTTP and the
//! legacy HTTP+SSE transport. It speaks the 2025 era and older, so a probing client must
//! fall back to `initialize` and land in 2025-11-25.

use crate::fixtures::case_tests;

case_tests!(
    TypeScript, legacy_sse = false;
    handshake,
    typed_calls,
    progress,
    logging,
    callbacks,
    list_changed,
    close,
    resumption,
    stale_session
);

/// The legacy HTTP+SSE transport.
mod legacy_sse {
    use crate::fixtures::case_tests;
    case_tests!(
        TypeScript, legacy_sse = true;
        handshake,
        typed_calls,
        progress,
        logging,
        callbacks,
        list_changed
    );
    case_tests!(TypeScript, legacy_sse = true; close);
}
