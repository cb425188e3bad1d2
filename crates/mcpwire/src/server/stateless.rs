//! The 2026-07-28 era: no handshake; every request carries its own `_meta` envelope
//! (version, client capabilities, client info, log level), and every result is stamped
//! with `resultType`, the server's identity and, where cacheable, cache hints. The server
//! never sends requests: `ctx.elicit(..)` becomes an `input_required` result.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use mcpwire_protocol::lifecycle::{DiscoverResult, EnvelopeError, RequestEnvelope};
use mcpwire_protocol::subscriptions::{
    SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
};
use mcpwire_protocol::{codes, meta, methods, Meta, ProtocolVersion, RawJson, Request, RequestId};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::middleware::Endpoint;
use super::notify::ServerEvent;
use super::params::parse;
use super::reply::{Reply, Stamp};
use super::router::{is_stateless_version, Seed};
use super::session_info::{MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTION_BYTES};
use super::{supported_stateless, Server, ServerInner};
use crate::error::{shown, McpError};
use crate::jsonrpc::RequestContext;

/// Reads `params._meta` as a tree: for params whose envelope the one-pass reading
/// ([`RequestEnvelope::from_params_text`]) does not settle, where this reading decides
/// and words the error.
#[derive(Deserialize)]
struct MetaTreeProbe {
    #[serde(rename = "_meta")]
    meta: Option<Meta>,
}

/// Checks a request's envelope: `-32602` when it is missing or malformed, `-32022` (with
/// the supported versions) when its version is not one this server speaks statelessly.
pub(crate) fn read_envelope(request: &Request) -> Result<RequestEnvelope, McpError> {
    let text = request.params.as_deref().map_or("{}", RawValue::get);
    if let Some(envelope) = RequestEnvelope::from_params_text(text) {
        return checked(Ok(envelope));
    }
    let probe: MetaTreeProbe = parse(request.params.as_deref())?;
    let envelope = RequestEnvelope::from_meta(probe.meta.as_ref());
    // A version this server does not speak statelessly is what to tell the client first,
    // whatever else its envelope lacks (a later revision may shape it otherwise): with
    // `-32022` it can pick a version; `-32602` would send it back to `initialize`.
    if envelope.is_err() {
        let version = probe.meta.as_ref().and_then(|m| m.get(meta::PROTOCOL_VERSION)).and_then(Value::as_str);
        if let Some(version) = version.filter(|v| !is_stateless_version(&ProtocolVersion::parse(v))) {
            return Err(unsupported_version(version));
        }
    }
    checked(envelope)
}

/// The envelope's errors as JSON-RPC errors, and its version checked.
fn checked(envelope: Result<RequestEnvelope, EnvelopeError>) -> Result<RequestEnvelope, McpError> {
    let envelope = envelope.map_err(|e| McpError::invalid_params(format!("Invalid params: {e}")))?;
    let version = &envelope.protocol_version;
    if !is_stateless_version(version) {
        return Err(unsupported_version(version.as_str()));
    }
    Ok(envelope)
}

/// `-32022` naming the versions served statelessly and the one requested.
pub(crate) fn unsupported_version(requested: &str) -> McpError {
    McpError::new(codes::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "supported": supported_stateless(), "requested": requested }))
}

/// An error as a 2026 request answers it, for the two 2025-only codes 2026 must never
/// emit; their data stays.
/// - "Resource not found" is `-32002` in the 2025 era ([`McpError::resource_not_found`],
///   the router's own answer and a handler's alike) and `-32602` in 2026, message and all.
/// - "URL elicitation required" (`-32042`) reaches here only when it could not be asked
///   as an `input_required` round (the router turns a handler's into one): a middleware's
///   (the round must hold to the capabilities this request declared, and the request went
///   into the chain), or one without URLs in its data. It becomes `-32603`, saying why.
pub(crate) fn in_2026_terms(error: McpError) -> McpError {
    let mut object = match error.code() {
        codes::RESOURCE_NOT_FOUND | codes::URL_ELICITATION_REQUIRED => error.to_error_object(),
        _ => return error,
    };
    if object.code == codes::RESOURCE_NOT_FOUND {
        object.code = codes::INVALID_PARAMS;
    } else {
        object.code = codes::INTERNAL_ERROR;
        object.message = format!(
            "Internal error: the server answered URL elicitation required (-32042), which protocol revision 2026-07-28 does not have, and could not ask for the URLs in an input_required round: {}",
            shown(&object.message, 200)
        );
    }
    McpError::from_error_object(object)
}

