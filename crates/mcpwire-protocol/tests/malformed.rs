//! Malformed input gives a typed error, never a panic: wrong types, missing members, null
//! ids, truncated text, deep nesting, a 100 MB string, and ~20,000 random and mutated
//! inputs through `decode_frame` and the main types' parsers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

mod common;

use common::{mutate, Rng};
use mcpwire_protocol::jsonrpc::{ErrorResponse, Frame, MethodCall};
use mcpwire_protocol::{tasks_ext, *};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::error::Category;
use serde_json::{json, Value};

/// Parses `bytes` as `T`; when that succeeds, the value must serialize and parse again
/// (a parsed value is always writable). Errors are returned for the caller to inspect.
fn parse_stable<T: Serialize + DeserializeOwned>(bytes: &[u8]) -> Result<(), serde_json::Error> {
    let value: T = serde_json::from_slice(bytes)?;
    let again = serde_json::to_vec(&value).expect("a parsed value serializes");
    let _: T = serde_json::from_slice(&again).expect("a serialized value parses again");
    Ok(())
}

type Parser = fn(&[u8]) -> Result<(), serde_json::Error>;

macro_rules! parsers {
    ($($ty:ty),* $(,)?) => {
        &[$((stringify!($ty), parse_stable::<$ty> as Parser)),*]
    };
}

/// The main types, as parsers.
const PARSERS: &[(&str, Parser)] = parsers![
    CallToolRequestParams,
    CallToolResult,
    CallToolOutcome,
    ListToolsResult,
    Tool,
    ContentBlock,
    SamplingContent,
    SamplingMessage,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    PrimitiveSchemaDefinition,
    InputRequiredResult,
    InputRequests,
    InputResponses,
    ClientCapabilities,
    ServerCapabilities,
    InitializeRequestParams,
    InitializeResult,
    DiscoverResult,
    ReadResourceResult,
    GetPromptResult,
    CompleteRequestParams,
    ProgressNotificationParams,
    CancelledNotificationParams,
    LoggingMessageNotificationParams,
    SubscriptionsListenRequestParams,
    GetTaskResult,
    tasks_ext::DetailedTask,
    tasks_ext::CreateTaskResult,
    Request<CallToolRequestParams>,
    Response<CallToolOutcome>,
    MethodCall<ElicitRequestParams>,
    ErrorResponse,
];

/// An error is an error: a syntax, data or end-of-input error with a message (never I/O,
/// which reading from memory cannot produce).
fn assert_is_error(e: &serde_json::Error, what: &str) {
    assert!(matches!(e.classify(), Category::Syntax | Category::Data | Category::Eof), "{what}: {e}");
    assert!(!e.to_string().is_empty(), "{what}: empty message");
}

fn assert_decode_error(e: &DecodeError, what: &str) {
    assert!(e.code == codes::PARSE_ERROR || e.code == codes::INVALID_REQUEST, "{what}: code {}", e.code);
    assert!(!e.message.is_empty(), "{what}: empty message");
}

fn must_fail<T: DeserializeOwned>(input: Value) {
    match serde_json::from_value::<T>(input.clone()) {
        Ok(_) => panic!("{} accepted {input}", std::any::type_name::<T>()),
        Err(e) => assert_is_error(&e, &input.to_string()),
    }
    // Same through the text path.
    let text = serde_json::to_vec(&input).unwrap();
    assert!(
        serde_json::from_slice::<T>(&text).is_err(),
        "{} accepted text {input}",
        std::any::type_name::<T>()
    );
}

