//! The client side of Streamable HTTP, for both eras, with the legacy HTTP+SSE transport
//! (2024-11-05) as a fallback.
//!
//! Each outgoing message is one POST. The era of a message decides its headers: a request
//! carrying the 2026 `_meta` envelope gets `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` and `Mcp-Param-*`; otherwise the 2025 session headers (`Mcp-Session-Id`,
//! the negotiated `MCP-Protocol-Version`). The transport learns the session from the
//! `initialize` exchange it carries, so the [`Client`](crate::client::Client)'s era probe
//! works unchanged over HTTP:
//! - a 2026 request answered with a JSON-RPC error body is delivered as that error;
//!   a 4xx without one becomes an error the probe falls back on;
//! - an `initialize` answered 400/404/405 without a JSON-RPC body switches to the legacy
//!   HTTP+SSE transport (GET the endpoint, wait for its `endpoint` event, POST there);
//! - 2025: SSE responses are resumed after a dropped connection with `GET` and
//!   `Last-Event-ID` (honouring `retry`); a 404 for a stale session re-initializes
//!   once and retries; the standalone GET stream carries server-initiated messages;
//!   the session is deleted on close;
//! - 2026: cancelling a request closes its response stream (that is the cancel on this
//!   wire); a stream that ends without the answer fails that request with a clear error.

mod modern;
mod sse;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{header, HeaderMap, HeaderName, HeaderValue, Method, Request as HttpRequest, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use mcpwire_protocol::{
    codes, decode_frame, methods, ErrorObject, ErrorResponse, Frame, IdKey, Message, RequestId,
};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

pub use sse::{SseError, SseEvent, SseParser};

use super::{Connection, InboundMeta, Outgoing, Transport, TransportEvent, DEFAULT_CHANNEL_CAPACITY};
use crate::http::headers::{PROTOCOL_VERSION, SESSION_ID};

/// The largest response body or SSE event accepted (16 MiB).
const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// How often a dropped 2025 SSE response is resumed before the request fails.
const MAX_RESUMES: usize = 3;

/// Why a transport could not be configured.
#[derive(Debug, thiserror::Error)]
pub enum HttpClientError {
    /// The URL does not parse or is not `http://`.
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// A header name or value is invalid.
    #[error("invalid header {0:?}")]
    InvalidHeader(String),
}

/// A Streamable HTTP connection to one MCP endpoint.
#[derive(Debug, Clone)]
pub struct HttpClientTransport {
    url: Uri,
    headers: HeaderMap,
    connect_timeout: Duration,
    oauth: Option<crate::auth::OAuthClient>,
}

impl HttpClientTransport {
    /// A transport to the endpoint at `url` (`http://host:port/path`).
    pub fn new(url: &str) -> Result<Self, HttpClientError> {
        let invalid =
            |reason: &str| HttpClientError::InvalidUrl { url: url.to_owned(), reason: reason.to_owned() };
        let uri: Uri = url.parse().map_err(|e: http::uri::InvalidUri| invalid(&e.to_string()))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => return Err(invalid("https needs TLS, which this build does not include yet")),
            _ => return Err(invalid("the URL must start with http://")),
        }
        if uri.host().is_none() {
            return Err(invalid("the URL has no host"));
        }
        Ok(HttpClientTransport {
            url: uri,
            headers: HeaderMap::new(),
            connect_timeout: Duration::from_secs(10),
            oauth: None,
        })
    }

    /// Adds a header to every request (for example an API key).
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, HttpClientError> {
        let n = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| HttpClientError::InvalidHeader(name.to_owned()))?;
        let v = HeaderValue::from_str(value.trim())
            .map_err(|_| HttpClientError::InvalidHeader(name.to_owned()))?;
        self.headers.append(n, v);
        Ok(self)
    }

    /// Sends `Authorization: Bearer <token>` with every request.
    pub fn bearer_token(self, token: &str) -> Result<Self, HttpClientError> {
        self.header("authorization", &format!("Bearer {token}"))
    }

    /// Authorizes with OAuth 2.1 when the server answers `401` (or `403
    /// insufficient_scope`), and sends the access token with every request.
    pub fn oauth(mut self, client: crate::auth::OAuthClient) -> Self {
        self.oauth = Some(client);
        self
    }

    /// How long connecting may take (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }
}

