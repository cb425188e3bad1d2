//! Transports: how messages reach a dispatcher and leave it.
//!
//! A transport is two bounded channels: [`Connection::incoming`] yields what the peer sent
//! (decoded messages with their [`InboundMeta`], or frames that failed to decode), and
//! [`Connection::outgoing`] takes what we send. Each transport runs its own reader and
//! writer tasks; the dispatcher never sees bytes. Bounded channels give back-pressure end
//! to end: a slow writer slows the handlers, a full inbound queue stops the reader.
//!
//! ```
//! use mcpwire::protocol::{Message, Notification};
//! use mcpwire::transport::{memory, Outgoing, TransportEvent};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let (a, mut b) = memory::pair();
//! let hello = Notification::new("notifications/initialized", None);
//! a.outgoing.send(Outgoing::unrelated(hello)).await.unwrap();
//! match b.incoming.recv().await {
//!     Some(TransportEvent::Message(inbound)) => {
//!         assert!(matches!(inbound.message, Message::Notification(n) if n.method == "notifications/initialized"))
//!     }
//!     other => panic!("{other:?}"),
//! }
//! # }
//! ```

pub(crate) mod batch_answers;
pub mod child;
#[cfg(feature = "http")]
pub mod http_client;
pub mod io;
pub mod lines;
pub mod memory;
pub(crate) mod oversized;
pub mod stdio;

use std::fmt;

use mcpwire_protocol::{DecodeError, Message, RequestId};
use tokio::sync::mpsc;

use crate::extensions::Extensions;

/// How many messages a transport channel holds before the sender waits.
pub const DEFAULT_CHANNEL_CAPACITY: usize = 1024;

/// Something that can be turned into a running [`Connection`].
pub trait Transport: Send + 'static {
    /// Starts the transport's tasks and returns its channel ends. Must be called inside a
    /// tokio runtime.
    fn connect(self) -> Connection;

    /// A key naming the server this transport reaches (for HTTP, the endpoint URL), under
    /// which a client given an [`EraCache`](crate::client::EraCache) remembers the
    /// server's era so later connections skip the probe.
    fn era_cache_key(&self) -> Option<String> {
        None
    }

    /// Whether every request sent over this transport gets some answer without delay (an
    /// HTTP POST always gets a status: a 2025-era server refuses `server/discover` at
    /// once). The client's era probe then waits with the ordinary request timeout instead
    /// of the short probe timeout, so that work done inside the probe's exchange (an OAuth
    /// login after a `401`, say) is not cut short.
    fn answers_every_request(&self) -> bool {
        false
    }

    /// A token the transport cancels once its writer has put out everything, its own
    /// goodbye included (the HTTP transport's `DELETE` of the session), after the
    /// connection closed: [`Client::close`](crate::client::Client::close) waits for it
    /// (bounded), so a program that exits right after closing loses nothing. `None`: the
    /// transport has no such goodbye.
    fn finished_signal(&self) -> Option<tokio_util::sync::CancellationToken> {
        None
    }

    /// The `initialize` answer of the 2025 session that replaced the one the handshake
    /// made, for a transport that replaces a session on its own (the HTTP client
    /// initializes a new one when the server forgot the first, and the server, restarted
    /// say, may answer with another revision, identity or capabilities): the
    /// [`Client`](crate::client::Client)'s view of the server
    /// ([`protocol_version`](crate::client::Client::protocol_version),
    /// [`server_capabilities`](crate::client::Client::server_capabilities), ...) is that
    /// answer's once it is set. `None`: the transport never replaces a session.
    fn renewed_session(&self) -> Option<RenewedSession> {
        None
    }
}

/// The `initialize` answer of the latest 2025 session a transport made in place of the
/// first (see [`Transport::renewed_session`]): the transport sets it, the client reads it.
/// One answer is swapped in whole, so a reader never sees one session's version beside
/// another's capabilities. Empty until a session is replaced; clones share it. It also
/// carries the `Mcp-Session-Id` of the current session, set by the HTTP client whenever
/// it takes one (or learns there is none): the one place the id is kept, which the
/// transport's requests read it from and the client reads to say whether the server
/// keeps sessions at all. And whether the connection fell back to the legacy HTTP+SSE
/// transport, whose one stream is the session though it has no `Mcp-Session-Id`.
#[derive(Clone, Debug, Default)]
pub struct RenewedSession(std::sync::Arc<std::sync::Mutex<Renewed>>);

