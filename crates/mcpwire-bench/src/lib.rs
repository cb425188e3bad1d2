//! mcpwire-bench: measures an MCP server's `echo` tool over stdio or Streamable HTTP, in
//! either protocol era.
//!
//! - [`run`] takes a [`BenchConfig`] (a [`Target`], a [`Protocol`], a [`Driver`] and a list
//!   of [`Workload`]s) and returns a [`BenchReport`] (serializable to JSON, printable as a
//!   table with [`BenchReport::table`]).
//! - Two drivers: [`Driver::Raw`] writes hand-built JSON-RPC over blocking pipes (stdio)
//!   or a minimal HTTP/1.1 client on a current-thread runtime (HTTP), so the generator's
//!   own cost stays a small fraction of the server's; [`Driver::Sdk`] drives the same
//!   workloads through [`mcpwire::client::Client`]. Every result reports the client's CPU
//!   time per call and flags a run whose client used most of a core (`client_bound`).
//! - [`echo::server`] is the mcpwire server the `echo-server` binary serves.
//! - [`cli`] is the command line of the `mcpwire-bench` binary (and of `mcpwire bench`).
//!
//! The server must have a tool `echo` taking `{"text": string}` and answering one text
//! content with the same text; for the mix ([`BenchConfig::mix`]) also the resource
//! [`wire::MIX_RESOURCE_URI`] and the prompt [`wire::MIX_PROMPT`].

#![forbid(unsafe_code)]

pub mod cli;
pub mod echo;
mod http_raw;
pub mod progress;
mod sdk;
pub mod stats;
mod stdio_raw;
pub mod sys;
pub mod wire;

use std::fmt::Write as _;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use stats::Latency;

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
            Protocol::V2025 => wire::V2025,
            Protocol::V2026 => wire::V2026,
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

/// What [`run`] measures and how.
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
    /// ([`wire::CallOptions::mix`]) instead of echo calls only (raw drivers only).
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

    /// The requests the raw drivers send.
    pub fn requests(&self) -> wire::EchoCall {
        let options =
            wire::CallOptions { progress_token: self.progress_token, mix: self.mix, tool: self.tool.clone() };
        wire::EchoCall::with_options(self.protocol, &self.text, options)
    }
}

/// The result of one throughput or latency workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadResult {
    /// The workload, as text (`pipelined k=32 n=100000`).
    pub workload: String,
    /// Calls answered with a result in the measured window.
    pub calls: u64,
    /// Calls answered with an error (or not answered properly).
    pub errors: u64,
    /// Measured wall time, seconds.
    pub seconds: f64,
    /// Calls per second.
    pub calls_per_sec: f64,
    /// Per-call latency (for pipelined and concurrent runs: time in flight).
    pub latency: Latency,
    /// Calls of 40 ms or more.
    pub stalls_40ms: u64,
    /// CPU time of the client process per call, microseconds.
    pub client_cpu_us_per_call: f64,
    /// Client CPU time / wall time (1.0 = one full core).
    pub client_cpu_share: f64,
    /// CPU time of the server process per call, microseconds (when its pid is known).
    pub server_cpu_us_per_call: Option<f64>,
    /// Server CPU time / wall time.
    pub server_cpu_share: Option<f64>,
    /// The client used at least 90% of a core: the generator may be what limits the rate.
    pub client_bound: bool,
}

impl WorkloadResult {
    fn new(workload: &Workload, mut samples: stats::Samples, errors: u64, usage: sys::Usage) -> Self {
        let calls = samples.len() as u64;
        let secs = usage.wall.as_secs_f64().max(1e-9);
        let per_call = |d: Duration| if calls == 0 { 0.0 } else { d.as_secs_f64() * 1e6 / calls as f64 };
        let client_share = usage.client_cpu.as_secs_f64() / secs;
        WorkloadResult {
            workload: workload.to_string(),
            calls,
            errors,
            seconds: secs,
            calls_per_sec: calls as f64 / secs,
            stalls_40ms: samples.stalls(),
            latency: samples.latency(),
            client_cpu_us_per_call: per_call(usage.client_cpu),
            client_cpu_share: client_share,
            server_cpu_us_per_call: usage.server_cpu.map(per_call),
            server_cpu_share: usage.server_cpu.map(|d| d.as_secs_f64() / secs),
            client_bound: client_share >= 0.9,
        }
    }
}

