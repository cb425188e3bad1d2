//! The fuzz targets of mcpwire, as plain functions: `fuzz_targets/*.rs` hand libFuzzer's
//! input to them, and `tests/replay.rs` replays the checked-in corpus plus deterministic
//! mutations through them with `cargo test`. Each function panics only on a bug: a crash
//! in the code under test, or a broken invariant checked here.

#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use mcpwire::http::header_rules as headers;
use mcpwire::http::{HttpSettings, McpService};
use mcpwire::server::uri_template::{TemplateValue, UriTemplate};
use mcpwire::transport::http_client::SseParser;
use mcpwire::transport::lines::{Line, LineReader};
use mcpwire_protocol::{codes, decode_frame, decode_message, Frame, Message};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

thread_local! {
    /// A runtime for the targets that only poll futures over in-memory input.
    static RUNTIME: RefCell<Option<tokio::runtime::Runtime>> = const { RefCell::new(None) };
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    RUNTIME.with(|cell| {
        let mut slot = cell.borrow_mut();
        let rt = slot.get_or_insert_with(|| {
            tokio::runtime::Builder::new_current_thread().build().unwrap_or_else(|e| panic!("runtime: {e}"))
        });
        rt.block_on(future)
    })
}

/// Takes bytes off the front of the input.
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    /// Up to the next `sep` (not included), or the rest.
    fn until(&mut self, sep: u8) -> &'a [u8] {
        match self.0.iter().position(|b| *b == sep) {
            Some(i) => {
                let (head, rest) = self.0.split_at(i);
                self.0 = &rest[1..];
                head
            }
            None => std::mem::take(&mut self.0),
        }
    }

    fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.0)
    }
}

// ---------------------------------------------------------------------------------------
// JSON-RPC frames and line framing

/// `decode_frame` on arbitrary bytes, and the newline framing of stdio on the same bytes.
///
/// Invariants: decoding never panics; errors are `-32700` or `-32600`; a decoded message
/// re-encodes to bytes that decode to the same encoding; the error response of a failed
/// frame is itself a decodable error message; `LineReader` splits exactly as a reference
/// splitter does, whatever the buffer size and the line limit.
pub fn frame(data: &[u8]) {
    check_frame(data);
    let mut input = Input(data);
    let capacity = usize::from(input.byte() % 16) + 1;
    let max = usize::from(input.byte()) + 1;
    let body = input.rest();
    check_lines(body, capacity, max);
    // Each line is a frame too, as the stdio transport sees it.
    for line in body.split(|b| *b == b'\n').take(64) {
        check_frame(line);
    }
}

fn check_frame(data: &[u8]) {
    match decode_frame(data) {
        Ok(Frame::Single(m)) => check_reencode(&m),
        Ok(Frame::Batch(items)) => {
            assert!(!items.is_empty(), "an empty batch must be an error");
            for item in items {
                match item {
                    Ok(m) => check_reencode(&m),
                    Err(e) => check_error(&e),
                }
            }
        }
        Err(e) => check_error(&e),
    }
    let _ = decode_message(data);
}

fn check_reencode(m: &Message) {
    let bytes = m.to_vec();
    assert!(!bytes.contains(&b'\n'), "an encoded message must fit on one line");
    let again = match decode_message(&bytes) {
        Ok(again) => again,
        Err(e) => panic!("re-encoded message does not decode ({e}): {}", String::from_utf8_lossy(&bytes)),
    };
    assert_eq!(again.to_vec(), bytes, "encoding is not stable");
}

fn check_error(e: &mcpwire_protocol::DecodeError) {
    assert!(
        e.code == codes::PARSE_ERROR || e.code == codes::INVALID_REQUEST,
        "unexpected decode error code {}",
        e.code
    );
    let response = Message::Error(e.to_response()).to_vec();
    assert!(
        matches!(decode_message(&response), Ok(Message::Error(_))),
        "the error response does not decode: {}",
        String::from_utf8_lossy(&response)
    );
}

/// What the line reader should produce: each `\n`-terminated piece (and a non-empty last
/// piece without one), with one trailing `\r` removed; pieces longer than `max` (counting
/// the `\r`) are reported by length.
fn reference_lines(data: &[u8], max: usize) -> Vec<Result<Vec<u8>, usize>> {
    let mut out = Vec::new();
    let mut pieces: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    for piece in pieces {
        if piece.len() > max {
            out.push(Err(piece.len()));
        } else {
            let line = piece.strip_suffix(b"\r").unwrap_or(piece);
            out.push(Ok(line.to_vec()));
        }
    }
    out
}

