//! From the options of `mcpwire bench` ([`BenchOptions`], as clap parses them) to a run's
//! configuration, and the printing of its report (the CLI's `--json` picks the form).

use std::process::ExitCode;
use std::time::Duration;

use mcpwire_examples::echo::payload_text;

use super::config::{BenchConfig, Driver, Protocol, Target, Workload};
use crate::cli::BenchOptions;

impl BenchOptions {
    /// The configuration these options describe.
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
                        say!("mcpwire bench: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            } else {
                report.table()
            };
            print_stdout(&text)
        }
        Err(e) => {
            say!("mcpwire bench: {e}");
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
            say!("mcpwire bench: cannot write the report: {e}");
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
