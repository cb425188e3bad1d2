//! The client side of Streamable HTTP, for both eras, with the legacy HTTP+SSE transport
//! (2024-11-05) as a fallback.
//!
//! Each outgoing message is one POST. The era of a message decides its headers: a request
//! carrying the 2026 `_meta` envelope gets `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and `Mcp-Param-*`; otherwise the 2025 session headers (`Mcp-Session-Id`,
//! the negotiated `MCP-Protocol-Version`). The transport learns the session from the
//! `initialize` exchange it carries, so the [`Client`](crate::client::Client)'s era probe
//! works unchanged over HTTP:
//! - a 2026 request answered with a JSON-RPC error body is delivered as that error;
//!   a 4xx without one becomes an error the probe falls back on;
//! - an `initialize` answered 400/404/405 without a JSON-RPC body switches to the legacy
//!   HTTP+SSE transport (GET the endpoint, wait for its `endpoint` event, POST there);
//! - 2025: SSE responses are resumed after a dropped connection with `GET` and
//!   `Last-Event-ID` (honouring `retry`); a 404 for a stale session re-initializes
//!   once and retries; the standalone GET stream carries server-initiated messages;
//!   the session is deleted on close;
//! - 2026: cancelling a request closes its response stream (that is the cancel on this
//!   wire); a stream that ends without the answer lost the request (the server took the
//!   closed stream as a cancel), so it is sent again under a new id, twice at most, and
//!   then fails with a clear error.
//!
//! ```
//! use mcpwire::client::Client;
//! use mcpwire::http::{serve_with_shutdown, McpService};
//! use mcpwire::protocol::Era;
//! use mcpwire::server::{tool, Server};
//! use mcpwire::transport::http_client::HttpClientTransport;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = Server::builder("s", "1").tool(tool("ping").description("p").handler(|| "pong")).build().unwrap();
//! let bound = serve_with_shutdown(McpService::new(server), "127.0.0.1:0", "/mcp").await.unwrap();
//! let url = format!("http://{}/mcp", bound.local_addr);
//! let client = Client::builder("c", "1").connect(HttpClientTransport::new(&url).unwrap()).await.unwrap();
//! assert_eq!(client.era(), Era::Stateless); // the probe found a 2026 server
//! assert_eq!(client.call_tool("ping", serde_json::json!({})).await.unwrap().content[0].as_text(), Some("pong"));
//! client.close().await;
//! bound.shutdown.cancel();
//! # }
//! ```

mod acknowledge;
mod answer;
mod auth_hook;
mod body;
mod config;
mod exchange;
mod legacy;
mod middleware;
mod session;
mod sse;
mod stateless;
#[cfg(feature = "tls")]
pub(crate) mod tls;
mod tools;

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::{HeaderMap, Uri};
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use mcpwire_protocol::tool_definition::ParamHeader;
use mcpwire_protocol::{methods, Message, RequestId};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use acknowledge::ACKNOWLEDGE_WAIT;
pub use auth_hook::AuthHook;
pub use config::{HttpClientError, HttpClientTransport};
pub use middleware::{HttpMiddleware, MiddlewareError};
pub use sse::{SseError, SseEvent, SseParser, MAX_ID_BYTES as MAX_SSE_ID_BYTES};

use super::{Connection, Outgoing, Transport, TransportEvent, DEFAULT_CHANNEL_CAPACITY};
use crate::id_map::IdMap;

/// The largest response body or SSE event accepted by default (16 MiB; see
/// [`HttpClientTransport::max_message_bytes`]).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// How often in a row a dropped 2025 SSE stream is resumed without bringing a new event
/// before it is given up (a request's then fails).
const MAX_RESUMES: usize = 3;

/// The least wait before reconnecting a 2025 SSE stream, whatever its `retry` says.
const RECONNECT_FLOOR: std::time::Duration = std::time::Duration::from_millis(20);

