//! The JSON-RPC dispatcher: the engine both the server and the client run on. How a
//! request flows from a transport through here to a handler and back is in the
//! repository's `docs/ARCHITECTURE.md`.
//!
//! It reads a transport's messages and routes them: responses to the outbound requests
//! waiting for them, requests and notifications to a [`Handler`], each as its own task
//! started in arrival order. Its rules, in one place:
//! - **A cancelled request is never answered.** When the peer sends
//!   `notifications/cancelled`, interrupt mode (the default) drops the handler's future and
//!   signal mode only cancels its token; either way no result and no error is written, even
//!   if the handler finishes or fails afterwards. The transport's "settled unanswered" hook
//!   is called instead (see [`InboundMeta`](crate::transport::InboundMeta)).
//! - **One place turns handler errors into wire errors** ([`McpError`](crate::McpError)): protocol errors
//!   keep their code, anything else is logged and answered `-32603`, and a panicking
//!   handler is answered like an internal error while the connection lives on.
//! - **Shutdown answers what is still in flight** with `-32000` "Connection closed"
//!   (`-32603` in the 2026 era, which asks that `-32000…-32019` not be used:
//!   [`Handler::in_stateless_era`]), unless an answer was already written or the peer
//!   cancelled the request; outbound
//!   waiters fail with a connection-closed error. When the peer's input ends, the
//!   requests already running first get a short grace
//!   ([`DispatcherConfig::input_end_grace`]) to be answered as usual.
//!
//! A transport that gets each request on its own and answers it on its own (a 2026 HTTP
//! POST) serves it with `serve_one` instead of a whole dispatcher: the same rules, applied
//! by the same code, with the handler running inside the caller's future and the answer
//! returned rather than queued (see `oneshot.rs`). A transport whose messages arrive
//! with requests of its own (a 2025 HTTP session's POSTs) feeds a `Direct` connection
//! from those requests' tasks: the same rules again, with no reading loop, task or
//! queue kept between them. There each request is first polled by the POST that brought
//! it (which waits for its answer anyway) and gets a task of its own only if it has to
//! wait, so it goes on if that POST's client goes away.
//!
//! ```
//! use mcpwire::jsonrpc::{CallOptions, Dispatcher, Handler, NoHandler, RequestContext};
//! use mcpwire::protocol::{RawJson, Request};
//! use mcpwire::McpError;
//!
//! /// Answers every request with its own params.
//! struct Echo;
//!
//! impl Handler for Echo {
//!     async fn on_request(&self, request: Request, _ctx: RequestContext) -> Result<RawJson, McpError> {
//!         request.params.ok_or_else(|| McpError::invalid_params("nothing to echo"))
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let (a, b) = mcpwire::transport::memory::pair();
//! Dispatcher::new(b).spawn(Echo);
//! let caller = Dispatcher::new(a);
//! let peer = caller.peer();
//! caller.spawn(NoHandler);
//! let params = serde_json::value::to_raw_value(&serde_json::json!({ "n": 1 })).unwrap();
//! let answer = peer.request_raw("echo", Some(params), CallOptions::default()).await.unwrap();
//! assert_eq!(answer.get(), r#"{"n":1}"#);
//! # }
//! ```

mod context;
#[cfg(feature = "http")]
mod direct;
mod handler;
mod in_flight;
mod inbound;
mod intake;
#[cfg(feature = "http")]
mod oneshot;
mod outbound;
mod progress;

use std::sync::atomic::{AtomicI64, AtomicU8, Ordering};
#[cfg(feature = "http")]
use std::sync::Weak;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::task::TaskTracker;

pub use context::{NotificationContext, RequestContext};
#[cfg(feature = "http")]
pub(crate) use direct::{Direct, Route};
pub use handler::{Handler, NoHandler};
#[cfg(feature = "http")]
pub(crate) use inbound::duplicate_id;
#[cfg(feature = "http")]
pub(crate) use oneshot::{serve_one, OneShot};
pub use outbound::CallOptions;
pub use progress::{ProgressCallback, ProgressUpdate};

use crate::error::RequestError;
use crate::transport::{Connection, Outgoing, Transport, TransportEvent};
use context::Fire;
use in_flight::InFlightTable;
use intake::{Inline, Intake, Next};
use outbound::PendingTable;

/// How `notifications/cancelled` from the peer is applied to a running handler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PeerCancelMode {
    /// Drop the handler's future at once (the default).
    #[default]
    Interrupt,
    /// Only cancel the handler's token and let it run to completion. This applies to
    /// the peer's `notifications/cancelled`; the end of the connection still drops every
    /// handler (after firing its token), and a Streamable HTTP request without a session
    /// (2026, or a 2025 server without sessions) is cancelled by closing its connection.
    Signal,
}

