//! The two error types: [`McpError`], what a handler fails with (and what becomes a
//! JSON-RPC error on the wire), and [`RequestError`], what an outbound request fails with.
//!
//! ```
//! use mcpwire::protocol::{codes, ErrorObject};
//! use mcpwire::{McpError, RequestError};
//!
//! // A handler refuses bad input: the client gets `-32602` and this message.
//! let refused = McpError::invalid_params("`city` must not be empty");
//! assert_eq!(refused.code(), codes::INVALID_PARAMS);
//! // Any other failure is logged here and answered as a bare "Internal error".
//! let hidden = McpError::internal(std::io::Error::other("disk full"));
//! assert_eq!(hidden.to_error_object(), ErrorObject::new(codes::INTERNAL_ERROR, "Internal error"));
//! // A request the transport could not deliver is never the peer's answer.
//! let local = RequestError::Transport { reason: "HTTP 502 Bad Gateway".into() };
//! assert!(local.peer_error().is_none());
//! ```

use std::fmt;
use std::time::Duration;

use mcpwire_protocol::{codes, ErrorObject};
use serde_json::Value;

/// The error a request handler returns. The dispatcher is the one place that turns it into
/// a JSON-RPC error response:
/// - a protocol error ([`McpError::new`] and the named constructors) keeps its code,
///   message and data;
/// - [`McpError::invalid_params`] (argument decoding and validation) becomes `-32602`;
/// - an internal error ([`McpError::internal`]) becomes `-32603` "Internal error", and its
///   detail is logged, never sent, so a failing handler does not leak its internals.
#[derive(Debug)]
pub struct McpError {
    repr: Repr,
}

#[derive(Debug)]
enum Repr {
    Protocol(ErrorObject),
    Internal(Box<dyn std::error::Error + Send + Sync>),
    /// A 2026 handler needs client input first: the era adapter turns this into an
    /// `input_required` result. It never reaches the wire as an error.
    InputRequired(Option<Box<mcpwire_protocol::mrtr::InputRequiredResult>>),
}

