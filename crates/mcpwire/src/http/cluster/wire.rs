//! What instances say to each other over Redis pub/sub: one JSON object per message,
//! bodies in base64 (a tunnelled HTTP body need not be UTF-8).

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::server::ServerEvent;

/// One message on an instance's inbox or on the cluster's event channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub(crate) enum Frame {
    /// An HTTP request for a session the receiver owns, sent by instance `from`.
    Request {
        /// The sender's number for this exchange.
        tunnel: u64,
        /// The sender's instance id, where the answer goes.
        from: String,
        /// The HTTP method.
        method: String,
        /// The request target.
        uri: String,
        /// The headers that are text (an MCP request has no other kind).
        headers: Vec<(String, String)>,
        /// The authenticated principal the sender's auth layer found, if any.
        principal: Option<String>,
        /// The body, base64.
        body: String,
    },
    /// The status and headers of a tunnelled response.
    Head { tunnel: u64, status: u16, headers: Vec<(String, String)> },
    /// A piece of a tunnelled response body, base64.
    Data { tunnel: u64, data: String },
    /// The end of a tunnelled response body.
    End { tunnel: u64 },
    /// A complete tunnelled response in one frame: status, headers and body (base64).
    Whole { tunnel: u64, status: u16, headers: Vec<(String, String)>, data: String },
    /// The owner is leaving and serves nothing more: the requester takes the session over.
    Gone { tunnel: u64 },
    /// The requesting side gave up on an exchange (its client went away).
    Cancel { tunnel: u64, from: String },
    /// The requesting side, after a quiet while, asks whether the exchange is still
    /// being served (pub/sub may have dropped the request or the end of its answer).
    Probe { tunnel: u64, from: String },
    /// The answer to a [`Frame::Probe`]: the exchange is still being served.
    Serving { tunnel: u64 },
    /// The answer to a [`Frame::Probe`]: no such exchange is being served (it never
    /// arrived, or its answer was sent in full).
    Unknown { tunnel: u64 },
    /// The owner of a quiet streamed answer, sent by instance `from`, asks whether the
    /// requesting side still wants it; one that does not answers [`Frame::Cancel`].
    Wanted { tunnel: u64, from: String },
    /// A task changed on instance `from` (for listen streams that follow it).
    TaskChanged { from: String, task: String },
    /// An answer or cancellation for a task that runs on the receiving instance.
    TaskSignal { task: String, signal: serde_json::Value },
    /// A change that every instance publishes to its own clients, from instance `from`.
    Event { from: String, event: WireEvent },
}

/// A [`ServerEvent`] on the wire.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum WireEvent {
    ToolsChanged,
    PromptsChanged,
    ResourcesChanged,
    ResourceUpdated { uri: String },
}

impl From<&ServerEvent> for WireEvent {
    fn from(event: &ServerEvent) -> Self {
        match event {
            ServerEvent::ToolsChanged => WireEvent::ToolsChanged,
            ServerEvent::PromptsChanged => WireEvent::PromptsChanged,
            ServerEvent::ResourcesChanged => WireEvent::ResourcesChanged,
            ServerEvent::ResourceUpdated(uri) => WireEvent::ResourceUpdated { uri: uri.clone() },
        }
    }
}

impl From<WireEvent> for ServerEvent {
    fn from(event: WireEvent) -> Self {
        match event {
            WireEvent::ToolsChanged => ServerEvent::ToolsChanged,
            WireEvent::PromptsChanged => ServerEvent::PromptsChanged,
            WireEvent::ResourcesChanged => ServerEvent::ResourcesChanged,
            WireEvent::ResourceUpdated { uri } => ServerEvent::ResourceUpdated(uri),
        }
    }
}

impl Frame {
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        // Only strings, numbers and lists: serialization cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub(crate) fn parse(bytes: &[u8]) -> Option<Frame> {
        serde_json::from_slice(bytes).ok()
    }
}

/// Bytes as base64 text.
pub(crate) fn encode(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

/// Base64 text as bytes; `None` if it is not base64.
pub(crate) fn decode(text: &str) -> Option<Bytes> {
    B64.decode(text).ok().map(Bytes::from)
}

/// The text headers of a request or response (others are dropped: MCP uses none).
pub(crate) fn text_headers(headers: &http::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
        .collect()
}

/// Headers back from their text form (invalid ones are dropped).
pub(crate) fn header_map(headers: &[(String, String)]) -> http::HeaderMap {
    let mut map = http::HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) =
            (http::HeaderName::from_bytes(name.as_bytes()), http::HeaderValue::from_str(value))
        {
            map.append(name, value);
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let frame = Frame::Request {
            tunnel: 7,
            from: "a".into(),
            method: "POST".into(),
            uri: "/mcp".into(),
            headers: vec![("mcp-session-id".into(), "x".into())],
            principal: Some("alice".into()),
            body: encode(b"\xff{}"),
        };
        let Some(Frame::Request { tunnel, body, principal, .. }) = Frame::parse(&frame.to_bytes()) else {
            panic!("not a request")
        };
        assert_eq!((tunnel, principal.as_deref()), (7, Some("alice")));
        assert_eq!(decode(&body).as_deref(), Some(&b"\xff{}"[..]));
        let event =
            Frame::Event { from: "a".into(), event: WireEvent::ResourceUpdated { uri: "a://b".into() } };
        let Some(Frame::Event { event, .. }) = Frame::parse(&event.to_bytes()) else {
            panic!("not an event")
        };
        assert_eq!(ServerEvent::from(event), ServerEvent::ResourceUpdated("a://b".into()));
        assert!(Frame::parse(b"{\"t\":\"nope\"}").is_none());
    }
}
