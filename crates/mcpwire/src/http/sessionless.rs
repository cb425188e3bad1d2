//! 2025-era requests without sessions ([`HttpSettings::sessionless`], what other SDKs
//! call the 2025 "stateless mode"; "stateless" here names the 2026 era alone): no
//! `Mcp-Session-Id` is minted or required, GET and DELETE answer 405, and each POST is
//! served on its own, as a 2026 request is: its handler runs inside the POST's future
//! ([`stateless::serve_alone`]), with a session of its own that ends with the response (so
//! nothing is kept and nothing can be resumed). A request that is not `initialize` finds
//! that session already initialized at the version its `MCP-Protocol-Version` header
//! names (2025-03-26 without one), with no client capabilities: like a session whose
//! client declared none, it cannot be asked for sampling, elicitation or roots. Nor does
//! it offer the 2025-11-25 core tasks: a task it created could never be polled.
//!
//! A batch (2025-03-26 only) is answered as one array: it is served by a throwaway
//! [`Session`], which collects the answers of its requests.
//!
//! [`HttpSettings::sessionless`]: super::HttpSettings::sessionless

use std::sync::atomic::Ordering;
use std::sync::Arc;

use http::{Response, StatusCode};
use mcpwire_protocol::{codes, methods, Implementation, Message, ProtocolVersion, Request, RequestId};
use serde_json::json;

use super::session::Session;
use super::{request_extensions, stateless, status, McpBody, McpService};
use crate::jsonrpc::{Handler, RequestContext};
use crate::server::stateful::{StatefulSession, ASSUMED_CLIENT};
use crate::transport::{InboundMeta, TransportEvent};

/// The id of the `initialize` request a throwaway session is opened with.
const INIT_ID: &str = "mcpwire-sessionless-initialize";

/// The version a session-less request runs at: its `MCP-Protocol-Version` header's (as
/// the endpoint read it), if that names a 2025 revision, else 2025-03-26 (the spec's
/// assumption for a request without the header).
pub(super) fn header_version(header: Option<ProtocolVersion>) -> ProtocolVersion {
    header.filter(|v| ProtocolVersion::STATEFUL.contains(v)).unwrap_or(ProtocolVersion::HTTP_DEFAULT)
}

/// Ends a throwaway session when the response that used it is dropped.
struct CloseOnDrop(Arc<Session>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The handler of one session-less 2025 request: a session of its own, through the
/// server's middleware.
struct Sessionless {
    session: Arc<StatefulSession>,
    version: ProtocolVersion,
}

impl Handler for Sessionless {
    async fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<mcpwire_protocol::RawJson, crate::McpError> {
        if request.method != methods::INITIALIZE {
            self.session.assume_initialized(self.version.clone(), ctx.peer());
        }
        self.session.on_request(request, ctx).await
    }
}

impl McpService {
    /// Serves a session-less 2025 POST.
    pub(super) async fn post_sessionless(
        &self,
        parts: &mut http::request::Parts,
        mut messages: Vec<Message>,
        batch: bool,
        refused: Vec<bytes::Bytes>,
        version: ProtocolVersion,
    ) -> Response<McpBody> {
        if batch && !version.accepts_batches() {
            return status::error(
                StatusCode::BAD_REQUEST,
                None,
                codes::INVALID_REQUEST,
                "Invalid request: batches are only accepted at protocol version 2025-03-26",
            );
        }
        // Notifications and responses have no session to reach: accepted and dropped.
        if !messages.iter().any(|m| matches!(m, Message::Request(_))) {
            return match refused.is_empty() {
                true => status::empty(StatusCode::ACCEPTED),
                false => status::json_in(
                    None,
                    super::exchange::refused_status(&messages),
                    super::exchange::json_array(&refused),
                ),
            };
        }
        // The slot is held until the response is sent or dropped (with the session).
        let Some(slot) = self.request_slot() else {
            let id = match messages.as_slice() {
                [Message::Request(r)] => Some(r.id.clone()),
                _ => None,
            };
            return status::busy(id, "Too many requests in progress; try again later");
        };
        let inner = &self.inner;
        if let (false, [Message::Request(_)]) = (batch, messages.as_slice()) {
            if let Some(Message::Request(request)) = messages.pop() {
                let handler =
                    Sessionless { session: StatefulSession::sessionless(inner.server.clone()), version };
                let extensions = request_extensions(parts);
                let json_only = inner.settings.json_response;
                return stateless::serve_alone(inner, handler, request, extensions, slot, (), json_only)
                    .await;
            }
        }
        let principal = parts.extensions.get::<crate::extensions::Principal>().map(|p| p.0.clone());
        let name = format!("sessionless-{}", inner.throwaway_sessions.fetch_add(1, Ordering::Relaxed) + 1);
        let session = Session::start(
            &inner.server,
            inner.sessionless_settings.clone(),
            name,
            principal,
            version.clone(),
            1,
        );
        let guard = (CloseOnDrop(session.clone()), slot);
        let initialize =
            matches!(messages.as_slice(), [Message::Request(r)] if r.method == methods::INITIALIZE);
        if !initialize && !open(&session, &version).await {
            return status::error(
                StatusCode::INTERNAL_SERVER_ERROR,
                None,
                codes::INTERNAL_ERROR,
                "Internal error: could not open a session",
            );
        }
        let json = inner.settings.json_response;
        let response = self.exchange(&session, parts, messages, batch, refused, json).await;
        let (head, body) = response.into_parts();
        Response::from_parts(head, body.with_guard(Arc::new(guard)))
    }
}

/// Initializes a throwaway session on the client's behalf; `false` if it failed.
async fn open(session: &Arc<Session>, version: &ProtocolVersion) -> bool {
    let id = RequestId::from(INIT_ID);
    let Ok((_, mut rx)) = session.open_stream(std::slice::from_ref(&id), true, None) else { return false };
    let params = json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": Implementation::new(ASSUMED_CLIENT.0, ASSUMED_CLIENT.1),
    });
    let Ok(raw) = serde_json::value::to_raw_value(&params) else { return false };
    let request = Request::new(id, methods::INITIALIZE, Some(raw));
    let event = TransportEvent::message(Message::Request(request), InboundMeta::default());
    if !session.deliver([event]).await {
        return false;
    }
    let answer = rx.recv().await.and_then(|a| serde_json::from_slice::<serde_json::Value>(&a).ok());
    answer.is_some_and(|a| a.get("result").is_some())
}
