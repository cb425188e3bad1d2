//! rmcp echo server for bench/compare.sh.
//!
//! - `rmcp-echo --stdio`            rmcp's fastest stdio setup (`stdio_pipes`, non-blocking pipes)
//! - `rmcp-echo --stdio-blocking`   the plain `stdio()` transport (tokio's blocking stdin/stdout)
//! - `rmcp-echo --http ADDR --mode stateless|sessions`
//!   Streamable HTTP at `/mcp`, hyper HTTP/1.1 with TCP_NODELAY. `stateless`: no sessions,
//!   JSON responses (2026-07-28 requests are always stateless in rmcp); `sessions`: rmcp's
//!   default (2025 sessions, SSE responses, local session manager).
//!
//! Add `--current-thread` to run on tokio's current-thread runtime.

use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{schemars, tool, tool_router, ServiceExt};

#[derive(Clone, Default)]
struct Echo;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to echo.
    text: String,
}

#[tool_router(server_handler)]
impl Echo {
    #[tool(description = "Echoes the text back")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let current = args.iter().any(|a| a == "--current-thread");
    let args: Vec<&str> = args.iter().map(String::as_str).filter(|a| *a != "--current-thread").collect();
    let runtime = if current {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    }
    .expect("runtime");
    runtime.block_on(async move {
        match args.as_slice() {
            ["--stdio"] => {
                let service = Echo.serve(rmcp::transport::stdio_pipes()).await.expect("serve");
                let _ = service.waiting().await;
            }
            ["--stdio-blocking"] => {
                let service = Echo.serve(rmcp::transport::stdio()).await.expect("serve");
                let _ = service.waiting().await;
            }
            ["--http", addr, "--mode", mode] => http(addr, mode).await,
            _ => {
                eprintln!("usage: rmcp-echo --stdio | --stdio-blocking | --http ADDR --mode stateless|sessions [--current-thread]");
                std::process::exit(2);
            }
        }
    });
}

async fn http(addr: &str, mode: &str) {
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    match mode {
        "stateless" => {
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .with_sse_keep_alive(None);
            let service =
                StreamableHttpService::new(|| Ok(Echo), Arc::new(NeverSessionManager::default()), config);
            accept(listener, service).await
        }
        "sessions" => {
            let service = StreamableHttpService::new(
                || Ok(Echo),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            accept(listener, service).await
        }
        other => {
            eprintln!("rmcp-echo: unknown mode {other:?}");
            std::process::exit(2);
        }
    }
}

async fn accept<M>(listener: tokio::net::TcpListener, service: StreamableHttpService<Echo, M>)
where
    M: rmcp::transport::streamable_http_server::session::SessionManager,
{
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let _ = stream.set_nodelay(true);
        let io = hyper_util::rt::TokioIo::new(stream);
        let svc = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, svc).await;
        });
    }
}
