//! `mcpwire proxy` end to end over raw HTTP, in front of `mcpwire serve --example
//! everything`: both eras, what its clients get (no tasks, their log messages, list
//! changes), an upstream server that dies, cancellation, and its target checks. The
//! proxy against third-party servers is in `real_peers.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::net::TcpStream;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

mod support;

use support::{
    assert_ends, children_of, everything, expect_code, interrupt, post, session_id, start_http, stderr,
    tools_list_2026, wait_for_line, wait_status, Scratch, BIN, INITIALIZE,
};

/// Runs `mcpwire ARGS` with stdin closed, with a deadline of a minute.
fn mcpwire(args: &[&str]) -> std::process::Output {
    support::mcpwire(args, Duration::from_secs(60))
}

#[test]
fn proxy_exposes_a_stdio_server_over_http_in_both_eras() {
    let mut server = start_http(&["proxy", "--listen", "127.0.0.1:0", &everything()]);
    // 2025: an initialize handshake opens a session; the upstream's identity shows.
    let response = post(&server.url, &[], INITIALIZE, Some("serverInfo"));
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("mcp-session-id"), "{response}");
    assert!(response.contains(r#""name":"mcp-conformance-test-server""#), "{response}");
    assert!(response.contains(r#""tools":{"listChanged":true}"#), "{response}");
    // 2026: a stateless tools/list is forwarded upstream.
    let response = tools_list_2026(&server.url);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.contains(r#""resultType":"complete""#) && response.contains("test_simple_text"),
        "{response}"
    );
    // And a call, with its 2026 headers.
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "test_simple_text"),
    ];
    let response = post(&server.url, &headers, body, Some("simple text response"));
    assert!(response.contains("This is a simple text response for testing."), "{response}");
    interrupt(&server.child);
    assert_eq!(wait_status(&mut server.child, Duration::from_secs(20)), Some(130));
}

/// A 2026 request to `url` (`name` for `Mcp-Name`), its response read until `until`.
fn post_2026(url: &str, method: &str, name: Option<&str>, params: &str, until: &str) -> String {
    let envelope = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;
    let params = params.replacen("_META", envelope, 1);
    let body = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"{method}","params":{params}}}"#);
    let mut headers = vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method)];
    if let Some(name) = name {
        headers.push(("Mcp-Name", name));
    }
    post(url, &headers, &body, Some(until))
}

