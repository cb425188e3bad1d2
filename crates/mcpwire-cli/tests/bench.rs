//! `mcpwire bench` end to end: the real binary measures the echo server (`mcpwire serve
//! --example echo`, the same server as `echo-server`) over stdio pipes and over HTTP on a
//! loopback socket, in both eras, and its `--json` report is checked field by field.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mcpwire");

/// (the `--era` value, the protocol version the report names)
const ERAS: [(&str, &str); 2] = [("2025", "2025-11-25"), ("2026", "2026-07-28")];

/// Starts `mcpwire ARGS` with stdin closed and stderr piped.
fn start(args: &[&str], stdout: Stdio) -> Child {
    let mut command = Command::new(BIN);
    command.args(args).env_remove("RUST_LOG").stdin(Stdio::null());
    command.stdout(stdout).stderr(Stdio::piped()).spawn().unwrap()
}

/// Runs `mcpwire ARGS` to completion; kills it (its own pid) after two minutes.
fn run(args: &[&str]) -> Output {
    let mut child = start(args, Stdio::piped());
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("mcpwire {args:?} ran past two minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The `--json` report, after checking the exit status.
fn report(out: &Output) -> Value {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{err}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("stdout is not one JSON document ({e}):\n{}", String::from_utf8_lossy(&out.stdout))
    })
}

/// One workload result: its name, every call answered, none failed, percentiles in order.
fn check_result(result: &Value, workload: &str, calls: Option<u64>) {
    assert_eq!(result["workload"], workload, "{result}");
    let answered = result["calls"].as_u64().unwrap();
    match calls {
        Some(n) => assert_eq!(answered, n, "{result}"),
        None => assert!(answered > 0, "{result}"),
    }
    assert_eq!(result["errors"], 0, "{result}");
    assert!(result["calls_per_sec"].as_f64().unwrap() > 0.0, "{result}");
    let latency = &result["latency"];
    let p = |k: &str| latency[k].as_f64().unwrap();
    assert!(p("p50_us") > 0.0, "{result}");
    assert!(
        p("p50_us") <= p("p90_us") && p("p90_us") <= p("p99_us") && p("p99_us") <= p("max_us"),
        "{result}"
    );
    assert!(result["client_cpu_us_per_call"].as_f64().unwrap() >= 0.0, "{result}");
    assert!(result["client_bound"].is_boolean(), "{result}");
}

#[test]
fn bench_over_stdio_reports_latency_throughput_startup_and_memory_in_both_eras() {
    let target = format!("stdio:'{BIN}' serve --example echo");
    for (era, version) in ERAS {
        let out = run(&[
            "--json",
            "bench",
            "--era",
            era,
            "--calls",
            "300",
            "--pipelined-calls",
            "3000",
            "--startup-runs",
            "2",
            "--warmup",
            "20",
            "--timeout",
            "60",
            &target,
        ]);
        let r = report(&out);
        assert_eq!(r["protocol"], version, "{r}");
        assert_eq!(r["driver"], "raw", "{r}");
        let results = r["results"].as_array().unwrap();
        assert_eq!(results.len(), 2, "{r}");
        check_result(&results[0], "sequential n=300", Some(300));
        check_result(&results[1], "pipelined k=32 n=3000", Some(3000));
        assert!(results[1]["server_cpu_us_per_call"].as_f64().is_some(), "stdio knows the server's pid: {r}");
        assert!(results[1]["server_minor_faults_per_call"].as_f64().is_some(), "{r}");
        assert_eq!(r["startup"]["runs"], 2, "{r}");
        assert!(r["startup"]["median_ms"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["server_peak_rss_kib"].as_u64().unwrap() > 0, "{r}");
    }
}

/// `mcpwire serve --example echo --http 127.0.0.1:0`, and the URL it prints.
fn start_http_echo() -> (Child, String) {
    start_http_example("echo")
}

/// `mcpwire serve --example NAME --http 127.0.0.1:0`, and the URL it prints.
fn start_http_example(name: &str) -> (Child, String) {
    let mut child = start(&["serve", "--example", name, "--http", "127.0.0.1:0"], Stdio::null());
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    // The server prints its URL first; a missing line ends the loop (and the test).
    let line = lines.next().expect("the server prints its URL").unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("{line}"));
    // Keep reading: a closed stderr would make the server's next log line fail.
    std::thread::spawn(move || lines.for_each(drop));
    (child, url.to_owned())
}