/// How long to wait before reconnecting a dropped 2025 SSE stream: the server's last
/// `retry` in full (the spec's MUST, however long: a request's own timeout bounds its
/// wait, and the standalone stream's ends with the connection), else 1 s; and at least
/// [`RECONNECT_FLOOR`], doubled for each reconnection in a row (`fruitless`) that brought
/// no event.
fn reconnect_delay(parser: &SseParser, fruitless: usize) -> std::time::Duration {
    // Waiting longer than `retry` is allowed; a floor keeps a server that ends every
    // stream with `retry: 0` from making the client reconnect in a busy loop.
    let floor = RECONNECT_FLOOR * (1u32 << fruitless.min(MAX_RESUMES + 1));
    std::time::Duration::from_millis(parser.retry_ms().unwrap_or(1000)).max(floor)
}

/// What the transport knows about the 2025 session. Its `Mcp-Session-Id` is kept in
/// [`Shared::renewed`], which the client reads too; it is written and read under this
/// state's lock, so a reader sees it together with the version and stream state of the
/// same session.
#[derive(Default)]
struct Session {
    version: Option<String>,
    /// The `initialize` request, replayed to re-establish a stale session.
    initialize: Option<Message>,
    /// Legacy HTTP+SSE: where to POST.
    legacy_post: Option<Uri>,
    standalone_open: bool,
}

/// A request in flight: what its answer teaches, and how to stop its exchange.
struct Pending {
    method: String,
    stateless: bool,
    abort: Option<AbortHandle>,
}

/// How connections are made: TLS for `https://` when the `tls` feature is on (the
/// OAuth fetcher connects the same way).
#[cfg(feature = "tls")]
pub(crate) type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
/// How connections are made: plain TCP only without the `tls` feature.
#[cfg(not(feature = "tls"))]
pub(crate) type Connector = HttpConnector;

/// The state every exchange of one connection shares.
struct Shared {
    http: HyperClient<Connector, Full<Bytes>>,
    url: Uri,
    headers: HeaderMap,
    incoming: mpsc::Sender<TransportEvent>,
    session: Mutex<Session>,
    pending: Mutex<IdMap<mcpwire_protocol::IdKey, Pending>>,
    /// `x-mcp-header` annotations by tool name, learned from `tools/list` answers.
    tool_headers: Mutex<HashMap<String, Vec<ParamHeader>>>,
    internal_ids: AtomicU64,
    /// Held while a stale 2025 session is replaced: requests that met its 404 together
    /// wait for the one replacement, rather than each starting a session of its own.
    renewing: tokio::sync::Mutex<()>,
    middlewares: middleware::Middlewares,
    /// Cancelled when the connection closes: background readers stop.
    closed: CancellationToken,
    /// The largest response body or SSE event read.
    max_message_bytes: usize,
    auth: auth_hook::Hook,
    /// Set once the hook got ready ([`AuthHook::prepare`]).
    auth_prepared: tokio::sync::OnceCell<()>,
    /// Set to the `initialize` answer of each session made in place of a forgotten one;
    /// holds the current session's `Mcp-Session-Id` too.
    renewed: super::RenewedSession,
}

/// Locks a mutex, ignoring poison (no lock is held across a panic that matters here).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Transport for HttpClientTransport {
    fn era_cache_key(&self) -> Option<String> {
        Some(self.url.to_string())
    }

    fn answers_every_request(&self) -> bool {
        true
    }

    fn finished_signal(&self) -> Option<CancellationToken> {
        Some(self.finished.clone())
    }

    fn renewed_session(&self) -> Option<super::RenewedSession> {
        Some(self.renewed.clone())
    }

    fn connect(self) -> Connection {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(self.connect_timeout));
        #[cfg(feature = "tls")]
        let connector = self.tls.connector(connector);
        let http = HyperClient::builder(TokioExecutor::new()).build(connector);
        let (in_tx, in_rx) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        let (out_tx, out_rx) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        let shared = Arc::new(Shared {
            http,
            url: self.url,
            headers: self.headers,
            max_message_bytes: self.max_message_bytes,
            incoming: in_tx,
            session: Mutex::new(Session::default()),
            pending: Mutex::new(IdMap::default()),
            tool_headers: Mutex::new(HashMap::new()),
            internal_ids: AtomicU64::new(1),
            renewing: tokio::sync::Mutex::new(()),
            closed: CancellationToken::new(),
            middlewares: self.middlewares,
            auth: self.auth,
            auth_prepared: tokio::sync::OnceCell::new(),
            renewed: self.renewed,
        });
        let finished = self.finished;
        tokio::spawn(async move {
            write_loop(shared, out_rx).await;
            finished.cancel();
        });
        Connection { incoming: in_rx, outgoing: out_tx }
    }
}