fn check_lines(data: &[u8], capacity: usize, max: usize) {
    let expected = reference_lines(data, max);
    let got = block_on(async {
        let mut reader = LineReader::new(tokio::io::BufReader::with_capacity(capacity, data), max);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            match reader.next_line(&mut buf).await {
                Ok(Some(Line::Complete)) => {
                    assert!(buf.len() <= max, "a line over the limit was returned");
                    out.push(Ok(buf.clone()));
                }
                Ok(Some(Line::TooLong(n))) => out.push(Err(n)),
                Ok(None) => break,
                Err(e) => panic!("reading from memory failed: {e}"),
            }
        }
        out
    });
    assert_eq!(got, expected, "line framing differs (capacity {capacity}, max {max})");
}

// ---------------------------------------------------------------------------------------
// Every protocol type's deserializer

/// Deserializes `data` as `T`; what deserializes must serialize, deserialize again, and
/// serialize to the same bytes.
fn round_trip<T: DeserializeOwned + Serialize>(name: &str, data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<T>(data) else { return };
    let first = match serde_json::to_vec(&value) {
        Ok(b) => b,
        Err(e) => panic!("{name}: a deserialized value does not serialize: {e}"),
    };
    let again: T = match serde_json::from_slice(&first) {
        Ok(v) => v,
        Err(e) => panic!(
            "{name}: its own serialization does not deserialize ({e}): {}",
            String::from_utf8_lossy(&first)
        ),
    };
    let second = match serde_json::to_vec(&again) {
        Ok(b) => b,
        Err(e) => panic!("{name}: a re-deserialized value does not serialize: {e}"),
    };
    assert_eq!(
        String::from_utf8_lossy(&first),
        String::from_utf8_lossy(&second),
        "{name}: serialization is not stable"
    );
}

macro_rules! types {
    ($($ty:ty),* $(,)?) => {
        /// The protocol types `protocol_types` picks from, by the input's first byte.
        pub const TYPE_NAMES: &[&str] = &[$(stringify!($ty)),*];
        const TYPE_FNS: &[fn(&[u8])] = &[$(|d| round_trip::<$ty>(stringify!($ty), d)),*];
    };
}

use mcpwire_protocol as p;
types!(
    p::RequestId,
    p::ErrorObject,
    p::ErrorResponse,
    p::Request,
    p::Notification,
    p::Response,
    p::MethodCall,
    p::ProtocolVersion,
    p::ClientCapabilities,
    p::ServerCapabilities,
    p::Implementation,
    p::InitializeRequestParams,
    p::InitializeResult,
    p::DiscoverResult,
    p::PingRequestParams,
    p::DiscoverRequestParams,
    p::ListToolsRequestParams,
    p::ListToolsResult,
    p::Tool,
    p::ToolAnnotations,
    p::CallToolRequestParams,
    p::CallToolResult,
    p::ContentBlock,
    p::TextContent,
    p::ImageContent,
    p::AudioContent,
    p::ResourceLink,
    p::EmbeddedResource,
    p::ResourceContents,
    p::SamplingContent,
    p::Annotations,
    p::Icon,
    p::ListResourcesRequestParams,
    p::ListResourcesResult,
    p::ListResourceTemplatesRequestParams,
    p::ListResourceTemplatesResult,
    p::ReadResourceRequestParams,
    p::ReadResourceResult,
    p::Resource,
    p::ResourceTemplate,
    p::SubscribeRequestParams,
    p::UnsubscribeRequestParams,
    p::ListPromptsRequestParams,
    p::ListPromptsResult,
    p::GetPromptRequestParams,
    p::GetPromptResult,
    p::Prompt,
    p::PromptMessage,
    p::CompleteRequestParams,
    p::CompleteResult,
    p::CompletionReference,
    p::SetLevelRequestParams,
    p::LoggingLevel,
    p::LoggingMessageNotificationParams,
    p::CreateMessageRequestParams,
    p::CreateMessageResult,
    p::SamplingMessage,
    p::ModelPreferences,
    p::ToolChoice,
    p::ElicitRequestParams,
    p::ElicitResult,
    p::ElicitationSchema,
    p::PrimitiveSchemaDefinition,
    p::ElicitationCompleteNotificationParams,
    p::UrlElicitationRequiredData,
    p::UnsupportedProtocolVersionData,
    p::MissingRequiredClientCapabilityData,
    p::ListRootsRequestParams,
    p::ListRootsResult,
    p::Root,
    p::ProgressNotificationParams,
    p::CancelledNotificationParams,
    p::ResourceUpdatedNotificationParams,
    p::InitializedNotificationParams,
    p::SubscriptionsListenRequestParams,
    p::SubscriptionsListenResult,
    p::SubscriptionsAcknowledgedNotificationParams,
    p::SubscriptionFilter,
    p::InputRequest,
    p::InputResponse,
    p::InputRequiredResult,
    p::InputResponseRequestParams,
    p::CallToolOutcome,
    p::ResultType,
    p::Task,
    p::TaskStatus,
    p::CreateTaskResult,
    p::GetTaskRequestParams,
    p::GetTaskResult,
    p::GetTaskPayloadRequestParams,
    p::CancelTaskRequestParams,
    p::ListTasksResult,
    p::TaskStatusNotificationParams,
    p::tasks_ext::Task,
    p::tasks_ext::DetailedTask,
    p::tasks_ext::CreateTaskResult,
    p::tasks_ext::UpdateTaskRequestParams,
    p::tasks_ext::TaskNotificationParams,
    p::CallToolRequest,
    p::InitializeRequest,
    p::CancelledNotification,
);

