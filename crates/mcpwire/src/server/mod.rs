//! Writing an MCP server: register tools, resources, templates, prompts and completions
//! on a [`ServerBuilder`], then serve it over stdio (both eras: the first request decides)
//! or over Streamable HTTP (both eras on one endpoint: [`crate::http`]).
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
mod context;
pub mod cursor;
mod definition;
mod dual;
pub mod extract;
mod file_root;
mod local;
mod middleware;
mod notify;
mod params;
mod prompt;
mod reply;
mod request_meta;
pub mod request_state;
mod resource;
mod router;
pub mod schema;
pub(crate) mod stateful;
pub(crate) mod stateless;
pub mod tasks;
mod tool;
#[doc(hidden)]
pub mod tool_output;
mod trace;
pub mod uri_template;

use std::collections::{HashMap, HashSet};
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
use mcpwire_protocol::{methods, tool_definition, CacheHint, CacheScope, ProtocolVersion};
use serde_json::Value;

pub use ask::Elicited;
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
/// A fixed-seed fast hash: the tables are fixed when the server is built, and a client's
/// names are only looked up, never inserted, so they cannot be flooded.
pub(crate) type NameIndex = HashMap<String, usize, foldhash::fast::FixedState>;

pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    /// `info` as 2026 results carry it, serialized once.
    pub(crate) server_info: reply::ServerInfo,
    pub(crate) instructions: Option<String>,
    pub(crate) tools: Vec<ToolDef>,
    pub(crate) tool_index: NameIndex,
    pub(crate) resources: Vec<ResourceDef>,
    pub(crate) resource_index: NameIndex,
    pub(crate) templates: Vec<TemplateDef>,
    pub(crate) prompts: Vec<PromptDef>,
    pub(crate) prompt_index: NameIndex,
    pub(crate) completion: Option<CompletionHandler>,
    /// Which built-in request families the router serves: those something was
    /// registered for (the rest reach [`ServerBuilder::method`]s).
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
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            completion: None,
            methods: HashMap::new(),
            state: Extensions::new(),
            config: ServerConfig::default(),
            sealer: None,
            extra_capabilities: None,
            middleware: Vec::new(),
            task_store: None,
            task_config: tasks::TaskConfig::default(),
            without_logging: false,
        }
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The capabilities derived from what was registered.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.inner.capabilities
    }

    /// The registered tools, in registration order.
    pub fn tools(&self) -> impl Iterator<Item = &ToolDef> {
        self.inner.tools.iter()
    }

    /// The registered tool called `name` (the HTTP endpoint's header table).
    #[cfg(feature = "http")]
    pub(crate) fn tool_def(&self, name: &str) -> Option<&ToolDef> {
        self.inner.tool_index.get(name).map(|i| &self.inner.tools[*i])
    }

    /// Runs a request through the middleware chain, then `endpoint`.
    pub(crate) async fn layered(
        &self,
        request: mcpwire_protocol::Request,
        ctx: crate::jsonrpc::RequestContext,
        endpoint: Arc<dyn middleware::Endpoint>,
    ) -> Result<mcpwire_protocol::RawJson, McpError> {
        middleware::Next::new(self.inner.middleware.clone(), endpoint).run(request, ctx).await
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
        if let Some(raw) = context::log_params(level, logger, data) {
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
    /// get the same moment to finish and then the same "Connection closed" answer, and
    /// every answer is written before this returns. (A terminal's stdin, unlike a pipe's,
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
#[derive(Clone, Copy, Debug)]
pub(crate) struct Serves {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    pub(crate) completion: bool,
}

/// Why [`ServerBuilder::build`] failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A tool name is not 1-128 characters of `A-Z a-z 0-9 _ - .`.
    #[error("invalid tool name {0:?}: use 1 to 128 characters of A-Z a-z 0-9 _ - .")]
    InvalidToolName(String),
    /// Two tools, prompts or resources share a name or URI.
    #[error("{kind} {name:?} is registered twice")]
    Duplicate {
        /// What is duplicated.
        kind: &'static str,
        /// The name or URI.
        name: String,
    },
    /// A tool's input schema is not an object schema.
    #[error("tool {0:?}: the input schema must be a JSON object with \"type\": \"object\"")]
    InvalidInputSchema(String),
    /// A tool's output schema is not an object schema: the 2025 revisions allow only
    /// those (structured content is an object there). A generated one always is; a
    /// non-object value's is wrapped as `{"result": ..}`.
    #[error("tool {0:?}: the output schema must be a JSON object with \"type\": \"object\"")]
    InvalidOutputSchema(String),
    /// A tool's `x-mcp-header` annotations are invalid (see
    /// [`tool_param_headers`](crate::protocol::tool_definition::tool_param_headers)): every
    /// HTTP client would drop the tool from its list.
    #[error("tool {tool:?}: {reason}")]
    InvalidParamHeader {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// The system's random number generator failed (for the `requestState` key).
    #[error("could not draw a random key: {0}")]
    Randomness(String),
    /// A member given to [`ServerBuilder::extra_capabilities`] is not what the schema
    /// says (for example `"tools": true` instead of an object).
    #[error("invalid capabilities: {0}")]
    InvalidCapabilities(String),
    /// A resource template does not parse.
    #[error("resource template {template:?}: {reason}")]
    InvalidTemplate {
        /// The template.
        template: String,
        /// What is wrong.
        reason: String,
    },
    /// A [`ServerBuilder::method`] names a method the server answers itself (a protocol
    /// method, or one of a family something was registered for): its handler would never
    /// run. To serve a family by hand (a list that changes at run time), register nothing
    /// of it and give every method of it.
    #[error(
        "method {0:?} is answered by the server itself ({1}); a handler registered for it would never run"
    )]
    ShadowedMethod(String, &'static str),
}

/// Registers what a [`Server`] offers.
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<ToolDef>,
    resources: Vec<ResourceDef>,
    templates: Vec<TemplateDef>,
    prompts: Vec<PromptDef>,
    completion: Option<CompletionHandler>,
    methods: HashMap<String, MethodHandler>,
    state: Extensions,
    config: ServerConfig,
    sealer: Option<StateSealer>,
    extra_capabilities: Option<JsonObject>,
    middleware: Vec<Arc<dyn Middleware>>,
    task_store: Option<Arc<dyn tasks::TaskStore>>,
    task_config: tasks::TaskConfig,
    without_logging: bool,
}

