//! The 2025 era (revisions 2024-11-05 to 2025-11-25): an `initialize` handshake opens a
//! session that fixes the version and the client's capabilities; `ping`,
//! `logging/setLevel` and `resources/subscribe` exist; list changes and resource updates
//! are pushed to the client; `ctx.elicit(..)` is a real request to the client.

use std::sync::{Arc, Mutex, RwLock, Weak};

use futures_util::future::BoxFuture;
use mcpwire_protocol::capabilities::ServerCapabilities;
use mcpwire_protocol::lifecycle::{InitializeRequestParams, InitializeResult};
use mcpwire_protocol::logging::{LoggingLevel, SetLevelRequestParams};
use mcpwire_protocol::resources::{SubscribeRequestParams, UnsubscribeRequestParams};
use mcpwire_protocol::{methods, Notification, ProtocolVersion, RawJson, Request};
use serde_json::json;

use super::middleware::Endpoint;
use super::notify::ServerEvent;
use super::params::parse;
use super::reply::Reply;
use super::router::Seed;
use super::session_info::{SessionInfo, MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTION_BYTES};
use super::tasks::{core_capability, session_has_core_tasks};
use super::Server;
use crate::error::McpError;
use crate::jsonrpc::{Peer, RequestContext};

/// One 2025 session: a stdio connection or an HTTP session, shared (an `Arc`) by the
/// requests that serve it.
pub(crate) struct StatefulSession {
    server: Server,
    session: RwLock<Option<Arc<SessionInfo>>>,
    /// A session-less 2025 request's session (HTTP's `sessionless` setting): it offers
    /// no core tasks, since nothing it creates outlives its request.
    sessionless: bool,
}

/// Past the middleware, a 2025 session's request is served by its session.
impl Endpoint for StatefulSession {
    fn serve(
        self: Arc<Self>,
        request: Request,
        rpc: RequestContext,
    ) -> BoxFuture<'static, Result<RawJson, McpError>> {
        Box::pin(self.handle(request, rpc))
    }
}

/// The name and version a session-less 2025 request's session gives its client, which
/// sent no `initialize` of its own.
#[cfg(feature = "http")]
pub(crate) const ASSUMED_CLIENT: (&str, &str) = ("stateless-http-client", "0");

impl StatefulSession {
    pub(crate) fn new(server: Server) -> Arc<Self> {
        Arc::new(StatefulSession { server, session: RwLock::new(None), sessionless: false })
    }

    /// A session-less 2025 request's session (see the field).
    #[cfg(feature = "http")]
    pub(crate) fn sessionless(server: Server) -> Arc<Self> {
        Arc::new(StatefulSession { server, session: RwLock::new(None), sessionless: true })
    }

    /// Serves a request through the server's middleware (a 2025 HTTP session's router).
    #[cfg(feature = "http")]
    pub(crate) async fn on_request(
        self: &Arc<Self>,
        request: Request,
        rpc: RequestContext,
    ) -> Result<RawJson, McpError> {
        self.server.layered(request, rpc, self.clone()).await
    }

    /// Serves a notification through the server's middleware.
    pub(crate) async fn on_notification(
        self: &Arc<Self>,
        notification: Notification,
        ctx: crate::jsonrpc::NotificationContext,
    ) {
        let this = self.clone();
        let endpoint: super::middleware::NotificationEndpoint = Arc::new(move |notification, ctx| {
            let this = this.clone();
            Box::pin(async move { this.handle_notification(notification, ctx).await })
        });
        self.server.layered_notification(notification, ctx, endpoint).await
    }

