//! Running the endpoint standalone: accept loop with `TCP_NODELAY`, HTTP/1.1 with
//! keep-alive, graceful shutdown.

use std::net::SocketAddr;

use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::McpService;

/// A bound endpoint: its address, and a way to stop it.
#[derive(Debug)]
pub struct Bound {
    /// The address it listens on (useful with port 0).
    pub local_addr: SocketAddr,
    /// Cancel to stop accepting and shut down gracefully.
    pub shutdown: CancellationToken,
    /// Completes when the server has stopped.
    pub task: tokio::task::JoinHandle<()>,
}

/// Serves `service` at `path` (for example `/mcp`) on `addr` until the process ends.
/// Other paths answer 404.
pub async fn serve(
    service: McpService,
    addr: impl tokio::net::ToSocketAddrs,
    path: &str,
) -> std::io::Result<()> {
    let bound = serve_with_shutdown(service, addr, path).await?;
    let _ = bound.task.await;
    Ok(())
}

/// Binds and starts serving in the background; returns at once with the bound address.
pub async fn serve_with_shutdown(
    service: McpService,
    addr: impl tokio::net::ToSocketAddrs,
    path: &str,
) -> std::io::Result<Bound> {
    let listener = TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    let shutdown = CancellationToken::new();
    let path = path.to_owned();
    let stop = shutdown.clone();
    let task = tokio::spawn(accept_loop(listener, service, path, stop));
    Ok(Bound { local_addr, shutdown, task })
}

async fn accept_loop(listener: TcpListener, service: McpService, path: String, stop: CancellationToken) {
    let connections = tokio_util::task::TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, _) = match accepted {
            Ok(a) => a,
            Err(e) => {
                tracing::debug!("accept failed: {e}");
                // Out of file descriptors and the like: back off briefly instead of spinning.
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let path = path.clone();
        let stop = stop.clone();
        connections.spawn(serve_connection(stream, service, path, stop));
    }
    service.shutdown();
    connections.close();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), connections.wait()).await;
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    service: McpService,
    path: String,
    stop: CancellationToken,
) {
    {
        let handler = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let service = service.clone();
            let on_path = request.uri().path() == path;
            async move {
                if on_path {
                    Ok::<_, std::convert::Infallible>(service.handle(request).await)
                } else {
                    Ok(super::status::error(
                        http::StatusCode::NOT_FOUND,
                        None,
                        mcpwire_protocol::codes::INVALID_REQUEST,
                        "Not found",
                    ))
                }
            }
        });
        let connection =
            hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), handler);
        tokio::pin!(connection);
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!("connection ended: {e}");
                }
            }
            _ = stop.cancelled() => {
                connection.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(std::time::Duration::from_secs(5), connection).await;
            }
        }
    }
}
