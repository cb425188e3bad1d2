//! `stdio-echo`: the benchmark's `echo` server built the way README recommends for a
//! server that only speaks stdio: no HTTP code in the binary and tokio's current-thread
//! runtime.
//!
//! ```text
//! stdio-echo
//! ```
//!
//! `echo-server --stdio` serves the same tool, but that binary also carries the
//! Streamable HTTP server and a multi-thread runtime; a process spawned by an MCP host
//! for one client needs neither. Its peak RSS is what the memory target of a stdio
//! server is measured on (`bench/compare.sh` reports both binaries). The current-thread
//! runtime still runs every request as its own task; what it gives up is running two
//! handlers at once on two cores, which a single stdio client rarely needs.

use std::process::ExitCode;

fn main() -> ExitCode {
    if std::env::args().len() > 1 {
        eprintln!("usage: stdio-echo   (serves the echo tool on stdin/stdout)");
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("stdio-echo: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let server = match mcpwire_bench::echo::server() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("stdio-echo: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(server.serve_stdio());
    ExitCode::SUCCESS
}
