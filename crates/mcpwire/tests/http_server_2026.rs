//! The Streamable HTTP server's 2026-07-28 stateless transport over real loopback
//! sockets, one test per rule: JSON or SSE answers, the header checks, the envelope,
//! removed methods, 405, cancel-by-close and `subscriptions/listen`. Requests are written
//! byte for byte by the tiny client in `raw_http`; the server under test is in
//! `http_server_support`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http_server_support;
mod mcp_http;
mod raw_http;

use http_server_support::*;

// ---------------------------------------------------------------------------------------
// 2026-07-28: stateless requests
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn stateless_answers_json_when_nothing_streams() {
    let t = start().await;
    let response = send(
        t.addr,
        stateless_request(1, "tools/call", json!({ "name": "echo", "arguments": { "text": "m" } })),
    )
    .await;
    assert_eq!((response.status, response.content_type()), (200, "application/json"));
    assert_eq!(response.header("mcp-session-id"), None, "no session in 2026");
    assert_eq!(response.json().await, complete_text(1, "echo: m"));
    assert_eq!(t.service.session_count(), 0);
}

#[tokio::test]
async fn stateless_answers_sse_when_progress_comes_first() {
    let t = start().await;
    let req = stateless_request(
        1,
        "tools/call",
        json!({ "name": "progress", "arguments": {}, "_meta": { "progressToken": "tok" } }),
    );
    let mut response = send(t.addr, req).await;
    assert_eq!((response.status, response.content_type()), (200, "text/event-stream"));
    assert_eq!(response.header("x-accel-buffering"), Some("no"));
    let events = response.events_to_end().await;
    let messages: Vec<Value> = events.iter().map(|e| e.json()).collect();
    assert!(
        events.iter().all(|e| e.id.is_none() && e.retry.is_none()),
        "no ids or priming in 2026: {events:?}"
    );
    assert_eq!(
        messages,
        vec![
            json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                "params": { "progressToken": "tok", "progress": 1.0, "total": 2.0, "message": "half" } }),
            json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                "params": { "progressToken": "tok", "progress": 2.0, "total": 2.0 } }),
            complete_text(1, "progressed"),
        ]
    );
}

async fn expect_header_mismatch(addr: SocketAddr, req: Req, id: Option<i64>, detail: &str) {
    let response = send(addr, req).await;
    assert_eq!(response.status, 400, "{detail}");
    let body = response.json().await;
    assert_eq!(body["error"]["code"], -32020, "{detail}: {body}");
    assert_eq!(body["id"], id.map_or(Value::Null, Value::from), "{detail}: {body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("Header mismatch: ") && message.contains(detail), "{detail}: {message}");
}

#[tokio::test]
async fn stateless_version_header_is_required_and_must_match() {
    let t = start().await;
    let call = || stateless_request(1, "tools/call", json!({ "name": "echo", "arguments": {} }));
    expect_header_mismatch(
        t.addr,
        call().without("mcp-protocol-version"),
        Some(1),
        "MCP-Protocol-Version header is required",
    )
    .await;
    let mut other = call().set("mcp-protocol-version", V26);
    other.body = serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {},
        "_meta": { "io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {} }
    } }))
    .unwrap();
    expect_header_mismatch(t.addr, other, Some(1), "does not match _meta").await;
}

/// A repeated `MCP-Protocol-Version` is a malformed header (streamable-http "Server
/// Validation": `-32020`), refused with the request's id: an error response carries it
/// unless the id could not be read (basic/index "Error Responses").
#[tokio::test]
async fn a_repeated_version_header_is_refused_with_the_requests_id() {
    let t = start().await;
    let call = stateless_request(1, "tools/call", json!({ "name": "echo", "arguments": {} }));
    expect_header_mismatch(t.addr, call.header("mcp-protocol-version", V26), Some(1), "is repeated").await;
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 1 } });
    let twice = Req::post(&note).header("mcp-protocol-version", V26).header("mcp-protocol-version", V26);
    expect_header_mismatch(t.addr, twice, None, "is repeated").await;
}

