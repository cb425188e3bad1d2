//! `everything-server --stdio` or `everything-server --http 127.0.0.1:PORT [--redis URL |
//! --sessionless]`: the conformance fixture server. With `--redis`, every instance started
//! with the same Redis URL is one logical server (docs/DEPLOY.md). With `--sessionless`,
//! 2025 clients are served without sessions (`HttpSettings::sessionless`), as a server
//! behind a load balancer without sticky sessions is. Logs go to stderr (`RUST_LOG` sets
//! the level).

#![forbid(unsafe_code)]

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: everything-server --stdio | --http ADDR [--redis URL | --sessionless] (for example --http 127.0.0.1:3001 --redis redis://127.0.0.1:6379; endpoint /mcp)"
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
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["--stdio"] => {
            // SIGINT and SIGTERM end it as the end of input does: what is running is
            // answered "Connection closed" first.
            mcpwire_conformance::everything::server()
                .serve_stdio_until(Default::default(), stop_signal())
                .await;
            // Not through the runtime's shutdown, which would wait for a terminal's stdin
            // read under way on the blocking pool.
            std::process::exit(0)
        }
        ["--http", addr] => {
            serve(mcpwire::http::McpService::new(mcpwire_conformance::everything::server()), addr).await
        }
        ["--http", addr, "--sessionless"] | ["--sessionless", "--http", addr] => {
            let settings = mcpwire::http::HttpSettings { sessionless: true, ..Default::default() };
            let server = mcpwire_conformance::everything::server();
            serve(mcpwire::http::McpService::with_settings(server, settings), addr).await
        }
        ["--http", addr, "--redis", url] | ["--redis", url, "--http", addr] => {
            let cluster = match mcpwire::http::cluster::Cluster::connect(url).await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("everything-server: cannot join the cluster at {url}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let builder = mcpwire_conformance::everything::builder();
            match cluster.service(builder, mcpwire::http::HttpSettings::default()) {
                Ok(service) => serve(service, addr).await,
                Err(e) => {
                    eprintln!("everything-server: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => usage(),
    }
}

/// Serves `service` at `http://ADDR/mcp` until SIGINT or SIGTERM, printing the URL on
/// stderr once it listens (port 0 picks a free port). A signal shuts the service down
/// cleanly: open streams end with what the spec asks (a `subscriptions/listen` stream
/// with its final result) rather than being cut.
async fn serve(service: mcpwire::http::McpService, addr: &str) -> ExitCode {
    match mcpwire::http::serve_with_shutdown(service, addr, "/mcp").await {
        Ok(bound) => {
            eprintln!("everything-server: serving at http://{}/mcp", bound.local_addr);
            let mut task = bound.task;
            tokio::select! {
                _ = &mut task => {}
                () = stop_signal() => {
                    bound.shutdown.cancel();
                    let _ = task.await;
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("everything-server: cannot serve on {addr}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Resolves at the first SIGINT or SIGTERM (never, if neither can be watched).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            _ => std::future::pending().await,
        }
    }
    #[cfg(not(unix))]
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}