#[test]
fn wrong_types_are_errors() {
    must_fail::<CallToolRequestParams>(json!({"name": 5}));
    must_fail::<CallToolRequestParams>(json!({"name": "x", "arguments": "not an object"}));
    must_fail::<CallToolRequestParams>(json!({"name": "x", "arguments": [1]}));
    must_fail::<CallToolRequestParams>(json!({"name": "x", "_meta": []}));
    must_fail::<CallToolRequestParams>(json!({"name": "x", "inputResponses": {"k": 1}}));
    must_fail::<CallToolResult>(json!({"content": "x"}));
    must_fail::<CallToolResult>(json!({"content": [], "isError": "yes"}));
    must_fail::<CallToolResult>(json!({"content": [{"type": "video"}]}));
    must_fail::<CallToolResult>(json!({"content": [], "resultType": 1}));
    must_fail::<ListToolsResult>(json!({"tools": {}}));
    // Cache hints of an odd shape do not cost the result they came with: a `ttlMs` that
    // is not a number is no hint (stale at once), an unknown `cacheScope` reads as private.
    for hints in [json!({"ttlMs": "1"}), json!({"ttlMs": {}}), json!({"cacheScope": "shared"})] {
        let mut page = json!({"tools": []});
        page.as_object_mut().unwrap().extend(hints.as_object().unwrap().clone());
        let read: ListToolsResult = serde_json::from_value(page).unwrap();
        assert_eq!(read.ttl_ms, None, "{hints}");
    }
    must_fail::<Tool>(json!({"name": "t", "inputSchema": []}));
    must_fail::<Tool>(json!({"name": "t", "inputSchema": {}, "annotations": {"readOnlyHint": "no"}}));
    must_fail::<ContentBlock>(json!({"type": 5}));
    must_fail::<ContentBlock>(json!({"type": "image", "data": "x"}));
    must_fail::<ContentBlock>(json!({"type": "resource", "resource": {"uri": "a:b"}}));
    must_fail::<ContentBlock>(json!([{"type": "text", "text": "x"}]));
    must_fail::<ProgressNotificationParams>(json!({"progressToken": "t", "progress": "50"}));
    must_fail::<ProgressNotificationParams>(json!({"progressToken": null, "progress": 1}));
    must_fail::<ProgressNotificationParams>(json!({"progressToken": 1.5, "progress": 1}));
    must_fail::<CancelledNotificationParams>(json!({"requestId": {}}));
    must_fail::<LoggingMessageNotificationParams>(json!({"level": "verbose", "data": 1}));
    must_fail::<SetLevelRequestParams>(json!({"level": 3}));
    must_fail::<ElicitResult>(json!({"action": "ok"}));
    must_fail::<ElicitResult>(json!({"action": "accept", "content": {"a": {"nested": true}}}));
    must_fail::<ElicitRequestParams>(json!({"mode": "voice", "message": "m"}));
    must_fail::<ElicitRequestParams>(json!({"mode": "url", "message": "m"}));
    must_fail::<PrimitiveSchemaDefinition>(json!({"type": "object", "properties": {}}));
    must_fail::<SamplingMessage>(json!({"role": "system", "content": {"type": "text", "text": "x"}}));
    must_fail::<SamplingMessage>(json!({"role": "user", "content": "x"}));
    must_fail::<CreateMessageRequestParams>(json!({"messages": [], "maxTokens": -1}));
    must_fail::<CreateMessageRequestParams>(
        json!({"messages": [], "maxTokens": 1, "toolChoice": {"mode": "any"}}),
    );
    must_fail::<ClientCapabilities>(json!({"roots": true}));
    must_fail::<ClientCapabilities>(json!({"extensions": []}));
    must_fail::<ServerCapabilities>(json!({"tools": {"listChanged": "yes"}}));
    must_fail::<InitializeRequestParams>(
        json!({"protocolVersion": 2025, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
    );
    must_fail::<ReadResourceResult>(json!({"contents": [{"uri": "a:b"}]}));
    must_fail::<InputRequiredResult>(json!({"resultType": "input_required", "inputRequests": []}));
    must_fail::<InputRequests>(json!({"k": {"method": "sampling/createMessage", "params": {"messages": 1}}}));
    must_fail::<InputResponses>(json!({"k": {"action": "accept", "content": 1}}));
    must_fail::<tasks_ext::DetailedTask>(
        json!({"taskId": "t", "status": "paused", "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 1}),
    );
    must_fail::<GetTaskResult>(
        json!({"taskId": "t", "status": "working", "createdAt": "a", "lastUpdatedAt": "b", "ttl": "forever"}),
    );
    must_fail::<Request<CallToolRequestParams>>(
        json!({"jsonrpc": "2.0", "id": null, "method": "tools/call", "params": {"name": "x"}}),
    );
    must_fail::<Request<CallToolRequestParams>>(
        json!({"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}),
    );
    must_fail::<Response<CallToolResult>>(json!({"jsonrpc": "2.0", "id": true, "result": {"content": []}}));
    must_fail::<CallToolOutcome>(json!({"resultType": "task", "taskId": "t"}));
    must_fail::<CallToolOutcome>(json!("complete"));
    must_fail::<ErrorObject>(json!({"code": "x", "message": "m"}));
    must_fail::<ErrorObject>(json!({"code": 1.5, "message": "m"}));
}

#[test]
fn missing_required_members_are_errors() {
    let empty = json!({});
    must_fail::<CallToolRequestParams>(empty.clone());
    must_fail::<CallToolResult>(empty.clone());
    must_fail::<ListToolsResult>(empty.clone());
    must_fail::<Tool>(json!({"name": "t"}));
    must_fail::<Tool>(json!({"inputSchema": {}}));
    must_fail::<TextContent>(json!({"type": "text"}));
    must_fail::<ImageContent>(json!({"type": "image", "mimeType": "image/png"}));
    must_fail::<ResourceLink>(json!({"type": "resource_link", "uri": "a:b"}));
    must_fail::<ToolUseContent>(json!({"type": "tool_use", "id": "i", "name": "n"}));
    must_fail::<ToolResultContent>(json!({"type": "tool_result", "content": []}));
    must_fail::<ProgressNotificationParams>(json!({"progressToken": "t"}));
    must_fail::<LoggingMessageNotificationParams>(json!({"level": "info"}));
    must_fail::<InitializeRequestParams>(json!({"protocolVersion": "2025-11-25", "capabilities": {}}));
    must_fail::<InitializeResult>(json!({"protocolVersion": "2025-11-25", "capabilities": {}}));
    must_fail::<DiscoverResult>(json!({"resultType": "complete", "capabilities": {}}));
    must_fail::<ReadResourceRequestParams>(empty.clone());
    must_fail::<ReadResourceResult>(empty.clone());
    must_fail::<GetPromptRequestParams>(empty.clone());
    must_fail::<GetPromptResult>(empty.clone());
    must_fail::<PromptMessage>(json!({"role": "user"}));
    must_fail::<CompleteRequestParams>(json!({"ref": {"type": "ref/prompt", "name": "p"}}));
    must_fail::<CompleteRequestParams>(
        json!({"ref": {"type": "ref/prompt"}, "argument": {"name": "a", "value": ""}}),
    );
    must_fail::<CompleteResult>(json!({"completion": {}}));
    must_fail::<CreateMessageRequestParams>(json!({"messages": []}));
    must_fail::<CreateMessageResult>(json!({"role": "assistant", "content": {"type": "text", "text": "x"}}));
    must_fail::<ElicitRequestParams>(json!({"message": "m"}));
    must_fail::<ElicitRequestFormParams>(json!({"requestedSchema": {"type": "object", "properties": {}}}));
    must_fail::<ElicitResult>(empty.clone());
    must_fail::<ListRootsResult>(empty.clone());
    must_fail::<Root>(json!({"name": "n"}));
    must_fail::<ResourceUpdatedNotificationParams>(empty.clone());
    must_fail::<SubscriptionsListenRequestParams>(empty.clone());
    must_fail::<SubscriptionsListenResult>(json!({"resultType": "complete"}));
    must_fail::<SubscriptionsAcknowledgedNotificationParams>(empty.clone());
    must_fail::<tasks_ext::DetailedTask>(
        json!({"taskId": "t", "status": "failed", "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 1}),
    );
    must_fail::<tasks_ext::UpdateTaskRequestParams>(json!({"taskId": "t"}));
    must_fail::<CreateTaskResult>(empty.clone());
    must_fail::<ListTasksResult>(empty.clone());
    must_fail::<Response<CallToolResult>>(json!({"jsonrpc": "2.0", "result": {"content": []}}));
    must_fail::<Notification<ProgressNotificationParams>>(json!({"jsonrpc": "2.0"}));
    must_fail::<ErrorObject>(json!({"code": 1}));
}

#[test]
fn a_null_id_is_an_invalid_request() {
    for frame in [
        r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
    ] {
        let err = decode_message(frame.as_bytes()).map(|_| ()).unwrap_err();
        assert_eq!(err.code, codes::INVALID_REQUEST, "{frame}: {}", err.message);
        assert_eq!(err.id, None);
    }
}

fn example_texts() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spec/2026-07-28/examples");
    let mut out = Vec::new();
    for folder in std::fs::read_dir(&dir).unwrap() {
        let folder = folder.unwrap().path();
        for file in std::fs::read_dir(&folder).unwrap() {
            let path = file.unwrap().path();
            let value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let name = path.strip_prefix(&dir).unwrap().to_string_lossy().into_owned();
            out.push((name, serde_json::to_vec(&value).unwrap()));
        }
    }
    out.sort();
    out
}

/// Every proper prefix of every example (compact form) is a parse error for the frame
/// decoder and an error for every main type.
#[test]
fn truncated_json_is_an_error_everywhere() {
    let mut count = 0;
    for (name, text) in example_texts() {
        for cut in 0..text.len() {
            let prefix = &text[..cut];
            let what = format!("{name}[..{cut}]");
            let err = decode_frame(prefix).map(|_| ()).unwrap_err();
            assert_eq!(err.code, codes::PARSE_ERROR, "{what}");
            for (ty, parse) in PARSERS {
                let e = parse(prefix).unwrap_err();
                assert_is_error(&e, &format!("{what} as {ty}"));
            }
            count += 1;
        }
    }
    assert!(count > 20_000, "{count} prefixes");
}

fn nest(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// 100k-deep nesting anywhere fails cleanly (serde_json's depth limit), or is captured
/// raw without recursion where a member is kept raw (`arguments`, envelope params).
#[test]
fn deep_nesting_never_overflows() {
    let deep = nest(100_000);
    let unclosed = "[".repeat(100_000);

    // Raw members skip nesting without recursion...
    let p: CallToolRequestParams =
        serde_json::from_str(&format!(r#"{{"name":"x","arguments":{{"a":{deep}}}}}"#)).unwrap();
    // ...and parsing them fails cleanly.
    assert_is_error(&p.arguments::<Value>().unwrap_err(), "deep arguments");

    for (ty, parse) in PARSERS {
        for doc in [
            deep.clone(),
            format!(r#"{{"content":[],"structuredContent":{deep}}}"#),
            format!(r#"{{"name":"x","arguments":{{"a":{deep}}},"_meta":{{"k":{deep}}}}}"#),
            format!(r#"{{"type":"text","text":"x","_meta":{{"k":{deep}}}}}"#),
            format!(r#"{{"experimental":{{"x":{deep}}},"future":{deep}}}"#),
            format!(
                r#"{{"resultType":"input_required","inputRequests":{{"k":{{"method":"x","params":{deep}}}}}}}"#
            ),
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":{deep}}}]}}}}"#),
            unclosed.clone(),
        ] {
            if let Err(e) = parse(doc.as_bytes()) {
                assert_is_error(&e, ty);
            }
        }
    }
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{deep}}}}}"#
    );
    let Ok(Frame::Single(Message::Request(r))) = decode_frame(frame.as_bytes()) else {
        panic!("should route")
    };
    let err = r.parse_params::<CallToolRequestParams>().unwrap_err();
    assert_is_error(&err, "arguments that are an array");
    // A deep array is a batch whose one element is not an object.
    match decode_frame(deep.as_bytes()) {
        Ok(Frame::Batch(items)) => {
            assert!(items.iter().all(|i| i.as_ref().is_err_and(|e| e.code == codes::INVALID_REQUEST)));
        }
        Ok(Frame::Single(_)) => panic!("a deep array is not a message"),
        Err(e) => assert_decode_error(&e, "deep batch"),
    }
    assert_decode_error(&decode_frame(unclosed.as_bytes()).map(|_| ()).unwrap_err(), "unclosed");
}

/// A 100 MB string value parses where a string belongs and is an error where it does not.
#[test]
fn a_100_mb_string_is_handled() {
    const SIZE: usize = 100 * 1024 * 1024;
    let mut frame = Vec::with_capacity(SIZE + 128);
    frame.extend_from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":""#);
    let start = frame.len();
    frame.resize(start + SIZE, b'a');
    frame.extend_from_slice(br#""}}"#);

    let Ok(Frame::Single(Message::Request(request))) = decode_frame(&frame) else { panic!("should decode") };
    let params: CallToolRequestParams = request.parse_params().unwrap();
    assert_eq!(params.name.len(), SIZE);
    drop(params);
    drop(request);

    // The same string where an object or a number belongs.
    let body = &frame[start - 1..start + SIZE + 1]; // the quoted string
    let mut doc = br#"{"progressToken":"t","progress":"#.to_vec();
    doc.extend_from_slice(body);
    doc.push(b'}');
    assert_is_error(&serde_json::from_slice::<ProgressNotificationParams>(&doc).unwrap_err(), "progress");
    let mut doc = br#"{"name":"x","arguments":"#.to_vec();
    doc.extend_from_slice(body);
    doc.push(b'}');
    let err = serde_json::from_slice::<CallToolRequestParams>(&doc).unwrap_err();
    assert_is_error(&err, "arguments");
    assert!(err.to_string().len() < 1000, "the error must not echo the value");
    let mut doc = br#"{"type":"text","text":"#.to_vec();
    doc.extend_from_slice(body);
    doc.push(b'}');
    let block: ContentBlock = serde_json::from_slice(&doc).unwrap();
    assert_eq!(block.as_text().map(str::len), Some(SIZE));
}

const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"\"",
    b"\\",
    b"null",
    b"true",
    b"false",
    b"0",
    b"-0",
    b"1e999",
    b"-1",
    b"1.5",
    b"18446744073709551616",
    b"\"\\ud800\"",
    b"\"\\u0000\"",
    b"{}",
    b"[]",
    b"\"type\"",
    b"\"text\"",
    b"\"resultType\"",
    b"\"input_required\"",
    b"\"task\"",
    b"\"method\"",
    b"\"id\"",
    b"\"jsonrpc\"",
    b"\"2.0\"",
    b"\"mode\"",
    b"\"url\"",
    b"\"status\"",
    b"\"_meta\"",
    b"\xff",
    b"\xc3",
    b" ",
    b"\n",
];

fn random_bytes(rng: &mut Rng, json_like: bool) -> Vec<u8> {
    let len = rng.below(256);
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        if json_like {
            out.extend_from_slice(TOKENS[rng.below(TOKENS.len())]);
        } else {
            out.push((rng.next() & 0xff) as u8);
        }
    }
    out
}

/// ~20,000 random and mutated inputs through the frame decoder and every main parser:
/// nothing panics, and every error is a proper error.
#[test]
fn fuzz_never_panics() {
    let mut seeds: Vec<Vec<u8>> = example_texts().into_iter().map(|(_, t)| t).collect();
    seeds.extend(
        [
            json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "task", "taskId": "t", "status": "working",
                "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": null}}),
            json!({"taskId": "t", "status": "input_required", "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 5,
                "inputRequests": {"k": {"method": "roots/list"}}}),
            json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/initialized"}]),
            json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}),
        ]
        .iter()
        .map(|v| serde_json::to_vec(v).unwrap()),
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut decoded, mut typed) = (0usize, 0usize);
    for i in 0..20_000 {
        let input = match i % 10 {
            0 => random_bytes(&mut rng, false),
            1 => random_bytes(&mut rng, true),
            2 => seeds[rng.below(seeds.len())].clone(),
            _ => {
                let seed = &seeds[rng.below(seeds.len())];
                mutate(&mut rng, seed, TOKENS)
            }
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut ok = (0, 0);
            match decode_frame(&input) {
                Ok(Frame::Single(message)) => {
                    ok.0 += 1;
                    // A decoded message writes out and decodes again.
                    decode_message(&message.to_vec()).unwrap();
                }
                Ok(Frame::Batch(items)) => {
                    ok.0 += 1;
                    for item in items {
                        if let Err(e) = item {
                            assert_decode_error(&e, "batch item");
                        }
                    }
                }
                Err(e) => assert_decode_error(&e, "frame"),
            }
            for (ty, parse) in PARSERS {
                match parse(&input) {
                    Ok(()) => ok.1 += 1,
                    Err(e) => assert_is_error(&e, ty),
                }
            }
            ok
        }));
        match outcome {
            Ok((d, t)) => {
                decoded += d;
                typed += t;
            }
            Err(_) => panic!("input #{i} panicked: {:?}", String::from_utf8_lossy(&input)),
        }
    }
    // The mutations keep enough inputs valid to exercise the success paths too.
    eprintln!("{decoded} frames decoded, {typed} typed parses succeeded");
    assert!(decoded > 500, "only {decoded} frames decoded");
    assert!(typed > 2_000, "only {typed} typed parses succeeded");
}
