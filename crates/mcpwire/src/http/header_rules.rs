//! The 2026 HTTP header rules: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the
//! `Mcp-Param-*` headers of tool arguments whose schema carries `x-mcp-header`, compared
//! with the body after decoding the `=?base64?...?=` form. Any disagreement is `-32020`.
//!
//! ```
//! use mcpwire::http::header_rules::{decode_value, encode_value};
//!
//! assert_eq!(encode_value("Lisbon"), "Lisbon");
//! // Not plain visible ASCII: sent in the base64 form, read back whole.
//! let encoded = encode_value("São Paulo");
//! assert!(encoded.starts_with("=?base64?"));
//! assert_eq!(decode_value(&encoded).as_deref(), Some("São Paulo"));
//! ```

use http::header::{AsHeaderName, HeaderName};
use http::HeaderMap;
use mcpwire_protocol::common::JsonObject;
use mcpwire_protocol::tool_definition::{self, ParamHeader};
use mcpwire_protocol::{methods, Request};
use serde_json::Value;

use crate::mcp_headers::decode_cow;
pub use crate::mcp_headers::{
    decode_value, encode_value, METHOD, NAME, PARAM_PREFIX, PROTOCOL_VERSION, SESSION_ID,
};

/// The header names, parsed once: a lookup by `&str` parses and validates the name on
/// every call.
static PROTOCOL_VERSION_NAME: HeaderName = HeaderName::from_static(PROTOCOL_VERSION);
static METHOD_NAME: HeaderName = HeaderName::from_static(METHOD);
static NAME_NAME: HeaderName = HeaderName::from_static(NAME);
/// [`SESSION_ID`], parsed once (read on every 2025 request of a session).
pub(crate) static SESSION_ID_NAME: HeaderName = HeaderName::from_static(SESSION_ID);

/// A header read as one value: `Ok(None)` if absent, `Err` (the `-32020` message) if
/// repeated or not text.
type Single<'a> = Result<Option<&'a str>, String>;

/// The single value of a header: `Ok(None)` if absent, `Err` if repeated or not text.
fn single<K>(headers: &HeaderMap, name: K) -> Single<'_>
where
    K: AsHeaderName + std::fmt::Display + Copy,
{
    let mut found = Found::default();
    for value in headers.get_all(name) {
        found.add(value);
    }
    found.single(name)
}

/// [`single`] of `Mcp-Method` and of `Mcp-Name`, found in one walk of the map: the walk
/// compares the names hyper has already parsed, where two lookups would hash both names
/// and probe for each.
fn method_and_name(headers: &HeaderMap) -> (Single<'_>, Single<'_>) {
    let (mut method, mut name) = (Found::default(), Found::default());
    for (key, value) in headers {
        // By text, not `HeaderName` equality: a standard name is a table entry away from
        // its text, and most names differ from both in length.
        match key.as_str() {
            METHOD => method.add(value),
            NAME => name.add(value),
            _ => {}
        }
    }
    (method.single(&METHOD_NAME), name.single(&NAME_NAME))
}

/// The values of one header seen in a walk of a map: the first, and whether it repeats.
#[derive(Default)]
struct Found<'a> {
    first: Option<&'a http::HeaderValue>,
    repeated: bool,
}

impl<'a> Found<'a> {
    fn add(&mut self, value: &'a http::HeaderValue) {
        self.repeated |= self.first.is_some();
        self.first.get_or_insert(value);
    }

    /// The one value, trimmed: `Ok(None)` if none was seen, `Err` if it repeats or is not
    /// text (`name` is the header's, for the message).
    fn single(self, name: impl std::fmt::Display) -> Single<'a> {
        let Some(first) = self.first else { return Ok(None) };
        if self.repeated {
            return Err(format!("the {name} header is repeated"));
        }
        first.to_str().map(|s| Some(s.trim())).map_err(|_| format!("the {name} header is not valid text"))
    }
}