/// Dispatcher settings. Every bound has a default and a setter.
#[derive(Clone, Debug)]
pub struct DispatcherConfig {
    /// How peer cancellation is applied.
    pub cancel_mode: PeerCancelMode,
    /// At most this many inbound requests run at once. Beyond it a connection that reads
    /// its transport (stdio, a child process, an in-memory pair) answers a further request
    /// at once with `-32603` and reads on; a 2025 HTTP session's POST waits for a slot.
    /// Default 4096.
    pub max_in_flight: usize,
    /// Default timeout of outbound requests (`None`: wait forever). Default 60 s.
    pub request_timeout: Option<Duration>,
    /// Methods whose handler runs to completion before the next message is read (for
    /// `initialize`, which must be settled before anything that follows it). A handler
    /// that waits for the peer here would deadlock.
    pub inline_methods: Vec<String>,
    /// How long shutdown waits for handlers to write their shutdown answers ("Connection
    /// closed").
    pub shutdown_grace: Duration,
    /// When the peer's input ends (the transport reports it closed: a stdio server's
    /// stdin reaches its end), how long the requests already running may still finish and
    /// be answered as usual before shutdown answers the rest. A client that writes its
    /// requests and then closes its end (`printf ... | server`) gets its answers; one
    /// that has gone away costs the server at most this long. Default 500 ms; zero shuts
    /// down at once. Outbound requests fail at once either way: no answer can come.
    pub input_end_grace: Duration,
    /// The longest an inbound request's handler may run (`None`, the default: no limit;
    /// the peer's own timeout and cancel bound it). Past it the handler is dropped, its
    /// cancellation token fires, and the request is answered `-32603` once.
    pub handler_timeout: Option<Duration>,
}