#[test]
fn proxy_clients_get_no_tasks_their_log_messages_and_list_changes() {
    let server = start_http(&["proxy", "--listen", "127.0.0.1:0", &everything()]);
    // The upstream runs `slow_compute` as a task for a client that declares the tasks
    // extension. The proxy's clients get a final result, whether they declared it or not
    // (the proxy relays no `tasks/*`).
    let response = post_2026(
        &server.url,
        "tools/call",
        Some("slow_compute"),
        r#"{"name":"slow_compute","arguments":{"seconds":0.1},"_meta":{_META}}"#,
        r#""id":3"#,
    );
    assert!(response.contains(r#""resultType":"complete""#), "{response}");
    assert!(response.contains("Computed"), "{response}");
    // A 2025 session is offered no tasks either, and its call is answered with content.
    let response = post(&server.url, &[], INITIALIZE, Some("serverInfo"));
    assert!(!response.contains(r#""tasks""#) && !response.contains("extensions"), "{response}");
    let session = session_id(&response);
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    post(&server.url, &headers, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, None);
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":0.1},"task":{"ttl":60000}}}"#;
    let response = post(&server.url, &headers, call, Some(r#""id":2"#));
    assert!(response.contains(r#""content":[{"type":"text","text":"Computed"#), "{response}");
    // A 2026 request that asks for log messages gets the upstream's, before its result.
    let response = post_2026(
        &server.url,
        "tools/call",
        Some("test_tool_with_logging"),
        r#"{"name":"test_tool_with_logging","arguments":{},"_meta":{_META,"io.modelcontextprotocol/logLevel":"info"}}"#,
        r#""id":3"#,
    );
    assert!(
        response.contains("notifications/message") && response.contains("Tool execution started"),
        "{response}"
    );
    // A listen stream is granted the upstream's list changes.
    let response = post_2026(
        &server.url,
        "subscriptions/listen",
        None,
        r#"{"notifications":{"toolsListChanged":true,"resourcesListChanged":true},"_meta":{_META}}"#,
        "acknowledged",
    );
    let ack = response.lines().find(|l| l.contains("acknowledged")).unwrap_or_default().to_owned();
    assert!(
        ack.contains(r#""toolsListChanged":true"#) && ack.contains(r#""resourcesListChanged":true"#),
        "{response}"
    );
}

#[test]
fn proxy_replaces_an_upstream_connection_whose_server_died() {
    // A 2025 upstream (pinned): its capabilities are fixed per connection.
    let server =
        start_http(&["proxy", "--listen", "127.0.0.1:0", "--protocol-version", "2025-11-25", &everything()]);
    // A 2025 client that can be asked things holds an upstream connection of its own
    // while its call runs: a second server process.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let response = post(&server.url, &[], init, Some("serverInfo"));
    let session = session_id(&response);
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    post(&server.url, &headers, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, None);
    let call = |id: u32| {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"test_simple_text","arguments":{{}}}}}}"#
        );
        post(&server.url, &headers, &body, Some(&format!(r#""id":{id}"#)))
    };
    assert!(call(2).contains("simple text response"), "the first call");
    let children = children_of(server.child.id());
    assert_eq!(children.len(), 2, "the first connection and this client's: {children:?}");
    // Its server dies. The next call gets a new connection, not the dead one's error.
    Command::new("kill").args(["-KILL", &children[1].to_string()]).status().unwrap();
    // The proxy reaps it (its /proc entry goes) as it learns the connection died, then
    // takes a moment to word why: wait for the first, however long a busy machine takes,
    // and give the second time.
    let end = Instant::now() + Duration::from_secs(10);
    while std::path::Path::new(&format!("/proc/{}", children[1])).exists() {
        assert!(Instant::now() < end, "the proxy never reaped its dead server");
        thread::sleep(Duration::from_millis(20));
    }
    thread::sleep(Duration::from_millis(300));
    let answer = call(3);
    assert!(answer.contains("simple text response"), "{answer}");
    assert_eq!(children_of(server.child.id()).len(), 2, "a new second server in the dead one's place");
}

/// A 2025 server's log message sent outside any request (the 2025 revisions allow one
/// at any time) reaches a 2025 client of the proxy on its GET stream, at the level the
/// client set.
#[test]
fn a_log_message_outside_a_request_reaches_2025_clients_at_their_level() {
    let server = proxy_for_fake("logs-later");
    // The GET stream, read on its own thread until the warning arrives.
    let (session, mut stream) = logging_session(&server.url, "info", Duration::from_secs(15));
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let reader = thread::spawn(move || {
        let mut seen = String::new();
        let mut buffer = [0u8; 4096];
        while !seen.contains("later at warning") {
            match std::io::Read::read(&mut stream, &mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.push_str(&String::from_utf8_lossy(&buffer[..n])),
            }
        }
        seen
    });
    thread::sleep(Duration::from_millis(300));
    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}}"#;
    assert!(post(&server.url, &headers, call, Some(r#""id":3"#)).contains("done"));
    let seen = reader.join().unwrap();
    assert!(seen.contains("later at warning"), "{seen}");
    assert!(!seen.contains("later at debug"), "below the client's level: {seen}");
}

/// A service manager stops the proxy with `SIGTERM`: it shuts its server down as the
/// spec says (close stdin, then signals) and exits 143, even a server that outlives its
/// stdin (here a shell that goes on after the server it ran), which the default action
/// (the proxy dies at once) left running.
#[test]
fn sigterm_stops_the_proxy_and_its_server() {
    let upstream = format!("stdio:sh -c \"'{BIN}' serve --example notes; sleep 60\"");
    let mut server = start_http(&["proxy", "--listen", "127.0.0.1:0", &upstream]);
    let children = children_of(server.child.id());
    assert_eq!(children.len(), 1, "one upstream server: {children:?}");
    Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().unwrap();
    assert_eq!(wait_status(&mut server.child, Duration::from_secs(20)), Some(143));
    assert_ends(children[0], Duration::from_secs(10), "the upstream server that outlived the proxy");
}

/// A 2026 upstream takes each request's capabilities from the request: one server
/// process serves clients of every kind, so they all see one server state (a note one
/// client adds, another finds).
#[test]
fn a_2026_upstream_is_one_server_for_clients_of_every_kind() {
    let notes = format!("stdio:'{BIN}' serve --example notes");
    let server = start_http(&["proxy", "--listen", "127.0.0.1:0", &notes]);
    let call = |id: u32, capabilities: &str, name: &str, arguments: &str| {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{capabilities}}}}}}}"#
        );
        let headers =
            [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", name)];
        post(&server.url, &headers, &body, Some(&format!(r#""id":{id}"#)))
    };
    let added = call(1, "{}", "add_note", r#"{"title":"zebra","text":"stripes"}"#);
    assert!(added.contains("Added note"), "{added}");
    let found = call(2, r#"{"elicitation":{"form":{}}}"#, "search_notes", r#"{"query":"zebra"}"#);
    assert!(found.contains("zebra"), "a client of another kind sees the same notes: {found}");
    assert_eq!(children_of(server.child.id()).len(), 1, "one upstream server");
    // A missing resource: the 2026 upstream says -32602, which a 2025 client gets in its
    // revision's terms, -32002.
    let response = post(&server.url, &[], INITIALIZE, Some("serverInfo"));
    let session = session_id(&response);
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    post(&server.url, &headers, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, None);
    let read = r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"notes://nosuch"}}"#;
    let missing = post(&server.url, &headers, read, Some(r#""id":3"#));
    assert!(missing.contains(r#""code":-32002"#), "{missing}");
    let read_2026 = r#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"notes://nosuch","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "resources/read"),
        ("Mcp-Name", "notes://nosuch"),
    ];
    let missing = post(&server.url, &headers, read_2026, Some(r#""id":4"#));
    assert!(missing.contains(r#""code":-32602"#), "{missing}");
}

/// A 2026 upstream server that dies is started again, and the proxy goes on: the call
/// after the crash is answered by the new process (the spec asks a 2026 client to
/// restart a server that exited unexpectedly).
#[test]
fn a_2026_upstream_that_dies_is_started_again() {
    let notes = format!("stdio:'{BIN}' serve --example notes");
    let server = start_http(&["proxy", "--listen", "127.0.0.1:0", &notes]);
    let call = |id: u32, name: &str, arguments: &str| {
        let params = format!(r#"{{"name":"{name}","arguments":{arguments},"_meta":{{_META}}}}"#);
        post_2026(&server.url, "tools/call", Some(name), &params, &format!(r#""id":{id}"#))
    };
    let added = call(3, "add_note", r#"{"title":"zebra","text":"stripes"}"#);
    assert!(added.contains("Added note"), "{added}");
    let first = children_of(server.child.id());
    assert_eq!(first.len(), 1, "one upstream server: {first:?}");
    Command::new("kill").args(["-KILL", &first[0].to_string()]).status().unwrap();
    thread::sleep(Duration::from_millis(300));
    let again = call(3, "add_note", r#"{"title":"okapi","text":"stripes too"}"#);
    assert!(again.contains("Added note"), "the call after the crash: {again}");
    let now = children_of(server.child.id());
    assert!(now.len() == 1 && now != first, "a new server in the dead one's place: {first:?} then {now:?}");
}

/// Every log message the upstream sends for a request before its answer reaches the
/// client before the answer (forwarding them on tasks of their own lost the last one to
/// the answer about one call in ten).
#[test]
fn log_messages_reach_the_client_before_the_answer() {
    let server = start_http(&["proxy", "--listen", "127.0.0.1:0", &everything()]);
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "test_tool_with_logging"),
    ];
    for id in 1..=20 {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"test_tool_with_logging","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/logLevel":"debug"}}}}}}"#
        );
        let response = post(&server.url, &headers, &body, Some(r#""result""#));
        let before = &response[..response.find(r#""result""#).unwrap()];
        assert_eq!(before.matches("notifications/message").count(), 3, "call {id}: {response}");
    }
}

#[test]
fn proxy_passes_a_cancellation_upstream() {
    // -v on both: the proxy relays its upstream's debug log, which notes the cancel.
    let upstream = format!("stdio:'{BIN}' -v serve --example everything");
    let mut server = start_http(&["-v", "proxy", "--listen", "127.0.0.1:0", &upstream]);
    // A 2026 call to a tool that takes 30 s (so however late the hang-up comes, the call
    // is still running); the client hangs up after 50 ms, which cancels the request
    // downstream, and the proxy cancels its upstream request.
    let body = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":30},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let (host, path) = host_and_path(&server.url);
    let mut stream = TcpStream::connect(host).unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: slow_compute\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    thread::sleep(Duration::from_millis(50));
    drop(stream);
    let mut seen = Vec::new();
    let line = wait_for_line(&server.lines, "request cancelled by the peer", &mut seen);
    assert!(line.contains("tools/call"), "{line}");
    interrupt(&server.child);
    assert_eq!(wait_status(&mut server.child, Duration::from_secs(20)), Some(130));
}

#[test]
fn proxy_checks_its_target() {
    let o = mcpwire(&["proxy", "--listen", "127.0.0.1:0", "http://127.0.0.1:9/mcp"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("give a stdio:'COMMAND ARGS' target"), "{}", stderr(&o));
    let o = mcpwire(&["proxy", "--stdio", &everything()]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("give a URL target"), "{}", stderr(&o));
    let o = mcpwire(&["proxy", "--stdio", "http://127.0.0.1:9/mcp"]);
    expect_code(&o, 2);
    // The HTTP target is real now: a refused connection is reported with a hint.
    assert!(stderr(&o).contains("cannot reach http://127.0.0.1:9/mcp"), "{}", stderr(&o));
    expect_code(&mcpwire(&["proxy", &everything()]), 2);
}

/// An upstream connection whose server breaks it (here: closes its stdout and goes on
/// running) is shut down as soon as it ends, not when the next request comes to look
/// for a connection: the server process is stopped (stdin closed, then signals).
#[test]
fn an_upstream_connection_that_ends_is_shut_down_at_once() {
    let server = proxy_for_fake("hangs-up");
    // A client that can be asked things: its call runs on a connection of its own.
    assert!(call_t_asking(&server.url, r#""id":2"#).contains("done"));
    let children = children_of(server.child.id());
    assert_eq!(children.len(), 2, "the first connection and this client's: {children:?}");
    // Its server hung up after answering: with no request coming, it is stopped anyway.
    assert_ends(children[1], Duration::from_secs(30), "the server that hung up");
}

/// A 2025 client's `initialize` result holds what its revision's schema defines and no
/// more: not the 2026 `extensions` capability, and in older revisions no `completions`
/// (2025-03-26 on) nor the implementation's `title` (2025-06-18 on) or `description`,
/// `icons` and `websiteUrl` (2025-11-25 on). A 2026 client is told all of it.
#[test]
fn initialize_results_fit_the_clients_revision() {
    let server = proxy_for_fake("declares-more");
    let result = |version: &str| {
        let init = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"raw","version":"1"}}}}}}"#
        );
        let response = post(&server.url, &[], &init, Some("serverInfo"));
        let body = response
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .unwrap_or_else(|| response.split("\r\n\r\n").nth(1).unwrap_or_default());
        let message: serde_json::Value = serde_json::from_str(body.trim()).expect(&response);
        message["result"].clone()
    };
    let keys = |value: &serde_json::Value| -> Vec<String> {
        let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    for (version, capabilities, info) in [
        ("2024-11-05", vec!["logging", "tools"], vec!["name", "version"]),
        ("2025-03-26", vec!["completions", "logging", "tools"], vec!["name", "version"]),
        ("2025-06-18", vec!["completions", "logging", "tools"], vec!["name", "title", "version"]),
        (
            "2025-11-25",
            vec!["completions", "logging", "tools"],
            vec!["description", "icons", "name", "title", "version", "websiteUrl"],
        ),
    ] {
        let result = result(version);
        assert_eq!(result["protocolVersion"], version, "{result}");
        assert_eq!(keys(&result["capabilities"]), capabilities, "{version}: {result}");
        assert_eq!(keys(&result["serverInfo"]), info, "{version}: {result}");
    }
    let discover = post_2026(&server.url, "server/discover", None, r#"{"_meta":{_META}}"#, r#""id":3"#);
    assert!(discover.contains(r#""extensions":{"com.example/ext":{}}"#), "{discover}");
    assert!(discover.contains(r#""icons":[{"src":"https://example.com/i.png"}]"#), "{discover}");
}

/// The upstream's content blocks reach a client of an older revision in the terms of
/// that revision, as the SDK's own server sends its own: no audio before 2025-03-26 and
/// no resource links before 2025-06-18 (a text block says what was there instead).
#[test]
fn relayed_content_fits_the_clients_revision() {
    let server = start_http(&["proxy", "--listen", "127.0.0.1:0", &everything()]);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let session = session_id(&post(&server.url, &[], init, Some("serverInfo")));
    let headers = [("Mcp-Session-Id", session.as_str())];
    post(&server.url, &headers, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, None);
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_audio_content","arguments":{}}}"#;
    let response = post(&server.url, &headers, call, Some(r#""id":2"#));
    assert!(!response.contains(r#""type":"audio""#), "{response}");
    assert!(response.contains("has no audio content"), "{response}");
    // A 2025-11-25 client gets the audio as it is.
    let session = session_id(&post(&server.url, &[], INITIALIZE, Some("serverInfo")));
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    post(&server.url, &headers, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, None);
    let response = post(&server.url, &headers, call, Some(r#""id":2"#));
    assert!(response.contains(r#""type":"audio""#), "{response}");
}

/// A tool that needs a client capability the client did not declare: each era says so
/// with its own code, and the proxy passes the upstream's refusal on in the client's:
/// `-32601` to a 2025 client (a 2026 upstream says `-32021`, which no 2025 revision
/// defines), `-32021` with HTTP 400 to a 2026 client (a 2025 upstream says `-32601`,
/// which over 2026 HTTP reads as "no such method"). The data is kept.
#[test]
fn a_missing_client_capability_is_refused_in_the_clients_era() {
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"x"}}}"#;
    let data = r#""data":{"requiredCapabilities":{"sampling":{}}}"#;
    // A 2025 client in front of a 2026 upstream.
    let server = start_http(&["proxy", "--listen", "127.0.0.1:0", &everything()]);
    let session = session_id(&post(&server.url, &[], INITIALIZE, Some("serverInfo")));
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    post(&server.url, &headers, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, None);
    let response = post(&server.url, &headers, call, Some(r#""id":2"#));
    assert!(response.contains(r#""code":-32601"#) && response.contains(data), "{response}");
    // A 2026 client in front of a 2025 upstream.
    let server =
        start_http(&["proxy", "--listen", "127.0.0.1:0", "--protocol-version", "2025-11-25", &everything()]);
    let response = post_2026(
        &server.url,
        "tools/call",
        Some("test_sampling"),
        r#"{"name":"test_sampling","arguments":{"prompt":"x"},"_meta":{_META}}"#,
        r#""id":3"#,
    );
    assert!(response.starts_with("HTTP/1.1 400"), "{response}");
    assert!(response.contains(r#""code":-32021"#) && response.contains(data), "{response}");
}

/// A 2026 upstream's log messages belong to requests, and over stdio nothing says
/// which: with several requests in flight, a message of one client's call does not go
/// to every 2025 client (it went to each session's GET stream).
#[test]
fn a_2026_upstreams_log_messages_reach_no_unrelated_client() {
    let server = start_http(&["proxy", "--listen", "127.0.0.1:0", &everything()]);
    // A bystander: a 2025 session that takes every log message on its GET stream.
    let (_, mut get) = logging_session(&server.url, "debug", Duration::from_secs(30));
    let (host, path) = host_and_path(&server.url);
    read_until(&mut get, "\r\n\r\n");
    // A request kept in flight: a 2025 client is asked for input, and does not answer.
    let asked = open_session(&server.url, r#"{"elicitation":{"form":{}}}"#);
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"hi"}}}"#;
    let mut waiting = TcpStream::connect(host).unwrap();
    waiting.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        waiting,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {asked}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    read_until(&mut waiting, "elicitation/create");
    // Meanwhile a 2026 client's call logs; then a list change marks the end of it.
    let logged = post_2026(
        &server.url,
        "tools/call",
        Some("test_tool_with_logging"),
        r#"{"name":"test_tool_with_logging","arguments":{},"_meta":{_META,"io.modelcontextprotocol/logLevel":"debug"}}"#,
        r#""id":3"#,
    );
    assert!(logged.contains("executed successfully"), "{logged}");
    let params = r#"{"name":"test_trigger_tool_change","arguments":{},"_meta":{_META}}"#;
    post_2026(&server.url, "tools/call", Some("test_trigger_tool_change"), params, r#""id":3"#);
    let seen = read_until(&mut get, "notifications/tools/list_changed");
    assert!(!seen.contains("Tool execution"), "another client's log messages: {seen}");
}

/// A 2025 server that takes back a question it put to the proxy's client (it cancels
/// its `elicitation/create`): the client's question is cancelled too, and the call goes
/// on to its answer without waiting for the client.
#[test]
fn a_question_the_upstream_takes_back_is_cancelled_downstream() {
    let server = proxy_for_fake("takes-back");
    let response = call_t_asking(&server.url, r#""id":2,"result""#);
    let asked = response.find("elicitation/create").expect(&response);
    let cancelled = response.find("notifications/cancelled").expect(&response);
    let answered = response.find(r#""id":2,"result""#).expect(&response);
    assert!(asked < cancelled && cancelled < answered, "{response}");
    assert!(response.contains("done"), "{response}");
}

/// A 2025 session that ends while it follows a resource stops following it upstream too
/// (the proxy's own subscription is released, as an unsubscribe releases it), not only
/// on an explicit `resources/unsubscribe`.
#[test]
fn a_session_that_ends_releases_its_upstream_subscriptions() {
    let server = proxy_for_fake("subscriptions");
    // A bystander hears the upstream's log messages, which say what it unsubscribes.
    let (_, mut get) = logging_session(&server.url, "debug", Duration::from_secs(30));
    let (host, path) = host_and_path(&server.url);
    // A client follows a resource, then ends its session without unsubscribing.
    let follower = open_session(&server.url, "{}");
    let headers = [("Mcp-Session-Id", follower.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let subscribe =
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://followed"}}"#;
    assert!(post(&server.url, &headers, subscribe, Some(r#""id":2"#)).contains(r#""result":{}"#));
    let mut delete = TcpStream::connect(host).unwrap();
    write!(
        delete,
        "DELETE {path} HTTP/1.1\r\nHost: {host}\r\nMcp-Session-Id: {follower}\r\nMCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    read_until(&mut get, "unsubscribed test://followed");
}

/// A 2025 server's log message outside any request, on one upstream connection, is not
/// taken for the request in flight on another (another client's call): each connection
/// has its own requests in flight.
#[test]
fn a_log_message_is_not_given_to_a_request_on_another_connection() {
    let server = proxy_for_fake("logs-later-slowly");
    // A 2026 client that takes log messages calls the slow tool, on the first connection.
    let url = server.url.clone();
    let slow = thread::spawn(move || {
        let params =
            r#"{"name":"slow","arguments":{},"_meta":{_META,"io.modelcontextprotocol/logLevel":"debug"}}"#;
        post_2026(&url, "tools/call", Some("slow"), params, r#""id":3"#)
    });
    // Meanwhile a client that can be asked things calls on a connection of its own, whose
    // server then logs outside any request.
    assert!(call_t_asking(&server.url, r#""id":2"#).contains("done"));
    let slow = slow.join().unwrap();
    assert!(slow.contains("slow done"), "{slow}");
    assert!(!slow.contains("later at"), "another connection's log message: {slow}");
}

/// A 2025 client's roots change reaches a 2025 upstream connection that declared roots
/// (`notifications/roots/list_changed`, which such a connection declares it sends), and
/// nothing reaches a 2026 upstream, whose revision has no such notification.
#[test]
fn a_roots_change_reaches_a_2025_upstream_and_not_a_2026_one() {
    for (mode, told) in [("records", true), ("records-2026", false)] {
        let dir = Scratch::new(&format!("proxy-{mode}"));
        let record = dir.join("record");
        let upstream = format!(
            "stdio:python3 {}/tests/fixtures/fake_server.py {mode} {}",
            env!("CARGO_MANIFEST_DIR"),
            record.display()
        );
        let server = start_http(&["proxy", "--listen", "127.0.0.1:0", &upstream]);
        // A client with roots: its call runs on an upstream connection that declares them.
        let session = open_session(&server.url, r#"{"roots":{"listChanged":true}}"#);
        let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}"#;
        assert!(post(&server.url, &headers, call, Some("done")).contains("done"), "{mode}");
        post(&server.url, &headers, r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#, None);
        let heard = || std::fs::read_to_string(&record).unwrap_or_default();
        let end = Instant::now() + Duration::from_secs(if told { 10 } else { 1 });
        while !heard().contains("notifications/roots/list_changed") && Instant::now() < end {
            thread::sleep(Duration::from_millis(50));
        }
        let text = heard();
        assert_eq!(
            text.contains("notifications/roots/list_changed"),
            told,
            "{mode}: the upstream heard {text:?}"
        );
    }
}

/// The proxy, on a free port, in front of `tests/fixtures/fake_server.py MODE`.
fn proxy_for_fake(mode: &str) -> support::Running {
    let upstream =
        format!("stdio:python3 {}/tests/fixtures/fake_server.py {mode}", env!("CARGO_MANIFEST_DIR"));
    start_http(&["proxy", "--listen", "127.0.0.1:0", &upstream])
}

/// An initialized 2025-11-25 session whose client declares `capabilities` (a client that
/// can be asked things has its calls run on an upstream connection of their own): its id.
fn open_session(url: &str, capabilities: &str) -> String {
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{capabilities},"clientInfo":{{"name":"raw","version":"1"}}}}}}"#
    );
    let session = session_id(&post(url, &[], &init, Some("serverInfo")));
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    post(url, &headers, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, None);
    session
}

/// The fake server's tool `t` called (id 2) by a 2025 client that can be asked things,
/// which the proxy gives an upstream connection of its own: the response, read until
/// `until`.
fn call_t_asking(url: &str, until: &str) -> String {
    let session = open_session(url, r#"{"elicitation":{"form":{}}}"#);
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}"#;
    post(url, &headers, call, Some(until))
}

/// A new 2025 session that takes log messages from `level` up: its id and GET stream.
fn logging_session(url: &str, level: &str, timeout: Duration) -> (String, TcpStream) {
    let session = open_session(url, "{}");
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let set_level =
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{{"level":"{level}"}}}}"#);
    assert!(post(url, &headers, &set_level, Some(r#""id":2"#)).contains(r#""result":{}"#));
    let stream = get_stream(url, &session, timeout);
    (session, stream)
}

/// What `stream` gives until `needle` shows (the test fails if it ends first).
fn read_until(stream: &mut TcpStream, needle: &str) -> String {
    let mut seen = String::new();
    let mut buffer = [0u8; 4096];
    while !seen.contains(needle) {
        match std::io::Read::read(stream, &mut buffer) {
            Ok(0) | Err(_) => panic!("no {needle:?} in {seen}"),
            Ok(n) => seen.push_str(&String::from_utf8_lossy(&buffer[..n])),
        }
    }
    seen
}

/// A 2025 session's GET stream at `url`, its request written, read with `timeout`.
fn get_stream(url: &str, session: &str, timeout: Duration) -> TcpStream {
    let (host, path) = host_and_path(url);
    let mut stream = TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(timeout)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
    )
    .unwrap();
    stream
}

/// The `host:port` and the path of an `http://` URL.
fn host_and_path(url: &str) -> (&str, &str) {
    let rest = url.strip_prefix("http://").unwrap();
    rest.split_at(rest.find('/').unwrap())
}