/// A server's own endpoint is its 2026 era: a 2026 request carries all it needs, so there
/// is no state per connection to hold.
impl Endpoint for ServerInner {
    fn serve(
        self: Arc<Self>,
        request: Request,
        rpc: RequestContext,
    ) -> BoxFuture<'static, Result<RawJson, McpError>> {
        Box::pin(Server { inner: self }.handle_stateless(request, rpc))
    }
}

impl Server {
    /// Serves one 2026 request through the middleware (the HTTP endpoint's 2026 path).
    #[cfg(feature = "http")]
    pub(crate) async fn serve_stateless(
        &self,
        request: Request,
        rpc: RequestContext,
    ) -> Result<RawJson, McpError> {
        self.layered(request, rpc, self.inner.clone()).await
    }

    /// Serves one 2026 request, past the middleware; its errors as the router and handlers
    /// give them ([`Server::layered`], around the middleware, puts every error of a 2026
    /// request in 2026's terms).
    pub(crate) async fn handle_stateless(
        self,
        mut request: Request,
        rpc: RequestContext,
    ) -> Result<RawJson, McpError> {
        let method = request.method.as_str();
        let envelope = read_envelope(&request).inspect_err(|_| rpc.refuse_envelope())?;
        let reply = match method {
            methods::SERVER_DISCOVER => Reply::Discover(Box::new(DiscoverResult {
                supported_versions: supported_stateless(),
                capabilities: self.discover_capabilities(),
                instructions: self.inner.instructions.clone(),
                ..Default::default()
            })),
            m if methods::REMOVED_IN_2026.contains(&m) => return Err(McpError::method_not_found(m)),
            methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL
                if self.inner.tasks_enabled =>
            {
                self.serve_task_method(&envelope, &rpc, method, request.params.as_deref()).await?
            }
            methods::SUBSCRIPTIONS_LISTEN => {
                // Read, then let go: the stream lives as long as the client keeps it, the
                // request's text need not.
                let p: SubscriptionsListenRequestParams = parse(request.params.take().as_deref())?;
                if p.notifications.task_ids.is_some()
                    && self.inner.tasks_enabled
                    && !envelope.client_capabilities.supports_tasks_extension()
                {
                    return Err(super::tasks::tasks_extension_required());
                }
                // Ended by the connection's end, the stream ends as when the server ends it.
                rpc.answer_at_shutdown(self.listen_closed(rpc.id())?);
                // Boxed: inline, this long-lived branch's future would size every request's.
                Box::pin(self.listen(p.notifications, &rpc)).await;
                return self.listen_closed(rpc.id());
            }
            _ => self.route(rpc, Seed::Stateless(envelope), method, request.params).await?,
        };
        self.stamp(reply, method)
    }

    /// Whether `server/discover` advertises the 2026 tasks extension (a tool runs as a
    /// task, or the builder declared it), whose methods carry `Mcp-Name` over HTTP.
    #[cfg(feature = "http")]
    pub(crate) fn offers_tasks_extension(&self) -> bool {
        self.inner.tasks_enabled || self.inner.capabilities.supports_tasks_extension()
    }

    /// The capabilities `server/discover` advertises: the tasks extension too when a
    /// tool runs as a task.
    fn discover_capabilities(&self) -> mcpwire_protocol::capabilities::ServerCapabilities {
        let caps = self.inner.capabilities.clone();
        if self.inner.tasks_enabled {
            return caps.with_extension(meta::TASKS_EXTENSION, Default::default());
        }
        caps
    }

    /// The result that ends a `subscriptions/listen` stream (the server stops publishing,
    /// or shuts down), stamped like any other.
    pub(crate) fn listen_closed(&self, id: &RequestId) -> Result<RawJson, McpError> {
        let closed = serde_json::to_value(SubscriptionsListenResult::closed(id))?;
        self.stamp(Reply::Custom(closed), methods::SUBSCRIPTIONS_LISTEN)
    }

    /// Stamps a 2026 reply to `method` (`resultType`, the server's identity, cache hints)
    /// and serializes it. A custom method's reply is cacheable when it serves one of the
    /// cacheable methods by hand.
    fn stamp(&self, reply: Reply, method: &str) -> Result<RawJson, McpError> {
        let inner = &self.inner;
        let cacheable = match reply {
            Reply::Custom(_) => methods::CACHEABLE.iter().copied().find(|m| *m == method),
            _ => reply.cache_method(),
        };
        let cache = cacheable.map(|m| inner.config.cache_hints.get(m).copied().unwrap_or_default());
        reply.into_raw(Some(&Stamp { server_info: &inner.server_info, cache }))
    }

