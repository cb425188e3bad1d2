//! The dispatcher's rules, over in-memory connections, checked frame by frame.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use mcpwire::jsonrpc::{
    CallOptions, Dispatcher, DispatcherConfig, Handler, NoHandler, PeerCancelMode, RequestContext,
};
use mcpwire::protocol::{codes, DecodeError, Message, Notification, RawJson, Request, RequestId, Response};
use mcpwire::transport::{memory, InboundMeta, TransportEvent};
use mcpwire::{McpError, RequestError};
use serde_json::{json, Value};

/// Counts handler futures dropped before finishing (interrupted) and finished.
#[derive(Default)]
struct Counters {
    interrupted: AtomicUsize,
    finished: AtomicUsize,
}

#[derive(Clone, Default)]
struct TestHandler {
    counters: Arc<Counters>,
}

struct DropFlag(Arc<Counters>, bool);
impl Drop for DropFlag {
    fn drop(&mut self) {
        if !self.1 {
            self.0.interrupted.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Handler for TestHandler {
    async fn on_request(&self, request: Request, ctx: RequestContext) -> Result<RawJson, McpError> {
        let params: Value = request.parse_params().map_err(|e| McpError::invalid_params(e.to_string()))?;
        let out = match request.method.as_str() {
            "echo" => params,
            "sleep" => {
                let mut flag = DropFlag(self.counters.clone(), false);
                tokio::time::sleep(Duration::from_millis(params["ms"].as_u64().unwrap_or(100))).await;
                flag.1 = true;
                self.counters.finished.fetch_add(1, Ordering::SeqCst);
                json!({ "slept": true, "cancelled": ctx.is_cancelled() })
            }
            "sleep_then_fail" => {
                tokio::time::sleep(Duration::from_millis(params["ms"].as_u64().unwrap_or(50))).await;
                self.counters.finished.fetch_add(1, Ordering::SeqCst);
                return Err(McpError::new(-32050, "failed after the cancel"));
            }
            "fail" => return Err(McpError::new(-32050, "custom failure").with_data(json!({ "x": 1 }))),
            "bad_args" => return Err(McpError::invalid_params("field `a`: expected a number")),
            "internal" => return Err(McpError::internal(std::io::Error::other("secret database detail"))),
            "panic" => panic!("handler panic on purpose"),
            "progress" => {
                ctx.progress(1.0, Some(2.0), Some("half")).await;
                ctx.progress(2.0, Some(2.0), None).await;
                json!({})
            }
            "ask" => {
                let r =
                    ctx.request("client/thing", to_raw(json!({ "q": 1 })), CallOptions::default()).await?;
                serde_json::from_str(r.get()).unwrap()
            }
            other => return Err(McpError::method_not_found(other)),
        };
        Ok(serde_json::value::to_raw_value(&out).unwrap())
    }
}

fn serve(config: DispatcherConfig) -> (RawPeer, Arc<Counters>, tokio::task::JoinHandle<()>) {
    let (conn, raw) = raw_connection();
    let handler = TestHandler::default();
    let counters = handler.counters.clone();
    let task = Dispatcher::with_config(conn, config).spawn(handler);
    (raw, counters, task)
}

fn signal_mode() -> DispatcherConfig {
    DispatcherConfig { cancel_mode: PeerCancelMode::Signal, ..Default::default() }
}

#[tokio::test]
async fn answers_a_request_with_its_result() {
    let (mut raw, _, _) = serve(Default::default());
    raw.request(1, "echo", json!({ "a": [1, 2] })).await;
    assert_eq!(expect_result(&raw.next().await, 1), json!({ "a": [1, 2] }));
    raw.request("str-id", "echo", json!({})).await;
    assert_eq!(expect_result(&raw.next().await, "str-id"), json!({}));
}

#[tokio::test]
async fn interrupt_mode_cancel_drops_the_handler_and_writes_nothing() {
    let (mut raw, counters, _) = serve(Default::default());
    raw.request(1, "sleep", json!({ "ms": 5000 })).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    raw.cancel(1).await;
    raw.request(2, "echo", json!({ "after": true })).await;
    assert_eq!(expect_result(&raw.next().await, 2), json!({ "after": true }));
    raw.expect_silence(Duration::from_millis(100)).await;
    assert_eq!(counters.interrupted.load(Ordering::SeqCst), 1);
    assert_eq!(counters.finished.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn signal_mode_cancel_lets_the_handler_finish_but_writes_nothing() {
    let (mut raw, counters, _) = serve(signal_mode());
    raw.request(1, "sleep", json!({ "ms": 100 })).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    raw.cancel(1).await;
    raw.expect_silence(Duration::from_millis(250)).await;
    assert_eq!(counters.finished.load(Ordering::SeqCst), 1, "the handler ran to completion");
    raw.request(2, "echo", json!({})).await;
    expect_result(&raw.next().await, 2);
}

#[tokio::test]
async fn a_cancelled_failing_handler_is_not_answered_either() {
    let (mut raw, counters, _) = serve(signal_mode());
    raw.request(1, "sleep_then_fail", json!({ "ms": 50 })).await;
    raw.cancel(1).await;
    raw.expect_silence(Duration::from_millis(150)).await;
    assert_eq!(counters.finished.load(Ordering::SeqCst), 1, "the handler ran and failed after the cancel");
}

#[tokio::test]
async fn the_unanswered_hook_runs_once_for_a_cancelled_request_and_only_then() {
    let (mut raw, _, _) = serve(Default::default());
    let calls = Arc::new(AtomicUsize::new(0));
    let hook_meta = |calls: &Arc<AtomicUsize>| {
        let calls = calls.clone();
        InboundMeta {
            on_unanswered: Some(Box::new(move || {
                calls.fetch_add(1, Ordering::SeqCst);
            })),
            ..Default::default()
        }
    };
    raw.send_with(Request::new(1, "sleep", to_raw(json!({ "ms": 5000 }))), hook_meta(&calls)).await;
    raw.send_with(Request::new(2, "echo", to_raw(json!({}))), hook_meta(&calls)).await;
    expect_result(&raw.next().await, 2);
    raw.cancel(1).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1, "only the cancelled request settles unanswered");
    raw.expect_silence(Duration::from_millis(50)).await;
}

#[tokio::test]
async fn a_panicking_hook_is_contained() {
    let (mut raw, _, _) = serve(Default::default());
    let meta = InboundMeta { on_unanswered: Some(Box::new(|| panic!("hook panics"))), ..Default::default() };
    raw.send_with(Request::new(1, "sleep", to_raw(json!({ "ms": 5000 }))), meta).await;
    raw.cancel(1).await;
    raw.request(2, "echo", json!({})).await;
    expect_result(&raw.next().await, 2);
}

#[tokio::test]
async fn handler_errors_become_wire_errors_in_one_place() {
    let (mut raw, _, _) = serve(Default::default());
    raw.request(1, "fail", json!({})).await;
    let e = expect_error(&raw.next().await, 1);
    assert_eq!((e.code, e.message.as_str(), e.data), (-32050, "custom failure", Some(json!({ "x": 1 }))));
    raw.request(2, "bad_args", json!({})).await;
    assert_eq!(expect_error(&raw.next().await, 2).code, codes::INVALID_PARAMS);
    raw.request(3, "internal", json!({})).await;
    let e = expect_error(&raw.next().await, 3);
    assert_eq!(e.code, codes::INTERNAL_ERROR);
    assert!(!e.message.contains("secret"), "internal details must not leak: {}", e.message);
    raw.request(4, "nope", json!({})).await;
    assert_eq!(expect_error(&raw.next().await, 4).code, codes::METHOD_NOT_FOUND);
}

#[tokio::test]
async fn a_panicking_handler_is_answered_as_internal_and_the_connection_lives() {
    let (mut raw, _, _) = serve(Default::default());
    raw.request(1, "panic", json!({})).await;
    assert_eq!(expect_error(&raw.next().await, 1).code, codes::INTERNAL_ERROR);
    raw.request(2, "echo", json!({ "still": "alive" })).await;
    assert_eq!(expect_result(&raw.next().await, 2), json!({ "still": "alive" }));
}

#[tokio::test]
async fn shutdown_answers_in_flight_requests_with_connection_closed() {
    let (mut raw, _, task) = serve(Default::default());
    raw.request(7, "sleep", json!({ "ms": 5000 })).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    raw.hang_up();
    let e = expect_error(&raw.next().await, 7);
    assert_eq!((e.code, e.message.as_str()), (codes::CONNECTION_CLOSED, "Connection closed"));
    task.await.unwrap();
    assert!(raw.written.recv().await.is_none(), "the writer closes after shutdown");
}

#[tokio::test]
async fn shutdown_does_not_answer_a_request_the_peer_cancelled() {
    let (mut raw, _, task) = serve(signal_mode());
    raw.request(7, "sleep", json!({ "ms": 5000 })).await;
    raw.cancel(7).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    raw.hang_up();
    task.await.unwrap();
    assert!(raw.written.recv().await.is_none(), "no frame at all for the cancelled request");
}

#[tokio::test]
async fn invalid_frames_are_answered_and_the_connection_goes_on() {
    let (mut raw, _, _) = serve(Default::default());
    let parse = DecodeError {
        code: codes::PARSE_ERROR,
        message: "Parse error".into(),
        id: None,
        had_method: false,
        is_answer: false,
    };
    raw.events.send(TransportEvent::invalid(parse)).await.unwrap();
    let m = raw.next().await;
    assert_eq!(
        json_of(&m),
        json!({ "jsonrpc": "2.0", "error": { "code": -32700, "message": "Parse error" } })
    );
    let invalid = DecodeError {
        code: codes::INVALID_REQUEST,
        message: "bad".into(),
        id: Some(RequestId::from(9)),
        had_method: true,
        is_answer: false,
    };
    raw.events.send(TransportEvent::invalid(invalid)).await.unwrap();
    assert_eq!(expect_error(&raw.next().await, 9).code, codes::INVALID_REQUEST);
    // A malformed response-like frame with an id is only logged.
    let response_like = DecodeError {
        code: codes::INVALID_REQUEST,
        message: "bad".into(),
        id: Some(RequestId::from(3)),
        had_method: false,
        is_answer: true,
    };
    raw.events.send(TransportEvent::invalid(response_like)).await.unwrap();
    raw.request(10, "echo", json!({})).await;
    expect_result(&raw.next().await, 10);
}

#[tokio::test]
async fn a_duplicate_in_flight_id_is_rejected_and_the_original_still_answered() {
    let (mut raw, _, _) = serve(Default::default());
    raw.request(1, "sleep", json!({ "ms": 50 })).await;
    raw.request(1, "echo", json!({})).await;
    assert_eq!(expect_error(&raw.next().await, 1).code, codes::INVALID_REQUEST);
    assert_eq!(expect_result(&raw.next().await, 1)["slept"], json!(true));
}

#[tokio::test]
async fn a_cancel_for_an_unknown_id_is_ignored() {
    let (mut raw, _, _) = serve(Default::default());
    raw.cancel(12345).await;
    raw.send(Notification::new("notifications/cancelled", to_raw(json!({ "nonsense": true })))).await;
    raw.request(1, "echo", json!({})).await;
    expect_result(&raw.next().await, 1);
}

#[tokio::test]
async fn progress_is_sent_on_behalf_of_the_request_only_when_asked() {
    let (mut raw, _, _) = serve(Default::default());
    raw.request(1, "progress", json!({ "_meta": { "progressToken": "tok" } })).await;
    let first = json_of(&raw.next().await);
    assert_eq!(first["method"], "notifications/progress");
    assert_eq!(
        first["params"],
        json!({ "progressToken": "tok", "progress": 1.0, "total": 2.0, "message": "half" })
    );
    assert_eq!(json_of(&raw.next().await)["params"]["progress"], json!(2.0));
    expect_result(&raw.next().await, 1);
    raw.request(2, "progress", json!({})).await;
    expect_result(&raw.next().await, 2);
}

// ---- outbound side ----

fn client() -> (mcpwire::jsonrpc::Peer, RawPeer) {
    let (conn, raw) = raw_connection();
    let dispatcher = Dispatcher::new(conn);
    let peer = dispatcher.peer();
    dispatcher.spawn(NoHandler);
    (peer, raw)
}

#[tokio::test]
async fn outbound_ids_start_at_one_and_custom_ids_are_used_verbatim() {
    let (peer, mut raw) = client();
    let p = peer.clone();
    let call = tokio::spawn(async move {
        let a = p.request_raw("a", None, CallOptions::default()).await.unwrap();
        let b = p.request_raw("b", None, CallOptions::default().id("custom")).await.unwrap();
        (a.get().to_owned(), b.get().to_owned())
    });
    let Message::Request(r) = raw.next().await else { panic!() };
    assert_eq!(r.id, RequestId::from(1));
    // The peer answers with the id as a string: still matched.
    raw.send(Response::new(RequestId::from("1"), serde_json::value::to_raw_value(&json!(1)).unwrap())).await;
    let Message::Request(r) = raw.next().await else { panic!() };
    assert_eq!(r.id, RequestId::from("custom"));
    raw.send(Response::new(r.id, serde_json::value::to_raw_value(&json!(2)).unwrap())).await;
    assert_eq!(call.await.unwrap(), ("1".to_owned(), "2".to_owned()));
}

/// Only the transport's own `Failed` event makes a transport failure: an error the peer
/// sends stays the peer's, whatever its code, message or data (the old in-band marker
/// included).
#[tokio::test]
async fn a_peer_error_never_passes_for_a_transport_failure() {
    use mcpwire::protocol::{ErrorObject, ErrorResponse};
    let (peer, mut raw) = client();
    let p = peer.clone();
    let call = tokio::spawn(async move { p.request_raw("a", None, CallOptions::default()).await });
    let Message::Request(r) = raw.next().await else { panic!() };
    let forged = ErrorObject::new(codes::CONNECTION_CLOSED, "HTTP 502 Bad Gateway")
        .with_data(json!({ "mcpwire/transportFailure": "00000000000000000000000000000000" }));
    raw.send(ErrorResponse::new(Some(r.id), forged.clone())).await;
    let err = call.await.unwrap().unwrap_err();
    assert!(matches!(&err, RequestError::Peer(e) if *e == forged), "{err:?}");
    assert_eq!(err.peer_error(), Some(&forged));

    let p = peer.clone();
    let call = tokio::spawn(async move { p.request_raw("b", None, CallOptions::default()).await });
    let Message::Request(r) = raw.next().await else { panic!() };
    raw.events.send(TransportEvent::failed(r.id.clone(), "HTTP 502 Bad Gateway")).await.unwrap();
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(&err, RequestError::Transport { reason } if reason == "HTTP 502 Bad Gateway"),
        "{err:?}"
    );
    assert!(err.peer_error().is_none());
    assert_eq!(err.code(), codes::CONNECTION_CLOSED);
    // The peer's late answer to the failed request is dropped; the connection still works.
    raw.send(Response::new(r.id, serde_json::value::to_raw_value(&json!(1)).unwrap())).await;
    raw.events.send(TransportEvent::failed(RequestId::from(99), "no such request")).await.unwrap();
    let p = peer.clone();
    let call = tokio::spawn(async move { p.request_raw("c", None, CallOptions::default()).await });
    let Message::Request(r) = raw.next().await else { panic!() };
    raw.send(Response::new(r.id, serde_json::value::to_raw_value(&json!(5)).unwrap())).await;
    assert_eq!(call.await.unwrap().unwrap().get(), "5");
}

#[tokio::test]
async fn a_timeout_sends_cancelled_and_a_late_response_is_dropped() {
    let (peer, mut raw) = client();
    let err = {
        let p = peer.clone();
        let call = tokio::spawn(async move {
            p.request_raw("slow", None, CallOptions::default().timeout(Duration::from_millis(50))).await
        });
        let Message::Request(r) = raw.next().await else { panic!() };
        let cancel = json_of(&raw.next().await);
        assert_eq!(cancel["method"], "notifications/cancelled");
        assert_eq!(cancel["params"]["requestId"], json!(1));
        raw.send(Response::new(r.id, serde_json::value::to_raw_value(&json!({})).unwrap())).await;
        call.await.unwrap().unwrap_err()
    };
    assert!(matches!(err, RequestError::Timeout { .. }), "{err}");
    assert_eq!(err.code(), codes::REQUEST_TIMEOUT);
    // The connection still works.
    let p = peer.clone();
    let call = tokio::spawn(async move { p.request_raw("x", None, CallOptions::default()).await });
    let Message::Request(r) = raw.next().await else { panic!() };
    raw.send(Response::new(r.id, serde_json::value::to_raw_value(&json!(5)).unwrap())).await;
    assert_eq!(call.await.unwrap().unwrap().get(), "5");
}

/// A `notifications/progress` for the outbound request whose id is `id` (the token the
/// dispatcher gives it).
fn progress_for(id: &RequestId, n: u32) -> Notification {
    Notification::new("notifications/progress", to_raw(json!({ "progressToken": id, "progress": n })))
}

/// Sends `method` with a 100 ms timeout that progress starts again, `max_total` at most.
fn restarting_call(
    peer: &mcpwire::jsonrpc::Peer,
    method: &'static str,
    max_total: Duration,
) -> tokio::task::JoinHandle<Result<RawJson, RequestError>> {
    let p = peer.clone();
    tokio::spawn(async move {
        let options =
            CallOptions::default().timeout(Duration::from_millis(100)).reset_timeout_on_progress(max_total);
        p.request_raw(method, None, options).await
    })
}

/// Whether `outcome` is a timeout that names `limit`.
fn timed_out_at(outcome: Result<RawJson, RequestError>, limit: Duration) -> bool {
    matches!(outcome, Err(RequestError::Timeout { timeout, .. }) if timeout == limit)
}

// Paused time: the clock moves only when every task waits, so the limits below are exact.
#[tokio::test(start_paused = true)]
async fn progress_starts_the_timeout_again_when_asked() {
    let (peer, mut raw) = client();
    let call = restarting_call(&peer, "long", Duration::from_secs(10));
    let Message::Request(r) = raw.next().await else { panic!() };
    // Progress is asked for without a callback: it is what restarts the timeout.
    let params: Value = serde_json::from_str(r.params.as_ref().unwrap().get()).unwrap();
    assert_eq!(params["_meta"]["progressToken"], json!(1));
    // Five times the timeout in all, never more than 80 ms without progress.
    for n in 1..=5 {
        tokio::time::sleep(Duration::from_millis(80)).await;
        raw.send(progress_for(&r.id, n)).await;
    }
    tokio::time::sleep(Duration::from_millis(80)).await;
    raw.send(Response::new(r.id, serde_json::value::to_raw_value(&json!({ "done": true })).unwrap())).await;
    assert_eq!(call.await.unwrap().unwrap().get(), r#"{"done":true}"#);
}

#[tokio::test(start_paused = true)]
async fn a_restarted_timeout_still_runs_out_without_progress_and_at_the_maximum() {
    let (peer, mut raw) = client();
    // Progress, then silence: the timeout runs out 100 ms after the last progress.
    let started = tokio::time::Instant::now();
    let call = restarting_call(&peer, "stalls", Duration::from_secs(10));
    let Message::Request(r) = raw.next().await else { panic!() };
    tokio::time::sleep(Duration::from_millis(80)).await;
    raw.send(progress_for(&r.id, 1)).await;
    assert!(timed_out_at(call.await.unwrap(), Duration::from_millis(100)));
    assert_eq!(started.elapsed(), Duration::from_millis(180));
    assert_eq!(json_of(&raw.next().await)["method"], "notifications/cancelled");

    // Progress that never stops: the maximum ends the wait, and says so.
    let started = tokio::time::Instant::now();
    let call = restarting_call(&peer, "endless", Duration::from_millis(250));
    let Message::Request(r) = raw.next().await else { panic!() };
    let progress = tokio::spawn(async move {
        for n in 1.. {
            tokio::time::sleep(Duration::from_millis(50)).await;
            raw.send(progress_for(&r.id, n)).await;
        }
    });
    assert!(timed_out_at(call.await.unwrap(), Duration::from_millis(250)));
    progress.abort();
    assert_eq!(started.elapsed(), Duration::from_millis(250));
}

#[tokio::test]
async fn dropping_the_call_sends_cancelled() {
    let (peer, mut raw) = client();
    let p = peer.clone();
    let call = tokio::spawn(async move { p.request_raw("slow", None, CallOptions::default()).await });
    let Message::Request(_) = raw.next().await else { panic!() };
    call.abort();
    let cancel = json_of(&raw.next().await);
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], json!(1));
}

#[tokio::test]
async fn initialize_and_discover_are_never_cancelled() {
    let (peer, mut raw) = client();
    for method in ["initialize", "server/discover"] {
        let r =
            peer.request_raw(method, None, CallOptions::default().timeout(Duration::from_millis(30))).await;
        assert!(matches!(r, Err(RequestError::Timeout { .. })));
        let Message::Request(_) = raw.next().await else { panic!() };
        raw.expect_silence(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn progress_reaches_the_callback_even_after_the_response() {
    let (peer, mut raw) = client();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let p = peer.clone();
    let call = tokio::spawn(async move {
        p.request_raw(
            "work",
            None,
            CallOptions::default().on_progress(move |u| s.lock().unwrap().push((u.progress, u.message))),
        )
        .await
    });
    let Message::Request(r) = raw.next().await else { panic!() };
    let params: Value = serde_json::from_str(r.params.as_ref().unwrap().get()).unwrap();
    assert_eq!(params["_meta"]["progressToken"], json!(1));
    let progress = |n: f64| {
        Notification::new(
            "notifications/progress",
            to_raw(json!({ "progressToken": 1, "progress": n, "message": "m" })),
        )
    };
    raw.send(progress(1.0)).await;
    raw.send(Response::new(r.id, serde_json::value::to_raw_value(&json!({})).unwrap())).await;
    raw.send(progress(2.0)).await;
    call.await.unwrap().unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(*seen.lock().unwrap(), vec![(1.0, Some("m".into())), (2.0, Some("m".into()))]);
}

#[tokio::test]
async fn requests_fail_at_once_before_running_and_after_close() {
    let (conn, mut raw) = raw_connection();
    let dispatcher = Dispatcher::new(conn);
    let peer = dispatcher.peer();
    assert!(matches!(
        peer.request_raw("x", None, CallOptions::default()).await,
        Err(RequestError::NotRunning)
    ));
    // A notification before running is queued, not lost.
    peer.notify("early", None).await;
    assert_eq!(json_of(&raw.next().await)["method"], "early");
    let task = dispatcher.spawn(NoHandler);
    let p = peer.clone();
    let waiting = tokio::spawn(async move { p.request_raw("pending", None, CallOptions::default()).await });
    let Message::Request(_) = raw.next().await else { panic!() };
    raw.hang_up();
    task.await.unwrap();
    assert!(matches!(waiting.await.unwrap(), Err(RequestError::ConnectionClosed { .. })));
    assert!(matches!(
        peer.request_raw("x", None, CallOptions::default()).await,
        Err(RequestError::ConnectionClosed { .. })
    ));
    peer.notify("late", None).await; // dropped with a debug log, no panic
}

#[tokio::test]
async fn a_peer_error_reaches_the_caller_with_its_code() {
    let (peer, mut raw) = client();
    let p = peer.clone();
    let call = tokio::spawn(async move { p.request_raw("x", None, CallOptions::default()).await });
    let Message::Request(r) = raw.next().await else { panic!() };
    raw.send(mcpwire::protocol::ErrorResponse::new(
        Some(r.id),
        mcpwire::protocol::ErrorObject::new(-32601, "nope"),
    ))
    .await;
    let err = call.await.unwrap().unwrap_err();
    assert_eq!(err.code(), -32601);
    assert_eq!(err.peer_error().unwrap().message, "nope");
}

// ---- both sides over the in-memory pair ----

#[tokio::test]
async fn a_thousand_concurrent_requests_are_all_answered() {
    let (a, b) = memory::pair();
    Dispatcher::new(b).spawn(TestHandler::default());
    let client = Dispatcher::new(a);
    let peer = client.peer();
    client.spawn(NoHandler);
    let calls = (0..1000).map(|i| {
        let peer = peer.clone();
        async move {
            let r =
                peer.request_raw("echo", to_raw(json!({ "i": i })), CallOptions::default()).await.unwrap();
            serde_json::from_str::<Value>(r.get()).unwrap()["i"].as_i64().unwrap()
        }
    });
    let results = futures_util::future::join_all(calls).await;
    assert_eq!(results, (0..1000).collect::<Vec<i64>>());
}

/// A server whose connection future is dropped (its task aborted, the `select!` it ran in
/// taking another branch) ends the connection as a shutdown does: what it was serving is
/// stopped and answered "Connection closed", and its peer sees the end. Its requests'
/// tasks went on, holding the transport's writer, and the client waited forever.
#[tokio::test]
async fn a_dropped_server_answers_what_it_was_serving_and_its_peer_sees_the_end() {
    let (a, b) = memory::pair();
    let handler = TestHandler::default();
    let counters = handler.counters.clone();
    let server = Dispatcher::new(b).spawn(handler);
    let client = Dispatcher::new(a);
    let peer = client.peer();
    let client = client.spawn(NoHandler);
    let p = peer.clone();
    let call = tokio::spawn(async move {
        p.request_raw("sleep", to_raw(json!({ "ms": 60_000 })), Default::default()).await
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    server.abort();
    let outcome = tokio::time::timeout(Duration::from_secs(5), call).await.expect("the call hung").unwrap();
    let error = outcome.unwrap_err();
    assert_eq!(error.peer_error().map(|e| e.code), Some(codes::CONNECTION_CLOSED), "{error:?}");
    tokio::time::timeout(Duration::from_secs(5), client).await.expect("the client saw no end").unwrap();
    assert_eq!(counters.interrupted.load(Ordering::SeqCst), 1, "the handler was stopped");
}

/// A connection running `max_in_flight` requests refuses one more at once and reads on:
/// the peer's cancellations (and the end of its input) behind it still arrive. A
/// connection that waited for a slot instead would read neither until a handler
/// finished, which a handler waiting to be cancelled never does.
#[tokio::test]
async fn past_max_in_flight_a_request_is_refused_and_cancellations_still_arrive() {
    let (a, b) = memory::pair();
    let handler = TestHandler::default();
    let counters = handler.counters.clone();
    let config = DispatcherConfig { max_in_flight: 2, ..Default::default() };
    Dispatcher::with_config(b, config).spawn(handler);
    let client = Dispatcher::new(a);
    let peer = client.peer();
    client.spawn(NoHandler);
    // Two calls that would run a minute fill the connection; the client gives up on
    // each after 300 ms, which cancels it.
    let long = |peer: mcpwire::jsonrpc::Peer| async move {
        let options = CallOptions::default().timeout(Duration::from_millis(300));
        peer.request_raw("sleep", to_raw(json!({ "ms": 60_000 })), options).await
    };
    let first = tokio::spawn(long(peer.clone()));
    let second = tokio::spawn(long(peer.clone()));
    tokio::time::sleep(Duration::from_millis(100)).await;

    let refused = peer.request_raw("echo", to_raw(json!({ "x": 1 })), CallOptions::default()).await;
    match refused {
        Err(RequestError::Peer(e)) => {
            assert_eq!(e.code, codes::INTERNAL_ERROR);
            assert!(e.message.contains("Too many requests") && e.message.contains("at most 2"), "{e:?}");
        }
        other => panic!("expected the busy refusal, got {other:?}"),
    }
    for call in [first, second] {
        assert!(matches!(call.await.unwrap(), Err(RequestError::Timeout { .. })));
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(counters.interrupted.load(Ordering::SeqCst), 2, "both cancellations reached their handlers");
    // The slots are free again.
    let echoed = peer.request_raw("echo", to_raw(json!({ "x": 2 })), CallOptions::default()).await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(echoed.get()).unwrap(), json!({ "x": 2 }));
}

/// A client-side handler: answers the server's request made on behalf of a call.
struct Answering;
impl Handler for Answering {
    async fn on_request(&self, request: Request, _ctx: RequestContext) -> Result<RawJson, McpError> {
        let params: Value = request.parse_params().unwrap();
        Ok(serde_json::value::to_raw_value(&json!({ "answered": request.method, "q": params["q"] })).unwrap())
    }
}

#[tokio::test]
async fn a_handler_can_ask_the_peer_mid_request() {
    let (a, b) = memory::pair();
    Dispatcher::new(b).spawn(TestHandler::default());
    let client = Dispatcher::new(a);
    let peer = client.peer();
    client.spawn(Answering);
    let r = peer.request_raw("ask", None, CallOptions::default()).await.unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(r.get()).unwrap(),
        json!({ "answered": "client/thing", "q": 1 })
    );
}

#[tokio::test]
async fn the_client_cancelling_a_call_reaches_the_server_handler() {
    let (a, b) = memory::pair();
    let handler = TestHandler::default();
    let counters = handler.counters.clone();
    Dispatcher::new(b).spawn(handler);
    let client = Dispatcher::new(a);
    let peer = client.peer();
    client.spawn(NoHandler);
    let r = peer
        .request_raw(
            "sleep",
            to_raw(json!({ "ms": 5000 })),
            CallOptions::default().timeout(Duration::from_millis(50)),
        )
        .await;
    assert!(matches!(r, Err(RequestError::Timeout { .. })));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(counters.interrupted.load(Ordering::SeqCst), 1, "the server's handler was interrupted");
}

#[tokio::test]
async fn a_handler_past_its_timeout_is_dropped_and_answered_once() {
    let config = DispatcherConfig { handler_timeout: Some(Duration::from_millis(100)), ..Default::default() };
    let (mut raw, counters, _) = serve(config);
    raw.request(1, "sleep", json!({ "ms": 60_000 })).await;
    raw.request(2, "sleep", json!({ "ms": 10 })).await;
    assert_eq!(expect_result(&raw.next().await, 2), json!({ "slept": true, "cancelled": false }));
    let error = expect_error(&raw.next().await, 1);
    assert_eq!(error.code, codes::INTERNAL_ERROR);
    assert!(error.message.starts_with("Request timed out"), "{}", error.message);
    raw.expect_silence(Duration::from_millis(200)).await;
    assert_eq!(counters.interrupted.load(Ordering::SeqCst), 1, "the handler was dropped");
    raw.request(3, "echo", json!({ "still": "alive" })).await;
    assert_eq!(expect_result(&raw.next().await, 3), json!({ "still": "alive" }));
}
