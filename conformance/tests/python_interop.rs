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

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long one run of the script may take before it counts as a hang.
fn timeout() -> Duration {
    let secs = std::env::var("MCPWIRE_INTEROP_TIMEOUT_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(120);
    Duration::from_secs(secs)
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the conformance crate sits in the workspace")
        .to_path_buf()
}

/// The Python interpreter with the `mcp` SDK, or `None` (after printing why) when the
/// test should be skipped.
fn python() -> Option<PathBuf> {
    let candidate = match std::env::var_os("MCPWIRE_PYTHON") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => workspace_root().join(".tools/venv/bin/python"),
    };
    if candidate.is_file() {
        return Some(candidate);
    }
    let why = format!(
        "no Python interpreter with the MCP SDK at {} (set MCPWIRE_PYTHON, or run scripts/install-peers.sh)",
        candidate.display()
    );
    if std::env::var_os("CI").is_some() {
        panic!("{why}; CI must run the Python interop tests: run scripts/install-peers.sh first");
    }
    println!("skipped: {why}");
    None
}

/// Collects a child's pipe on a thread, as it arrives.
fn drain(mut pipe: impl Read + Send + 'static) -> (Arc<Mutex<Vec<u8>>>, thread::JoinHandle<()>) {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&buffer);
    let handle = thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut chunk) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&chunk[..n]);
        }
    });
    (buffer, handle)
}

/// What a pipe delivered, waiting a little for its end: the server the client started
/// inherits stderr and may hold it open for a moment after the client is gone.
fn collected((buffer, handle): (Arc<Mutex<Vec<u8>>>, thread::JoinHandle<()>), deadline: Instant) -> String {
    while !handle.is_finished() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    let bytes = buffer.lock().unwrap_or_else(|e| e.into_inner()).clone();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Kills the client. The server it started sees its stdin close and exits on its own.
fn kill_client(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn run_mode(mode: &str) {
    let Some(python) = python() else { return };
    let script = workspace_root().join("tests/peers/python/client_everything.py");
    let server = env!("CARGO_BIN_EXE_everything-server");
    let mut child = Command::new(&python)
        .arg(&script)
        .arg(mode)
        .arg(server)
        .arg("--stdio")
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
    let stdout = drain(child.stdout.take().expect("piped stdout"));
    let stderr = drain(child.stderr.take().expect("piped stderr"));

    let limit = timeout();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the Python client") {
            break Some(status);
        }
        if started.elapsed() > limit {
            kill_client(&mut child);
            break None;
        }
        thread::sleep(Duration::from_millis(50));
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    let stdout = collected(stdout, deadline);
    let stderr = collected(stderr, deadline);
    let output = format!(
        "--- command: {} {} {mode} {server} --stdio\n--- stdout:\n{stdout}\n--- stderr:\n{stderr}",
        python.display(),
        script.display()
    );
    match status {
        None => panic!("the Python client ({mode}) did not finish within {limit:?} (killed)\n{output}"),
        Some(status) if !status.success() => {
            panic!("the Python client ({mode}) failed with {status}\n{output}")
        }
        Some(_) => {
            // The summary line, visible with `--nocapture`.
            let summary = stdout.lines().rev().find(|l| l.starts_with("== mode=")).unwrap_or("(no summary)");
            println!("{summary}");
        }
    }
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
