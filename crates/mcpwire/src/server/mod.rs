//! Writing an MCP server: register tools, resources, templates, prompts and completions
//! on a [`ServerBuilder`], then serve it over stdio (both eras: the first `initialize` or
//! enveloped request decides) or over Streamable HTTP (both eras on one endpoint:
//! `mcpwire::http`, feature `http`).
//!
//! Handler code is the same in both protocol eras; the era adapters (`stateful` for the
//! 2025 `initialize` sessions, `stateless` for 2026-07-28 requests) own the differences:
//! version checks, `resultType` and cache hints, log gating, and how `ctx.elicit(..)`
//! reaches the client.
//!
//! ```
//! use mcpwire::client::Client;
//! use mcpwire::server::{tool, Server};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = Server::builder("weather", "1.0.0")
//!     .tool(tool("forecast").description("Tomorrow's weather").handler(|| "sunny"))
//!     .build()
//!     .unwrap();
//! // A real server runs `server.serve_stdio().await`; here a client in the same process
//! // calls it over an in-memory pair.
//! let (ours, theirs) = mcpwire::transport::memory::pair();
//! tokio::spawn(async move { server.serve(theirs).await });
//! let client = Client::builder("my-client", "1.0.0").connect(ours).await.unwrap();
//! let result = client.call_tool("forecast", serde_json::json!({})).await.unwrap();
//! assert_eq!(result.content[0].as_text(), Some("sunny"));
//! client.close().await;
//! # }
//! ```

mod arguments;
mod ask;
mod blocking;
mod builder;
mod catalog;
mod context;
pub mod cursor;
mod definition;
mod dual;
pub mod extract;
mod file_root;
mod finite;
mod input_check;
mod local;
mod middleware;
mod notify;
mod params;
mod prompt;
mod reply;
mod request_meta;
pub mod request_state;
mod resource;
mod revision_fit;
mod roots_changed;
mod router;
pub mod schema;
mod schema_refs;
mod session_info;
pub(crate) mod stateful;
pub(crate) mod stateless;
pub mod tasks;
mod tool;
#[doc(hidden)]
pub mod tool_output;
mod trace;
pub mod uri_template;

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use mcpwire_protocol::capabilities::{
    PromptsCapability, ResourcesCapability, ServerCapabilities, ToolsCapability,
};
use mcpwire_protocol::common::JsonObject;
use mcpwire_protocol::completion::{CompleteRequestParams, CompleteResult};
use mcpwire_protocol::content::Icon;
use mcpwire_protocol::lifecycle::Implementation;
use mcpwire_protocol::logging::LoggingLevel;
use mcpwire_protocol::{methods, CacheHint, CacheScope, ProtocolVersion};
use serde_json::Value;

pub use ask::Elicited;
pub use builder::{BuildError, ServerBuilder};
pub use context::Ctx;
pub use definition::Definition;
#[cfg(feature = "http")]
pub(crate) use dual::{enveloped_version, is_enveloped};
pub use extract::{Args, FromRequest, Handler, Rejection, RequestParts, State, Uri};
pub use file_root::FileRoot;
pub use middleware::{middleware_fn, Middleware, Next, NextNotification};
pub use notify::ServerEvent;
pub use prompt::{prompt, IntoPromptResult, PromptArgs, PromptBuilder, PromptDef};
pub use resource::{
    resource, resource_template, Blob, IntoReadResult, ResourceBuilder, ResourceDef, ResourceRequest,
    TemplateBuilder, TemplateDef,
};
pub use roots_changed::RootsChanged;
#[cfg(feature = "redis")]
pub(crate) use session_info::MAX_SUBSCRIPTIONS;
pub use tool::{
    is_valid_tool_name, tool, IntoToolError, IntoToolResult, Json, ToolBuilder, ToolDef, ToolError,
    ToolHandler,
};
pub use trace::{trace_requests, TraceRequests};

