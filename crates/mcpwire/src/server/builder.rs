//! [`ServerBuilder`]: what a server offers, registered one piece at a time, and
//! [`ServerBuilder::build`], which checks it all ([`BuildError`]) and makes the
//! [`Server`].

use super::*;

/// Why [`ServerBuilder::build`], or a change made while the server runs
/// ([`Server::add_tool`] and its siblings), failed.
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
    /// run. (A list that changes while the server runs needs no hand-written methods:
    /// see [`Server::add_tool`].) To serve a family by hand, register nothing of it and
    /// give every method of it.
    #[error(
        "method {0:?} is answered by the server itself ({1}); a handler registered for it would never run"
    )]
    ShadowedMethod(String, &'static str),
    /// A change made while the server runs needs a capability the server did not declare
    /// when it was built (capabilities are fixed for the server's life).
    #[error("the server was built without {family}: they are declared with {remedy}")]
    Undeclared {
        /// `tools`, `resources`, `prompts` or `tasks`.
        family: &'static str,
        /// What declares them.
        remedy: &'static str,
    },
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
    on_subscribe: Option<SubscribeHook>,
    on_unsubscribe: Option<UnsubscribeHook>,
    on_roots_changed: Option<RootsChangedHook>,
    methods: HashMap<String, MethodHandler>,
    state: Extensions,
    config: ServerConfig,
    sealer: Option<StateSealer>,
    extra_capabilities: Option<JsonObject>,
    middleware: Vec<Arc<dyn Middleware>>,
    task_store: Option<Arc<dyn tasks::TaskStore>>,
    task_config: tasks::TaskConfig,
    without_logging: bool,
    /// The families declared even with nothing of them registered
    /// ([`ServerBuilder::declare_tools`] and its siblings).
    declared: Serves,
}

