//! `mcpwire-bench`: measures an MCP server's `echo` tool. See `mcpwire_bench::cli`.

#![forbid(unsafe_code)]

use clap::Parser;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    mcpwire_bench::cli::main(mcpwire_bench::cli::BenchArgs::parse()).await
}
