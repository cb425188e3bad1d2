//! One message's POST exchange, with the retries the wire allows (OAuth, a stale 2025
//! session, the legacy fallback, a stale 2026 tool list, a lost 2026 response stream),
//! and the local failure of a request whose answer cannot come.

use std::sync::Arc;

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Method, Request as HttpRequest, StatusCode, Uri};
use http_body_util::Full;
use mcpwire_protocol::{codes, decode_frame, methods, Frame, Message, RequestId};

use super::answer::{Awaited, Read, LOST};
use super::auth_hook::Authorization;
use super::body::read_limited;
use super::{lock, stateless, Shared};
use crate::mcp_headers::{PROTOCOL_VERSION, SESSION_ID};
use crate::transport::{InboundMeta, TransportEvent};

/// How often a 2026 request whose response stream broke is sent again, under a new id,
/// before it fails.
const MAX_REISSUES: u32 = 2;

/// The wait before a lost 2026 request is sent again, times the attempt's number.
const REISSUE_BACKOFF: std::time::Duration = std::time::Duration::from_millis(100);

/// The longest `Mcp-Session-Id` taken from a server: it goes back on every request.
pub(super) const MAX_SESSION_ID_BYTES: usize = 4096;

/// Whether a server's `Mcp-Session-Id` is one the client takes and sends back on every
/// request: 1 to [`MAX_SESSION_ID_BYTES`] visible ASCII characters (the spec's MUST).
pub(super) fn acceptable_session_id(sid: &HeaderValue) -> bool {
    let bytes = sid.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= MAX_SESSION_ID_BYTES
        && bytes.iter().all(|b| (0x21..=0x7e).contains(b))
}

impl Shared {
    pub(super) async fn deliver(&self, message: Message) {
        let message = self.inspect(message);
        let _ = self.incoming.send(TransportEvent::message(message, InboundMeta::default())).await;
    }

    /// Fails a request locally (the server's answer cannot come): the caller gets
    /// [`RequestError::Transport`](crate::RequestError::Transport), never an error that
    /// looks like the server's.
    pub(super) async fn fail(&self, id: &RequestId, reason: String) {
        lock(&self.pending).remove(&id.key());
        let _ = self.incoming.send(TransportEvent::failed(id.clone(), reason)).await;
    }

    pub(super) fn post_url(&self) -> Uri {
        lock(&self.session).legacy_post.clone().unwrap_or_else(|| self.url.clone())
    }

    pub(super) fn build(
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
        headers.extend(self.auth_headers(&method, &uri));
        builder.body(Full::new(Bytes::from(body.unwrap_or_default()))).ok()
    }