/// Picks a protocol type from the first byte and deserializes the rest as it.
pub fn protocol_types(data: &[u8]) {
    let Some((selector, json)) = data.split_first() else { return };
    TYPE_FNS[usize::from(*selector) % TYPE_FNS.len()](json);
}

// ---------------------------------------------------------------------------------------
// The SSE parser

/// Feeds the input to two parsers, whole and in chunks of a size taken from the input.
///
/// Invariants: no panic; no event's data is longer than the limit; when neither fails,
/// both see the same events and end with the same last event id.
pub fn sse(data: &[u8]) {
    let mut input = Input(data);
    let limit = 1 + usize::from(input.byte()) * 4;
    let chunk = 1 + usize::from(input.byte() % 32);
    let body = input.rest();
    let mut whole = SseParser::new(limit);
    let whole_events = whole.push(body);
    let mut chunked = SseParser::new(limit);
    let mut chunked_events = Ok(Vec::new());
    for piece in body.chunks(chunk) {
        match chunked.push(piece) {
            Ok(events) => {
                if let Ok(all) = &mut chunked_events {
                    all.extend(events);
                }
            }
            Err(e) => {
                chunked_events = Err(e);
                break;
            }
        }
    }
    for events in [&whole_events, &chunked_events].into_iter().flatten() {
        for event in events {
            assert!(event.data.len() <= limit, "an event's data exceeds the limit");
            assert!(!event.id.as_deref().unwrap_or("").contains('\0'), "an id with NUL was kept");
        }
    }
    if let (Ok(a), Ok(b)) = (&whole_events, &chunked_events) {
        assert_eq!(a, b, "chunking changed the events (chunk {chunk})");
        assert_eq!(whole.last_event_id(), chunked.last_event_id());
        assert_eq!(whole.retry_ms(), chunked.retry_ms());
    }
    whole.finish();
    chunked.finish();
}

// ---------------------------------------------------------------------------------------
// The Mcp-Param / Mcp-Name header codec and the x-mcp-header checks

