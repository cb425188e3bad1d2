//! Protocol edges that were implemented but untested (the "test" gaps of
//! `docs/REQUIREMENTS.md`): one message per line on the byte-stream transport, nothing
//! after a request's response, the 2025 client's answers to a server's `ping` and
//! `roots/list`, an empty `nextCursor`, a client quiet until `initialize` is answered, and
//! a 2026 HTTP request carrying 2025 session headers. Each test drives one side by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod http_server_support;
mod mcp_http;
mod raw_http;
mod raw_server;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcpwire::client::{Client, ClientBuilder, ConnectError};
use mcpwire::error::RequestError;
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::{
    codes, ErrorObject, ErrorResponse, Message, Notification, ProtocolVersion, Request, RequestId, Response,
};
use mcpwire::server::{tool, Ctx, Server};
use mcpwire::transport::io::IoTransport;
use mcpwire::transport::{memory, Outgoing, Transport};
use raw_server::*;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::io::AsyncReadExt;
use tokio::sync::{mpsc, Notify};

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// G18, rule 3.1: a raw newline that is JSON whitespace is written as a space, so each message is one line.
#[tokio::test]
async fn raw_json_with_newlines_is_written_as_one_line_per_message() {
    // Pretty-printed raw JSON, as forwarded params or results may be: raw newlines as
    // whitespace, and an escaped one inside a string that must survive as it is.
    let value = json!({ "text": "two\nlines", "nested": { "list": [1, 2, { "deep": true }] }, "empty": {} });
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    assert!(pretty.contains('\n'), "the raw value has newlines to replace");
    let raw = || RawValue::from_string(pretty.clone()).unwrap();

    let (ours, mut theirs) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(ours);
    let conn = IoTransport::new(read, write).connect();
    let sent: Vec<Message> = vec![
        Response::new(RequestId::from(1), raw()).into(),
        Request::new(2, "tools/call", Some(raw())).into(),
        Notification::new("notifications/message", Some(raw())).into(),
    ];
    for message in sent {
        conn.outgoing.send(Outgoing::unrelated(message)).await.unwrap();
    }
    // Closing our side lets the writer finish and shut the stream down.
    drop(conn);
    let mut out = String::new();
    tokio::time::timeout(Duration::from_secs(5), theirs.read_to_string(&mut out))
        .await
        .expect("the writer did not finish")
        .unwrap();

    assert!(out.ends_with('\n'), "every message ends with a newline: {out:?}");
    let lines: Vec<&str> = out.split_terminator('\n').collect();
    assert_eq!(lines.len(), 3, "one line per message: {out:?}");
    let parsed: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        parsed,
        vec![
            json!({ "jsonrpc": "2.0", "id": 1, "result": value }),
            json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": value }),
            json!({ "jsonrpc": "2.0", "method": "notifications/message", "params": value }),
        ]
    );
}

/// G27, rule 5.10: progress and log messages a handler's spawned task sends after the response are dropped.
#[tokio::test]
async fn nothing_for_a_request_is_sent_after_its_response() {
    let go = Arc::new(Notify::new());
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<()>();
    let (late_go, late_done) = (go.clone(), done_tx);
    let server = Server::builder("late", "1")
        .tool(tool("late").description("Reports progress after it has answered").handler(move |ctx: Ctx| {
            let (go, done) = (late_go.clone(), late_done.clone());
            async move {
                // Before the response: sent.
                ctx.progress(1.0, Some(3.0), Some("before")).await;
                ctx.log(LoggingLevel::Info, "before").await;
                let late = ctx.clone();
                tokio::spawn(async move {
                    go.notified().await;
                    late.progress(2.0, Some(3.0), Some("after")).await;
                    late.log(LoggingLevel::Info, "after").await;
                    done.send(()).unwrap();
                });
                "answered"
            }
        }))
        .build()
        .unwrap();
    let mut raw = initialized(server).await;
    raw.request(
        1,
        "tools/call",
        json!({ "name": "late", "arguments": {}, "_meta": { "progressToken": "p" } }),
    )
    .await;
    let progress = json_of(&raw.next().await);
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progress"], json!(1.0), "{progress}");
    let log = json_of(&raw.next().await);
    assert_eq!(log["method"], "notifications/message", "{log}");
    assert_eq!(log["params"]["data"], "before", "{log}");
    let result = expect_result(&raw.next().await, 1);
    assert_eq!(result["content"][0]["text"], "answered");

    // The spawned task now sends its progress and log message, after the response.
    go.notify_one();
    tokio::time::timeout(Duration::from_secs(5), done_rx.recv()).await.expect("the late task ran").unwrap();
    raw.expect_silence(QUIET).await;
}