    /// A session-less 2025 request's session (HTTP's `sessionless` setting): initialized at
    /// `version` for a client that declared no capabilities, unless it was initialized
    /// already. It is not registered for change notifications: it has no stream.
    #[cfg(feature = "http")]
    pub(crate) fn assume_initialized(&self, version: ProtocolVersion, peer: &Peer) {
        let mut slot = self.session.write().unwrap_or_else(|e| e.into_inner());
        // The same for every such session: its text is made once.
        static CLIENT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
            let client = mcpwire_protocol::Implementation::new(ASSUMED_CLIENT.0, ASSUMED_CLIENT.1);
            serde_json::to_string(&client).unwrap_or_default()
        });
        if slot.is_none() {
            *slot = Some(Arc::new(SessionInfo::assumed(version, CLIENT.as_str(), peer.clone())));
        }
    }

    /// Sets up a session taken over from another instance of a cluster: applies the
    /// requests that set its state there (`initialize`, `logging/setLevel`,
    /// `resources/subscribe` and `unsubscribe`), oldest first, answering none of them.
    #[cfg(feature = "redis")]
    pub(crate) fn restore(&self, journal: &[Request], peer: &Peer) {
        for request in journal {
            let params = request.params.as_deref();
            let restored = match request.method.as_str() {
                // The client initialized with the instance that owned the session.
                methods::INITIALIZE => parse(params).and_then(|p| self.initialize(p, peer)).map(|_| {
                    if let Some(session) = self.session() {
                        session.mark_initialized();
                    }
                }),
                method => match self.session() {
                    Some(session) => match method {
                        methods::LOGGING_SET_LEVEL => parse::<SetLevelRequestParams>(params).map(|p| {
                            *session.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(p.level);
                        }),
                        methods::RESOURCES_SUBSCRIBE => parse::<SubscribeRequestParams>(params)
                            .map(|p| self.restore_subscription(&session, p.uri)),
                        methods::RESOURCES_UNSUBSCRIBE => {
                            parse::<UnsubscribeRequestParams>(params).map(|p| session.unsubscribe(&p.uri))
                        }
                        _ => Ok(()),
                    },
                    None => Ok(()),
                },
            };
            if let Err(e) = restored {
                tracing::debug!(method = %request.method, "a journalled request did not apply again: {e}");
            }
        }
    }

    /// A subscription of a session taken over from another instance: recorded, and the
    /// subscribe hook told in the background (it was told where the session began; this
    /// instance's end of it tells the unsubscribe hook).
    #[cfg(feature = "redis")]
    fn restore_subscription(&self, session: &SessionInfo, uri: String) {
        let inner = &self.server.inner;
        if let Some(hook) = &inner.on_subscribe {
            let told = hook(uri.clone());
            tokio::spawn(async move {
                if let Err(e) = told.await {
                    tracing::debug!("the subscribe hook refused a restored subscription: {e}");
                }
            });
        }
        // Before the session serves anything: no subscribe of its own can be in its turn.
        session.subscription_turn(inner.on_unsubscribe.as_ref());
        session.subscribe(uri);
    }

    pub(crate) fn session(&self) -> Option<Arc<SessionInfo>> {
        self.session.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Serves a request, past the middleware.
    pub(crate) async fn handle(
        self: Arc<Self>,
        request: Request,
        rpc: RequestContext,
    ) -> Result<RawJson, McpError> {
        let owned_params = request.params;
        let params = owned_params.as_deref();
        let reply = match request.method.as_str() {
            methods::INITIALIZE => self.initialize(parse(params)?, rpc.peer())?,
            methods::PING => Reply::Empty,
            method => {
                let Some(session) = self.session() else {
                    return Err(McpError::invalid_request(format!(
                        "Invalid request: {method} before initialize; the session is not initialized"
                    )));
                };
                match method {
                    // Only where the server declares `logging`; elsewhere it is a method
                    // of a capability the server lacks (-32601, from the router).
                    methods::LOGGING_SET_LEVEL if self.server.inner.capabilities.logging.is_some() => {
                        let p: SetLevelRequestParams = parse(params)?;
                        *session.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(p.level);
                        Reply::Empty
                    }
                    methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE
                        if declares_subscribe(&self.server.inner.capabilities) =>
                    {
                        // Boxed: inline, this rare branch's waits would size every request's future.
                        Box::pin(self.follow(&session, method, params)).await?
                    }
                    methods::TASKS_GET
                    | methods::TASKS_RESULT
                    | methods::TASKS_LIST
                    | methods::TASKS_CANCEL
                        if self.server.inner.tasks_enabled && session_has_core_tasks(&session) =>
                    {
                        // Boxed: inline, this rare branch's future would size every request's.
                        Box::pin(self.server.serve_core_task_method(&session, &rpc, method, params)).await?
                    }
                    methods::SERVER_DISCOVER | methods::SUBSCRIPTIONS_LISTEN => {
                        return Err(McpError::method_not_found(method));
                    }
                    _ => {
                        // Revisions before 2025-06-18 lack some content blocks (audio,
                        // resource links): a handler's are fitted to the session's.
                        let older = (!session.version.is_at_least(&ProtocolVersion::V2025_06_18))
                            .then(|| session.version.clone());
                        let reply =
                            self.server.route(rpc, Seed::Stateful(session), method, owned_params).await?;
                        match older {
                            Some(version) => reply.for_revision(&version),
                            None => reply,
                        }
                    }
                }
            }
        };
        reply.into_raw(None)
    }

    /// `resources/subscribe` or `resources/unsubscribe`, one of the session's at a time
    /// (so two subscribes of one URI at once tell the hook once).
    async fn follow(
        &self,
        session: &SessionInfo,
        method: &str,
        params: Option<&serde_json::value::RawValue>,
    ) -> Result<Reply, McpError> {
        let inner = &self.server.inner;
        let turn = session.subscription_turn(inner.on_unsubscribe.as_ref());
        let _turn = turn.lock().await;
        if method == methods::RESOURCES_UNSUBSCRIBE {
            let p: UnsubscribeRequestParams = parse(params)?;
            session.unsubscribe(&p.uri);
            return Ok(Reply::Empty);
        }
        let p: SubscribeRequestParams = parse(params)?;
        if session.is_subscribed(&p.uri) {
            return Ok(Reply::Empty);
        }
        if p.uri.len() > MAX_SUBSCRIPTION_BYTES {
            // No unsubscribing makes room for it: the request is at fault.
            return Err(McpError::invalid_params(format!(
                "Invalid params: a URI of {} bytes is longer than the {MAX_SUBSCRIPTION_BYTES} bytes of URIs a session may follow",
                p.uri.len()
            )));
        }
        if !session.has_room_for(&p.uri) {
            // Said as it is: the client can unsubscribe from some first.
            return Err(McpError::new(
                mcpwire_protocol::codes::INTERNAL_ERROR,
                format!(
                    "This session follows as many resources as it may ({MAX_SUBSCRIPTIONS} URIs, {MAX_SUBSCRIPTION_BYTES} bytes of URIs in all): unsubscribe from some first"
                ),
            ));
        }
        if let Some(hook) = &inner.on_subscribe {
            hook(p.uri.clone()).await?;
        }
        session.subscribe(p.uri);
        Ok(Reply::Empty)
    }

    /// Takes note of a notification as it arrives, in wire order, before any task serves
    /// it: `notifications/initialized` lets the server send the client requests and change
    /// notifications from then on, so none sent after it waits on its task.
    pub(crate) fn on_arrival(&self, notification: &Notification) {
        if notification.method == methods::INITIALIZED {
            if let Some(session) = self.session() {
                session.mark_initialized();
            }
        }
    }

    /// Serves a notification, past the middleware.
    pub(crate) async fn handle_notification(
        &self,
        notification: Notification,
        ctx: crate::jsonrpc::NotificationContext,
    ) {
        match notification.method.as_str() {
            methods::INITIALIZED => tracing::debug!("the client finished initializing"),
            methods::NOTIFICATION_ROOTS_LIST_CHANGED => {
                tracing::debug!("the client's roots changed");
                // Only a session whose client has roots can be asked for them.
                let session = self.session().filter(|s| s.capabilities().roots.is_some());
                if let (Some(hook), Some(session)) = (&self.server.inner.on_roots_changed, session) {
                    hook(super::RootsChanged { session, extensions: ctx.extensions }).await;
                }
            }
            other => tracing::debug!(method = other, "ignored a notification"),
        }
    }

    /// Negotiates the version: the client's if this server speaks it, else the newest
    /// stateful revision (the client then decides whether it can go on).
    fn initialize(&self, params: InitializeRequestParams, peer: &Peer) -> Result<Reply, McpError> {
        let mut slot = self.session.write().unwrap_or_else(|e| e.into_inner());
        if slot.is_some() {
            return Err(McpError::invalid_request("Invalid request: the session is already initialized"));
        }
        let version = if ProtocolVersion::STATEFUL.contains(&params.protocol_version) {
            params.protocol_version.clone()
        } else {
            ProtocolVersion::LATEST_STATEFUL
        };
        let mut session =
            SessionInfo::new(version.clone(), &params.capabilities, &params.client_info, peer.clone());
        session.offers_tasks = !self.sessionless;
        let session = Arc::new(session);
        self.server.inner.sessions.register(&session);
        let inner = &self.server.inner;
        let mut capabilities = inner.capabilities.clone();
        if inner.tasks_enabled && session_has_core_tasks(&session) {
            capabilities.tasks = Some(core_capability());
        }
        *slot = Some(session);
        let mut server_info = inner.info.clone();
        super::revision_fit::initialize(&version, &mut capabilities, &mut server_info);
        Ok(Reply::Initialize(Box::new(InitializeResult {
            protocol_version: version,
            capabilities,
            server_info,
            instructions: inner.instructions.clone(),
            meta: None,
        })))
    }
}