impl ServerBuilder {
    /// Adds a middleware around every inbound message (the first added is outermost).
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Arc::new(middleware));
        self
    }

    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// A description of the server.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// Icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.info.icons = Some(icons);
        self
    }

    /// The server's website.
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.info.website_url = Some(url.into());
        self
    }

    /// Instructions for the model on how to use this server.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Registers a tool, prompt, resource or template (what `#[mcpwire::tool]` and its
    /// siblings generate, or a builder's definition).
    pub fn register(self, definition: impl Into<Definition>) -> Self {
        match definition.into() {
            Definition::Tool(tool) => self.tool(tool),
            Definition::Prompt(prompt) => self.prompt(prompt),
            Definition::Resource(resource) => self.resource(resource),
            Definition::Template(template) => self.resource_template(template),
        }
    }

    /// Registers several definitions: `register_all(mcpwire::definitions![add, greet, note])`
    /// registers the functions marked `#[mcpwire::tool]`, `#[mcpwire::prompt]` or
    /// `#[mcpwire::resource]` without naming what the macros generate.
    pub fn register_all(self, definitions: impl IntoIterator<Item = Definition>) -> Self {
        definitions.into_iter().fold(self, Self::register)
    }

    /// Registers a tool (see [`tool`]).
    pub fn tool(mut self, tool: ToolDef) -> Self {
        self.tools.push(tool);
        self
    }

    /// Registers a resource with a fixed URI (see [`resource`]).
    pub fn resource(mut self, resource: ResourceDef) -> Self {
        self.resources.push(resource);
        self
    }

    /// Registers a resource template (see [`resource_template`]).
    pub fn resource_template(mut self, template: TemplateDef) -> Self {
        self.templates.push(template);
        self
    }

    /// Registers a prompt (see [`prompt`]).
    pub fn prompt(mut self, prompt: PromptDef) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Answers `completion/complete` (and advertises the `completions` capability).
    pub fn completion<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(Ctx, CompleteRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CompleteResult, McpError>> + Send + 'static,
    {
        self.completion = Some(Arc::new(move |ctx, params| Box::pin(handler(ctx, params))));
        self
    }

    /// Registers a custom request method (use a vendor prefix, such as `acme/reindex`).
    /// A method the server answers itself fails [`build`](Self::build)
    /// ([`BuildError::ShadowedMethod`]); to serve a standard family by hand (a list that
    /// changes at run time, say), register nothing of that family and give each of its
    /// methods, declaring the capability with [`extra_capabilities`](Self::extra_capabilities).
    pub fn method<F, Fut>(mut self, name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(Ctx, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, McpError>> + Send + 'static,
    {
        self.methods.insert(name.into(), Arc::new(move |ctx, params| Box::pin(handler(ctx, params))));
        self
    }

    /// Shared state for handlers ([`State<T>`] extractor, [`Ctx::state`]).
    pub fn state<T: Send + Sync + 'static>(mut self, state: T) -> Self {
        self.state.insert(state);
        self
    }

    /// Items per page of every list (default 100).
    pub fn page_size(mut self, size: usize) -> Self {
        self.config.page_size = size.max(1);
        self
    }

    /// The cache hint stamped on a cacheable 2026 result (`tools/list`, `prompts/list`,
    /// `resources/list`, `resources/templates/list`, `resources/read`, `server/discover`).
    pub fn cache_hint(mut self, method: &'static str, hint: CacheHint) -> Self {
        self.config.cache_hints.insert(method, hint);
        self
    }

    /// Keys and lifetime of the sealed 2026 `requestState` (default: a random key, 10
    /// minutes). Use fixed keys when several processes serve the same clients.
    pub fn request_state_sealer(mut self, sealer: StateSealer) -> Self {
        self.sealer = Some(sealer);
        self
    }

    /// The dispatcher settings of each connection.
    pub fn dispatcher_config(mut self, config: DispatcherConfig) -> Self {
        self.config.dispatcher = config;
        self
    }

    /// The longest a request's handler may run on any transport (default: no limit, the
    /// client's timeout and cancel bound it): past it the handler is dropped, its
    /// cancellation token fires, and the client gets `-32603` "Request timed out".
    pub fn handler_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.config.dispatcher.handler_timeout = Some(timeout);
        self
    }

    /// Extra capability members (for example `experimental`), put over the ones derived
    /// from what is registered: a member named like a standard one (`tools`,
    /// `resources`, ...) replaces it, and the server honours what it then declares
    /// (list-change notifications, `subscriptions/listen`). A server that relays another
    /// declares that one's capabilities this way; its requests still reach the built-in
    /// handlers only for what it registered, and its [`ServerBuilder::method`]s otherwise.
    pub fn extra_capabilities(mut self, capabilities: JsonObject) -> Self {
        self.extra_capabilities = Some(capabilities);
        self
    }

    /// Where task records are kept (default: a [`tasks::MemoryTaskStore`] of 10 000).
    pub fn task_store(mut self, store: impl tasks::TaskStore) -> Self {
        self.task_store = Some(Arc::new(store));
        self
    }

    /// Task TTLs, polling interval and bounds (see [`tasks::TaskConfig`]).
    pub fn task_config(mut self, config: tasks::TaskConfig) -> Self {
        self.task_config = config;
        self
    }

    /// Leaves the `logging` capability out of what the server declares (it is declared by
    /// default): for a server that relays another's capabilities, such as a proxy in
    /// front of a server without logging, and must not claim more.
    pub fn without_logging(mut self) -> Self {
        self.without_logging = true;
        self
    }

    /// Checks what was registered and builds the server.
    pub fn build(self) -> Result<Server, BuildError> {
        let mut tool_index = NameIndex::default();
        for (i, def) in self.tools.iter().enumerate() {
            let name = &def.tool.name;
            if !is_valid_tool_name(name) {
                return Err(BuildError::InvalidToolName(name.clone()));
            }
            if !schema::is_object_schema(&def.tool.input_schema) {
                return Err(BuildError::InvalidInputSchema(name.clone()));
            }
            if def.tool.output_schema.as_ref().is_some_and(|s| !schema::is_object_schema(s)) {
                return Err(BuildError::InvalidOutputSchema(name.clone()));
            }
            if let Err(reason) = tool_definition::tool_param_headers(&def.tool.input_schema) {
                return Err(BuildError::InvalidParamHeader { tool: name.clone(), reason });
            }
            if tool_index.insert(name.clone(), i).is_some() {
                return Err(BuildError::Duplicate { kind: "tool", name: name.clone() });
            }
        }
        let resource_index = index(self.resources.iter().map(|r| &r.resource.uri), "resource")?;
        let prompt_index = index(self.prompts.iter().map(|p| &p.prompt.name), "prompt")?;
        let mut seen_templates = HashSet::new();
        for def in &self.templates {
            if let Err(reason) = &def.parsed {
                return Err(BuildError::InvalidTemplate {
                    template: def.template.uri_template.clone(),
                    reason: reason.clone(),
                });
            }
            if !seen_templates.insert(def.template.uri_template.clone()) {
                return Err(BuildError::Duplicate {
                    kind: "resource template",
                    name: def.template.uri_template.clone(),
                });
            }
        }

        let mut capabilities = ServerCapabilities {
            logging: (!self.without_logging).then(JsonObject::new),
            completions: self.completion.as_ref().map(|_| JsonObject::new()),
            ..Default::default()
        };
        if !self.tools.is_empty() {
            capabilities.tools = Some(ToolsCapability { list_changed: Some(true), ..Default::default() });
        }
        if !self.resources.is_empty() || !self.templates.is_empty() {
            capabilities.resources = Some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
                ..Default::default()
            });
        }
        if !self.prompts.is_empty() {
            capabilities.prompts = Some(PromptsCapability { list_changed: Some(true), ..Default::default() });
        }
        if let Some(extra) = self.extra_capabilities {
            capabilities = merge_capabilities(capabilities, extra)?;
        }

        let serves = Serves {
            tools: !self.tools.is_empty(),
            resources: !self.resources.is_empty() || !self.templates.is_empty(),
            prompts: !self.prompts.is_empty(),
            completion: self.completion.is_some(),
        };
        let tasks_enabled =
            self.tools.iter().any(|d| !matches!(d.task_support, tasks::TaskSupport::Forbidden));
        for method in self.methods.keys() {
            if let Some(why) = answered_by_the_server(method, serves, &capabilities, tasks_enabled) {
                return Err(BuildError::ShadowedMethod(method.clone(), why));
            }
        }
        let task_store = self.task_store.unwrap_or_else(|| Arc::new(tasks::MemoryTaskStore::default()));
        Ok(Server {
            inner: Arc::new(ServerInner {
                tasks: Arc::new(tasks::Tasks::new(task_store, self.task_config)),
                tasks_enabled,
                relay: std::sync::OnceLock::new(),
                server_info: reply::ServerInfo::new(&self.info),
                info: self.info,
                instructions: self.instructions,
                tools: self.tools,
                tool_index,
                resources: self.resources,
                resource_index,
                templates: self.templates,
                prompts: self.prompts,
                prompt_index,
                serves,
                completion: self.completion,
                methods: self.methods,
                capabilities,
                state: self.state,
                dispatcher: Arc::new(self.config.dispatcher.clone()),
                config: self.config,
                sealer: match self.sealer {
                    Some(sealer) => sealer,
                    None => StateSealer::random().map_err(|e| BuildError::Randomness(e.to_string()))?,
                },
                bus: notify::Bus::default(),
                sessions: stateful::Registry::default(),
                middleware: self.middleware.into(),
                local: local::LocalExecutor::default(),
            }),
        })
    }
}

