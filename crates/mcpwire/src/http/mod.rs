//! Streamable HTTP: one endpoint serving 2025-era clients (sessions, SSE, resumption)
//! and 2026-07-28 clients (stateless, one POST per request) at once.
//!
//! [`McpService`] is a `tower::Service` for the endpoint that mounts in any hyper or axum
//! app at any path; [`serve`] runs it standalone. Each request is routed by era: a
//! `MCP-Protocol-Version` header naming a 2025 revision, or no header and no `_meta`
//! envelope, goes to the session path; anything else to the stateless path.
//!
//! Security defaults: `Host` and `Origin` must be loopback names (421/403 otherwise), so
//! DNS rebinding fails; bodies are limited to 4 MiB (413); `Content-Type`,
//! `Content-Encoding` (only `identity`), `Transfer-Encoding` (only `chunked`) and `Accept`
//! are checked (415/501/406); sessions and every queue are bounded. Many instances behind
//! a load balancer share their state through Redis with `cluster` (feature `redis`).
//!
//! ```
//! # async fn run() -> std::io::Result<()> {
//! use mcpwire::http::{serve_with_shutdown, HttpSettings, McpService};
//! use mcpwire::server::{tool, Server};
//!
//! let server = Server::builder("hello", "1.0.0")
//!     .tool(tool("hello").description("Says hello").handler(|| async { "hello" }))
//!     .build()
//!     .expect("a valid server");
//! let settings = HttpSettings { max_body_bytes: 1024 * 1024, ..HttpSettings::default() };
//! let bound = serve_with_shutdown(McpService::with_settings(server, settings), "127.0.0.1:0", "/mcp").await?;
//! println!("serving at http://{}/mcp", bound.local_addr);
//! bound.shutdown.cancel();
//! let _ = bound.task.await;
//! # Ok(()) }
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
//! ```

#[cfg(feature = "redis")]
pub mod cluster;
pub mod event_store;
mod exchange;
mod header_check;
pub mod header_rules;
mod listener;
mod request_body;
mod response_body;
mod security;
mod session;
mod session_table;
mod sessionless;
mod settings;
mod sse;
mod stateless;
mod status;
mod stop_signal;
mod stream_queue;
mod write_deadline;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use http::{header, HeaderValue, Method, Request as HttpRequest, Response, StatusCode};
use mcpwire_protocol::{
    codes, decode_frame, methods, ErrorObject, ErrorResponse, Frame, Message, ProtocolVersion, Request,
    RequestId,
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

pub use event_store::{EventStore, MemoryEventStore};
pub use listener::{serve, serve_with_shutdown, Bound};
pub use response_body::McpBody;
pub use security::{is_loopback_name, HostPolicy};
pub use settings::HttpSettings;

use crate::extensions::Extensions;
use crate::server::Server;
use session::Session;
use session_table::SessionTable;

struct Inner {
    server: Server,
    settings: Arc<HttpSettings>,
    sessions: Arc<SessionTable>,
    /// The settings of throwaway sessions ([`HttpSettings::sessionless`]): no event
    /// store, since nothing can resume without a session.
    sessionless_settings: Arc<HttpSettings>,
    /// Fired by [`McpService::shutdown`].
    closing: CancellationToken,
    /// Slots for requests served without a session ([`HttpSettings::max_concurrent_requests`]).
    request_slots: Arc<Semaphore>,
    /// Slots for the requests of 2025 sessions ([`HttpSettings::max_session_requests`]).
    session_request_slots: Arc<Semaphore>,
    /// The server's dispatcher settings, shared by every 2026 request instead of copied.
    dispatcher: Arc<crate::jsonrpc::DispatcherConfig>,
    /// Numbers the throwaway sessions of session-less 2025 batches (only logs and
    /// event-store names see them).
    throwaway_sessions: std::sync::atomic::AtomicU64,
    /// Whether a request refused by the Host check has been logged at `warn` yet.
    host_refusal_warned: std::sync::atomic::AtomicBool,
}

impl Inner {
    /// Logs a request the Host check refused: the first at `warn` (a server reached by
    /// a name its settings do not list answers every such request 421, and its operator
    /// should hear of it), later ones at `debug` (a flood of them must not flood the log).
    fn log_host_refused(&self, message: &str) {
        use std::sync::atomic::Ordering;
        if self.host_refusal_warned.swap(true, Ordering::Relaxed) {
            tracing::debug!("refused a request with 421: {message}");
        } else {
            tracing::warn!("refused a request with 421 (later ones are logged at debug level): {message}");
        }
    }
}

/// The MCP endpoint as a `tower::Service`. Cheap to clone; clones share sessions.
#[derive(Clone)]
pub struct McpService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpService").field("settings", &self.inner.settings).finish()
    }
}

