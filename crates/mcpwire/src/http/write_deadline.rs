//! A connection whose writes must keep moving: a client that stops reading cannot hold
//! its connection for ever.
//!
//! A response the client does not read fills the socket's buffers, and then the write
//! waits. hyper has no deadline for that wait, so a client that sends a request and never
//! reads the answer would keep its connection (one of
//! [`HttpSettings::max_connections`](super::HttpSettings::max_connections)) and the
//! unwritten answer for as long as it liked. [`WriteDeadline`] fails a write that has made
//! no progress for [`HttpSettings::write_timeout`](super::HttpSettings::write_timeout),
//! which ends the connection. The deadline runs only while a write waits, from the first
//! wait since the last progress: a connection that is idle, or a stream with nothing to
//! send, is not writing and is never cut off by it, and a slow reader that keeps reading
//! keeps its connection.
//!
//! Why not a crate: hyper has no write timeout, and `tokio::time::timeout` bounds a whole
//! future, not each stalled write inside hyper's connection, so the socket carries it.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// `S` with a deadline on writes that make no progress (zero: none).
pub(super) struct WriteDeadline<S> {
    inner: S,
    timeout: Duration,
    /// Running while a write waits; made at the first wait after progress (a write
    /// that never waits, the usual one, costs no timer).
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> WriteDeadline<S> {
    pub(super) fn new(inner: S, timeout: Duration) -> Self {
        WriteDeadline { inner, timeout, stalled: None }
    }

    /// What to answer for a write that made no progress now: still waiting, or the
    /// error that ends the connection once the deadline has passed.
    fn waiting<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        if self.timeout.is_zero() {
            return Poll::Pending;
        }
        let timeout = self.timeout;
        let stalled = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing for {} ms", timeout.as_millis()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// The result of a write that did not wait: any progress restarts the deadline.
    fn moved<T>(&mut self, result: io::Result<T>) -> Poll<io::Result<T>> {
        self.stalled = None;
        Poll::Ready(result)
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Ready(result) => self.moved(result),
            Poll::Pending => self.waiting(cx),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(result) => self.moved(result),
            Poll::Pending => self.waiting(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Ready(result) => self.moved(result),
            Poll::Pending => self.waiting(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_shutdown(cx) {
            Poll::Ready(result) => self.moved(result),
            Poll::Pending => self.waiting(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_write_nobody_reads_fails_at_the_deadline() {
        let (near, _far) = tokio::io::duplex(64);
        let mut stream = WriteDeadline::new(near, Duration::from_secs(30));
        let start = tokio::time::Instant::now();
        let error = stream.write_all(&[0u8; 1024]).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert_eq!(start.elapsed(), Duration::from_secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_reader_that_keeps_reading_is_never_cut_off() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut stream = WriteDeadline::new(near, Duration::from_secs(30));
        // 64 bytes every 20 s: each wait is shorter than the deadline, the whole far longer.
        let reader = tokio::spawn(async move {
            let mut got = 0;
            let mut buf = [0u8; 64];
            while got < 1024 {
                tokio::time::sleep(Duration::from_secs(20)).await;
                got += far.read(&mut buf).await.unwrap();
            }
            got
        });
        let start = tokio::time::Instant::now();
        stream.write_all(&[0u8; 1024]).await.unwrap();
        stream.flush().await.unwrap();
        assert!(start.elapsed() > Duration::from_secs(200));
        assert_eq!(reader.await.unwrap(), 1024);
    }

    #[tokio::test(start_paused = true)]
    async fn a_zero_timeout_waits_as_long_as_the_reader_takes() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut stream = WriteDeadline::new(near, Duration::ZERO);
        let reader = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            let mut all = Vec::new();
            far.read_to_end(&mut all).await.unwrap();
            all.len()
        });
        stream.write_all(&[0u8; 1024]).await.unwrap();
        stream.shutdown().await.unwrap();
        assert_eq!(reader.await.unwrap(), 1024);
    }
}