impl Default for DispatcherConfig {
    fn default() -> Self {
        DispatcherConfig {
            cancel_mode: PeerCancelMode::Interrupt,
            max_in_flight: 4096,
            request_timeout: Some(Duration::from_secs(60)),
            inline_methods: Vec::new(),
            shutdown_grace: Duration::from_secs(1),
            input_end_grace: Duration::from_millis(500),
            handler_timeout: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum State {
    NotStarted = 0,
    Running = 1,
    Closed = 2,
}

/// Where a connection's outgoing messages go.
pub(crate) enum Outlet {
    /// The transport's bounded queue, which its writer takes them from.
    Queue(mpsc::Sender<Outgoing>),
    /// A router that places each message as it is sent, in the sender's task (a 2025
    /// HTTP session: it only puts messages on response streams, bounded queues of their
    /// own, so a queue and a task in front of it would cost every session, idle or not,
    /// a channel and a wake-up per message for nothing). Weak: the router owns the
    /// connection, not the other way round.
    #[cfg(feature = "http")]
    Direct(Weak<dyn Route>),
    /// A one-shot request's queue ([`serve_one`]), made when first used.
    #[cfg(feature = "http")]
    OnDemand(oneshot::OnDemandQueue),
}

/// What the dispatcher and every [`Peer`] handle share.
pub(crate) struct Shared {
    state: AtomicU8,
    /// Shared, not copied: a one-shot request ([`serve_one`]) takes its endpoint's.
    pub(crate) config: Arc<DispatcherConfig>,
    outgoing: RwLock<Option<Outlet>>,
    pending: Mutex<PendingTable>,
    next_id: AtomicI64,
    in_flight: Mutex<InFlightTable>,
    close_reason: Mutex<Option<String>>,
    /// Cancelled when the connection shuts down (the parent of every handler's token;
    /// [`Shared::shut_down`] cancels it).
    shutdown: tokio_util::sync::CancellationToken,
}

impl Shared {
    /// A connection's state before it runs, writing to `outgoing`.
    fn new(config: Arc<DispatcherConfig>, outgoing: Outlet) -> Self {
        Shared {
            state: AtomicU8::new(State::NotStarted as u8),
            config,
            outgoing: RwLock::new(Some(outgoing)),
            pending: Mutex::new(PendingTable::default()),
            next_id: AtomicI64::new(1),
            in_flight: Mutex::new(InFlightTable::default()),
            close_reason: Mutex::new(None),
            shutdown: tokio_util::sync::CancellationToken::new(),
        }
    }

    pub(crate) fn state(&self) -> State {
        match self.state.load(Ordering::Acquire) {
            0 => State::NotStarted,
            1 => State::Running,
            _ => State::Closed,
        }
    }

    /// Whether the transport's queue of outgoing messages is full: the peer is not reading
    /// what this side writes (only a [`Outlet::Queue`] can tell).
    fn output_full(&self) -> bool {
        matches!(&*self.outgoing.read().unwrap_or_else(|e| e.into_inner()), Some(Outlet::Queue(tx)) if tx.capacity() == 0)
    }

    /// Starts shutting the connection down: cancels the shutdown token and fires every
    /// request in flight. A request registered after this fires at once
    /// ([`inbound::start_request`] looks at the token after registering it), so none is
    /// missed whichever comes first.
    fn shut_down(&self) {
        self.shutdown.cancel();
        for entry in lock(&self.in_flight).values() {
            entry.fire(Fire::Shutdown);
        }
    }

    /// The router of a direct connection, while it lives.
    #[cfg(feature = "http")]
    fn direct_route(&self) -> Option<Arc<dyn Route>> {
        match &*self.outgoing.read().unwrap_or_else(|e| e.into_inner()) {
            Some(Outlet::Direct(route)) => route.upgrade(),
            _ => None,
        }
    }

    fn closed_error(&self) -> RequestError {
        let reason = self.close_reason.lock().unwrap_or_else(|e| e.into_inner()).clone();
        RequestError::ConnectionClosed { reason }
    }
}

/// A handle for sending requests and notifications to the peer. Cheap to clone.
#[derive(Clone)]
pub struct Peer {
    pub(crate) shared: Arc<Shared>,
}

impl Peer {
    /// Whether the connection is running (started and not closed).
    pub fn is_running(&self) -> bool {
        self.shared.state() == State::Running
    }

    /// Whether the connection has closed, or [`Peer::close`] has been called: from then
    /// on nothing sent is answered, even while the dispatcher is still winding down.
    pub fn is_closed(&self) -> bool {
        self.shared.state() == State::Closed || self.shared.shutdown.is_cancelled()
    }

    /// Asks the connection to shut down; [`Dispatcher::run`] then returns.
    pub fn close(&self) {
        self.shared.shut_down();
        #[cfg(feature = "http")]
        if let Some(route) = self.shared.direct_route() {
            route.closing();
        }
    }

    /// Resolves when the connection has shut down.
    pub async fn closed(&self) {
        self.shared.shutdown.cancelled().await;
    }
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer").field("state", &self.shared.state()).finish()
    }
}

/// A JSON-RPC connection over a transport. Create it, take [`Dispatcher::peer`] handles,
/// then [`Dispatcher::run`] it with a [`Handler`].
pub struct Dispatcher {
    shared: Arc<Shared>,
    incoming: mpsc::Receiver<TransportEvent>,
}

impl Dispatcher {
    /// Connects `transport` (starting its tasks) with the default configuration.
    pub fn new(transport: impl Transport) -> Self {
        Self::with_config(transport, DispatcherConfig::default())
    }

    /// Connects `transport` with `config`. Must be called inside a tokio runtime.
    pub fn with_config(transport: impl Transport, config: DispatcherConfig) -> Self {
        Self::with_shared_config(transport, Arc::new(config))
    }

    /// [`Dispatcher::with_config`] with a configuration shared by many connections (a
    /// server's sessions), so each does not keep a copy.
    pub(crate) fn with_shared_config(transport: impl Transport, config: Arc<DispatcherConfig>) -> Self {
        let Connection { incoming, outgoing } = transport.connect();
        let shared = Arc::new(Shared::new(config, Outlet::Queue(outgoing)));
        Dispatcher { shared, incoming }
    }

    /// A handle for outbound messages. Requests fail until [`Dispatcher::run`] starts.
    pub fn peer(&self) -> Peer {
        Peer { shared: self.shared.clone() }
    }

    /// Starts [`Dispatcher::run`] on a new task. The connection counts as running from
    /// this call on, so requests sent right after it do not race the task's start.
    pub fn spawn<H: Handler>(self, handler: H) -> tokio::task::JoinHandle<()> {
        self.shared.state.store(State::Running as u8, Ordering::Release);
        tokio::spawn(self.run(handler))
    }

    /// Runs the connection until the peer goes away or [`Peer::close`] is called, then
    /// shuts down: in-flight requests are answered "Connection closed" (or cancelled),
    /// outbound waiters fail, and the transport's writer is closed.
    ///
    /// Called outside any task on a multi-thread runtime (`block_on(server.serve_stdio())`,
    /// which is what `#[tokio::main]` does), the loop moves onto a task of its own: on the
    /// `block_on` thread it would hand every message to the workers running the request
    /// tasks, a cross-thread wake-up per message. Dropping this future still stops it, and
    /// the connection then ends as described above, on a task of its own.
    pub async fn run<H: Handler>(self, handler: H) {
        let on_block_on_thread = tokio::task::try_id().is_none()
            && tokio::runtime::Handle::try_current()
                .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if !on_block_on_thread {
            return self.run_here(handler).await;
        }
        let mut task = AbortOnDrop(tokio::spawn(self.run_here(handler)));
        if let Err(e) = (&mut task.0).await {
            if e.is_panic() {
                std::panic::resume_unwind(e.into_panic());
            }
        }
    }

    /// [`Dispatcher::run`] on the calling task.
    async fn run_here<H: Handler>(self, handler: H) {
        let Dispatcher { shared, mut incoming } = self;
        let intake = Intake::new(shared, Arc::new(handler), Inline::InPlace);
        let shared = &intake.peer.shared;
        shared.state.store(State::Running as u8, Ordering::Release);
        let mut end = EndOnDrop { shared: shared.clone(), tasks: intake.tasks.clone(), armed: true };

        // Whether the transport ended (rather than `Peer::close`).
        let transport_closed = loop {
            let event = tokio::select! {
                biased;
                _ = shared.shutdown.cancelled() => break false,
                event = incoming.recv() => event,
            };
            let Some(event) = event else { break true };
            if let Next::Stop { transport_closed } = intake.take(event).await {
                break transport_closed;
            }
        };

        // Boxed: its timers are needed once, at the end, and inline they would be part
        // of the loop's future, which every connection holds for its whole life.
        Box::pin(close_connection(shared, intake.tasks.clone(), Some(&mut incoming), transport_closed)).await;
        end.armed = false;
    }
}

/// Ends the connection when the future of [`Dispatcher::run`] is dropped before it has
/// (its task aborted, a `select!` around it taking another branch): the end is the usual
/// one, [`close_connection`], on a task of its own, so the requests in flight are stopped
/// and answered "Connection closed" and the transport's writer closes. The requests'
/// tasks would otherwise go on, holding the writer open, and the peer would never learn
/// that the connection had ended.
struct EndOnDrop {
    shared: Arc<Shared>,
    tasks: TaskTracker,
    armed: bool,
}

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (shared, tasks) = (self.shared.clone(), self.tasks.clone());
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move { close_connection(&shared, tasks, None, false).await });
            }
            // No runtime (it is going away, and the requests' tasks with it): nothing can
            // be answered; the waiters fail and the writer is let go at once.
            Err(_) => {
                shared.state.store(State::Closed as u8, Ordering::Release);
                lock(&shared.pending).fail_all();
                shared.shut_down();
                shared.outgoing.write().unwrap_or_else(|e| e.into_inner()).take();
            }
        }
    }
}