impl McpService {
    /// The endpoint for `server` with default settings.
    pub fn new(server: Server) -> Self {
        Self::with_settings(server, HttpSettings::default())
    }

    /// The endpoint with chosen settings.
    pub fn with_settings(server: Server, settings: HttpSettings) -> Self {
        #[cfg(feature = "redis")]
        let settings = match &settings.cluster {
            // Events go to Redis too, behind this instance's own store.
            Some(c) => HttpSettings {
                event_store: settings.event_store.clone().map(|local| -> Arc<dyn EventStore> {
                    Arc::new(cluster::ClusterEventStore::new(local, c))
                }),
                ..settings
            },
            None => settings,
        };
        let sessionless_settings = Arc::new(HttpSettings { event_store: None, ..settings.clone() });
        let settings = Arc::new(settings);
        // A half-opened session's timeout is usually the shorter: the reaper follows it.
        let shortest_idle = settings.session_idle_timeout.min(settings.uninitialized_session_timeout);
        let sessions = SessionTable::new(settings.max_sessions, shortest_idle);
        #[cfg(feature = "redis")]
        let sessions = sessions.in_cluster(settings.cluster.clone());
        let sessions = Arc::new(sessions);
        let closing = CancellationToken::new();
        let request_slots = Arc::new(Semaphore::new(settings.max_concurrent_requests.max(1)));
        let session_request_slots = Arc::new(Semaphore::new(settings.max_session_requests.max(1)));
        let dispatcher = server.inner.dispatcher.clone();
        let inner = Inner {
            server,
            settings,
            sessions,
            sessionless_settings,
            closing,
            request_slots,
            session_request_slots,
            dispatcher,
            throwaway_sessions: Default::default(),
            host_refusal_warned: Default::default(),
        };
        let inner = Arc::new(inner);
        #[cfg(feature = "redis")]
        if let Some(cluster) = &inner.settings.cluster {
            cluster.attach(&inner, &inner.server);
        }
        McpService { inner }
    }

    /// The number of live 2025 sessions.
    pub fn session_count(&self) -> usize {
        self.inner.sessions.len()
    }

    /// Closes every session (for shutdown).
    pub fn close_sessions(&self) {
        self.inner.sessions.close_all();
    }

    /// Shuts the endpoint down: closes every 2025 session (their in-flight requests are
    /// answered "Connection closed" and their streams end), ends every 2026 response
    /// stream (a `subscriptions/listen` stream with its final result; any other request
    /// is stopped and its stream ends with its shutdown answer, as a session's do:
    /// `-32603` in 2026), and answers later requests 503. Without it, open streams would
    /// keep a graceful shutdown waiting.
    pub fn shutdown(&self) {
        // Other instances take this one's sessions over at once.
        #[cfg(feature = "redis")]
        if let Some(cluster) = &self.inner.settings.cluster {
            cluster.leave();
        }
        self.inner.closing.cancel();
        self.close_sessions();
    }

