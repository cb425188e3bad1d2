//! Running the endpoint standalone: accept loop with `TCP_NODELAY`, HTTP/1.1 with
//! keep-alive, graceful shutdown, and a bound on open connections
//! ([`HttpSettings::max_connections`](super::HttpSettings::max_connections)): one more is
//! answered `503` and closed without being read. A connection that sends no complete
//! request head for [`HttpSettings::head_timeout`](super::HttpSettings::head_timeout) (a
//! slow or idle client) is closed by hyper's `header_read_timeout` on hyper-util's
//! `TokioTimer`, so idle connections cannot hold every slot; so is one whose response
//! waits for longer than [`HttpSettings::write_timeout`](super::HttpSettings::write_timeout)
//! on a client that reads nothing.
//!
//! Why not `tower::limit`: it bounds a service's requests in flight and makes the excess
//! wait; here open connections are counted (a tokio semaphore) and the excess refused at
//! once.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use mcpwire_protocol::{codes, ErrorObject, ErrorResponse, Message};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::stop_signal::StopSignal;
use super::write_deadline::WriteDeadline;
use super::McpService;

/// How often, at most, the accept loop's anchor timer fires (a third of the head timeout
/// when that is shorter). It is shorter than the head timeout so the runtime always has
/// a timer due before any connection's head deadline: tokio's time driver wakes its
/// parked thread (an eventfd write and one more `epoll_wait`) whenever a new timer is
/// due before every other one, which, without the anchor, is every head deadline
/// registered on a server with no other timers.
const ANCHOR_PERIOD: Duration = Duration::from_secs(10);

/// Connections being refused at once; past it an excess connection is closed without
/// its `503`, so a flood cannot make refusing expensive.
const REFUSING_AT_ONCE: usize = 64;

/// How long a refused connection is given to take its `503`.
const REFUSE_TIMEOUT: Duration = Duration::from_secs(1);

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
    if !local_addr.ip().is_loopback() && service.inner.settings.hosts.is_loopback_only() {
        // The default protects a local server from DNS rebinding; a server meant for other
        // machines must say which names it answers to.
        tracing::warn!(
            "listening on {local_addr}, but only loopback Host headers are accepted (others get 421): \
             set HttpSettings::hosts (HostPolicy::any_host(), or the names clients use)"
        );
    }
    let shutdown = CancellationToken::new();
    let path = path.to_owned();
    let stop = shutdown.clone();
    let task = tokio::spawn(accept_loop(listener, service, path, stop));
    Ok(Bound { local_addr, shutdown, task })
}

async fn accept_loop(listener: TcpListener, service: McpService, path: String, stop: CancellationToken) {
    let connections = tokio_util::task::TaskTracker::new();
    let slots = Arc::new(Semaphore::new(service.inner.settings.max_connections.max(1)));
    let refusing = Arc::new(Semaphore::new(REFUSING_AT_ONCE));
    let head_timeout = service.inner.settings.head_timeout;
    // Never more often than every 100 ms, however short the head timeout.
    let anchor_period = if head_timeout.is_zero() {
        ANCHOR_PERIOD
    } else {
        ANCHOR_PERIOD.min(head_timeout / 3).max(Duration::from_millis(100))
    };
    let anchor = tokio::time::sleep(anchor_period);
    tokio::pin!(anchor);
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
            () = &mut anchor => {
                anchor.as_mut().reset(tokio::time::Instant::now() + anchor_period);
                continue;
            }
        };
        let (stream, _) = match accepted {
            Ok(a) => a,
            Err(e) => {
                tracing::debug!("accept failed: {e}");
                // Out of file descriptors and the like: back off briefly instead of spinning.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::warn!("too many connections; refusing one");
            if let Ok(permit) = refusing.clone().try_acquire_owned() {
                tokio::spawn(async move {
                    refuse(stream).await;
                    drop(permit);
                });
            }
            continue;
        };
        let service = service.clone();
        let path = path.clone();
        let stop = stop.clone();
        connections.spawn(async move {
            serve_connection(stream, service, path, stop).await;
            drop(slot);
        });
    }
    service.shutdown();
    connections.close();
    let _ = tokio::time::timeout(Duration::from_secs(5), connections.wait()).await;
}

/// Answers a connection past the limit with `503` and closes it, without reading its
/// request (what arrived is drained briefly, so closing does not reset the connection
/// before the client has read the answer).
async fn refuse(mut stream: TcpStream) {
    let error = ErrorObject::new(codes::INTERNAL_ERROR, "Too many connections; try again later");
    let body = Message::Error(ErrorResponse::new(None, error)).to_vec();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    let mut response = head.into_bytes();
    response.extend_from_slice(&body);
    let _ = tokio::time::timeout(REFUSE_TIMEOUT, async {
        stream.write_all(&response).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    })
    .await;
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    service: McpService,
    path: String,
    stop: CancellationToken,
) {
    let head_timeout = Some(service.inner.settings.head_timeout).filter(|t| !t.is_zero());
    let stream = WriteDeadline::new(stream, service.inner.settings.write_timeout);
    let handler = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
        let service = service.clone();
        // Off the endpoint's path, a 404 that says where the endpoint is: a client given a
        // wrong path sees it.
        let not_found = (request.uri().path() != path).then(|| {
            super::status::error(
                http::StatusCode::NOT_FOUND,
                None,
                mcpwire_protocol::codes::INVALID_REQUEST,
                format!("Not found: no MCP endpoint at {} (this server's is {path})", request.uri().path()),
            )
        });
        async move {
            Ok::<_, std::convert::Infallible>(match not_found {
                Some(response) => response,
                None => service.handle(request).await,
            })
        }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(head_timeout)
        .serve_connection(TokioIo::new(stream), handler);
    tokio::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(e) = result {
                tracing::debug!("connection ended: {e}");
            }
        }
        () = StopSignal::new(stop) => {
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(Duration::from_secs(5), connection).await;
        }
    }
}
