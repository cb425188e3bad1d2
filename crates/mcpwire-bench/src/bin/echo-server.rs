//! `echo-server`: the mcpwire server the benchmarks measure ([`mcpwire_examples::echo::server`]:
//! the `echo` tool, a 100 KiB text resource, a prompt and two middlewares), started the
//! way README's "Write a server" section starts one: `#[tokio::main]`, tokio's
//! multi-thread runtime, built with cargo's default release profile.
//!
//! ```text
//! echo-server --stdio
//! echo-server --http 127.0.0.1:PORT --mode stateless|sessions
//! ```
//!
//! `--mode stateless`: 2026-07-28 requests are answered with JSON and no session, and so
//! are 2025 ones (`sessionless` and `json_response` are on: a 2025 client initializes,
//! then POSTs without a session). `--mode sessions`: the defaults, where a 2025 client
//! opens a session and gets SSE responses. Once bound, it prints
//! `echo-server: listening on http://ADDR/mcp` on stderr, so `127.0.0.1:0` (any free
//! port) works: read the address from that line.
//!
//! `--current-thread` serves on tokio's current-thread runtime instead
//! (`#[tokio::main(flavor = "current_thread")]`), for comparisons of the two;
//! `--multi-thread` names the default.

#![forbid(unsafe_code)]

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
    match (current, multi) {
        (true, true) => usage(),
        (true, false) => serve_current_thread(args),
        _ => serve(args),
    }
}

/// The default: `#[tokio::main]`, as README's server has it.
#[tokio::main]
async fn serve(args: Vec<String>) -> ExitCode {
    run(args).await
}

/// `--current-thread`.
#[tokio::main(flavor = "current_thread")]
async fn serve_current_thread(args: Vec<String>) -> ExitCode {
    run(args).await
}

async fn run(args: Vec<String>) -> ExitCode {
    let server = match mcpwire_examples::echo::server() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("echo-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["--stdio"] => {
            server.serve_stdio().await;
            ExitCode::SUCCESS
        }
        ["--http", addr, "--mode", mode] => {
            let settings = match *mode {
                "stateless" => {
                    HttpSettings { sessionless: true, json_response: true, ..HttpSettings::default() }
                }
                "sessions" => HttpSettings::default(),
                _ => return usage(),
            };
            let service = McpService::with_settings(server, settings);
            match mcpwire::http::serve_with_shutdown(service, *addr, "/mcp").await {
                Ok(bound) => {
                    // The address actually bound (ADDR may name port 0): what a script or
                    // a test connects to, with no port picked in advance and raced for.
                    eprintln!("echo-server: listening on http://{}/mcp", bound.local_addr);
                    let _ = bound.task.await;
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("echo-server: cannot serve on {addr}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => usage(),
    }
}
