//! `mcpwire serve`: the built-in example servers.

use mcpwire::http::{serve_with_shutdown, McpService};
use mcpwire::server::Server;

use crate::cli::{Example, Serve};
use crate::errors::{Failure, EXIT_INTERRUPTED, EXIT_OK};
use crate::interrupt;

/// The example server called `example`.
pub fn example(example: Example) -> anyhow::Result<Server> {
    Ok(match example {
        Example::Everything => mcpwire_conformance::everything::server(),
        Example::Echo => mcpwire_bench::echo::server()?,
    })
}

/// Serves `server` over Streamable HTTP at `http://ADDR/mcp` until Ctrl-C, printing the
/// URL on stderr (`what` names it).
pub async fn serve_http(server: Server, addr: &str, what: &str) -> anyhow::Result<i32> {
    interrupt::install()?;
    let service = McpService::new(server);
    let bound = serve_with_shutdown(service, addr, "/mcp").await.map_err(|e| {
        Failure::connect(format!("cannot listen on {addr}: {e}"))
            .hint("use HOST:PORT that is free on this machine, for example 127.0.0.1:8080 (port 0 picks one)")
    })?;
    eprintln!("mcpwire: serving {what} at http://{}/mcp (Ctrl-C stops)", bound.local_addr);
    let mut task = bound.task;
    tokio::select! {
        _ = &mut task => Ok(EXIT_OK),
        _ = interrupt::interrupted(1) => {
            bound.shutdown.cancel();
            tokio::select! {
                _ = task => {}
                _ = interrupt::interrupted(2) => {}
            }
            Ok(EXIT_INTERRUPTED)
        }
    }
}

/// `mcpwire serve`.
pub async fn run(args: &Serve) -> anyhow::Result<i32> {
    let server = example(args.example)?;
    let what = match args.example {
        Example::Everything => "the everything example",
        Example::Echo => "the echo example",
    };
    match &args.http {
        Some(addr) => serve_http(server, addr, what).await,
        None => {
            // Ctrl-C keeps its default meaning here: the process ends.
            server.serve_stdio().await;
            Ok(EXIT_OK)
        }
    }
}
