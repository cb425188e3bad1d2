//! A client for any MCP server, in both protocol eras.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpwire::client::Client;
//! use mcpwire::transport::child::ChildProcess;
//!
//! let client = Client::builder("my-client", "1.0.0")
//!     .spawn(ChildProcess::new("everything-server").arg("--stdio"))
//!     .await?;
//! let tools = client.list_all_tools().await?;
//! let result = client.call_tool("test_simple_text", serde_json::json!({})).await?;
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! By default the client probes the server's era: it sends `server/discover` (2026); a
//! recognised `-32022` error means the server is stateless, 2026 (retry with a shared
//! version), and any other error or a timeout falls back to the stateful 2025 `initialize`
//! handshake (over HTTP, a probe that gets no answer at all fails the connection instead).
//! A stateless server that answered the probe too late refuses that `initialize` with
//! `-32022`; the client then connects in 2026 after all. A version can be pinned, and a
//! saved discover result reused to skip the probe (probed again, once, when the first
//! answers show it stale). The server's requests before the era is known get `ping`
//! answered and anything else refused.
//!
//! A call's timeout covers all of it: in 2026 the `input_required` rounds and the
//! callbacks that answer them, as in 2025 the server's requests made within the call.
//! Log messages and change notifications reach their callbacks in the order the server
//! sent them, before the response that follows them.

mod cache;
mod callback_tasks;
mod callbacks;
mod calls;
mod connect;
mod era_cache;
mod handler;
mod handshake;
mod listen;
mod mrtr;
mod output_schema;
mod restart;
mod router;
mod saved;
mod tasks;

use std::future::Future;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire_protocol::capabilities::{ClientCapabilities, ServerCapabilities};
use mcpwire_protocol::elicitation::{ElicitRequestParams, ElicitResult};
use mcpwire_protocol::lifecycle::{request_envelope, DiscoverResult, Implementation, InitializeResult};
use mcpwire_protocol::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcpwire_protocol::roots::ListRootsResult;
use mcpwire_protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcpwire_protocol::{meta, methods, Era, Meta, ProtocolVersion, RawJson, ResultType};
use serde_json::{Map, Value};

pub use callbacks::ServerChange;
pub use calls::{RequestOptions, TaskCallback};
pub use era_cache::EraCache;
pub use listen::Subscription;
pub use tasks::ToolCallStart;

use crate::error::{McpError, RequestError};
use crate::jsonrpc::{CallOptions, Peer};
use cache::Cache;
use callbacks::{boxed, Callbacks};
use router::Listeners;
use tokio_util::sync::CancellationToken;

/// Why connecting failed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The server process could not be started.
    #[error("could not start the server: {0}")]
    Spawn(#[source] std::io::Error),
    /// The handshake or probe failed.
    #[error("the handshake failed: {0}")]
    Handshake(#[source] RequestError),
    /// The server speaks no version this client does.
    #[error("no shared protocol version: the server supports {supported:?}")]
    NoSharedVersion {
        /// What the server said it supports.
        supported: Vec<String>,
    },
    /// The server's answer could not be read.
    #[error("the server's handshake answer is invalid: {0}")]
    InvalidAnswer(String),
    /// [`ClientBuilder::protocol_version`] pinned a revision this client does not know
    /// (a typo, most likely): nothing was sent.
    #[error("unknown protocol version {requested:?}: this client speaks {known}")]
    UnknownVersion {
        /// The version pinned.
        requested: String,
        /// Those this client speaks, listed.
        known: String,
    },
}

/// How to choose the era.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Mode {
    /// Probe with `server/discover`, fall back to `initialize` (the default).
    #[default]
    Auto,
    /// Use this version without probing (its era decides the handshake).
    Pinned(ProtocolVersion),
}

/// Closes a connection and waits, at most [`CLOSE_WAIT`], for its transport to finish, so
/// that the transport's goodbye (the HTTP session's DELETE) goes out before this returns.
async fn close_and_wait(peer: &Peer, finished: Option<&CancellationToken>) {
    peer.close();
    if let Some(finished) = finished {
        if tokio::time::timeout(CLOSE_WAIT, finished.cancelled()).await.is_err() {
            tracing::debug!("the transport did not finish within {CLOSE_WAIT:?} of close");
        }
    }
}

