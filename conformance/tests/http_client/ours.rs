//! Our own `everything-server --http` (see `conformance/src/everything.rs` for its
//! tools): 2026 `input_required` rounds and `subscriptions/listen`; resumption after a
//! killed SSE stream and after the server closed one; stale session recovery after a
//! restart and after the session was deleted; `DELETE` on close. A recording proxy
//! (`common/proxy.rs`) shows what went over the wire and kills streams on demand.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpwire::client::RequestOptions;
use mcpwire::jsonrpc::ProgressUpdate;
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::{Era, ProtocolVersion};
use serde_json::json;

use crate::checks::text;
use crate::common::callbacks::{eventually, first_text};
use crate::common::peers::EverythingHttp;
use crate::common::proxy::{send_bare, Proxy, Recorded};
use crate::fixtures::{connect, limited, Mode};

const SIMPLE: &str = "This is a simple text response for testing.";

/// The requests that carried `needle` in their body.
fn carrying<'a>(requests: &'a [Recorded], needle: &str) -> Vec<&'a Recorded> {
    requests.iter().filter(|r| r.body.contains(needle)).collect()
}

/// 2026: every kind of `input_required` round is answered through the callbacks, each
/// round a new POST with the routing headers and no session.
#[tokio::test]
async fn mrtr_rounds_over_http() {
    limited("mrtr", async {
        let server = EverythingHttp::start();
        let proxy = Proxy::start(server.addr()).await;
        let c = connect(&proxy.url("/mcp"), Mode::Auto).await;
        assert_eq!(
            (c.client.era(), c.client.protocol_version()),
            (Era::Stateless, &ProtocolVersion::V2026_07_28)
        );
        let multi = "test_input_required_result_multi_round";
        assert_eq!(text(&c, multi, json!({})).await, "Multi-round complete for Ada who likes blue");
        assert_eq!(
            c.seen.elicitation_messages(),
            ["Step 1: What is your name?", "Step 2: What is your favorite color?"]
        );
        let requests = proxy.requests();
        let rounds = carrying(&requests, multi);
        assert_eq!(rounds.len(), 3, "the call and two rounds: {requests:#?}");
        for round in rounds {
            assert_eq!(round.mcp_method.as_deref(), Some("tools/call"));
            assert_eq!(round.protocol_version.as_deref(), Some("2026-07-28"));
            assert_eq!((round.session.as_deref(), round.status), (None, 200));
        }
        let calls = [
            ("test_input_required_result_elicitation", "Hello, Ada!"),
            ("test_input_required_result_sampling", "Sampling result: Paris"),
            ("test_input_required_result_list_roots", "Found 2 root(s)"),
            ("test_input_required_result_multiple_inputs", "Name: Ada; Greeting: Paris; Roots: 2"),
            ("test_input_required_result_request_state", "state-ok: requestState validated (ok=true)"),
            ("test_input_required_result_tampered_state", "state-ok: integrity verified"),
            ("test_input_required_result_capabilities", "capabilities-ok: elicitation, sampling, roots"),
        ];
        for (tool, expected) in calls {
            assert_eq!(text(&c, tool, json!({})).await, expected, "{tool}");
        }
        let prompt = c.client.get_prompt("test_input_required_result_prompt", BTreeMap::new()).await.unwrap();
        assert_eq!(prompt.messages[0].content.as_text(), Some("Prompt with context: ctx"));
        c.client.close().await;
    })
    .await;
}

/// 2026: a `subscriptions/listen` stream delivers the list change a tool call triggers,
/// and the connection goes on after the stream is dropped.
#[tokio::test]
async fn listen_stream_over_http() {
    limited("listen", async {
        let server = EverythingHttp::start();
        let c = connect(&server.url(), Mode::Auto).await;
        let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
        let mut sub = c.client.listen(filter.clone()).await.unwrap();
        assert_eq!(sub.acknowledged(), &filter);
        assert_eq!(
            text(&c, "test_trigger_tool_change", json!({})).await,
            "Tool list change notification sent"
        );
        let next = tokio::time::timeout(Duration::from_secs(10), sub.next()).await.unwrap().unwrap();
        assert_eq!(next.method, "notifications/tools/list_changed");
        drop(sub);
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        c.client.close().await;
    })
    .await;
}

