//! Interop: the official Python SDK client (`mcp` 2.x, installed by
//! `scripts/install-peers.sh`) drives our everything-server over real stdio pipes, in
//! both protocol eras. The checks live in `tests/peers/python/client_everything.py`;
//! this test runs it once per mode and asserts that it exits 0.
//!
//! The interpreter is `$MCPWIRE_PYTHON`, or else `<workspace>/.tools/venv/bin/python`.
//! Without one the test is skipped (it prints why), except under `CI`, where it fails.
//! A run that takes longer than 120 s (`$MCPWIRE_INTEROP_TIMEOUT_SECS` overrides) fails,
//! and the client is killed (the server it started then sees its stdin close).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::peers::{python, run_script, workspace_root};

fn run_mode(mode: &str) {
    let Some(python) = python() else { return };
    let mut command = Command::new(&python);
    command
        .arg(workspace_root().join("tests/peers/python/client_everything.py"))
        .arg(mode)
        .arg(env!("CARGO_BIN_EXE_everything-server"))
        .arg("--stdio")
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    run_script(&format!("the Python client ({mode})"), command, "== mode=");
}

/// The 2025-11-25 era: `initialize`, then real server-to-client requests.
#[test]
fn python_client_legacy_era() {
    run_mode("legacy");
}

/// The 2026-07-28 era: `server/discover`, per-request `_meta`, `input_required` rounds.
#[test]
fn python_client_stateless_era() {
    run_mode("auto");
}