#[test]
fn bench_over_http_runs_sequential_and_concurrent_clients_in_both_eras() {
    let (mut server, url) = start_http_echo();
    let pid = server.id().to_string();
    for (era, version) in ERAS {
        let out = run(&[
            "bench",
            "--json",
            "--era",
            era,
            "--calls",
            "200",
            "--clients",
            "4",
            "--seconds",
            "1",
            "--warmup",
            "20",
            "--server-pid",
            &pid,
            &url,
        ]);
        let r = report(&out);
        assert_eq!(r["protocol"], version, "{r}");
        let results = r["results"].as_array().unwrap();
        assert_eq!(results.len(), 2, "{r}");
        check_result(&results[0], "sequential n=200", Some(200));
        check_result(&results[1], "concurrent c=4 t=1s", None);
        assert!(results[1]["server_cpu_us_per_call"].as_f64().is_some(), "--server-pid given: {r}");
        assert!(results[1]["server_minor_faults_per_call"].as_f64().is_some(), "{r}");
    }
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn bench_prints_a_summary_table_and_fails_cleanly_without_a_server() {
    let target = format!("stdio:'{BIN}' serve --example echo");
    let out = run(&["bench", "--calls", "50", "--pipelined-calls", "500", "--startup-runs", "0", &target]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for column in ["workload", "calls/s", "p50 us", "p90 us", "p99 us", "max us", "errors"] {
        assert!(table.contains(column), "{column} missing:\n{table}");
    }
    assert!(table.contains("sequential n=50") && table.contains("pipelined k=32 n=500"), "{table}");

    // Port 1 on loopback: nothing listens there.
    let out = run(&["bench", "--calls", "5", "--clients", "0", "http://127.0.0.1:1/mcp"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    // The tool check before the run finds no server, and says so with a hint.
    assert!(err.contains("cannot reach http://127.0.0.1:1/mcp") && err.contains("hint:"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn bench_measures_a_named_tool_with_either_driver() {
    // The notes example has no `echo`: a run that succeeds called the named tool.
    let target = format!("stdio:'{BIN}' serve --example notes");
    let (server, url) = start_http_example("notes");
    let _server = Stopped(server);
    let tool = ["--tool", "search_notes", "--arg", "query=milk"];
    for driver in ["sdk", "raw"] {
        for (era, version) in ERAS {
            let common =
                ["--json", "bench", "--driver", driver, "--era", era, "--warmup", "5", "--timeout", "60"];
            let stdio =
                ["--calls", "50", "--pipelined-calls", "200", "--in-flight", "4", "--startup-runs", "0"];
            let out = run(&[&common[..], &tool[..], &stdio[..], &[&target]].concat());
            let r = report(&out);
            assert_eq!(r["protocol"], version, "{r}");
            assert_eq!(r["driver"], driver, "{r}");
            let results = r["results"].as_array().unwrap();
            check_result(&results[0], "sequential n=50", Some(50));
            check_result(&results[1], "pipelined k=4 n=200", Some(200));
            let http = ["--calls", "30", "--clients", "0"];
            let r = report(&run(&[&common[..], &tool[..], &http[..], &[&url]].concat()));
            assert_eq!(r["driver"], driver, "{r}");
            check_result(&r["results"][0], "sequential n=30", Some(30));
        }
    }
    // A tool that answers with a tool error (no note 999) fails the run at its first
    // call, with either driver, rather than counting errors.
    for driver in ["sdk", "raw"] {
        let out = run(&[
            "bench",
            "--driver",
            driver,
            "--tool",
            "delete_note",
            "--arg",
            "id=999",
            "--calls",
            "5",
            "--startup-runs",
            "0",
            "--timeout",
            "60",
            &target,
        ]);
        assert_ne!(out.status.code(), Some(0), "{driver}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("failed") && !err.contains("panicked"), "{driver}: {err}");
    }
}

/// A server killed (by its own pid) when the test ends, passed or failed.
struct Stopped(Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The echo example served in this test process over HTTP with `settings`; stops when
/// the runtime is dropped.
fn serve_echo_here(settings: mcpwire::http::HttpSettings) -> (tokio::runtime::Runtime, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let server = mcpwire_examples::echo::server().unwrap();
    let service = mcpwire::http::McpService::with_settings(server, settings);
    let bound = runtime.block_on(mcpwire::http::serve_with_shutdown(service, "127.0.0.1:0", "/mcp")).unwrap();
    (runtime, format!("http://{}/mcp", bound.local_addr))
}

/// The requests of `bench/compare.sh` beyond the plain echo (the mix, progress tokens, a
/// 64 KiB text: more than a pipe's buffer in flight when pipelined) and the SDK driver,
/// over stdio and the three HTTP forms: 2025 with sessions (SSE answers), 2025 without
/// sessions (`sessionless`, JSON answers) and 2026; and the idle-session memory.
#[test]
fn bench_sends_the_mix_progress_tokens_and_large_payloads_over_every_transport() {
    use mcpwire::http::HttpSettings;
    let stdio = format!("stdio:'{BIN}' serve --example echo");
    let (sessions, sessions_url) = start_http_echo();
    let _sessions = Stopped(sessions);
    let stateless = HttpSettings { sessionless: true, json_response: true, ..HttpSettings::default() };
    let (_runtime, stateless_url) = serve_echo_here(stateless);
    let here = std::process::id().to_string();
    let variants: [&[&str]; 5] = [
        &["--payload-bytes", "32"],
        &["--payload-bytes", "32", "--progress-token"],
        &["--payload-bytes", "32", "--mix"],
        &["--payload-bytes", "65536"],
        &["--driver", "sdk"],
    ];
    for variant in variants {
        for (era, version) in ERAS {
            let common = ["--json", "bench", "--era", era, "--warmup", "5", "--timeout", "60"];
            let pipe =
                ["--calls", "30", "--pipelined-calls", "200", "--in-flight", "8", "--startup-runs", "0"];
            let r = report(&run(&[&common[..], variant, &pipe[..], &[&stdio]].concat()));
            assert_eq!(r["protocol"], version, "{variant:?} {r}");
            check_result(&r["results"][0], "sequential n=30", Some(30));
            check_result(&r["results"][1], "pipelined k=8 n=200", Some(200));
            for url in [&sessions_url, &stateless_url] {
                // A whole second, so a stall of the busy test machine still leaves calls
                // that start and end inside the window.
                let http = ["--calls", "30", "--clients", "4", "--seconds", "1"];
                let r = report(&run(&[&common[..], variant, &http[..], &[url.as_str()]].concat()));
                assert_eq!(r["protocol"], version, "{variant:?} {url} {r}");
                check_result(&r["results"][0], "sequential n=30", Some(30));
                check_result(&r["results"][1], "concurrent c=4 t=1s", None);
            }
        }
    }
    // KiB per idle 2025 session, measured on the in-process server (its pid is this one).
    let session_settings = HttpSettings::default();
    let (_runtime2, url) = serve_echo_here(session_settings);
    let out = run(&[
        "--json",
        "bench",
        "--calls",
        "0",
        "--clients",
        "0",
        "--sessions",
        "20",
        "--server-pid",
        &here,
        &url,
    ]);
    let r = report(&out);
    assert_eq!(r["sessions"]["sessions"], 20, "{r}");
    assert!(r["sessions"]["rss_after_kib"].as_u64().unwrap() > 0, "{r}");
}

#[test]
fn bench_without_the_check_runs_the_echo_and_refuses_a_tool() {
    let target = format!("stdio:'{BIN}' serve --example echo");
    let args =
        ["--json", "bench", "--no-check", "--calls", "20", "--pipelined-calls", "0", "--startup-runs", "0"];
    let r = report(&run(&[&args[..], &[&target]].concat()));
    check_result(&r["results"][0], "sequential n=20", Some(20));
    // --no-check with --tool: the tool's arguments are typed by the check.
    let out = run(&["bench", "--no-check", "--tool", "echo", &target]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}