/// The latest replacement session's answer, and how many replacements there were.
#[derive(Debug, Default)]
struct Renewed {
    answer: Option<std::sync::Arc<mcpwire_protocol::lifecycle::InitializeResult>>,
    count: u64,
    /// The current session's `Mcp-Session-Id`, if the server issued one.
    session_id: Option<String>,
    /// The connection speaks the legacy HTTP+SSE transport (2024-11-05).
    legacy_http_sse: bool,
}

impl RenewedSession {
    fn lock(&self) -> std::sync::MutexGuard<'_, Renewed> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the `initialize` answer of the new session.
    pub fn set(&self, answer: mcpwire_protocol::lifecycle::InitializeResult) {
        let mut renewed = self.lock();
        renewed.answer = Some(std::sync::Arc::new(answer));
        renewed.count += 1;
    }

    /// The `initialize` answer of the latest replacement session, if there was one.
    pub fn get(&self) -> Option<std::sync::Arc<mcpwire_protocol::lifecycle::InitializeResult>> {
        self.lock().answer.clone()
    }

    /// Records the `Mcp-Session-Id` of the session now in use (`None`: the server issued
    /// none, as a server that keeps no sessions does).
    pub fn set_session_id(&self, id: Option<String>) {
        self.lock().session_id = id;
    }

    /// The `Mcp-Session-Id` of the session now in use, if the server issued one.
    pub fn session_id(&self) -> Option<String> {
        self.lock().session_id.clone()
    }

    /// Hands `read` the `Mcp-Session-Id` of the session now in use, without copying it
    /// (the HTTP client reads it so for every 2025 request's headers).
    #[cfg(feature = "http")]
    pub(crate) fn with_session_id<R>(&self, read: impl FnOnce(Option<&str>) -> R) -> R {
        read(self.lock().session_id.as_deref())
    }

    /// Records that the connection speaks the legacy HTTP+SSE transport (2024-11-05): its
    /// stream carries every answer and is the session, with no `Mcp-Session-Id`.
    pub fn set_legacy_http_sse(&self) {
        self.lock().legacy_http_sse = true;
    }

    /// Whether the connection speaks the legacy HTTP+SSE transport (2024-11-05).
    pub fn legacy_http_sse(&self) -> bool {
        self.lock().legacy_http_sse
    }

    /// How many sessions have replaced the first: what the client learned of the server
    /// (its tools' output schemas, say) under another count is another session's.
    pub fn count(&self) -> u64 {
        self.lock().count
    }
}

/// The two channel ends of a running transport.
#[derive(Debug)]
pub struct Connection {
    /// What the peer sent, in arrival order. The channel closes when the peer is gone.
    pub incoming: mpsc::Receiver<TransportEvent>,
    /// What to send to the peer.
    pub outgoing: mpsc::Sender<Outgoing>,
}

impl Transport for Connection {
    fn connect(self) -> Connection {
        self
    }
}

/// One event from a transport's reader.
///
/// Every variant is one pointer wide (the event is 16 bytes): a tokio channel allocates
/// its first block of 32 slots when it is created, whatever its capacity, so the size of
/// this type is paid 32 times by every idle connection (a 2025 HTTP session keeps one
/// such channel for its whole life). One allocation per message buys that.
#[derive(Debug)]
pub enum TransportEvent {
    /// A message and what the transport knows about it.
    Message(Box<Inbound>),
    /// A frame that did not decode. The dispatcher answers it where JSON-RPC says to.
    Invalid(Box<DecodeError>),
    /// The transport itself failed one of our requests: its answer cannot come (a refused
    /// connection, an unreadable body, an HTTP failure). The waiting caller gets
    /// [`RequestError::Transport`](crate::RequestError::Transport). Only a transport's
    /// own code makes this event; nothing a peer sends decodes to it, so a peer's error
    /// never passes for a local failure.
    Failed(Box<LocalFailure>),
    /// The peer is gone; `reason` says what the transport knows (an exit status, the tail
    /// of a child's stderr). The channel closes right after.
    Closed {
        /// Why, if known. (A `Box<String>`, not a `String`, to keep the event small.)
        #[allow(clippy::box_collection)]
        reason: Option<Box<String>>,
    },
}

impl TransportEvent {
    /// A decoded message with its transport facts.
    pub fn message(message: impl Into<Message>, meta: InboundMeta) -> Self {
        TransportEvent::Message(Box::new(Inbound { message: message.into(), meta }))
    }

    /// A frame that did not decode.
    pub fn invalid(error: DecodeError) -> Self {
        TransportEvent::Invalid(Box::new(error))
    }

