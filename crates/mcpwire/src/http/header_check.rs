//! The 2026 header check on the hot path: only the members of the params that the headers
//! mirror are read (found by `mcpwire_protocol::skim`, borrowed from the body), and each
//! tool's `Mcp-Param-*` headers come from the server's catalog, which derives them from
//! the schema once, when the tool is registered. The rules themselves live in
//! [`super::header_rules`].

use std::borrow::Cow;

use http::HeaderMap;
use mcpwire_protocol::{methods, skim, Request};
use serde_json::value::RawValue;
use serde_json::Value;

use super::header_rules;
use crate::server::Server;

/// A raw member as a string, or `None` when it is not one.
fn as_str(raw: Option<&str>) -> Option<Cow<'_, str>> {
    let raw = raw?;
    if !raw.starts_with('"') {
        return None;
    }
    match skim::plain_string(raw) {
        Some(plain) => Some(Cow::Borrowed(plain)),
        None => serde_json::from_str::<Cow<'_, str>>(raw).ok(),
    }
}

/// What the header check needs from the params, read in one pass.
struct BodyFacts<'a> {
    version: Option<Cow<'a, str>>,
    /// `name`, `uri` or `taskId`, by method.
    routing_name: Option<Cow<'a, str>>,
    /// That member is there but is not a string.
    routing_name_not_text: bool,
    arguments: Arguments<'a>,
}

/// The `arguments` member, decoded only for tools whose schema maps some to headers.
enum Arguments<'a> {
    Raw(Option<&'a str>),
    Decoded(Option<Value>),
}

/// The facts, from the members the headers mirror (found by [`skim`], which leaves
/// the rest of the params unread), each kept raw so that a member of an unexpected type
/// reads as absent, as a `Value` walk reads it.
fn body_facts<'a>(request: &'a Request, tasks: bool) -> BodyFacts<'a> {
    let raw = request.params.as_deref().map(RawValue::get).unwrap_or("");
    // Only an object has members.
    if !raw.trim_start().starts_with('{') {
        return BodyFacts {
            version: None,
            routing_name: None,
            routing_name_not_text: false,
            arguments: Arguments::Raw(None),
        };
    }
    let member = header_rules::name_member(&request.method, tasks);
    let version_key = [mcpwire_protocol::meta::PROTOCOL_VERSION];
    let Some(([name, arguments], meta)) =
        skim::members_within(raw, [member.unwrap_or("name"), "arguments"], "_meta", version_key)
    else {
        return body_facts_slow(request, raw, tasks);
    };
    // A `_meta` that is absent or not an object has no version.
    let version = meta.and_then(|[version]| as_str(version));
    let name_member = member.and(name);
    let routing_name = as_str(name_member);
    BodyFacts {
        version,
        routing_name_not_text: name_member.is_some() && routing_name.is_none(),
        routing_name,
        arguments: Arguments::Raw(arguments),
    }
}

/// The same facts through a `Value` tree, for objects the skim leaves undecided (a
/// repeated member, where JSON readers keep the last one; a key written with escapes).
fn body_facts_slow<'a>(request: &Request, raw: &str, tasks: bool) -> BodyFacts<'a> {
    let params: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(|s| Cow::Owned(s.to_owned()));
    let name_member = header_rules::name_member(&request.method, tasks).and_then(|k| params.get(k));
    BodyFacts {
        version: text(params.get("_meta").and_then(|m| m.get(mcpwire_protocol::meta::PROTOCOL_VERSION))),
        routing_name: text(name_member),
        routing_name_not_text: name_member.is_some_and(|v| !v.is_string()),
        arguments: Arguments::Decoded(params.get("arguments").cloned()),
    }
}

/// Checks the 2026 headers of a request against its body (`Err` is the `-32020`
/// message). `version` is the `MCP-Protocol-Version` header, as the caller read it with
/// [`header_rules::protocol_version`] (which also rejected a repeated one). The task
/// methods need `Mcp-Name` only on a server that offers the tasks extension.
pub(crate) fn check(
    server: &Server,
    headers: &HeaderMap,
    version: Option<&str>,
    request: &Request,
) -> Result<(), String> {
    let tasks = server.offers_tasks_extension();
    check_facts(server, headers, version, request, body_facts(request, tasks), tasks)
}

