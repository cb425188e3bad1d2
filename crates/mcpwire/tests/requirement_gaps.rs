//! Tests for requirement gaps that needed only a test (docs/REQUIREMENTS.md):
//!
//! - G3 (rules 1.12, 4.1.21): a session-less 2025 POST without `MCP-Protocol-Version`
//!   runs at 2025-03-26; a stateful session uses its negotiated version instead.
//! - G16 (rule 2.29): a client compiling an output schema with a network `$ref` never
//!   fetches it.
//! - G22 (rule 4.2.16): the 2026 HTTP client re-fetches `tools/list` once on a `-32020`
//!   answer to `tools/call` (on to the page that lists the tool), and retries once.
//! - G51 (rule 10.6): the OAuth client refuses an authorization server without PKCE
//!   `S256` in `code_challenge_methods_supported`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(feature = "http")]
mod loopback_http;
#[cfg(feature = "http")]
mod mcp_http;
#[cfg(feature = "http")]
mod raw_http;

/// Serves `handler` over HTTP/1.1 on a fresh loopback port; returns `http://127.0.0.1:PORT`.
/// The handler gets the method, the path and query, the headers and the body, and returns
/// the status, extra headers and a JSON body.
#[cfg(feature = "http")]
mod fake_http {
    use std::sync::Arc;

    use bytes::Bytes;
    use http::{HeaderMap, Method, Response, StatusCode};
    use http_body_util::{BodyExt, Full};
    use serde_json::Value;