    /// A `subscriptions/listen` stream: the acknowledgement first, then every matching
    /// change, each tagged with the subscription id, until the client cancels (then the
    /// dispatcher writes nothing more) or the server stops publishing.
    async fn listen(&self, asked: SubscriptionFilter, rpc: &RequestContext) {
        // What the server declared: `listChanged` for each list, `subscribe` for resources.
        let caps = &self.inner.capabilities;
        let resources = caps.resources.as_ref();
        let declared = |flag: Option<bool>| flag == Some(true);
        // When the stream ends (the client cancels it, or the server stops), the
        // unsubscribe hook hears of each resource it followed: made before the subscribe
        // hooks run, so a stream cancelled while one runs still ends those already passed.
        let mut followed =
            FollowedWhileListening { uris: Vec::new(), on_end: self.inner.on_unsubscribe.clone() };
        let resource_subscriptions = match asked.resource_subscriptions {
            Some(uris) if declared(resources.and_then(|r| r.subscribe)) => {
                self.accept_subscriptions(uris, &mut followed).await;
                Some(followed.uris.clone())
            }
            _ => None,
        };
        let honoured = SubscriptionFilter {
            tools_list_changed: asked
                .tools_list_changed
                .filter(|_| declared(caps.tools.as_ref().and_then(|t| t.list_changed))),
            prompts_list_changed: asked
                .prompts_list_changed
                .filter(|_| declared(caps.prompts.as_ref().and_then(|p| p.list_changed))),
            resources_list_changed: asked
                .resources_list_changed
                .filter(|_| declared(resources.and_then(|r| r.list_changed))),
            resource_subscriptions,
            task_ids: asked
                .task_ids
                .filter(|_| self.inner.tasks_enabled)
                .map(|ids| within_bounds(first_distinct(ids))),
            ..Default::default()
        };
        let mut events = self.inner.bus.subscribe();
        let mut task_changes = honoured.task_ids.as_ref().map(|_| self.inner.tasks.subscribe());
        // Only the tasks this request's principal may see.
        let owner = super::tasks::stateless_owner(rpc);
        let id = rpc.id().clone();
        let ack = SubscriptionsAcknowledgedNotificationParams {
            notifications: honoured.clone(),
            meta: Some(subscription_meta(&id)),
        };
        rpc.notify(
            methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
            serde_json::value::to_raw_value(&ack).ok(),
        )
        .await;
        loop {
            let event = match &mut task_changes {
                Some(changes) => tokio::select! {
                    event = events.recv() => event,
                    changed = changes.recv() => {
                        match changed {
                            Ok(task_id) if honoured.task_ids.as_ref().is_some_and(|ids| ids.contains(&task_id)) => {
                                self.push_task(&task_id, owner.as_deref(), &id, rpc).await;
                            }
                            // Task changes were missed: the current state of every task followed.
                            Err(RecvError::Lagged(_)) => {
                                for task_id in honoured.task_ids.iter().flatten() {
                                    self.push_task(task_id, owner.as_deref(), &id, rpc).await;
                                }
                            }
                            _ => {}
                        }
                        continue;
                    }
                },
                None => events.recv().await,
            };
            let method = match event {
                Ok(ServerEvent::ToolsChanged) if honoured.tools_list_changed == Some(true) => {
                    methods::NOTIFICATION_TOOLS_LIST_CHANGED
                }
                Ok(ServerEvent::PromptsChanged) if honoured.prompts_list_changed == Some(true) => {
                    methods::NOTIFICATION_PROMPTS_LIST_CHANGED
                }
                Ok(ServerEvent::ResourcesChanged) if honoured.resources_list_changed == Some(true) => {
                    methods::NOTIFICATION_RESOURCES_LIST_CHANGED
                }
                Ok(ServerEvent::ResourceUpdated(uri))
                    if honoured.resource_subscriptions.as_ref().is_some_and(|s| s.contains(&uri)) =>
                {
                    let params = json!({ "uri": uri, "_meta": subscription_meta(&id) });
                    rpc.notify(
                        methods::NOTIFICATION_RESOURCES_UPDATED,
                        serde_json::value::to_raw_value(&params).ok(),
                    )
                    .await;
                    continue;
                }
                Ok(_) => continue,
                Err(RecvError::Lagged(n)) => {
                    // Changes were missed: tell the client of every kind it follows, so
                    // none it cares about is lost (a spare notice costs it one re-read).
                    tracing::debug!(
                        "a listen stream fell {n} changes behind; telling it of every kind it follows"
                    );
                    self.notify_all_followed(&honoured, &id, rpc).await;
                    continue;
                }
                Err(RecvError::Closed) => return,
            };
            let params = json!({ "_meta": subscription_meta(&id) });
            rpc.notify(method, serde_json::value::to_raw_value(&params).ok()).await;
        }
    }
}