fn check_facts(
    server: &Server,
    headers: &HeaderMap,
    version: Option<&str>,
    request: &Request,
    facts: BodyFacts<'_>,
    tasks: bool,
) -> Result<(), String> {
    match (version, facts.version.as_deref()) {
        (None, _) => return Err("the MCP-Protocol-Version header is required".into()),
        (Some(h), Some(m)) if h != m => {
            return Err(format!("the MCP-Protocol-Version header ({h:?}) does not match _meta ({m:?})"))
        }
        _ => {}
    }
    let body_name = match (&facts.routing_name, facts.routing_name_not_text) {
        (Some(name), _) => header_rules::BodyName::Text(name),
        (None, true) => header_rules::BodyName::NotText,
        (None, false) => header_rules::BodyName::Absent,
    };
    header_rules::check_routing_name(headers, request, body_name, tasks)?;
    if let (methods::TOOLS_CALL, Some(name)) = (request.method.as_str(), facts.routing_name.as_deref()) {
        let catalog = server.catalog();
        if let Some(annotated) = catalog.param_headers(name) {
            let arguments = match facts.arguments {
                Arguments::Raw(raw) => raw.and_then(|a| serde_json::from_str::<Value>(a).ok()),
                Arguments::Decoded(value) => value,
            };
            header_rules::check_params(headers, annotated, arguments.as_ref())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use http::HeaderValue;
    use serde_json::json;

    fn request(method: &str, params: &str) -> Request {
        Request::new(1, method, Some(RawValue::from_string(params.to_owned()).unwrap()))
    }

    fn facts(method: &str, params: &str) -> (Option<String>, Option<String>, Option<Value>) {
        let request = request(method, params);
        let f = body_facts(&request, true);
        let arguments = match f.arguments {
            Arguments::Raw(raw) => raw.map(|a| serde_json::from_str(a).unwrap()),
            Arguments::Decoded(value) => value,
        };
        (f.version.map(Cow::into_owned), f.routing_name.map(Cow::into_owned), arguments)
    }

    #[test]
    fn the_probe_reads_what_a_value_walk_reads() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        assert_eq!(
            facts("tools/call", &format!(r#"{{{meta},"name":"a\u0062","arguments":{{"x":1}}}}"#)),
            (Some("2026-07-28".into()), Some("ab".into()), Some(json!({ "x": 1 })))
        );
        assert_eq!(
            facts("resources/read", r#"{"uri":"file:///x","name":"n"}"#).1.as_deref(),
            Some("file:///x")
        );
        assert_eq!(facts("tasks/get", r#"{"taskId":"t1"}"#).1.as_deref(), Some("t1"));
        assert_eq!(facts("tools/list", r#"{"name":"n"}"#).1, None, "no name member for this method");
        // Members of another type read as absent, not as a failed probe.
        assert_eq!(
            facts("tools/call", r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":7},"name":["x"]}"#),
            (None, None, None)
        );
        // A `null` name is a member that is not text, as in a `Value` walk: the method
        // answers it (`-32602`), not the header check.
        let null_name = request("tools/call", r#"{"name":null}"#);
        let f = body_facts(&null_name, true);
        assert!(f.routing_name.is_none() && f.routing_name_not_text);
        // Non-objects have no members (an array would otherwise fill the probe by position).
        assert_eq!(facts("tools/call", r#"["2026-07-28","x"]"#), (None, None, None));
        // A repeated member: the last one wins, as in a `Value`.
        assert_eq!(
            facts("tools/call", r#"{"name":"first","name":"last","arguments":{"a":1},"arguments":{"a":2}}"#),
            (None, Some("last".into()), Some(json!({ "a": 2 })))
        );
    }

    /// A server with a tool whose `region` argument maps to `Mcp-Param-Region`, and a
    /// tool without such arguments.
    fn region_and_plain() -> Server {
        Server::builder("t", "0")
            .tool(
                crate::server::tool("region")
                    .input_schema(json!({ "type": "object", "properties": {
                        "region": { "type": "string", "x-mcp-header": "Region" } } }))
                    .handler(|| "ok"),
            )
            .tool(crate::server::tool("plain").handler(|| "ok"))
            .build()
            .unwrap()
    }

    #[test]
    fn header_check_uses_the_precomputed_param_headers() {
        let server = region_and_plain();
        let catalog = server.catalog();
        assert!(catalog.param_headers("plain").is_none(), "only annotated tools have an entry");
        let body = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"region","arguments":{"region":"eu"}}"#;
        let mut h = HeaderMap::new();
        h.insert(header_rules::PROTOCOL_VERSION, HeaderValue::from_static("2026-07-28"));
        h.insert(header_rules::METHOD, HeaderValue::from_static("tools/call"));
        h.insert(header_rules::NAME, HeaderValue::from_static("region"));
        let check =
            |h: &HeaderMap, r: &Request| check(&server, h, header_rules::protocol_version(h).unwrap(), r);
        let err = check(&h, &request("tools/call", body)).unwrap_err();
        assert!(err.contains("Mcp-Param-Region header is required"), "{err}");
        h.insert("mcp-param-region", HeaderValue::from_static("eu"));
        assert_eq!(check(&h, &request("tools/call", body)), Ok(()));
        h.insert(header_rules::PROTOCOL_VERSION, HeaderValue::from_static("2025-11-25"));
        assert!(check(&h, &request("tools/call", body)).unwrap_err().contains("does not match _meta"));
    }
}
