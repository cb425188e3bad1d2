//! The client's era probe against a hand-driven server: what it does with the server's
//! requests that arrive before the era is known, and how a saved discover result that no
//! longer fits the server is dropped for a new probe.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod raw_http_server;
mod raw_server;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::json_of;
use mcpwire::client::{Client, ClientBuilder};
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::{codes, ErrorObject, ErrorResponse, Message, ProtocolVersion, Request, RequestId};
use mcpwire::transport::memory;
use raw_server::*;
use serde_json::{json, Value};

/// A client with sampling and roots callbacks that count their calls.
fn counting(calls: &Arc<AtomicUsize>) -> ClientBuilder {
    let (roots, sampling) = (calls.clone(), calls.clone());
    Client::builder("c", "1")
        .on_roots(move || {
            roots.fetch_add(1, Ordering::SeqCst);
            async { Ok(mcpwire::protocol::roots::ListRootsResult { roots: vec![], ..Default::default() }) }
        })
        .on_sampling(move |_| {
            sampling.fetch_add(1, Ordering::SeqCst);
            async { Err(mcpwire::McpError::internal("not here")) }
        })
}

fn server_request(id: &str, method: &str, params: Value) -> Request {
    Request::new(
        RequestId::String(id.into()),
        method,
        Some(serde_json::value::to_raw_value(&params).unwrap()),
    )
}

/// The client's answers to the server's requests, by id, until there are `n`.
async fn answers(raw: &mut RawServer, n: usize) -> Vec<(String, Value)> {
    let mut seen = Vec::new();
    while seen.len() < n {
        let (id, answer) = match raw.next().await {
            Message::Response(r) => (r.id, serde_json::from_str::<Value>(r.result.get()).unwrap()),
            Message::Error(e) => (e.id.unwrap(), json!({ "error": e.error.code })),
            other => panic!("expected an answer, got {}", json_of(&other)),
        };
        let id = match id {
            RequestId::String(s) => s,
            RequestId::Number(n) => n.to_string(),
        };
        seen.push((id, answer));
    }
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    seen
}

fn refused(id: RequestId, code: i64) -> ErrorResponse {
    ErrorResponse::new(Some(id), ErrorObject::new(code, "scripted error"))
}

/// The server's requests that arrive while the probe is out (no era, no capabilities
/// declared to anyone yet): `ping` is answered, as in both eras' handshakes; the others
/// are refused with `-32600`, without calling the callbacks. Once the 2025 handshake is
/// done the same request reaches its callback.
#[tokio::test]
async fn requests_before_the_era_is_known_get_ping_answered_and_the_rest_refused() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let connecting = tokio::spawn(counting(&calls).connect(ours));
    let probe = raw.next_request("server/discover").await;
    raw.send(server_request("a-ping", "ping", json!({}))).await;
    raw.send(server_request("b-roots", "roots/list", json!({}))).await;
    let sample = json!({ "messages": [], "maxTokens": 1 });
    raw.send(server_request("c-sampling", "sampling/createMessage", sample)).await;
    let seen = answers(&mut raw, 3).await;
    assert_eq!(
        seen,
        [
            ("a-ping".to_owned(), json!({})),
            ("b-roots".to_owned(), json!({ "error": codes::INVALID_REQUEST })),
            ("c-sampling".to_owned(), json!({ "error": codes::INVALID_REQUEST })),
        ]
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0, "a callback ran before the era was known");
    // A 2025-era server: the handshake, then the same question is answered.
    raw.send(refused(probe.id, codes::METHOD_NOT_FOUND)).await;
    serve_handshake(&mut raw).await;
    let client = connecting.await.unwrap().unwrap();
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25);
    raw.send(server_request("d-roots", "roots/list", json!({}))).await;
    let seen = answers(&mut raw, 1).await;
    assert_eq!(seen, [("d-roots".to_owned(), json!({ "roots": [] }))]);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    client.close().await;
}