/// G28, rule 5.14: a 2025 client answers the server's `ping` with an empty result.
#[tokio::test]
async fn a_2025_client_answers_a_server_ping_with_an_empty_result() {
    let (client, mut raw, _) = connect_2025(Client::builder("c", "1")).await;
    raw.send(Request::new("server-ping", "ping", None)).await;
    match raw.next().await {
        Message::Response(r) if r.id == RequestId::from("server-ping") => {
            assert_eq!(serde_json::from_str::<Value>(r.result.get()).unwrap(), json!({}));
        }
        other => panic!("expected the ping's result, got {}", json_of(&other)),
    }
    client.close().await;
}

/// G41, rule 8.11: an empty `nextCursor` is a cursor to follow, not the end of the list.
#[tokio::test]
async fn an_empty_next_cursor_is_followed_not_taken_for_the_end() {
    let (client, mut raw, _) = connect_2025(Client::builder("c", "1")).await;
    let tool = |name: &str| json!({ "name": name, "inputSchema": { "type": "object" } });
    let pages = async {
        let first = raw.next_request("tools/list").await;
        assert_eq!(params_of(&first).get("cursor"), None, "the first page is asked without a cursor");
        raw.answer(first.id, json!({ "tools": [tool("first")], "nextCursor": "" })).await;
        let second = raw.next_request("tools/list").await;
        assert_eq!(params_of(&second)["cursor"], "", "the empty cursor is sent back");
        raw.answer(second.id, json!({ "tools": [tool("second")] })).await;
    };
    let (tools, ()) = tokio::join!(client.list_all_tools(), pages);
    let names: Vec<String> = tools.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["first", "second"]);
    client.close().await;
    // 2026, with cacheable pages: the page for cursor "" is not the cached first page.
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let client =
        Client::builder("c", "1").protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();
    let pages = async {
        let first = raw.next_request("tools/list").await;
        let page =
            json!({ "resultType": "complete", "tools": [tool("first")], "nextCursor": "", "ttlMs": 60000 });
        raw.answer(first.id, page).await;
        let second = raw.next_request("tools/list").await;
        assert_eq!(params_of(&second)["cursor"], "", "the empty cursor is sent back");
        raw.answer(second.id, json!({ "resultType": "complete", "tools": [tool("second")], "ttlMs": 60000 }))
            .await;
    };
    let (tools, ()) = tokio::join!(client.list_all_tools(), pages);
    let names: Vec<String> = tools.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["first", "second"], "2026");
    client.close().await;
}

/// G52, rule 8.40: a 2025 client without a roots callback answers `roots/list` with `-32601`.
#[tokio::test]
async fn a_2025_client_without_roots_answers_roots_list_with_method_not_found() {
    let (client, mut raw, init) = connect_2025(Client::builder("c", "1")).await;
    assert_eq!(init["capabilities"].get("roots"), None, "roots not declared: {init}");
    raw.send(Request::new(7, "roots/list", None)).await;
    match raw.next().await {
        Message::Error(e) if e.id == Some(RequestId::from(7)) => {
            assert_eq!(e.error.code, codes::METHOD_NOT_FOUND, "{}", e.error);
        }
        other => panic!("expected an error for roots/list, got {}", json_of(&other)),
    }
    client.close().await;
}

/// G1, rule 1.6: until `initialize` is answered the client sends nothing else (pinned, and after the era probe).
#[tokio::test]
async fn the_client_sends_nothing_but_initialize_until_it_is_answered() {
    for pinned in [true, false] {
        let (ours, theirs) = memory::pair();
        let mut raw = RawServer { conn: theirs };
        let builder = Client::builder("c", "1");
        let builder = if pinned { builder.protocol_version(ProtocolVersion::V2025_11_25) } else { builder };
        let connecting = tokio::spawn(builder.connect(ours));
        if !pinned {
            // The probe of an unpinned client, refused as a 2025-era server refuses it.
            let probe = raw.next_request("server/discover").await;
            let refused = ErrorObject::new(codes::METHOD_NOT_FOUND, "Method not found: server/discover");
            raw.send(ErrorResponse::new(Some(probe.id), refused)).await;
        }
        let init = raw.next_request("initialize").await;
        if let Some(early) = raw.next_within(QUIET).await {
            panic!("pinned {pinned}: sent before initialize was answered: {}", json_of(&early));
        }
        assert!(!connecting.is_finished(), "pinned {pinned}: connected before initialize was answered");
        raw.answer(init.id, initialize_result()).await;
        let initialized = raw.next().await;
        assert_eq!(initialized.method(), Some("notifications/initialized"), "{}", json_of(&initialized));
        let client = connecting.await.unwrap().unwrap();
        assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25);
        client.close().await;
    }
}

