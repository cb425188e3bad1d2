//! Interop with the TypeScript SDK v2 client (`@modelcontextprotocol/client` 2.4.0, the
//! TypeScript SDK's line for 2026-07-28): `tests/peers/node/client_v2.mjs` drives our
//! everything-server over Streamable HTTP (`everything-server --http`, loopback) and over
//! stdio (the client spawns `everything-server --stdio`), in the client's default
//! `legacy` mode (2025-11-25) and in `auto` mode, where it probes and picks 2026-07-28.
//!
//! Each test asserts that the script exits 0. Node and the SDK are found as
//! `http_interop.rs` says (`$MCPWIRE_NODE`, `$MCPWIRE_NODE_MODULES`, else `.tools`);
//! without them a test is skipped, except under `CI`, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::peers::{node_v2, run_script, workspace_root, EverythingHttp};

/// The script in `mode` against `target` (a URL, or the stdio server's command line).
fn run(mode: &str, transport: &str, target: &[&str]) {
    let Some((node, modules)) = node_v2() else { return };
    let mut command = Command::new(&node);
    command
        .arg(workspace_root().join("tests/peers/node/client_v2.mjs"))
        .arg(mode)
        .args(target)
        .env("NODE_MODULES", &modules);
    let label = format!("the TypeScript v2 client over {transport} ({mode})");
    run_script(&label, command, "== ts-v2");
}

fn over_http(mode: &str) {
    let server = EverythingHttp::start();
    run(mode, "HTTP", &[&server.url()]);
}

fn over_stdio(mode: &str) {
    run(mode, "stdio", &[env!("CARGO_BIN_EXE_everything-server"), "--stdio"]);
}

/// Tools, a tool error, an unknown tool, elicitation and sampling through the client's
/// handlers, progress, resources, templates, prompts, completion: 2025-11-25 over HTTP.
#[test]
fn typescript_v2_client_over_http_legacy_era() {
    over_http("legacy");
}

/// The same at 2026-07-28 over HTTP, the server's questions as `input_required` rounds.
#[test]
fn typescript_v2_client_over_http_modern_era() {
    over_http("auto");
}

/// The same at 2025-11-25 over stdio.
#[test]
fn typescript_v2_client_over_stdio_legacy_era() {
    over_stdio("legacy");
}

/// The same at 2026-07-28 over stdio.
#[test]
fn typescript_v2_client_over_stdio_modern_era() {
    over_stdio("auto");
}