/// The `MCP-Protocol-Version` header, trimmed.
pub fn protocol_version(headers: &HeaderMap) -> Result<Option<&str>, String> {
    single(headers, &PROTOCOL_VERSION_NAME)
}

/// The `Mcp-Session-Id` header, trimmed: `Err` (the refusal's message) if repeated or not
/// text. Two values name no one session, and a proxy in front that read the other one
/// would have checked a session the endpoint does not serve.
pub(crate) fn session_id(headers: &HeaderMap) -> Result<Option<&str>, String> {
    single(headers, &SESSION_ID_NAME)
}

/// `Last-Event-ID`, parsed once.
static LAST_EVENT_ID_NAME: HeaderName = HeaderName::from_static("last-event-id");

/// The `Last-Event-ID` header of a 2025 resumption, trimmed: `Err` (the refusal's message)
/// if repeated or not text, since it then names no one event to resume after.
pub(crate) fn last_event_id(headers: &HeaderMap) -> Result<Option<&str>, String> {
    single(headers, &LAST_EVENT_ID_NAME)
}

/// The params member a method's `Mcp-Name` header mirrors, if it has one: `name` or `uri`
/// for the core methods (streamable-http "Standard Request Headers"), and `taskId` for the
/// task methods when `tasks` (the tasks extension is served, whose SEP-2663 "Streamable
/// HTTP: Routing Headers" adds them; a server without it does not know those methods,
/// which it answers `-32601`, whatever the headers).
pub(crate) fn name_member(method: &str, tasks: bool) -> Option<&'static str> {
    match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL if tasks => Some("taskId"),
        _ => None,
    }
}

/// Checks `Mcp-Method` and `Mcp-Name` against the request body, as for a server that
/// serves the tasks extension (the task methods' `Mcp-Name` mirrors `taskId`).
pub fn check_routing(headers: &HeaderMap, request: &Request) -> Result<(), String> {
    let Some(name_key) = name_member(&request.method, true) else {
        return check_routing_name(headers, request, BodyName::Absent, true);
    };
    let params = request.parse_params::<Value>().ok();
    let member = params.as_ref().and_then(|p| p.get(name_key));
    let body_name = match member {
        None => BodyName::Absent,
        Some(Value::String(s)) => BodyName::Text(s),
        Some(_) => BodyName::NotText,
    };
    check_routing_name(headers, request, body_name, true)
}

/// The body's member that `Mcp-Name` mirrors (`name`, `uri` or `taskId` by method).
#[derive(Clone, Copy, Debug)]
pub(crate) enum BodyName<'a> {
    /// A string: the header must equal it.
    Text(&'a str),
    /// Not in the body.
    Absent,
    /// In the body, but not a string: the params are invalid, which the method itself
    /// answers (`-32602`), so a header sent is not compared with it (a missing one is
    /// still `-32020`).
    NotText,
}

/// [`check_routing`] with the body's name member already read; `tasks`: as for
/// [`name_member`].
pub(crate) fn check_routing_name(
    headers: &HeaderMap,
    request: &Request,
    body_name: BodyName<'_>,
    tasks: bool,
) -> Result<(), String> {
    let (method, name) = method_and_name(headers);
    match method? {
        None => return Err("the Mcp-Method header is required".into()),
        Some(m) if m != request.method => {
            return Err(format!(
                "the Mcp-Method header ({m:?}) does not match the body ({:?})",
                request.method
            ))
        }
        Some(_) => {}
    }
    if name_member(&request.method, tasks).is_none() {
        return Ok(());
    }
    let name = name?;
    let body_name = match body_name {
        // The header is there; the body's member is not even text, which the method
        // itself answers (`-32602`), rather than a mismatch against nothing.
        BodyName::NotText if name.is_some() => return Ok(()),
        BodyName::NotText | BodyName::Absent => "",
        BodyName::Text(name) => name,
    };
    match name {
        None => Err("the Mcp-Name header is required for this method".into()),
        Some(raw) => match decode_cow(raw) {
            Some(name) if name == body_name => Ok(()),
            Some(name) => {
                Err(format!("the Mcp-Name header ({name:?}) does not match the body ({body_name:?})"))
            }
            None => Err("the Mcp-Name header has a malformed base64 value".into()),
        },
    }
}

