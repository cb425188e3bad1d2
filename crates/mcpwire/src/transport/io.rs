//! A transport over any byte stream pair, framed as newline-delimited JSON: the basis of
//! stdio on both sides, and handy over `tokio::io::duplex` in tests.
//!
//! ```
//! use mcpwire::client::Client;
//! use mcpwire::server::{tool, Server};
//! use mcpwire::transport::io::IoTransport;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = Server::builder("s", "1").tool(tool("ping").description("p").handler(|| "pong")).build().unwrap();
//! // Two byte streams joined back to back, as a socket or a pipe pair would be.
//! let (ours, theirs) = tokio::io::duplex(64 * 1024);
//! let (read, write) = tokio::io::split(theirs);
//! tokio::spawn(async move { server.serve(IoTransport::new(read, write)).await });
//! let (read, write) = tokio::io::split(ours);
//! let client = Client::builder("c", "1").connect(IoTransport::new(read, write)).await.unwrap();
//! assert_eq!(client.call_tool("ping", serde_json::json!({})).await.unwrap().content[0].as_text(), Some("pong"));
//! # }
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, ReadBuf};
use tokio::sync::{mpsc, oneshot};

use super::lines::{read_loop, write_loop, Arrivals, DEFAULT_MAX_LINE_BYTES};
use super::{Connection, Transport, TransportEvent, DEFAULT_CHANNEL_CAPACITY};

/// Newline-delimited JSON over a reader and a writer.
pub struct IoTransport<R, W> {
    reader: R,
    writer: W,
    max_line_bytes: usize,
    channel_capacity: usize,
}

impl<R, W> IoTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading messages from `reader` and writing them to `writer`.
    pub fn new(reader: R, writer: W) -> Self {
        IoTransport {
            reader,
            writer,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            channel_capacity: DEFAULT_CHANNEL_CAPACITY,
        }
    }

    /// The longest line accepted (default 16 MiB). A longer line is discarded and answered
    /// with an `Invalid request` error; the connection goes on.
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes.max(1);
        self
    }

    /// How many messages each direction queues before applying back-pressure.
    pub fn channel_capacity(mut self, capacity: usize) -> Self {
        self.channel_capacity = capacity.max(1);
        self
    }
}

impl<R, W> Transport for IoTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    fn connect(self) -> Connection {
        let (in_tx, in_rx) = mpsc::channel(self.channel_capacity);
        let (out_tx, mut out_rx) = mpsc::channel(self.channel_capacity);
        let max = self.max_line_bytes;
        let reader = self.reader;
        let events = in_tx.clone();
        let arrivals = Arrivals::new();
        let read_arrivals = arrivals.clone();
        // Told why, if writing fails: nothing written can reach the peer any more (a stdio
        // client that closed our stdout), so the connection ends as at the end of input,
        // instead of serving unheard whatever the peer still sends.
        let (write_failed, failure) = oneshot::channel::<String>();
        tokio::spawn(async move {
            let reader = BufReader::with_capacity(64 * 1024, reader);
            let failure = async {
                match failure.await {
                    Ok(reason) => reason,
                    // The writer finished without failing: reading goes on to the end.
                    Err(_) => std::future::pending().await,
                }
            };
            let reason = tokio::select! {
                // In this order: no random pick on each wake of the reading loop.
                biased;
                read = read_loop(reader, max, &events, &read_arrivals) => match read {
                    Ok(()) => None,
                    Err(e) => Some(format!("read failed: {e}")),
                },
                reason = failure => Some(reason),
            };
            let _ = events.send(TransportEvent::closed(reason)).await;
        });
        let mut writer = self.writer;
        // Held until everything queued is written: the dispatcher waits for the incoming
        // channel to close before it returns, so the last answers are not lost.
        let writing = in_tx;
        tokio::spawn(async move {
            if let Err(e) = write_loop(&mut writer, &mut out_rx, &arrivals, std::future::pending()).await {
                tracing::debug!("transport write failed: {e}");
                let _ = write_failed.send(format!("write failed: {e}"));
            }
            let _ = writer.shutdown().await;
            drop(writing);
        });
        Connection { incoming: in_rx, outgoing: out_tx }
    }
}

/// A reader that reads as its inner one does until `stop` completes, then ends (reads
/// nothing more, as at the end of input): a stop signal then shuts a connection down as
/// its peer closing the stream would, with the grace and the answers that brings
/// ([`Server::serve_stdio_until`](crate::server::Server::serve_stdio_until)).
pub(crate) struct EndsWhen<R> {
    inner: R,
    stop: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl<R> EndsWhen<R> {
    pub(crate) fn new(inner: R, stop: impl Future<Output = ()> + Send + 'static) -> Self {
        EndsWhen { inner, stop: Some(Box::pin(stop)) }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for EndsWhen<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        match this.stop.as_mut().map(|stop| stop.as_mut().poll(cx)) {
            // Stopped: nothing more is read (a read of no bytes is the end of input).
            None | Some(Poll::Ready(())) => {
                this.stop = None;
                Poll::Ready(Ok(()))
            }
            Some(Poll::Pending) => Pin::new(&mut this.inner).poll_read(cx, buf),
        }
    }
}