/// The live 2025 sessions of a server, so that a change event reaches each of them
/// without a task per session: [`Server::notify`] hands it to every registered session
/// directly (to a stdio session's outgoing queue, to a 2025 HTTP session's router, which
/// puts it on the GET stream at once). Entries are weak (a session ends without unregistering);
/// dead ones are dropped on the next event, or when the list would grow.
#[derive(Default)]
pub(crate) struct Registry {
    sessions: Mutex<Vec<Weak<SessionInfo>>>,
}

impl Registry {
    /// Adds a session that has just initialized.
    fn register(&self, session: &Arc<SessionInfo>) {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if sessions.len() == sessions.capacity() {
            // Before the list doubles, make room from sessions that ended: the list stays
            // within twice the live sessions, with no sweep per session.
            sessions.retain(|s| s.strong_count() > 0);
        }
        sessions.push(Arc::downgrade(session));
    }

    /// Queues the notification for `event` on every live session that should get it.
    pub(crate) fn publish(&self, caps: &ServerCapabilities, event: &ServerEvent) {
        let Some((method, params)) = notification_for(caps, event) else { return };
        self.for_each(|session| {
            // A client that has not finished initializing gets no change notifications.
            if session.is_initialized() && wants(session, event) {
                session.push(method, params.clone());
            }
        });
    }