/// Every request the scripted server read: its method and whether it carried the 2026
/// envelope.
type Seen = Arc<std::sync::Mutex<Vec<(String, bool)>>>;

/// A 2025-era server, as a connection made from a saved 2026 result meets it: every
/// enveloped request, and every method but `initialize` and `tools/list`, is refused
/// with `-32600`.
fn a_2025_era_server() -> (mcpwire::transport::Connection, Seen) {
    scripted(|method, enveloped| match (method, enveloped) {
        (_, true) => Err(codes::INVALID_REQUEST),
        ("initialize", false) => Ok(initialize_result()),
        ("tools/list", false) => Ok(tools_page()),
        _ => Err(codes::INVALID_REQUEST),
    })
}

/// A server that answers each request with `answer(method, enveloped)` (a result, or an
/// error code) and records it; notifications are read and dropped.
fn scripted(
    answer: impl Fn(&str, bool) -> Result<Value, i64> + Send + 'static,
) -> (mcpwire::transport::Connection, Seen) {
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let seen: Seen = Default::default();
    let record = seen.clone();
    tokio::spawn(async move {
        while let Some(message) = raw.next_within(std::time::Duration::from_secs(30)).await {
            let Message::Request(request) = message else { continue };
            let enveloped =
                params_of(&request)["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some();
            record.lock().unwrap().push((request.method.clone(), enveloped));
            match answer(&request.method, enveloped) {
                Ok(result) => raw.answer(request.id, result).await,
                Err(code) => {
                    let data =
                        json!({ "supported": ["2025-06-18", "2025-11-25"], "requested": "2026-07-28" });
                    let error = ErrorObject::new(code, "scripted error").with_data(data);
                    raw.send(ErrorResponse::new(Some(request.id), error)).await
                }
            }
        }
    });
    (ours, seen)
}

/// The discover result an earlier connection saved.
fn saved_discover() -> mcpwire::protocol::lifecycle::DiscoverResult {
    serde_json::from_value(json!({ "resultType": "complete", "supportedVersions": ["2026-07-28"],
        "capabilities": { "tools": {} }, "ttlMs": 0, "cacheScope": "private" }))
    .unwrap()
}

fn tools_page() -> Value {
    json!({ "tools": [{ "name": "t", "inputSchema": { "type": "object" } }] })
}

fn methods(seen: &Seen) -> Vec<(String, bool)> {
    seen.lock().unwrap().clone()
}

/// A saved discover result that no longer fits the server: the first request is refused
/// the way a server that dropped the 2026 revision refuses it (`-32022` listing only
/// 2025 versions), or the way a 2025-era server refuses an enveloped request before its
/// handshake (`-32600`). The client forgets the saved result, probes again (here, to a
/// 2025 session) and sends the request once more, in the new era.
#[tokio::test]
async fn a_stale_saved_discover_result_is_dropped_for_a_new_probe_and_the_request_retried() {
    for refusal in [codes::UNSUPPORTED_PROTOCOL_VERSION, codes::INVALID_REQUEST] {
        let (peer, seen) = scripted(move |method, enveloped| match (method, enveloped) {
            (_, true) => Err(refusal),
            ("initialize", false) => Ok(initialize_result()),
            ("tools/list", false) => Ok(tools_page()),
            _ => Err(codes::METHOD_NOT_FOUND),
        });
        let client = Client::builder("c", "1").prior_discover(saved_discover()).connect(peer).await.unwrap();
        assert_eq!(client.protocol_version(), &ProtocolVersion::V2026_07_28);
        let tools = client.list_tools(None).await.unwrap();
        assert_eq!(tools.tools.len(), 1, "{refusal}");
        assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25, "{refusal}");
        assert!(client.discover_result().is_none(), "{refusal}: the saved result is forgotten");
        let expected =
            [("tools/list", true), ("server/discover", true), ("initialize", false), ("tools/list", false)];
        let expected: Vec<(String, bool)> = expected.iter().map(|(m, e)| (m.to_string(), *e)).collect();
        assert_eq!(methods(&seen), expected, "{refusal}");
        client.close().await;
    }
}

