//! The 2026 request headers a client sends (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*`). Which tools' `x-mcp-header` annotations are valid is the
//! protocol crate's `tool_param_headers` (tools with invalid ones are dropped from
//! `tools/list`, in `tools.rs`).

use http::{HeaderMap, HeaderName, HeaderValue};
use mcpwire_protocol::tool_definition::ParamHeader;
use mcpwire_protocol::{meta, methods, Message};
use serde_json::Value;

use crate::mcp_headers::{encode_value, METHOD, NAME, PARAM_PREFIX, PROTOCOL_VERSION};

/// The protocol version of a 2026 message (from its `_meta` envelope).
pub(crate) fn envelope_version(message: &Message) -> Option<String> {
    let params = match message {
        Message::Request(r) => r.params.as_deref(),
        Message::Notification(n) => n.params.as_deref(),
        _ => None,
    }?;
    if !params.get().contains(meta::PROTOCOL_VERSION) {
        return None;
    }
    let value: Value = serde_json::from_str(params.get()).ok()?;
    value.get("_meta")?.get(meta::PROTOCOL_VERSION)?.as_str().map(str::to_owned)
}

fn insert(headers: &mut HeaderMap, name: &str, value: &str) {
    if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
        headers.insert(n, v);
    }
}

/// Adds the 2026 headers of `message` (of protocol version `version`); the
/// `x-mcp-header` names of the called tool come from `tool_headers`.
pub(crate) fn add_headers(
    headers: &mut HeaderMap,
    message: &Message,
    version: &str,
    tool_headers: impl Fn(&str) -> Vec<ParamHeader>,
) {
    insert(headers, PROTOCOL_VERSION, version);
    let (method, params) = match message {
        Message::Request(r) => (r.method.as_str(), r.params.as_deref()),
        Message::Notification(n) => (n.method.as_str(), n.params.as_deref()),
        _ => return,
    };
    insert(headers, METHOD, method);
    let params: Value = params.and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or(Value::Null);
    let name_key = match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => "name",
        methods::RESOURCES_READ => "uri",
        methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => "taskId",
        _ => return,
    };
    let Some(name) = params.get(name_key).and_then(Value::as_str) else { return };
    insert(headers, NAME, &encode_value(name));
    if method != methods::TOOLS_CALL {
        return;
    }
    let arguments = params.get("arguments");
    for header in tool_headers(name) {
        let value = match arguments.and_then(|a| header.value_in(a)) {
            Some(Value::String(s)) => encode_value(s),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => continue, // null or absent: no header
        };
        insert(headers, &format!("{PARAM_PREFIX}{}", header.name), &value);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn builds_the_headers_of_a_call() {
        let params = json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }, "name": "weather", "arguments": { "region": "\u{65e5}", "n": 3, "x": null, "at": { "zone": "b" } } });
        let message = Message::Request(mcpwire_protocol::Request::new(
            1,
            "tools/call",
            Some(serde_json::value::to_raw_value(&params).unwrap()),
        ));
        assert_eq!(envelope_version(&message).as_deref(), Some("2026-07-28"));
        let mut h = HeaderMap::new();
        let header = |name: &str, path: &[&str]| ParamHeader {
            name: name.into(),
            path: path.iter().map(|p| p.to_string()).collect(),
        };
        add_headers(&mut h, &message, "2026-07-28", |_| {
            vec![
                header("Region", &["region"]),
                header("N", &["n"]),
                header("X", &["x"]),
                header("Z", &["at", "zone"]),
            ]
        });
        assert_eq!(h["mcp-method"], "tools/call");
        assert_eq!(h["mcp-name"], "weather");
        assert_eq!(h["mcp-param-region"], "=?base64?5pel?=");
        assert_eq!(h["mcp-param-n"], "3");
        assert!(h.get("mcp-param-x").is_none());
        assert_eq!(h["mcp-param-z"], "b", "a nested argument");
    }
}
