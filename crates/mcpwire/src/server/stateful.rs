//! The 2025 era (revisions 2024-11-05 to 2025-11-25): an `initialize` handshake opens a
//! session that fixes the version and the client's capabilities; `ping`,
//! `logging/setLevel` and `resources/subscribe` exist; list changes and resource updates
//! are pushed to the client; `ctx.elicit(..)` is a real request to the client.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, RwLock};

use mcpwire_protocol::lifecycle::{InitializeRequestParams, InitializeResult};
use mcpwire_protocol::logging::SetLevelRequestParams;
use mcpwire_protocol::resources::{SubscribeRequestParams, UnsubscribeRequestParams};
use mcpwire_protocol::{methods, Notification, ProtocolVersion, RawJson, Request};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::context::SessionInfo;
use super::notify::ServerEvent;
use super::reply::Reply;
use super::router::{parse, Seed};
use super::Server;
use crate::error::McpError;
use crate::jsonrpc::{Peer, RequestContext};

/// One 2025 session: a stdio connection or an HTTP session. Cheap to clone (clones
/// share the session).
#[derive(Clone)]
pub(crate) struct StatefulSession {
    server: Server,
    session: Arc<RwLock<Option<Arc<SessionInfo>>>>,
}

impl StatefulSession {
    pub(crate) fn new(server: Server) -> Self {
        StatefulSession { server, session: Arc::new(RwLock::new(None)) }
    }

    /// Serves a request through the server's middleware.
    pub(crate) async fn on_request(
        &self,
        request: Request,
        rpc: RequestContext,
    ) -> Result<RawJson, McpError> {
        if !self.server.has_middleware() {
            return self.handle(request, rpc).await;
        }
        let this = self.clone();
        let endpoint: super::middleware::Endpoint = Arc::new(move |request, rpc| {
            let this = this.clone();
            Box::pin(async move { this.handle(request, rpc).await })
        });
        self.server.layered(request, rpc, endpoint).await
    }

    /// Serves a notification through the server's middleware.
    pub(crate) async fn on_notification(
        &self,
        notification: Notification,
        ctx: crate::jsonrpc::NotificationContext,
    ) {
        if !self.server.has_middleware() {
            return self.handle_notification(notification).await;
        }
        let this = self.clone();
        let endpoint: super::middleware::NotificationEndpoint = Arc::new(move |notification, _ctx| {
            let this = this.clone();
            Box::pin(async move { this.handle_notification(notification).await })
        });
        self.server.layered_notification(notification, ctx, endpoint).await
    }

    fn session(&self) -> Option<Arc<SessionInfo>> {
        self.session.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Serves a request (no middleware).
    pub(crate) async fn handle(&self, request: Request, rpc: RequestContext) -> Result<RawJson, McpError> {
        let params = request.params.as_deref();
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
                    methods::LOGGING_SET_LEVEL => {
                        let p: SetLevelRequestParams = parse(params)?;
                        *session.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(p.level);
                        Reply::Empty
                    }
                    methods::RESOURCES_SUBSCRIBE if self.server.inner.capabilities.resources.is_some() => {
                        let p: SubscribeRequestParams = parse(params)?;
                        session.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).insert(p.uri);
                        Reply::Empty
                    }
                    methods::RESOURCES_UNSUBSCRIBE if self.server.inner.capabilities.resources.is_some() => {
                        let p: UnsubscribeRequestParams = parse(params)?;
                        session.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).remove(&p.uri);
                        Reply::Empty
                    }
                    methods::SERVER_DISCOVER | methods::SUBSCRIPTIONS_LISTEN => {
                        return Err(McpError::method_not_found(method));
                    }
                    _ => self.server.route(rpc, Seed::Stateful(session), method, params).await?,
                }
            }
        };
        reply.into_raw(None)
    }

    /// Serves a notification (no middleware).
    pub(crate) async fn handle_notification(&self, notification: Notification) {
        match notification.method.as_str() {
            methods::INITIALIZED => tracing::debug!("the client finished initializing"),
            methods::NOTIFICATION_ROOTS_LIST_CHANGED => tracing::debug!("the client's roots changed"),
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
        let session = Arc::new(SessionInfo {
            version: version.clone(),
            capabilities: params.capabilities,
            client_info: Some(params.client_info),
            log_level: Mutex::new(None),
            subscriptions: Mutex::new(HashSet::new()),
        });
        *slot = Some(session.clone());
        tokio::spawn(forward_changes(self.server.clone(), session, peer.clone()));
        let inner = &self.server.inner;
        Ok(Reply::Initialize(InitializeResult {
            protocol_version: version,
            capabilities: inner.capabilities.clone(),
            server_info: inner.info.clone(),
            instructions: inner.instructions.clone(),
            meta: None,
        }))
    }
}

/// Pushes the server's change events to one session's client until the connection closes.
async fn forward_changes(server: Server, session: Arc<SessionInfo>, peer: Peer) {
    let mut events = server.inner.bus.subscribe();
    let caps = &server.inner.capabilities;
    loop {
        let event = tokio::select! {
            _ = peer.closed() => return,
            event = events.recv() => event,
        };
        let (method, params) = match event {
            Ok(ServerEvent::ToolsChanged) if caps.tools.is_some() => {
                (methods::NOTIFICATION_TOOLS_LIST_CHANGED, None)
            }
            Ok(ServerEvent::PromptsChanged) if caps.prompts.is_some() => {
                (methods::NOTIFICATION_PROMPTS_LIST_CHANGED, None)
            }
            Ok(ServerEvent::ResourcesChanged) if caps.resources.is_some() => {
                (methods::NOTIFICATION_RESOURCES_LIST_CHANGED, None)
            }
            Ok(ServerEvent::ResourceUpdated(uri)) => {
                if !session.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).contains(&uri) {
                    continue;
                }
                (
                    methods::NOTIFICATION_RESOURCES_UPDATED,
                    serde_json::value::to_raw_value(&json!({ "uri": uri })).ok(),
                )
            }
            Ok(_) => continue,
            Err(RecvError::Lagged(n)) => {
                tracing::warn!("a session missed {n} change notifications");
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        peer.notify(method, params).await;
    }
}
