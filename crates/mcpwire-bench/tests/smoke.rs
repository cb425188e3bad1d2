//! `echo-server` built as the benchmarks run it: over stdio and over Streamable HTTP in
//! both modes (`stateless`, `sessions`), mcpwire's client in either era gets the echo
//! back, reads the 100 KiB resource and gets the prompt (what `mcpwire bench --mix`
//! asks for). The load generator itself is tested with the CLI (`mcpwire bench`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mcpwire::client::Client;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::child::ChildProcess;
use mcpwire::transport::http_client::HttpClientTransport;
use mcpwire_examples::echo::{MIX_PROMPT, MIX_RESOURCE_BYTES, MIX_RESOURCE_URI};
use serde_json::json;

const ECHO: &str = env!("CARGO_BIN_EXE_echo-server");

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28];

/// A bound on every exchange: a server that stops answering fails the test.
const LIMIT: Duration = Duration::from_secs(30);

/// The echo, the resource and the prompt, each checked against what the server serves.
async fn exercise(client: &Client, what: &str) {
    let text = "hello \"echo\" \u{e9}";
    let result = tokio::time::timeout(LIMIT, client.call_tool("echo", json!({ "text": text })))
        .await
        .expect("echo within the limit")
        .unwrap();
    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(result["content"][0]["text"], text, "{what}: {result}");
    assert_ne!(result["isError"], true, "{what}: {result}");

    let read = tokio::time::timeout(LIMIT, client.read_resource(MIX_RESOURCE_URI))
        .await
        .expect("resources/read within the limit")
        .unwrap();
    let read = serde_json::to_value(&read).unwrap();
    let body = read["contents"][0]["text"].as_str().unwrap_or_else(|| panic!("{what}: {read}"));
    assert_eq!(body.len(), MIX_RESOURCE_BYTES, "{what}");

    let arguments = BTreeMap::from([("text".to_owned(), text.to_owned())]);
    let prompt = tokio::time::timeout(LIMIT, client.get_prompt(MIX_PROMPT, arguments))
        .await
        .expect("prompts/get within the limit")
        .unwrap();
    let prompt = serde_json::to_value(&prompt).unwrap();
    assert_eq!(prompt["messages"][0]["role"], "user", "{what}: {prompt}");
    assert_eq!(prompt["messages"][0]["content"]["text"], text, "{what}: {prompt}");
}

#[tokio::test]
async fn stdio_in_both_eras_and_both_runtimes() {
    for flavor in [None, Some("--current-thread")] {
        for era in ERAS {
            let process = ChildProcess::new(ECHO).arg("--stdio").args(flavor);
            let client = tokio::time::timeout(
                LIMIT,
                Client::builder("smoke", "0").protocol_version(era.clone()).spawn(process),
            )
            .await
            .expect("the handshake within the limit")
            .unwrap();
            assert_eq!(client.protocol_version(), &era);
            exercise(&client, &format!("stdio {flavor:?} {}", era.as_str())).await;
            client.close().await;
        }
    }
}

/// An `echo-server --http` child, killed (by its own pid) when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http_server(mode: &str) -> (Server, String) {
    // Port 0: the server picks a free port and says which on stderr.
    let mut child = Command::new(ECHO)
        .args(["--http", "127.0.0.1:0", "--mode", mode])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let server = Server(child);
    // A loaded machine can take seconds to start a debug binary: wait, but not forever
    // (the line is read on a thread of its own so the wait has a limit).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(stderr);
        let mut line = String::new();
        let _ = std::io::BufRead::read_line(&mut reader, &mut line);
        let _ = tx.send(line);
        // Drained to the end, so the server never writes into a closed pipe.
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    let line = rx.recv_timeout(LIMIT).expect("echo-server said where it listens");
    let url = line.trim().strip_prefix("echo-server: listening on ").unwrap_or_else(|| panic!("{line:?}"));
    (server, url.to_owned())
}

#[tokio::test]
async fn http_in_both_modes_and_both_eras() {
    for mode in ["stateless", "sessions"] {
        let (_server, url) = http_server(mode);
        for era in ERAS {
            let transport = HttpClientTransport::new(url.as_str()).unwrap();
            let client = tokio::time::timeout(
                LIMIT,
                Client::builder("smoke", "0").protocol_version(era.clone()).connect(transport),
            )
            .await
            .expect("the handshake within the limit")
            .unwrap();
            assert_eq!(client.protocol_version(), &era);
            exercise(&client, &format!("{mode} {}", era.as_str())).await;
            client.close().await;
        }
    }
}

#[test]
fn bad_arguments_print_the_usage() {
    for args in
        [&[][..], &["--http", "127.0.0.1:0", "--mode", "neither"], &["--current-thread", "--multi-thread"]]
    {
        let out = Command::new(ECHO).args(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("usage: echo-server"), "{args:?}: {err}");
    }
}