/// How long [`Client::close`] waits for the transport to put out its goodbye.
const CLOSE_WAIT: Duration = Duration::from_secs(3);
/// Options of a client.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// How long to wait for the probe before falling back to `initialize` (default 5 s).
    /// Over a transport that answers every request (HTTP), the probe waits as long as any
    /// request ([`request_timeout`](Self::request_timeout)) if that is longer, and a probe
    /// that gets no answer at all within it fails the connection
    /// ([`RequestError::Timeout`]): a 2025-era HTTP server refuses the probe at once, so
    /// silence means an unresponsive server, and `initialize` is not tried after it. So
    /// connecting over HTTP waits one timeout for a server that never answers; over stdio,
    /// where a 2025-era server may leave the probe unanswered, a probe timeout falls back
    /// to `initialize` (the probe timeout, then at most the request timeout).
    pub probe_timeout: Duration,
    /// Default timeout of every request (default 60 s).
    pub request_timeout: Duration,
    /// Most `input_required` rounds of one call before giving up (default 10); for a
    /// call that became a 2026 task, most rounds of new questions the task asks (the
    /// task is then cancelled).
    pub max_input_rounds: usize,
    /// A server spawned by [`ClientBuilder::spawn`] that exits unexpectedly (not with
    /// success) while the client is connected in the 2026 era is started again, and the requests it had not
    /// answered are sent to the new process (`subscriptions/listen` streams included: each
    /// gets a new acknowledgement, and changes made meanwhile may have been missed). This is
    /// the most restarts within a minute (default 3); past it, or at 0, the connection
    /// closes and waiting calls fail with the exit's reason, as in the 2025 era, whose
    /// sessions do not survive their process. A request that itself crashes the server is
    /// sent again at each restart, so it fails only once the limit is reached.
    pub max_restarts: u32,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            probe_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(60),
            max_input_rounds: 10,
            max_restarts: 3,
        }
    }
}

/// The negotiated era and what the handshake told.
#[derive(Debug)]
pub(crate) enum Session {
    Stateful(InitializeResult),
    Stateless { version: ProtocolVersion, discover: Option<DiscoverResult> },
}

pub(crate) struct ClientInner {
    pub(crate) peer: Peer,
    pub(crate) session: Session,
    pub(crate) info: Implementation,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) callbacks: Callbacks,
    pub(crate) cache: Arc<Cache>,
    pub(crate) listeners: Listeners,
    pub(crate) options: ClientOptions,
    /// The 2026 `logLevel` sent with every request, once set.
    pub(crate) log_level: Mutex<Option<LoggingLevel>>,
    pub(crate) next_listen: AtomicU64,
    pub(crate) output_schemas: Arc<output_schema::OutputSchemas>,
    /// 2025-11-25 tools' task support, learned from `tools/list`.
    pub(crate) task_tools: Arc<tasks::TaskTools>,
    /// The server this client spawned, if it did.
    child: Mutex<Option<restart::Supervised>>,
    /// The transport's "everything sent" signal ([`Transport::finished_signal`](crate::transport::Transport::finished_signal)).
    transport_finished: Option<CancellationToken>,
    /// The `initialize` answer of a 2025 session the transport made in place of the
    /// handshake's ([`Transport::renewed_session`](crate::transport::Transport::renewed_session)).
    renewed: Option<crate::transport::RenewedSession>,
    /// The count of renewed sessions ([`RenewedSession::count`](crate::transport::RenewedSession::count))
    /// that `output_schemas` and `task_tools` were learned under.
    tools_learned_under: std::sync::atomic::AtomicU64,
    /// 2026: the listen stream that carries each URI's updates since
    /// [`Client::subscribe`], by URI.
    pub(crate) resource_streams: listen::ResourceStreams,
    /// A connection made from a saved discover result: its state until the first
    /// answers confirm it, and the session a new probe found in its place.
    pub(crate) saved: Option<saved::Saved>,
}

impl ClientInner {
    /// The session: the handshake's, or the one a new probe found in place of a stale
    /// saved discover result.
    pub(crate) fn session(&self) -> &Session {
        match self.saved.as_ref().and_then(|s| s.replaced.get()) {
            Some(replaced) => &replaced.session,
            None => &self.session,
        }
    }