#[tokio::test]
async fn stateless_method_and_name_headers_are_checked() {
    let t = start().await;
    let call = || stateless_request(1, "tools/call", json!({ "name": "echo", "arguments": {} }));
    expect_header_mismatch(t.addr, call().without("mcp-method"), Some(1), "Mcp-Method header is required")
        .await;
    expect_header_mismatch(t.addr, call().set("mcp-method", "tools/list"), Some(1), "Mcp-Method header")
        .await;
    expect_header_mismatch(t.addr, call().without("mcp-name"), Some(1), "Mcp-Name header is required").await;
    expect_header_mismatch(t.addr, call().set("mcp-name", "other"), Some(1), "does not match the body").await;
    // The base64 form of the right name is accepted.
    let ok = send(t.addr, call().set("mcp-name", "=?base64?ZWNobw==?=")).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().await, complete_text(1, "echo: "));
    // A method without a name needs no Mcp-Name.
    let list = send(t.addr, stateless_request(2, "tools/list", json!({}))).await;
    assert_eq!(list.status, 200);
    // A name that is not a string is invalid params, whatever the header says.
    let req = stateless_request(3, "tools/call", json!({ "name": 5 })).header("mcp-name", "5");
    let body = send(t.addr, req).await.json().await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
}

/// `Mcp-Name` mirrors `taskId` for `tasks/get`, `tasks/update` and `tasks/cancel` only
/// under the tasks extension (SEP-2663, "Streamable HTTP: Routing Headers"); the core
/// table requires it for tools/call, prompts/get and resources/read alone. A server that
/// does not offer tasks does not implement those methods: 404 with `-32601`
/// (streamable-http "Protocol Version Header"), with or without the header.
#[tokio::test]
async fn task_methods_need_mcp_name_only_where_tasks_are_served() {
    let t = start().await;
    for (id, method) in (1..).zip(["tasks/get", "tasks/update", "tasks/cancel"]) {
        let response = send(t.addr, stateless_request(id, method, json!({ "taskId": "t1" }))).await;
        assert_eq!(response.status, 404, "{method}");
        let body = response.json().await;
        assert_eq!((body["id"].clone(), body["error"]["code"].clone()), (json!(id), json!(-32601)), "{body}");
    }
    // A server that runs a tool as a task checks the header against `taskId`.
    let server = Server::builder("tasks", "0")
        .tool(tool("quick").task_support(mcpwire::server::tasks::TaskSupport::Optional).handler(|| "done"))
        .build()
        .unwrap();
    let bound = serve_with_shutdown(McpService::new(server), "127.0.0.1:0", "/mcp").await.unwrap();
    let get = || stateless_request(7, "tasks/get", json!({ "taskId": "t1" }));
    expect_header_mismatch(bound.local_addr, get(), Some(7), "Mcp-Name header is required").await;
    let wrong = get().header("mcp-name", "t2");
    expect_header_mismatch(bound.local_addr, wrong, Some(7), "does not match the body").await;
    let response = send(bound.local_addr, get().header("mcp-name", "t1")).await;
    assert_eq!(response.status, 400, "the extension is not declared: -32021");
    assert_eq!(response.json().await["error"]["code"], -32021);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn stateless_param_headers_follow_x_mcp_header() {
    let t = start().await;
    let call = |region: &str| {
        stateless_request(1, "tools/call", json!({ "name": "region", "arguments": { "region": region } }))
    };
    expect_header_mismatch(t.addr, call("eu-west-1"), Some(1), "Mcp-Param-Region header is required").await;
    expect_header_mismatch(
        t.addr,
        call("eu-west-1").header("mcp-param-region", "us-east-1"),
        Some(1),
        "Mcp-Param-Region header does not match",
    )
    .await;
    let ok = send(t.addr, call("eu-west-1").header("Mcp-Param-Region", "eu-west-1")).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().await, complete_text(1, "region: eu-west-1"));
    // A value that is not plain visible ASCII travels base64-encoded.
    let ok = send(t.addr, call("Zürich ").header("mcp-param-region", "=?base64?WsO8cmljaCA=?=")).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().await, complete_text(1, "region: Zürich "));
    expect_header_mismatch(
        t.addr,
        call("eu").header("mcp-param-region", "=?base64?not base64?="),
        Some(1),
        "malformed",
    )
    .await;
}