/// The new probe is made once, and only for a refusal that says the saved result may be
/// stale: an ordinary error (an unknown tool) is the answer; a refusal whose probe finds
/// the saved version still served is not retried; later requests probe no more.
#[tokio::test]
async fn a_saved_discover_result_is_probed_again_once_at_most_and_never_in_a_loop() {
    let (peer, seen) = scripted(|method, _| match method {
        "tools/call" => Err(codes::INVALID_PARAMS),
        "server/discover" => Ok(json!({ "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": { "tools": {} }, "ttlMs": 0, "cacheScope": "private" })),
        _ => Err(codes::INVALID_REQUEST),
    });
    let client = Client::builder("c", "1").prior_discover(saved_discover()).connect(peer).await.unwrap();
    let error = client.list_tools(None).await.unwrap_err();
    assert_eq!(error.peer_error().map(|e| e.code), Some(codes::INVALID_REQUEST), "{error:?}");
    let error = client.list_tools(None).await.unwrap_err();
    assert_eq!(error.peer_error().map(|e| e.code), Some(codes::INVALID_REQUEST), "{error:?}");
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2026_07_28);
    let seen: Vec<String> = methods(&seen).into_iter().map(|(m, _)| m).collect();
    assert_eq!(seen, ["tools/list", "server/discover", "tools/list"]);
    client.close().await;

    let (peer, seen) = scripted(|method, _| match method {
        "tools/call" => Err(codes::INVALID_PARAMS),
        _ => Err(codes::INVALID_REQUEST),
    });
    let client = Client::builder("c", "1").prior_discover(saved_discover()).connect(peer).await.unwrap();
    let error = client.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!(error.peer_error().map(|e| e.code), Some(codes::INVALID_PARAMS), "{error:?}");
    let seen: Vec<String> = methods(&seen).into_iter().map(|(m, _)| m).collect();
    assert_eq!(seen, ["tools/call"], "an ordinary error is no reason to probe");
    client.close().await;
}

/// The same over HTTP, against a 2025-era server that refuses every enveloped request
/// with `-32600` on its response stream: the new probe falls back to `initialize`, the
/// transport takes the session it makes, and the request is sent again in it.
#[tokio::test]
async fn a_stale_saved_discover_result_over_http_is_probed_again_into_a_2025_session() {
    let url = raw_http_server::serve(raw_http_server::Script {
        version: "2025-11-25",
        get: |_| None,
        request: |body| {
            let enveloped = body["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some();
            let answer = match (body["method"].as_str(), enveloped) {
                (Some("tools/list"), false) => {
                    json!({ "jsonrpc": "2.0", "id": body["id"], "result": tools_page() })
                }
                _ => json!({ "jsonrpc": "2.0", "id": body["id"],
                    "error": { "code": codes::INVALID_REQUEST, "message": "not initialized" } }),
            };
            format!("event: message\ndata: {answer}\n\n")
        },
    })
    .await;
    let transport = mcpwire::transport::http_client::HttpClientTransport::new(&url).unwrap();
    let eras = mcpwire::client::EraCache::new();
    let client = Client::builder("c", "1")
        .prior_discover(saved_discover())
        .era_cache(eras.clone())
        .connect(transport)
        .await
        .unwrap();
    let tools = client.list_tools(None).await.unwrap();
    assert_eq!(tools.tools.len(), 1);
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25);
    assert_eq!(eras.get(&url), Some(mcpwire::protocol::Era::Stateful), "the era found is remembered");
    client.close().await;
}