    /// Queues a log message (`params`, at `level`) on every live session whose
    /// `logging/setLevel` admits it.
    pub(crate) fn log(&self, level: LoggingLevel, params: &RawJson) {
        self.for_each(|session| {
            let threshold = *session.log_level.lock().unwrap_or_else(|e| e.into_inner());
            if threshold.is_none_or(|t| level >= t) {
                session.push(methods::NOTIFICATION_MESSAGE, Some(params.clone()));
            }
        });
    }

    /// Runs `f` on every live session, forgetting those that ended.
    fn for_each(&self, mut f: impl FnMut(&SessionInfo)) {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|weak| {
            let Some(session) = weak.upgrade() else { return false };
            if session.peer.is_closed() {
                return false;
            }
            f(&session);
            true
        });
    }
}

/// The notification a change event becomes on a 2025 session, if this server declares
/// `listChanged` for that list (resource updates go only to subscribers, and only a
/// server that declares `subscribe` has any).
fn notification_for(
    caps: &ServerCapabilities,
    event: &ServerEvent,
) -> Option<(&'static str, Option<RawJson>)> {
    match event {
        ServerEvent::ToolsChanged if caps.tools.as_ref().is_some_and(|t| t.list_changed == Some(true)) => {
            Some((methods::NOTIFICATION_TOOLS_LIST_CHANGED, None))
        }
        ServerEvent::PromptsChanged
            if caps.prompts.as_ref().is_some_and(|p| p.list_changed == Some(true)) =>
        {
            Some((methods::NOTIFICATION_PROMPTS_LIST_CHANGED, None))
        }
        ServerEvent::ResourcesChanged
            if caps.resources.as_ref().is_some_and(|r| r.list_changed == Some(true)) =>
        {
            Some((methods::NOTIFICATION_RESOURCES_LIST_CHANGED, None))
        }
        ServerEvent::ResourceUpdated(uri) => Some((
            methods::NOTIFICATION_RESOURCES_UPDATED,
            serde_json::value::to_raw_value(&json!({ "uri": uri })).ok(),
        )),
        _ => None,
    }
}

/// Whether one session gets the notification of `event`: a resource update only if the
/// session subscribed to that resource.
fn wants(session: &SessionInfo, event: &ServerEvent) -> bool {
    match event {
        ServerEvent::ResourceUpdated(uri) => session.is_subscribed(uri),
        _ => true,
    }
}

/// Whether the server declares `resources.subscribe`: only then does it serve
/// `resources/subscribe` and `resources/unsubscribe` itself.
pub(crate) fn declares_subscribe(caps: &ServerCapabilities) -> bool {
    caps.resources.as_ref().is_some_and(|r| r.subscribe == Some(true))
}
