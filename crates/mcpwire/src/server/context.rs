//! [`Ctx`]: what a tool, resource, prompt or custom-method handler can reach during one
//! request, the same in both protocol eras. The era adapters own the difference: on a
//! 2025 session `ctx.elicit(..)` sends `elicitation/create` to the client and waits; on a
//! 2026 request it ends the handler with an `input_required` result, and the retry runs
//! the handler again with the answer in hand.

use std::sync::{Arc, Mutex, OnceLock};

use mcpwire_protocol::capabilities::ClientCapabilities;
use mcpwire_protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcpwire_protocol::lifecycle::{Implementation, RequestEnvelope};
use mcpwire_protocol::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcpwire_protocol::mrtr::{self, InputRequest, InputRequests, InputResponses};
use mcpwire_protocol::roots::{ListRootsRequestParams, ListRootsResult};
use mcpwire_protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcpwire_protocol::{codes, methods, Meta, ProtocolVersion};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::notify::ServerEvent;
use super::session_info::SessionInfo;
use super::tasks::TaskLink;
use super::Server;
use super::{input_check, revision_fit};
use crate::error::McpError;
use crate::extensions::Extensions;
use crate::jsonrpc::{CallOptions, RequestContext};

/// The params of a `notifications/message`, with `meta` as its `_meta` (`None` if they
/// cannot be written).
pub(crate) fn log_params(
    level: LoggingLevel,
    logger: Option<&str>,
    data: impl Serialize,
    meta: Option<Meta>,
) -> Option<mcpwire_protocol::RawJson> {
    let mut params =
        LoggingMessageNotificationParams::new(level, serde_json::to_value(data).unwrap_or(Value::Null));
    params.logger = logger.map(str::to_owned);
    params.meta = meta;
    serde_json::value::to_raw_value(&params).ok()
}

/// The per-request state of a 2026 request.
#[derive(Debug)]
pub(crate) struct StatelessInfo {
    /// The envelope, as the request's reading made it.
    pub(crate) envelope: RequestEnvelope,
    /// `inputResponses` of a retry.
    pub(crate) responses: InputResponses,
    /// The verified user state of a retry's `requestState`.
    pub(crate) request_state: Option<String>,
    /// Input requests this round asked for and did not find answered.
    pub(crate) pending: Mutex<InputRequests>,
    /// The user state for the next round ([`Ctx::set_request_state`]).
    pub(crate) next_state: Mutex<Option<String>>,
}

/// The era's part of a context. A 2026 request's state is boxed, so that it does not
/// make every context (a 2025 one too) larger.
pub(crate) enum EraInfo {
    Stateful(Arc<SessionInfo>),
    Stateless(Box<StatelessInfo>),
}

pub(crate) struct CtxInner {
    pub(crate) server: Server,
    pub(crate) rpc: RequestContext,
    pub(crate) era: EraInfo,
    pub(crate) meta: super::request_meta::RequestMeta,
    /// Set once the handler runs as a task: its input requests and cancellation go
    /// through the task, not the request that created it.
    pub(crate) task: OnceLock<TaskLink>,
}

/// The context of one request. Cheap to clone.
#[derive(Clone)]
pub struct Ctx {
    pub(crate) inner: Arc<CtxInner>,
}

impl Ctx {
    /// Cancelled when the client cancels this request (or the connection closes); in a
    /// task, when the client cancels the task (`tasks/cancel`) or its TTL runs out.
    ///
    /// With the dispatcher's default [`PeerCancelMode::Interrupt`](crate::jsonrpc::PeerCancelMode),
    /// a client's cancel drops the handler's future at its next `await`, so a
    /// `tokio::select!` branch on this token never runs for it: clean up in a `Drop`
    /// guard. With [`PeerCancelMode::Signal`](crate::jsonrpc::PeerCancelMode) (set through
    /// [`ServerBuilder::dispatcher_config`](super::ServerBuilder::dispatcher_config)) the
    /// future keeps running and this token tells it to stop; a task's handler is always
    /// told through this token. The end of the connection drops the handler in either
    /// mode, after this token fires: over Streamable HTTP without a session (the 2026
    /// era, or a 2025 server without sessions) a client cancels a request by closing its
    /// connection, so there the handler is dropped either way (a bound on what a client
    /// that comes and goes can leave running).
    pub fn cancellation(&self) -> &CancellationToken {
        match self.inner.task.get() {
            Some(link) => &link.running.cancel,
            None => self.inner.rpc.cancellation(),
        }
    }