impl Server {
    /// The resources a listen stream may follow: those the subscribe hook accepts (all,
    /// without one), each told once, added to `followed` as each is accepted. Only the
    /// first [`MAX_SUBSCRIPTIONS`] different URIs, of [`MAX_SUBSCRIPTION_BYTES`] in all,
    /// are considered, as many as a 2025 session may follow (a URI that would pass the
    /// bytes is passed over): the stream holds them for as long as the client keeps it,
    /// and the acknowledgement tells the client which are followed.
    async fn accept_subscriptions(&self, uris: Vec<String>, followed: &mut FollowedWhileListening) {
        let mut seen = std::collections::HashSet::new();
        let mut bytes = 0;
        for uri in uris {
            if seen.len() == MAX_SUBSCRIPTIONS {
                break;
            }
            if bytes + uri.len() > MAX_SUBSCRIPTION_BYTES || !seen.insert(uri.clone()) {
                continue;
            }
            bytes += uri.len();
            if let Some(hook) = &self.inner.on_subscribe {
                if let Err(e) = hook(uri.clone()).await {
                    tracing::debug!(%uri, "the subscribe hook refused a listen stream's resource: {e}");
                    continue;
                }
            }
            followed.uris.push(uri);
        }
    }

    /// After a listen stream missed changes: one notification of each kind it follows
    /// (every list change it asked for, an update of every resource it follows).
    async fn notify_all_followed(&self, honoured: &SubscriptionFilter, id: &RequestId, rpc: &RequestContext) {
        let lists = [
            (honoured.tools_list_changed, methods::NOTIFICATION_TOOLS_LIST_CHANGED),
            (honoured.prompts_list_changed, methods::NOTIFICATION_PROMPTS_LIST_CHANGED),
            (honoured.resources_list_changed, methods::NOTIFICATION_RESOURCES_LIST_CHANGED),
        ];
        for (_, method) in lists.into_iter().filter(|(asked, _)| *asked == Some(true)) {
            let params = json!({ "_meta": subscription_meta(id) });
            rpc.notify(method, serde_json::value::to_raw_value(&params).ok()).await;
        }
        for uri in honoured.resource_subscriptions.iter().flatten() {
            let params = json!({ "uri": uri, "_meta": subscription_meta(id) });
            rpc.notify(
                methods::NOTIFICATION_RESOURCES_UPDATED,
                serde_json::value::to_raw_value(&params).ok(),
            )
            .await;
        }
    }

    /// `notifications/tasks` with the task's current state, on a listen stream, if
    /// `owner` may see the task.
    async fn push_task(
        &self,
        task_id: &str,
        owner: Option<&str>,
        subscription: &RequestId,
        rpc: &RequestContext,
    ) {
        let Ok(record) = self.inner.tasks.get_owned(task_id, owner).await else { return };
        let mut detailed = record.detailed();
        detailed.meta = Some(subscription_meta(subscription));
        rpc.notify(methods::NOTIFICATION_TASKS, serde_json::value::to_raw_value(&detailed).ok()).await;
    }
}

/// The first [`MAX_SUBSCRIPTIONS`] different task ids of a listen request, in order: a
/// task named many times is followed once (else each change the stream missed would be
/// told once per time it was named).
fn first_distinct(ids: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut kept = Vec::new();
    for id in ids {
        if kept.len() == MAX_SUBSCRIPTIONS {
            break;
        }
        if seen.insert(id.clone()) {
            kept.push(id);
        }
    }
    kept
}

/// The resources a listen stream follows; dropped with the stream, it tells the
/// unsubscribe hook of each.
struct FollowedWhileListening {
    uris: Vec<String>,
    on_end: Option<super::UnsubscribeHook>,
}

impl Drop for FollowedWhileListening {
    fn drop(&mut self) {
        if let Some(hook) = &self.on_end {
            for uri in &self.uris {
                hook(uri);
            }
        }
    }
}

fn subscription_meta(id: &RequestId) -> Meta {
    let mut m = Meta::new();
    m.insert(meta::SUBSCRIPTION_ID.to_owned(), serde_json::to_value(id).unwrap_or(Value::Null));
    m
}

/// The task ids a listen stream follows: the first [`MAX_SUBSCRIPTIONS`] of those named,
/// of [`MAX_SUBSCRIPTION_BYTES`] in all (an id that would pass the bytes is passed over),
/// as for its resources.
fn within_bounds(mut ids: Vec<String>) -> Vec<String> {
    let mut bytes = 0;
    ids.retain(|id| {
        let fits = bytes + id.len() <= MAX_SUBSCRIPTION_BYTES;
        bytes += if fits { id.len() } else { 0 };
        fits
    });
    ids.truncate(MAX_SUBSCRIPTIONS);
    ids
}
