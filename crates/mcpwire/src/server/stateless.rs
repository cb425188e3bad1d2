//! The 2026-07-28 era: no handshake; every request carries its own `_meta` envelope
//! (version, client capabilities, client info, log level), and every result is stamped
//! with `resultType`, the server's identity and, where cacheable, cache hints. The server
//! never sends requests: `ctx.elicit(..)` becomes an `input_required` result.

#[cfg(feature = "http")]
use mcpwire_protocol::call_frame::decode_tool_call;
use mcpwire_protocol::lifecycle::{DiscoverResult, EnvelopeError, RequestEnvelope};
use mcpwire_protocol::subscriptions::{
    SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
};
use mcpwire_protocol::tools::CallToolRequestParams;
#[cfg(feature = "http")]
use mcpwire_protocol::JsonRpcVersion;
use mcpwire_protocol::{codes, meta, methods, Meta, RawJson, Request, RequestId};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::notify::ServerEvent;
use super::reply::{Reply, Stamp};
use super::request_meta::RequestMeta;
use super::router::{is_stateless_version, parse, parse_tool_call, Seed};
use super::{supported_stateless, Server};
use crate::error::McpError;
use crate::jsonrpc::RequestContext;

/// Reads only `params._meta` (the envelope).
#[derive(Deserialize)]
struct MetaProbe {
    #[serde(rename = "_meta")]
    meta: Option<Meta>,
}

/// Checks a request's envelope: `-32602` when it is missing or malformed, `-32022` (with
/// the supported versions) when its version is not one this server speaks statelessly.
pub(crate) fn read_envelope(request: &Request) -> Result<RequestEnvelope, McpError> {
    let probe: MetaProbe = parse(request.params.as_deref())?;
    check_envelope(probe.meta.as_ref())
}