    /// What a fake server answers: status, extra headers, JSON body.
    pub type Answer = (StatusCode, Vec<(&'static str, String)>, Value);

    pub async fn serve<F>(handler: F) -> String
    where
        F: Fn(Method, String, HeaderMap, Bytes) -> Answer + Send + Sync + 'static,
    {
        let handler = Arc::new(handler);
        super::loopback_http::serve(move |req| {
            let handler = handler.clone();
            Box::pin(async move {
                let (parts, body) = req.into_parts();
                let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                let target = parts.uri.path_and_query().map(|p| p.to_string()).unwrap_or_default();
                let (status, headers, json) = handler(parts.method, target, parts.headers, body);
                let mut builder =
                    Response::builder().status(status).header("content-type", "application/json");
                for (name, value) in headers {
                    builder = builder.header(name, value);
                }
                builder.body(Full::new(Bytes::from(json.to_string()))).unwrap()
            })
        })
        .await
    }
}

// ---------------------------------------------------------------------------------------
// G3: a missing MCP-Protocol-Version header (rules 1.12, 4.1.21)
// ---------------------------------------------------------------------------------------

#[cfg(feature = "http")]
mod g3_missing_version_header {
    use std::collections::HashMap;
    use std::net::SocketAddr;

    use mcpwire::http::{serve_with_shutdown, Bound, HttpSettings, McpService};
    use mcpwire::server::{tool, Args, Ctx, Server};
    use serde_json::{json, Value};

    use crate::mcp_http::{answer, call_body, messages, open_session, V25};
    use crate::raw_http::{send, Req};

    /// A server whose `version` tool answers with the protocol version its request runs
    /// at, and whose `count` tool takes a typed argument (bad arguments are `-32602`
    /// before 2025-11-25 and a tool execution error from 2025-11-25 on).
    fn server() -> Server {
        Server::builder("gaps-version", "0")
            .tool(
                tool("version")
                    .description("The protocol version of this request")
                    .handler(|ctx: Ctx| async move { ctx.protocol_version().as_str().to_owned() }),
            )
            .tool(
                tool("count")
                    .description("Takes an integer")
                    .input_schema(json!({
                        "type": "object",
                        "properties": { "n": { "type": "integer" } },
                        "required": ["n"]
                    }))
                    .handler(|Args(a): Args<HashMap<String, i64>>| async move { format!("n = {}", a["n"]) }),
            )
            .build()
            .unwrap()
    }

    /// A running endpoint at `/mcp`; shut down on drop.
    struct Running(Bound);

    impl Drop for Running {
        fn drop(&mut self) {
            self.0.shutdown.cancel();
        }
    }

    async fn start(settings: HttpSettings) -> (SocketAddr, Running) {
        let bound = serve_with_shutdown(McpService::with_settings(server(), settings), "127.0.0.1:0", "/mcp")
            .await
            .unwrap();
        (bound.local_addr, Running(bound))
    }

    /// The text of a tool result.
    fn text(answer: &Value) -> &str {
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("not a text result: {answer}"))
    }

    /// `count` with an argument of the wrong type.
    fn bad_count(id: i64) -> Value {
        call_body(id, "count", json!({ "n": "not a number" }))
    }

    /// Every answer in the response to a batch (SSE events or one JSON array), by id.
    async fn batch_answers(response: crate::raw_http::Response) -> Vec<Value> {
        let mut out: Vec<Value> = messages(response)
            .await
            .into_iter()
            .flat_map(|m| match m {
                Value::Array(items) => items,
                one => vec![one],
            })
            .collect();
        out.sort_by_key(|a| a["id"].as_i64());
        out
    }

    #[tokio::test]
    async fn sessionless_post_without_the_header_runs_at_2025_03_26() {
        let (addr, _server) = start(HttpSettings { sessionless: true, ..HttpSettings::default() }).await;

        // The request's version, as the handler sees it: 2025-03-26 without the header,
        // the header's revision with one.
        let plain = answer(send(addr, Req::post(&call_body(1, "version", json!({})))).await).await;
        assert_eq!(text(&plain), "2025-03-26", "{plain}");
        for named in ["2025-06-18", V25] {
            let req = Req::post(&call_body(2, "version", json!({}))).header("mcp-protocol-version", named);
            assert_eq!(text(&answer(send(addr, req).await).await), named);
        }

        // What the version changes on the wire: bad arguments are a JSON-RPC -32602
        // at 2025-03-26 (no header), a tool execution error at 2025-11-25.
        let without = answer(send(addr, Req::post(&bad_count(3))).await).await;
        assert_eq!(without["error"]["code"], -32602, "no header: 2025-03-26 rules: {without}");
        let with =
            answer(send(addr, Req::post(&bad_count(4)).header("mcp-protocol-version", V25)).await).await;
        assert_eq!(with["result"]["isError"], true, "2025-11-25 rules: {with}");

        // A batch (2025-03-26 only) is accepted without the header, and each of its
        // requests runs at 2025-03-26; the same batch naming 2025-06-18 is refused.
        let batch = json!([call_body(5, "version", json!({})), bad_count(6)]);
        let response = send(addr, Req::post(&batch)).await;
        assert_eq!(response.status, 200);
        let answers = batch_answers(response).await;
        assert_eq!(answers.len(), 2, "{answers:?}");
        assert_eq!(text(&answers[0]), "2025-03-26");
        assert_eq!(answers[1]["error"]["code"], -32602, "{}", answers[1]);
        let refused = send(addr, Req::post(&batch).header("mcp-protocol-version", "2025-06-18")).await;
        assert_eq!(refused.status, 400);
        assert_eq!(refused.json().await["error"]["code"], -32600);
    }

    #[tokio::test]
    async fn stateful_session_without_the_header_keeps_its_negotiated_version() {
        let (addr, _server) = start(HttpSettings::default()).await;
        let sid = open_session(addr, V25).await;
        // In the session, and without MCP-Protocol-Version.
        let in_session = |body: &Value| Req::post(body).header("mcp-session-id", &sid);

        let version = answer(send(addr, in_session(&call_body(1, "version", json!({})))).await).await;
        assert_eq!(text(&version), V25, "the negotiated version, not 2025-03-26: {version}");
        let bad = answer(send(addr, in_session(&bad_count(2))).await).await;
        assert_eq!(bad["result"]["isError"], true, "2025-11-25 rules, not 2025-03-26's -32602: {bad}");
        // A batch is refused: the session's version does not take batches, whatever a
        // missing header would otherwise mean.
        let batch = json!([call_body(3, "version", json!({})), call_body(4, "version", json!({}))]);
        let refused = send(addr, in_session(&batch)).await;
        assert_eq!(refused.status, 400);
        assert_eq!(
            refused.json().await["error"]["message"],
            "Invalid request: batches are only accepted at protocol version 2025-03-26"
        );

        // A session negotiated at 2025-03-26 (which has no header at all) still takes them.
        let old = open_session(addr, "2025-03-26").await;
        let response = send(addr, Req::post(&batch).header("mcp-session-id", &old)).await;
        assert_eq!(response.status, 200);
        let answers = batch_answers(response).await;
        assert_eq!(
            answers.iter().map(|a| text(a).to_owned()).collect::<Vec<_>>(),
            ["2025-03-26", "2025-03-26"]
        );
    }
}

// ---------------------------------------------------------------------------------------
// G16: a network $ref in an output schema is never fetched (rule 2.29); G17: a schema
// whose check could cost without bound is refused (rule 2.30)
// ---------------------------------------------------------------------------------------

mod g16_network_ref {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use mcpwire::client::Client;
    use mcpwire::protocol::{Message, ProtocolVersion, Response};
    use mcpwire::transport::{memory, Connection, Outgoing, TransportEvent};
    use mcpwire::RequestError;
    use serde_json::json;

