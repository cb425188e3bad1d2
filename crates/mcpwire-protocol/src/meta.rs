//! The `_meta` object and its reserved keys.

use serde_json::{Map, Value};

/// A `_meta` object: open, every key survives a round trip.
pub type Meta = Map<String, Value>;

/// `progressToken`: opts a request in to progress notifications.
pub const PROGRESS_TOKEN: &str = "progressToken";
/// 2026 request envelope: the protocol version (required).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// 2026 request envelope: the client's capabilities for this request (required).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// 2026 request envelope: the client's identity (recommended; display only).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// 2026 request envelope: opt in to log notifications at this level or above.
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// 2026 result stamp: the server's identity.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// 2026 listen streams: the id of the `subscriptions/listen` request a frame belongs to.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// 2025-11-25 tasks: the task a message relates to (`{taskId}`).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// 2025-11-25 tasks: an optional immediate response for the model on `CreateTaskResult`.
pub const MODEL_IMMEDIATE_RESPONSE: &str = "io.modelcontextprotocol/model-immediate-response";
/// W3C trace context (exempt from the prefix rule).
pub const TRACEPARENT: &str = "traceparent";
/// W3C trace context (exempt from the prefix rule).
pub const TRACESTATE: &str = "tracestate";
/// W3C baggage (exempt from the prefix rule).
pub const BAGGAGE: &str = "baggage";

/// The identifier of the 2026 tasks extension.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether `key` is a well-formed `_meta` key: an optional prefix of dot-separated labels
/// (each starting with a letter, ending with a letter or digit, hyphens inside) followed by
/// `/`, then a name that starts and ends with an alphanumeric and may hold `-`, `_`, `.`.
pub fn is_valid_key(key: &str) -> bool {
    let (prefix, name) = match key.rfind('/') {
        Some(i) => (Some(&key[..i]), &key[i + 1..]),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() || !prefix.split('.').all(valid_label) {
            return false;
        }
    }
    valid_name(name)
}

/// Whether a prefixed key uses a prefix reserved for the specification: one whose second
/// label is `modelcontextprotocol` or `mcp` (`io.modelcontextprotocol/`, `dev.mcp/`).
pub fn is_reserved_key(key: &str) -> bool {
    key.rfind('/').is_some_and(|i| {
        let mut labels = key[..i].split('.');
        labels.next();
        matches!(labels.next(), Some("modelcontextprotocol" | "mcp"))
    })
}

fn valid_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn key_format() {
        assert!(is_valid_key(PROTOCOL_VERSION));
        assert!(is_valid_key("progressToken"));
        assert!(is_valid_key("com.example/my-key_1.x"));
        assert!(!is_valid_key("/name"));
        assert!(!is_valid_key("1abc.com/name"));
        assert!(!is_valid_key("a.b/-name"));
        assert!(!is_valid_key(""));
    }

    #[test]
    fn reserved_prefixes() {
        assert!(is_reserved_key(PROTOCOL_VERSION));
        assert!(is_reserved_key("dev.mcp/x"));
        assert!(!is_reserved_key("com.example.mcp/x"));
        assert!(!is_reserved_key("progressToken"));
    }
}