/// An `x-mcp-header` may sit on a property nested in object properties: the header
/// mirrors that argument, checked by the server and sent by mcpwire's client.
#[tokio::test]
async fn a_nested_x_mcp_header_argument_is_mirrored_and_checked() {
    let t = start().await;
    let arguments = json!({ "region": "eu", "place": { "zone": "b" } });
    let call = || stateless_request(1, "tools/call", json!({ "name": "region", "arguments": arguments }));
    let without = call().header("mcp-param-region", "eu");
    expect_header_mismatch(t.addr, without, Some(1), "Mcp-Param-Zone header is required").await;
    let wrong = call().header("mcp-param-region", "eu").header("mcp-param-zone", "c");
    expect_header_mismatch(t.addr, wrong, Some(1), "does not match argument \"place.zone\"").await;
    let ok = send(t.addr, call().header("mcp-param-region", "eu").header("mcp-param-zone", "b")).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().await, complete_text(1, "region: eu, zone: b"));
    // mcpwire's client lists the tool and sends both headers.
    let url = format!("http://{}/mcp", t.addr);
    let client = mcpwire::client::Client::builder("t", "0")
        .protocol_version(mcpwire::protocol::ProtocolVersion::parse(V26))
        .connect(mcpwire::transport::http_client::HttpClientTransport::new(&url).unwrap())
        .await
        .unwrap();
    let tools = client.list_tools(None).await.unwrap();
    assert!(tools.tools.iter().any(|tool| tool.name == "region"), "the tool is kept");
    let result = client.call_tool("region", arguments.clone()).await.unwrap();
    let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
    assert_eq!(text, "region: eu, zone: b");
    client.close().await;
}

#[tokio::test]
async fn stateless_missing_meta_gets_400_32602() {
    let t = start().await;
    let body = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {} });
    let req = Req::post(&body).header("mcp-protocol-version", V26).header("mcp-method", "tools/list");
    let response = send(t.addr, req).await;
    assert_eq!(response.status, 400);
    assert_eq!(
        response.json().await,
        json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32602,
            "message": "Invalid params: missing _meta member \"io.modelcontextprotocol/protocolVersion\"" } })
    );
}

/// An answered request's own errors come with 200, as any answer does; only a request
/// whose envelope could not be taken (a malformed request) gets 400 with its `-32602`.
#[tokio::test]
async fn stateless_ordinary_errors_get_200_and_envelope_errors_400() {
    let t = start().await;
    let bad_meta = |meta: Value| stateless_request(1, "tools/list", json!({ "_meta": meta }));
    let cases = [
        (
            "an unknown tool",
            stateless_request(1, "tools/call", json!({ "name": "nope", "arguments": {} })),
            200,
        ),
        ("a bad cursor", stateless_request(1, "tools/list", json!({ "cursor": "not-a-cursor" })), 200),
        ("params of the wrong type", stateless_request(1, "tools/list", json!({ "cursor": 7 })), 200),
        (
            "capabilities that are not an object",
            bad_meta(json!({ "io.modelcontextprotocol/clientCapabilities": [] })),
            400,
        ),
        ("a log level that is not one", bad_meta(json!({ "io.modelcontextprotocol/logLevel": "loud" })), 400),
    ];
    for (what, req, status) in cases {
        let response = send(t.addr, req).await;
        assert_eq!(response.status, status, "{what}");
        let body = response.json().await;
        assert_eq!(
            (body["id"].clone(), body["error"]["code"].clone()),
            (json!(1), json!(-32602)),
            "{what}: {body}"
        );
    }
}