    /// Handles one HTTP request.
    pub async fn handle<B>(&self, request: HttpRequest<B>) -> Response<McpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        self.serve_request(request, true).await
    }

    /// Handles a request another instance of the cluster sent here: its session is
    /// served here or nowhere.
    #[cfg(feature = "redis")]
    pub(crate) async fn handle_here(
        &self,
        request: HttpRequest<http_body_util::Full<bytes::Bytes>>,
    ) -> Response<McpBody> {
        self.serve_request(request, false).await
    }

    /// Handles one HTTP request; `route`: a 2025 session owned by another instance of
    /// the cluster is served there.
    async fn serve_request<B>(&self, request: HttpRequest<B>, route: bool) -> Response<McpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let _ = route;
        let inner = &self.inner;
        if inner.closing.is_cancelled() {
            return status::error(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                codes::INTERNAL_ERROR,
                "The server is shutting down",
            );
        }
        let (mut parts, body) = request.into_parts();
        if let Err((status, message)) = inner.settings.hosts.check(&parts.headers, &parts.uri) {
            if status == StatusCode::MISDIRECTED_REQUEST {
                inner.log_host_refused(&message);
            }
            return status::error(status, None, codes::INVALID_REQUEST, message);
        }
        // A repeated or unreadable version header is refused with `-32020`: a POST's once
        // its body is read, with its request's id (an error response names the request
        // whenever its id can be read).
        let (version_header, bad_version) = match header_rules::protocol_version(&parts.headers) {
            Ok(v) => (v.map(ProtocolVersion::parse), None),
            Err(e) => (None, Some(format!("Header mismatch: {e}"))),
        };
        if let Some(e) = bad_version.as_ref().filter(|_| parts.method != Method::POST) {
            return status::error(StatusCode::BAD_REQUEST, None, codes::HEADER_MISMATCH, e.as_str());
        }
        let stateful_header = version_header.as_ref().is_some_and(|v| ProtocolVersion::STATEFUL.contains(v));
        let stateless_header = version_header.is_some() && !stateful_header;
        let sessionless = inner.settings.sessionless;

        match parts.method {
            Method::POST => {}
            // A revision this server does not speak is a bad request (2025: "invalid or
            // unsupported MCP-Protocol-Version" → 400), not a 2026 GET (which is 405 and
            // would tell a 2025 client that the server has no GET stream).
            Method::GET | Method::DELETE
                if !sessionless
                    && version_header.as_ref().is_some_and(|v| !ProtocolVersion::ALL.contains(v)) =>
            {
                let requested = version_header.as_ref().map(ProtocolVersion::as_str).unwrap_or_default();
                return status::error(
                    StatusCode::BAD_REQUEST,
                    None,
                    codes::INVALID_REQUEST,
                    format!("Bad Request: unsupported MCP-Protocol-Version {requested:?}"),
                );
            }
            Method::GET | Method::DELETE if !stateless_header && !sessionless => {
                #[cfg(feature = "redis")]
                if let Some(response) = self.clustered(route, &parts, bytes::Bytes::new()).await {
                    return response;
                }
                return self.session_stream(&parts).await;
            }
            _ => {
                let mut response = status::error(
                    StatusCode::METHOD_NOT_ALLOWED,
                    None,
                    codes::INVALID_REQUEST,
                    "Method not allowed",
                );
                let allow = if stateless_header || sessionless { "POST" } else { "GET, POST, DELETE" };
                response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
                return response;
            }
        }
        if let Err((status, message)) = security::check_content_type(&parts.method, &parts.headers) {
            return status::error(status, None, codes::INVALID_REQUEST, message);
        }
        if let Err((status, message)) = security::check_codings(&parts.headers) {
            let mut response = status::error(status, None, codes::INVALID_REQUEST, message);
            if status == StatusCode::UNSUPPORTED_MEDIA_TYPE {
                // RFC 9110 §12.5.3: the 415 says which content codings a request may use.
                response.headers_mut().insert(header::ACCEPT_ENCODING, HeaderValue::from_static("identity"));
            }
            return response;
        }
        let (accepts_json, accepts_sse) = security::accepts_json_and_sse(&parts.headers);
        let limits = request_body::Limits {
            max_bytes: inner.settings.max_body_bytes,
            timeout: inner.settings.body_timeout,
        };
        let bytes = match request_body::read_body(body, limits, &parts.headers).await {
            Ok(b) => b,
            Err(response) => return *response,
        };
        #[cfg(feature = "redis")]
        if !stateless_header && !sessionless {
            if let Some(response) = self.clustered(route, &parts, bytes.clone()).await {
                return response;
            }
        }
        let frame = match decode_frame(&bytes) {
            Ok(f) => f,
            Err(e) => return status::error(StatusCode::BAD_REQUEST, e.id.clone(), e.code, e.message),
        };
        if let Some(e) = bad_version {
            let id = match &frame {
                Frame::Single(Message::Request(r)) => Some(r.id.clone()),
                _ => None,
            };
            return status::error(StatusCode::BAD_REQUEST, id, codes::HEADER_MISMATCH, e);
        }
        // Only a request without a version header is read for the envelope.
        let enveloped =
            || matches!(&frame, Frame::Single(Message::Request(r)) if crate::server::is_enveloped(r));
        if stateless_header || (version_header.is_none() && enveloped()) {
            let version = version_header.as_ref().map(ProtocolVersion::as_str);
            return self.stateless(Box::new(parts), bytes, version, frame, accepts_json, accepts_sse).await;
        }
        // A 2025 version header, no session, and the 2026 envelope: the header and the
        // body disagree, which is what to say (rather than that a session is missing).
        let no_session = !sessionless && !parts.headers.contains_key(&header_rules::SESSION_ID_NAME);
        if let (Some(header), Frame::Single(Message::Request(r)), true) =
            (&version_header, &frame, no_session)
        {
            if r.method != methods::INITIALIZE && crate::server::is_enveloped(r) {
                // Both name the same 2025 revision: nothing disagrees, the version is one
                // this server does not serve without a session.
                if crate::server::enveloped_version(r).as_deref() == Some(header.as_str()) {
                    let error = crate::server::stateless::unsupported_version(header.as_str());
                    return status::error_object(
                        StatusCode::BAD_REQUEST,
                        Some(r.id.clone()),
                        error.to_error_object(),
                    );
                }
                return status::error(
                    StatusCode::BAD_REQUEST,
                    Some(r.id.clone()),
                    codes::HEADER_MISMATCH,
                    format!(
                        "Header mismatch: the MCP-Protocol-Version header ({}) is a 2025 revision, but the request carries the 2026 envelope in _meta",
                        header.as_str()
                    ),
                );
            }
        }
        // The frame owns what it needs of the body: a large body is not held while its
        // request runs.
        drop(bytes);
        self.post_2025(&mut parts, frame, accepts_json, accepts_sse, version_header).await
    }

    async fn stateless(
        &self,
        parts: Box<http::request::Parts>,
        body: bytes::Bytes,
        version: Option<&str>,
        frame: Frame,
        accepts_json: bool,
        accepts_sse: bool,
    ) -> Response<McpBody> {
        if !accepts_json || !accepts_sse {
            return status::error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                codes::INVALID_REQUEST,
                "Accept must list application/json and text/event-stream",
            );
        }
        let request = match frame {
            Frame::Single(Message::Request(r)) => r,
            Frame::Single(Message::Notification(_)) => {
                // A version no revision names is refused whatever the body (2025: "an invalid
                // or unsupported MCP-Protocol-Version" → 400), rather than dropped.
                return match unknown_version(version) {
                    Some(v) => unsupported_version(None, v),
                    None => status::empty(StatusCode::ACCEPTED),
                };
            }
            Frame::Single(_) | Frame::Batch(_) => {
                return status::error(
                    StatusCode::BAD_REQUEST,
                    None,
                    codes::INVALID_REQUEST,
                    "Invalid request: the body must be one request or notification",
                )
            }
        };
        self.stateless_request(parts, body, version, request).await
    }

    /// Serves one 2026 request (`body`: the text it was read from), once the client's
    /// `Accept` has been checked: its headers are checked against its body, then it runs.
    ///
    /// The request's parts (boxed: a move copies a pointer) and body are passed down by
    /// value, to be freed with its answer's bytes once those have been written.
    async fn stateless_request(
        &self,
        mut parts: Box<http::request::Parts>,
        body: bytes::Bytes,
        version: Option<&str>,
        request: Request,
    ) -> Response<McpBody> {
        if let Err(e) = header_check::check(&self.inner.server, &parts.headers, version, &request) {
            // A version this server does not speak at all, on a request without the 2026
            // envelope (a 2025 client's) or whose envelope names the same version (a client
            // of another revision, which need not send this one's headers): the version is
            // what to tell the client, with the list to retry with, rather than which 2026
            // header it left out.
            let same_in_body = |v: &str| {
                !crate::server::is_enveloped(&request)
                    || crate::server::enveloped_version(&request).as_deref() == Some(v)
            };
            if let Some(v) = unknown_version(version).filter(|v| same_in_body(v)) {
                return unsupported_version(Some(request.id), v);
            }
            return status::error(
                StatusCode::BAD_REQUEST,
                Some(request.id),
                codes::HEADER_MISMATCH,
                // A header is echoed as the client sent it, so the message is cut: a header may
                // be hundreds of kilobytes.
                format!("Header mismatch: {}", crate::error::shown(&e, 512)),
            );
        }
        let Some(slot) = self.request_slot() else {
            return status::busy(Some(request.id), "Too many requests in progress; try again later");
        };
        let extensions = request_extensions(&mut parts);
        stateless::serve(&self.inner, request, extensions, slot, (parts, body)).await
    }

    /// A 2025 POST; `version_header` is its `MCP-Protocol-Version`, as the endpoint read it.
    async fn post_2025(
        &self,
        parts: &mut http::request::Parts,
        frame: Frame,
        accepts_json: bool,
        accepts_sse: bool,
        version_header: Option<ProtocolVersion>,
    ) -> Response<McpBody> {
        let settings = &self.inner.settings;
        let json = settings.json_response;
        if !accepts_json || (!json && !accepts_sse) {
            let wanted = if json { "application/json" } else { "application/json and text/event-stream" };
            return status::error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                codes::INVALID_REQUEST,
                format!("Accept must list {wanted}"),
            );
        }
        let (messages, refused, batch) = match frame {
            Frame::Single(m) => (vec![m], Vec::new(), false),
            Frame::Batch(items) => {
                let (messages, refused) = batch_members(items);
                (messages, refused, true)
            }
        };
        let initialize = messages.iter().find_map(|m| match m {
            Message::Request(r) if r.method == methods::INITIALIZE => {
                let requested = r
                    .parse_params::<serde_json::Value>()
                    .ok()
                    .and_then(|p| {
                        p.get("protocolVersion").and_then(|v| v.as_str()).map(ProtocolVersion::parse)
                    })
                    .filter(|v| ProtocolVersion::STATEFUL.contains(v))
                    .unwrap_or(ProtocolVersion::LATEST_STATEFUL);
                Some((r.id.clone(), requested))
            }
            _ => None,
        });
        // 2025-03-26 lifecycle: the initialize request MUST NOT be part of a JSON-RPC batch
        // (a batch of one included).
        if let Some((init_id, _)) = initialize.as_ref().filter(|_| batch || messages.len() > 1) {
            return status::error(
                StatusCode::BAD_REQUEST,
                Some(init_id.clone()),
                codes::INVALID_REQUEST,
                "Invalid request: initialize must be sent alone",
            );
        }
        if settings.sessionless {
            let version = match initialize {
                Some((_, requested)) => requested,
                None => sessionless::header_version(version_header),
            };
            return self.post_sessionless(parts, messages, batch, refused, version).await;
        }
        let session = match &initialize {
            Some((init_id, requested)) => {
                // An ended (or never minted) session's id gets 404 on any request, this
                // one included: the client must initialize again without it. A live
                // session is initialized already, as a stdio connection that repeats
                // `initialize` is told.
                if parts.headers.contains_key(&header_rules::SESSION_ID_NAME) {
                    if let Err(response) = self.find_session(parts) {
                        return *response;
                    }
                    return status::error(
                        StatusCode::BAD_REQUEST,
                        Some(init_id.clone()),
                        codes::INVALID_REQUEST,
                        "Invalid request: the session is already initialized; a new session starts with an initialize sent without Mcp-Session-Id",
                    );
                }
                let requested = requested.clone();
                let principal = parts.extensions.get::<crate::extensions::Principal>().map(|p| p.0.clone());
                match self.inner.sessions.create(
                    &self.inner.server,
                    &self.inner.settings,
                    principal,
                    requested,
                ) {
                    Ok(s) => {
                        s.touch();
                        s
                    }
                    Err(()) => {
                        return status::error(
                            StatusCode::SERVICE_UNAVAILABLE,
                            Some(init_id.clone()),
                            codes::INTERNAL_ERROR,
                            "Too many sessions; try again later",
                        )
                    }
                }
            }
            None => match self.find_session(parts) {
                Ok(s) => s,
                Err(response) => return *response,
            },
        };
        #[cfg(feature = "redis")]
        if let Some(response) = self.share_session_state(&session, &messages, initialize.is_some()).await {
            return response;
        }
        if batch && !session.version.lock().map(|v| v.accepts_batches()).unwrap_or(false) {
            return status::error(
                StatusCode::BAD_REQUEST,
                None,
                codes::INVALID_REQUEST,
                "Invalid request: batches are only accepted at protocol version 2025-03-26",
            );
        }

        let mut response = self.exchange(&session, parts, messages, batch, refused, json).await;
        if initialize.is_some() {
            // An `initialize` answered with an error (bad params, a middleware's refusal)
            // opened no session: forget it rather than name it to the client. (A complete
            // body means the answer is in it; a slow one still streaming keeps its id.)
            let answered = http_body::Body::size_hint(response.body()).exact().is_some();
            if answered && !session.is_open() {
                self.end_session(&session);
                return response;
            }
            if let Ok(value) = HeaderValue::from_str(&session.id) {
                response.headers_mut().insert(header_rules::SESSION_ID, value);
            }
        }
        response
    }

    /// A slot for a request served without a session; `None` when all are taken.
    fn request_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.inner.request_slots.clone().try_acquire_owned().ok()
    }

    /// The session a request names, marked used: 400 without the header (or with it
    /// repeated, or not text), 404 when unknown, idle past its timeout (though not reaped
    /// yet) or bound to another principal.
    #[allow(clippy::result_large_err)]
    fn find_session(&self, parts: &http::request::Parts) -> Result<Arc<Session>, Box<Response<McpBody>>> {
        let refused = |message: String| {
            Err(Box::new(status::error(StatusCode::BAD_REQUEST, None, codes::INVALID_REQUEST, message)))
        };
        let id = match header_rules::session_id(&parts.headers) {
            Ok(Some(id)) => id,
            Ok(None) => return refused("Bad Request: the Mcp-Session-Id header is required".into()),
            Err(e) => return refused(format!("Bad Request: {e}")),
        };
        let principal = parts.extensions.get::<crate::extensions::Principal>().map(|p| p.0.as_str());
        let now = Instant::now();
        match self.inner.sessions.get(id, now) {
            Some(s) if s.principal.as_deref() == principal => {
                s.touch_at(now);
                Ok(s)
            }
            _ => Err(Box::new(status::error(
                StatusCode::NOT_FOUND,
                None,
                codes::INVALID_REQUEST,
                "Session not found",
            ))),
        }
    }

    /// Forgets `session` (here and in the cluster) and closes it.
    fn end_session(&self, session: &Session) {
        self.inner.sessions.remove(&session.id);
        #[cfg(feature = "redis")]
        if let Some(cluster) = &self.inner.settings.cluster {
            cluster.forget_session(&session.id);
        }
        session.close();
    }

    /// 2025 GET (the standalone stream, or a resumption) and DELETE (end the session).
    async fn session_stream(&self, parts: &http::request::Parts) -> Response<McpBody> {
        let session = match self.find_session(parts) {
            Ok(s) => s,
            Err(response) => return *response,
        };
        if parts.method == Method::DELETE {
            self.end_session(&session);
            return status::empty(StatusCode::OK);
        }
        if !security::accepts(&parts.headers, "text/event-stream") {
            return status::error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                codes::INVALID_REQUEST,
                "Accept must list text/event-stream",
            );
        }
        let keep_alive = self.inner.settings.keep_alive;
        let last_event_id = match header_rules::last_event_id(&parts.headers) {
            Ok(last) => last,
            Err(e) => {
                let message = format!("Bad Request: {e}");
                return status::error(StatusCode::BAD_REQUEST, None, codes::INVALID_REQUEST, message);
            }
        };
        if let Some(last) = last_event_id {
            if let Some(rx) = session.resume(last) {
                return stateless::sse_response(McpBody::session_stream(Vec::new(), rx, keep_alive));
            }
            // A stream of the session's previous owner in the cluster, which stopped.
            #[cfg(feature = "redis")]
            if let Some(cluster) = &self.inner.settings.cluster {
                if let Some(replay) = cluster.replay_remote(&session.id, last).await {
                    // The standalone stream goes on here, live, after what it missed.
                    let live = replay.standalone.then(|| session.open_standalone()).flatten();
                    return match live {
                        Some(rx) => {
                            stateless::sse_response(McpBody::session_stream(replay.events, rx, keep_alive))
                        }
                        None => stateless::sse_response(McpBody::full(replay.events.concat())),
                    };
                }
            }
            // 400, not 404: the session lives, and a 404 would tell the client it ended
            // (it must then initialize again and lose it).
            return status::error(
                StatusCode::BAD_REQUEST,
                None,
                codes::INVALID_REQUEST,
                "Bad Request: unknown Last-Event-ID (no stream of this session holds that event)",
            );
        }
        match session.open_standalone() {
            Some(rx) => stateless::sse_response(McpBody::session_stream(Vec::new(), rx, keep_alive)),
            None => status::error(
                StatusCode::CONFLICT,
                None,
                codes::INVALID_REQUEST,
                "A GET stream is already open for this session",
            ),
        }
    }
}

