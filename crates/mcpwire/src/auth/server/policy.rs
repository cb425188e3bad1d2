//! Per-request scope policies: what the MCP messages of a request body ask for (method
//! and target), read the same way in both eras, so that a policy keyed on a tool name
//! cannot be sidestepped by speaking 2025 (whose requests name the tool only in the body).

use mcpwire_protocol::methods;
use serde::Deserialize;

/// One JSON-RPC message of a request body, as a scope policy sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpCall {
    /// `method` (for example `tools/call`); empty for a response.
    pub method: String,
    /// What it acts on, read from the member the endpoint reads for its method:
    /// `params.name` for `tools/call` and `prompts/get`, `params.uri` for `resources/read`,
    /// `resources/subscribe` and `resources/unsubscribe`; for other methods `params.name`,
    /// else `params.uri`.
    pub target: Option<String>,
}

/// Extra scopes one request needs, decided from its head and its messages, on top of the
/// layer's global ones.
pub type ScopePolicy = std::sync::Arc<dyn Fn(&http::request::Parts, &[McpCall]) -> Vec<String> + Send + Sync>;

/// The members read. A repeated one makes the body unreadable here, so that this reading
/// and the endpoint's cannot disagree about which value counts.
#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    uri: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Body {
    One(Message),
    Batch(Vec<Message>),
}

/// The messages of a body (an empty body has none); `None` when it is not one JSON-RPC
/// message or a batch of them.
pub(crate) fn calls(body: &[u8]) -> Option<Vec<McpCall>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Some(Vec::new());
    }
    let messages = match serde_json::from_slice::<Body>(body).ok()? {
        Body::One(m) => vec![m],
        Body::Batch(ms) => ms,
    };
    let call = |m: Message| {
        let method = m.method.unwrap_or_default();
        // The member the endpoint acts on: a body that also carries the other one (a
        // `resources/read` with a `name`) is judged by what it reads.
        let target = m.params.and_then(|p| match method.as_str() {
            methods::TOOLS_CALL | methods::PROMPTS_GET => p.name,
            methods::RESOURCES_READ | methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => p.uri,
            _ => p.name.or(p.uri),
        });
        McpCall { method, target }
    };
    Some(messages.into_iter().map(call).collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reads_methods_and_targets_and_refuses_ambiguity() {
        let call = |method: &str, target: Option<&str>| McpCall {
            method: method.into(),
            target: target.map(str::to_owned),
        };
        let one = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin","arguments":{"name":"x"}}}"#;
        assert_eq!(calls(one).unwrap(), [call("tools/call", Some("admin"))]);
        let batch = br#"[{"method":"resources/read","params":{"uri":"file:///a"}},{"id":1,"result":{}}]"#;
        assert_eq!(calls(batch).unwrap(), [call("resources/read", Some("file:///a")), call("", None)]);
        assert_eq!(calls(b"  ").unwrap(), []);
        // Judged by the member the endpoint reads, whatever else the params carry.
        let both = br#"{"method":"resources/read","params":{"uri":"file:///secret","name":"x"}}"#;
        assert_eq!(calls(both).unwrap(), [call("resources/read", Some("file:///secret"))]);
        let both = br#"{"method":"tools/call","params":{"uri":"file:///x","name":"admin"}}"#;
        assert_eq!(calls(both).unwrap(), [call("tools/call", Some("admin"))]);
        assert!(calls(br#"{"method":"tools/call","params":{"name":"echo","name":"admin"}}"#).is_none());
        assert!(calls(br#"{"method":"tools/call","method":"x"}"#).is_none());
        assert!(calls(b"{not json").is_none());
        assert!(calls(b"42").is_none());
    }
}
