//! The server side of stdio: messages on stdin, messages on stdout, nothing else ever on
//! stdout. Log to stderr (for example with a `tracing` subscriber writing to stderr).
//!
//! Two ways to reach the standard streams, chosen at compile time:
//!
//! - **Unix** reads and writes pipes and sockets through the runtime's event loop, on
//!   non-blocking duplicates of fds 0 and 1 (see `unix.rs` for the rules that come with
//!   that); terminals and files fall back to tokio's `Stdin`/`Stdout`.
//! - **Elsewhere** (Windows, where many MCP hosts run stdio servers) uses tokio's
//!   `Stdin`/`Stdout`, which do each read and write on the blocking thread pool. The
//!   `portable-stdio` feature selects this path on Unix too, so that it is built and
//!   tested on Unix hosts; nothing else needs it.
//!
//! A stdio server does its I/O on one thread either way, so tokio's current-thread
//! runtime (`#[tokio::main(flavor = "current_thread")]`) serves it with the least memory;
//! the multi-thread runtime works too.
//!
//! ```no_run
//! use mcpwire::server::{tool, Server};
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() {
//!     let server = Server::builder("weather", "1.0.0")
//!         .tool(tool("forecast").description("Tomorrow's weather").handler(|| "sunny"))
//!         .build()
//!         .unwrap();
//!     // The same as `server.serve_stdio().await`.
//!     server.serve(mcpwire::transport::stdio::stdio()).await;
//! }
//! ```

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::io::IoTransport;

#[cfg(any(not(unix), feature = "portable-stdio"))]
mod portable;
#[cfg(all(unix, not(feature = "portable-stdio")))]
mod unix;

#[cfg(any(not(unix), feature = "portable-stdio"))]
use portable::{open_input, open_output, Input, Output};
#[cfg(all(unix, not(feature = "portable-stdio")))]
use unix::{open_input, open_output, Input, Output};

/// A transport on this process's stdin and stdout. Must be called inside a tokio runtime.
pub fn stdio() -> IoTransport<StdinReader, StdoutWriter> {
    IoTransport::new(StdinReader::open(), StdoutWriter::open())
}

/// This process's stdin, read the cheapest way the platform and the stream's kind allow.
#[derive(Debug)]
pub struct StdinReader(Input);

/// This process's stdout, written the cheapest way the platform and the stream's kind
/// allow.
#[derive(Debug)]
pub struct StdoutWriter(Output);

impl StdinReader {
    /// Opens this process's stdin. Must be called inside a tokio runtime.
    pub fn open() -> Self {
        StdinReader(open_input())
    }
}

impl StdoutWriter {
    /// Opens this process's stdout. Must be called inside a tokio runtime.
    pub fn open() -> Self {
        StdoutWriter(open_output())
    }
}

impl AsyncRead for StdinReader {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_read(cx, buf)
    }
}

impl AsyncWrite for StdoutWriter {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_shutdown(cx)
    }
}