/// What the transport knows about the 2025 session.
#[derive(Default)]
struct Session {
    id: Option<String>,
    version: Option<String>,
    /// The `initialize` request, replayed to re-establish a stale session.
    initialize: Option<Message>,
    /// Legacy HTTP+SSE: where to POST.
    legacy_post: Option<Uri>,
    standalone_open: bool,
}

struct Pending {
    method: String,
    modern: bool,
    abort: Option<AbortHandle>,
}

struct Shared {
    http: HyperClient<HttpConnector, Full<Bytes>>,
    url: Uri,
    headers: HeaderMap,
    incoming: mpsc::Sender<TransportEvent>,
    session: Mutex<Session>,
    pending: Mutex<HashMap<IdKey, Pending>>,
    /// `x-mcp-header` pairs by tool name, learned from `tools/list` answers.
    tool_headers: Mutex<HashMap<String, Vec<(String, String)>>>,
    internal_ids: AtomicU64,
    oauth: Option<crate::auth::OAuthClient>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Transport for HttpClientTransport {
    fn era_cache_key(&self) -> Option<String> {
        Some(self.url.to_string())
    }

    fn connect(self) -> Connection {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(self.connect_timeout));
        let http = HyperClient::builder(TokioExecutor::new()).build(connector);
        let (in_tx, in_rx) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        let (out_tx, out_rx) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        let shared = Arc::new(Shared {
            http,
            url: self.url,
            headers: self.headers,
            incoming: in_tx,
            session: Mutex::new(Session::default()),
            pending: Mutex::new(HashMap::new()),
            tool_headers: Mutex::new(HashMap::new()),
            internal_ids: AtomicU64::new(1),
            oauth: self.oauth,
        });
        tokio::spawn(write_loop(shared, out_rx));
        Connection { incoming: in_rx, outgoing: out_tx }
    }
}

/// Sends every outgoing message as its own exchange, in order of submission.
async fn write_loop(shared: Arc<Shared>, mut outgoing: mpsc::Receiver<Outgoing>) {
    while let Some(out) = outgoing.recv().await {
        let message = out.message;
        let modern = modern::envelope_version(&message);
        if let Message::Notification(n) = &message {
            if n.method == methods::NOTIFICATION_CANCELLED && shared.cancel_modern(n) {
                continue;
            }
        }
        let request_id = match &message {
            Message::Request(r) => {
                if r.method == methods::INITIALIZE {
                    lock(&shared.session).initialize = Some(message.clone());
                }
                lock(&shared.pending).insert(
                    r.id.key(),
                    Pending { method: r.method.clone(), modern: modern.is_some(), abort: None },
                );
                Some(r.id.clone())
            }
            _ => None,
        };
        let Some(id) = request_id else {
            // Notifications and answers go out in order, before anything sent after them
            // (a request must not overtake `notifications/initialized`); the server
            // acknowledges them at once with 202.
            let initialized =
                matches!(&message, Message::Notification(n) if n.method == methods::INITIALIZED);
            shared.exchange(message, modern).await;
            if initialized {
                // Established before anything else is sent, so the server can already
                // reach us on it (and never mistakes it for a later resumption).
                shared.clone().open_standalone().await;
            }
            continue;
        };
        // Requests run concurrently: each waits for its own answer.
        let task_shared = shared.clone();
        let task = tokio::spawn(async move { task_shared.exchange(message, modern).await });
        if let Some(p) = lock(&shared.pending).get_mut(&id.key()) {
            p.abort = Some(task.abort_handle());
        }
    }
    shared.delete_session().await;
}

