//! `mcpwire serve`: the built-in example servers.

use mcpwire::http::{is_loopback_name, serve_with_shutdown, HostPolicy, HttpSettings, McpService};
use mcpwire::server::Server;
use mcpwire::server::StdioLimits;

use crate::cli::{Example, Serve};
use crate::errors::{Failure, EXIT_INTERRUPTED, EXIT_OK};
use crate::interrupt;

/// The example server called `example`.
pub fn example(example: Example) -> anyhow::Result<Server> {
    Ok(match example {
        Example::Notes => mcpwire_examples::notes::server()?,
        Example::Everything => mcpwire_examples::everything::server(),
        Example::Echo => mcpwire_examples::echo::server()?,
    })
}

/// The settings of an endpoint at `addr`: bodies up to `max_message` bytes, and any Host
/// when `addr` is not a loopback address (a server bound to `0.0.0.0` or a LAN address is
/// meant for other machines, which name it as they like; browsers' `Origin` is still
/// checked). On loopback, only loopback names, against DNS rebinding.
fn settings(addr: &str, max_message: usize) -> HttpSettings {
    let host = addr.rsplit_once(':').map_or(addr, |(host, _)| host);
    let hosts = if is_loopback_name(host) { HostPolicy::default() } else { HostPolicy::any_host() };
    HttpSettings { max_body_bytes: max_message, hosts, ..HttpSettings::default() }
}

/// The example server called `example`, served as one instance of the cluster at
/// `redis` (its `requestState` key is the cluster's).
async fn clustered(
    example: Example,
    redis: &str,
    addr: &str,
    max_message: usize,
) -> anyhow::Result<McpService> {
    let cluster = mcpwire::http::cluster::Cluster::connect(redis).await.map_err(|e| {
        Failure::connect(format!("cannot join the cluster at {redis}: {e}"))
            .hint("start redis-server, or check the URL (redis://HOST:PORT)")
    })?;
    let builder = match example {
        Example::Notes => mcpwire_examples::notes::builder(),
        Example::Everything => mcpwire_examples::everything::builder(),
        Example::Echo => mcpwire_examples::echo::builder(),
    };
    Ok(cluster.service(builder, settings(addr, max_message))?)
}

/// The HTTP endpoint for `server` at `addr`, reading request bodies up to `max_message`
/// bytes.
pub fn service(server: Server, addr: &str, max_message: usize) -> McpService {
    McpService::with_settings(server, settings(addr, max_message))
}

/// Serves `server` on stdin and stdout, reading lines up to `max_message` bytes, until
/// stdin closes or a stop signal arrives (taken as the end of input: requests still
/// running are answered "Connection closed" and the answers written before it returns).
/// The exit status: 0, or 128 + the signal's number.
pub async fn serve_stdio(server: &Server, max_message: usize) -> anyhow::Result<i32> {
    interrupt::install()?;
    let limits = StdioLimits { max_line_bytes: max_message, ..StdioLimits::default() };
    server.serve_stdio_until(limits, interrupt::interrupted(1)).await;
    Ok(if interrupt::received() { interrupt::exit_status() } else { EXIT_OK })
}

/// Serves `server` over Streamable HTTP at `http://ADDR/mcp` until Ctrl-C, printing the
/// URL on stderr (`what` names it).
pub async fn serve_http(server: Server, addr: &str, what: &str, max_message: usize) -> anyhow::Result<i32> {
    serve_service(service(server, addr, max_message), addr, what).await
}

/// Serves `service` at `http://ADDR/mcp` until Ctrl-C, printing the URL on stderr.
async fn serve_service(service: McpService, addr: &str, what: &str) -> anyhow::Result<i32> {
    interrupt::install()?;
    let bound = serve_with_shutdown(service, addr, "/mcp").await.map_err(|e| {
        Failure::connect(format!("cannot listen on {addr}: {e}"))
            .hint("use HOST:PORT that is free on this machine, for example 127.0.0.1:8080 (port 0 picks one)")
    })?;
    say!("mcpwire: serving {what} at http://{}/mcp (Ctrl-C stops)", bound.local_addr);
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
pub async fn run(args: &Serve, max_message: usize) -> anyhow::Result<i32> {
    let what = match args.example {
        Example::Notes => "the notes example",
        Example::Everything => "the everything example",
        Example::Echo => "the echo example",
    };
    if let (Some(addr), Some(redis)) = (&args.http, &args.redis) {
        let service = clustered(args.example, redis, addr, max_message).await?;
        return serve_service(service, addr, what).await;
    }
    let server = example(args.example)?;
    match &args.http {
        Some(addr) => serve_http(server, addr, what, max_message).await,
        None => serve_stdio(&server, max_message).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_loopback_address_keeps_the_loopback_host_policy() {
        for addr in ["127.0.0.1:8080", "localhost:0", "[::1]:9000", "127.0.0.2:1"] {
            assert!(settings(addr, 1).hosts.is_loopback_only(), "{addr}");
        }
        for addr in ["0.0.0.0:8080", "[::]:8080", "192.0.2.7:80", "mcp.example.com:443"] {
            assert!(settings(addr, 1).hosts.hosts.is_none(), "{addr}");
        }
    }
}
