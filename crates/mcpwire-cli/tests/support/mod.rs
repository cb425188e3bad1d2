//! What the real-peer tests share: the installed peers (npm and PyPI servers, Node 22,
//! the Python SDK), found through `scripts/install-peers.sh` as the conformance script
//! finds them, and running `mcpwire` with a deadline.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{mpsc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

// The mcpwire crate's tests' scratch directories serve these tests too.
#[path = "../../../mcpwire/tests/scratch/mod.rs"]
mod scratch;
#[allow(unused_imports)] // not every test binary makes one
pub use scratch::Scratch;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mcpwire");

/// Waits (20 s at most) until something listens on `port` of 127.0.0.1: a server just
/// spawned starts as fast as the machine lets it, which no fixed sleep can promise.
pub fn wait_for_port(port: u16, what: &str) {
    let end = Instant::now() + Duration::from_secs(20);
    // A probe the kernel happened to give the probed port as its own source port
    // connects to itself while nothing listens: not the server.
    while !std::net::TcpStream::connect(("127.0.0.1", port))
        .is_ok_and(|s| s.local_addr().ok() != s.peer_addr().ok())
    {
        assert!(Instant::now() < end, "{what} did not listen on {port}");
        thread::sleep(Duration::from_millis(50));
    }
}

/// A child process killed and reaped when dropped (a failed assertion included), so that
/// no test leaves it running.
pub struct Reaped(pub Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The exports of `<tools>/env.sh` after `scripts/install-peers.sh` (idempotent: quick
/// when everything is there) ran once for this test binary.
pub fn peers() -> &'static HashMap<String, String> {
    static PEERS: OnceLock<HashMap<String, String>> = OnceLock::new();
    PEERS.get_or_init(|| {
        let root = workspace();
        let tools = std::env::var_os("MCPWIRE_TOOLS_DIR").map_or_else(|| root.join(".tools"), PathBuf::from);
        let installed =
            Command::new(root.join("scripts/install-peers.sh")).output().expect("install-peers.sh runs");
        assert!(
            installed.status.success(),
            "scripts/install-peers.sh failed:\n{}{}",
            String::from_utf8_lossy(&installed.stdout),
            String::from_utf8_lossy(&installed.stderr)
        );
        let text = std::fs::read_to_string(tools.join("env.sh")).expect("install-peers.sh writes env.sh");
        text.lines()
            .filter_map(|l| l.strip_prefix("export "))
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.trim_matches('"').to_owned()))
            .collect()
    })
}

/// One export of `env.sh`.
pub fn peer(name: &str) -> String {
    peers().get(name).unwrap_or_else(|| panic!("env.sh exports no {name}")).clone()
}

/// A stdio target running one of the npm servers (`SERVER_EVERYTHING_JS`, ...) on Node 22.
pub fn node_server(js: &str, args: &str) -> String {
    format!("stdio:'{}' '{}' {args}", peer("NODE22"), peer(js))
}

/// A stdio target running a console script of the peers' Python venv.
pub fn python_script(name: &str, args: &str) -> String {
    format!("stdio:'{}/{name}' {args}", peer("PY_BIN"))
}

/// Runs `mcpwire ARGS` with stdin closed, within `deadline`.
pub fn mcpwire(args: &[&str], deadline: Duration) -> Output {
    wait(spawn(args), deadline)
}

/// Spawns `mcpwire ARGS` with stdin closed and stdout and stderr piped.
pub fn spawn(args: &[&str]) -> Child {
    Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mcpwire binary runs")
}

/// Waits for a child's output; kills it (by its own pid) past the deadline.
pub fn wait(mut child: Child, deadline: Duration) -> Output {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stdout.read_to_end(&mut b);
        b
    });
    let err = thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stderr.read_to_end(&mut b);
        b
    });
    thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = match rx.recv_timeout(deadline) {
        Ok(status) => status.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            panic!("pid {pid} did not finish within {deadline:?}");
        }
    };
    Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

/// stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts the exit code, showing the output when it differs; never a panic.
pub fn expect_code(o: &Output, code: i32) {
    assert_eq!(o.status.code(), Some(code), "stdout:\n{}\nstderr:\n{}", stdout(o), stderr(o));
    let err = stderr(o);
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "a panic:\n{err}");
}