/// Spawn-to-first-response times of a stdio server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartupResult {
    /// How many spawns.
    pub runs: u32,
    /// Median, milliseconds.
    pub median_ms: f64,
    /// Fastest, milliseconds.
    pub min_ms: f64,
    /// Slowest, milliseconds.
    pub max_ms: f64,
}

/// Memory of idle 2025 sessions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionMemory {
    /// Sessions measured.
    pub sessions: usize,
    /// Server RSS before them, KiB.
    pub rss_before_kib: u64,
    /// Server RSS after them, KiB.
    pub rss_after_kib: u64,
    /// (after - before) / sessions.
    pub kib_per_session: f64,
}

/// Everything [`run`] measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// The configuration's label.
    pub label: String,
    /// The target, as text.
    pub target: String,
    /// The era spoken.
    pub protocol: Protocol,
    /// The measuring client.
    pub driver: Driver,
    /// When the run started, seconds since the Unix epoch.
    pub started_unix: u64,
    /// The throughput and latency workloads, in order.
    pub results: Vec<WorkloadResult>,
    /// The startup workload's result.
    pub startup: Option<StartupResult>,
    /// The idle-sessions workload's result.
    pub sessions: Option<SessionMemory>,
    /// The largest peak RSS (VmHWM) seen of a stdio server child, KiB.
    pub server_peak_rss_kib: Option<u64>,
    /// Anything worth knowing (a skipped workload, a client-bound run).
    pub notes: Vec<String>,
}

impl BenchReport {
    /// The report as a plain-text table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ =
            writeln!(out, "# {}  ({}, {}, driver {:?})", self.label, self.target, self.protocol, self.driver);
        let _ = writeln!(
            out,
            "{:<30} {:>9} {:>11} {:>9} {:>9} {:>9} {:>10} {:>7} {:>9} {:>9} {:>6}",
            "workload",
            "calls",
            "calls/s",
            "p50 us",
            "p90 us",
            "p99 us",
            "max us",
            "stalls",
            "srv us/c",
            "cli us/c",
            "errors"
        );
        for r in &self.results {
            let server = r.server_cpu_us_per_call.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
            let _ = writeln!(
                out,
                "{:<30} {:>9} {:>11.0} {:>9.1} {:>9.1} {:>9.1} {:>10.1} {:>7} {:>9} {:>8.2}{} {:>6}",
                r.workload,
                r.calls,
                r.calls_per_sec,
                r.latency.p50_us,
                r.latency.p90_us,
                r.latency.p99_us,
                r.latency.max_us,
                r.stalls_40ms,
                server,
                r.client_cpu_us_per_call,
                if r.client_bound { "!" } else { " " },
                r.errors
            );
        }
        if let Some(s) = &self.startup {
            let _ = writeln!(
                out,
                "spawn to first response: median {:.2} ms, min {:.2} ms, max {:.2} ms ({} runs)",
                s.median_ms, s.min_ms, s.max_ms, s.runs
            );
        }
        if let Some(kib) = self.server_peak_rss_kib {
            let _ = writeln!(out, "server peak RSS: {kib} KiB ({:.2} MiB)", kib as f64 / 1024.0);
        }
        if let Some(m) = &self.sessions {
            let _ = writeln!(
                out,
                "idle 2025 sessions: {:.2} KiB each ({} sessions, RSS {} -> {} KiB)",
                m.kib_per_session, m.sessions, m.rss_before_kib, m.rss_after_kib
            );
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        out
    }
}

/// Why a run failed.
#[derive(Debug)]
pub enum BenchError {
    /// Spawning, connecting, reading or writing failed.
    Io(std::io::Error),
    /// The server answered something unexpected (the handshake or the echo check failed).
    Protocol(String),
    /// The workload does not fit the target (for example pipelining over HTTP).
    Unsupported(String),
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BenchError::Io(e) => write!(f, "I/O error: {e}"),
            BenchError::Protocol(m) => write!(f, "protocol error: {m}"),
            BenchError::Unsupported(m) => write!(f, "unsupported: {m}"),
        }
    }
}

impl std::error::Error for BenchError {}

impl From<std::io::Error> for BenchError {
    fn from(e: std::io::Error) -> Self {
        BenchError::Io(e)
    }
}