    /// Forgets what was learned of the tools of a session that has since been replaced
    /// (the server, restarted say, may list other tools with other output schemas), before
    /// any use of `output_schemas` or `task_tools`.
    pub(crate) fn forget_tools_of_replaced_sessions(&self) {
        let Some(renewed) = &self.renewed else { return };
        let count = renewed.count();
        if self.tools_learned_under.swap(count, std::sync::atomic::Ordering::Relaxed) != count {
            self.output_schemas.forget();
            self.task_tools.forget();
        }
    }

    /// The `initialize` answer that describes the 2025 session now: that of the session
    /// the transport made in place of the handshake's, if it did (`None` in 2026). One
    /// answer, read once: its version, identity and capabilities belong together.
    pub(crate) fn initialized(&self) -> Option<Initialized<'_>> {
        let Session::Stateful(handshake) = self.session() else { return None };
        Some(match self.renewed.as_ref().and_then(|r| r.get()) {
            Some(renewed) => Initialized::Renewed(renewed),
            None => Initialized::Handshake(handshake),
        })
    }

    /// The capabilities this client declares, for the era of [`Self::session`].
    pub(crate) fn capabilities(&self) -> &ClientCapabilities {
        match self.saved.as_ref().and_then(|s| s.replaced.get()) {
            Some(replaced) => &replaced.capabilities,
            None => &self.capabilities,
        }
    }
}

/// The `initialize` answer of the current 2025 session ([`ClientInner::initialized`]).
pub(crate) enum Initialized<'a> {
    /// The handshake's session, still in use.
    Handshake(&'a InitializeResult),
    /// A session the transport made in place of it.
    Renewed(Arc<InitializeResult>),
}

impl std::ops::Deref for Initialized<'_> {
    type Target = InitializeResult;

    fn deref(&self) -> &InitializeResult {
        match self {
            Initialized::Handshake(answer) => answer,
            Initialized::Renewed(answer) => answer,
        }
    }
}

impl Drop for ClientInner {
    fn drop(&mut self) {
        self.peer.close();
    }
}

/// A connected client. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<ClientInner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("protocol_version", &self.protocol_version()).finish()
    }
}

/// Configures and connects a [`Client`].
pub struct ClientBuilder {
    info: Implementation,
    callbacks: Callbacks,
    mode: Mode,
    prior_discover: Option<DiscoverResult>,
    options: ClientOptions,
    era_cache: Option<EraCache>,
    /// Whether the client declares tasks ([`ClientBuilder::without_tasks`]).
    tasks: bool,
}