impl McpError {
    /// A protocol error with any code. An application's own codes should lie outside
    /// `-32768..=-32000`: JSON-RPC and MCP reserve that range (`-32020..=-32099` for the
    /// spec's own codes; 2026 asks that `-32000..=-32019` not be used), so a client reads
    /// a code there as the protocol's, not yours. For a tool's own failures, return a
    /// tool error (`isError`) instead.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        McpError { repr: Repr::Protocol(ErrorObject::new(code, message)) }
    }

    /// A protocol error from a complete error object (for example one received from
    /// another peer, to pass through).
    pub fn from_error_object(error: ErrorObject) -> Self {
        McpError { repr: Repr::Protocol(error) }
    }

    /// Adds `data` to a protocol error (no effect on an internal error).
    pub fn with_data(mut self, data: Value) -> Self {
        if let Repr::Protocol(e) = &mut self.repr {
            e.data = Some(data);
        }
        self
    }

    /// `-32602` Invalid params.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        McpError::new(codes::INVALID_PARAMS, message)
    }

    /// `-32600` Invalid request.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        McpError::new(codes::INVALID_REQUEST, message)
    }

    /// `-32601` Method not found, naming the method in the message (at most 200
    /// characters of it) and in `data`.
    pub fn method_not_found(method: &str) -> Self {
        McpError::new(codes::METHOD_NOT_FOUND, format!("Method not found: {}", shown(method, 200)))
            .with_data(serde_json::json!({ "method": method }))
    }

    /// "Resource not found": what a `resources/read` handler answers for a URI that names
    /// nothing, with the URI in `data` (`{"uri": ..}`) as the spec asks. Its code is the
    /// one of the request's era: `-32002` on a 2025 session, and on a 2026 request the
    /// server sends it as `-32602` (2026 must not emit `-32002`), message and data
    /// unchanged. The server's own answer for a URI that no resource or template matches
    /// is this error too.
    ///
    /// ```
    /// use mcpwire::protocol::codes;
    /// use mcpwire::McpError;
    ///
    /// let missing = McpError::resource_not_found("file:///notes/gone.md");
    /// assert_eq!(missing.code(), codes::RESOURCE_NOT_FOUND);
    /// let error = missing.to_error_object();
    /// assert_eq!(error.data, Some(serde_json::json!({ "uri": "file:///notes/gone.md" })));
    /// ```
    pub fn resource_not_found(uri: &str) -> Self {
        // The message names at most 200 characters of the URI; `data` carries all of it.
        let shown = shown(uri, 200);
        McpError::new(codes::RESOURCE_NOT_FOUND, format!("Resource not found: {shown}"))
            .with_data(serde_json::json!({ "uri": uri }))
    }

    /// `-32042` URL elicitation required (2025-11-25): the request cannot go on until the
    /// user has completed these URL-mode elicitations out of band (each with its
    /// `elicitationId`; tell the client when one is done with
    /// [`Ctx::notify_elicitation_complete`](crate::server::Ctx::notify_elicitation_complete)),
    /// after which the client may retry. A 2026 request never answers `-32042`: there a
    /// handler's becomes an `input_required` result asking for the same URLs, and a
    /// middleware's (which cannot be held to the capabilities the request declared)
    /// becomes `-32603` saying so, its URLs in `data`: ask a 2026 client in a handler.
    pub fn url_elicitation_required(
        elicitations: Vec<mcpwire_protocol::elicitation::ElicitRequestURLParams>,
    ) -> Self {
        let data = mcpwire_protocol::elicitation::UrlElicitationRequiredData { elicitations };
        McpError::new(codes::URL_ELICITATION_REQUIRED, "URL elicitation required")
            .with_data(serde_json::to_value(data).unwrap_or(Value::Null))
    }

    /// An internal failure: logged in full, answered as `-32603` "Internal error".
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        McpError { repr: Repr::Internal(error.into()) }
    }

    /// The marker a 2026 handler ends with when it needs client input first
    /// (`ctx.elicit(..)` and friends return it; propagate it with `?`).
    pub(crate) fn input_required() -> Self {
        McpError { repr: Repr::InputRequired(None) }
    }

    /// Ends a 2026 `tools/call`, `prompts/get` or `resources/read` handler with a
    /// hand-made `input_required` result (return it as `Err(..)`). Its `requestState`, if
    /// any, is sealed by the server before it is sent and verified when the client
    /// retries ([`Ctx::request_state`](crate::server::Ctx::request_state) then returns it).
    /// On a 2025 session this is an internal error: use `ctx.elicit(..)` and friends,
    /// which work in both eras.
    pub fn needs_input(result: mcpwire_protocol::mrtr::InputRequiredResult) -> Self {
        McpError { repr: Repr::InputRequired(Some(Box::new(result))) }
    }

    /// Whether this is the "input required" marker of a 2026 round.
    pub fn is_input_required(&self) -> bool {
        matches!(self.repr, Repr::InputRequired(_))
    }

    /// Takes the hand-made `input_required` result out of the marker, if it has one.
    pub(crate) fn take_input_required(self) -> Option<mcpwire_protocol::mrtr::InputRequiredResult> {
        match self.repr {
            Repr::InputRequired(result) => result.map(|b| *b),
            _ => None,
        }
    }

    /// The JSON-RPC error code this error is answered with.
    pub fn code(&self) -> i64 {
        match &self.repr {
            Repr::Protocol(e) => e.code,
            Repr::Internal(_) | Repr::InputRequired(_) => codes::INTERNAL_ERROR,
        }
    }

    /// The error object written to the wire. Internal details stay out of it.
    pub fn to_error_object(&self) -> ErrorObject {
        match &self.repr {
            Repr::Protocol(e) => e.clone(),
            Repr::Internal(_) | Repr::InputRequired(_) => {
                ErrorObject::new(codes::INTERNAL_ERROR, "Internal error")
            }
        }
    }

    /// Whether this is an internal failure (which the dispatcher logs).
    pub fn is_internal(&self) -> bool {
        matches!(self.repr, Repr::Internal(_) | Repr::InputRequired(_))
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Protocol(e) => write!(f, "{e}"),
            Repr::Internal(e) => write!(f, "internal error: {e}"),
            Repr::InputRequired(_) => f.write_str("client input required"),
        }
    }
}

