//! The JSON-RPC dispatcher: the engine both the server and the client run on.
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
//! - **Shutdown answers what is still in flight** with `-32000` "Connection closed",
//!   unless an answer was already written or the peer cancelled the request; outbound
//!   waiters fail with a connection-closed error.
//!
//! A transport that gets each request on its own and answers it on its own (a 2026 HTTP
//! POST) serves it with `serve_one` instead of a whole dispatcher: the same rules, applied
//! by the same code, with the handler running inside the caller's future and the answer
//! returned rather than queued (see `oneshot.rs`). A transport whose messages arrive
//! with requests of its own (a 2025 HTTP session's POSTs) feeds a `Direct` connection
//! from those requests' tasks: the same rules again, with no reading loop, task or
//! queue kept between them.

mod context;
mod handler;
mod inbound;
#[cfg(feature = "http")]
mod oneshot;
mod outbound;
mod progress;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU8, Ordering};
#[cfg(feature = "http")]
use std::sync::Weak;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use mcpwire_protocol::{codes, methods, ErrorResponse, IdKey, Message, Notification, RequestId};
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use context::{NotificationContext, RequestContext};
pub use handler::{Handler, NoHandler};
#[cfg(feature = "http")]
pub(crate) use oneshot::serve_one;
pub use outbound::CallOptions;
pub use progress::{ProgressCallback, ProgressUpdate};

use crate::error::RequestError;
use crate::transport::{Connection, Inbound, Outgoing, Transport, TransportEvent};
use context::{Fire, InFlight};
use outbound::PendingTable;

/// How `notifications/cancelled` from the peer is applied to a running handler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PeerCancelMode {
    /// Drop the handler's future at once (the default).
    #[default]
    Interrupt,
    /// Only cancel the handler's token and let it run to completion.
    Signal,
}

/// Dispatcher settings. Every bound has a default and a setter.
#[derive(Clone, Debug)]
pub struct DispatcherConfig {
    /// How peer cancellation is applied.
    pub cancel_mode: PeerCancelMode,
    /// At most this many inbound requests run at once; beyond it the dispatcher stops
    /// reading (back-pressure, nothing is dropped). Default 4096.
    pub max_in_flight: usize,
    /// Default timeout of outbound requests (`None`: wait forever). Default 60 s.
    pub request_timeout: Option<Duration>,
    /// Methods whose handler runs to completion before the next message is read (for
    /// `initialize`, which must be settled before anything that follows it). A handler
    /// that waits for the peer here would deadlock.
    pub inline_methods: Vec<String>,
    /// How long shutdown waits for handlers to write their "Connection closed" answers.
    pub shutdown_grace: Duration,
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
}

/// What takes a connection's messages as they are sent ([`Outlet::Direct`]).
#[cfg(feature = "http")]
pub(crate) trait Route: Send + Sync {
    /// Places `out` on its way to the peer. Never waits: it is called under the
    /// connection's outlet lock, from any task (and from destructors).
    fn route(&self, out: Outgoing);

    /// The connection was asked to shut down ([`Peer::close`], whoever called it): the
    /// router finishes the shutdown ([`Direct::close`]), since a direct connection has
    /// no loop of its own to do it.
    fn closing(self: Arc<Self>);
}

/// What the dispatcher and every [`Peer`] handle share.
pub(crate) struct Shared {
    state: AtomicU8,
    /// Shared, not copied: a one-shot request ([`serve_one`]) takes its endpoint's.
    pub(crate) config: Arc<DispatcherConfig>,
    outgoing: RwLock<Option<Outlet>>,
    pending: Mutex<PendingTable>,
    next_id: AtomicI64,
    in_flight: Mutex<HashMap<IdKey, Arc<InFlight>>>,
    close_reason: Mutex<Option<String>>,
    /// Cancelled when the connection shuts down (the parent of every handler's token;
    /// [`Shared::shut_down`] cancels it).
    shutdown: CancellationToken,
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
            in_flight: Mutex::new(HashMap::new()),
            close_reason: Mutex::new(None),
            shutdown: CancellationToken::new(),
        }
    }

    pub(crate) fn state(&self) -> State {
        match self.state.load(Ordering::Acquire) {
            0 => State::NotStarted,
            1 => State::Running,
            _ => State::Closed,
        }
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

    /// Whether the connection has closed.
    pub fn is_closed(&self) -> bool {
        self.shared.state() == State::Closed
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
    /// tasks, a cross-thread wake-up per message. Dropping this future still stops it.
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
    }
}