/// A progress-reporting call whose updates are recorded.
async fn call_with_progress(c: &crate::fixtures::Connected) -> (Result<String, String>, Vec<ProgressUpdate>) {
    let updates = Arc::new(Mutex::new(Vec::new()));
    let sink = updates.clone();
    let options = RequestOptions::default().on_progress(move |u| sink.lock().unwrap().push(u));
    let result = c.client.call_tool_with("test_tool_with_progress", json!({}), options).await;
    let updates = updates.lock().unwrap().clone();
    (result.map(|r| first_text(&r)).map_err(|e| e.to_string()), updates)
}

fn step(i: f64) -> ProgressUpdate {
    ProgressUpdate { progress: i, total: Some(100.0), message: Some(format!("Completed step {i} of 100")) }
}

/// 2025: the call's SSE response is killed after its first progress event; the client
/// resumes with `GET` and `Last-Event-ID` on the same session and gets the rest by replay.
#[tokio::test]
async fn resumes_after_a_killed_stream() {
    limited("killed stream", async {
        let server = EverythingHttp::start();
        let proxy = Proxy::start(server.addr()).await;
        let c = connect(&proxy.url("/mcp"), Mode::Pinned2025).await;
        proxy.cut_next("test_tool_with_progress");
        let (result, updates) = call_with_progress(&c).await;
        let token = result.unwrap();
        assert!(token.parse::<u64>().is_ok(), "the tool answers its progress token: {token}");
        assert_eq!(updates, [step(0.0), step(50.0), step(100.0)]);
        let requests = proxy.requests();
        let call = requests.iter().find(|r| r.posts("tools/call")).unwrap();
        let resumes: Vec<_> = requests.iter().filter(|r| r.last_event_id.is_some()).collect();
        assert_eq!(resumes.len(), 1, "{requests:#?}");
        assert_eq!((resumes[0].method.as_str(), resumes[0].status), ("GET", 200));
        assert_eq!(resumes[0].session, call.session);
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        c.client.close().await;
    })
    .await;
}

/// 2025: the server itself closes the call's stream after its priming event
/// (`test_reconnection`); the client resumes from that event's id.
#[tokio::test]
async fn resumes_after_the_server_closed_the_stream() {
    limited("server-closed stream", async {
        let server = EverythingHttp::start();
        let proxy = Proxy::start(server.addr()).await;
        let c = connect(&proxy.url("/mcp"), Mode::Pinned2025).await;
        let answer = text(&c, "test_reconnection", json!({})).await;
        assert!(answer.starts_with("Reconnection test completed successfully."), "{answer}");
        let requests = proxy.requests();
        let resumes: Vec<_> = requests.iter().filter(|r| r.last_event_id.is_some()).collect();
        assert_eq!(resumes.len(), 1, "{requests:#?}");
        assert_eq!((resumes[0].method.as_str(), resumes[0].status), ("GET", 200));
        c.client.close().await;
    })
    .await;
}