/// The header value codec and `check_params`, on values, schemas and arguments from the
/// input.
///
/// Invariants: no panic; `encode_value` gives a valid header value that decodes to the
/// original; whatever decodes re-encodes to the same value; headers built from the
/// arguments the way a client builds them pass the server's check.
pub fn mcp_param(data: &[u8]) {
    let mut input = Input(data);
    let raw = String::from_utf8_lossy(input.until(0));
    let raw = raw.as_ref();
    if let Some(decoded) = headers::decode_value(raw) {
        assert_eq!(
            headers::decode_value(&headers::encode_value(&decoded)).as_deref(),
            Some(decoded.as_str())
        );
    }
    let encoded = headers::encode_value(raw);
    assert!(
        HeaderValue::from_str(&encoded).is_ok(),
        "encode_value gave an invalid header value: {encoded:?}"
    );
    assert_eq!(headers::decode_value(&encoded).as_deref(), Some(raw), "encode/decode of {raw:?}");

    // The rest: a JSON array [schema properties, arguments] when it parses.
    let Ok(Value::Array(parts)) = serde_json::from_slice::<Value>(input.rest()) else { return };
    let (Some(Value::Object(properties)), arguments) = (parts.first(), parts.get(1)) else { return };
    let schema = json!({ "type": "object", "properties": properties });
    let Some(schema) = schema.as_object() else { return };
    let annotated = headers::param_headers(schema);
    let mut sent = HeaderMap::new();
    let mut names = std::collections::HashSet::new();
    let mut sendable = true;
    for (header, prop) in &annotated {
        let Ok(name) = HeaderName::from_bytes(format!("mcp-param-{header}").as_bytes()) else {
            sendable = false;
            continue;
        };
        if !names.insert(name.as_str().to_owned()) {
            sendable = false;
        }
        let value = match arguments.and_then(|a| a.get(prop)) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => headers::encode_value(s),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => n.to_string(),
            Some(_) => {
                sendable = false;
                continue;
            }
        };
        match HeaderValue::from_str(&value) {
            Ok(v) => {
                sent.append(name, v);
            }
            Err(_) => panic!("a client-encoded value is not a valid header value: {value:?}"),
        }
    }
    let outcome = headers::check_params(&sent, &annotated, arguments);
    if sendable {
        if let Err(e) = outcome {
            panic!("headers built like a client's fail the server's check: {e}");
        }
    }
    // And the raw value from the input as every annotated header: no panic.
    if let Ok(v) = HeaderValue::from_str(raw) {
        let mut hostile = HeaderMap::new();
        for (header, _) in &annotated {
            if let Ok(name) = HeaderName::from_bytes(format!("mcp-param-{header}").as_bytes()) {
                hostile.append(name, v.clone());
            }
        }
        let _ = headers::check_params(&hostile, &annotated, arguments);
    }
}

// ---------------------------------------------------------------------------------------
// URI templates

/// Parses a template from the input and matches a URI from the input against it; then
/// expands it with simple values and matches the expansion.
///
/// Invariants: no panic; a parsed template prints as its source and parses to an equal
/// template; a match only names the template's variables; a URI expanded from the
/// template with non-empty alphanumeric values matches it.
pub fn uri_template(data: &[u8]) {
    let mut input = Input(data);
    let template = String::from_utf8_lossy(input.until(0)).into_owned();
    let uri = String::from_utf8_lossy(input.rest()).into_owned();
    let Ok(t) = UriTemplate::parse(&template) else { return };
    assert_eq!(t.as_str(), template);
    match UriTemplate::parse(t.as_str()) {
        Ok(again) => assert_eq!(again, t),
        Err(e) => panic!("a parsed template does not parse again: {e}"),
    }
    let variables: Vec<String> = t.variables().map(str::to_owned).collect();
    if let Some(found) = t.match_uri(&uri) {
        for key in found.keys() {
            assert!(variables.contains(key), "match gave an unknown variable {key:?}");
        }
    }
    // Values from the URI's bytes, reduced to [a-z0-9], never empty.
    let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut seed = uri.bytes();
    let mut vars = HashMap::new();
    for name in &variables {
        let len = 1 + usize::from(seed.next().unwrap_or(3) % 6);
        let value: String = (0..len)
            .map(|i| char::from(alphabet[usize::from(seed.next().unwrap_or(i as u8)) % alphabet.len()]))
            .collect();
        vars.insert(name.clone(), TemplateValue::from(value));
    }
    // Not held to it: a prefixed variable that also appears elsewhere (`{c}{c:2}`
    // expands two different values, which no match can equal); a variable both in a
    // pooled `;`/`?`/`&` expression and elsewhere (the search checks positional
    // occurrences only); and repeated or prefixed variables among adjacent expressions
    // (`}{`), where the backtracking search may run out of its budget (then: no match).
    let exprs: Vec<&str> =
        template.split('{').skip(1).filter_map(|rest| rest.split_once('}').map(|(expr, _)| expr)).collect();
    let name_of = |spec: &str| spec.split(':').next().unwrap_or(spec).trim_end_matches('*').to_owned();
    let specs: Vec<(bool, &str)> = exprs
        .iter()
        .flat_map(|expr| {
            let pooled = expr.starts_with([';', '?', '&']);
            expr.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']).split(',').map(move |v| (pooled, v))
        })
        .collect();
    let count = |name: &str| specs.iter().filter(|(_, other)| name_of(other) == name).count();
    let repeated = specs.iter().any(|(_, spec)| count(&name_of(spec)) > 1);
    let prefixed_repeat = specs.iter().any(|(_, spec)| spec.contains(':') && count(&name_of(spec)) > 1);
    let pooled_repeat = specs.iter().any(|(pooled, spec)| *pooled && count(&name_of(spec)) > 1);
    let prefixed = specs.iter().any(|(_, spec)| spec.contains(':'));
    if prefixed_repeat || pooled_repeat || ((repeated || prefixed) && template.contains("}{")) {
        return;
    }
    let expanded = t.expand(&vars);
    if t.match_uri(&expanded).is_none() {
        panic!("{template:?} does not match its own expansion {expanded:?} of {vars:?}");
    }
}

