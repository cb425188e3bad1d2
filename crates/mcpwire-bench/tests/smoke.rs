//! The load generator against the real `echo-server`, tiny sizes: every driver, era and
//! transport answers without errors, and the report serializes and prints.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mcpwire_bench::{run, BenchConfig, Driver, Protocol, Target, Workload};

const ECHO: &str = env!("CARGO_BIN_EXE_echo-server");

fn stdio_config(protocol: Protocol, driver: Driver) -> BenchConfig {
    let mut c = BenchConfig::new("smoke", Target::Stdio { command: vec![ECHO.into(), "--stdio".into()] });
    c.protocol = protocol;
    c.driver = driver;
    c.warmup_calls = 10;
    c.timeout = Duration::from_secs(60);
    c.workloads = vec![Workload::Sequential { calls: 50 }, Workload::Pipelined { in_flight: 8, calls: 200 }];
    if driver == Driver::Raw {
        c.workloads.push(Workload::Startup { runs: 2 });
    }
    c
}

#[tokio::test]
async fn stdio_every_driver_and_era() {
    for driver in [Driver::Raw, Driver::Sdk] {
        for protocol in [Protocol::V2025, Protocol::V2026] {
            let report = run(stdio_config(protocol, driver)).await.unwrap();
            assert_eq!(report.results.len(), 2, "{driver:?} {protocol}");
            for r in &report.results {
                assert_eq!(r.errors, 0, "{driver:?} {protocol} {}", r.workload);
                assert!(r.calls > 0);
                assert!(r.server_cpu_us_per_call.is_some());
            }
            assert!(report.server_peak_rss_kib.unwrap_or(0) > 0);
            if driver == Driver::Raw {
                assert!(report.startup.as_ref().unwrap().median_ms > 0.0);
            }
            let json = serde_json::to_string(&report).unwrap();
            assert!(json.contains("\"results\""));
            assert!(report.table().contains("pipelined k=8"));
        }
    }
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http_server(mode: &str) -> (Server, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let child =
        Command::new(ECHO).args(["--http", &addr, "--mode", mode]).stdout(Stdio::null()).spawn().unwrap();
    // A loaded machine can take seconds to start a debug binary: wait, but not forever.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(&addr).is_err() {
        assert!(std::time::Instant::now() < deadline, "echo-server did not listen on {addr}");
        std::thread::sleep(Duration::from_millis(25));
    }
    (Server(child), format!("http://{addr}/mcp"))
}

#[tokio::test]
async fn http_every_driver_and_mode() {
    for (mode, protocol) in
        [("stateless", Protocol::V2026), ("sessions", Protocol::V2025), ("sessions", Protocol::V2026)]
    {
        let (server, url) = http_server(mode);
        for driver in [Driver::Raw, Driver::Sdk] {
            let mut c = BenchConfig::new("smoke", Target::Http { url: url.clone() });
            c.protocol = protocol;
            c.driver = driver;
            c.warmup_calls = 10;
            c.server_pid = Some(server.0.id());
            c.timeout = Duration::from_secs(60);
            c.workloads =
                vec![Workload::Sequential { calls: 30 }, Workload::Concurrent { clients: 4, seconds: 0.3 }];
            if mode == "sessions" && protocol == Protocol::V2025 && driver == Driver::Raw {
                c.workloads.push(Workload::IdleSessions { sessions: 20 });
            }
            let report = run(c).await.unwrap();
            assert_eq!(report.results.len(), 2);
            for r in &report.results {
                assert_eq!(r.errors, 0, "{mode} {protocol} {driver:?} {}", r.workload);
                assert!(r.calls > 0, "{mode} {protocol} {driver:?} {}", r.workload);
            }
            if mode == "sessions" && protocol == Protocol::V2025 && driver == Driver::Raw {
                assert_eq!(report.sessions.as_ref().unwrap().sessions, 20);
            }
        }
    }
}

/// Every workload of `report` made calls, and none failed.
fn assert_clean(report: &mcpwire_bench::BenchReport, label: &str) {
    for r in &report.results {
        assert_eq!(r.errors, 0, "{label} {}", r.workload);
        assert!(r.calls > 0, "{label} {}", r.workload);
    }
}

/// The cases of bench/compare.sh beyond the plain echo: the mix, progress tokens and a
/// 64 KiB payload (pipelined: more than a pipe's buffer in flight), over stdio and the
/// three HTTP forms.
#[tokio::test]
async fn mix_progress_and_large_payloads() {
    let variants = [(false, false, 32), (false, true, 32), (true, false, 32), (false, false, 64 * 1024)];
    for (mix, progress_token, bytes) in variants {
        for protocol in [Protocol::V2025, Protocol::V2026] {
            let mut c = stdio_config(protocol, Driver::Raw);
            c.workloads.truncate(2);
            (c.mix, c.progress_token, c.text) =
                (mix, progress_token, mcpwire_bench::wire::payload_text(bytes));
            let label = format!("stdio {protocol} mix={mix} progress={progress_token} {bytes} B");
            assert_clean(&run(c).await.unwrap(), &label);
        }
        for (mode, protocol) in
            [("sessions", Protocol::V2025), ("stateless", Protocol::V2025), ("stateless", Protocol::V2026)]
        {
            let (server, url) = http_server(mode);
            let mut c = BenchConfig::new("smoke", Target::Http { url });
            c.protocol = protocol;
            c.warmup_calls = 10;
            c.server_pid = Some(server.0.id());
            c.timeout = Duration::from_secs(60);
            c.workloads =
                vec![Workload::Sequential { calls: 30 }, Workload::Concurrent { clients: 4, seconds: 0.3 }];
            (c.mix, c.progress_token, c.text) =
                (mix, progress_token, mcpwire_bench::wire::payload_text(bytes));
            let label = format!("{mode} {protocol} mix={mix} progress={progress_token} {bytes} B");
            assert_clean(&run(c).await.unwrap(), &label);
        }
    }
}

#[tokio::test]
async fn a_missing_tool_is_an_error_not_a_hang() {
    let mut c = BenchConfig::new("smoke", Target::Stdio { command: vec!["/bin/cat".into()] });
    c.protocol = Protocol::V2026;
    c.timeout = Duration::from_secs(5);
    c.workloads = vec![Workload::Sequential { calls: 5 }];
    // `cat` echoes the request back: not a response, so the reader keeps waiting until the
    // watchdog kills the child and the read ends.
    assert!(run(c).await.is_err());
}
