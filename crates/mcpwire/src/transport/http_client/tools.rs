//! What the transport learns from answers as they pass: the negotiated version, and the
//! `x-mcp-header` annotations of the tool list (re-fetched on a 2026 `-32020`).

use std::sync::atomic::Ordering;

use http::Method;
use mcpwire_protocol::{decode_frame, meta, methods, tool_definition, Frame, Message, RequestId};
use serde_json::Value;

use super::body::read_limited;
use super::{lock, stateless, Pending, Shared};

/// Most pages of `tools/list` one re-fetch after a `-32020` reads.
const MAX_REFRESH_PAGES: usize = 50;

impl Shared {
    /// Learns from answers as they pass: the negotiated version of `initialize`, and the
    /// `x-mcp-header` annotations of `tools/list` (dropping tools whose annotations are
    /// invalid, with a warning).
    pub(super) fn inspect(&self, message: Message) -> Message {
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
            methods::TOOLS_LIST if pending.stateless => {
                if let Ok(mut v) = serde_json::from_str::<Value>(response.result.get()) {
                    if let Some(Value::Array(tools)) = v.get_mut("tools") {
                        let mut table = lock(&self.tool_headers);
                        tools.retain(|tool| {
                            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
                            let schema = tool.get("inputSchema").and_then(Value::as_object);
                            match schema.map_or(Ok(Vec::new()), tool_definition::tool_param_headers) {
                                Ok(headers) => {
                                    table.insert(name, headers);
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

    /// Fetches `tools/list` (2026) to learn fresh `x-mcp-header` annotations: page after
    /// page, until the page that lists the called tool (or the last page, or
    /// [`MAX_REFRESH_PAGES`]), as the tool may be listed on any page.
    pub(super) async fn refresh_tools(&self, call: &Message) {
        let Some(version) = stateless::envelope_version(call) else { return };
        let Message::Request(r) = call else { return };
        let params = r.parse_params::<Value>().unwrap_or(Value::Null);
        let meta = list_meta(params.get("_meta"));
        let called = params.get("name").and_then(Value::as_str);
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_REFRESH_PAGES {
            let mut params = serde_json::json!({ "_meta": meta });
            if let Some(c) = cursor.take() {
                params["cursor"] = Value::String(c);
            }
            let id = RequestId::String(format!(
                "mcpwire-tools-{}",
                self.internal_ids.fetch_add(1, Ordering::Relaxed)
            ));
            let list = Message::Request(mcpwire_protocol::Request::new(
                id.clone(),
                methods::TOOLS_LIST,
                serde_json::value::to_raw_value(&params).ok(),
            ));
            let headers = self.message_headers(&list, Some(&version));
            let Some(request) = self.build(Method::POST, self.url.clone(), Some(list.to_vec()), headers)
            else {
                return;
            };
            let Ok(response) = self.send(request).await else { return };
            let body = read_limited(response.into_body(), self.max_message_bytes).await.unwrap_or_default();
            let Ok(Frame::Single(Message::Response(resp))) = decode_frame(&body) else { return };
            let page: Value = serde_json::from_str(resp.result.get()).unwrap_or(Value::Null);
            let lists_called = page
                .get("tools")
                .and_then(Value::as_array)
                .is_some_and(|tools| tools.iter().any(|t| t.get("name").and_then(Value::as_str) == called));
            lock(&self.pending).insert(
                id.key(),
                Pending { method: methods::TOOLS_LIST.into(), stateless: true, abort: None },
            );
            let _ = self.inspect(Message::Response(resp));
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !lists_called => cursor = Some(next.to_owned()),
                _ => return,
            }
        }
    }
}

/// The `_meta` of a re-fetch of `tools/list`, from the failed call's: the 2026 envelope a
/// request needs (protocol version, client capabilities and info), nothing else. The
/// call's progress token names the call, and its other keys were its caller's for it; no
/// `logLevel` either, as the re-fetch reads a JSON answer, not a stream of log messages.
fn list_meta(call: Option<&Value>) -> Value {
    let envelope = [meta::PROTOCOL_VERSION, meta::CLIENT_CAPABILITIES, meta::CLIENT_INFO];
    let kept = call
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(key, _)| envelope.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()));
    Value::Object(kept.collect())
}