/// Why the server answers `method` itself, if it does: the eras' protocol methods, and
/// the request families of what was registered (see [`Serves`]).
fn answered_by_the_server(
    method: &str,
    serves: Serves,
    capabilities: &ServerCapabilities,
    tasks_enabled: bool,
) -> Option<&'static str> {
    use crate::protocol::methods as m;
    match method {
        m::INITIALIZE | m::PING | m::LOGGING_SET_LEVEL | m::SERVER_DISCOVER | m::SUBSCRIPTIONS_LISTEN => {
            Some("a protocol method")
        }
        m::RESOURCES_SUBSCRIBE | m::RESOURCES_UNSUBSCRIBE if capabilities.resources.is_some() => {
            Some("the server declares resources")
        }
        m::TASKS_GET | m::TASKS_RESULT | m::TASKS_LIST | m::TASKS_CANCEL | m::TASKS_UPDATE
            if tasks_enabled =>
        {
            Some("a tool runs as a task")
        }
        m::TOOLS_LIST | m::TOOLS_CALL if serves.tools => Some("tools are registered"),
        m::RESOURCES_LIST | m::RESOURCES_TEMPLATES_LIST | m::RESOURCES_READ if serves.resources => {
            Some("resources or templates are registered")
        }
        m::PROMPTS_LIST | m::PROMPTS_GET if serves.prompts => Some("prompts are registered"),
        m::COMPLETION_COMPLETE if serves.completion => Some("a completion handler is registered"),
        _ => None,
    }
}

