//! `echo-server`: the mcpwire server the benchmarks measure. One tool, `echo`, whose
//! `{text}` comes back as one text content.
//!
//! ```text
//! echo-server --stdio
//! echo-server --http 127.0.0.1:PORT --mode stateless|sessions
//! ```
//!
//! `--mode stateless`: 2026-07-28 requests are answered with JSON and no session (2025
//! requests too: `stateless_2025` and `json_response` are on). `--mode sessions`: the
//! defaults, where a 2025 client opens a session and gets SSE responses.
//!
//! The runtime is the one README recommends for each: tokio's current-thread runtime for
//! `--stdio` (a process spawned for one client: one thread, the least memory), the
//! multi-thread runtime for `--http` (many clients; under `taskset -c N` it has one
//! worker). `--current-thread` or `--multi-thread` chooses the other.

use std::process::ExitCode;

use mcpwire::http::{HttpSettings, McpService};

fn usage() -> ExitCode {
    eprintln!(
        "usage: echo-server --stdio | --http ADDR --mode stateless|sessions   [--current-thread | --multi-thread]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let current = args.iter().any(|a| a == "--current-thread");
    let multi = args.iter().any(|a| a == "--multi-thread");
    args.retain(|a| a != "--current-thread" && a != "--multi-thread");
    if current && multi {
        return usage();
    }
    let stdio = args.first().is_some_and(|a| a == "--stdio");
    let runtime = if current || (stdio && !multi) {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            eprintln!("echo-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let server = match mcpwire_bench::echo::server() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("echo-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    runtime.block_on(async move {
        match args.as_slice() {
            ["--stdio"] => {
                server.serve_stdio().await;
                ExitCode::SUCCESS
            }
            ["--http", addr, "--mode", mode] => {
                let settings = match *mode {
                    "stateless" => {
                        HttpSettings { stateless_2025: true, json_response: true, ..HttpSettings::default() }
                    }
                    "sessions" => HttpSettings::default(),
                    _ => return usage(),
                };
                let service = McpService::with_settings(server, settings);
                match mcpwire::http::serve(service, *addr, "/mcp").await {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("echo-server: cannot serve on {addr}: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
            _ => usage(),
        }
    })
}