/// The `x-mcp-header` annotations of a tool's input schema, one per mirrored argument;
/// none when they are invalid (which
/// [`ServerBuilder::build`](crate::server::ServerBuilder::build) refuses).
pub fn param_headers(input_schema: &JsonObject) -> Vec<ParamHeader> {
    tool_definition::tool_param_headers(input_schema).unwrap_or_default()
}

/// The largest magnitude an integer argument mirrored into a header may have: 2^53 − 1,
/// JavaScript's safe integers, which the spec requires of `x-mcp-header` integers.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments: each
/// annotated argument present and non-null needs its header with an equal value
/// (integers compared numerically, and within ±(2^53 − 1)), and a header needs its
/// argument.
pub fn check_params(
    headers: &HeaderMap,
    annotated: &[ParamHeader],
    arguments: Option<&Value>,
) -> Result<(), String> {
    for annotation in annotated {
        let header = &annotation.name;
        // The argument's dotted path, written only into an error.
        let prop = || annotation.argument();
        let name = format!("{PARAM_PREFIX}{}", header.to_ascii_lowercase());
        let value = arguments.and_then(|a| annotation.value_in(a)).filter(|v| !v.is_null());
        let sent = single(headers, name.as_str())?;
        if value.and_then(Value::as_f64).is_some_and(|n| n.abs() > MAX_SAFE_INTEGER) {
            return Err(format!(
                "argument {:?} (header Mcp-Param-{header}) is outside the safe integer range ±(2^53 − 1)",
                prop()
            ));
        }
        match (value, sent) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(format!("the Mcp-Param-{header} header is required (argument {:?})", prop()))
            }
            (None, Some(_)) => {
                return Err(format!("the Mcp-Param-{header} header has no matching argument {:?}", prop()))
            }
            (Some(value), Some(raw)) => {
                let decoded =
                    decode_value(raw).ok_or_else(|| format!("the Mcp-Param-{header} header is malformed"))?;
                if !same_value(value, &decoded) {
                    return Err(format!(
                        "the Mcp-Param-{header} header does not match argument {:?}",
                        prop()
                    ));
                }
            }
        }
    }
    Ok(())
}