/// 2026 has no resumption: a killed response stream loses the request (the server takes
/// it as a cancel), so the client sends it again under a new id, without a GET, and the
/// call gets the answer to that second request.
#[tokio::test]
async fn a_killed_2026_stream_is_reissued_under_a_new_id() {
    limited("killed 2026 stream", async {
        let server = EverythingHttp::start();
        let proxy = Proxy::start(server.addr()).await;
        let c = connect(&proxy.url("/mcp"), Mode::Auto).await;
        assert_eq!(c.client.era(), Era::Stateless);
        proxy.cut_next("test_tool_with_progress");
        let (result, updates) = call_with_progress(&c).await;
        let token = result.unwrap();
        assert!(token.parse::<u64>().is_ok(), "the tool answers its progress token: {token}");
        assert_eq!(updates.first(), Some(&step(0.0)), "{updates:?}");
        assert_eq!(updates.last(), Some(&step(100.0)), "{updates:?}");
        let requests = proxy.requests();
        assert!(requests.iter().all(|r| r.method == "POST"), "{requests:#?}");
        let sent: Vec<_> = carrying(&requests, "test_tool_with_progress");
        assert_eq!(sent.len(), 2, "{requests:#?}");
        let ids: Vec<serde_json::Value> = sent
            .iter()
            .map(|r| serde_json::from_str::<serde_json::Value>(&r.body).unwrap()["id"].clone())
            .collect();
        assert_ne!(ids[0], ids[1]);
        assert_eq!(ids[1], json!(format!("{}-reissued-1", ids[0])), "{ids:?}");
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        c.client.close().await;
    })
    .await;
}

/// 2025: the server restarts on the same port behind the proxy (every session is gone);
/// the next call gets 404, re-initializes once and succeeds, promptly.
#[tokio::test]
async fn recovers_a_stale_session_after_a_restart() {
    limited("restart", async {
        let server = EverythingHttp::start();
        let proxy = Proxy::start(server.addr()).await;
        let c = connect(&proxy.url("/mcp"), Mode::Pinned2025).await;
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        let _server = server.restart();
        let before = proxy.requests().len();
        let started = Instant::now();
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        let after = proxy.requests().split_off(before);
        let initializes = after.iter().filter(|r| r.posts("initialize")).count();
        let calls: Vec<u16> = after.iter().filter(|r| r.posts("tools/call")).map(|r| r.status).collect();
        assert_eq!((initializes, calls), (1, vec![404, 200]), "{after:#?}");
        c.client.ping().await.unwrap();
        c.client.close().await;
    })
    .await;
}

/// 2025, no proxy: the server restarts on the same port ten times, and the call after
/// each restart must succeed. The client's pooled keep-alive connection to the old
/// process is dead then; a request sent on it never reached any server and must be
/// retried on a fresh connection.
#[tokio::test]
async fn survives_restarts_over_reused_connections() {
    limited("restarts", async {
        let mut server = EverythingHttp::start();
        let c = connect(&server.url(), Mode::Pinned2025).await;
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        for round in 0..10 {
            server = server.restart();
            let result = c.client.call_tool("test_simple_text", json!({})).await;
            let answer = result.unwrap_or_else(|e| panic!("call after restart {round}: {e}"));
            assert_eq!(first_text(&answer), SIMPLE);
        }
        c.client.close().await;
    })
    .await;
}

/// 2025: the session is deleted behind the client's back; its next call gets 404, and
/// the client re-initializes once (a new session) and retries that call.
#[tokio::test]
async fn recovers_a_session_deleted_on_the_server() {
    limited("deleted session", async {
        let server = EverythingHttp::start();
        let proxy = Proxy::start(server.addr()).await;
        let c = connect(&proxy.url("/mcp"), Mode::Pinned2025).await;
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        let old = proxy.requests().iter().find_map(|r| r.session.clone()).expect("a session");
        assert_eq!(send_bare("DELETE", &server.url(), &old).await, 200);
        let before = proxy.requests().len();
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        let after: Vec<Recorded> = proxy.requests().split_off(before);
        let summary: Vec<(String, bool, u16)> = after
            .iter()
            .filter(|r| r.method == "POST")
            .map(|r| {
                let what = ["tools/call", "notifications/initialized", "initialize"]
                    .into_iter()
                    .find(|m| r.posts(m))
                    .unwrap_or("other");
                (what.to_owned(), r.session.as_deref() == Some(old.as_str()), r.status)
            })
            .collect();
        assert_eq!(
            summary[..4],
            [
                ("tools/call".to_owned(), true, 404),
                ("initialize".to_owned(), false, 200),
                ("notifications/initialized".to_owned(), false, 202),
                ("tools/call".to_owned(), false, 200),
            ],
            "{after:#?}"
        );
        let new = after[1..].iter().find_map(|r| r.session.clone()).expect("a new session");
        assert_ne!(new, old);
        c.client.close().await;
    })
    .await;
}

