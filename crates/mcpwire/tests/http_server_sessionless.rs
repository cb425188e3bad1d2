//! The Streamable HTTP server serving 2025-era requests without sessions
//! (`HttpSettings::sessionless`) over real loopback sockets: POSTs answered with no
//! session, JSON mode, GET and DELETE refused, a closed response cancelling its request,
//! and no task left behind by deleted sessions or session-less requests. Requests are
//! written byte for byte by `raw_http`; the server under test is in
//! `http_server_support`; the session transport is tested in `http_server.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http_server_support;
mod mcp_http;
mod raw_http;

use http_server_support::*;

// ---------------------------------------------------------------------------------------
// 2025 without sessions (`sessionless`), and leaks
// ---------------------------------------------------------------------------------------

fn stateless() -> HttpSettings {
    HttpSettings { sessionless: true, ..Default::default() }
}

#[tokio::test]
async fn sessionless_serves_posts_without_a_session() {
    let t = start_with(stateless()).await;
    let init = send(t.addr, Req::post(&initialize_body(1, V25))).await;
    assert_eq!((init.status, init.header("mcp-session-id")), (200, None));
    assert_eq!(only_answer(init).await["result"]["protocolVersion"], V25);
    // No session id needed (and none kept): every POST stands alone.
    let req =
        Req::post(&call_body(2, "echo", json!({ "text": "alone" }))).header("mcp-protocol-version", V25);
    let call = send(t.addr, req).await;
    assert_eq!(call.status, 200);
    assert_eq!(only_answer(call).await, text_result(2, "echo: alone"));
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    assert_eq!(send(t.addr, Req::post(&note).header("mcp-protocol-version", V25)).await.status, 202);
    assert_eq!(t.service.session_count(), 0);
    // Without a header the request runs at 2025-03-26, where batches are accepted.
    let batch = json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }, call_body(2, "echo", json!({ "text": "b" }))]);
    let mut answers: Vec<Value> =
        send(t.addr, Req::post(&batch)).await.events_to_end().await.iter().map(|e| e.json()).collect();
    answers.sort_by_key(|a| a["id"].as_i64());
    assert_eq!(answers, vec![json!({ "jsonrpc": "2.0", "id": 1, "result": {} }), text_result(2, "echo: b")]);
    let response = send(t.addr, Req::post(&batch).header("mcp-protocol-version", V25)).await;
    assert_eq!(response.status, 400);
    // A batch with no valid member: an error for each (JSON-RPC 2.0), with 400.
    let response = send(t.addr, Req::post(&json!([1, 2, 3]))).await;
    assert_eq!(response.status, 400);
    let errors = response.json().await;
    assert_eq!(errors.as_array().map(Vec::len), Some(3), "{errors}");
    assert!(errors.as_array().unwrap().iter().all(|e| e["error"]["code"] == -32600), "{errors}");
}

/// The one answer of a session-less 2025 POST: a JSON body, or an SSE stream that holds
/// only the answer (no priming event: nothing can be resumed).
async fn only_answer(mut response: raw_http::Response) -> Value {
    if !response.is_sse() {
        return response.json().await;
    }
    let events = response.events_to_end().await;
    assert_eq!(events.len(), 1, "no priming event: nothing can be resumed: {events:?}");
    assert_eq!(events[0].id, None);
    events[0].json()
}

#[tokio::test]
async fn sessionless_json_mode_and_no_client_capabilities() {
    let t = start_with(HttpSettings { sessionless: true, json_response: true, ..Default::default() }).await;
    let req = |body: &Value| Req::post(body).header("mcp-protocol-version", V25);
    let response = send(t.addr, req(&call_body(2, "echo", json!({ "text": "j" })))).await;
    assert_eq!((response.status, response.content_type()), (200, "application/json"));
    assert_eq!(response.json().await, text_result(2, "echo: j"));
    // The handler sees the identity the server assumes for the client, and no capabilities.
    let seen = send(t.addr, req(&call_body(4, "meta", json!({})))).await.json().await;
    let structured = &seen["result"]["structuredContent"];
    assert_eq!(
        (&structured["client"], &structured["elicits"]),
        (&json!("stateless-http-client"), &json!(false))
    );
    // The throwaway session knows no client capabilities and has no way to ask: asking the
    // client fails at once, with the code 2025 has for a missing capability (-32021 exists
    // only in 2026) and a message that says why (the client may well have declared it).
    let started = Instant::now();
    let answer = send(t.addr, req(&call_body(3, "ask", json!({})))).await.json().await;
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        answer,
        json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32601, "message": "Method not found: this request cannot ask the client anything (a server without sessions, or one answering in JSON only, sends it no requests)",
            "data": { "requiredCapabilities": { "elicitation": { "form": {} } } } } })
    );
}