/// Reads `child`'s stderr lines on a thread; returns a receiver of lines.
pub fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// A running `mcpwire` that serves HTTP (`serve --http`, `proxy --listen`); killed
/// (by its own pid) when dropped.
pub struct Running {
    /// The process.
    pub child: Child,
    /// Its endpoint.
    pub url: String,
    /// Its stderr lines so far and to come.
    pub lines: mpsc::Receiver<String>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-INT", &self.child.id().to_string()]).status();
        let end = Instant::now() + Duration::from_secs(10);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `mcpwire ARGS` and waits for the `http://...` URL it prints on stderr.
pub fn start_http(args: &[&str]) -> Running {
    let mut child = spawn(args);
    let lines = stderr_lines(&mut child);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(line) = lines.recv_timeout(Duration::from_millis(100)) {
            if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                let url = url.to_owned();
                return Running { child, url, lines };
            }
            seen.push(line);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("no URL on stderr of mcpwire {args:?}; saw:\n{}", seen.join("\n"));
}

/// The raw results a stdio server sends for `requests` (method and params) after a
/// 2025-11-25 handshake that declares what mcpwire's CLI declares (elicitation, and
/// elicitation run as a task), read straight off its stdout: the wire order of its keys,
/// to compare with what `mcpwire --json` prints.
pub fn raw_answers(
    program: &str,
    args: &[&str],
    requests: &[(&str, serde_json::Value)],
) -> Vec<serde_json::Value> {
    use std::io::Write;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut send = |text: String| {
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    let answer = |id: usize| -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            let message: serde_json::Value = serde_json::from_str(&line).unwrap();
            if message.get("id") == Some(&serde_json::json!(id)) && message.get("method").is_none() {
                return message.get("result").cloned().unwrap_or_else(|| panic!("an error: {message}"));
            }
        }
        panic!("no answer to request {id}");
    };
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {},
            "tasks": {"list": {}, "cancel": {}, "requests": {"elicitation": {"create": {}}}}},
        "clientInfo": {"name": "raw", "version": "1"}}})
        .to_string(),
    );
    let mut results = vec![answer(0)];
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned());
    for (i, (method, params)) in requests.iter().enumerate() {
        let id = i + 1;
        send(serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        results.push(answer(id));
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    results
}

/// Posts one JSON-RPC message over HTTP/1.1 and returns the raw response (status line,
/// headers, body) once `until` shows up in it, or (`None`) when the connection closes.
pub fn post(url: &str, headers: &[(&str, &str)], body: &str, until: Option<&str>) -> String {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    std::io::Write::write_all(&mut stream, request.as_bytes()).unwrap();
    let mut response = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                response.extend_from_slice(&chunk[..n]);
                if until.is_some_and(|u| String::from_utf8_lossy(&response).contains(u)) {
                    break;
                }
            }
        }
    }
    String::from_utf8_lossy(&response).into_owned()
}

/// The everything server as a stdio target.
pub fn everything() -> String {
    format!("stdio:'{BIN}' serve --example everything")
}

/// A 2025-11-25 `initialize` body that declares no client capabilities.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// A 2026 `tools/list` to `url`, read until the everything server's tools show.
pub fn tools_list_2026(url: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    post(
        url,
        &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list")],
        body,
        Some("test_error_handling"),
    )
}

/// Waits for a stderr line containing `needle`; returns it and everything before it.
pub fn wait_for_line(lines: &mpsc::Receiver<String>, needle: &str, seen: &mut Vec<String>) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(line) = lines.recv_timeout(Duration::from_millis(100)) {
            seen.push(line.clone());
            if line.contains(needle) {
                return line;
            }
        }
    }
    panic!("no stderr line with {needle:?}; saw:\n{}", seen.join("\n"));
}

/// Sends SIGINT to one process (never a group).
pub fn interrupt(child: &Child) {
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

/// Waits up to `deadline` for `child` to exit; its exit code.
pub fn wait_status(child: &mut Child, deadline: Duration) -> Option<i32> {
    let end = Instant::now() + deadline;
    while Instant::now() < end {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("pid {} did not exit within {deadline:?}", child.id());
}

/// The `mcp-session-id` header of a raw HTTP response (see [`post`]).
pub fn session_id(response: &str) -> String {
    response.lines().find_map(|l| l.strip_prefix("mcp-session-id: ")).expect("a session id").trim().to_owned()
}

/// The pids of `parent`'s children, oldest first.
pub fn children_of(parent: u32) -> Vec<u32> {
    let mut children: Vec<(u64, u32)> = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{parent}/task")).unwrap().flatten() {
        let listed = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for pid in listed.split_whitespace().filter_map(|p| p.parse::<u32>().ok()) {
            // Field 22 of /proc/PID/stat is the start time (after the command's parentheses).
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
            let started = after.split_whitespace().nth(19).and_then(|t| t.parse().ok()).unwrap_or(0);
            children.push((started, pid));
        }
    }
    children.sort();
    children.into_iter().map(|(_, pid)| pid).collect()
}

/// Whether `pid` has ended (gone, or a zombie nobody reaped yet).
pub fn ended(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(')').is_none_or(|(_, rest)| rest.trim_start().starts_with('Z'))
}

/// Waits (up to `within`) for `pid` to end; fails the test naming `what` otherwise.
pub fn assert_ends(pid: u32, within: Duration, what: &str) {
    let end = Instant::now() + within;
    while !ended(pid) {
        assert!(Instant::now() < end, "{what} ({pid}) is still running");
        thread::sleep(Duration::from_millis(50));
    }
}

/// The processes of process group `group` (gone ones and zombies left out).
pub fn group_members(group: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // After the command's parentheses: state, ppid, pgrp.
        let fields: Vec<&str> =
            stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == group.to_string() {
            members.push(pid);
        }
    }
    members
}