    /// A 2026 peer over a memory transport: `tools/list` lists `remote` (whose output
    /// schema's `value` refers to `schema_url`), `local` (`value` typed inline) and
    /// `looping` (a `$ref` back to the root through `anyOf`); every `tools/call` returns
    /// structured content that lacks the required `value`.
    fn peer(schema_url: String, lists: Arc<AtomicUsize>) -> Connection {
        let (ours, mut theirs) = memory::pair();
        tokio::spawn(async move {
            while let Some(event) = theirs.incoming.recv().await {
                let TransportEvent::Message(inbound) = event else { continue };
                let Message::Request(request) = inbound.message else { continue };
                let result = match request.method.as_str() {
                    "tools/list" => {
                        lists.fetch_add(1, Ordering::SeqCst);
                        let input = json!({ "type": "object" });
                        json!({ "resultType": "complete", "tools": [
                            { "name": "remote", "inputSchema": input, "outputSchema": {
                                "type": "object",
                                "properties": { "value": { "$ref": schema_url } },
                                "required": ["value"]
                            } },
                            { "name": "local", "inputSchema": input, "outputSchema": {
                                "type": "object",
                                "properties": { "value": { "type": "string" } },
                                "required": ["value"]
                            } },
                            { "name": "looping", "inputSchema": input, "outputSchema": {
                                "type": "object",
                                "anyOf": [{ "$ref": "#" }, { "required": ["value"] }]
                            } }
                        ] })
                    }
                    "tools/call" => json!({
                        "resultType": "complete",
                        "content": [{ "type": "text", "text": "{\"other\":1}" }],
                        "structuredContent": { "other": 1 }
                    }),
                    _ => json!({ "resultType": "complete" }),
                };
                let raw = serde_json::value::to_raw_value(&result).unwrap();
                if theirs.outgoing.send(Outgoing::unrelated(Response::new(request.id, raw))).await.is_err() {
                    return;
                }
            }
        });
        ours
    }