use crate::error::McpError;
use crate::extensions::Extensions;
use crate::jsonrpc::{Dispatcher, DispatcherConfig};
use crate::transport::Transport;
use futures_util::future::BoxFuture;
use request_state::StateSealer;

type CompletionHandler = Arc<
    dyn Fn(Ctx, CompleteRequestParams) -> BoxFuture<'static, Result<CompleteResult, McpError>> + Send + Sync,
>;
type MethodHandler = Arc<dyn Fn(Ctx, Value) -> BoxFuture<'static, Result<Value, McpError>> + Send + Sync>;
/// [`ServerBuilder::on_subscribe`].
pub(crate) type SubscribeHook = Arc<dyn Fn(String) -> BoxFuture<'static, Result<(), McpError>> + Send + Sync>;
/// [`ServerBuilder::on_unsubscribe`].
pub(crate) type UnsubscribeHook = Arc<dyn Fn(&str) + Send + Sync>;
/// [`ServerBuilder::on_roots_changed`].
pub(crate) type RootsChangedHook = Arc<dyn Fn(RootsChanged) -> BoxFuture<'static, ()> + Send + Sync>;

/// Settings with defaults; every bound has a setter on [`ServerBuilder`].
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Items per page of every list (default 100).
    pub page_size: usize,
    /// Cache hints stamped on the six cacheable 2026 results, by method (default: `ttlMs`
    /// 0 and `private` for each).
    pub cache_hints: HashMap<&'static str, CacheHint>,
    /// The dispatcher settings of each connection.
    pub dispatcher: DispatcherConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        let hint = CacheHint { ttl_ms: 0, scope: CacheScope::Private };
        ServerConfig {
            page_size: 100,
            cache_hints: methods::CACHEABLE.iter().map(|m| (*m, hint)).collect(),
            dispatcher: DispatcherConfig {
                inline_methods: vec![methods::INITIALIZE.to_owned()],
                ..Default::default()
            },
        }
    }
}

/// Names (tools, prompts) and URIs to their registration index, looked up once per call.
/// A fixed-seed fast hash: the tables are made by the server (at build and on a
/// [`Server::add_tool`]-like change), and a client's names are only looked up, never
/// inserted, so they cannot be flooded.
pub(crate) type NameIndex = HashMap<String, usize, foldhash::fast::FixedState>;

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    /// `info` as 2026 results carry it, serialized once.
    pub(crate) server_info: reply::ServerInfo,
    pub(crate) instructions: Option<String>,
    /// The tools, resources, templates and prompts, as they are now.
    pub(crate) catalog: catalog::SharedCatalog,
    pub(crate) completion: Option<CompletionHandler>,
    /// Told when a client starts following a resource; may refuse it.
    pub(crate) on_subscribe: Option<SubscribeHook>,
    /// Told when a client stops following a resource (however it stops).
    pub(crate) on_unsubscribe: Option<UnsubscribeHook>,
    /// Told when a 2025 client's roots change.
    pub(crate) on_roots_changed: Option<RootsChangedHook>,
    /// Which built-in request families the router serves: those something was
    /// registered for or declared (the rest reach [`ServerBuilder::method`]s).
    pub(crate) serves: Serves,
    pub(crate) methods: HashMap<String, MethodHandler>,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) state: Extensions,
    pub(crate) config: ServerConfig,
    /// `config.dispatcher`, shared by every connection's dispatcher (a copy per 2025
    /// session would cost each idle session a few hundred bytes).
    pub(crate) dispatcher: Arc<DispatcherConfig>,
    pub(crate) sealer: StateSealer,
    pub(crate) bus: notify::Bus,
    /// The live 2025 sessions, which change events are pushed to.
    pub(crate) sessions: stateful::Registry,
    pub(crate) middleware: Arc<[Arc<dyn Middleware>]>,
    /// Where local (non-`Send`) handlers run.
    pub(crate) local: local::LocalExecutor,
    /// Task records and the tasks running here.
    pub(crate) tasks: Arc<tasks::Tasks>,
    /// Whether any tool runs as a task (the extension is advertised, `tasks/*` served).
    pub(crate) tasks_enabled: bool,
    /// Where [`Server::notify`] also sends each change, beyond this process's clients
    /// (the other instances of a cluster); set at most once.
    pub(crate) relay: std::sync::OnceLock<EventRelay>,
}