// ---------------------------------------------------------------------------------------
// The HTTP endpoint

/// A server with a bit of everything, for the endpoint target.
pub fn fixture_server() -> mcpwire::server::Server {
    use mcpwire::server::{prompt, resource, resource_template, tool, Args, Ctx};
    let built = mcpwire::server::Server::builder("fuzz", "0")
        .tool(
            tool("echo")
                .handler(|Args(a): Args<serde_json::Map<String, Value>>| Value::Object(a).to_string()),
        )
        .tool(
            tool("region")
                .input_schema(json!({ "type": "object", "properties": {
                    "region": { "type": "string", "x-mcp-header": "Region" },
                    "n": { "type": "integer", "x-mcp-header": "N" }
                } }))
                .handler(|Args(a): Args<Value>| a.to_string()),
        )
        .tool(tool("ask").handler(|ctx: Ctx| async move {
            let form = serde_json::from_value(json!({
                "message": "ok?",
                "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } } }
            }))
            .map_err(mcpwire::McpError::internal)?;
            let answer = ctx.elicit_as("ok", form).await?;
            Ok::<_, mcpwire::McpError>(format!("{answer:?}"))
        }))
        .tool(tool("progress").handler(|ctx: Ctx| async move {
            ctx.progress(1.0, Some(2.0), None).await;
            ctx.log(mcpwire_protocol::LoggingLevel::Info, "hi").await;
            "done"
        }))
        .resource(resource("test://a", "a").text("A"))
        .resource_template(
            resource_template("test://t/{id}", "t")
                .handler(|_, r| async move { r.var("id").unwrap_or_default().to_owned() }),
        )
        .prompt(prompt("p").handler(|_, _| async { Vec::<mcpwire_protocol::PromptMessage>::new() }))
        .build();
    built.unwrap_or_else(|e| panic!("fixture server: {e}"))
}

const VERSIONS: &[&str] = &["", "2025-11-25", "2025-06-18", "2025-03-26", "2026-07-28", "2099-01-01"];

/// Bodies the fuzzer can refer to by number, so it reaches past the JSON parser.
const BODIES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}"#,
    r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"t"}}}"#,
    r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask"}}"#,
    r#"{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"test://t/x"}}"#,
    r#"[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}]"#,
    r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"region","arguments":{"region":"eu","n":3},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#,
    r#"{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"ask","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#,
    r#"{"jsonrpc":"2.0","id":11,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    r#"{"jsonrpc":"2.0","id":12,"result":{}}"#,
];

/// Adds the 2026 routing headers a client would send for `body`, best effort.
fn routing_headers(builder: http::request::Builder, body: &[u8]) -> http::request::Builder {
    let Ok(value) = serde_json::from_slice::<Value>(body) else { return builder };
    let mut builder = builder;
    let method = value.get("method").and_then(Value::as_str).unwrap_or_default();
    builder =
        builder.header("mcp-method", HeaderValue::from_str(method).unwrap_or(HeaderValue::from_static("x")));
    let params = value.get("params");
    let name = params.and_then(|p| p.get("name").or_else(|| p.get("uri"))).and_then(Value::as_str);
    if let Some(name) = name {
        builder = builder.header("mcp-name", headers::encode_value(name));
    }
    if let Some(args) = params.and_then(|p| p.get("arguments")).and_then(Value::as_object) {
        for (key, header) in [("region", "mcp-param-region"), ("n", "mcp-param-n")] {
            match args.get(key) {
                Some(Value::String(s)) => builder = builder.header(header, headers::encode_value(s)),
                Some(Value::Number(n)) => builder = builder.header(header, n.to_string()),
                Some(Value::Bool(b)) => builder = builder.header(header, b.to_string()),
                _ => {}
            }
        }
    }
    builder
}

