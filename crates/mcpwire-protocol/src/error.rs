//! JSON-RPC error objects and every error code MCP uses.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Every error code with a meaning in MCP, as constants.
pub mod codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist, is not available at this revision, or belongs to a
    /// capability the server does not advertise.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters (also: unknown tool or prompt, bad cursor, missing 2026
    /// `_meta` envelope, resource not found at 2026, tampered `requestState`).
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// SDK-local: the connection closed before the request was answered. Also written to
    /// the peer for requests still in flight when a connection shuts down.
    pub const CONNECTION_CLOSED: i64 = -32000;
    /// SDK-local: a request timed out waiting for its response. Never sent to the peer.
    pub const REQUEST_TIMEOUT: i64 = -32001;
    /// Resource not found (revisions up to 2025-11-25 only; 2026 uses `INVALID_PARAMS`).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// 2026: an HTTP header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
    /// `Mcp-Param-*`) is missing or disagrees with the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026: the server needs a client capability this request did not declare;
    /// `data.requiredCapabilities` says which.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026: the requested protocol version is not supported; `data.supported` lists
    /// the versions that are, `data.requested` echoes the one asked for.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// 2025-11-25: the request needs the user to complete a URL-mode elicitation first;
    /// `data.elicitations` lists them.
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// SDK-private (from LSP's `RequestCancelled`): ends a cancelled request's stream on
    /// the 2025-era Streamable HTTP wire, which can end a request only with a response.
    pub const REQUEST_CANCELLED: i64 = -32800;

    /// A short description of a known code, or `None`.
    pub fn describe(code: i64) -> Option<&'static str> {
        Some(match code {
            PARSE_ERROR => "Parse error",
            INVALID_REQUEST => "Invalid request",
            METHOD_NOT_FOUND => "Method not found",
            INVALID_PARAMS => "Invalid params",
            INTERNAL_ERROR => "Internal error",
            CONNECTION_CLOSED => "Connection closed",
            REQUEST_TIMEOUT => "Request timed out",
            RESOURCE_NOT_FOUND => "Resource not found",
            HEADER_MISMATCH => "Header mismatch",
            MISSING_REQUIRED_CLIENT_CAPABILITY => "Missing required client capability",
            UNSUPPORTED_PROTOCOL_VERSION => "Unsupported protocol version",
            URL_ELICITATION_REQUIRED => "URL elicitation required",
            REQUEST_CANCELLED => "Request cancelled",
            _ => return None,
        })
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code; see [`codes`].
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Additional information, shaped by the code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message and no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject { code, message: message.into(), data: None }
    }

    /// Adds `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl std::fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}
