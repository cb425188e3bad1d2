//! What the hostile-input suites share: the fixture server, a way to run it in a child
//! process (the test binary itself, re-entered through the `child_entry` test), raw pipes
//! and sockets, and resident-memory readings from `/proc`.
//!
//! Included with `#[path]` by `hostile_stdio.rs`, the `hostile_http_*.rs` files and the
//! other tests of the fixture server over HTTP; built alone it checks that the fixture
//! answers in memory.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpwire::server::{resource_template, tool, Args, Ctx, ResourceRequest, Server, State};
use mcpwire::McpError;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// Handler counters, shared by the tools of one fixture server.
#[derive(Default, Debug)]
pub struct Stats {
    /// `hang` and `sleep` calls started.
    pub started: AtomicUsize,
    /// Handler futures dropped before they finished (cancelled).
    pub dropped: AtomicUsize,
    /// `sleep` calls that ran to the end.
    pub finished: AtomicUsize,
    /// `hang` calls whose cancellation token (`Ctx::cancellation`) fired.
    pub cancelled: AtomicUsize,
}

/// Counts the firing of a handler's cancellation token from a task of its own, so it is
/// seen even when the dispatcher drops the handler's future at the same moment. The
/// watcher gives up after two minutes (no test waits that long).
fn watch_cancellation(ctx: &Ctx, stats: Arc<Stats>) {
    let token = ctx.cancellation().clone();
    tokio::spawn(async move {
        tokio::select! {
            _ = token.cancelled() => {
                stats.cancelled.fetch_add(1, Ordering::SeqCst);
            }
            _ = tokio::time::sleep(Duration::from_secs(120)) => {}
        }
    });
}

struct DropCount(Arc<Stats>, bool);