/// [`read_envelope`] from the `_meta` already parsed.
fn check_envelope(meta: Option<&Meta>) -> Result<RequestEnvelope, McpError> {
    checked(RequestEnvelope::from_meta(meta))
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

/// A 2026 `tools/call` read once: its params, `_meta` (as text) and envelope. The HTTP
/// endpoint checks the request's headers against it and hands it to the handler, so the
/// body is not read again for either.
#[cfg(feature = "http")]
pub(crate) struct ParsedCall {
    pub(crate) params: CallToolRequestParams,
    meta: RequestMeta,
    pub(crate) envelope: RequestEnvelope,
}

impl Server {
    /// Serves one 2026 request through the middleware (the HTTP endpoint's 2026 path).
    #[cfg(feature = "http")]
    pub(crate) async fn serve_stateless(
        &self,
        request: Request,
        rpc: RequestContext,
    ) -> Result<RawJson, McpError> {
        if !self.has_middleware() {
            return self.handle_stateless(request, rpc).await;
        }
        let this = self.clone();
        let endpoint: super::middleware::Endpoint = std::sync::Arc::new(move |request, rpc| {
            let this = this.clone();
            Box::pin(async move { this.handle_stateless(request, rpc).await })
        });
        self.layered(request, rpc, endpoint).await
    }

    /// Serves one 2026 request (no middleware).
    pub(crate) async fn handle_stateless(
        &self,
        request: Request,
        rpc: RequestContext,
    ) -> Result<RawJson, McpError> {
        let method = request.method.as_str();
        if let Some((p, meta)) = self.tool_call_params(&request) {
            // The params were parsed once, `_meta` as text with them: the envelope is
            // read from that text, and the handler's context parses the rest on demand.
            let envelope = RequestEnvelope::from_meta_text(meta.text());
            return self.call_parsed(rpc, p, meta, envelope).await;
        }
        let envelope = read_envelope(&request)?;
        let reply = match method {
            methods::SERVER_DISCOVER => Reply::Discover(Box::new(DiscoverResult {
                supported_versions: supported_stateless(),
                capabilities: self.inner.capabilities.clone(),
                instructions: self.inner.instructions.clone(),
                ..Default::default()
            })),
            m if methods::REMOVED_IN_2026.contains(&m) => return Err(McpError::method_not_found(m)),
            methods::SUBSCRIPTIONS_LISTEN => {
                let p: SubscriptionsListenRequestParams = parse(request.params.as_deref())?;
                self.listen(p.notifications, &rpc).await;
                let result = SubscriptionsListenResult::closed(rpc.id());
                Reply::Custom(serde_json::to_value(result)?)
            }
            _ => self.route(rpc, Seed::Stateless(envelope), method, request.params.as_deref()).await?,
        };
        self.stamp(reply)
    }

    /// Serves a 2026 `tools/call` whose params and envelope were read already.
    async fn call_parsed(
        &self,
        rpc: RequestContext,
        params: CallToolRequestParams,
        meta: RequestMeta,
        envelope: Result<RequestEnvelope, EnvelopeError>,
    ) -> Result<RawJson, McpError> {
        let envelope = checked(envelope)?;
        let reply = self.call_tool(rpc, Seed::Stateless(envelope), params, meta).await?;
        self.stamp(reply)
    }

    /// A 2026 `tools/call` read once for both the HTTP header check and the handler
    /// ([`ParsedCall`]), when this server serves it without middleware (which may change
    /// the request on its way) and its params and envelope read cleanly. `None` leaves
    /// the request to the general path, which reports any flaw as ever.
    #[cfg(feature = "http")]
    pub(crate) fn parse_call(&self, request: &Request) -> Option<Box<ParsedCall>> {
        if self.has_middleware() {
            return None;
        }
        // Only an object: a typed read would also take an array, by position, where
        // the header check's reading finds no members.
        let text = request.params.as_deref()?.get();
        if !text.trim_start().starts_with('{') {
            return None;
        }
        let (params, meta) = self.tool_call_params(request)?;
        let envelope = RequestEnvelope::from_meta_text(meta.text()).ok()?;
        // Boxed: the call moves from the endpoint into the handler, a pointer at a time.
        Some(Box::new(ParsedCall { params, meta, envelope }))
    }

    /// [`Server::parse_call`] straight from a POST's body, in one pass over it
    /// ([`decode_tool_call`]), with the request that carried it, when it is a 2026
    /// `tools/call` the one pass reads. `None` leaves the body to the general path
    /// (`decode_frame`, then `parse_call`), which gives the same request and call for
    /// every body read here, and reports any flaw.
    ///
    /// The request keeps no params: its call has them all, and `_meta`'s text (shared with
    /// the thread's memory of it) stays for the context to read if asked. A progress
    /// token is the one thing the dispatcher reads from a request's params, so a body
    /// that names one is left to the general path.
    #[cfg(feature = "http")]
    pub(crate) fn decode_call(&self, body: &bytes::Bytes) -> Option<(Request, Box<ParsedCall>)> {
        if self.has_middleware()
            || self.inner.capabilities.tools.is_none()
            || crate::jsonrpc::mentions_progress_token(body)
        {
            return None;
        }
        let frame = decode_tool_call(std::str::from_utf8(body).ok()?)?;
        let request = Request {
            jsonrpc: JsonRpcVersion,
            id: frame.id,
            method: methods::TOOLS_CALL.to_owned(),
            params: None,
        };
        let call = ParsedCall {
            params: frame.params,
            // `_meta` alone, not the body: that is a slice of the connection's read
            // buffer, which a share would pin (kilobytes) for as long as the handler runs.
            meta: RequestMeta::shared(frame.meta),
            envelope: frame.envelope,
        };
        Some((request, Box::new(call)))
    }

    /// Serves a call [`Server::parse_call`] read (the HTTP endpoint's 2026 path).
    #[cfg(feature = "http")]
    pub(crate) async fn serve_parsed(
        &self,
        call: Box<ParsedCall>,
        rpc: RequestContext,
    ) -> Result<RawJson, McpError> {
        let ParsedCall { params, meta, envelope } = *call;
        self.call_parsed(rpc, params, meta, Ok(envelope)).await
    }

    /// The params of a `tools/call` this server serves, when they parse.
    ///
    /// The general path reads `_meta` twice (the envelope probe, then the typed params)
    /// into two trees. When the typed params parse, the probe would have parsed too and
    /// found the same `_meta`, so the envelope can come from the params; when they do
    /// not, `None` sends the request down the general path, which reports the same
    /// error in the same order as ever (an envelope error before a params error).
    fn tool_call_params(&self, request: &Request) -> Option<(CallToolRequestParams, RequestMeta)> {
        if request.method != methods::TOOLS_CALL || self.inner.capabilities.tools.is_none() {
            return None;
        }
        parse_tool_call(request.params.as_deref()).ok()
    }

    /// Stamps a 2026 reply (`resultType`, the server's identity, cache hints) and
    /// serializes it.
    fn stamp(&self, reply: Reply) -> Result<RawJson, McpError> {
        let inner = &self.inner;
        let cache = reply.cache_method().and_then(|m| inner.config.cache_hints.get(m).copied());
        reply.into_raw(Some(&Stamp { server_info: &inner.server_info, cache }))
    }

    /// A `subscriptions/listen` stream: the acknowledgement first, then every matching
    /// change, each tagged with the subscription id, until the client cancels (then the
    /// dispatcher writes nothing more) or the server stops publishing.
    async fn listen(&self, asked: SubscriptionFilter, rpc: &RequestContext) {
        let caps = &self.inner.capabilities;
        let honoured = SubscriptionFilter {
            tools_list_changed: asked.tools_list_changed.filter(|_| caps.tools.is_some()),
            prompts_list_changed: asked.prompts_list_changed.filter(|_| caps.prompts.is_some()),
            resources_list_changed: asked.resources_list_changed.filter(|_| caps.resources.is_some()),
            resource_subscriptions: asked.resource_subscriptions.filter(|_| caps.resources.is_some()),
            ..Default::default()
        };
        let mut events = self.inner.bus.subscribe();
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
            let method = match events.recv().await {
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
                    tracing::warn!("a listen stream missed {n} change notifications");
                    continue;
                }
                Err(RecvError::Closed) => return,
            };
            let params = json!({ "_meta": subscription_meta(&id) });
            rpc.notify(method, serde_json::value::to_raw_value(&params).ok()).await;
        }
    }
}

fn subscription_meta(id: &RequestId) -> Meta {
    let mut m = Meta::new();
    m.insert(meta::SUBSCRIPTION_ID.to_owned(), serde_json::to_value(id).unwrap_or(Value::Null));
    m
}