/// G25, rule 4.2.19: a 2026 HTTP request's `Mcp-Session-Id` and `Last-Event-ID` are ignored.
#[tokio::test]
async fn a_2026_http_request_ignores_session_id_and_last_event_id() {
    use http_server_support as hs;
    let t = hs::start().await;
    let live = hs::open_session(t.addr, hs::V25).await;
    for session in ["no-such-session", live.as_str()] {
        let request =
            hs::stateless_request(1, "tools/call", json!({ "name": "echo", "arguments": { "text": "m" } }))
                .header("mcp-session-id", session)
                .header("last-event-id", "0");
        let response = hs::send(t.addr, request).await;
        assert_eq!(response.status, 200, "session {session}");
        assert_eq!(response.header("mcp-session-id"), None, "session {session}: no session in 2026");
        assert_eq!(hs::answer(response).await, hs::complete_text(1, "echo: m"), "session {session}");
    }
    assert_eq!(t.service.session_count(), 1, "the 2025 session is untouched and no other was made");
}

/// G35, rule 7.7: a 2026 client takes both ways a server ends a listen stream: its final
/// result, and (stdio) `notifications/cancelled` naming the listen request.
#[tokio::test]
async fn a_listen_stream_ends_on_the_final_result_or_the_servers_cancel() {
    for by_cancel in [false, true] {
        let (ours, theirs) = memory::pair();
        let mut raw = RawServer { conn: theirs };
        let client = Client::builder("c", "1")
            .protocol_version(ProtocolVersion::V2026_07_28)
            .connect(ours)
            .await
            .unwrap();
        let filter = mcpwire::protocol::subscriptions::SubscriptionFilter {
            tools_list_changed: Some(true),
            ..Default::default()
        };
        let (subscription, id) = tokio::join!(client.listen(filter), raw.acknowledge_tools_listen());
        let mut subscription = subscription.unwrap();
        let changed = json!({ "_meta": { "io.modelcontextprotocol/subscriptionId": id.clone() } });
        raw.send(Notification::new("notifications/tools/list_changed", to_raw(changed))).await;
        let first = tokio::time::timeout(Duration::from_secs(5), subscription.next()).await.unwrap();
        assert_eq!(first.map(|n| n.method), Some("notifications/tools/list_changed".to_owned()));
        if by_cancel {
            let cancel = json!({ "requestId": id.clone(), "reason": "server shutting down" });
            raw.send(Notification::new("notifications/cancelled", to_raw(cancel))).await;
        } else {
            let done = json!({ "resultType": "complete", "_meta": { "io.modelcontextprotocol/subscriptionId": id } });
            raw.answer(id_of(&done), done).await;
        }
        let end = tokio::time::timeout(Duration::from_secs(5), subscription.next()).await;
        assert!(matches!(end, Ok(None)), "by_cancel {by_cancel}: the stream ends, got {end:?}");
        client.close().await;
    }
}

/// The listen request's id, read back from a final result's `_meta`.
fn id_of(result: &Value) -> RequestId {
    serde_json::from_value(result["_meta"]["io.modelcontextprotocol/subscriptionId"].clone()).unwrap()
}

