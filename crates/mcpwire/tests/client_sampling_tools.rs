//! Tools in sampling (2025-11-25 and 2026-07-28) need the client's `sampling.tools`
//! capability: the spec says a client that did not declare it MUST return an error to a
//! `sampling/createMessage` carrying `tools` or `toolChoice`. Such a request never reaches
//! the sampling callback, in either era: a 2025 request is refused with `-32602` (as a
//! task too), a 2026 input request ends the call that led to it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod raw_server;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{expect_error, to_raw};
use mcpwire::client::{Client, ClientBuilder};
use mcpwire::protocol::sampling::CreateMessageResult;
use mcpwire::protocol::{Message, ProtocolVersion, Request, RequestId};
use mcpwire::transport::memory;
use mcpwire::RequestError;
use raw_server::{connect_2025, params_of, RawServer};
use serde_json::{json, Value};

/// A client with a sampling callback (not declaring `sampling.tools` unless `tools`),
/// and how many times the callback ran.
fn sampler(tools: bool) -> (ClientBuilder, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let builder = Client::builder("c", "1")
        .on_sampling(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
            async {
                let result = json!({ "role": "assistant", "content": { "type": "text", "text": "ok" },
                    "model": "m" });
                Ok(serde_json::from_value::<CreateMessageResult>(result).unwrap())
            }
        })
        .sampling_tools(tools);
    (builder, asked)
}

/// `sampling/createMessage` params offering a tool (`tools`), or only a `toolChoice`.
fn with_tools(field: &str) -> Value {
    let mut params = json!({ "maxTokens": 5,
        "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }] });
    let value = match field {
        "tools" => json!([{ "name": "weather", "inputSchema": { "type": "object" } }]),
        _ => json!({ "mode": "auto" }),
    };
    params[field] = value;
    params
}

/// Sends a 2025 `sampling/createMessage` with `params`; the client's answer.
async fn ask_2025(raw: &mut RawServer, id: i64, params: Value) -> Message {
    raw.send(Request::new(RequestId::Number(id), "sampling/createMessage", to_raw(params))).await;
    tokio::time::timeout(Duration::from_secs(5), raw.next()).await.expect("the client answered")
}

/// 2025: a request with `tools` or `toolChoice` is refused with `-32602` by a client that
/// did not declare `sampling.tools`, its callback not called; one that declared it answers.
#[tokio::test]
async fn a_2025_sampling_request_with_tools_is_refused_unless_declared() {
    let (builder, asked) = sampler(false);
    let (client, mut raw, init) = connect_2025(builder).await;
    assert!(init["capabilities"]["sampling"].get("tools").is_none(), "{init}");
    for (id, field) in [(1, "tools"), (2, "toolChoice")] {
        let answer = ask_2025(&mut raw, id, with_tools(field)).await;
        let error = expect_error(&answer, id);
        assert_eq!(error.code, -32602, "{field}: {error:?}");
        assert!(error.message.contains("sampling.tools"), "{field}: {error:?}");
    }
    // As a 2025-11-25 task too: refused at once, no task made for it.
    let mut task = with_tools("tools");
    task["task"] = json!({ "ttl": 60000 });
    let answer = ask_2025(&mut raw, 3, task).await;
    assert_eq!(expect_error(&answer, 3).code, -32602);
    assert_eq!(asked.load(Ordering::SeqCst), 0, "the callback was not called");
    client.close().await;

    let (builder, asked) = sampler(true);
    let (client, mut raw, init) = connect_2025(builder).await;
    assert!(init["capabilities"]["sampling"]["tools"].is_object(), "{init}");
    let answer = ask_2025(&mut raw, 1, with_tools("tools")).await;
    assert!(matches!(answer, Message::Response(_)), "{}", common::json_of(&answer));
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    client.close().await;
}

/// 2026: an `input_required` round asking for sampling with `tools` of a request that did
/// not declare `sampling.tools` ends the call with a protocol error, unasked and not
/// retried (2026 has no error answer to an input request).
#[tokio::test]
async fn a_2026_sampling_input_request_with_tools_ends_the_call_unless_declared() {
    for field in ["tools", "toolChoice"] {
        let (builder, asked) = sampler(false);
        let (ours, theirs) = memory::pair();
        let mut raw = RawServer { conn: theirs };
        let client = builder.protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();
        let server = async {
            let call = raw.next_request("tools/call").await;
            let declared = &params_of(&call)["_meta"]["io.modelcontextprotocol/clientCapabilities"];
            assert!(declared["sampling"].get("tools").is_none(), "{declared}");
            let question = json!({ "method": "sampling/createMessage", "params": with_tools(field) });
            let result = json!({ "resultType": "input_required", "inputRequests": { "q": question },
                "requestState": "s" });
            raw.answer(call.id, result).await;
            raw.next_within(Duration::from_millis(300)).await
        };
        let call = tokio::time::timeout(Duration::from_secs(5), client.call_tool("t", json!({})));
        let (called, after) = tokio::join!(call, server);
        match called.expect("the call returns") {
            Err(RequestError::Protocol(message)) => assert!(message.contains("sampling.tools"), "{message}"),
            other => panic!("{field}: {other:?}"),
        }
        let retried = after.is_some_and(|m| m.method() == Some("tools/call"));
        assert!(!retried, "{field}: the call was retried");
        assert_eq!(asked.load(Ordering::SeqCst), 0, "{field}: the callback was not called");
        client.close().await;
    }
}