impl Client {
    /// Starts configuring a client with its name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            info: Implementation::new(name, version),
            callbacks: Callbacks::default(),
            mode: Mode::Auto,
            prior_discover: None,
            options: ClientOptions::default(),
            era_cache: None,
            tasks: true,
        }
    }

    /// The negotiated protocol version: in the 2025 era over HTTP, that of the current
    /// session (a session the server forgot is replaced by a new `initialize`, which may
    /// settle on another revision).
    pub fn protocol_version(&self) -> &ProtocolVersion {
        match self.inner.session() {
            Session::Stateless { version, .. } => version,
            Session::Stateful(handshake) => {
                let renewed = self.inner.renewed.as_ref().and_then(|r| r.get());
                renewed
                    .and_then(|r| stateful_version(&r.protocol_version))
                    .unwrap_or(&handshake.protocol_version)
            }
        }
    }

    /// The era of this connection.
    pub fn era(&self) -> Era {
        match self.inner.session() {
            Session::Stateful(_) => Era::Stateful,
            Session::Stateless { .. } => Era::Stateless,
        }
    }

    /// The `Mcp-Session-Id` the server issued for the current 2025 session over Streamable
    /// HTTP, if it issued one. `None` for a 2025 HTTP server that keeps no sessions (one in
    /// stateless mode answers `initialize` without the header), in the 2026 era, and over
    /// transports that have no session ids (stdio, in-memory), where the connection itself
    /// is the session. Lets a tool tell a session-keeping server from one that keeps none.
    pub fn session_id(&self) -> Option<String> {
        match self.inner.session() {
            Session::Stateful(_) => self.inner.renewed.as_ref().and_then(|r| r.session_id()),
            Session::Stateless { .. } => None,
        }
    }

    /// Whether the connection fell back to the legacy HTTP+SSE transport (2024-11-05), for
    /// a server that refused a Streamable HTTP `initialize`. Its one stream carries every
    /// answer and is the session (as a stdio connection is), though it has no
    /// [`session_id`](Self::session_id): so a tool can tell it from a 2025 server that
    /// keeps no sessions. `false` over every other transport.
    pub fn legacy_http_sse(&self) -> bool {
        self.inner.renewed.as_ref().is_some_and(|r| r.legacy_http_sse())
    }

    /// The server's identity, when known (from `initialize`, or from the discover result).
    /// In the 2025 era, that of the current session: a session the server forgot is
    /// replaced by a new `initialize`, whose answer describes the server from then on.
    pub fn server_info(&self) -> Option<Implementation> {
        match self.inner.initialized() {
            Some(answer) => Some(answer.server_info.clone()),
            None => self
                .discover_result()
                .and_then(|d| d.meta.as_ref())
                .and_then(|m| m.get(meta::SERVER_INFO))
                .and_then(|v| serde_json::from_value(v.clone()).ok()),
        }
    }

    /// The server's capabilities, when known. In the 2025 era, those of the current
    /// session (see [`Client::server_info`]): a copy, since a renewed session may bring
    /// others.
    pub fn server_capabilities(&self) -> Option<ServerCapabilities> {
        match self.inner.initialized() {
            Some(answer) => Some(answer.capabilities.clone()),
            None => self.discover_result().map(|d| d.capabilities.clone()),
        }
    }

    /// The server's instructions, when it gave any. In the 2025 era, those of the current
    /// session (see [`Client::server_info`]).
    pub fn instructions(&self) -> Option<String> {
        match self.inner.initialized() {
            Some(answer) => answer.instructions.clone(),
            None => self.discover_result().and_then(|d| d.instructions.clone()),
        }
    }

    /// The discover result of a 2026 connection (save it to reconnect without a probe).
    pub fn discover_result(&self) -> Option<&DiscoverResult> {
        match self.inner.session() {
            Session::Stateless { discover, .. } => discover.as_ref(),
            Session::Stateful(_) => None,
        }
    }

    /// The capabilities this client declares.
    pub fn capabilities(&self) -> &ClientCapabilities {
        self.inner.capabilities()
    }

    /// The underlying JSON-RPC peer: a low-level escape hatch, for messages the client
    /// must not touch. What goes through it is sent as given: no 2026 `_meta` envelope,
    /// no `resultType` check, no `input_required` rounds; nor is it watched for a stale
    /// saved discover result ([`ClientBuilder::prior_discover`]): its answers, to
    /// requests without the envelope, say nothing about that result, so they neither
    /// confirm it nor make the client probe again. A custom request sent the way the
    /// client sends its own goes through [`Client::send_request`].
    pub fn peer(&self) -> &Peer {
        &self.inner.peer
    }

    /// Closes the connection; a spawned server is shut down the way the spec describes
    /// (stdin closed, then `SIGTERM`, then `SIGKILL`), and an HTTP session is deleted
    /// before this returns (waiting at most 3 s for it).
    pub async fn close(&self) {
        close_and_wait(&self.inner.peer, self.inner.transport_finished.as_ref()).await;
        let child = self.inner.child.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(child) = child {
            child.shutdown().await;
        }
    }

    /// Whether the connection has closed (for example the server exited).
    pub fn is_closed(&self) -> bool {
        self.inner.peer.is_closed()
    }

    /// Adds the `_meta` this connection's era needs to request params: the 2026 envelope
    /// (protocol version, client capabilities and info, log level), merged with `extra`.
    pub(crate) fn params(
        &self,
        params: Map<String, Value>,
        extra: Option<&Meta>,
        capabilities: Option<&ClientCapabilities>,
    ) -> Result<RawJson, RequestError> {
        let mut params = params;
        let mut meta: Meta = match params.remove("_meta") {
            Some(Value::Object(m)) => m,
            _ => Meta::new(),
        };
        if let Some(extra) = extra {
            meta.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        if let Some(current) =
            self.inner.callbacks.trace_context.as_ref().filter(|_| !meta.contains_key("traceparent"))
        {
            if let Some(context) = current() {
                context.write_to(&mut meta);
            }
        }
        if let Session::Stateless { version, .. } = self.inner.session() {
            let level = *self.inner.log_level.lock().unwrap_or_else(|e| e.into_inner());
            let capabilities = capabilities.unwrap_or(self.inner.capabilities());
            meta.extend(request_envelope(version, capabilities, Some(&self.inner.info), level));
        }
        if !meta.is_empty() {
            params.insert("_meta".into(), Value::Object(meta));
        }
        serde_json::value::to_raw_value(&params).map_err(RequestError::Encode)
    }

    /// Sends a request with this era's `_meta` and checks a 2026 `resultType`: absent or
    /// `complete` passes; `input_required` is returned as such for the caller's loop, and
    /// `task` too when this client declared the tasks extension; anything else is an error.
    /// (Through [`Client::send`], which watches a saved discover result's first answers.)
    pub(crate) async fn send_once(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Result<(ResultType, RawJson), RequestError> {
        let declared = options.capabilities.as_ref();
        let raw = self.params(params, options.meta.as_ref(), declared)?;
        let call = CallOptions {
            id: options.id.clone(),
            timeout: Some(options.timeout.unwrap_or(self.inner.options.request_timeout)),
            on_progress: options.on_progress.clone(),
            related: None,
            cancel: options.cancel.clone(),
            max_total_timeout: options.max_total_timeout,
        };
        let result = self.inner.peer.request_raw(method, Some(raw), call).await?;
        let kind = match self.era() {
            Era::Stateful => ResultType::Complete,
            Era::Stateless => result_type(&result)?,
        };
        // Only these methods may ask for input, and only a tool call may become a task:
        // on any other method those results are invalid, not results of its type.
        let allowed = match &kind {
            ResultType::InputRequired => methods::INPUT_REQUIRED_ALLOWED.contains(&method),
            ResultType::Task => method == methods::TOOLS_CALL,
            _ => true,
        };
        if !allowed {
            return Err(RequestError::Protocol(format!(
                "the server answered {method} with resultType {:?}, which that method cannot return",
                kind.as_str()
            )));
        }
        // The valid result types are the core ones and those of the extensions declared.
        if kind == ResultType::Task
            && !declared
                .unwrap_or(self.inner.capabilities())
                .has_extension(mcpwire_protocol::meta::TASKS_EXTENSION)
        {
            return Err(RequestError::Protocol(
                "the server answered with a task, though this client did not declare the tasks extension"
                    .into(),
            ));
        }
        // ... and those the server advertised (when its discover result is known).
        let advertised = self.discover_result().is_none_or(|d| d.capabilities.supports_tasks_extension());
        if kind == ResultType::Task && !advertised {
            return Err(RequestError::Protocol(
                "the server answered with a task, though it does not advertise the tasks extension".into(),
            ));
        }
        Ok((kind, result))
    }
}

/// `version` when it is a 2025 revision this client speaks (the transport takes no other
/// for a renewed session), lent from a `static` copy of [`ProtocolVersion::STATEFUL`],
/// which outlives the renewed answer it was read from.
fn stateful_version(version: &ProtocolVersion) -> Option<&'static ProtocolVersion> {
    static STATEFUL: [ProtocolVersion; 4] = ProtocolVersion::STATEFUL;
    STATEFUL.iter().find(|v| *v == version)
}

