//! Runs a [`BenchConfig`]'s workloads one after another on the driver each needs.

use std::time::Duration;

use super::config::{warmup_for, BenchConfig, Driver, Target, Workload};
use super::report::{BenchError, BenchReport};
use super::{http_raw, progress, sdk, stdio_raw, sys};

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
        let counter = progress::CallCounter::default();
        let _bar =
            goal.map(|goal| progress::Bar::start(workload.to_string(), goal, config.progress, &counter));
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
            ) => stdio_raw::measure(command, config, workload, &counter)?,
            (
                Target::Stdio { command },
                Workload::Sequential { .. } | Workload::Pipelined { .. },
                Driver::Sdk,
            ) => sdk::measure_stdio(command, config, workload, &counter)?,
            (
                Target::Http { url },
                Workload::Sequential { .. } | Workload::Concurrent { .. },
                Driver::Raw,
            ) => http_raw::measure(url, config, workload, &counter)?,
            (
                Target::Http { url },
                Workload::Sequential { .. } | Workload::Concurrent { .. },
                Driver::Sdk,
            ) => sdk::measure_http(url, config, workload, &counter)?,
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
        if let Some(note) = outcome.note.filter(|n| !report.notes.contains(n)) {
            report.notes.push(note);
        }
        report.results.push(outcome.result);
    }
    if let (Target::Http { .. }, Some(pid)) = (&config.target, config.server_pid) {
        report.server_peak_rss_kib = sys::peak_rss_kib(pid);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::config::Protocol;

    #[test]
    fn a_server_that_does_not_answer_is_an_error_not_a_hang() {
        let mut config = BenchConfig::new("cat", Target::Stdio { command: vec!["/bin/cat".into()] });
        config.protocol = Protocol::V2026;
        config.timeout = Duration::from_secs(5);
        config.workloads = vec![Workload::Sequential { calls: 5 }];
        // `cat` sends the request back: its id with neither a result nor an error, which
        // fails the run (a server that said nothing would be killed at the timeout).
        let started = std::time::Instant::now();
        assert!(run_blocking(&config).is_err());
        assert!(started.elapsed() < Duration::from_secs(30));
    }
}