#[tokio::test]
async fn stateless_notifications_get_202_and_responses_or_batches_400() {
    let t = start().await;
    let headers = |req: Req| req.header("mcp-protocol-version", V26);
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 1 } });
    let response = send(t.addr, headers(Req::post(&note))).await;
    assert_eq!(response.status, 202);
    assert_eq!(response.bytes().await, b"");
    let invalid = transport_error(-32600, "Invalid request: the body must be one request or notification");
    let answer = json!({ "jsonrpc": "2.0", "id": 1, "result": {} });
    let response = send(t.addr, headers(Req::post(&answer))).await;
    assert_eq!(response.status, 400);
    assert_eq!(response.json().await, invalid);
    let batch =
        json!([{ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": envelope() } }]);
    let response = send(t.addr, headers(Req::post(&batch)).header("mcp-method", "tools/list")).await;
    assert_eq!(response.status, 400);
    assert_eq!(response.json().await, invalid);
}

#[tokio::test]
async fn an_enveloped_request_without_any_header_takes_the_2026_path() {
    let t = start().await;
    let req = stateless_request(1, "tools/list", json!({})).without("mcp-protocol-version");
    expect_header_mismatch(t.addr, req, Some(1), "MCP-Protocol-Version header is required").await;
    assert_eq!(t.service.session_count(), 0);
}

#[tokio::test]
async fn stateless_unsupported_version_gets_32022() {
    let t = start().await;
    let body = json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": { "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {} } } });
    let req =
        Req::post(&body).header("mcp-protocol-version", "2099-01-01").header("mcp-method", "tools/list");
    let response = send(t.addr, req).await;
    assert_eq!(response.status, 400);
    let body = response.json().await;
    assert_eq!(body["id"], 4);
    assert_eq!(body["error"]["code"], -32022);
    assert_eq!(body["error"]["data"], json!({ "supported": [V26], "requested": "2099-01-01" }));
    // Without the other 2026 headers (a 2025 client that sent a version it made up, for
    // example), the version is still what the answer names, not a missing header.
    let body = json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {} });
    let response = send(t.addr, Req::post(&body).header("mcp-protocol-version", "1999-01-01")).await;
    assert_eq!(response.status, 400);
    let body = response.json().await;
    assert_eq!((body["id"].clone(), body["error"]["code"].clone()), (json!(5), json!(-32022)), "{body}");
    assert_eq!(body["error"]["data"]["requested"], "1999-01-01");
    // A 2025 version header with the 2026 envelope and no session: the two disagree.
    let req = stateless_request(6, "tools/list", json!({})).set("mcp-protocol-version", "2025-11-25");
    let response = send(t.addr, req).await;
    assert_eq!(response.status, 400);
    let body = response.json().await;
    assert_eq!((body["id"].clone(), body["error"]["code"].clone()), (json!(6), json!(-32020)), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("2025-11-25"), "{body}");
    // Both naming the same 2025 revision: they agree, on a version not served without a
    // session.
    let body = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": { "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {} } } });
    let req =
        Req::post(&body).header("mcp-protocol-version", "2025-11-25").header("mcp-method", "tools/list");
    let body = send(t.addr, req).await.json().await;
    assert_eq!((body["id"].clone(), body["error"]["code"].clone()), (json!(7), json!(-32022)), "{body}");
    assert_eq!(body["error"]["data"], json!({ "supported": [V26], "requested": "2025-11-25" }));
    // An unknown version whose envelope lacks something else: the version comes first.
    for meta in [
        json!({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" }),
        json!({ "io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": [] }),
    ] {
        let body =
            json!({ "jsonrpc": "2.0", "id": 8, "method": "server/discover", "params": { "_meta": meta } });
        let req = Req::post(&body)
            .header("mcp-protocol-version", "2099-01-01")
            .header("mcp-method", "server/discover");
        let response = send(t.addr, req).await;
        assert_eq!(response.status, 400);
        let body = response.json().await;
        assert_eq!(body["error"]["code"], -32022, "{body}");
    }
}

/// A version the server does not implement, named alike by the header and `_meta`, is
/// answered `-32022` with the supported list (streamable-http "Protocol Version Header"),
/// whatever other headers the request carries: they are the 2026 revision's, which a
/// client of another revision need not send, and the list is what lets it retry.
#[tokio::test]
async fn an_unsupported_version_is_named_whatever_the_other_headers() {
    let t = start().await;
    let meta = json!({ "io.modelcontextprotocol/protocolVersion": "2099-01-01",
        "io.modelcontextprotocol/clientCapabilities": {} });
    for (id, method, params) in [
        (1, "tools/list", json!({ "_meta": meta })),
        (2, "tools/call", json!({ "name": "echo", "arguments": {}, "_meta": meta })),
    ] {
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let response = send(t.addr, Req::post(&body).header("mcp-protocol-version", "2099-01-01")).await;
        assert_eq!(response.status, 400, "{method}");
        let body = response.json().await;
        assert_eq!((body["id"].clone(), body["error"]["code"].clone()), (json!(id), json!(-32022)), "{body}");
        assert_eq!(body["error"]["data"], json!({ "supported": [V26], "requested": "2099-01-01" }));
    }
}

#[tokio::test]
async fn stateless_removed_methods_get_404_32601() {
    let t = start().await;
    for (id, method) in
        [(1, "ping"), (2, "initialize"), (3, "logging/setLevel"), (4, "resources/subscribe"), (5, "no/such")]
    {
        let params = if method == "logging/setLevel" { json!({ "level": "info" }) } else { json!({}) };
        let response = send(t.addr, stateless_request(id, method, params)).await;
        assert_eq!(response.status, 404, "{method}");
        let body = response.json().await;
        assert_eq!(
            (body["id"].clone(), body["error"]["code"].clone()),
            (json!(id), json!(-32601)),
            "{method}: {body}"
        );
    }
}

#[tokio::test]
async fn stateless_get_and_delete_get_405_allow_post() {
    let t = start().await;
    for method in ["GET", "DELETE"] {
        let req = Req::new(method).header("accept", "text/event-stream").header("mcp-protocol-version", V26);
        let response = send(t.addr, req).await;
        assert_eq!(response.status, 405, "{method}");
        assert_eq!(response.header("allow"), Some("POST"), "{method}");
        assert_eq!(response.json().await, transport_error(-32600, "Method not allowed"));
    }
}

#[tokio::test]
async fn a_handler_that_outruns_its_queue_gets_every_message_out_in_order_then_its_answer() {
    // What a 2026 handler sends before its answer waits in a bounded queue, made when
    // first used (here it holds 4): a handler that sends more waits for room, and
    // nothing is lost, reordered or left behind when the answer comes.
    let t = start_with(HttpSettings { stream_queue: 4, ..Default::default() }).await;
    let req = stateless_request(
        1,
        "tools/call",
        json!({ "name": "flood", "arguments": { "count": 40, "size": 8 },
            "_meta": { "io.modelcontextprotocol/logLevel": "info" } }),
    );
    let mut response = send(t.addr, req).await;
    assert!(response.is_sse());
    for i in 0..40 {
        let message = response.next_message().await;
        assert_eq!(message["method"], "notifications/message", "message {i}: {message}");
        assert_eq!(message["params"]["data"], "xxxxxxxx");
    }
    assert_eq!(response.next_message().await, complete_text(1, "flooded"));
}

#[tokio::test]
async fn closing_a_stateless_response_cancels_the_handler() {
    // Before anything was sent (the answer is not committed yet).
    let t = start().await;
    // No response head comes yet: the server waits to choose JSON or SSE.
    let connection = raw_http::send_only(
        t.addr,
        stateless_request(1, "tools/call", json!({ "name": "slow", "arguments": {} })),
    )
    .await;
    wait_for("the slow tool to start", || t.probe.started.load(Ordering::SeqCst)).await;
    assert!(!t.probe.cancelled.load(Ordering::SeqCst));
    drop(connection);
    wait_for("the handler to be cancelled", || t.probe.cancelled.load(Ordering::SeqCst)).await;
}

#[tokio::test]
async fn closing_a_stateless_sse_response_cancels_the_handler() {
    // After progress committed the answer to SSE.
    let t = start().await;
    let req = stateless_request(
        1,
        "tools/call",
        json!({ "name": "slow_progress", "arguments": {}, "_meta": { "progressToken": 5 } }),
    );
    let mut response = send(t.addr, req).await;
    assert!(response.is_sse());
    assert_eq!(response.next_message().await["method"], "notifications/progress");
    wait_for("the tool to be past its progress", || t.probe.started.load(Ordering::SeqCst)).await;
    assert!(!t.probe.cancelled.load(Ordering::SeqCst));
    drop(response);
    wait_for("the handler to be cancelled", || t.probe.cancelled.load(Ordering::SeqCst)).await;
}

#[tokio::test]
async fn stateless_listen_acknowledges_then_forwards_list_changed() {
    let t = start().await;
    let listen = stateless_request(
        7,
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true } }),
    );
    let mut stream = send(t.addr, listen).await;
    assert_eq!((stream.status, stream.content_type()), (200, "text/event-stream"));
    let ack = stream.next_message().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true);
    let trigger =
        send(t.addr, stateless_request(8, "tools/call", json!({ "name": "notify", "arguments": {} }))).await;
    assert_eq!(trigger.json().await, complete_text(8, "notified"));
    let changed = stream.next_message().await;
    assert_eq!(
        changed,
        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": 7 } } })
    );
}