/// G34, G36, G38 (rules 7.5, 7.8, 8.3): two listen streams at once both hear a list
/// change and nothing else (no progress, no log message of a call made meanwhile); the
/// client's cache answers a repeated `tools/list` while its `ttlMs` lasts, and asks again
/// after a change notification, or at once when `ttlMs` is 0.
#[tokio::test]
async fn listen_streams_carry_only_changes_and_changes_end_cached_lists() {
    use mcpwire::protocol::subscriptions::SubscriptionFilter;
    use mcpwire::protocol::{methods, CacheHint, CacheScope};
    use mcpwire::server::{middleware_fn, ServerEvent};
    use std::sync::atomic::{AtomicUsize, Ordering};

    for ttl_ms in [60_000, 0] {
        let lists = Arc::new(AtomicUsize::new(0));
        let counted = lists.clone();
        let server = Server::builder("s", "1")
            .cache_hint(methods::TOOLS_LIST, CacheHint { ttl_ms, scope: CacheScope::Private })
            .middleware(middleware_fn(move |request: Request, ctx, next: mcpwire::server::Next| {
                if request.method == methods::TOOLS_LIST {
                    counted.fetch_add(1, Ordering::SeqCst);
                }
                async move { next.run(request, ctx).await }
            }))
            .register(tool("chatty").description("progress and a log").handler(|ctx: Ctx| async move {
                ctx.progress(1.0, Some(1.0), None).await;
                ctx.log(LoggingLevel::Info, "a log line").await;
                "done"
            }))
            .build()
            .unwrap();
        let (ours, theirs) = memory::pair();
        let served = server.clone();
        tokio::spawn(async move { served.serve(theirs).await });
        let client = Client::builder("c", "1")
            .protocol_version(ProtocolVersion::V2026_07_28)
            .connect(ours)
            .await
            .unwrap();
        client.set_log_level(LoggingLevel::Debug).await.unwrap();
        let filter = || SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
        let mut streams = [client.listen(filter()).await.unwrap(), client.listen(filter()).await.unwrap()];
        client.list_tools(None).await.unwrap();
        client.list_tools(None).await.unwrap();
        let expected = if ttl_ms > 0 { 1 } else { 2 };
        assert_eq!(lists.load(Ordering::SeqCst), expected, "ttl {ttl_ms}: repeated lists");
        // A call with progress and a log message while the streams are open.
        let options = mcpwire::client::RequestOptions::default().on_progress(|_| {});
        client.call_tool_with("chatty", json!({}), options).await.unwrap();
        server.notify(ServerEvent::ToolsChanged);
        for stream in &mut streams {
            let next = tokio::time::timeout(Duration::from_secs(5), stream.next()).await.unwrap().unwrap();
            assert_eq!(next.method, "notifications/tools/list_changed", "only the change reaches a stream");
        }
        // The change ended the cached list: the next one is asked for.
        client.list_tools(None).await.unwrap();
        assert_eq!(lists.load(Ordering::SeqCst), expected + 1, "ttl {ttl_ms}: after the change");
        client.close().await;
    }
}

/// G31, rule 6.12: an `input_required` result with only a `requestState` (nothing to ask)
/// is retried with that state, and the retry's result is the call's.
#[tokio::test]
async fn a_state_only_input_required_is_retried_with_its_state() {
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let client =
        Client::builder("c", "1").protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();
    let server = async {
        let first = raw.next_request("tools/call").await;
        raw.answer(first.id, json!({ "resultType": "input_required", "requestState": "state-1" })).await;
        let retry = raw.next_request("tools/call").await;
        assert_eq!(params_of(&retry)["requestState"], "state-1", "the retry carries the state");
        assert_eq!(params_of(&retry)["name"], "t");
        let done =
            json!({ "resultType": "complete", "content": [{ "type": "text", "text": "after the state" }] });
        raw.answer(retry.id, done).await;
        // The client learns the tool's output schema, if any, from the list once.
        let list = raw.next_request("tools/list").await;
        raw.answer(list.id, json!({ "resultType": "complete", "tools": [] })).await;
    };
    let (result, ()) = tokio::join!(client.call_tool("t", json!({})), server);
    assert_eq!(serde_json::to_value(result.unwrap()).unwrap()["content"][0]["text"], "after the state");
    client.close().await;
}

/// G47, rule 8.29: a 2025 client that declared form elicitation only answers a URL-mode
/// `elicitation/create` with `-32602`, without calling its callback.
#[tokio::test]
async fn a_2025_client_refuses_an_undeclared_url_elicitation() {
    let asked = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = asked.clone();
    let builder = Client::builder("c", "1").on_elicitation(move |_| {
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        async { Err(mcpwire::McpError::internal("the callback must not run")) }
    });
    let (client, mut raw, init) = connect_2025(builder).await;
    assert!(init["capabilities"]["elicitation"].get("url").is_none(), "URL mode not declared: {init}");
    let params =
        json!({ "mode": "url", "message": "Sign in", "url": "https://example.com/x", "elicitationId": "e1" });
    raw.send(Request::new(9, "elicitation/create", to_raw(params))).await;
    match raw.next().await {
        Message::Error(e) if e.id == Some(RequestId::from(9)) => {
            assert_eq!(e.error.code, codes::INVALID_PARAMS, "{}", e.error)
        }
        other => panic!("expected -32602, got {}", json_of(&other)),
    }
    assert!(!asked.load(std::sync::atomic::Ordering::SeqCst), "the callback was not asked");
    client.close().await;
}