impl Shared {
    /// 2026: a cancel closes the request's stream instead of being sent. Returns whether
    /// it was handled that way.
    fn cancel_modern(&self, notification: &mcpwire_protocol::Notification) -> bool {
        let id = notification
            .parse_params::<Value>()
            .ok()
            .and_then(|p| serde_json::from_value::<RequestId>(p.get("requestId")?.clone()).ok());
        let Some(id) = id else { return false };
        let mut pending = lock(&self.pending);
        match pending.get(&id.key()) {
            Some(p) if p.modern => {
                if let Some(abort) = &p.abort {
                    abort.abort();
                }
                pending.remove(&id.key());
                true
            }
            _ => false,
        }
    }

    async fn deliver(&self, message: Message) {
        let message = self.inspect(message);
        let _ = self.incoming.send(TransportEvent::Message(message, InboundMeta::default())).await;
    }

    /// Fails a request locally (the server's answer cannot come).
    async fn fail(&self, id: &RequestId, code: i64, message: String) {
        lock(&self.pending).remove(&id.key());
        let error = Message::Error(ErrorResponse::new(Some(id.clone()), ErrorObject::new(code, message)));
        let _ = self.incoming.send(TransportEvent::Message(error, InboundMeta::default())).await;
    }

    /// Learns from answers as they pass: the negotiated version of `initialize`, and the
    /// `x-mcp-header` annotations of `tools/list` (dropping tools whose annotations are
    /// invalid, with a warning).
    fn inspect(&self, message: Message) -> Message {
        let id = match &message {
            Message::Response(r) => r.id.key(),
            Message::Error(e) => match &e.id {
                Some(id) => {
                    lock(&self.pending).remove(&id.key());
                    return message;
                }
                None => return message,
            },
            _ => return message,
        };
        let Some(pending) = lock(&self.pending).remove(&id) else { return message };
        let Message::Response(mut response) = message else { return message };
        match pending.method.as_str() {
            methods::INITIALIZE => {
                if let Ok(v) = serde_json::from_str::<Value>(response.result.get()) {
                    lock(&self.session).version =
                        v.get("protocolVersion").and_then(Value::as_str).map(str::to_owned);
                }
            }
            methods::TOOLS_LIST if pending.modern => {
                if let Ok(mut v) = serde_json::from_str::<Value>(response.result.get()) {
                    if let Some(Value::Array(tools)) = v.get_mut("tools") {
                        let mut table = lock(&self.tool_headers);
                        tools.retain(|tool| {
                            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                            match modern::tool_param_headers(tool.get("inputSchema").unwrap_or(&Value::Null)) {
                                Ok(pairs) => {
                                    table.insert(name, pairs);
                                    true
                                }
                                Err(reason) => {
                                    tracing::warn!(tool = %name, "dropping a tool with an invalid x-mcp-header: {reason}");
                                    false
                                }
                            }
                        });
                    }
                    if let Ok(raw) = serde_json::value::to_raw_value(&v) {
                        response.result = raw;
                    }
                }
            }
            _ => {}
        }
        Message::Response(response)
    }

    fn post_url(&self) -> Uri {
        lock(&self.session).legacy_post.clone().unwrap_or_else(|| self.url.clone())
    }

    fn build(
        &self,
        method: Method,
        uri: Uri,
        body: Option<Vec<u8>>,
        extra: HeaderMap,
    ) -> Option<HttpRequest<Full<Bytes>>> {
        let mut builder = HttpRequest::builder().method(method.clone()).uri(uri.clone());
        let headers = builder.headers_mut()?;
        headers.extend(self.headers.clone());
        headers.extend(extra);
        if let Some(oauth) = &self.oauth {
            headers.extend(oauth.request_headers(&method, &uri));
        }
        builder.body(Full::new(Bytes::from(body.unwrap_or_default()))).ok()
    }