/// How a request whose method is one of [`DispatcherConfig::inline_methods`] runs before
/// the next message is taken in.
#[derive(Clone, Copy)]
enum Inline {
    /// Awaited in the reading loop's own future.
    InPlace,
    /// On a task of its own, awaited by whoever delivered it: a [`Direct`] connection is
    /// fed from futures that may be dropped (an HTTP request whose client went away), and
    /// a request dropped half-way would never settle.
    #[cfg(feature = "http")]
    OwnTask,
}

/// What taking in a message needs: the same for a reading loop and for a [`Direct`]
/// connection, so that both apply the same rules with the same code.
struct Intake<H> {
    peer: Peer,
    handler: Arc<H>,
    /// At most [`DispatcherConfig::max_in_flight`] requests at once.
    permits: Arc<Semaphore>,
    tasks: TaskTracker,
    inline: Inline,
}

/// What follows a message taken in.
enum Next {
    /// Take the next one.
    Read,
    /// Stop reading: the connection is shutting down, or (`transport_closed`) the
    /// transport ended.
    Stop { transport_closed: bool },
}

impl<H: Handler> Intake<H> {
    fn new(shared: Arc<Shared>, handler: Arc<H>, inline: Inline) -> Self {
        let permits = Arc::new(Semaphore::new(shared.config.max_in_flight.max(1)));
        Intake { peer: Peer { shared }, handler, permits, tasks: TaskTracker::new(), inline }
    }

    /// Takes in one event: a request starts its task (in arrival order; an inline one
    /// runs to completion first), a notification is handled on a task, a response goes
    /// to the outbound request waiting for it.
    async fn take(&self, event: TransportEvent) -> Next {
        let Intake { peer, handler, permits, tasks, inline } = self;
        let shared = &peer.shared;
        match event {
            TransportEvent::Closed { reason } => {
                // Nothing follows `Closed` (the transport's contract).
                *shared.close_reason.lock().unwrap_or_else(|e| e.into_inner()) = reason.map(|r| *r);
                return Next::Stop { transport_closed: true };
            }
            TransportEvent::Invalid(error) => answer_invalid(peer, *error).await,
            TransportEvent::Message(inbound) => {
                let Inbound { message, meta } = *inbound;
                match message {
                    Message::Request(request) => {
                        let is_inline = shared.config.inline_methods.contains(&request.method);
                        let permit = tokio::select! {
                            biased;
                            _ = shared.shutdown.cancelled() => return Next::Stop { transport_closed: false },
                            permit = permits.clone().acquire_owned() => permit,
                        };
                        let Ok(permit) = permit else { return Next::Stop { transport_closed: false } };
                        let task = match inbound::start_request(peer, handler, request, meta, permit) {
                            Ok(task) => task,
                            Err(duplicate) => {
                                peer.send(duplicate).await;
                                return Next::Read;
                            }
                        };
                        match (is_inline, inline) {
                            // Boxed: awaited in place, the request's whole future would
                            // be a state of this loop's future, which every connection
                            // holds for its lifetime.
                            (true, Inline::InPlace) => Box::pin(task).await,
                            #[cfg(feature = "http")]
                            (true, Inline::OwnTask) => {
                                let _ = tasks.spawn(task).await;
                            }
                            (false, _) => drop(tasks.spawn(task)),
                        }
                    }
                    Message::Notification(notification) => {
                        if let Some(notification) = intercept(shared, notification) {
                            let ctx = NotificationContext { peer: peer.clone(), extensions: meta.extensions };
                            let handler = handler.clone();
                            tasks.spawn(async move { handler.on_notification(notification, ctx).await });
                        }
                    }
                    Message::Response(response) => {
                        let delivered = lock(&shared.pending).resolve(&response.id, Ok(response.result));
                        if !delivered {
                            tracing::debug!(id = %response.id, "dropped a response for an unknown or abandoned request");
                        }
                    }
                    Message::Error(error) => match &error.id {
                        Some(id) => {
                            if !lock(&shared.pending).resolve(id, Err(error.error.clone())) {
                                tracing::debug!(%id, "dropped an error for an unknown or abandoned request");
                            }
                        }
                        None => {
                            tracing::warn!(error = %error.error, "the peer reported an error without an id")
                        }
                    },
                }
            }
        }
        Next::Read
    }
}