fn same_value(value: &Value, header: &str) -> bool {
    match value {
        Value::String(s) => s == header,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => match (n.as_i64(), header.parse::<i64>()) {
            (Some(a), Ok(b)) => a == b,
            _ => n.as_f64().zip(header.parse::<f64>().ok()).is_some_and(|(a, b)| a == b),
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use http::HeaderValue;
    use serde_json::json;

    #[test]
    fn header_values_round_trip() {
        for v in ["us-west", "a b", " lead", "trail ", "\u{65e5}\u{672c}", "", "=?base64?eA==?=", "tab\there"]
        {
            assert_eq!(decode_value(&encode_value(v)).as_deref(), Some(v), "{v}");
        }
        assert_eq!(encode_value("us-west"), "us-west");
        assert_eq!(encode_value("\u{65e5}\u{672c}"), "=?base64?5pel5pys?=");
        assert_eq!(decode_value("=?base64?!!?="), None);
    }

    /// The one walk finds what two lookups find, errors included.
    #[test]
    fn one_walk_reads_method_and_name_as_two_lookups_do() {
        let text = HeaderValue::from_static;
        let not_text = || HeaderValue::from_bytes(b"caf\xe9").unwrap();
        let cases: Vec<Vec<(&str, HeaderValue)>> = vec![
            vec![],
            vec![("content-type", text("application/json"))],
            vec![(METHOD, text(" tools/call ")), ("accept", text("*/*")), (NAME, text("echo"))],
            vec![(NAME, text("a")), (METHOD, text("tools/call")), (NAME, text("b"))],
            vec![(METHOD, text("x")), (METHOD, text("x"))],
            vec![(METHOD, not_text()), (NAME, text("n"))],
            vec![(METHOD, text("m")), (NAME, not_text()), (NAME, not_text())],
            vec![("mcp-name-other", text("z")), (PROTOCOL_VERSION, text("2026-07-28"))],
        ];
        for headers in cases {
            let mut h = HeaderMap::new();
            for (name, value) in &headers {
                h.append(*name, value.clone());
            }
            assert_eq!(
                method_and_name(&h),
                (single(&h, &METHOD_NAME), single(&h, &NAME_NAME)),
                "{headers:?}"
            );
        }
    }

    fn request(method: &str, params: Value) -> Request {
        Request::new(1, method, Some(serde_json::value::to_raw_value(&params).unwrap()))
    }

    #[test]
    fn routing_headers_must_match_the_body() {
        let r = request("tools/call", json!({ "name": "get weather" }));
        let mut h = HeaderMap::new();
        assert!(check_routing(&h, &r).is_err());
        h.insert(METHOD, HeaderValue::from_static("tools/call"));
        assert!(check_routing(&h, &r).is_err(), "Mcp-Name is required");
        h.insert(NAME, HeaderValue::from_static("=?base64?Z2V0IHdlYXRoZXI=?="));
        assert!(check_routing(&h, &r).is_ok());
        h.insert(NAME, HeaderValue::from_static(" other "));
        assert!(check_routing(&h, &r).is_err());
        h.insert(METHOD, HeaderValue::from_static("TOOLS/CALL"));
        assert!(check_routing(&h, &r).is_err(), "values are case-sensitive");
        let mut h = HeaderMap::new();
        h.insert(METHOD, HeaderValue::from_static("tools/list"));
        h.append(METHOD, HeaderValue::from_static("tools/list"));
        assert!(check_routing(&h, &request("tools/list", json!({}))).is_err(), "repeated");
    }

    #[test]
    fn param_headers_follow_x_mcp_header() {
        let schema = json!({ "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "n": { "type": "integer", "x-mcp-header": "Count" },
            "plain": { "type": "string" }
        } });
        let annotated = param_headers(schema.as_object().unwrap());
        assert_eq!(annotated.len(), 2);
        let mut h = HeaderMap::new();
        let args = json!({ "region": "eu", "n": 42, "plain": "x" });
        assert!(check_params(&h, &annotated, Some(&args)).is_err());
        h.insert("mcp-param-region", HeaderValue::from_static("eu"));
        h.insert("mcp-param-count", HeaderValue::from_static("42"));
        assert!(check_params(&h, &annotated, Some(&args)).is_ok());
        h.insert("mcp-param-count", HeaderValue::from_static("43"));
        assert!(check_params(&h, &annotated, Some(&args)).is_err());
        let no_n = json!({ "region": "eu", "n": null });
        assert!(check_params(&h, &annotated, Some(&no_n)).is_err(), "a header without its argument");
        h.remove("mcp-param-count");
        assert!(check_params(&h, &annotated, Some(&no_n)).is_ok(), "null arguments send no header");
        // Integers beyond ±(2^53 − 1) are refused, with or without their header.
        for (n, header) in [(9_007_199_254_740_991_i64, true), (-9_007_199_254_740_991, true)] {
            h.insert("mcp-param-count", HeaderValue::from_str(&n.to_string()).unwrap());
            let args = json!({ "region": "eu", "n": n });
            assert_eq!(check_params(&h, &annotated, Some(&args)).is_ok(), header, "{n}");
        }
        for n in [9_007_199_254_740_992_i64, -9_007_199_254_740_993, i64::MAX] {
            h.insert("mcp-param-count", HeaderValue::from_str(&n.to_string()).unwrap());
            let error = check_params(&h, &annotated, Some(&json!({ "region": "eu", "n": n }))).unwrap_err();
            assert!(error.contains("safe integer range"), "{n}: {error}");
        }
    }
}