    /// The headers of one message.
    fn message_headers(&self, message: &Message, modern: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        match modern {
            Some(version) => {
                let tools = lock(&self.tool_headers).clone();
                modern::add_headers(&mut h, message, version, |name| {
                    tools.get(name).cloned().unwrap_or_default()
                });
            }
            None => {
                let session = lock(&self.session);
                let is_initialize = matches!(message, Message::Request(r) if r.method == methods::INITIALIZE);
                if !is_initialize {
                    if let Some(id) = session.id.as_deref().and_then(|s| HeaderValue::from_str(s).ok()) {
                        h.insert(SESSION_ID, id);
                    }
                    if let Some(v) = session.version.as_deref().and_then(|s| HeaderValue::from_str(s).ok()) {
                        h.insert(PROTOCOL_VERSION, v);
                    }
                }
            }
        }
        h
    }

    /// One message's exchange, with the retries this wire allows.
    async fn exchange(self: &Arc<Self>, message: Message, modern: Option<String>) {
        let request_id = match &message {
            Message::Request(r) => Some(r.id.clone()),
            _ => None,
        };
        let is_initialize = matches!(&message, Message::Request(r) if r.method == methods::INITIALIZE);
        let body = message.to_vec();
        let mut authorizations = 0;
        let (mut reinitialized, mut tried_legacy, mut refreshed_tools) = (false, false, false);
        for _ in 0..8 {
            let had_session = lock(&self.session).id.is_some();
            let headers = self.message_headers(&message, modern.as_deref());
            let Some(request) = self.build(Method::POST, self.post_url(), Some(body.clone()), headers) else {
                return;
            };
            let response = match self.http.request(request).await {
                Ok(r) => r,
                Err(e) => {
                    if let Some(id) = &request_id {
                        self.fail(id, codes::CONNECTION_CLOSED, format!("HTTP request failed: {e}")).await;
                    }
                    return;
                }
            };
            let status = response.status();
            // OAuth: authorize on 401 (and step up on 403 insufficient_scope), then retry.
            if let (Some(oauth), StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) = (&self.oauth, status) {
                let response_headers = response.headers().clone();
                let challenge = response_headers
                    .get(header::WWW_AUTHENTICATE)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                let forbidden = status == StatusCode::FORBIDDEN;
                let step_up = challenge
                    .as_deref()
                    .and_then(crate::auth::Challenge::parse)
                    .and_then(|c| c.error)
                    .as_deref()
                    == Some("insufficient_scope");
                if (!forbidden || step_up) && authorizations < 3 {
                    authorizations += 1;
                    let _ = read_limited(response.into_body()).await;
                    match oauth.authorize(&self.url.to_string(), &response_headers, forbidden).await {
                        Ok(()) => continue,
                        Err(e) => {
                            if let Some(id) = &request_id {
                                self.fail(id, codes::INVALID_REQUEST, format!("authorization failed: {e}"))
                                    .await;
                            }
                            return;
                        }
                    }
                }
            }
            if is_initialize {
                if let Some(sid) = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()) {
                    lock(&self.session).id = Some(sid.to_owned());
                }
            }
            let legacy = lock(&self.session).legacy_post.is_some();
            if status.is_success() {
                if legacy {
                    return; // answers come on the legacy SSE stream
                }
                self.read_answer(response, request_id.as_ref(), modern.is_some()).await;
                return;
            }
            let body = read_limited(response.into_body()).await.unwrap_or_default();
            let rpc_error = decode_frame(&body).ok().and_then(|f| match f {
                Frame::Single(Message::Error(e)) => Some(e),
                _ => None,
            });
            // A stale 2025 session: re-initialize once, then retry.
            if status == StatusCode::NOT_FOUND
                && modern.is_none()
                && had_session
                && !is_initialize
                && !std::mem::replace(&mut reinitialized, true)
                && self.reinitialize().await
            {
                continue;
            }
            // A server that knows no Streamable HTTP: the legacy HTTP+SSE transport.
            if is_initialize
                && rpc_error.is_none()
                && matches!(
                    status,
                    StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
                )
                && !std::mem::replace(&mut tried_legacy, true)
                && self.start_legacy().await
            {
                continue;
            }
            // 2026 `-32020`: the tool list may be stale; re-fetch it once and retry.
            if let (Some(e), Some(_), false) = (&rpc_error, &modern, refreshed_tools) {
                if e.error.code == codes::HEADER_MISMATCH
                    && matches!(&message, Message::Request(r) if r.method == methods::TOOLS_CALL)
                {
                    refreshed_tools = true;
                    self.refresh_tools(&message).await;
                    continue;
                }
            }
            if let Some(id) = &request_id {
                match rpc_error {
                    Some(mut e) => {
                        e.id = Some(id.clone());
                        self.deliver(Message::Error(e)).await;
                    }
                    None => {
                        let code = if status == StatusCode::NOT_FOUND {
                            codes::METHOD_NOT_FOUND
                        } else {
                            codes::INTERNAL_ERROR
                        };
                        let text = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
                        self.fail(id, code, format!("HTTP {status}: {text}")).await;
                    }
                }
            } else if !status.is_success() {
                tracing::debug!(%status, "the server refused a notification or response");
            }
            return;
        }
    }

    /// Reads a successful answer: a JSON body or an SSE stream (resumed if it drops).
    async fn read_answer(
        &self,
        response: hyper::Response<hyper::body::Incoming>,
        id: Option<&RequestId>,
        modern: bool,
    ) {
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        if content_type.starts_with("text/event-stream") {
            let mut parser = SseParser::new(MAX_MESSAGE_BYTES);
            let mut answered = self.read_sse(response.into_body(), &mut parser, id).await;
            let mut resumes = 0;
            while !answered && !modern && resumes < MAX_RESUMES {
                let Some(last) = parser.last_event_id().map(str::to_owned) else { break };
                resumes += 1;
                tokio::time::sleep(Duration::from_millis(parser.retry_ms().unwrap_or(1000).min(30_000)))
                    .await;
                let Some(body) = self.get_stream(Some(&last)).await else { continue };
                answered = self.read_sse(body, &mut parser, id).await;
            }
            if let (false, Some(id)) = (answered, id) {
                if lock(&self.pending).contains_key(&id.key()) {
                    self.fail(
                        id,
                        codes::CONNECTION_CLOSED,
                        "the response stream ended before the answer arrived".into(),
                    )
                    .await;
                }
            }
            return;
        }
        let body = match read_limited(response.into_body()).await {
            Some(b) => b,
            None => {
                if let Some(id) = id {
                    self.fail(id, codes::CONNECTION_CLOSED, "the response body could not be read".into())
                        .await;
                }
                return;
            }
        };
        if body.is_empty() {
            if let Some(id) = id {
                self.fail(
                    id,
                    codes::INTERNAL_ERROR,
                    "the server accepted a request without answering it".into(),
                )
                .await;
            }
            return;
        }
        match decode_frame(&body) {
            Ok(Frame::Single(m)) => self.deliver(m).await,
            Ok(Frame::Batch(items)) => {
                for m in items.into_iter().flatten() {
                    self.deliver(m).await;
                }
            }
            Err(e) => {
                if let Some(id) = id {
                    self.fail(id, codes::PARSE_ERROR, format!("the server's answer is not JSON-RPC: {e}"))
                        .await;
                }
            }
        }
    }

    /// Delivers the messages of an SSE body; returns whether the answer to `id` came.
    async fn read_sse(
        &self,
        mut body: hyper::body::Incoming,
        parser: &mut SseParser,
        id: Option<&RequestId>,
    ) -> bool {
        let mut answered = false;
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { break };
            let Ok(data) = frame.into_data() else { continue };
            let events = match parser.push(&data) {
                Ok(events) => events,
                Err(e) => {
                    tracing::warn!("closing an SSE stream: {e}");
                    break;
                }
            };
            for event in events {
                if event.data.is_empty() || event.event.as_deref().is_some_and(|e| e != "message") {
                    continue;
                }
                let Ok(Frame::Single(message)) = decode_frame(event.data.as_bytes()) else { continue };
                let answers = match (&message, id) {
                    (Message::Response(r), Some(id)) => r.id.key() == id.key(),
                    (Message::Error(e), Some(id)) => e.id.as_ref().map(RequestId::key) == Some(id.key()),
                    _ => false,
                };
                self.deliver(message).await;
                if answers {
                    answered = true;
                }
            }
            if answered {
                break;
            }
        }
        parser.finish();
        answered
    }

    /// A GET SSE stream of the session (resuming from `last_event_id` if given).
    async fn get_stream(&self, last_event_id: Option<&str>) -> Option<hyper::body::Incoming> {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        {
            let session = lock(&self.session);
            if let Some(id) = session.id.as_deref().and_then(|s| HeaderValue::from_str(s).ok()) {
                h.insert(SESSION_ID, id);
            }
            if let Some(v) = session.version.as_deref().and_then(|s| HeaderValue::from_str(s).ok()) {
                h.insert(PROTOCOL_VERSION, v);
            }
        }
        if let Some(last) = last_event_id.and_then(|s| HeaderValue::from_str(s).ok()) {
            h.insert("last-event-id", last);
        }
        let request = self.build(Method::GET, self.url.clone(), None, h)?;
        let response = self.http.request(request).await.ok()?;
        let is_sse = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        (response.status().is_success() && is_sse).then(|| response.into_body())
    }

    /// Opens the 2025 standalone GET stream once the session is initialized (returning
    /// once the server answered the GET); a server without one (405) is fine. A dropped
    /// stream is resumed a few times.
    async fn open_standalone(self: Arc<Self>) {
        {
            let mut session = lock(&self.session);
            if session.standalone_open || session.id.is_none() || session.legacy_post.is_some() {
                return;
            }
            session.standalone_open = true;
        }
        let Some(first) = self.get_stream(None).await else { return };
        tokio::spawn(async move {
            let mut parser = SseParser::new(MAX_MESSAGE_BYTES);
            let mut body = Some(first);
            for _ in 0..=MAX_RESUMES {
                let stream = match body.take() {
                    Some(b) => b,
                    None => {
                        let last = parser.last_event_id().map(str::to_owned);
                        match self.get_stream(last.as_deref()).await {
                            Some(b) => b,
                            None => return,
                        }
                    }
                };
                self.read_sse(stream, &mut parser, None).await;
                if self.incoming.is_closed() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(parser.retry_ms().unwrap_or(1000).min(30_000)))
                    .await;
            }
        });
    }

    /// Replays the `initialize` exchange for a new session (the old one is gone).
    async fn reinitialize(&self) -> bool {
        let Some(Message::Request(mut init)) = lock(&self.session).initialize.clone() else { return false };
        {
            let mut session = lock(&self.session);
            session.id = None;
            session.standalone_open = false;
        }
        init.id = RequestId::String(format!(
            "mcpwire-reinitialize-{}",
            self.internal_ids.fetch_add(1, Ordering::Relaxed)
        ));
        let message = Message::Request(init);
        let headers = self.message_headers(&message, None);
        let Some(request) = self.build(Method::POST, self.url.clone(), Some(message.to_vec()), headers)
        else {
            return false;
        };
        let Ok(response) = self.http.request(request).await else { return false };
        let sid = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let ok = response.status().is_success();
        let _ = read_limited(response.into_body()).await;
        if !ok {
            return false;
        }
        lock(&self.session).id = sid;
        let initialized =
            Message::Notification(mcpwire_protocol::Notification::new(methods::INITIALIZED, None));
        let headers = self.message_headers(&initialized, None);
        if let Some(request) = self.build(Method::POST, self.url.clone(), Some(initialized.to_vec()), headers)
        {
            let _ = self.http.request(request).await;
        }
        tracing::info!("the server forgot the session; re-initialized");
        true
    }

    /// Fetches `tools/list` (2026) to learn fresh `x-mcp-header` annotations.
    async fn refresh_tools(&self, call: &Message) {
        let Some(version) = modern::envelope_version(call) else { return };
        let Message::Request(r) = call else { return };
        let meta =
            r.parse_params::<Value>().ok().and_then(|p| p.get("_meta").cloned()).unwrap_or(Value::Null);
        let params = serde_json::json!({ "_meta": meta });
        let id =
            RequestId::String(format!("mcpwire-tools-{}", self.internal_ids.fetch_add(1, Ordering::Relaxed)));
        let list = Message::Request(mcpwire_protocol::Request::new(
            id.clone(),
            methods::TOOLS_LIST,
            serde_json::value::to_raw_value(&params).ok(),
        ));
        let headers = self.message_headers(&list, Some(&version));
        let Some(request) = self.build(Method::POST, self.url.clone(), Some(list.to_vec()), headers) else {
            return;
        };
        let Ok(response) = self.http.request(request).await else { return };
        let body = read_limited(response.into_body()).await.unwrap_or_default();
        if let Ok(Frame::Single(Message::Response(resp))) = decode_frame(&body) {
            lock(&self.pending)
                .insert(id.key(), Pending { method: methods::TOOLS_LIST.into(), modern: true, abort: None });
            let _ = self.inspect(Message::Response(resp));
        }
    }

    /// Switches to the legacy HTTP+SSE transport: GET the endpoint, wait for the
    /// `endpoint` event, then keep reading the stream for every answer.
    async fn start_legacy(self: &Arc<Self>) -> bool {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        let Some(request) = self.build(Method::GET, self.url.clone(), None, h) else { return false };
        let Ok(response) = self.http.request(request).await else { return false };
        if !response.status().is_success() {
            return false;
        }
        let mut body = response.into_body();
        let mut parser = SseParser::new(MAX_MESSAGE_BYTES);
        let endpoint = loop {
            let Some(Ok(frame)) =
                tokio::time::timeout(Duration::from_secs(10), body.frame()).await.ok().flatten()
            else {
                return false;
            };
            let Ok(data) = frame.into_data() else { continue };
            let Ok(events) = parser.push(&data) else { return false };
            if let Some(e) = events.into_iter().find(|e| e.event.as_deref() == Some("endpoint")) {
                break e.data;
            }
        };
        let Some(post) = resolve(&self.url, endpoint.trim()) else { return false };
        lock(&self.session).legacy_post = Some(post);
        tracing::info!("the server speaks the legacy HTTP+SSE transport (2024-11-05)");
        let shared = self.clone();
        tokio::spawn(async move {
            shared.read_sse(body, &mut parser, None).await;
        });
        true
    }

    /// Ends the 2025 session with DELETE (best effort).
    async fn delete_session(&self) {
        let (id, version) = {
            let session = lock(&self.session);
            (session.id.clone(), session.version.clone())
        };
        let Some(id) = id.and_then(|s| HeaderValue::from_str(&s).ok()) else { return };
        let mut h = HeaderMap::new();
        h.insert(SESSION_ID, id);
        if let Some(v) = version.and_then(|s| HeaderValue::from_str(&s).ok()) {
            h.insert(PROTOCOL_VERSION, v);
        }
        if let Some(request) = self.build(Method::DELETE, self.url.clone(), None, h) {
            let _ = tokio::time::timeout(Duration::from_secs(2), self.http.request(request)).await;
        }
    }
}

/// Reads a whole body, refusing more than [`MAX_MESSAGE_BYTES`].
async fn read_limited(body: hyper::body::Incoming) -> Option<Bytes> {
    http_body_util::Limited::new(body, MAX_MESSAGE_BYTES).collect().await.ok().map(|c| c.to_bytes())
}

/// Resolves the legacy `endpoint` (absolute, or a path on the same origin).
fn resolve(base: &Uri, endpoint: &str) -> Option<Uri> {
    if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        return endpoint.parse().ok();
    }
    let mut parts = base.clone().into_parts();
    let path = if endpoint.starts_with('/') { endpoint.to_owned() } else { format!("/{endpoint}") };
    parts.path_and_query = Some(path.parse().ok()?);
    Uri::from_parts(parts).ok()
}