    /// Whether the request (or, in a task, the task) was cancelled.
    pub fn is_cancelled(&self) -> bool {
        match self.inner.task.get() {
            Some(link) => link.running.cancel.is_cancelled(),
            None => self.inner.rpc.is_cancelled(),
        }
    }

    /// The id of the task this handler runs as, if it runs as one.
    pub fn task_id(&self) -> Option<&str> {
        self.inner.task.get().map(TaskLink::id)
    }

    /// Whether this is a 2026 task, which sends no progress or log notifications.
    fn is_silent_task(&self) -> bool {
        self.inner.task.get().is_some() && matches!(self.inner.era, EraInfo::Stateless(_))
    }

    /// The protocol version of this request (the session's in 2025, the envelope's in 2026).
    pub fn protocol_version(&self) -> &ProtocolVersion {
        match &self.inner.era {
            EraInfo::Stateful(s) => &s.version,
            EraInfo::Stateless(s) => &s.envelope.protocol_version,
        }
    }

    /// The capabilities the client declared (at `initialize`, or on this 2026 request).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        match &self.inner.era {
            EraInfo::Stateful(s) => s.capabilities(),
            EraInfo::Stateless(s) => &s.envelope.client_capabilities,
        }
    }

    /// The client's name and version, when it sent them.
    pub fn client_info(&self) -> Option<&Implementation> {
        match &self.inner.era {
            EraInfo::Stateful(s) => s.client_info(),
            EraInfo::Stateless(s) => s.envelope.client_info.as_deref(),
        }
    }

    /// The request's `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        self.inner.meta.get()
    }

    /// The W3C trace context the client sent in this request's `_meta` (`traceparent`,
    /// `tracestate`), if any. Questions this handler asks a 2025 client carry it on.
    pub fn trace_context(&self) -> Option<crate::extensions::TraceContext> {
        self.meta().and_then(crate::extensions::TraceContext::from_meta)
    }

    /// Transport facts: HTTP headers, the authenticated principal, what an HTTP layer in
    /// front put on the request and what a middleware added (see
    /// [`RequestContext::extensions_mut`](crate::jsonrpc::RequestContext::extensions_mut)).
    pub fn extensions(&self) -> &Extensions {
        self.inner.rpc.extensions()
    }

    /// The server this request reached: a handler changes what it offers through it
    /// ([`Server::add_tool`] and its siblings).
    pub fn server(&self) -> &Server {
        &self.inner.server
    }

    /// Shared state registered with [`ServerBuilder::state`](super::ServerBuilder::state).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.server.inner.state.get::<T>()
    }

    /// The 2026 retry's `inputResponses` (empty otherwise), for handlers that build
    /// `input_required` results by hand.
    pub fn input_responses(&self) -> Option<&InputResponses> {
        match &self.inner.era {
            EraInfo::Stateless(s) if !s.responses.is_empty() => Some(&s.responses),
            _ => None,
        }
    }

    /// The 2026 retry's `requestState`, verified (it was sealed by this server, for this
    /// request, and has not expired). `None` on a first round.
    pub fn request_state(&self) -> Option<&str> {
        match &self.inner.era {
            EraInfo::Stateless(s) => s.request_state.as_deref(),
            EraInfo::Stateful(_) => None,
        }
    }

    /// Ends this request's SSE connection early on 2025-era Streamable HTTP, so the client
    /// polls: it reconnects after the server's `retry` delay and resumes from its last
    /// event (SEP-1699). No effect elsewhere, nor where the stream cannot be resumed (a
    /// session before 2025-11-25 or without an event store, a JSON answer).
    pub fn close_sse_stream(&self) {
        if let Some(control) = self.extensions().get::<crate::transport::StreamControl>() {
            control.close();
        }
    }

    /// Reports progress, if the client asked for it (no-op otherwise).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if self.is_silent_task() {
            return;
        }
        match self.inner.task.get() {
            // A 2025 task's progress token stays valid until the task ends, past the
            // answer that created it.
            Some(task) => {
                let meta = Value::Object(crate::server::tasks::related_task_meta(task.id()));
                self.inner.rpc.progress_beyond_answer(progress, total, message, meta).await;
            }
            None => self.inner.rpc.progress(progress, total, message).await,
        }
    }

    /// Sends a log message to the client, if it asked for this level and the server declares
    /// `logging`: on a 2025 session the `logging/setLevel` threshold applies (every level
    /// until it is set); a 2026 request gets them only when its `_meta` set a `logLevel`.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.log_as(level, None, data).await;
    }

    /// [`Ctx::log`] with a logger name.
    pub async fn log_as(&self, level: LoggingLevel, logger: Option<&str>, data: impl Serialize) {
        if self.is_silent_task() || self.inner.server.inner.capabilities.logging.is_none() {
            return;
        }
        let threshold = match &self.inner.era {
            EraInfo::Stateful(s) => *s.log_level.lock().unwrap_or_else(|e| e.into_inner()),
            EraInfo::Stateless(s) => match s.envelope.log_level {
                Some(level) => Some(level),
                None => return,
            },
        };
        if threshold.is_some_and(|t| level < t) {
            return;
        }
        // A 2025 task's log messages name it, and go on after the answer that created it.
        let task = self.inner.task.get();
        let meta = task.map(|task| crate::server::tasks::related_task_meta(task.id()));
        let Some(raw) = log_params(level, logger, data, meta) else { return };
        match task {
            Some(_) => self.inner.rpc.notify_beyond_answer(methods::NOTIFICATION_MESSAGE, raw).await,
            None => self.inner.rpc.notify(methods::NOTIFICATION_MESSAGE, Some(raw)).await,
        }
    }

    /// Asks the user through the client (form or URL mode).
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, McpError> {
        self.elicit_keyed(None, params).await
    }

    /// [`Ctx::elicit`] under a chosen 2026 input key (the key names the question in
    /// `inputRequests` and its answer in the retry's `inputResponses`; by default it is
    /// derived from the question). Several `*_as` calls made before propagating their
    /// errors are asked in one `input_required` round.
    pub async fn elicit_as(&self, key: &str, params: ElicitRequestParams) -> Result<ElicitResult, McpError> {
        self.elicit_keyed(Some(key), params).await
    }

    async fn elicit_keyed(
        &self,
        key: Option<&str>,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, McpError> {
        if let Some(required) = input_check::elicitation(self.client_capabilities(), &params) {
            return Err(self.missing_capability(required));
        }
        let params = revision_fit::elicitation(self.protocol_version(), params)?;
        let form = matches!(params, ElicitRequestParams::Form(_));
        let mut answer = self
            .ask(key, "elicit", methods::ELICITATION_CREATE, InputRequest::Elicit(params), |r| {
                r.as_elicit().cloned()
            })
            .await?;
        // Values come only with an accepted form: whatever a client sends with a URL
        // elicitation or a declined form is no answer the user gave to this question.
        if !(form && answer.action == ElicitAction::Accept) {
            answer.content = None;
        }
        Ok(answer)
    }

    /// Asks the client's model for a completion (sampling).
    pub async fn sample(&self, params: CreateMessageRequestParams) -> Result<CreateMessageResult, McpError> {
        self.sample_keyed(None, params).await
    }

    /// [`Ctx::sample`] under a chosen 2026 input key.
    pub async fn sample_as(
        &self,
        key: &str,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, McpError> {
        self.sample_keyed(Some(key), params).await
    }

    async fn sample_keyed(
        &self,
        key: Option<&str>,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, McpError> {
        if let Some(required) = input_check::sampling(self.client_capabilities(), &params) {
            return Err(self.missing_capability(required));
        }
        let params = revision_fit::sampling(self.protocol_version(), params)?;
        self.ask(key, "sample", methods::SAMPLING_CREATE_MESSAGE, InputRequest::CreateMessage(params), |r| {
            r.as_create_message().cloned()
        })
        .await
    }

    /// Asks the client for its roots.
    pub async fn list_roots(&self) -> Result<ListRootsResult, McpError> {
        self.list_roots_keyed(None).await
    }

    /// [`Ctx::list_roots`] under a chosen 2026 input key.
    pub async fn list_roots_as(&self, key: &str) -> Result<ListRootsResult, McpError> {
        self.list_roots_keyed(Some(key)).await
    }

    async fn list_roots_keyed(&self, key: Option<&str>) -> Result<ListRootsResult, McpError> {
        if let Some(required) = input_check::roots(self.client_capabilities()) {
            return Err(self.missing_capability(required));
        }
        let answer = self
            .ask(key, "roots", methods::ROOTS_LIST, InputRequest::ListRoots(None), |r| {
                r.as_list_roots().cloned()
            })
            .await?;
        super::roots_changed::file_roots(answer)
    }

    /// A 2026 request's `-32042` ([`McpError::url_elicitation_required`]), which that era
    /// does not have, as what it has instead: an `input_required` round asking for the
    /// same URLs (each keyed by its `elicitationId`), or `-32021` if this request did not
    /// declare URL elicitation. Anything else is returned as it is.
    pub(crate) fn url_elicitations_as_input(&self, error: McpError) -> McpError {
        let object = error.to_error_object();
        let data = object.data.clone().and_then(|d| {
            serde_json::from_value::<mcpwire_protocol::elicitation::UrlElicitationRequiredData>(d).ok()
        });
        let (codes::URL_ELICITATION_REQUIRED, Some(data)) = (object.code, data) else { return error };
        if !self.client_capabilities().elicitation.as_ref().is_some_and(|e| e.supports_url()) {
            return self.missing_capability(json!({ "elicitation": { "url": {} } }));
        }
        let mut result = mcpwire_protocol::mrtr::InputRequiredResult::new();
        result.input_requests = Some(mrtr::url_elicitations_as_input_requests(data));
        McpError::needs_input(result)
    }

    /// The error for a question the client did not declare it can answer: `-32021` in
    /// 2026, which defines it; a 2025 session gets `-32601`, the code 2025 uses when a
    /// capability is missing (a client without roots answers `roots/list` with it), since
    /// `-32021` does not exist there. Both carry `data.requiredCapabilities`.
    pub(crate) fn missing_capability(&self, required: Value) -> McpError {
        let (code, message) = match &self.inner.era {
            EraInfo::Stateless(_) => {
                (codes::MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability")
            }
            // A server without sessions forgot what the client declared at `initialize`,
            // and could not route its answer back anyway: say so, not that the client
            // lacks the capability.
            EraInfo::Stateful(_) if !self.inner.rpc.back_channel => (
                codes::METHOD_NOT_FOUND,
                "Method not found: this request cannot ask the client anything (a server without sessions, or one answering in JSON only, sends it no requests)",
            ),
            EraInfo::Stateful(_) => (
                codes::METHOD_NOT_FOUND,
                "Method not found: the client did not declare a capability this needs",
            ),
        };
        McpError::new(code, message).with_data(json!({ "requiredCapabilities": required }))
    }

    /// Sets the state carried to the next 2026 round (sealed by the server; the retry's
    /// [`Ctx::request_state`] returns it). No effect on a 2025 session.
    pub fn set_request_state(&self, state: impl Into<String>) {
        if let EraInfo::Stateless(s) = &self.inner.era {
            *s.next_state.lock().unwrap_or_else(|e| e.into_inner()) = Some(state.into());
        }
    }

    /// One server-to-client question: a real request on a 2025 session; on a 2026
    /// request, the recorded answer of a retry, or (not answered yet) an `input_required`
    /// result that ends this round. In a task (either era), the task waits in
    /// `input_required` for the answer instead.
    async fn ask<R: DeserializeOwned>(
        &self,
        key: Option<&str>,
        kind: &str,
        method: &str,
        request: InputRequest,
        pick: impl Fn(&mcpwire_protocol::mrtr::InputResponse) -> Option<R>,
    ) -> Result<R, McpError> {
        let task = self.inner.task.get();
        if let (EraInfo::Stateful(session), None) = (&self.inner.era, task) {
            // Rule: no request reaches a client before it has finished initializing.
            session.until_initialized().await;
            // The question carries the trace context of the request that asks it, so the
            // client's handling of it joins the same trace.
            let params = match (&request, self.trace_context()) {
                (InputRequest::ListRoots(None), None) => None,
                (InputRequest::ListRoots(None), Some(trace)) => {
                    let mut meta = Meta::new();
                    trace.write_to(&mut meta);
                    Some(serde_json::value::to_raw_value(&json!({ "_meta": meta }))?)
                }
                (other, trace) => {
                    let mut params = serde_json::to_value(ParamsOf(other))?;
                    if let (Some(trace), Some(object)) = (trace, params.as_object_mut()) {
                        let meta = object.entry("_meta").or_insert_with(|| json!({}));
                        if let Some(meta) = meta.as_object_mut() {
                            trace.write_to(meta);
                        }
                    }
                    Some(serde_json::value::to_raw_value(&params)?)
                }
            };
            let raw = self.inner.rpc.request(method, params, CallOptions::default()).await?;
            // An answer that does not read is the client's mistake, said as a 2026 retry's
            // answer of the wrong shape is.
            return serde_json::from_str(raw.get()).map_err(|e| {
                let why = crate::error::shown(&e.to_string(), 300).into_owned();
                McpError::invalid_params(format!(
                    "The client's answer to {method} does not fit its result: {why}"
                ))
            });
        }
        let key = key.map_or_else(|| input_key(kind, &request), str::to_owned);
        // A 2026 call's own answers first. (A task's handler finds those its call carried
        // in through the task, which lets each go once taken.)
        if let (EraInfo::Stateless(s), None) = (&self.inner.era, task) {
            if let Some(answer) = s.responses.get(&key).and_then(&pick) {
                return Ok(answer);
            }
            s.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(key, request);
            return Err(McpError::input_required());
        }
        let Some(link) = task else { return Err(McpError::internal("no task to ask through")) };
        let answer = link.ask(key, request).await?;
        pick(&answer).ok_or_else(|| {
            McpError::invalid_params(format!("the answer to a task's {method} request has the wrong shape"))
        })
    }

    /// Tells the client that the URL-mode elicitation `elicitation_id` is complete
    /// (`notifications/elicitation/complete`), for example after
    /// [`McpError::url_elicitation_required`] sent the user to a URL. A 2025-11-25 session
    /// feature: on earlier revisions and in 2026 (which has no such notification) nothing
    /// is sent. It does not belong to this request, so it may be sent after its answer
    /// (over HTTP it goes on the session's standalone stream).
    pub async fn notify_elicitation_complete(&self, elicitation_id: &str) {
        let EraInfo::Stateful(session) = &self.inner.era else {
            tracing::debug!("no notifications/elicitation/complete in the 2026 era");
            return;
        };
        if !session.version.is_at_least(&ProtocolVersion::V2025_11_25) {
            tracing::debug!(version = %session.version, "no notifications/elicitation/complete before 2025-11-25");
            return;
        }
        let params = mcpwire_protocol::elicitation::ElicitationCompleteNotificationParams {
            elicitation_id: elicitation_id.to_owned(),
            meta: None,
        };
        match serde_json::value::to_raw_value(&params) {
            Ok(raw) => session.peer.notify(methods::NOTIFICATION_ELICITATION_COMPLETE, Some(raw)).await,
            Err(e) => tracing::warn!("could not encode notifications/elicitation/complete: {e}"),
        }
    }

    /// Tells clients the tool list changed (2025 sessions get
    /// `notifications/tools/list_changed`; 2026 listen streams that asked for it too).
    pub fn notify_tools_changed(&self) {
        self.inner.server.notify(ServerEvent::ToolsChanged);
    }

    /// Tells clients the prompt list changed.
    pub fn notify_prompts_changed(&self) {
        self.inner.server.notify(ServerEvent::PromptsChanged);
    }

    /// Tells clients the resource list changed.
    pub fn notify_resources_changed(&self) {
        self.inner.server.notify(ServerEvent::ResourcesChanged);
    }

    /// Tells the clients subscribed to `uri` that it changed.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.inner.server.notify(ServerEvent::ResourceUpdated(uri.into()));
    }
}

/// Serializes only the params of an input request (a 2025 request's `params`).
struct ParamsOf<'a>(&'a InputRequest);

impl Serialize for ParamsOf<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            InputRequest::Elicit(p) => p.serialize(serializer),
            InputRequest::CreateMessage(p) => p.serialize(serializer),
            InputRequest::ListRoots(p) => {
                p.as_ref().map(|p: &ListRootsRequestParams| p).serialize(serializer)
            }
            InputRequest::Other(call) => call.params.serialize(serializer),
        }
    }
}

/// A key for an input request that is the same on every round for the same question, so
/// a retry's answer is found again: the kind and a hash of the question.
fn input_key(kind: &str, request: &InputRequest) -> String {
    let bytes = serde_json::to_vec(request).unwrap_or_default();
    // FNV-1a: stable across processes and releases (unlike std's hasher).
    let hash = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3));
    format!("{kind}_{:08x}", hash as u32)
}
