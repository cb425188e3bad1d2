//! The mcpwire client against real servers over real stdio pipes, in both protocol eras:
//! the official Python SDK (`mcp==2.3.0`, `tests/peers/python/server_fixture.py`) and our
//! own `everything-server --stdio`. Each check runs four times (server × era), as
//! `<check>::{python,rust}_{auto,2025}`: `auto` probes and lands in 2026-07-28, `2025` pins
//! 2025-11-25.
//!
//! Every server is started through `sh` (which `exec`s it, so the pid stays the
//! server's): the wrapper writes the pid to a scratch directory and sends the server's
//! stderr there. The pid lets the tests kill the everything-server mid-call and check that
//! `close()` leaves no process behind; the stderr log (`RUST_LOG=mcpwire=debug`) is how the
//! everything-server shows it saw a cancellation (the Python fixture has a `was_cancelled`
//! tool for that).
//!
//! The Python interpreter is `$MCPWIRE_PYTHON`, or else `<workspace>/.tools/venv/bin/python`
//! (`scripts/install-peers.sh`). Without one the Python half is skipped (it prints why),
//! except under `CI`, where it fails. Every test has an overall time limit.
//!
//! Beyond the matrix: a probe answered too late (`late_probe_answer_*`), log order on a
//! multi-threaded runtime against a scripted server, and a server that exits at once.
//!
//! The checks are split by topic: `calls` (handshake and every typed call), `callbacks`
//! (progress, logs, server-to-client requests, list changes), `lifecycle` (timeouts,
//! cancellation, crashes, close), `beyond` (the tests outside the matrix).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

mod beyond;
mod callbacks;
mod calls;
mod fixture;
mod lifecycle;