/// `derived` with `extra`'s members put over it. A standard member (`tools`,
/// `resources`, ...) replaces the derived one in its typed field, so that what the server
/// declares is what it honours: list-change notifications to 2025 sessions and
/// `subscriptions/listen` filters go by the declared capabilities. (Which requests the
/// built-in router serves goes by what is registered.)
fn merge_capabilities(
    derived: ServerCapabilities,
    extra: JsonObject,
) -> Result<ServerCapabilities, BuildError> {
    let mut merged = match serde_json::to_value(derived) {
        Ok(serde_json::Value::Object(members)) => members,
        _ => JsonObject::new(),
    };
    merged.extend(extra);
    serde_json::from_value(serde_json::Value::Object(merged))
        .map_err(|e| BuildError::InvalidCapabilities(e.to_string()))
}

fn index<'a>(names: impl Iterator<Item = &'a String>, kind: &'static str) -> Result<NameIndex, BuildError> {
    let mut map = NameIndex::default();
    for (i, name) in names.enumerate() {
        if map.insert(name.clone(), i).is_some() {
            return Err(BuildError::Duplicate { kind, name: name.clone() });
        }
    }
    Ok(map)
}

/// The versions this server speaks, newest first within each era.
pub(crate) fn supported_stateless() -> Vec<ProtocolVersion> {
    ProtocolVersion::STATELESS.to_vec()
}