/// Runs every workload of `config` in order and reports them. The measuring work runs on
/// its own thread (with its own current-thread runtime where it needs one), so the
/// caller's runtime does not share the measurement.
pub async fn run(config: BenchConfig) -> Result<BenchReport, BenchError> {
    match tokio::task::spawn_blocking(move || run_blocking(&config)).await {
        Ok(result) => result,
        Err(e) => Err(BenchError::Protocol(format!("the bench thread failed: {e}"))),
    }
}

/// [`run`] on the calling thread (it must not be inside a tokio runtime).
pub fn run_blocking(config: &BenchConfig) -> Result<BenchReport, BenchError> {
    let started_unix =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let mut report = BenchReport {
        label: config.label.clone(),
        target: config.target.to_string(),
        protocol: config.protocol,
        driver: config.driver,
        started_unix,
        results: Vec::new(),
        startup: None,
        sessions: None,
        server_peak_rss_kib: None,
        notes: Vec::new(),
    };
    for workload in &config.workloads {
        let goal = match workload {
            Workload::Sequential { calls } | Workload::Pipelined { calls, .. } => {
                Some(progress::Goal::Calls(*calls))
            }
            Workload::Concurrent { seconds, .. } => {
                Some(progress::Goal::Time(Duration::from_secs_f64(seconds.max(0.0)) + warmup_for(*seconds)))
            }
            Workload::Startup { .. } | Workload::IdleSessions { .. } => None,
        };
        if config.driver == Driver::Sdk && (config.mix || config.progress_token) {
            return Err(BenchError::Unsupported(
                "the mix and progress tokens are sent by the raw driver only".into(),
            ));
        }
        let _bar = goal.map(|goal| progress::Bar::start(workload.to_string(), goal, config.progress));
        let outcome = match (&config.target, workload, config.driver) {
            (Target::Stdio { command }, Workload::Startup { runs }, _) => {
                report.startup = Some(stdio_raw::startup(command, config, *runs)?);
                continue;
            }
            (Target::Http { url }, Workload::IdleSessions { sessions }, _) => {
                report.sessions = Some(http_raw::idle_sessions(url, config, *sessions)?);
                continue;
            }
            (
                Target::Stdio { command },
                Workload::Sequential { .. } | Workload::Pipelined { .. },
                Driver::Raw,
            ) => stdio_raw::measure(command, config, workload)?,
            (
                Target::Stdio { command },
                Workload::Sequential { .. } | Workload::Pipelined { .. },
                Driver::Sdk,
            ) => sdk::measure_stdio(command, config, workload)?,
            (
                Target::Http { url },
                Workload::Sequential { .. } | Workload::Concurrent { .. },
                Driver::Raw,
            ) => http_raw::measure(url, config, workload)?,
            (
                Target::Http { url },
                Workload::Sequential { .. } | Workload::Concurrent { .. },
                Driver::Sdk,
            ) => sdk::measure_http(url, config, workload)?,
            (target, workload, _) => {
                report.notes.push(format!("skipped {workload}: not measured over {target}"));
                continue;
            }
        };
        if let Some(peak) = outcome.peak_rss_kib {
            report.server_peak_rss_kib = Some(report.server_peak_rss_kib.unwrap_or(0).max(peak));
        }
        if outcome.result.client_bound {
            report.notes.push(format!(
                "{}: the client used {:.0}% of a core; the rate may be client-bound",
                outcome.result.workload,
                outcome.result.client_cpu_share * 100.0
            ));
        }
        report.results.push(outcome.result);
    }
    if let (Target::Http { .. }, Some(pid)) = (&config.target, config.server_pid) {
        report.server_peak_rss_kib = sys::peak_rss_kib(pid);
    }
    Ok(report)
}

/// One measured workload and the server's peak RSS, when known.
pub(crate) struct Outcome {
    pub(crate) result: WorkloadResult,
    pub(crate) peak_rss_kib: Option<u64>,
}

impl Outcome {
    pub(crate) fn new(
        workload: &Workload,
        samples: stats::Samples,
        errors: u64,
        usage: sys::Usage,
        peak_rss_kib: Option<u64>,
    ) -> Self {
        Outcome { result: WorkloadResult::new(workload, samples, errors, usage), peak_rss_kib }
    }
}

/// Splits `seconds` into the warm-up and measured parts of a timed run.
pub(crate) fn warmup_for(seconds: f64) -> Duration {
    Duration::from_secs_f64((seconds / 4.0).clamp(0.0, 1.0))
}