/// What a 2026 server saw of one `input_required` round: the call's outcome, and the
/// retry's `inputResponses` (`None` when no retry came).
type RoundOutcome = (Result<Value, mcpwire::RequestError>, Option<Value>);

/// Calls tool `t` on a fresh 2026 client from `builder`; a hand-driven server answers
/// the call with `input_required` asking `request` under the key `k`. With `expect_retry`
/// the retry is answered `complete` (and the tool list the client then reads, empty);
/// without, the server checks that nothing more arrives.
async fn one_input_round(builder: ClientBuilder, request: Value, expect_retry: bool) -> RoundOutcome {
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let client = builder.protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();
    let server = async {
        let first = raw.next_request("tools/call").await;
        let asked =
            json!({ "resultType": "input_required", "inputRequests": { "k": request }, "requestState": "s" });
        raw.answer(first.id, asked).await;
        if !expect_retry {
            if let Some(more) = raw.next_within(QUIET).await {
                panic!("expected no retry, got {}", json_of(&more));
            }
            return None;
        }
        let retry = raw.next_request("tools/call").await;
        let params = params_of(&retry);
        assert_eq!(params["requestState"], "s", "the retry carries the state: {params}");
        assert_eq!(params["name"], "t", "{params}");
        let done = json!({ "resultType": "complete", "content": [{ "type": "text", "text": "retried" }] });
        raw.answer(retry.id, done).await;
        let list = raw.next_request("tools/list").await;
        raw.answer(list.id, json!({ "resultType": "complete", "tools": [] })).await;
        Some(params["inputResponses"].clone())
    };
    let (result, responses) = tokio::join!(client.call_tool("t", json!({})), server);
    client.close().await;
    (result.map(|r| serde_json::to_value(r).unwrap()), responses)
}

/// G33, rule 6.18: a 2026 client answers an elicitation round `decline` without a
/// callback and `cancel` when its callback fails; a failed sampling or roots callback
/// stops the call with an error, without a retry.
#[tokio::test]
async fn a_2026_client_declines_cancels_or_stops_on_input_it_cannot_give() {
    use mcpwire::{McpError, RequestError};
    let elicit = json!({
        "method": "elicitation/create",
        "params": {
            "message": "Your name?",
            "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } },
        },
    });
    let retried = |outcome: RoundOutcome, action: &str| {
        let (result, responses) = outcome;
        assert_eq!(result.unwrap()["content"][0]["text"], "retried", "{action}: the retry's result");
        assert_eq!(responses, Some(json!({ "k": { "action": action } })), "{action}: the retry's answers");
    };

    // No elicitation callback: decline.
    retried(one_input_round(Client::builder("c", "1"), elicit.clone(), true).await, "decline");
    // A failing elicitation callback: cancel.
    let failing =
        Client::builder("c", "1").on_elicitation(|_| async { Err(McpError::internal("no user here")) });
    retried(one_input_round(failing, elicit, true).await, "cancel");

    // A failing sampling callback: the call stops.
    let sample = json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": "Capital of France?" } }],
            "maxTokens": 100,
        },
    });
    let failing =
        Client::builder("c", "1").on_sampling(|_| async { Err(McpError::internal("no model here")) });
    let (result, responses) = one_input_round(failing, sample, false).await;
    assert_eq!(responses, None);
    match result {
        Err(RequestError::Protocol(m)) => {
            assert!(m.starts_with("sampling for the server failed"), "{m}");
            assert!(m.contains("no model here"), "{m}");
        }
        other => panic!("expected the call to stop on the failed sampling, got {other:?}"),
    }

    // A failing roots callback: the call stops.
    let failing = Client::builder("c", "1").on_roots(|| async { Err(McpError::internal("no roots here")) });
    let (result, responses) = one_input_round(failing, json!({ "method": "roots/list" }), false).await;
    assert_eq!(responses, None);
    match result {
        Err(RequestError::Protocol(m)) => {
            assert!(m.starts_with("listing roots for the server failed"), "{m}");
            assert!(m.contains("no roots here"), "{m}");
        }
        other => panic!("expected the call to stop on the failed roots listing, got {other:?}"),
    }
}

