//! The options of `mcpwire bench` (flattened into the CLI's `Bench` command; the CLI's
//! own `--json` picks the output) and the printing of a run's report.
//!
//! ```text
//! mcpwire bench [OPTIONS] TARGET...
//!   TARGET: an http:// URL, or a command (and its arguments, after `--`) to spawn over stdio
//! ```

use std::process::ExitCode;
use std::time::Duration;

use mcpwire_examples::echo::payload_text;

use super::config::{BenchConfig, Driver, Protocol, Target, Workload};

/// What to measure and how (the output format is the CLI's `--json`).
#[derive(Debug, Clone, clap::Args)]
pub struct BenchOptions {
    /// An `http://host:port/path` URL, or a command to spawn over stdio (put its own
    /// flags after `--`).
    #[arg(required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
    pub target: Vec<String>,
    /// A name for the report.
    #[arg(long, default_value = "target")]
    pub label: String,
    /// The protocol era: 2025 (`initialize`, sessions over HTTP) or 2026 (stateless).
    #[arg(long, default_value = "2025", value_parser = ["2025", "2026"])]
    pub era: String,
    /// The measuring client: `raw` (lean JSON-RPC driver) or `sdk` (mcpwire's Client).
    #[arg(long, default_value = "raw", value_parser = ["raw", "sdk"])]
    pub driver: String,
    /// Sequential calls measured (0 skips the sequential run).
    #[arg(long, default_value_t = 5000)]
    pub calls: u64,
    /// Stdio: pipelined calls measured (0 skips).
    #[arg(long, default_value_t = 50_000)]
    pub pipelined_calls: u64,
    /// Stdio: requests in flight in the pipelined run.
    #[arg(long, default_value_t = 32)]
    pub in_flight: usize,
    /// HTTP: concurrent clients (0 skips the concurrent run).
    #[arg(long, default_value_t = 32)]
    pub clients: usize,
    /// HTTP: seconds of the concurrent run.
    #[arg(long, default_value_t = 5.0)]
    pub seconds: f64,
    /// Stdio: spawns timed for spawn-to-first-response (0 skips).
    #[arg(long, default_value_t = 10)]
    pub startup_runs: u32,
    /// HTTP 2025: idle sessions opened to measure memory per session (0 skips; needs
    /// `--server-pid`).
    #[arg(long, default_value_t = 0)]
    pub sessions: usize,
    /// The HTTP server's pid, for its CPU time and memory.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// The `text` argument of every call.
    #[arg(long, default_value = "hello", conflicts_with = "payload_bytes")]
    pub text: String,
    /// A `text` argument of this many bytes (ASCII words) instead of `--text`.
    #[arg(long)]
    pub payload_bytes: Option<usize>,
    /// Every request carries `_meta.progressToken` (raw driver).
    #[arg(long)]
    pub progress_token: bool,
    /// Cycle through `tools/list`, `tools/call echo`, `resources/read bench://text-100k`
    /// and `prompts/get echo-prompt` instead of echo calls only (raw driver; the server
    /// needs that resource and prompt, as `echo-server` has).
    #[arg(long)]
    pub mix: bool,
    /// Unmeasured calls before each measured run.
    #[arg(long, default_value_t = 200)]
    pub warmup: u64,
    /// Abandon a workload after this many seconds.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    /// No progress bar (it is only drawn when stderr is a terminal anyway).
    #[arg(long)]
    pub no_progress: bool,
}

impl BenchOptions {
    /// The configuration these arguments describe.
    pub fn config(&self) -> BenchConfig {
        let target = match self.target.as_slice() {
            [url] if url.starts_with("http://") || url.starts_with("https://") => {
                Target::Http { url: url.clone() }
            }
            command => Target::Stdio { command: command.to_vec() },
        };
        let stdio = matches!(target, Target::Stdio { .. });
        let mut config = BenchConfig::new(self.label.clone(), target);
        config.protocol = if self.era == "2026" { Protocol::V2026 } else { Protocol::V2025 };
        config.driver = if self.driver == "sdk" { Driver::Sdk } else { Driver::Raw };
        config.text = match self.payload_bytes {
            Some(bytes) => payload_text(bytes),
            None => self.text.clone(),
        };
        config.progress_token = self.progress_token;
        config.mix = self.mix;
        config.warmup_calls = self.warmup;
        config.server_pid = self.server_pid;
        config.timeout = Duration::from_secs(self.timeout.max(1));
        config.progress = !self.no_progress;
        if self.calls > 0 {
            config.workloads.push(Workload::Sequential { calls: self.calls });
        }
        if stdio {
            if self.pipelined_calls > 0 {
                config.workloads.push(Workload::Pipelined {
                    in_flight: self.in_flight.max(1),
                    calls: self.pipelined_calls,
                });
            }
            if self.startup_runs > 0 && config.driver == Driver::Raw {
                config.workloads.push(Workload::Startup { runs: self.startup_runs });
            }
        } else {
            if self.clients > 0 {
                config.workloads.push(Workload::Concurrent { clients: self.clients, seconds: self.seconds });
            }
            if self.sessions > 0 {
                config.workloads.push(Workload::IdleSessions { sessions: self.sessions });
            }
        }
        config
    }
}

/// Runs the bench `config` describes and prints the report on stdout: JSON if `json`,
/// else the summary table. Failures go to stderr.
pub async fn run_config(config: BenchConfig, json: bool) -> ExitCode {
    match super::run::run(config).await {
        Ok(report) => {
            let text = if json {
                match serde_json::to_string_pretty(&report) {
                    Ok(text) => text + "\n",
                    Err(e) => {
                        eprintln!("mcpwire bench: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            } else {
                report.table()
            };
            print_stdout(&text)
        }
        Err(e) => {
            eprintln!("mcpwire bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the report; a reader that went away (`| head`) is no failure.
fn print_stdout(text: &str) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcpwire bench: cannot write the report: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    #![allow(clippy::unwrap_used)]
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    /// The options of `mcpwire ARGS`, which must be a bench command.
    pub(in crate::bench) fn parse(args: &[&str]) -> BenchOptions {
        let cli = Cli::parse_from(std::iter::once("mcpwire").chain(args.iter().copied()));
        match cli.command {
            Command::Bench(bench) => bench.options,
            _ => panic!("not a bench command: {args:?}"),
        }
    }

    #[test]
    fn http_and_stdio_targets() {
        let c = parse(&["bench", "--era", "2026", "http://127.0.0.1:1/mcp"]).config();
        assert_eq!(c.target, Target::Http { url: "http://127.0.0.1:1/mcp".into() });
        assert_eq!(c.protocol, Protocol::V2026);
        assert!(c.workloads.iter().any(|w| matches!(w, Workload::Concurrent { clients: 32, .. })));
        let c = parse(&["--json", "bench", "--", "echo-server", "--stdio"]).config();
        assert_eq!(c.target, Target::Stdio { command: vec!["echo-server".into(), "--stdio".into()] });
        assert!(c.workloads.iter().any(|w| matches!(w, Workload::Pipelined { in_flight: 32, .. })));
        assert!(!c.mix && !c.progress_token);
        assert_eq!(c.text, "hello");
        let c = parse(&["bench", "--payload-bytes", "4096", "--progress-token", "--mix", "x"]).config();
        assert!(c.mix && c.progress_token);
        assert_eq!(c.text.len(), 4096);
    }
}
