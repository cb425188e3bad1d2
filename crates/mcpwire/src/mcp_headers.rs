//! The header vocabulary of MCP over Streamable HTTP, the one place both sides take it
//! from: the Streamable HTTP endpoint (`http`) checks these headers and the client
//! (`transport::http_client`) sends them. Their names, and the `=?base64?...?=` form of
//! a value that is not plain visible ASCII. `mcpwire::http::header_rules` re-exports them.

use std::borrow::Cow;

use base64::Engine;

/// The header carrying the protocol version.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The header carrying the method (2026).
pub const METHOD: &str = "mcp-method";
/// The header carrying the tool or prompt name or the resource URI (2026).
pub const NAME: &str = "mcp-name";
/// The prefix of the headers carrying `x-mcp-header` tool arguments (2026).
pub const PARAM_PREFIX: &str = "mcp-param-";
/// The session header (2025).
pub const SESSION_ID: &str = "mcp-session-id";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// Encodes a header value: as-is when it is safe visible ASCII without leading or trailing
/// spaces and does not look like the base64 form; otherwise `=?base64?<standard base64 of
/// the UTF-8>?=`.
pub fn encode_value(value: &str) -> String {
    let looks_encoded = value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END);
    let visible = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let safe = !value.is_empty() && visible && !padded && !looks_encoded;
    if safe {
        value.to_owned()
    } else {
        format!("{SENTINEL_START}{}{SENTINEL_END}", base64::engine::general_purpose::STANDARD.encode(value))
    }
}

/// Decodes a header value (trimmed); `None` when the base64 form is malformed.
pub fn decode_value(raw: &str) -> Option<String> {
    decode_cow(raw).map(Cow::into_owned)
}

/// [`decode_value`] borrowing the plain form (no copy on the hot path).
pub(crate) fn decode_cow(raw: &str) -> Option<Cow<'_, str>> {
    let raw = raw.trim();
    match raw.strip_prefix(SENTINEL_START).and_then(|r| r.strip_suffix(SENTINEL_END)) {
        Some(b64) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok().map(Cow::Owned)
        }
        None => Some(Cow::Borrowed(raw)),
    }
}