/// Whether a 2026 result is a task (`resultType: "task"`).
pub(crate) fn is_task_result(raw: &RawJson) -> Result<bool, RequestError> {
    Ok(result_type(raw)? == ResultType::Task)
}

/// Reads `resultType` (absent = complete); an unknown value is an error.
fn result_type(raw: &RawJson) -> Result<ResultType, RequestError> {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "resultType")]
        result_type: Option<ResultType>,
    }
    let probe: Probe = serde_json::from_str(raw.get()).map_err(RequestError::InvalidResult)?;
    match probe.result_type.unwrap_or_default() {
        ResultType::Other(other) => Err(RequestError::Protocol(format!("unknown resultType {other:?}"))),
        known => Ok(known),
    }
}

impl ClientBuilder {
    /// Answers `sampling/createMessage` (declares the `sampling` capability).
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, McpError>> + Send + 'static,
    {
        self.callbacks.sampling = Some(boxed(f));
        self
    }

    /// Also declares `sampling.tools` (the callback handles tool use in sampling).
    pub fn sampling_tools(mut self, yes: bool) -> Self {
        self.callbacks.sampling_tools = yes;
        self
    }

    /// Answers `elicitation/create` (declares the `elicitation` capability, form mode).
    pub fn on_elicitation<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, McpError>> + Send + 'static,
    {
        self.callbacks.elicitation = Some(boxed(f));
        self
    }