impl ServerBuilder {
    /// An empty builder ([`Server::builder`]).
    pub(super) fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            completion: None,
            on_subscribe: None,
            on_unsubscribe: None,
            on_roots_changed: None,
            methods: HashMap::new(),
            state: Extensions::new(),
            config: ServerConfig::default(),
            sealer: None,
            extra_capabilities: None,
            middleware: Vec::new(),
            task_store: None,
            task_config: tasks::TaskConfig::default(),
            without_logging: false,
            declared: Serves::default(),
        }
    }

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

    /// Registers a tool (see [`tool()`]).
    pub fn tool(mut self, tool: ToolDef) -> Self {
        self.tools.push(tool);
        self
    }

    /// Registers a resource with a fixed URI (see [`resource()`]).
    pub fn resource(mut self, resource: ResourceDef) -> Self {
        self.resources.push(resource);
        self
    }

    /// Registers a resource template (see [`resource_template`]).
    pub fn resource_template(mut self, template: TemplateDef) -> Self {
        self.templates.push(template);
        self
    }

    /// Registers a prompt (see [`prompt()`]).
    pub fn prompt(mut self, prompt: PromptDef) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Declares tools (the capability, `tools/list` and `tools/call`) even if none is
    /// registered, so that tools can be added while the server runs ([`Server::add_tool`]).
    pub fn declare_tools(mut self) -> Self {
        self.declared.tools = true;
        self
    }

    /// Declares resources (the capability and the `resources/*` methods) even if none is
    /// registered, so that resources and templates can be added while the server runs
    /// ([`Server::add_resource`], [`Server::add_resource_template`]).
    pub fn declare_resources(mut self) -> Self {
        self.declared.resources = true;
        self
    }

    /// Declares prompts (the capability, `prompts/list` and `prompts/get`) even if none is
    /// registered, so that prompts can be added while the server runs ([`Server::add_prompt`]).
    pub fn declare_prompts(mut self) -> Self {
        self.declared.prompts = true;
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

    /// Told when a client starts following the resource `uri` (a 2025
    /// `resources/subscribe`, or a 2026 listen stream's `resourceSubscriptions`), before
    /// it is recorded: to start watching what the resource reflects, say. An error refuses
    /// it: a 2025 client gets the error as the answer; a 2026 stream leaves the URI out of
    /// its acknowledgement. A client already following `uri` is not told twice.
    pub fn on_subscribe<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), McpError>> + Send + 'static,
    {
        self.on_subscribe = Some(Arc::new(move |uri| Box::pin(hook(uri))));
        self
    }

    /// Told when a client stops following the resource `uri`, once for each
    /// [`on_subscribe`](Self::on_subscribe) it passed: a 2025 `resources/unsubscribe`, the
    /// end of a 2025 session that still followed it, or the end of the 2026 listen stream
    /// that asked for it. Called where the following ends (a session's teardown, say), so
    /// it is not async: spawn what takes time.
    pub fn on_unsubscribe(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_unsubscribe = Some(Arc::new(hook));
        self
    }

    /// Told each time a 2025 client says its roots changed
    /// (`notifications/roots/list_changed`), with its session, to ask for the new list:
    /// a server that works within the client's roots keeps them current this way. Each
    /// notification runs the hook on a task of its own. (2026 has no such notification;
    /// a request asks with [`Ctx::list_roots`].)
    ///
    /// ```
    /// use mcpwire::server::Server;
    ///
    /// let server = Server::builder("files", "1.0")
    ///     .on_roots_changed(|session| async move {
    ///         match session.list_roots().await {
    ///             Ok(list) => tracing::info!(roots = list.roots.len(), "the client's roots changed"),
    ///             Err(e) => tracing::warn!("could not list the client's roots: {e}"),
    ///         }
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn on_roots_changed<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(RootsChanged) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_roots_changed = Some(Arc::new(move |session| Box::pin(hook(session))));
        self
    }

    /// Registers a custom request method (use a vendor prefix, such as `acme/reindex`).
    /// A method the server answers itself fails [`build`](Self::build)
    /// ([`BuildError::ShadowedMethod`]); to serve a standard family by hand, register
    /// nothing of that family and give each of its methods, declaring the capability with
    /// [`extra_capabilities`](Self::extra_capabilities). (Tools, resources or prompts that
    /// change while the server runs need none of that: see [`Server::add_tool`].)
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
    /// front of a server without logging, and must not claim more. Such a server sends no
    /// log messages ([`Ctx::log`] and [`Server::log`] send nothing) and answers
    /// `logging/setLevel` with `-32601`.
    pub fn without_logging(mut self) -> Self {
        self.without_logging = true;
        self
    }

    /// Checks what was registered and builds the server.
    pub fn build(self) -> Result<Server, BuildError> {
        let serves = Serves {
            tools: self.declared.tools || !self.tools.is_empty(),
            resources: self.declared.resources || !self.resources.is_empty() || !self.templates.is_empty(),
            prompts: self.declared.prompts || !self.prompts.is_empty(),
            completion: self.completion.is_some(),
        };
        let tasks_enabled =
            self.tools.iter().any(|d| !matches!(d.task_support, tasks::TaskSupport::Forbidden));
        let catalog = catalog::Catalog::new(catalog::Definitions {
            tools: self.tools,
            resources: self.resources,
            templates: self.templates,
            prompts: self.prompts,
        })?;

        let mut capabilities = ServerCapabilities {
            logging: (!self.without_logging).then(JsonObject::new),
            completions: self.completion.as_ref().map(|_| JsonObject::new()),
            ..Default::default()
        };
        if serves.tools {
            capabilities.tools = Some(ToolsCapability { list_changed: Some(true), ..Default::default() });
        }
        if serves.resources {
            capabilities.resources = Some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
                ..Default::default()
            });
        }
        if serves.prompts {
            capabilities.prompts = Some(PromptsCapability { list_changed: Some(true), ..Default::default() });
        }
        if let Some(extra) = self.extra_capabilities {
            capabilities = merge_capabilities(capabilities, extra)?;
        }

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
                catalog: catalog::SharedCatalog::new(catalog),
                serves,
                completion: self.completion,
                on_subscribe: self.on_subscribe,
                on_unsubscribe: self.on_unsubscribe,
                on_roots_changed: self.on_roots_changed,
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
        m::RESOURCES_SUBSCRIBE | m::RESOURCES_UNSUBSCRIBE if stateful::declares_subscribe(capabilities) => {
            Some("the server declares resources.subscribe")
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