    #[tokio::test]
    async fn an_output_schema_with_a_network_ref_is_never_fetched() {
        // Where the `$ref` points: a listener that would see any fetch. The client
        // compiles schemas synchronously inside `call_tool`, so a fetch would have
        // connected (the kernel completes the handshake into the backlog) before the
        // call returns: a non-blocking `accept` afterwards tells, without waiting.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/schema.json", listener.local_addr().unwrap());
        let lists = Arc::new(AtomicUsize::new(0));
        let client = Client::builder("c", "1")
            .protocol_version(ProtocolVersion::V2026_07_28)
            .connect(peer(url, lists.clone()))
            .await
            .unwrap();
        let within = |f| tokio::time::timeout(Duration::from_secs(10), f);

        // The output check is on: `local`'s result lacks the required `value`.
        match within(client.call_tool("local", json!({}))).await.unwrap() {
            Err(RequestError::Protocol(message)) => {
                assert!(message.contains("does not match its outputSchema"), "{message}")
            }
            other => panic!("the inline schema is checked: {other:?}"),
        }
        assert_eq!(lists.load(Ordering::SeqCst), 1, "the schemas were learned from tools/list");

        // `remote`'s schema refers outside itself: never fetched, so unusable, and its
        // results are refused with the reason rather than passed unchecked (rule 2.30).
        match within(client.call_tool("remote", json!({}))).await.unwrap() {
            Err(RequestError::Protocol(message)) => {
                assert!(message.contains("points outside the schema"), "{message}")
            }
            other => panic!("a schema with an outside $ref is refused: {other:?}"),
        }

        // `looping` would send a validator round its `$ref` until the stack overflowed
        // (with the `jsonschema` feature): refused with the reason instead.
        match within(client.call_tool("looping", json!({}))).await.unwrap() {
            Err(RequestError::Protocol(message)) => {
                assert!(message.contains("leads back to itself"), "{message}")
            }
            other => panic!("a schema whose check never ends is refused: {other:?}"),
        }

        match listener.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Ok((_, from)) => panic!("the client fetched the network $ref (a connection from {from})"),
            Err(e) => panic!("accept failed: {e}"),
        }
        client.close().await;
    }
}

// ---------------------------------------------------------------------------------------
// G22: -32020 → re-fetch tools/list once, retry once (rule 4.2.16)
// ---------------------------------------------------------------------------------------

#[cfg(feature = "http")]
mod g22_header_mismatch_retry {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use http::StatusCode;
    use mcpwire::client::Client;
    use mcpwire::protocol::ProtocolVersion;
    use mcpwire::transport::http_client::HttpClientTransport;
    use mcpwire::RequestError;
    use serde_json::{json, Value};

    use crate::fake_http::serve;

    /// One POST the fake server received.
    #[derive(Clone, Debug)]
    struct Seen {
        method: String,
        id: Value,
        /// The `Mcp-Param-Region` header (from the tool's `x-mcp-header` annotation).
        region: Option<String>,
        /// The `MCP-Protocol-Version` header.
        version: Option<String>,
        /// The request's `params._meta`.
        meta: Value,
    }

