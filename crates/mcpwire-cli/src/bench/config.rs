//! What `mcpwire bench` measures and how: the target, the era, the driver and the
//! workloads of one run ([`BenchConfig`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The 2025 revision the raw drivers speak.
pub const V2025: &str = "2025-11-25";
/// The 2026 revision the raw drivers speak.
pub const V2026: &str = "2026-07-28";

/// What to measure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// A server started as a child process, spoken to over its stdin and stdout.
    Stdio {
        /// The program and its arguments.
        command: Vec<String>,
    },
    /// A Streamable HTTP endpoint (`http://host:port/path`), already running.
    Http {
        /// The endpoint URL.
        url: String,
    },
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Stdio { command } => write!(f, "stdio: {}", command.join(" ")),
            Target::Http { url } => write!(f, "http: {url}"),
        }
    }
}

/// The protocol era the client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Protocol {
    /// 2025-11-25: `initialize` first; over HTTP a session if the server gives one, and
    /// whatever response form it picks (JSON or SSE).
    #[serde(rename = "2025-11-25")]
    V2025,
    /// 2026-07-28: no handshake, every request carries the `_meta` envelope (and over HTTP
    /// the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers).
    #[serde(rename = "2026-07-28")]
    V2026,
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::V2025 => V2025,
            Protocol::V2026 => V2026,
        })
    }
}

/// The measuring client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Driver {
    /// Hand-built JSON-RPC on blocking pipes or a minimal HTTP/1.1 client (the default).
    #[default]
    Raw,
    /// mcpwire's own [`Client`](mcpwire::client::Client).
    Sdk,
}

/// One measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    /// `calls` calls one after another on one connection: latency.
    Sequential {
        /// How many calls are measured.
        calls: u64,
    },
    /// Stdio only: `calls` calls with `in_flight` requests outstanding at all times.
    Pipelined {
        /// Requests kept in flight.
        in_flight: usize,
        /// How many calls are measured.
        calls: u64,
    },
    /// HTTP only: `clients` connections (each its own session in 2025) calling in a loop
    /// for `seconds` (after a warm-up of a quarter of that, at most 1 s).
    Concurrent {
        /// Concurrent clients.
        clients: usize,
        /// Measured duration.
        seconds: f64,
    },
    /// Stdio only, raw driver: spawn the server `runs` times and time the first response.
    Startup {
        /// How many spawns.
        runs: u32,
    },
    /// HTTP 2025 only, raw driver, needs [`BenchConfig::server_pid`]: open `sessions`
    /// sessions (`initialize` + `initialized`, connection closed) and divide the server's
    /// RSS growth by their number.
    IdleSessions {
        /// How many sessions are measured (after 100 warm-up sessions).
        sessions: usize,
    },
}

impl std::fmt::Display for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Workload::Sequential { calls } => write!(f, "sequential n={calls}"),
            Workload::Pipelined { in_flight, calls } => write!(f, "pipelined k={in_flight} n={calls}"),
            Workload::Concurrent { clients, seconds } => write!(f, "concurrent c={clients} t={seconds}s"),
            Workload::Startup { runs } => write!(f, "startup runs={runs}"),
            Workload::IdleSessions { sessions } => write!(f, "idle sessions n={sessions}"),
        }
    }
}

/// What [`run`](super::run::run) measures and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchConfig {
    /// A name for the report (for example `mcpwire` or `rmcp`).
    pub label: String,
    /// The server.
    pub target: Target,
    /// The era the client speaks.
    pub protocol: Protocol,
    /// The measuring client.
    pub driver: Driver,
    /// What to measure, in order.
    pub workloads: Vec<Workload>,
    /// The `text` argument of every call.
    pub text: String,
    /// Unmeasured calls before each sequential or pipelined measurement.
    pub warmup_calls: u64,
    /// The HTTP server's process id, for its CPU time and memory (stdio servers are the
    /// bench's own children, so their pid is known).
    pub server_pid: Option<u32>,
    /// A run taking longer than this is abandoned (its child killed): a bound on every loop.
    pub timeout: Duration,
    /// Draw a progress bar on stderr while a workload runs (only ever on a terminal).
    #[serde(default)]
    pub progress: bool,
    /// Every request carries `_meta.progressToken` (raw drivers only).
    #[serde(default)]
    pub progress_token: bool,
    /// Send the mix of `tools/list`, `tools/call`, `resources/read` and `prompts/get`
    /// ([`CallOptions::mix`](super::wire::CallOptions::mix)) instead of echo calls only (raw drivers only).
    #[serde(default)]
    pub mix: bool,
    /// Call this tool instead of `echo {text}` (both drivers).
    #[serde(default)]
    pub tool: Option<ToolCall>,
    /// Let a spawned server's stderr through to this process's (else it is discarded).
    #[serde(default = "yes")]
    pub server_stderr: bool,
}

fn yes() -> bool {
    true
}

/// A tool and its arguments, called in place of `echo`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments.
    pub arguments: serde_json::Map<String, serde_json::Value>,
}

impl BenchConfig {
    /// A configuration with defaults: raw driver, 2025 era, text `"hello"`, 200 warm-up
    /// calls, a 120 s bound per workload, and no workloads yet.
    pub fn new(label: impl Into<String>, target: Target) -> Self {
        BenchConfig {
            label: label.into(),
            target,
            protocol: Protocol::V2025,
            driver: Driver::Raw,
            workloads: Vec::new(),
            text: "hello".into(),
            warmup_calls: 200,
            server_pid: None,
            timeout: Duration::from_secs(120),
            progress: false,
            progress_token: false,
            mix: false,
            tool: None,
            server_stderr: true,
        }
    }
}

/// The warm-up before a timed run of `seconds` ([`Workload::Concurrent`]): a quarter of
/// it, at most 1 s.
pub(crate) fn warmup_for(seconds: f64) -> Duration {
    Duration::from_secs_f64((seconds / 4.0).clamp(0.0, 1.0))
}
