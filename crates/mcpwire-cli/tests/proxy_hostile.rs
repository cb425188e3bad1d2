//! `mcpwire proxy` between hostile peers: an upstream server that answers twice, answers
//! ids never sent, floods log messages, never answers, answers too much or dies mid-call.
//! Each call ends with the answer or a clear error, in bounded time, and the proxy goes on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::*;

/// The proxy, on a free port, in front of `tests/fixtures/fake_server.py hostile`, giving
/// up on an upstream request after 3 s.
fn proxy_for_hostile() -> Running {
    let upstream =
        format!("stdio:python3 {}/tests/fixtures/fake_server.py hostile", env!("CARGO_MANIFEST_DIR"));
    start_http(&["proxy", "--timeout", "3", "--listen", "127.0.0.1:0", &upstream])
}

/// A 2026 call of the fake server's tool `t` misbehaving as `how` says: the raw response,
/// read until its JSON-RPC answer (10 s at most, then what came).
fn call_t(url: &str, id: u32, how: &str) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","arguments":{{"how":"{how}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    let headers = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "t")];
    post(url, &headers, &body, Some(&format!(r#""id":{id}"#)))
}

/// An upstream that answers twice, or first answers ids it was never sent, or floods log
/// messages before its answer: the client gets the one answer, and the next call is
/// served as well.
#[test]
fn an_upstream_answering_twice_strays_or_floods_still_answers_once() {
    let server = proxy_for_hostile();
    for (id, how) in [(1, "twice"), (2, "stray"), (3, "flood"), (4, "twice")] {
        let response = call_t(&server.url, id, how);
        assert!(response.contains(r#""text":"done""#), "{how}: {response}");
        assert_eq!(response.matches(r#""text":"done""#).count(), 1, "{how}: {response}");
    }
}

/// An upstream that never answers: the client gets `-32603` once the proxy's timeout
/// passes, and the proxy goes on. One that answers more than the message limit: a clear
/// error naming the limit's flag.
#[test]
fn an_upstream_that_never_answers_or_answers_too_much_is_a_clear_error() {
    let server = proxy_for_hostile();
    let response = call_t(&server.url, 1, "never");
    assert!(response.contains(r#""code":-32603"#), "{response}");
    assert!(response.contains("upstream server"), "{response}");
    let response = call_t(&server.url, 2, "huge");
    assert!(response.contains(r#""code":-32603"#), "{response}");
    assert!(response.contains("--max-message-size"), "{response}");
    let response = call_t(&server.url, 3, "twice");
    assert!(response.contains(r#""text":"done""#), "{response}");
}

/// An upstream that dies mid-call: the client gets an error, not a hang.
#[test]
fn an_upstream_that_dies_mid_call_fails_the_call() {
    let server = proxy_for_hostile();
    let response = call_t(&server.url, 1, "dies");
    assert!(response.contains(r#""error""#), "{response}");
}
