//! What `mcpwire bench` measured ([`BenchReport`], as JSON or a table) and why a run
//! failed ([`BenchError`]).

use std::fmt::Write as _;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::config::{Driver, Protocol, Workload};
use super::stats::{self, Latency};
use super::sys;

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
    /// Minor page faults of the server process per call (when its pid is known): memory
    /// its allocator gave back and took again, paid in system time.
    #[serde(default)]
    pub server_minor_faults_per_call: Option<f64>,
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
            server_minor_faults_per_call: usage.server_minor_faults.map(|f| f as f64 / calls.max(1) as f64),
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

/// Everything [`run`](super::run::run) measured.
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
            "{:<30} {:>9} {:>11} {:>9} {:>9} {:>9} {:>10} {:>7} {:>9} {:>9} {:>9} {:>6}",
            "workload",
            "calls",
            "calls/s",
            "p50 us",
            "p90 us",
            "p99 us",
            "max us",
            "stalls",
            "srv us/c",
            "srv flt/c",
            "cli us/c",
            "errors"
        );
        for r in &self.results {
            let server = r.server_cpu_us_per_call.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
            let faults = r.server_minor_faults_per_call.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
            let _ = writeln!(
                out,
                "{:<30} {:>9} {:>11.0} {:>9.1} {:>9.1} {:>9.1} {:>10.1} {:>7} {:>9} {:>9} {:>8.2}{} {:>6}",
                r.workload,
                r.calls,
                r.calls_per_sec,
                r.latency.p50_us,
                r.latency.p90_us,
                r.latency.p99_us,
                r.latency.max_us,
                r.stalls_40ms,
                server,
                faults,
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

/// One measured workload and the server's peak RSS, when known.
pub(crate) struct Outcome {
    pub(crate) result: WorkloadResult,
    pub(crate) peak_rss_kib: Option<u64>,
    /// Something the report should say about the run (see `EchoCall::era_note`).
    pub(crate) note: Option<String>,
}

impl Outcome {
    pub(crate) fn new(
        workload: &Workload,
        samples: stats::Samples,
        errors: u64,
        usage: sys::Usage,
        peak_rss_kib: Option<u64>,
    ) -> Self {
        Outcome { result: WorkloadResult::new(workload, samples, errors, usage), peak_rss_kib, note: None }
    }

    /// The outcome with `note` to be reported.
    pub(crate) fn noting(self, note: Option<String>) -> Self {
        Outcome { note, ..self }
    }
}