/// G48, rule 8.36: a handler's sampling request with tools fails with `-32021` (2026) or
/// `-32601` (2025) unless the client declared `sampling.tools`, and reaches it when it did.
#[tokio::test]
async fn sampling_with_tools_needs_the_clients_sampling_tools() {
    use mcpwire::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
    use mcpwire::{McpError, RequestError};
    use std::sync::Mutex;

    let server = Server::builder("s", "1")
        .tool(tool("ask_model").description("Samples with a tool").handler(|ctx: Ctx| async move {
            let params: CreateMessageRequestParams = serde_json::from_value(json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": "Weather in Paris?" } }],
                "maxTokens": 50,
                "tools": [{ "name": "get_weather", "inputSchema": { "type": "object" } }],
            }))
            .unwrap();
            let answer = ctx.sample(params).await?;
            Ok::<_, McpError>(format!("model {}", answer.model))
        }))
        .build()
        .unwrap();
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        for declared in [false, true] {
            let seen = Arc::new(Mutex::new(Vec::<String>::new()));
            let log = seen.clone();
            let builder = Client::builder("c", "1")
                .on_sampling(move |params: CreateMessageRequestParams| {
                    let tools = params.tools.unwrap_or_default().into_iter().map(|t| t.name);
                    log.lock().unwrap().extend(tools);
                    async {
                        let answer = json!({ "role": "assistant", "content": { "type": "text", "text": "Sunny" }, "model": "m1" });
                        Ok::<CreateMessageResult, McpError>(serde_json::from_value(answer).unwrap())
                    }
                })
                .sampling_tools(declared);
            let (ours, theirs) = memory::pair();
            let served = server.clone();
            tokio::spawn(async move { served.serve(theirs).await });
            let client = builder.protocol_version(version.clone()).connect(ours).await.unwrap();
            let result = client.call_tool("ask_model", json!({})).await;
            let case = format!("{version} declared {declared}");
            if declared {
                let result = serde_json::to_value(result.unwrap()).unwrap();
                assert_eq!(result["content"][0]["text"], "model m1", "{case}: {result}");
                assert_eq!(*seen.lock().unwrap(), ["get_weather"], "{case}: the callback got the tools");
            } else {
                let expected = match version {
                    ProtocolVersion::V2026_07_28 => codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
                    _ => codes::METHOD_NOT_FOUND,
                };
                match result {
                    Err(RequestError::Peer(e)) => {
                        assert_eq!(e.code, expected, "{case}: {e}");
                        let data = e.data.clone().unwrap_or_default();
                        assert_eq!(
                            data["requiredCapabilities"],
                            json!({ "sampling": { "tools": {} } }),
                            "{case}: {e}"
                        );
                    }
                    other => panic!("{case}: expected a missing-capability error, got {other:?}"),
                }
                assert!(seen.lock().unwrap().is_empty(), "{case}: the callback was not asked");
            }
            client.close().await;
        }
    }
}

/// G4, rule 1.33: an unpinned client whose `server/discover` is refused with `-32022`
/// retries the probe with a stateless version `data.supported` lists, or, when it lists
/// only 2025 versions, falls back to `initialize`.
#[tokio::test]
async fn an_unsupported_version_answer_to_the_probe_is_followed() {
    let unsupported = |id: RequestId, supported: Value| {
        let error = ErrorObject {
            code: codes::UNSUPPORTED_PROTOCOL_VERSION,
            message: "Unsupported protocol version".into(),
            data: Some(json!({ "supported": supported, "requested": "2026-07-28" })),
        };
        ErrorResponse::new(Some(id), error)
    };
    let sent_version =
        |request: &Request| params_of(request)["_meta"]["io.modelcontextprotocol/protocolVersion"].clone();

    // A stateless version it knows (among one it does not): a second probe with it.
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let connecting = tokio::spawn(Client::builder("c", "1").connect(ours));
    let probe = raw.next_request("server/discover").await;
    assert_eq!(sent_version(&probe), "2026-07-28");
    raw.send(unsupported(probe.id, json!(["2099-01-01", "2026-07-28"]))).await;
    let retry = raw.next_request("server/discover").await;
    assert_eq!(sent_version(&retry), "2026-07-28", "the retry names the listed version");
    let discovered = json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": { "tools": {} },
        "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "raw-server", "version": "1" } },
    });
    raw.answer(retry.id, discovered).await;
    let client = tokio::time::timeout(Duration::from_secs(5), connecting).await.unwrap().unwrap().unwrap();
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2026_07_28);
    assert_eq!(
        client.discover_result().map(|d| d.supported_versions.clone()),
        Some(vec![ProtocolVersion::V2026_07_28])
    );
    if let Some(more) = raw.next_within(QUIET).await {
        panic!("nothing more after the second probe, got {}", json_of(&more));
    }
    client.close().await;

    // Only 2025 versions listed: `initialize`, with the newest 2025 version.
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let connecting = tokio::spawn(Client::builder("c", "1").connect(ours));
    let probe = raw.next_request("server/discover").await;
    raw.send(unsupported(probe.id, json!(["2025-06-18", "2025-11-25"]))).await;
    let init = serve_handshake(&mut raw).await;
    assert_eq!(init["protocolVersion"], "2025-11-25", "{init}");
    let client = tokio::time::timeout(Duration::from_secs(5), connecting).await.unwrap().unwrap().unwrap();
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25);
    client.close().await;
}

