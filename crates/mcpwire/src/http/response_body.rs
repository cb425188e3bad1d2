//! The response body of the MCP endpoint: a complete body, or a stream of SSE events fed
//! by a bounded queue (the sender side decides what to do when a reader is slow).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

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
struct Guard(#[allow(dead_code)] Arc<dyn Send + Sync>);

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Guard")
    }
}

/// The text of a body and what its request left behind ([`McpBody::full_leaving`]).
struct Written<L> {
    text: Vec<u8>,
    _leftovers: L,
}

impl<L> AsRef<[u8]> for Written<L> {
    fn as_ref(&self) -> &[u8] {
        &self.text
    }
}

#[derive(Debug)]
enum Kind {
    Full(Option<Bytes>),
    /// A channel's chunks, as they come ([`McpBody::stream`]).
    Stream(mpsc::Receiver<Bytes>),
    /// A 2025 session's stream; chunks already taken from it go first.
    Session(std::vec::IntoIter<Bytes>, StreamReceiver, KeepAlive),
}

/// An SSE comment on a stream quiet for `every` (none when it is zero). Intermediaries
/// cut idle responses (a reverse proxy's read timeout is often 60 s), and a write is what
/// tells a server that a client vanished without closing its connection: without one, a
/// quiet standalone stream (and with it its session) would be kept for ever.
#[derive(Debug)]
struct KeepAlive {
    every: Duration,
    /// Made when the stream first waits, reset by every event and comment.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl KeepAlive {
    /// An event went out: the next comment is due a whole interval from now.
    fn restart(&mut self) {
        if let Some(timer) = self.timer.as_mut() {
            timer.as_mut().reset(tokio::time::Instant::now() + self.every);
        }
    }

    /// Ready when a comment is due.
    fn poll_due(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.every.is_zero() {
            return Poll::Pending;
        }
        let every = self.every;
        let timer = self.timer.get_or_insert_with(|| Box::pin(tokio::time::sleep(every)));
        ready!(timer.as_mut().poll(cx));
        self.restart();
        Poll::Ready(())
    }
}

impl McpBody {
    /// A complete body.
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        McpBody { kind: Kind::Full(Some(bytes.into())), guard: None }
    }

    /// A complete body whose bytes also own `leftovers`: what the request it answers
    /// left behind (its parts, its body, its finished handler), freed with the bytes.
    /// On a connection with vectored writes (a TCP socket), hyper keeps a body's bytes
    /// in its write queue until the socket has taken them, so those frees come after the
    /// answer has left, not on the client's wait for it (elsewhere hyper copies the bytes
    /// and frees them at once: no gain, no harm).
    pub(crate) fn full_leaving(text: Vec<u8>, leftovers: impl Send + 'static) -> Self {
        McpBody::full(Bytes::from_owner(Written { text, _leftovers: leftovers }))
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
    /// `receiver` brings until the stream ends, with a comment whenever it has been
    /// quiet for `keep_alive` (never when that is zero).
    pub(crate) fn session_stream(first: Vec<Bytes>, receiver: StreamReceiver, keep_alive: Duration) -> Self {
        let keep_alive = KeepAlive { every: keep_alive, timer: None };
        McpBody { kind: Kind::Session(first.into_iter(), receiver, keep_alive), guard: None }
    }

    /// Keeps `guard` alive as long as the body: it is dropped when the response has been
    /// sent or the client went away (for example to end a throwaway session). Taken as
    /// an `Arc`: a guard that is one already (a 2025 POST's request slots) is
    /// kept as it is, with no box around it.
    pub(crate) fn with_guard<T: Send + Sync + 'static>(mut self, guard: Arc<T>) -> Self {
        self.guard = Some(Guard(guard));
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
            Kind::Session(first, rx, keep_alive) => match first.next() {
                Some(chunk) => Some(chunk),
                None => match rx.poll_recv(cx) {
                    Poll::Ready(chunk) => {
                        keep_alive.restart();
                        chunk
                    }
                    Poll::Pending => {
                        ready!(keep_alive.poll_due(cx));
                        Some(super::sse::keep_alive())
                    }
                },
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use http_body_util::BodyExt;

    use super::*;

    /// Sets its flag when dropped.
    struct Dropped(Arc<AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[tokio::test]
    async fn leftovers_outlive_the_body_until_its_bytes_are_dropped() {
        let freed = Arc::new(AtomicBool::new(false));
        let mut body = McpBody::full_leaving(b"{\"ok\":true}".to_vec(), Dropped(freed.clone()));
        assert_eq!(body.size_hint().exact(), Some(11));
        let chunk = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert!(body.is_end_stream());
        assert!(body.frame().await.is_none());
        // What a server does: the body is done with before its bytes are written.
        drop(body);
        assert_eq!(&chunk[..], b"{\"ok\":true}");
        assert!(!freed.load(Ordering::SeqCst), "freed before the bytes were written");
        let written = chunk.clone();
        drop(chunk);
        assert!(!freed.load(Ordering::SeqCst), "a share of the bytes is still alive");
        drop(written);
        assert!(freed.load(Ordering::SeqCst));
    }

    #[tokio::test]
    async fn leftovers_of_a_body_never_polled_are_freed_with_it() {
        let freed = Arc::new(AtomicBool::new(false));
        drop(McpBody::full_leaving(Vec::new(), Dropped(freed.clone())));
        assert!(freed.load(Ordering::SeqCst));
    }
}
