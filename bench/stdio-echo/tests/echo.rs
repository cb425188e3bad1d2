//! The lean server answers over real pipes as the benchmark drives it: the 2025
//! handshake, then `echo` calls, and it exits when its stdin closes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

#[test]
fn serves_the_echo_tool_over_stdio_and_exits_at_eof() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stdio-echo"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn stdio-echo");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut call = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
        if message.get("id").is_none() {
            return Value::Null;
        }
        serde_json::from_str::<Value>(&lines.next().expect("an answer").unwrap()).unwrap()
    };

    let init = call(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}));
    assert_eq!(init["result"]["serverInfo"]["name"], "mcpwire-echo");
    call(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let tools = call(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    assert_eq!(tools["result"]["tools"][0]["name"], "echo");
    assert_eq!(tools["result"]["tools"][0]["inputSchema"]["required"], json!(["text"]));
    for (id, text) in [(2, "hello"), (3, "a \"quoted\" line\nand another")] {
        let answer = call(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}}));
        assert_eq!(answer["id"], id);
        assert_eq!(answer["result"]["content"], json!([{"type": "text", "text": text}]));
    }

    drop(stdin);
    let status = child.wait().expect("stdio-echo exits when its stdin closes");
    assert!(status.success(), "{status}");
}

#[test]
fn refuses_unknown_arguments() {
    let out = Command::new(env!("CARGO_BIN_EXE_stdio-echo")).arg("--http").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: stdio-echo"));
}