    /// Also declares URL-mode elicitation.
    pub fn elicitation_url(mut self, yes: bool) -> Self {
        self.callbacks.elicitation_url = yes;
        self
    }

    /// Answers `roots/list` (declares the `roots` capability; in the 2025 era with
    /// `listChanged`: call [`Client::notify_roots_changed`] when the answer changes).
    pub fn on_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListRootsResult, McpError>> + Send + 'static,
    {
        self.callbacks.roots = Some(Arc::new(move || Box::pin(f())));
        self
    }

    /// Receives the server's log messages, in the order the server sent them, each before
    /// the response that follows it. Called on the connection's read path: keep it short
    /// (hand work to a task or channel).
    pub fn on_log(mut self, f: impl Fn(LoggingMessageNotificationParams) + Send + Sync + 'static) -> Self {
        self.callbacks.log = Some(Arc::new(f));
        self
    }

    /// Hears that a URL-mode elicitation is complete (`notifications/elicitation/complete`,
    /// 2025-11-25), with its `elicitationId`: after a `-32042` answer
    /// ([`RequestError::url_elicitations`]) the request may then be retried. Called on
    /// the connection's read path: keep it short.
    pub fn on_elicitation_complete(mut self, f: impl Fn(String) + Send + Sync + 'static) -> Self {
        self.callbacks.elicitation_complete = Some(Arc::new(f));
        self
    }

    /// Hears about list changes and resource updates, in arrival order. Called on the
    /// connection's read path, like [`ClientBuilder::on_log`]: keep it short.
    pub fn on_change(mut self, f: impl Fn(ServerChange) + Send + Sync + 'static) -> Self {
        self.callbacks.change = Some(Arc::new(f));
        self
    }

    /// Puts a W3C trace context in every request's `_meta` (`traceparent`, and
    /// `tracestate` when there is one), so that a server that traces requests (for
    /// example with [`trace_requests`](crate::server::trace_requests)) continues the
    /// caller's trace. `current` is asked once per request, in the calling task: with
    /// OpenTelemetry it reads the current span's context (see the `opentelemetry`
    /// example). A request whose `_meta` has a `traceparent` already keeps it.
    pub fn trace_context(
        mut self,
        current: impl Fn() -> Option<crate::extensions::TraceContext> + Send + Sync + 'static,
    ) -> Self {
        self.callbacks.trace_context = Some(Arc::new(current));
        self
    }

    /// Pins a protocol version (no probe): a 2025 revision uses `initialize`, 2026-07-28
    /// goes straight to stateless requests.
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.mode = Mode::Pinned(version);
        self
    }

    /// Reuses a saved discover result: connects in the 2026 era without a probe. The
    /// first answers check it: a request refused in a way that shows it stale (`-32022`,
    /// the version no longer served; `-32600` or `-32000…-32019`, as a 2025-era server
    /// refuses an enveloped request before its handshake; an HTTP 4xx without a JSON-RPC
    /// body) makes the client forget it and probe again, once per connection, and the
    /// request is sent once more if the probe found another version or era. A result,
    /// or another error from the server, confirms it. A [`Client::listen`] stream counts
    /// as a request (its acknowledgement as a result); what goes through the raw
    /// [`Client::peer`] does not.
    pub fn prior_discover(mut self, discover: DiscoverResult) -> Self {
        self.prior_discover = Some(discover);
        self
    }

    /// Remembers the era of the server in `cache`, and goes straight to `initialize` when
    /// `cache` knows the server as 2025-era (see [`EraCache`]). Without one, every
    /// connection that is not pinned probes.
    pub fn era_cache(mut self, cache: EraCache) -> Self {
        self.era_cache = Some(cache);
        self
    }

    /// Declares no tasks extension in the 2026 era (a 2026 client declares it by
    /// default, and [`Client::call_tool`] follows the tasks it gets). A server then never
    /// answers with a task: every result is final, and a tool that runs only as a task
    /// fails. For a client that hands results on as they come, such as a proxy whose own
    /// clients did not ask for tasks. In the 2025 era it also leaves out the `tasks`
    /// capability with which a client offers to run the server's sampling and elicitation
    /// requests as tasks (declared by default for the callbacks it has).
    pub fn without_tasks(mut self) -> Self {
        self.tasks = false;
        self
    }

    /// Options (timeouts, MRTR round cap).
    pub fn options(mut self, options: ClientOptions) -> Self {
        self.options = options;
        self
    }
}