/// The end of a connection: no new requests, fail the waiters, let handlers answer,
/// close the writer (and, when the transport ended, let it put out what is queued).
///
/// When the transport ended (the peer's input did), the running requests first get
/// [`DispatcherConfig::input_end_grace`] to finish on their own: the peer may still be
/// reading their answers. Then shutdown cancels the rest, which answer "Connection
/// closed".
async fn close_connection(
    shared: &Shared,
    tasks: TaskTracker,
    incoming: Option<&mut mpsc::Receiver<TransportEvent>>,
    transport_closed: bool,
) {
    shared.state.store(State::Closed as u8, Ordering::Release);
    lock(&shared.pending).fail_all();
    tasks.close();
    let grace = shared.config.input_end_grace;
    if transport_closed && !grace.is_zero() && tokio::time::timeout(grace, tasks.wait()).await.is_err() {
        tracing::debug!(
            "requests still running when the peer's input ended are answered as shutdown answers them"
        );
    }
    shared.shut_down();
    if tokio::time::timeout(shared.config.shutdown_grace, tasks.wait()).await.is_err() {
        tracing::debug!("handlers did not finish within the shutdown grace period");
    }
    shared.outgoing.write().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(incoming) = incoming.filter(|_| transport_closed) {
        // Let the transport's writer put out what is queued (the answers above)
        // before returning: a process that exits once `run` returns (a stdio server
        // whose stdin ended) would otherwise lose them. Transports keep their incoming
        // channel open until their writer is done.
        let drained = async { while incoming.recv().await.is_some() {} };
        if tokio::time::timeout(shared.config.shutdown_grace, drained).await.is_err() {
            tracing::debug!("the transport's writer did not finish within the shutdown grace period");
        }
    }
}

/// Aborts a task when dropped: a dropped [`Dispatcher::run`] stops the loop it spawned.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Polls `future` once, in the caller's task: for a request whose answer usually comes
/// at its first poll, so that only one that waits pays for a task or a timer.
#[cfg(feature = "http")]
pub(crate) async fn poll_once<F: std::future::Future + Unpin>(future: &mut F) -> std::task::Poll<F::Output> {
    std::future::poll_fn(|cx| std::task::Poll::Ready(std::pin::Pin::new(&mut *future).poll(cx))).await
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
