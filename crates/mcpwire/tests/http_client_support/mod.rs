//! What the HTTP client tests share: serving our `McpService` on one connection of a
//! test-made listener (plain TCP, TLS, or one the test can kill).

use std::convert::Infallible;

use hyper_util::rt::TokioIo;
use mcpwire::http::McpService;
use tokio::io::{AsyncRead, AsyncWrite};

/// Serves `service` over HTTP/1.1 on `io` until the connection ends.
pub async fn serve_connection(io: impl AsyncRead + AsyncWrite + Unpin + Send + 'static, service: McpService) {
    let handler = hyper::service::service_fn(move |request| {
        let service = service.clone();
        async move { Ok::<_, Infallible>(service.handle(request).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(io), handler).await;
}
