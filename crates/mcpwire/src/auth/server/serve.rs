//! Runs any HTTP `tower::Service` (for example a [`MetadataRouter`](super::MetadataRouter)
//! around a protected endpoint) on a bound listener. [`crate::http::serve`] only takes an
//! [`McpService`](crate::http::McpService), which cannot sit behind a layer.

use std::convert::Infallible;

use http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::http::Bound;

/// How long a graceful shutdown waits for open connections (streams included).
const DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Serves `service` on `listener` (HTTP/1.1, keep-alive, `TCP_NODELAY`) in the
/// background until [`Bound::shutdown`] is cancelled; then open connections get up to 5 s
/// to finish. Call [`McpService::shutdown`](crate::http::McpService::shutdown) first so
/// that long-lived streams end.
pub fn serve_service<S, B>(listener: TcpListener, service: S) -> std::io::Result<Bound>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let local_addr = listener.local_addr()?;
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    let task = tokio::spawn(async move {
        let tracker = tokio_util::task::TaskTracker::new();
        while let Some(accepted) = tokio::select! {
            _ = stop.cancelled() => None,
            accepted = listener.accept() => Some(accepted),
        } {
            let Ok((stream, _)) = accepted else {
                // Out of descriptors and the like: back off instead of spinning.
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            };
            let _ = stream.set_nodelay(true);
            let service = service.clone();
            let stop = stop.clone();
            tracker.spawn(async move {
                let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let mut service = service.clone();
                    async move {
                        futures_util::future::poll_fn(|cx| service.poll_ready(cx)).await?;
                        service.call(request).await
                    }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    // The timer enables hyper's 30 s limit on reading a request head, so a
                    // client cannot hold a connection open without sending one.
                    .timer(hyper_util::rt::TokioTimer::new())
                    .serve_connection(TokioIo::new(stream), handler);
                tokio::pin!(conn);
                tokio::select! {
                    _ = conn.as_mut() => {}
                    _ = stop.cancelled() => {
                        conn.as_mut().graceful_shutdown();
                        let _ = tokio::time::timeout(DRAIN_TIMEOUT, conn).await;
                    }
                }
            });
        }
        tracker.close();
        let _ = tokio::time::timeout(DRAIN_TIMEOUT, tracker.wait()).await;
    });
    Ok(Bound { local_addr, shutdown, task })
}
