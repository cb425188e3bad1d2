//! `everything-server --stdio` or `everything-server --http 127.0.0.1:PORT`: the
//! conformance fixture server. Logs go to stderr (`RUST_LOG` sets the level).

#![forbid(unsafe_code)]

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: everything-server --stdio | --http ADDR (for example --http 127.0.0.1:3001; endpoint /mcp)"
    );
    ExitCode::from(2)
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = mcpwire_conformance::everything::server();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["--stdio"] => {
            server.serve_stdio().await;
            ExitCode::SUCCESS
        }
        ["--http", addr] => {
            let service = mcpwire::http::McpService::new(server);
            match mcpwire::http::serve(service, *addr, "/mcp").await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("everything-server: cannot serve on {addr}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => usage(),
    }
}
