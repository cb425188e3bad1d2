//! The official Python SDK's OAuth client (`mcp` 2.x, `python_oauth_client.py`) against
//! the protected server and the test authorization server: it must find the metadata
//! from our challenge and documents, get a token for our resource and call a tool.
//!
//! The interpreter is `$MCPWIRE_PYTHON`, or else `<workspace>/.tools/venv/bin/python`
//! (`scripts/install-peers.sh`). Without one the test is skipped (it prints why), except
//! under `CI`, where it fails.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcpwire::auth::server::JwtVerifier;

use super::protect;
use super::test_as::TestAs;

fn python() -> Option<PathBuf> {
    let candidate = match std::env::var_os("MCPWIRE_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.tools/venv/bin/python"),
    };
    if candidate.exists() {
        return Some(candidate);
    }
    let why = format!("no Python interpreter with the MCP SDK at {}", candidate.display());
    assert!(std::env::var_os("CI").is_none(), "{why}");
    eprintln!("skipped: {why} (set MCPWIRE_PYTHON, or run scripts/install-peers.sh)");
    None
}

#[tokio::test]
async fn the_python_sdk_oauth_client_gets_a_token_and_calls_a_tool() {
    let Some(python) = python() else { return };
    let auth = TestAs::start().await;
    let issuer = auth.issuer.clone();
    let server = protect(&auth.issuer, |resource| JwtVerifier::from_issuer(issuer, resource)).await;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/auth_server/python_oauth_client.py");
    let child = tokio::process::Command::new(python)
        .arg(script)
        .arg(server.url())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the Python client did not finish within 60 s")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the Python client failed: {stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "alice", "{stderr}");
    assert_eq!(auth.tokens_issued.load(Ordering::SeqCst), 1);
}