/// A session-less 2025 request's JSON-RPC error comes with `200`, as in a session: 2025
/// gives a request's errors no HTTP status of their own, and its clients take another
/// status for a failed exchange (the TypeScript SDK's client throws the body away; a `404`
/// reads as an expired session). 2026 requests on the same endpoint get that era's
/// statuses: `404` for an unknown method, `400` for a refused envelope, `200` for the
/// request's own errors.
#[tokio::test]
async fn sessionless_errors_come_with_200_and_2026_ones_with_their_status() {
    for json_response in [false, true] {
        let t = start_with(HttpSettings { sessionless: true, json_response, ..Default::default() }).await;
        let req = |body: &Value| Req::post(body).header("mcp-protocol-version", V25);
        let cases = [
            (call_body(1, "no_such_tool", json!({})), -32602),
            (json!({ "jsonrpc": "2.0", "id": 2, "method": "no/such/method" }), -32601),
            (call_body(3, "ask", json!({})), -32601),
        ];
        for (body, code) in cases {
            let response = send(t.addr, req(&body)).await;
            assert_eq!(response.status, 200, "json_response {json_response}: {body}");
            let answer = only_answer(response).await;
            assert_eq!(
                (answer["id"].clone(), answer["error"]["code"].clone()),
                (body["id"].clone(), json!(code))
            );
        }
        let unknown_tool =
            send(t.addr, stateless_request(4, "tools/call", json!({ "name": "no_such_tool" }))).await;
        assert_eq!(unknown_tool.status, 200, "json_response {json_response}");
        assert_eq!(unknown_tool.json().await["error"]["code"], -32602);
        let bad_envelope = json!({ "_meta": { "io.modelcontextprotocol/clientCapabilities": [] } });
        let bad_envelope = send(t.addr, stateless_request(6, "tools/list", bad_envelope)).await;
        assert_eq!(bad_envelope.status, 400, "json_response {json_response}");
        assert_eq!(bad_envelope.json().await["error"]["code"], -32602);
        let unknown_method = send(t.addr, stateless_request(5, "no/such/method", json!({}))).await;
        assert_eq!(unknown_method.status, 404, "json_response {json_response}");
        assert_eq!(unknown_method.json().await["error"]["code"], -32601);
    }
}

#[tokio::test]
async fn sessionless_get_and_delete_get_405() {
    let t = start_with(stateless()).await;
    for method in ["GET", "DELETE"] {
        let req = Req::new(method).header("accept", "text/event-stream").header("mcp-protocol-version", V25);
        let response = send(t.addr, req).await;
        assert_eq!(response.status, 405, "{method}");
        assert_eq!(response.header("allow"), Some("POST"), "{method}");
    }
}

#[tokio::test]
async fn sessionless_closing_the_response_cancels_and_nothing_leaks() {
    let t = start_with(stateless()).await;
    let req = |body: &Value| Req::post(body).header("mcp-protocol-version", V25);
    only_answer(send(t.addr, req(&call_body(1, "echo", json!({})))).await).await;
    let baseline = settled_tasks().await;
    for id in 2..22 {
        let call = send(t.addr, req(&call_body(id, "echo", json!({ "text": "x" })))).await;
        assert_eq!(only_answer(call).await["id"], id);
    }
    tasks_back_to(baseline).await;
    // The handler sends nothing, so the response may stay uncommitted (no head yet).
    let call = raw_http::send_only(t.addr, req(&call_body(30, "slow", json!({})))).await;
    wait_for("the slow tool to start", || t.probe.started.load(Ordering::SeqCst)).await;
    drop(call);
    wait_for("the handler to be cancelled", || t.probe.cancelled.load(Ordering::SeqCst)).await;
    tasks_back_to(baseline).await;
}

