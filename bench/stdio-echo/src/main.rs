//! `stdio-echo`: the benchmark's `echo` tool (`{text}` returns the same text) served the
//! way README recommends for a server that only speaks stdio, a process an MCP host
//! spawns for one client:
//!
//! - `mcpwire` without default features: no Streamable HTTP server or client, no OAuth;
//! - tokio's current-thread runtime, and tokio built without "rt-multi-thread" (nothing
//!   in this package asks for it), so neither the multi-thread scheduler nor libm is
//!   linked in.
//!
//! ```text
//! stdio-echo [--stdio]
//! ```
//!
//! (`--stdio` is accepted so that scripts can start it like `echo-server --stdio`.)
//! Every request still runs as its own task; what the current-thread runtime gives up is
//! running two handlers at once on two cores, which one stdio client rarely needs.
//! `bench/compare.sh` measures it as peer `lean` beside `echo-server --stdio`, which
//! carries the HTTP server and runs on tokio's multi-thread runtime (`#[tokio::main]`).

#![forbid(unsafe_code)]

use std::process::ExitCode;

use mcpwire::server::Server;

/// Echoes the text back.
#[mcpwire::tool]
async fn echo(text: String) -> String {
    text
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    if std::env::args().skip(1).any(|arg| arg != "--stdio") {
        eprintln!("usage: stdio-echo [--stdio]   (serves the echo tool on stdin/stdout)");
        return ExitCode::from(2);
    }
    let server = match Server::builder("mcpwire-echo", env!("CARGO_PKG_VERSION")).tool(echo_tool()).build() {
        Ok(server) => server,
        Err(e) => {
            eprintln!("stdio-echo: {e}");
            return ExitCode::FAILURE;
        }
    };
    server.serve_stdio().await;
    ExitCode::SUCCESS
}