    /// A 2026 server whose `region` tool mirrors its `region` argument in the
    /// `Mcp-Param-Region` header. It answers `tools/call` with `400` and `-32020` when
    /// that header is missing (or always, with `always_mismatch`), and lists the tool
    /// with its annotation (with `paged`, on a second page after a tool without one).
    async fn fake_server(always_mismatch: bool, paged: bool) -> (String, Arc<Mutex<Vec<Seen>>>) {
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let log = seen.clone();
        let base = serve(move |_, _, headers, body| {
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
            let method = request["method"].as_str().unwrap_or_default().to_owned();
            let id = request["id"].clone();
            let region = header("mcp-param-region");
            log.lock().unwrap().push(Seen {
                method: method.clone(),
                id: id.clone(),
                region: region.clone(),
                version: header("mcp-protocol-version"),
                meta: request["params"]["_meta"].clone(),
            });
            match method.as_str() {
                "tools/list" if paged && request["params"]["cursor"].is_null() => (
                    StatusCode::OK,
                    vec![],
                    json!({ "jsonrpc": "2.0", "id": id, "result": { "resultType": "complete", "tools": [{
                        "name": "other", "inputSchema": { "type": "object" }
                    }], "nextCursor": "2" } }),
                ),
                "tools/list" => (
                    StatusCode::OK,
                    vec![],
                    json!({ "jsonrpc": "2.0", "id": id, "result": { "resultType": "complete", "tools": [{
                        "name": "region",
                        "inputSchema": {
                            "type": "object",
                            "properties": { "region": { "type": "string", "x-mcp-header": "Region" } },
                            "required": ["region"]
                        }
                    }] } }),
                ),
                "tools/call" if region.is_some() && !always_mismatch => (
                    StatusCode::OK,
                    vec![],
                    json!({ "jsonrpc": "2.0", "id": id, "result": {
                        "resultType": "complete",
                        "content": [{ "type": "text", "text": format!("region: {}", region.unwrap()) }]
                    } }),
                ),
                "tools/call" => (
                    StatusCode::BAD_REQUEST,
                    vec![],
                    json!({ "jsonrpc": "2.0", "id": id, "error": {
                        "code": -32020,
                        "message": "Header mismatch: the Mcp-Param-Region header is missing"
                    } }),
                ),
                _ => (
                    StatusCode::NOT_FOUND,
                    vec![],
                    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "Method not found" } }),
                ),
            }
        })
        .await;
        (format!("{base}/mcp"), seen)
    }

    async fn client(url: &str) -> Client {
        Client::builder("t", "0")
            .protocol_version(ProtocolVersion::V2026_07_28)
            .connect(HttpClientTransport::new(url).unwrap())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_32020_answer_refetches_the_tool_list_and_retries_with_its_headers() {
        let (url, seen) = fake_server(false, false).await;
        let client = client(&url).await;
        let call = client.call_tool("region", json!({ "region": "eu-west" }));
        let result =
            tokio::time::timeout(Duration::from_secs(10), call).await.expect("the call returns").unwrap();
        assert_eq!(result.content[0].as_text(), Some("region: eu-west"));

        let seen = seen.lock().unwrap().clone();
        let methods: Vec<&str> = seen.iter().map(|s| s.method.as_str()).collect();
        // The call without the header (the client had never listed the tools), the
        // re-fetch, and the retry with the header the fresh list named. (A later
        // tools/list is the client learning output schemas, not this retry.)
        assert!(methods.len() >= 3, "{seen:?}");
        assert_eq!(&methods[..3], ["tools/call", "tools/list", "tools/call"], "{seen:?}");
        assert_eq!(seen[0].region, None);
        assert_eq!(seen[1].version.as_deref(), Some("2026-07-28"), "the re-fetch is a 2026 request");
        assert_eq!(seen[2].region.as_deref(), Some("eu-west"), "the retry carries Mcp-Param-Region");
        assert_eq!(seen[2].id, seen[0].id, "the same request, sent again");
        assert_eq!(methods.iter().filter(|m| **m == "tools/call").count(), 2, "{seen:?}");
    }

    /// The re-fetch reads on past the first page to the one that lists the called tool.
    #[tokio::test]
    async fn a_32020_refetch_reads_on_to_the_page_that_lists_the_tool() {
        let (url, seen) = fake_server(false, true).await;
        let client = client(&url).await;
        let call = client.call_tool("region", json!({ "region": "eu-west" }));
        let result =
            tokio::time::timeout(Duration::from_secs(10), call).await.expect("the call returns").unwrap();
        assert_eq!(result.content[0].as_text(), Some("region: eu-west"));
        let seen = seen.lock().unwrap().clone();
        let methods: Vec<&str> = seen.iter().map(|s| s.method.as_str()).collect();
        assert_eq!(&methods[..4], ["tools/call", "tools/list", "tools/list", "tools/call"], "{seen:?}");
        assert_eq!(seen[3].region.as_deref(), Some("eu-west"), "the retry carries Mcp-Param-Region");
    }

    /// The re-fetch is a `tools/list` of its own: its `_meta` is the 2026 envelope
    /// (version, capabilities, client info), not the failed call's whole `_meta` (whose
    /// progress token names the call, and whose other keys were the caller's for it).
    #[tokio::test]
    async fn a_32020_refetch_carries_the_envelope_not_the_calls_meta() {
        use mcpwire::client::RequestOptions;
        let (url, seen) = fake_server(false, false).await;
        let client = client(&url).await;
        let mut extra = serde_json::Map::new();
        extra.insert("com.example/call-note".into(), json!("for the call alone"));
        let options = RequestOptions::default().on_progress(|_| {}).meta(extra);
        let call = client.call_tool_with("region", json!({ "region": "eu-west" }), options);
        tokio::time::timeout(Duration::from_secs(10), call).await.expect("the call returns").unwrap();
        let seen = seen.lock().unwrap().clone();
        let (call, list) = (&seen[0].meta, &seen[1].meta);
        assert_eq!(seen[1].method, "tools/list", "{seen:?}");
        assert!(call.get("progressToken").is_some() && call.get("com.example/call-note").is_some(), "{call}");
        let mut keys: Vec<&str> = list.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        let envelope = [
            "io.modelcontextprotocol/clientCapabilities",
            "io.modelcontextprotocol/clientInfo",
            "io.modelcontextprotocol/protocolVersion",
        ];
        assert_eq!(keys, envelope, "the re-fetch's _meta: {list}");
        for key in envelope {
            assert_eq!(list[key], call[key], "{key}: as the call's");
        }
    }

    #[tokio::test]
    async fn a_second_32020_is_returned_to_the_caller_not_retried_again() {
        let (url, seen) = fake_server(true, false).await;
        let client = client(&url).await;
        let call = client.call_tool("region", json!({ "region": "eu-west" }));
        let answered = tokio::time::timeout(Duration::from_secs(10), call).await;
        let error =
            answered.expect("the call returns (a -32020 retried without end never does)").unwrap_err();
        match &error {
            RequestError::Peer(e) => assert_eq!(e.code, -32020, "{e:?}"),
            other => panic!("the server's -32020 is returned: {other:?}"),
        }
        // The exchange is over when the call returns: exactly one re-fetch, one retry.
        let seen = seen.lock().unwrap().clone();
        let methods: Vec<&str> = seen.iter().map(|s| s.method.as_str()).collect();
        assert_eq!(methods, ["tools/call", "tools/list", "tools/call"], "{seen:?}");
        assert_eq!(seen[2].region.as_deref(), Some("eu-west"));
    }
}