/// A `subscriptions/listen` stream opened first under a saved discover result watches
/// its answer as any request does: refused the way a 2025-era server refuses an
/// enveloped request, it makes the client probe again, once. The new probe finds a
/// 2025 session, where the 2026-only listen is not sent again (it fails with the
/// server's refusal), and the requests after it go straight to that session.
#[tokio::test]
async fn a_listen_opened_first_under_a_stale_saved_result_probes_again() {
    let (peer, seen) = a_2025_era_server();
    let client = Client::builder("c", "1").prior_discover(saved_discover()).connect(peer).await.unwrap();
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
    let refused = client.listen(filter).await.unwrap_err();
    assert_eq!(refused.peer_error().map(|e| e.code), Some(codes::INVALID_REQUEST), "{refused:?}");
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25, "the new probe's session");
    let expected = [("subscriptions/listen", true), ("server/discover", true), ("initialize", false)];
    assert_eq!(methods(&seen), expected.map(|(m, e)| (m.to_owned(), e)));
    assert_eq!(client.list_tools(None).await.unwrap().tools.len(), 1);
    assert_eq!(methods(&seen).last(), Some(&("tools/list".to_owned(), false)));
    assert_eq!(methods(&seen).len(), 4, "the request after it needed no probe");
    client.close().await;
}

/// A listen stream the server acknowledges confirms a saved discover result, as a
/// result does: a later refusal is the request's answer, and no reason to probe.
#[tokio::test]
async fn an_acknowledged_listen_confirms_a_saved_discover_result() {
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let client = Client::builder("c", "1").prior_discover(saved_discover()).connect(ours).await.unwrap();
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
    let (stream, _) = tokio::join!(client.listen(filter), raw.acknowledge_tools_listen());
    let stream = stream.unwrap();
    let refuse = async {
        let request = raw.next_request("tools/list").await;
        raw.send(refused(request.id, codes::INVALID_REQUEST)).await;
    };
    // A probe here would wait for a discover answer that never comes.
    let listing = tokio::time::timeout(std::time::Duration::from_secs(10), client.list_tools(None));
    let (error, ()) = tokio::join!(listing, refuse);
    let error = error.expect("the refusal is the answer, with no new probe").unwrap_err();
    assert_eq!(error.peer_error().map(|e| e.code), Some(codes::INVALID_REQUEST), "{error:?}");
    let after = raw.next_within(QUIET).await;
    assert!(
        after.is_none(),
        "the acknowledgement confirmed the saved result: {:?}",
        after.map(|m| json_of(&m))
    );
    drop(stream);
    client.close().await;
}

/// `Client::peer` is the raw JSON-RPC peer: what it sends carries no 2026 envelope, so
/// its answers say nothing about a saved discover result. A raw request's result does
/// not confirm it (the next enveloped request, refused, still probes again), and a raw
/// request's refusal does not make the client probe.
#[tokio::test]
async fn raw_peer_requests_neither_confirm_nor_probe_a_saved_discover_result() {
    let (peer, seen) = a_2025_era_server();
    let client = Client::builder("c", "1").prior_discover(saved_discover()).connect(peer).await.unwrap();
    let call = mcpwire::jsonrpc::CallOptions::default();
    client.peer().request_raw("tools/list", None, call.clone()).await.unwrap();
    let refused = client.peer().request_raw("custom/thing", None, call).await.unwrap_err();
    assert_eq!(refused.peer_error().map(|e| e.code), Some(codes::INVALID_REQUEST), "{refused:?}");
    assert_eq!(methods(&seen).len(), 2, "a raw refusal is no reason to probe");
    assert_eq!(client.list_tools(None).await.unwrap().tools.len(), 1);
    let expected = [
        ("tools/list", false),
        ("custom/thing", false),
        ("tools/list", true),
        ("server/discover", true),
        ("initialize", false),
        ("tools/list", false),
    ];
    assert_eq!(methods(&seen), expected.map(|(m, e)| (m.to_owned(), e)));
    client.close().await;
}