/// Drives `McpService::handle` with up to eight requests built from the input (separated
/// by `0xFF`), in one service, so that a session opened by one can be used by the next.
///
/// Each request: a method byte; a flags byte (bit 0 a foreign Host, 1 an Origin, 2 no
/// Content-Type, 3-4 the Accept list, 5 a session id, 6 a canned body, 7 raw headers); a
/// version byte (low bits pick the `MCP-Protocol-Version`, the high bit drops the 2026
/// routing headers); then, with bit 7, `name: value` lines up to a blank line; then the
/// body (with bit 6, its first byte picks a canned body).
///
/// Invariants: no panic; every response comes (time is virtual, so "never" shows as a
/// panic here); a JSON body is a JSON-RPC message; no 5xx but 503 (session table full).
pub fn http_endpoint(data: &[u8]) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    rt.block_on(async {
        let settings = HttpSettings {
            max_body_bytes: 64 * 1024,
            max_sessions: 4,
            session_idle_timeout: Duration::from_secs(60),
            stream_queue: 8,
            session_queue: 8,
            ..HttpSettings::default()
        };
        let service = McpService::with_settings(fixture_server(), settings);
        let mut session: Option<String> = None;
        for chunk in data.split(|b| *b == 0xFF).take(8) {
            let request = build_request(chunk, session.as_deref());
            let response = match tokio::time::timeout(Duration::from_secs(600), service.handle(request)).await
            {
                Ok(r) => r,
                Err(_) => panic!("the endpoint never answered"),
            };
            let status = response.status();
            assert!(
                !status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE,
                "server error {status}"
            );
            if let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
                session = Some(id.to_owned());
            }
            let is_json = response
                .headers()
                .get("content-type")
                .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
            // Read the body for a while: an SSE stream may stay open (listen, GET).
            let mut body = response.into_body();
            let mut bytes = Vec::new();
            let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
            loop {
                match tokio::time::timeout_at(deadline, body.frame()).await {
                    Ok(Some(Ok(frame))) => {
                        if let Ok(data) = frame.into_data() {
                            bytes.extend_from_slice(&data);
                        }
                    }
                    Ok(Some(Err(e))) => match e {},
                    Ok(None) | Err(_) => break,
                }
            }
            if is_json && !bytes.is_empty() {
                assert!(
                    decode_frame(&bytes).is_ok(),
                    "a JSON body that is not JSON-RPC: {}",
                    String::from_utf8_lossy(&bytes)
                );
            }
        }
        service.close_sessions();
    });
}

fn build_request(chunk: &[u8], session: Option<&str>) -> Request<Full<Bytes>> {
    let mut input = Input(chunk);
    let method = match input.byte() % 8 {
        0..=4 => Method::POST,
        5 => Method::GET,
        6 => Method::DELETE,
        _ => Method::PUT,
    };
    let flags = input.byte();
    let version_byte = input.byte();
    let version = VERSIONS[usize::from(version_byte & 0x7f) % VERSIONS.len()];
    let mut builder = Request::builder().method(method).uri("/mcp");
    builder = builder.header("host", if flags & 1 == 0 { "localhost:3000" } else { "evil.example" });
    if flags & 2 != 0 {
        builder = builder
            .header("origin", if flags & 1 == 0 { "http://localhost:5173" } else { "http://evil.example" });
    }
    if flags & 4 == 0 {
        builder = builder.header("content-type", "application/json");
    }
    builder = builder.header(
        "accept",
        match (flags >> 3) & 3 {
            0 => "application/json, text/event-stream",
            1 => "application/json",
            2 => "text/event-stream",
            _ => "*/*",
        },
    );
    if !version.is_empty() {
        builder = builder.header("mcp-protocol-version", version);
    }
    if flags & 0x20 != 0 {
        builder = builder.header("mcp-session-id", session.unwrap_or("0123456789abcdef0123456789abcdef"));
    }
    if flags & 0x80 != 0 {
        // Raw header lines from the input, up to a blank line.
        loop {
            let line = input.until(b'\n');
            if line.is_empty() {
                break;
            }
            let Some(colon) = line.iter().position(|b| *b == b':') else { continue };
            if let (Ok(name), Ok(value)) =
                (HeaderName::from_bytes(&line[..colon]), HeaderValue::from_bytes(&line[colon + 1..]))
            {
                builder = builder.header(name, value);
            }
        }
    }
    let rest = input.rest();
    let body: Vec<u8> = if flags & 0x40 != 0 {
        let n = rest.first().copied().unwrap_or(0);
        BODIES[usize::from(n) % BODIES.len()].as_bytes().to_vec()
    } else {
        rest.to_vec()
    };
    if flags & 0x40 != 0 || version_byte & 0x80 == 0 {
        builder = routing_headers(builder, &body);
    }
    builder.body(Full::new(Bytes::from(body))).unwrap_or_else(|e| panic!("request: {e}"))
}