impl Drop for DropCount {
    fn drop(&mut self) {
        if !self.1 {
            self.0.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Ms {
    ms: u64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Count {
    n: usize,
    /// Bytes of padding per progress message.
    pad: Option<usize>,
}

/// `VmRSS` and `VmHWM` (peak) of this process, in KiB.
pub fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The fixture server: tools that echo, sleep, hang, panic, flood and publish changes;
/// `test/stats` and `test/memory` report its counters and its resident memory.
pub fn fixture_server() -> (Server, Arc<Stats>) {
    let stats = Arc::new(Stats::default());
    let server = Server::builder("hostile-fixture", "0")
        .state(stats.clone())
        .tool(
            tool("echo")
                .handler(|Args(a): Args<serde_json::Map<String, Value>>| Value::Object(a).to_string()),
        )
        .tool(tool("sleep").handler(|State(stats): State<Arc<Stats>>, Args(a): Args<Ms>| async move {
            stats.started.fetch_add(1, Ordering::SeqCst);
            let mut guard = DropCount(stats.clone(), false);
            tokio::time::sleep(Duration::from_millis(a.ms)).await;
            guard.1 = true;
            stats.finished.fetch_add(1, Ordering::SeqCst);
            "slept"
        }))
        .tool(tool("hang").handler(|ctx: Ctx, State(stats): State<Arc<Stats>>| async move {
            watch_cancellation(&ctx, stats.clone());
            stats.started.fetch_add(1, Ordering::SeqCst);
            let _guard = DropCount(stats.clone(), false);
            std::future::pending::<()>().await;
            "unreachable"
        }))
        .tool(tool("panic").handler(|| -> String { panic!("the panic tool panics") }))
        .tool(tool("progress").handler(
            |ctx: Ctx, State(stats): State<Arc<Stats>>, Args(a): Args<Count>| async move {
                stats.started.fetch_add(1, Ordering::SeqCst);
                let mut guard = DropCount(stats.clone(), false);
                let pad = "p".repeat(a.pad.unwrap_or(0));
                for i in 0..a.n {
                    ctx.progress(i as f64, Some(a.n as f64), Some(&pad)).await;
                }
                guard.1 = true;
                stats.finished.fetch_add(1, Ordering::SeqCst);
                "done"
            },
        ))
        .tool(tool("publish").handler(|ctx: Ctx, Args(a): Args<Count>| {
            for _ in 0..a.n {
                ctx.notify_tools_changed();
            }
            "published"
        }))
        .tool(tool("big").handler(|Args(a): Args<Count>| "x".repeat(a.n)))
        .tool(
            tool("region")
                .input_schema(json!({ "type": "object", "properties": {
                    "region": { "type": "string", "x-mcp-header": "Region" }
                } }))
                .handler(|Args(a): Args<Value>| format!("region {}", a["region"])),
        )
        .resource_template(
            resource_template("test://item/{id}", "item")
                .handler(|r: ResourceRequest| async move { r.var("id").unwrap_or_default().to_owned() }),
        )
        .method("test/stats", |ctx: Ctx, _| async move {
            let stats = ctx.state::<Arc<Stats>>().cloned().unwrap_or_default();
            Ok::<_, McpError>(json!({
                "started": stats.started.load(Ordering::SeqCst),
                "dropped": stats.dropped.load(Ordering::SeqCst),
                "finished": stats.finished.load(Ordering::SeqCst),
                "cancelled": stats.cancelled.load(Ordering::SeqCst),
            }))
        })
        .method("test/memory", |_, _| async move {
            let (rss, hwm) = memory_kib();
            Ok::<_, McpError>(json!({ "rssKib": rss, "hwmKib": hwm }))
        })
        .build()
        .expect("the fixture server builds");
    (server, stats)
}

/// The environment variable that turns the `child_entry` test into a server.
pub const CHILD_MODE: &str = "MCPWIRE_HOSTILE_CHILD";
/// The environment variable that sets a stdio child's line limit (`serve_stdio_with`).
pub const MAX_LINE: &str = "MCPWIRE_HOSTILE_MAX_LINE";
/// The line a child server writes to stdout once it is ready (after libtest's header).
pub const READY: &str = "MCPWIRE-HOSTILE-READY";

/// The entry point of a child server: with `MCPWIRE_HOSTILE_CHILD=stdio` it serves the
/// fixture on stdin/stdout; with `http` (and `MCPWIRE_HOSTILE_ADDR`, default port 0) it
/// serves it at `/mcp`, prints `READY <addr>` and runs until stdin closes. Without the
/// variable it is an ordinary test: the fixture answers in memory.
#[test]
fn child_entry() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    match std::env::var(CHILD_MODE).as_deref() {
        Ok("stdio") => rt.block_on(async {
            let (server, _) = fixture_server();
            let mut out = tokio::io::stdout();
            out.write_all(format!("{READY}\n").as_bytes()).await.unwrap();
            out.flush().await.unwrap();
            // `MCPWIRE_HOSTILE_MAX_LINE` bounds stdin lines through `serve_stdio_with`.
            match std::env::var(MAX_LINE).ok().and_then(|v| v.parse().ok()) {
                Some(max_line_bytes) => {
                    let limits = mcpwire::server::StdioLimits { max_line_bytes, ..Default::default() };
                    server.serve_stdio_with(limits).await
                }
                None => server.serve_stdio().await,
            }
            // Exit here, so libtest writes nothing more on stdout.
            std::process::exit(0);
        }),
        Ok("http") => rt.block_on(async {
            let (server, _) = fixture_server();
            let addr = std::env::var("MCPWIRE_HOSTILE_ADDR").unwrap_or_else(|_| "127.0.0.1:0".into());
            let service = mcpwire::http::McpService::new(server);
            let bound = mcpwire::http::serve_with_shutdown(service, addr, "/mcp").await.unwrap();
            let mut out = tokio::io::stdout();
            out.write_all(format!("{READY} {}\n", bound.local_addr).as_bytes()).await.unwrap();
            out.flush().await.unwrap();
            // Until the parent closes our stdin (or kills us).
            let mut sink = Vec::new();
            let _ = tokio::io::stdin().read_to_end(&mut sink).await;
            bound.shutdown.cancel();
            let _ = bound.task.await;
            std::process::exit(0);
        }),
        _ => rt.block_on(async {
            let (server, _) = fixture_server();
            let (a, b) = mcpwire::transport::memory::pair();
            tokio::spawn(async move { server.serve(b).await });
            let client = mcpwire::client::Client::builder("t", "0").connect(a).await.unwrap();
            let stats = client.send_request("test/stats", json!({}), Default::default()).await.unwrap();
            assert_eq!(stats["started"], 0);
            client.close().await;
        }),
    }
}

/// A child process running the fixture: its pipes, raw.
pub struct ChildServer {
    /// The process.
    pub child: Child,
    /// Its stdin, until closed.
    pub stdin: Option<ChildStdin>,
    /// Its stdout.
    pub stdout: BufReader<ChildStdout>,
    /// The HTTP address, in HTTP mode.
    pub addr: Option<String>,
}

/// The libtest filter that reaches `child_entry` from the binary that includes this file.
fn entry_filter() -> &'static str {
    if module_path!().contains("::") {
        "fixture::child_entry"
    } else {
        "child_entry"
    }
}

impl ChildServer {
    /// Starts the fixture in a child process (`mode` is `stdio` or `http`).
    pub async fn start(mode: &str, envs: &[(&str, &str)]) -> ChildServer {
        let exe = std::env::current_exe().unwrap();
        let mut command = tokio::process::Command::new(exe);
        command
            .args(["--exact", entry_filter(), "--nocapture", "--test-threads=1"])
            .env(CHILD_MODE, mode)
            .env_remove("RUST_LOG")
            // Its panic tool's backtrace would load this debug binary's debug info: slow
            // enough on a busy machine to miss a test's deadline.
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        for (k, v) in envs {
            command.env(k, v);
        }
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut addr = None;
        let mut line = String::new();
        loop {
            line.clear();
            let n = tokio::time::timeout(Duration::from_secs(20), stdout.read_line(&mut line))
                .await
                .expect("the child server did not start")
                .unwrap();
            assert!(n > 0, "the child server exited before it was ready");
            // libtest writes `test <name> ... ` (no newline) before the test runs.
            if let Some(rest) = line.trim_end().split_once(READY).map(|(_, rest)| rest) {
                if !rest.trim().is_empty() {
                    addr = Some(rest.trim().to_owned());
                }
                break;
            }
        }
        ChildServer { child, stdin, stdout, addr }
    }

    /// Writes raw bytes to the child's stdin.
    pub async fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is closed");
        stdin.write_all(bytes).await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// Writes one JSON value as a line.
    pub async fn send(&mut self, value: Value) {
        let mut line = serde_json::to_vec(&value).unwrap();
        line.push(b'\n');
        self.write(&line).await;
    }

    /// Closes the child's stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// The next line the child writes, as JSON; `None` at EOF. Fails after `wait`.
    pub async fn line_within(&mut self, wait: Duration) -> Option<Value> {
        let mut line = String::new();
        let n = tokio::time::timeout(wait, self.stdout.read_line(&mut line))
            .await
            .unwrap_or_else(|_| panic!("no line within {wait:?}"))
            .unwrap();
        if n == 0 {
            return None;
        }
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
    }

    /// The next line, within 10 s.
    pub async fn line(&mut self) -> Value {
        self.line_within(Duration::from_secs(10)).await.expect("the child closed its stdout")
    }

    /// Asserts that nothing is written for `wait`.
    pub async fn silent_for(&mut self, wait: Duration) {
        let mut line = String::new();
        if let Ok(Ok(n)) = tokio::time::timeout(wait, self.stdout.read_line(&mut line)).await {
            assert!(n == 0, "expected no output, got {line}");
        }
    }

    /// Sends a request and returns the next line (which must answer it).
    pub async fn call(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        let answer = self.line().await;
        assert_eq!(answer["id"], id, "expected the answer to {id}, got {answer}");
        answer
    }

    /// Opens a 2025 session (initialize + initialized) over stdio.
    pub async fn initialize(&mut self) {
        let answer = self
            .call(
                json!("init"),
                "initialize",
                json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } }),
            )
            .await;
        assert_eq!(answer["result"]["protocolVersion"], "2025-11-25", "{answer}");
        self.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    }

    /// The child's `(VmRSS, VmHWM)` in KiB, asked over stdio (the session must be open).
    pub async fn memory(&mut self, id: &str) -> (u64, u64) {
        let answer = self.call(json!(id), "test/memory", json!({})).await;
        let r = &answer["result"];
        (r["rssKib"].as_u64().unwrap(), r["hwmKib"].as_u64().unwrap())
    }

    /// The child's pid.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("the child is running")
    }
}

/// `(VmRSS, VmHWM)` of another process, in KiB.
pub fn memory_of(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