/// Carries a change event beyond this process (see [`Server::relay_events`]).
pub(crate) type EventRelay = Box<dyn Fn(&ServerEvent) + Send + Sync>;

/// An MCP server: what was registered, ready to serve any number of connections.
/// Cheap to clone.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<ServerInner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("info", &self.inner.info).finish()
    }
}

impl Server {
    /// Starts building a server with a name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(name, version)
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The capabilities derived from what was registered.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.inner.capabilities
    }

    /// The tools now, in registration order (copies: the handlers are shared).
    pub fn tools(&self) -> Vec<ToolDef> {
        self.inner.catalog.current().tools.clone()
    }

    /// The tools, resources, templates and prompts now.
    pub(crate) fn catalog(&self) -> Arc<catalog::Catalog> {
        self.inner.catalog.current()
    }

    /// Runs a request through the middleware chain, then `endpoint`. Every error of a 2026
    /// request leaves through here in 2026's terms ([`stateless::in_2026_terms`]), a
    /// middleware's as well as a handler's: no `-32002` or `-32042` leaves a 2026 request.
    /// Only errors pay for it.
    pub(crate) async fn layered(
        &self,
        request: mcpwire_protocol::Request,
        ctx: crate::jsonrpc::RequestContext,
        endpoint: Arc<dyn middleware::Endpoint>,
    ) -> Result<mcpwire_protocol::RawJson, McpError> {
        let stateless = ctx.in_stateless_era();
        let answer = middleware::Next::new(self.inner.middleware.clone(), endpoint).run(request, ctx).await;
        match stateless {
            true => answer.map_err(stateless::in_2026_terms),
            false => answer,
        }
    }

    /// Runs a notification through the middleware chain, then `endpoint`.
    pub(crate) async fn layered_notification(
        &self,
        notification: mcpwire_protocol::Notification,
        ctx: crate::jsonrpc::NotificationContext,
        endpoint: middleware::NotificationEndpoint,
    ) {
        middleware::NextNotification::new(self.inner.middleware.clone(), endpoint)
            .run(notification, ctx)
            .await
    }

    /// Publishes a change to every connected client that asked for it.
    pub fn notify(&self, event: ServerEvent) {
        if let Some(relay) = self.inner.relay.get() {
            relay(&event);
        }
        self.publish_local(event);
    }

    /// Sends a log message outside any request (`notifications/message`, from a
    /// background job, say) to every 2025 session of this process whose
    /// `logging/setLevel` admits `level` (a session that set none gets every level). The
    /// 2025 revisions let a server log at any time; 2026 clients take log messages only
    /// on their requests' streams ([`Ctx::log`](crate::server::Ctx::log)), so they do not
    /// get these. Nothing is sent when the server offers no logging
    /// ([`ServerBuilder::without_logging`]).
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl serde::Serialize) {
        if self.inner.capabilities.logging.is_none() {
            return;
        }
        if let Some(raw) = context::log_params(level, logger, data, None) {
            self.inner.sessions.log(level, &raw);
        }
    }

    /// Publishes a change to this process's clients only (a change another instance of
    /// a cluster made).
    pub(crate) fn publish_local(&self, event: ServerEvent) {
        // 2025 sessions get it queued now; 2026 listen streams through the broadcast.
        self.inner.sessions.publish(&self.inner.capabilities, &event);
        self.inner.bus.publish(event);
    }

    /// Sends every later [`Server::notify`] event to `relay` too (the first relay set
    /// stays).
    #[cfg(feature = "redis")]
    pub(crate) fn relay_events(&self, relay: EventRelay) {
        let _ = self.inner.relay.set(relay);
    }

    /// Serves one connection on `transport` until it closes, in both eras (the first
    /// request decides: `initialize` opens a 2025 session, an enveloped request makes it
    /// a 2026 connection).
    pub async fn serve(&self, transport: impl Transport) {
        let dispatcher = Dispatcher::with_shared_config(transport, self.inner.dispatcher.clone());
        dispatcher.run(dual::DualEra::new(self.clone())).await;
    }

    /// Serves one client on this process's stdin and stdout until stdin closes, with the
    /// default [`StdioLimits`] (16 MiB lines).
    pub async fn serve_stdio(&self) {
        self.serve_stdio_with(StdioLimits::default()).await;
    }

    /// Serves one client on stdin and stdout with the given bounds: a line longer than
    /// `limits.max_line_bytes` is discarded unbuffered and answered `-32600`, and the
    /// connection goes on.
    pub async fn serve_stdio_with(&self, limits: StdioLimits) {
        let transport = crate::transport::stdio::stdio()
            .max_line_bytes(limits.max_line_bytes)
            .channel_capacity(limits.channel_capacity);
        self.serve(transport).await;
    }

    /// [`Server::serve_stdio_with`], until stdin closes or `stop` completes (a
    /// `SIGTERM`, say): a stop is taken as the end of input, so the requests still running
    /// get the same moment to finish and then the same shutdown answer ("Connection
    /// closed", or `-32603` in the 2026 era), and every answer is written before this
    /// returns. (A terminal's stdin, unlike a pipe's,
    /// is read on tokio's blocking pool, where a read under way cannot be stopped: a
    /// process that may be run from a terminal exits with `std::process::exit` once this
    /// returns, rather than waiting for its runtime to shut down, which waits for that read.)
    ///
    /// ```no_run
    /// # async fn run(server: mcpwire::server::Server) {
    /// // Cancelled by whatever stops the server (a signal handler, say).
    /// let stop = tokio_util::sync::CancellationToken::new();
    /// server.serve_stdio_until(Default::default(), stop.clone().cancelled_owned()).await;
    /// # }
    /// ```
    pub async fn serve_stdio_until(
        &self,
        limits: StdioLimits,
        stop: impl Future<Output = ()> + Send + 'static,
    ) {
        use crate::transport::io::{EndsWhen, IoTransport};
        use crate::transport::stdio::{StdinReader, StdoutWriter};
        let reader = EndsWhen::new(StdinReader::open(), stop);
        let transport = IoTransport::new(reader, StdoutWriter::open())
            .max_line_bytes(limits.max_line_bytes)
            .channel_capacity(limits.channel_capacity);
        self.serve(transport).await;
    }
}

/// The bounds of a stdio connection ([`Server::serve_stdio_with`]); the same setters exist
/// on [`IoTransport`](crate::transport::io::IoTransport) for other byte streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StdioLimits {
    /// The longest line (one JSON-RPC message) read from stdin, in bytes; default 16 MiB.
    /// At least 1.
    pub max_line_bytes: usize,
    /// Messages queued in each direction before back-pressure; default 1024. At least 1.
    pub channel_capacity: usize,
}

impl Default for StdioLimits {
    fn default() -> Self {
        StdioLimits {
            max_line_bytes: crate::transport::lines::DEFAULT_MAX_LINE_BYTES,
            channel_capacity: crate::transport::DEFAULT_CHANNEL_CAPACITY,
        }
    }
}

/// The built-in request families a server serves (see [`ServerInner::serves`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Serves {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    pub(crate) completion: bool,
}

/// The versions this server speaks, newest first within each era.
pub(crate) fn supported_stateless() -> Vec<ProtocolVersion> {
    ProtocolVersion::STATELESS.to_vec()
}