// ---------------------------------------------------------------------------------------
// G51: PKCE S256 or no authorization (rule 10.6)
// ---------------------------------------------------------------------------------------

#[cfg(feature = "auth")]
mod g51_pkce_s256_required {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use http::{Method, StatusCode};
    use mcpwire::auth::{AuthError, AuthorizationHandler, OAuthClient, OAuthConfig};
    use serde_json::{json, Value};

    use crate::fake_http::serve;

    const REDIRECT: &str = "http://127.0.0.1:1/callback";

    /// Approves at once: answers the authorization URL with a redirect carrying a code
    /// and the request's `state`; counts its calls (a user sent to the server).
    struct Approve(Arc<AtomicUsize>);

    impl AuthorizationHandler for Approve {
        fn authorize(&self, url: String) -> Pin<Box<dyn Future<Output = Result<String, AuthError>> + Send>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            let state = url
                .split(['?', '&'])
                .find_map(|pair| pair.strip_prefix("state="))
                .unwrap_or_default()
                .to_owned();
            Box::pin(async move { Ok(format!("{REDIRECT}?code=the-code&state={state}")) })
        }
    }

    /// A protected resource at `/mcp` and its authorization server on one origin (the
    /// issuer), whose metadata has `code_challenge_methods_supported` set to `methods`
    /// (absent when `None`). Returns the resource URL and the paths requested, in order.
    async fn server(methods: Option<Value>) -> (String, Arc<Mutex<Vec<String>>>) {
        let paths: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = paths.clone();
        let base_cell: Arc<Mutex<String>> = Arc::default();
        let base_of = base_cell.clone();
        let base = serve(move |method, target, _, _| {
            let path = target.split('?').next().unwrap_or_default().to_owned();
            log.lock().unwrap().push(path.clone());
            let base = base_of.lock().unwrap().clone();
            match (method, path.as_str()) {
                (Method::GET, "/.well-known/oauth-protected-resource/mcp") => (
                    StatusCode::OK,
                    vec![],
                    json!({ "resource": format!("{base}/mcp"), "authorization_servers": [base] }),
                ),
                (Method::GET, "/.well-known/oauth-authorization-server") => {
                    let mut metadata = json!({
                        "issuer": base,
                        "authorization_endpoint": format!("{base}/authorize"),
                        "token_endpoint": format!("{base}/token"),
                        "registration_endpoint": format!("{base}/register"),
                        "response_types_supported": ["code"],
                    });
                    if let Some(methods) = &methods {
                        metadata["code_challenge_methods_supported"] = methods.clone();
                    }
                    (StatusCode::OK, vec![], metadata)
                }
                (Method::POST, "/register") => {
                    (StatusCode::CREATED, vec![], json!({ "client_id": "registered" }))
                }
                (Method::POST, "/token") => (
                    StatusCode::OK,
                    vec![],
                    json!({ "access_token": "at-1", "token_type": "Bearer", "expires_in": 3600 }),
                ),
                _ => (StatusCode::NOT_FOUND, vec![], json!({ "error": "not_found" })),
            }
        })
        .await;
        *base_cell.lock().unwrap() = base.clone();
        (format!("{base}/mcp"), paths)
    }

    /// One authorization against a server whose metadata has `methods`.
    struct Run {
        outcome: Result<(), AuthError>,
        /// The paths the server saw, in order.
        paths: Vec<String>,
        /// How many times the user was sent to the authorization endpoint.
        sent: usize,
        oauth: OAuthClient,
        resource: String,
    }

    async fn authorize(methods: Option<Value>) -> Run {
        let (resource, paths) = server(methods).await;
        let sent = Arc::new(AtomicUsize::new(0));
        let oauth = OAuthClient::new(OAuthConfig {
            redirect_uri: REDIRECT.into(),
            authorizer: Arc::new(Approve(sent.clone())),
            ..OAuthConfig::default()
        });
        let prm = resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
        let mut challenge = http::HeaderMap::new();
        challenge.insert(
            http::header::WWW_AUTHENTICATE,
            format!(r#"Bearer resource_metadata="{prm}""#).parse().unwrap(),
        );
        let outcome = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            oauth.authorize(&resource, &challenge, false),
        )
        .await
        .expect("the authorization ends");
        let paths = paths.lock().unwrap().clone();
        Run { outcome, paths, sent: sent.load(Ordering::SeqCst), oauth, resource }
    }

    #[tokio::test]
    async fn an_authorization_server_with_s256_is_used() {
        let run = authorize(Some(json!(["plain", "S256"]))).await;
        run.outcome.unwrap();
        assert_eq!(run.sent, 1);
        assert!(run.paths.contains(&"/token".to_owned()), "{:?}", run.paths);
        let headers = run.oauth.request_headers(&Method::POST, &run.resource.parse().unwrap()).await;
        assert_eq!(headers["authorization"], "Bearer at-1");
    }

    #[tokio::test]
    async fn an_authorization_server_without_s256_is_refused_before_any_use() {
        let cases = [
            ("no code_challenge_methods_supported", None),
            ("plain only", Some(json!(["plain"]))),
            ("empty list", Some(json!([]))),
            ("a string, not a list", Some(json!("S256"))),
        ];
        for (case, methods) in cases {
            let Run { outcome, paths, sent, .. } = authorize(methods).await;
            match outcome {
                Err(AuthError::Protocol(message)) => {
                    assert!(message.contains("PKCE S256"), "{case}: {message}")
                }
                other => panic!("{case}: the authorization server must be refused: {other:?}"),
            }
            // Discovery only: no registration, no user sent to it, no token request.
            assert_eq!(
                paths,
                ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"],
                "{case}"
            );
            assert_eq!(sent, 0, "{case}: no user is sent to the authorization endpoint");
        }
    }
}