    /// The transport failed the outbound request `id` for `reason`.
    pub fn failed(id: RequestId, reason: impl Into<String>) -> Self {
        TransportEvent::Failed(Box::new(LocalFailure { id, reason: reason.into() }))
    }

    /// The peer is gone, for the given reason if known.
    pub fn closed(reason: Option<String>) -> Self {
        TransportEvent::Closed { reason: reason.map(Box::new) }
    }
}

/// A transport's own failure of one outbound request: the payload of
/// [`TransportEvent::Failed`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalFailure {
    /// The request that failed.
    pub id: RequestId,
    /// What failed, for a person to read (for example `HTTP 502 Bad Gateway`).
    pub reason: String,
}

/// In a message's extensions ([`InboundMeta::extensions`]) when it came inside a JSON-RPC
/// batch (a JSON array) on a line transport: a server takes requests in a batch only at
/// protocol version 2025-03-26, the one revision that has batches.
#[derive(Clone, Copy, Debug)]
pub struct Batched;

/// A decoded message and what the transport attaches to it: the payload of
/// [`TransportEvent::Message`].
#[derive(Debug)]
pub struct Inbound {
    /// The message.
    pub message: Message,
    /// What the transport knows about it.
    pub meta: InboundMeta,
}

/// A message to send, with the id of the inbound request it belongs to, if any: HTTP
/// transports route such messages onto that request's response stream.
///
/// Boxed, one pointer wide, for the reason given on [`TransportEvent`]: a dispatcher's
/// output channel pays this size 32 times from its creation.
#[derive(Debug)]
pub struct Outgoing(Box<(Message, Option<RequestId>)>);

impl Outgoing {
    /// `message`, related to the inbound request `related` (if any).
    pub fn new(message: impl Into<Message>, related: Option<RequestId>) -> Self {
        Outgoing(Box::new((message.into(), related)))
    }

    /// A message that belongs to no inbound request.
    pub fn unrelated(message: impl Into<Message>) -> Self {
        Outgoing::new(message, None)
    }

    /// The message.
    pub fn message(&self) -> &Message {
        &self.0 .0
    }

    /// The inbound request this message relates to.
    pub fn related(&self) -> Option<&RequestId> {
        self.0 .1.as_ref()
    }

    /// The message and the request it relates to.
    pub fn into_parts(self) -> (Message, Option<RequestId>) {
        *self.0
    }
}

/// Called at most once, when a request settles without any response being written (it was
/// cancelled by the peer). The 2025-era Streamable HTTP transport uses it to end the
/// request's stream with a `-32800` error; other transports leave it unset.
pub type UnansweredHook = Box<dyn FnOnce() + Send>;

/// Lets a handler end the HTTP connection of its request's SSE stream early (2025-era
/// polling, SEP-1699): the client reconnects after the `retry` delay with `GET` and
/// `Last-Event-ID`, and the rest of the stream is replayed. Transports that support it
/// put one in the request's [`InboundMeta::extensions`].
#[derive(Clone)]
pub struct StreamControl {
    close: std::sync::Arc<dyn Fn() + Send + Sync>,
}

impl StreamControl {
    /// A control that runs `close` when asked.
    pub fn new(close: impl Fn() + Send + Sync + 'static) -> Self {
        StreamControl { close: std::sync::Arc::new(close) }
    }

    /// Ends the stream's current connection (the stream itself goes on).
    pub fn close(&self) {
        (self.close)();
    }
}

impl fmt::Debug for StreamControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StreamControl")
    }
}

/// What a transport attaches to an inbound message.
#[derive(Default)]
pub struct InboundMeta {
    /// The "settled unanswered" hook for a request.
    pub on_unanswered: Option<UnansweredHook>,
    /// Transport facts for the handler (headers, principal, ...).
    pub extensions: Extensions,
    /// Set when this request has no way to carry server-to-client requests (for example
    /// a 2025 HTTP POST answered with a single JSON body): such requests then fail at
    /// once instead of waiting for an answer that cannot come.
    pub no_back_channel: bool,
}

impl fmt::Debug for InboundMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InboundMeta")
            .field("on_unanswered", &self.on_unanswered.is_some())
            .field("extensions", &self.extensions)
            .field("no_back_channel", &self.no_back_channel)
            .finish()
    }
}

// The sizes the docs above promise: a channel's first block is 32 of these.
const _: () = assert!(std::mem::size_of::<TransportEvent>() <= 16);
const _: () = assert!(std::mem::size_of::<Outgoing>() <= 8);