/// A handler sees the request's whole `_meta` and its envelope, whether the endpoint read
/// the call in one pass (keeping `_meta`'s text, shared with the thread's memory of the
/// last one when it is the same) or on the general path (a progress token, a repeated
/// member).
#[tokio::test]
async fn handlers_see_the_whole_meta_over_http() {
    let t = start().await;
    let shown = |response: Value| response["result"]["structuredContent"].clone();

    let mut meta = envelope();
    meta["example.com/trace"] = json!({ "spans": [1, 2], "escaped": "a\"b\u{e9}" });
    meta["io.modelcontextprotocol/clientInfo"] = json!({ "name": "one-pass", "version": "1" });
    // The same `_meta` again (the remembered text), then one too long to remember.
    let mut long = meta.clone();
    long["example.com/padding"] = json!("x".repeat(2048));
    for (id, meta) in [(1, &meta), (11, &meta), (12, &long), (13, &long), (14, &meta)] {
        let req = stateless_request(id, "tools/call", json!({ "name": "meta", "_meta": meta }));
        assert_eq!(
            shown(send(t.addr, req).await.json().await),
            json!({ "meta": meta, "client": "one-pass", "elicits": false }),
            "request {id}"
        );
    }

    let mut with_token = meta.clone();
    with_token["progressToken"] = json!("p-1");
    with_token["io.modelcontextprotocol/clientCapabilities"] = json!({ "elicitation": {} });
    let req = stateless_request(2, "tools/call", json!({ "name": "meta", "_meta": with_token }));
    assert_eq!(
        shown(send(t.addr, req).await.json().await),
        json!({ "meta": with_token, "client": "one-pass", "elicits": true })
    );

    // A repeated envelope member: a JSON reader keeps the last one.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"meta","_meta":{{"io.modelcontextprotocol/protocolVersion":"{V26}","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"first","version":"1"}},"io.modelcontextprotocol/clientInfo":{{"name":"last","version":"1"}}}}}}}}"#
    );
    let req = stateless_request(3, "tools/call", json!({ "name": "meta" })).body(body.into_bytes());
    assert_eq!(shown(send(t.addr, req).await.json().await)["client"], json!("last"));
}