/// 2025: `close()` sends `DELETE` with the session id, and the server then knows the
/// session no more. With `settled`, the DELETE must be out by the time `close()`
/// returns (a program that exits right after `close().await` must not lose it);
/// otherwise it may come a moment later.
async fn close_deletes(settled: bool) {
    limited("close", async {
        let server = EverythingHttp::start();
        let proxy = Proxy::start(server.addr()).await;
        let c = connect(&proxy.url("/mcp"), Mode::Pinned2025).await;
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        c.client.close().await;
        if !settled {
            assert!(eventually(|| proxy.requests().iter().any(|r| r.method == "DELETE")).await);
        }
        let requests = proxy.requests();
        let session = requests.iter().find_map(|r| r.session.clone()).expect("a session");
        let deletes: Vec<_> = requests.iter().filter(|r| r.method == "DELETE").collect();
        assert_eq!(deletes.len(), 1, "{requests:#?}");
        assert_eq!((deletes[0].session.as_deref(), deletes[0].status), (Some(session.as_str()), 200));
        assert_eq!(send_bare("DELETE", &server.url(), &session).await, 404);
    })
    .await;
}

#[tokio::test]
async fn close_deletes_the_session_before_returning() {
    close_deletes(true).await;
}

#[tokio::test]
async fn close_deletes_the_session() {
    close_deletes(false).await;
}

/// `close()` lets go of every stream (the 2025 standalone GET stream included) and the
/// client reports itself closed.
async fn close_ends_streams(mode: Mode) {
    limited("close ends streams", async {
        let server = EverythingHttp::start();
        let proxy = Proxy::start(server.addr()).await;
        let c = connect(&proxy.url("/mcp"), mode).await;
        assert_eq!(text(&c, "test_simple_text", json!({})).await, SIMPLE);
        c.client.close().await;
        assert!(
            eventually(|| proxy.open_streams() == 0).await,
            "{} streams still open",
            proxy.open_streams()
        );
        assert!(eventually(|| c.client.is_closed()).await, "the client does not report itself closed");
    })
    .await;
}

#[tokio::test]
async fn close_ends_every_stream_2025() {
    close_ends_streams(Mode::Pinned2025).await;
}

#[tokio::test]
async fn close_ends_every_stream_2026() {
    close_ends_streams(Mode::Auto).await;
}

/// A connection pinned to 2025 does not teach a shared era cache that a dual-era server is
/// 2025-only: a later probing connection to the same URL, with the same cache, still
/// lands in 2026.
#[tokio::test]
async fn a_pinned_connection_does_not_decide_the_era_of_the_url() {
    use mcpwire::client::{Client, EraCache};
    use mcpwire::transport::http_client::HttpClientTransport;
    limited("era cache", async {
        let server = EverythingHttp::start();
        let eras = EraCache::new();
        let transport = || HttpClientTransport::new(&server.url()).unwrap();
        let pinned = Client::builder("c", "1")
            .era_cache(eras.clone())
            .protocol_version(ProtocolVersion::V2025_11_25)
            .connect(transport())
            .await
            .unwrap();
        assert_eq!(pinned.era(), Era::Stateful);
        pinned.close().await;
        assert!(eras.is_empty(), "a pinned connection recorded an era");
        let auto = Client::builder("c", "1").era_cache(eras.clone()).connect(transport()).await.unwrap();
        assert_eq!((auto.era(), auto.protocol_version()), (Era::Stateless, &ProtocolVersion::V2026_07_28));
        auto.close().await;
        assert_eq!(eras.get(&server.url()), Some(Era::Stateless));
    })
    .await;
}
