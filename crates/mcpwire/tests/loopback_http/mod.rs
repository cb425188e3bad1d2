//! A fake HTTP/1.1 peer over real sockets for the tests that need one: a fresh loopback
//! port whose every connection is served by the test's handler.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// What a handler answers one request with, once it is ready.
pub type Answering = Pin<Box<dyn Future<Output = Response<Full<Bytes>>> + Send>>;

/// Serves `handler` on a fresh loopback port, each connection on a task of its own, until
/// the runtime ends; returns `http://127.0.0.1:PORT`.
pub async fn serve<F>(handler: F) -> String
where
    F: Fn(Request<Incoming>) -> Answering + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handler = Arc::new(handler);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let handler = handler.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let handler = handler.clone();
                    async move { Ok::<_, Infallible>(handler(req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    base
}