/// G4, rule 1.33: `-32020` and `-32021` come only from a stateless (2026) server, so an
/// unpinned client whose probe gets one does not fall back to `initialize`: it fails to
/// connect with the server's error.
#[tokio::test]
async fn a_header_mismatch_or_missing_capability_answer_to_the_probe_is_not_a_2025_server() {
    for code in [codes::HEADER_MISMATCH, codes::MISSING_REQUIRED_CLIENT_CAPABILITY] {
        let (ours, theirs) = memory::pair();
        let mut raw = RawServer { conn: theirs };
        let connecting = tokio::spawn(Client::builder("c", "1").connect(ours));
        let probe = raw.next_request("server/discover").await;
        let error = ErrorObject { code, message: "refused".into(), data: None };
        raw.send(ErrorResponse::new(Some(probe.id), error)).await;
        let failed = tokio::time::timeout(Duration::from_secs(5), connecting).await.unwrap().unwrap();
        match failed {
            Err(ConnectError::Handshake(RequestError::Peer(e))) => assert_eq!(e.code, code),
            other => panic!("{code}: expected the server's error, got {:?}", other.map(|_| "a client")),
        }
        // Nothing after the refused probe: the connection closes (or stays quiet).
        if let Ok(Some(mcpwire::transport::TransportEvent::Message(more))) =
            tokio::time::timeout(QUIET, raw.conn.incoming.recv()).await
        {
            panic!("{code}: nothing after the refused probe, got {}", json_of(&more.message));
        }
    }
}

/// G7, rules 2.10 and 3.5: a 2026 client sends no responses, so a request from a
/// misbehaving 2026 server (`ping`, `roots/list`) gets nothing back, not even an error,
/// and the connection goes on serving the client's own calls.
#[tokio::test]
async fn a_2026_client_answers_no_request_from_the_server() {
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let roots = || async { Ok(serde_json::from_value(json!({ "roots": [] })).unwrap()) };
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2026_07_28)
        .on_roots(roots)
        .connect(ours)
        .await
        .unwrap();
    raw.send(Request::new("server-ping", "ping", None)).await;
    raw.send(Request::new("server-roots", "roots/list", None)).await;
    if let Some(answer) = raw.next_within(QUIET).await {
        panic!("a 2026 client answered the server: {}", json_of(&answer));
    }
    let server = async {
        let list = raw.next_request("tools/list").await;
        raw.answer(list.id, json!({ "resultType": "complete", "tools": [] })).await;
    };
    let (tools, ()) = tokio::join!(client.list_tools(None), server);
    assert!(tools.unwrap().tools.is_empty());
    client.close().await;
}