impl std::error::Error for McpError {}

impl From<ErrorObject> for McpError {
    fn from(error: ErrorObject) -> Self {
        McpError::from_error_object(error)
    }
}

/// A failed outbound call passes through with the peer's code (useful for proxies);
/// local failures, a transport's own failure among them, become internal errors.
impl From<RequestError> for McpError {
    fn from(error: RequestError) -> Self {
        match error {
            RequestError::Peer(e) => McpError::from_error_object(e),
            other => McpError::internal(other),
        }
    }
}

impl From<serde_json::Error> for McpError {
    fn from(error: serde_json::Error) -> Self {
        McpError::internal(error)
    }
}

impl From<std::io::Error> for McpError {
    fn from(error: std::io::Error) -> Self {
        McpError::internal(error)
    }
}

/// Why an outbound request produced no result. Local failures (timeouts, a closed
/// connection) are their own variants, so they can never be mistaken for an error the
/// peer sent. New variants may come (match with a wildcard arm).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The peer answered with a JSON-RPC error.
    #[error("the peer answered with an error: {0}")]
    Peer(ErrorObject),
    /// No response within the request's timeout; `notifications/cancelled` was sent.
    #[error("request {method:?} timed out after {timeout:?}")]
    Timeout {
        /// The method that timed out.
        method: String,
        /// The timeout that elapsed.
        timeout: Duration,
    },
    /// The request never left this client: the connection's outgoing queue had no room
    /// for it within the request's limit (the peer stopped reading, and every buffer in
    /// between is full: a stdio server that no longer reads its stdin, say). The peer
    /// never saw it, so nothing was cancelled, and it is safe to send again. A request
    /// that entered the queue but was not yet written when its limit passed is a
    /// [`RequestError::Timeout`]: transports do not report when a message's bytes leave.
    #[error("request {method:?} was never sent: the connection had no room for it within {waited:?} (the peer is not reading)")]
    NotSent {
        /// The method that could not be sent.
        method: String,
        /// How long it waited for room (the request's limit).
        waited: Duration,
    },
    /// The caller cancelled the request (its cancel token fired); the peer was sent
    /// `notifications/cancelled` and its answer, if any, is dropped. Also what a handler's
    /// request on behalf of an inbound request the peer cancelled fails with, unsent
    /// ([`RequestContext::request`](crate::jsonrpc::RequestContext::request)).
    #[error("request {method:?} was cancelled")]
    Cancelled {
        /// The cancelled method.
        method: String,
    },
    /// The connection closed before the response arrived (or was already closed).
    #[error("connection closed{}", reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default())]
    ConnectionClosed {
        /// What the transport knows about why (for example a child's exit status).
        reason: Option<String>,
    },
    /// The connection has not started running yet.
    #[error("the connection is not running yet")]
    NotRunning,
    /// The id the caller supplied is already in flight.
    #[error("request id {0} is already in flight")]
    DuplicateId(mcpwire_protocol::RequestId),
    /// The params could not be serialized.
    #[error("could not encode the request params: {0}")]
    Encode(#[source] serde_json::Error),
    /// The result could not be decoded into the expected type.
    #[error("the peer's result is invalid: {0}")]
    InvalidResult(#[source] serde_json::Error),
    /// This request's transport cannot carry a request to the peer (for example a 2025
    /// HTTP POST answered with one JSON body).
    #[error("this request has no channel for server-to-client requests")]
    NoBackChannel,
    /// A protocol rule was broken by the peer's answer (for example an unknown `resultType`).
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// The transport failed locally before an answer could arrive: the connection was
    /// refused or broke, the answer could not be read or decoded, or the HTTP exchange
    /// failed without a JSON-RPC error from the peer. Never something the peer said.
    #[error("transport failure: {reason}")]
    Transport {
        /// What failed, for a person to read (for example `HTTP 502 Bad Gateway`).
        reason: String,
    },
}

impl RequestError {
    /// The JSON-RPC code that describes this failure: the peer's code, or the SDK-local
    /// `-32001` (timeout, or never sent within the limit) and `-32000` (connection
    /// closed, transport failure).
    pub fn code(&self) -> i64 {
        match self {
            RequestError::Peer(e) => e.code,
            RequestError::Timeout { .. } | RequestError::NotSent { .. } => codes::REQUEST_TIMEOUT,
            RequestError::Cancelled { .. } => codes::REQUEST_CANCELLED,
            RequestError::ConnectionClosed { .. }
            | RequestError::NotRunning
            | RequestError::Transport { .. } => codes::CONNECTION_CLOSED,
            RequestError::DuplicateId(_) | RequestError::Encode(_) | RequestError::NoBackChannel => {
                codes::INVALID_REQUEST
            }
            RequestError::InvalidResult(_) | RequestError::Protocol(_) => codes::INTERNAL_ERROR,
        }
    }

    /// The peer's error object, when the peer answered with one.
    pub fn peer_error(&self) -> Option<&ErrorObject> {
        match self {
            RequestError::Peer(e) => Some(e),
            _ => None,
        }
    }

    /// The URL-mode elicitations of a `-32042` answer (2025-11-25): what the user must
    /// complete before the request is retried. `None` for any other error.
    pub fn url_elicitations(&self) -> Option<Vec<mcpwire_protocol::elicitation::ElicitRequestURLParams>> {
        let error = self.peer_error().filter(|e| e.code == codes::URL_ELICITATION_REQUIRED)?;
        let data: mcpwire_protocol::elicitation::UrlElicitationRequiredData =
            serde_json::from_value(error.data.clone()?).ok()?;
        Some(data.elicitations)
    }
}

/// `s` as an error message shows it: its first `n` characters, and `…` when there is more
/// (a URI a client sent may be of any length; the message is read by people).
pub(crate) fn shown(s: &str, n: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(n) {
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}…", s.get(..end).unwrap_or(s))),
        None => std::borrow::Cow::Borrowed(s),
    }
}