#[tokio::test]
async fn deleted_and_stateless_requests_leave_no_task_behind() {
    let t = start().await;
    let sid = open_session(t.addr, V25).await;
    send(t.addr, in_session(Req::new("DELETE"), &sid, V25)).await.bytes().await;
    let stateless_call = || stateless_request(1, "tools/call", json!({ "name": "echo", "arguments": {} }));
    send(t.addr, stateless_call()).await.json().await;
    let baseline = settled_tasks().await;
    for _ in 0..10 {
        let sid = open_session(t.addr, V25).await;
        let mut call = post(t.addr, &sid, &call_body(2, "echo", json!({}))).await;
        call.events_to_end().await;
        send(t.addr, in_session(Req::new("DELETE"), &sid, V25)).await.bytes().await;
        send(t.addr, stateless_call()).await.json().await;
    }
    tasks_back_to(baseline).await;
}

/// Session-less 2025 requests keep nothing between POSTs: a task created by one could
/// never be polled by the next. Such a server offers no core tasks: it declares no
/// `tasks` capability, and a call is served in place, `params.task` ignored (2025-11-25:
/// "Receivers that do not declare the task capability for a request type MUST process
/// requests of that type normally, ignoring any task-augmentation metadata if present").
#[tokio::test]
async fn sessionless_offers_no_core_tasks() {
    let server = Server::builder("sessionless-tasks", "0.1.0")
        .tool(
            tool("job")
                .task_support(mcpwire::server::tasks::TaskSupport::Required)
                .handler(|| async { "job done" }),
        )
        .build()
        .unwrap();
    let service = McpService::with_settings(server, stateless());
    let bound = serve_with_shutdown(service, "127.0.0.1:0", "/mcp").await.unwrap();
    let addr = bound.local_addr;
    let init = only_answer(send(addr, Req::post(&initialize_body(1, V25))).await).await;
    assert!(init["result"]["capabilities"].get("tasks").is_none(), "{init}");
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    let list = only_answer(send(addr, Req::post(&list).header("mcp-protocol-version", V25)).await).await;
    assert!(list["result"]["tools"][0].get("execution").is_none(), "{list}");
    let mut call = call_body(3, "job", json!({}));
    call["params"]["task"] = json!({});
    let call = only_answer(send(addr, Req::post(&call).header("mcp-protocol-version", V25)).await).await;
    assert_eq!(call, text_result(3, "job done"));
    bound.shutdown.cancel();
}

/// A 2025 `tools/call` of `name` without a session, with a progress token.
fn sessionless_call(id: i64, name: &str) -> Req {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": name, "arguments": {}, "_meta": { "progressToken": id } } });
    Req::post(&body).header("mcp-protocol-version", V25)
}

fn connection_closed(id: i64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32000, "message": "Connection closed" } })
}

#[tokio::test]
async fn sessionless_a_streaming_request_at_shutdown_ends_with_connection_closed() {
    let t = start_with(stateless()).await;
    // Its progress notification committed the response to SSE.
    let mut call = send(t.addr, sessionless_call(1, "slow_progress")).await;
    assert_eq!(call.next_message().await["method"], "notifications/progress");
    t.bound.shutdown.cancel();
    let ended: Vec<Value> =
        call.expect_end_within(Duration::from_secs(2)).await.iter().map(|e| e.json()).collect();
    assert_eq!(ended, vec![connection_closed(1)]);
    wait_for("the handler to be cancelled", || t.probe.cancelled.load(Ordering::SeqCst)).await;
}

#[tokio::test]
async fn sessionless_a_request_not_yet_answered_at_shutdown_gets_connection_closed_with_200() {
    for json_response in [false, true] {
        let t = start_with(HttpSettings { sessionless: true, json_response, ..Default::default() }).await;
        // The handler sends nothing: the response is not committed (no head yet).
        let call = raw_http::send_only(t.addr, sessionless_call(2, "slow")).await;
        wait_for("the slow tool to start", || t.probe.started.load(Ordering::SeqCst)).await;
        t.bound.shutdown.cancel();
        let response = raw_http::read_response(call).await;
        // A 2025 answer is 200 whatever it says, as a session's is: that era's clients
        // take any other status for a failed exchange and drop the answer.
        assert_eq!(response.status, 200, "json_response: {json_response}");
        assert_eq!(only_answer(response).await, connection_closed(2), "json_response: {json_response}");
    }
}