/// G2, rule 1.7: until the client's `notifications/initialized`, a 2025 server sends it
/// no requests and no change notifications; a handler's question waits for it.
#[tokio::test]
async fn a_2025_server_sends_no_requests_or_changes_before_initialized() {
    let server = Server::builder("early", "1")
        .tool(tool("ask").description("Asks the client").handler(|ctx: Ctx| async move {
            let roots = ctx.list_roots().await?;
            Ok::<_, mcpwire::error::McpError>(format!("{} roots", roots.roots.len()))
        }))
        .build()
        .unwrap();
    let notifier = server.clone();
    let mut raw = initialize_with(server, json!({ "roots": {} })).await;
    raw.request(1, "tools/call", json!({ "name": "ask", "arguments": {} })).await;
    notifier.notify(mcpwire::server::ServerEvent::ToolsChanged);
    raw.expect_silence(QUIET).await;

    raw.send(Notification::new("notifications/initialized", None)).await;
    let question = json_of(&raw.next().await);
    assert_eq!(question["method"], "roots/list", "{question}");
    raw.send(Response::new(
        serde_json::from_value::<RequestId>(question["id"].clone()).unwrap(),
        serde_json::value::to_raw_value(&json!({ "roots": [] })).unwrap(),
    ))
    .await;
    assert_eq!(expect_result(&raw.next().await, 1)["content"][0]["text"], "0 roots");
    // Initialized now: change notifications flow.
    notifier.notify(mcpwire::server::ServerEvent::ToolsChanged);
    assert_eq!(json_of(&raw.next().await)["method"], "notifications/tools/list_changed");
}

/// G49, rule 8.37: a sampling request whose tool results do not answer the tool uses
/// before them is `-32602`, and the client's model (its callback) never sees it.
#[tokio::test]
async fn sampling_tool_results_must_answer_the_tool_uses_before_them() {
    use mcpwire::protocol::sampling::CreateMessageResult;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let builder = Client::builder("c", "1").on_sampling(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        async {
            Ok(serde_json::from_value::<CreateMessageResult>(
                json!({ "role": "assistant", "content": { "type": "text", "text": "ok" }, "model": "m" }),
            )
            .unwrap())
        }
    });
    let (client, mut raw, _) = connect_2025(builder).await;
    let messages = json!([
        { "role": "user", "content": { "type": "text", "text": "Weather?" } },
        { "role": "assistant", "content": [{ "type": "tool_use", "id": "u1", "name": "w", "input": {} }] },
        { "role": "user", "content": [{ "type": "tool_result", "toolUseId": "u2", "content": [] }] },
    ]);
    let params = json!({ "messages": messages, "maxTokens": 10 });
    raw.send(Request::new(
        "s1",
        "sampling/createMessage",
        Some(serde_json::value::to_raw_value(&params).unwrap()),
    ))
    .await;
    match raw.next().await {
        Message::Error(e) => {
            assert_eq!(e.error.code, codes::INVALID_PARAMS);
            assert!(e.error.message.contains("must answer the tool uses"), "{}", e.error.message);
        }
        other => panic!("expected -32602, got {}", json_of(&other)),
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the model never saw it");
    client.close().await;
}

/// 2025-11-25 tasks: an answer about another task than the one asked about (`tasks/get`'s
/// `taskId`, `tasks/result`'s `related-task`) is refused, not taken as the task's.
#[tokio::test]
async fn a_task_answer_about_another_task_is_refused() {
    let (client, mut raw, _) = connect_2025(Client::builder("c", "1")).await;
    let task = |id: &str, status: &str| {
        json!({ "taskId": id, "status": status, "createdAt": "2026-01-01T00:00:00Z",
                "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000 })
    };
    // A `tasks/result` answer marked as the result of task `id`.
    let result_of = |id: &str| json!({ "content": [], "_meta": { "io.modelcontextprotocol/related-task": { "taskId": id } } });
    let server = async {
        let get = raw.next_request("tasks/get").await;
        raw.answer(get.id, task("OTHER", "working")).await;
        let get = raw.next_request("tasks/get").await;
        raw.answer(get.id, task("t1", "completed")).await;
        let result = raw.next_request("tasks/result").await;
        raw.answer(result.id, result_of("SOMEOTHER")).await;
        let get = raw.next_request("tasks/get").await;
        raw.answer(get.id, task("t1", "completed")).await;
        let result = raw.next_request("tasks/result").await;
        raw.answer(result.id, result_of("t1")).await;
    };
    let client_side = async {
        let other = client.get_task("t1").await.unwrap_err();
        assert!(other.to_string().contains("\"OTHER\""), "{other}");
        let related = client.get_task("t1").await.unwrap_err();
        assert!(related.to_string().contains("\"SOMEOTHER\""), "{related}");
        let done = client.get_task("t1").await.unwrap();
        assert_eq!(done.task_id, "t1");
    };
    tokio::join!(server, client_side);
    client.close().await;
}