/// An error and its sources, `: `-separated (hyper's own message alone, "client error
/// (Connect)", does not say that the connection was refused).
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message shows at most `n` characters of a text, whole characters, and says when
    /// it cut; `data` keeps the whole URI.
    #[test]
    fn a_long_uri_is_cut_in_the_message_only() {
        assert_eq!(shown("héllo", 5), "héllo");
        assert_eq!(shown("héllo", 2), "hé…");
        assert_eq!(shown("", 0), "");
        let uri = format!("file:///{}", "é".repeat(300));
        let error = McpError::resource_not_found(&uri).to_error_object();
        let expected: String = uri.chars().take(200).collect();
        assert_eq!(error.message, format!("Resource not found: {expected}…"));
        assert_eq!(error.data, Some(serde_json::json!({ "uri": uri })));
    }

    #[test]
    fn a_transport_failure_relayed_by_a_handler_is_an_internal_error() {
        let local = RequestError::Transport { reason: "HTTP 502 Bad Gateway".into() };
        assert_eq!(local.to_string(), "transport failure: HTTP 502 Bad Gateway");
        assert_eq!(local.code(), codes::CONNECTION_CLOSED);
        assert!(local.peer_error().is_none());
        let relayed = McpError::from(local);
        assert!(relayed.is_internal());
        assert_eq!(relayed.to_error_object(), ErrorObject::new(codes::INTERNAL_ERROR, "Internal error"));
        // The peer's own error passes through with its code.
        let plain = McpError::from(RequestError::Peer(ErrorObject::new(codes::INVALID_PARAMS, "bad")));
        assert_eq!(plain.to_error_object(), ErrorObject::new(codes::INVALID_PARAMS, "bad"));
    }
}