/// A connection with no reading loop and no task of its own: whoever has messages for
/// it delivers them ([`Direct::deliver`]), in the delivering task, under the same rules
/// as [`Dispatcher::run`]. Its outgoing messages go straight to a [`Route`]. A 2025
/// HTTP session is one: its messages arrive with POSTs, which can take them in
/// themselves, so an idle session holds neither a task nor a queue (a few kilobytes
/// each, over thousands of mostly idle sessions).
#[cfg(feature = "http")]
pub(crate) struct Direct<H> {
    intake: Intake<H>,
}

#[cfg(feature = "http")]
impl<H: Handler> Direct<H> {
    /// A running connection served by `handler`, writing to `route`.
    pub(crate) fn new(handler: H, route: Weak<dyn Route>, config: Arc<DispatcherConfig>) -> Self {
        let shared = Arc::new(Shared::new(config, Outlet::Direct(route)));
        shared.state.store(State::Running as u8, Ordering::Release);
        Direct { intake: Intake::new(shared, Arc::new(handler), Inline::OwnTask) }
    }

    /// A handle for outbound messages.
    pub(crate) fn peer(&self) -> &Peer {
        &self.intake.peer
    }

    /// Takes in one event as the reading loop would; `false` once the connection is
    /// shutting down (the event is then dropped, as the loop stops reading). A future
    /// dropped half-way loses nothing: what it started runs on.
    pub(crate) async fn deliver(&self, event: TransportEvent) -> bool {
        if self.intake.peer.shared.shutdown.is_cancelled() {
            return false;
        }
        matches!(self.intake.take(event).await, Next::Read)
    }

    /// Shuts the connection down as the end of [`Dispatcher::run`] does: in-flight
    /// requests are answered "Connection closed" (within the shutdown grace), outbound
    /// waiters fail, and the outlet closes.
    pub(crate) async fn close(&self) {
        close_connection(&self.intake.peer.shared, self.intake.tasks.clone(), None, false).await;
    }
}

/// The end of a connection: no new requests, fail the waiters, let handlers answer,
/// close the writer (and, when the transport ended, let it put out what is queued).
async fn close_connection(
    shared: &Shared,
    tasks: TaskTracker,
    incoming: Option<&mut mpsc::Receiver<TransportEvent>>,
    transport_closed: bool,
) {
    shared.state.store(State::Closed as u8, Ordering::Release);
    lock(&shared.pending).fail_all();
    shared.shut_down();
    tasks.close();
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

/// Applies `notifications/cancelled` and routes progress to its callback; returns the
/// notification if the handler should see it.
fn intercept(shared: &Shared, notification: Notification) -> Option<Notification> {
    match notification.method.as_str() {
        methods::NOTIFICATION_CANCELLED => {
            #[derive(serde::Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct Cancelled {
                request_id: RequestId,
            }
            match notification.parse_params::<Cancelled>() {
                Ok(c) => inbound::cancel(shared, &c.request_id),
                Err(e) => tracing::debug!("ignored a malformed cancellation: {e}"),
            }
            None
        }
        methods::NOTIFICATION_PROGRESS => {
            #[derive(serde::Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct Progress {
                progress_token: RequestId,
                #[serde(flatten)]
                update: serde_json::Value,
            }
            let Ok(p) = notification.parse_params::<Progress>() else { return Some(notification) };
            let callback = lock(&shared.pending).progress_callback(&p.progress_token.key());
            match (callback, serde_json::from_value::<ProgressUpdate>(p.update)) {
                (Some(callback), Ok(update)) => {
                    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(update))).is_err() {
                        tracing::error!("a progress callback panicked");
                    }
                    None
                }
                _ => Some(notification),
            }
        }
        _ => Some(notification),
    }
}

/// Answers a frame that did not decode, where JSON-RPC says to: parse errors and invalid
/// requests get an error response (with the id when it could be read); a malformed frame
/// that looks like a response is only logged, since answering it could start a loop.
async fn answer_invalid(peer: &Peer, error: mcpwire_protocol::DecodeError) {
    tracing::debug!(code = error.code, "invalid frame from the peer: {}", error.message);
    let answer = error.code == codes::PARSE_ERROR || error.had_method || error.id.is_none();
    if answer {
        let response = ErrorResponse::new(
            error.id.clone(),
            mcpwire_protocol::ErrorObject::new(error.code, error.message),
        );
        peer.send(Outgoing::unrelated(response)).await;
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