    /// The headers of one message.
    pub(super) fn message_headers(&self, message: &Message, stateless: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        match stateless {
            Some(version) => {
                let tools = lock(&self.tool_headers).clone();
                stateless::add_headers(&mut h, message, version, |name| {
                    tools.get(name).cloned().unwrap_or_default()
                });
            }
            None => {
                let session = lock(&self.session);
                let is_initialize = matches!(message, Message::Request(r) if r.method == methods::INITIALIZE);
                if !is_initialize {
                    if let Some(id) = self.session_id_header() {
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
    pub(super) async fn exchange(self: &Arc<Self>, mut message: Message, stateless: Option<String>) {
        let request_id = match &message {
            Message::Request(r) => Some(r.id.clone()),
            _ => None,
        };
        let is_initialize = matches!(&message, Message::Request(r) if r.method == methods::INITIALIZE);
        let mut body = message.to_vec();
        let mut authorizations = 0;
        let (mut reinitialized, mut tried_legacy, mut refreshed_tools) = (false, false, false);
        let mut reissues: u32 = 0;
        self.prepare_auth().await;
        for _ in 0..8 {
            let sent_session = self.renewed.session_id();
            let headers = self.message_headers(&message, stateless.as_deref());
            let Some(request) = self.build(Method::POST, self.post_url(), Some(body.clone()), headers) else {
                return;
            };
            let response = match self.send(request).await {
                Ok(r) => r,
                Err(e) => {
                    if let Some(id) = &request_id {
                        self.fail(id, format!("HTTP request failed: {e}")).await;
                    }
                    return;
                }
            };
            let response = match self.authorize_on(response, &mut authorizations).await {
                Authorization::Answered(response) => response,
                Authorization::Retry => continue,
                Authorization::Failed(reason) => {
                    if let Some(id) = &request_id {
                        self.fail(id, reason).await;
                    }
                    return;
                }
            };
            let status = response.status();
            if is_initialize {
                if let Some(sid) = response.headers().get(SESSION_ID) {
                    // A session the client could not name back is refused, not silently
                    // dropped.
                    if !acceptable_session_id(sid) {
                        if let Some(id) = &request_id {
                            let why = format!(
                                "the server's Mcp-Session-Id is not 1 to {MAX_SESSION_ID_BYTES} visible ASCII characters"
                            );
                            self.fail(id, why).await;
                        }
                        return;
                    }
                    let sid = String::from_utf8_lossy(sid.as_bytes()).into_owned();
                    // Written under the session's lock, as it is read.
                    let _session = lock(&self.session);
                    self.renewed.set_session_id(Some(sid));
                }
            }
            let legacy = lock(&self.session).legacy_post.is_some();
            if status.is_success() {
                if legacy {
                    return; // answers come on the legacy SSE stream
                }
                let awaited = match (&request_id, &message) {
                    (Some(id), Message::Request(r)) => Some(Awaited { id, on_wire: &r.id }),
                    _ => None,
                };
                if self.read_answer(response, awaited, stateless.is_some()).await == Read::Lost {
                    // 2026: the server took the closed stream as a cancel and the request
                    // is lost; the spec has the client send it again under a new id.
                    let (Some(id), Message::Request(r)) = (&request_id, &mut message) else { return };
                    if reissues == MAX_REISSUES {
                        self.fail(id, LOST.into()).await;
                        return;
                    }
                    reissues += 1;
                    // A moment first, longer each time: a tool that may not be idempotent
                    // is not run again and again in a tight loop.
                    tokio::time::sleep(REISSUE_BACKOFF * reissues).await;
                    let base = match id {
                        RequestId::Number(n) => n.to_string(),
                        RequestId::String(s) => s.clone(),
                    };
                    r.id = RequestId::String(format!("{base}-reissued-{reissues}"));
                    body = message.to_vec();
                    continue;
                }
                return;
            }
            // A redirect that reaches here was not followed (another origin, or a code
            // that would turn the POST into a GET): say where it pointed.
            let location = response.headers().get(header::LOCATION).filter(|_| status.is_redirection());
            let location = location.and_then(|l| l.to_str().ok()).map(str::to_owned);
            let body = read_limited(response.into_body(), self.max_message_bytes).await.unwrap_or_default();
            let rpc_error = decode_frame(&body).ok().and_then(|f| match f {
                Frame::Single(Message::Error(e)) => Some(e),
                _ => None,
            });
            // A stale 2025 session: re-initialize once (or take the session another
            // request's re-initialization made meanwhile), then retry.
            if status == StatusCode::NOT_FOUND
                && stateless.is_none()
                && !is_initialize
                && sent_session.is_some()
                && !std::mem::replace(&mut reinitialized, true)
                && self.renew_session(sent_session.as_deref()).await
            {
                // The new session's server-initiated messages need their own stream.
                self.clone().open_standalone().await;
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
            if let (Some(e), Some(_), false) = (&rpc_error, &stateless, refreshed_tools) {
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
                        // An HTTP failure without a JSON-RPC error: the peer said nothing
                        // in JSON-RPC terms, so this is the transport's failure.
                        let text = match &location {
                            Some(to) => format!(
                                "a redirect to {to}, not followed (only 307 and 308 to the same origin are)"
                            ),
                            None => String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned(),
                        };
                        self.fail(id, format!("HTTP {status}: {text}")).await;
                    }
                }
            } else if !status.is_success() {
                tracing::debug!(%status, "the server refused a notification or response");
            }
            return;
        }
    }
}