/// The `MCP-Protocol-Version` header's value when no revision has that name.
fn unknown_version(version: Option<&str>) -> Option<&str> {
    version.filter(|v| !ProtocolVersion::ALL.contains(&ProtocolVersion::parse(v)))
}

/// 400 for a message under a version no revision names (2025: "an invalid or unsupported
/// MCP-Protocol-Version"), with the versions this server speaks.
fn unsupported_version(id: Option<RequestId>, requested: &str) -> Response<McpBody> {
    let error = crate::server::stateless::unsupported_version(requested);
    status::error_object(StatusCode::BAD_REQUEST, id, error.to_error_object())
}

/// A batch's members: the messages that decoded, and the error answers of those that
/// did not (JSON-RPC answers a batch member by member, a batch with no valid member
/// included: `[1,2,3]` gets an array of three errors, once the session's version is
/// known to take batches).
fn batch_members(items: Vec<Result<Message, mcpwire_protocol::DecodeError>>) -> (Vec<Message>, Vec<Bytes>) {
    let mut messages = Vec::with_capacity(items.len());
    let mut refused = Vec::new();
    for item in items {
        match item {
            Ok(m) => messages.push(m),
            Err(e) => {
                let error = ErrorResponse::new(e.id, ErrorObject::new(e.code, e.message));
                refused.push(Bytes::from(Message::Error(error).to_vec()));
            }
        }
    }
    (messages, refused)
}

/// Transport facts handed to handlers: the request's headers (moved out of `parts`:
/// call it once the headers have been checked) and its HTTP extensions.
fn request_extensions(parts: &mut http::request::Parts) -> Extensions {
    let mut extensions = Extensions::new();
    extensions.insert(std::mem::take(&mut parts.headers));
    if let Some(p) = parts.extensions.get::<crate::extensions::Principal>() {
        extensions.insert(p.clone());
    }
    // The verified token (scopes, claims) a `BearerAuthLayer` in front of this service
    // found, for handlers to read through their context.
    if let Some(claims) = parts.extensions.get::<crate::extensions::TokenClaims>() {
        extensions.insert(claims.clone());
    }
    // Whatever else a layer in front put on the request (a resolved user, say), for
    // handlers to read the same way ([`Extensions::get`] looks in it too).
    if !parts.extensions.is_empty() {
        extensions.insert(parts.extensions.clone());
    }
    extensions
}

impl<B> tower_service::Service<HttpRequest<B>> for McpService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: HttpRequest<B>) -> Self::Future {
        let service = self.clone();
        Box::pin(async move { Ok(service.handle(request).await) })
    }
}