/// The one-pass reading of a call and the general one answer a flawed call alike: the
/// same error, whichever member is wrong.
#[tokio::test]
async fn flawed_calls_get_the_general_paths_errors() {
    let t = start().await;
    let cases = [
        (json!({ "name": "echo", "arguments": [1] }), -32602),
        (json!({ "name": "echo", "arguments": "x" }), -32602),
        (json!({ "name": "echo", "_meta": { "io.modelcontextprotocol/clientCapabilities": null } }), -32602),
        (json!({ "name": "echo", "_meta": { "io.modelcontextprotocol/logLevel": "loud" } }), -32602),
        (json!({ "name": "nope" }), -32602),
    ];
    for (i, (params, code)) in cases.into_iter().enumerate() {
        let id = i as i64 + 1;
        let body = send(t.addr, stateless_request(id, "tools/call", params.clone())).await.json().await;
        assert_eq!((body["id"].clone(), body["error"]["code"].clone()), (json!(id), json!(code)), "{params}");
    }
}

/// A JSON answer's headers are its own: the request's header map, which the response
/// reuses, is emptied first, so nothing the client sent is echoed back.
#[tokio::test]
async fn a_json_answer_carries_none_of_the_requests_headers() {
    let t = start().await;
    let req = stateless_request(1, "tools/call", json!({ "name": "echo", "arguments": { "text": "h" } }))
        .header("x-secret", "s3");
    let response = send(t.addr, req).await;
    assert_eq!((response.status, response.content_type()), (200, "application/json"));
    for name in ["x-secret", "mcp-method", "mcp-name", "mcp-protocol-version", "host", "accept"] {
        assert_eq!(response.header(name), None, "{name}");
    }
    assert_eq!(response.json().await, complete_text(1, "echo: h"));
}
