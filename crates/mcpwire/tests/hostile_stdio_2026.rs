//! A hostile 2026 client against our stdio server, on real pipes (the fixture server in a
//! child process, as in `hostile_stdio.rs`): what a long-lived request holds while it
//! lives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;

use fixture::{memory_of, ChildServer};
use serde_json::{json, Value};

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A `subscriptions/listen` stream lives as long as its client keeps it: the request's
/// text (here padded with a member nothing reads) is not held for that long, so many
/// large listen requests left open do not hold the server's memory.
#[tokio::test]
async fn an_open_listen_stream_does_not_hold_its_request() {
    const STREAMS: usize = 12;
    const PADDING: usize = 6 << 20;
    let mut s = ChildServer::start("stdio", &[]).await;
    let padding = "x".repeat(PADDING);
    let listen = |id: usize| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
            "_meta": envelope(), "notifications": {}, "padding": padding } })
    };
    // One stream first, so that what reading such a line costs for a moment is counted
    // in the baseline.
    s.send(listen(0)).await;
    let ack = s.line().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    let (before, _) = memory_of(s.pid());
    for id in 1..=STREAMS {
        s.send(listen(id)).await;
        let ack = s.line().await;
        assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id, "{ack}");
    }
    let (after, _) = memory_of(s.pid());
    let grown_mib = after.saturating_sub(before) / 1024;
    let held_mib = (STREAMS * PADDING) >> 20;
    assert!(
        grown_mib < 32,
        "{STREAMS} open listen streams grew memory by {grown_mib} MiB ({held_mib} MiB of requests)"
    );
}
