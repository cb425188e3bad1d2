//! `mcpwire serve --example NAME --http ADDR --redis URL`: two instances started with one
//! Redis are one server: a 2025 session opened on one is served by the other, and a
//! 2026 task started on one is read through the other. Needs `redis-server` (CI installs
//! it); without it the test fails, unless `MCPWIRE_SKIP_REDIS=1`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod support;

use support::{post, session_id, start_http};

struct Redis(Child);

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn instances_started_with_one_redis_serve_one_session() {
    if std::env::var_os("MCPWIRE_SKIP_REDIS").is_some() {
        eprintln!("MCPWIRE_SKIP_REDIS is set: skipped");
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let redis = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server is needed (apt-get install redis-server), or set MCPWIRE_SKIP_REDIS=1");
    let _redis = Redis(redis);
    let deadline = Instant::now() + Duration::from_secs(20);
    // A probe the kernel happened to give the probed port as its own source port
    // connects to itself while nothing listens: not the server.
    while !TcpStream::connect(("127.0.0.1", port)).is_ok_and(|s| s.local_addr().ok() != s.peer_addr().ok()) {
        assert!(Instant::now() < deadline, "redis-server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    let url = format!("redis://127.0.0.1:{port}");
    let args = ["serve", "--example", "everything", "--http", "127.0.0.1:0", "--redis", url.as_str()];
    let (a, b) = (start_http(&args), start_http(&args));

    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let opened = post(&a.url, &[], initialize, None);
    assert!(opened.starts_with("HTTP/1.1 200"), "{opened}");
    let sid = session_id(&opened);
    let in_session = [("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert!(post(&b.url, &in_session, initialized, None).starts_with("HTTP/1.1 202"));
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}"#;
    let answered = post(&b.url, &in_session, call, None);
    assert!(answered.contains("This is a simple text response for testing."), "{answered}");

    // A 2026 MRTR round sealed by A is completed by B (one shared requestState key).
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "test_input_required_result_elicitation"),
    ];
    let first = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"test_input_required_result_elicitation","arguments":{{}},{meta}}}}}"#
    );
    let asked = post(&a.url, &headers, &first, None);
    let state = asked.split(r#""requestState":""#).nth(1).and_then(|r| r.split('"').next()).expect(&asked);
    let retry = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"test_input_required_result_elicitation","arguments":{{}},"requestState":"{state}","inputResponses":{{"user_name":{{"action":"accept","content":{{"name":"Ada"}}}}}},{meta}}}}}"#
    );
    let done = post(&b.url, &headers, &retry, None);
    assert!(done.contains("Ada"), "{done}");
}