/// Sends every outgoing message as its own exchange, started in order of submission.
async fn write_loop(shared: Arc<Shared>, mut outgoing: mpsc::Receiver<Outgoing>) {
    let acknowledgements = acknowledge::Acknowledgements::new();
    while let Some(out) = outgoing.recv().await {
        let (message, _) = out.into_parts();
        let stateless = stateless::envelope_version(&message);
        if let Message::Notification(n) = &message {
            if n.method == methods::NOTIFICATION_CANCELLED && shared.stop_exchange(n) {
                continue;
            }
        }
        let request_id = match &message {
            Message::Request(r) => {
                if r.method == methods::INITIALIZE {
                    lock(&shared.session).initialize = Some(message.clone());
                }
                lock(&shared.pending).insert(
                    r.id.key(),
                    Pending { method: r.method.clone(), stateless: stateless.is_some(), abort: None },
                );
                Some(r.id.clone())
            }
            _ => None,
        };
        let Some(id) = request_id else {
            if matches!(&message, Message::Notification(n) if n.method == methods::INITIALIZED) {
                // A request must not overtake `notifications/initialized`: the writer
                // waits for its acknowledgement (a moment at most).
                acknowledge::acknowledged(&shared, message, stateless).await;
                // Established before anything else is sent, so the server can already
                // reach us on it (and never mistakes it for a later resumption).
                shared.clone().open_standalone().await;
            } else {
                // Any other notification or answer waits for its acknowledgement beside
                // what follows: a server that never gives one holds up nothing.
                acknowledgements.in_background(&shared, message, stateless).await;
            }
            continue;
        };
        // Requests run concurrently: each waits for its own answer.
        let task_shared = shared.clone();
        let task = tokio::spawn(async move { task_shared.exchange(message, stateless).await });
        if let Some(p) = lock(&shared.pending).get_mut(&id.key()) {
            p.abort = Some(task.abort_handle());
        }
    }
    acknowledgements.settle().await;
    // Closed: nothing waits for an answer any more, so no exchange or stream may go on.
    for (_, pending) in lock(&shared.pending).drain() {
        if let Some(abort) = pending.abort {
            abort.abort();
        }
    }
    shared.closed.cancel();
    shared.delete_session().await;
}

impl Shared {
    /// Stops the exchange of a request its caller gave up on (the dispatcher sends
    /// `notifications/cancelled` after a timeout or a cancel): nothing will read its
    /// answer, and a 2025 SSE response carries only messages about that request, so its
    /// stream is closed rather than read forever. Returns whether the notification is
    /// spent: in 2026 closing the stream *is* the cancel; in 2025 a disconnect is not one
    /// (the spec says so), so the notification is still sent.
    pub(super) fn stop_exchange(&self, notification: &mcpwire_protocol::Notification) -> bool {
        let id = notification
            .parse_params::<Value>()
            .ok()
            .and_then(|p| serde_json::from_value::<RequestId>(p.get("requestId")?.clone()).ok());
        let Some(id) = id else { return false };
        let Some(pending) = lock(&self.pending).remove(&id.key()) else { return false };
        if let Some(abort) = &pending.abort {
            abort.abort();
        }
        pending.stateless
    }

    /// Runs a background reader (the standalone GET stream, the legacy SSE stream) until
    /// it ends or the connection closes.
    pub(super) fn spawn_until_closed(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let closed = self.closed.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = task => {}
                _ = closed.cancelled() => {}
            }
        });
    }
}
