//! The response body of the MCP endpoint: a complete body, or a stream of SSE events fed
//! by a bounded queue (the sender side decides what to do when a reader is slow).

use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::mpsc;

use super::stream_queue::StreamReceiver;

/// A body that is either complete or streamed.
#[derive(Debug)]
pub struct McpBody {
    kind: Kind,
    /// Dropped with the body (when the response is done or the client went away).
    guard: Option<Guard>,
}

/// Something to drop when the body is dropped.
struct Guard(#[allow(dead_code)] Box<dyn Send + Sync>);

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Guard")
    }
}

#[derive(Debug)]
enum Kind {
    Full(Option<Bytes>),
    /// A channel's chunks, as they come ([`McpBody::stream`]).
    Stream(mpsc::Receiver<Bytes>),
    /// A 2025 session's stream; chunks already taken from it go first.
    Session(std::vec::IntoIter<Bytes>, StreamReceiver),
}

impl McpBody {
    /// A complete body.
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        McpBody { kind: Kind::Full(Some(bytes.into())), guard: None }
    }

    /// An empty body.
    pub fn empty() -> Self {
        McpBody { kind: Kind::Full(None), guard: None }
    }

    /// A streamed body: each received chunk is sent as it comes; the body ends when every
    /// sender is dropped.
    pub fn stream(receiver: mpsc::Receiver<Bytes>) -> Self {
        McpBody { kind: Kind::Stream(receiver), guard: None }
    }

    /// A 2025 session's stream: `first` (what was taken from it already), then what
    /// `receiver` brings until the stream ends.
    pub(crate) fn session_stream(first: Vec<Bytes>, receiver: StreamReceiver) -> Self {
        McpBody { kind: Kind::Session(first.into_iter(), receiver), guard: None }
    }

    /// Keeps `guard` alive as long as the body: it is dropped when the response has been
    /// sent or the client went away (for example to end a throwaway session).
    pub(crate) fn with_guard(mut self, guard: impl Send + Sync + 'static) -> Self {
        self.guard = Some(Guard(Box::new(guard)));
        self
    }
}

impl Body for McpBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let chunk = match &mut self.kind {
            Kind::Full(bytes) => bytes.take(),
            Kind::Stream(rx) => ready!(rx.poll_recv(cx)),
            Kind::Session(first, rx) => match first.next() {
                Some(chunk) => Some(chunk),
                None => ready!(rx.poll_recv(cx)),
            },
        };
        Poll::Ready(chunk.map(|b| Ok(Frame::data(b))))
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.kind, Kind::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            Kind::Full(None) => SizeHint::with_exact(0),
            Kind::Stream(..) | Kind::Session(..) => SizeHint::default(),
        }
    }
}
