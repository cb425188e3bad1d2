//! The dispatcher under hostile orderings: cancellations that race their requests, ids of
//! every shape, what a cancelled handler may still try to send, and requests that race
//! the close of their connection.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcpwire::jsonrpc::{CallOptions, Dispatcher, DispatcherConfig, Handler, PeerCancelMode, RequestContext};
use mcpwire::protocol::{Message, RawJson, Request, Response};
use mcpwire::transport::{InboundMeta, TransportEvent};
use mcpwire::{McpError, RequestError};
use serde_json::{json, Value};

/// A handler whose methods send things after a pause, to race a cancellation.
#[derive(Clone, Default)]
struct Racer {
    dropped: Arc<AtomicUsize>,
}

/// Counts a handler future dropped before it finished.
struct Dropped(Arc<AtomicUsize>, bool);

impl Drop for Dropped {
    fn drop(&mut self) {
        if self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Handler for Racer {
    async fn on_request(&self, request: Request, ctx: RequestContext) -> Result<RawJson, McpError> {
        let params: Value = request.parse_params().map_err(|e| McpError::invalid_params(e.to_string()))?;
        let pause = Duration::from_millis(params["ms"].as_u64().unwrap_or(100));
        let out = match request.method.as_str() {
            "echo" => params,
            "sleep" => {
                tokio::time::sleep(pause).await;
                json!({})
            }
            // Sleeps, ignoring its token, and notes whether its future was dropped.
            "stubborn" => {
                let mut dropped = Dropped(self.dropped.clone(), true);
                tokio::time::sleep(pause).await;
                dropped.1 = false;
                json!({})
            }
            // Reports progress and a log line after a pause, whether cancelled or not.
            "late_progress" => {
                tokio::time::sleep(pause).await;
                ctx.progress(1.0, None, None).await;
                ctx.notify("notifications/message", to_raw(json!({ "level": "info", "data": "late" }))).await;
                json!({})
            }
            // Reports values JSON cannot carry, then a plain one.
            "odd_progress" => {
                ctx.progress(f64::INFINITY, None, None).await;
                ctx.progress(f64::NAN, None, None).await;
                ctx.progress(1.0, Some(f64::INFINITY), None).await;
                ctx.progress(2.0, Some(4.0), None).await;
                json!({})
            }
            // Answers while a task of its own keeps reporting progress.
            "progress_race" => {
                let reporter = ctx.clone();
                tokio::spawn(async move {
                    for n in 1..20 {
                        reporter.progress(f64::from(n), None, None).await;
                        tokio::task::yield_now().await;
                    }
                });
                tokio::task::yield_now().await;
                json!({})
            }
            // Asks the peer something after a pause, whether cancelled or not.
            "late_ask" => {
                tokio::time::sleep(pause).await;
                let asked = ctx.request("roots/list", None, CallOptions::default()).await;
                json!({ "asked": asked.is_ok() })
            }
            other => return Err(McpError::method_not_found(other)),
        };
        Ok(serde_json::value::to_raw_value(&out).unwrap())
    }
}

fn serve(mode: PeerCancelMode) -> RawPeer {
    serve_counting(mode).0
}

/// [`serve`], with the count of handler futures dropped before they finished, and the
/// dispatcher's task.
fn serve_counting(mode: PeerCancelMode) -> (RawPeer, Arc<AtomicUsize>, tokio::task::JoinHandle<()>) {
    let (conn, raw) = raw_connection();
    let config = DispatcherConfig { cancel_mode: mode, ..Default::default() };
    let handler = Racer::default();
    let dropped = handler.dropped.clone();
    (raw, dropped, Dispatcher::with_config(conn, config).spawn(handler))
}

#[tokio::test]
async fn a_cancelled_handler_that_goes_on_sends_nothing_more_for_its_request() {
    // Signal mode lets the handler run on after the cancel; what it then sends for the
    // request must not reach the peer (2026 transports: MUST NOT send any further
    // messages for a cancelled request).
    let mut raw = serve(PeerCancelMode::Signal);
    raw.request(1, "late_progress", json!({ "ms": 60, "_meta": { "progressToken": "t" } })).await;
    tokio::time::sleep(Duration::from_millis(10)).await;
    raw.cancel(1).await;
    raw.expect_silence(Duration::from_millis(200)).await;
}

#[tokio::test]
async fn a_cancelled_handler_cannot_start_a_request_to_the_peer() {
    let mut raw = serve(PeerCancelMode::Signal);
    raw.request(1, "late_ask", json!({ "ms": 60 })).await;
    tokio::time::sleep(Duration::from_millis(10)).await;
    raw.cancel(1).await;
    raw.expect_silence(Duration::from_millis(200)).await;
}

#[tokio::test]
async fn a_cancel_names_one_id_exactly_a_string_is_not_the_number() {
    let mut raw = serve(PeerCancelMode::Interrupt);
    raw.request(1, "sleep", json!({ "ms": 80 })).await;
    raw.request("1", "sleep", json!({ "ms": 80 })).await;
    raw.cancel("1").await;
    // Only the number-1 request is answered.
    let answer = raw.next().await;
    expect_result(&answer, 1);
    raw.expect_silence(Duration::from_millis(150)).await;
}

#[tokio::test]
async fn a_cancel_before_the_request_or_after_the_answer_or_twice_changes_nothing() {
    let mut raw = serve(PeerCancelMode::Interrupt);
    raw.cancel(5).await;
    raw.request(5, "echo", json!({ "a": 1 })).await;
    assert_eq!(expect_result(&raw.next().await, 5)["a"], 1);
    raw.cancel(5).await;
    raw.cancel(5).await;
    raw.request(6, "sleep", json!({ "ms": 5000 })).await;
    raw.cancel(6).await;
    raw.cancel(6).await;
    // Id 6 is free again once cancelled; a new request under it is answered.
    raw.request(6, "echo", json!({ "b": 2 })).await;
    assert_eq!(expect_result(&raw.next().await, 6)["b"], 2);
    raw.expect_silence(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn ids_are_echoed_exactly_as_sent() {
    let mut raw = serve(PeerCancelMode::Interrupt);
    for id in [json!(0), json!(-1), json!(i64::MAX), json!(i64::MIN), json!("é😀\u{0}"), json!("")] {
        let line = json!({ "jsonrpc": "2.0", "id": id, "method": "echo", "params": {} });
        let Ok(mcpwire::protocol::Frame::Single(message)) =
            mcpwire::protocol::decode_frame(line.to_string().as_bytes())
        else {
            panic!("{line}")
        };
        raw.send(message).await;
        assert_eq!(json_of(&raw.next().await)["id"], id);
    }
}

/// Feeds one frame, as a line transport would: decoded, or reported as invalid.
async fn send_line(raw: &RawPeer, line: &str) {
    use mcpwire::protocol::{decode_frame, Frame};
    use mcpwire::transport::{InboundMeta, TransportEvent};
    let event = match decode_frame(line.as_bytes()) {
        Ok(Frame::Single(message)) => TransportEvent::message(message, InboundMeta::default()),
        Ok(Frame::Batch(_)) => panic!("a batch: {line}"),
        Err(error) => TransportEvent::invalid(error),
    };
    raw.events.send(event).await.unwrap();
}

#[tokio::test]
async fn an_error_response_with_a_null_id_is_not_answered() {
    // JSON-RPC 2.0's form of an error whose request id could not be read. Answering it
    // would answer a response (two peers could then answer each other without end).
    let mut raw = serve(PeerCancelMode::Interrupt);
    send_line(&raw, r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#).await;
    raw.expect_silence(Duration::from_millis(100)).await;
    raw.request(1, "echo", json!({})).await;
    expect_result(&raw.next().await, 1);
}

#[tokio::test]
async fn the_end_of_the_connection_drops_a_cancelled_handler_that_runs_on_in_signal_mode() {
    // Signal mode lets a cancelled handler finish, but "the end of the connection still
    // drops every handler" (PeerCancelMode::Signal), a cancelled one too.
    let (mut raw, dropped, task) = serve_counting(PeerCancelMode::Signal);
    raw.request(1, "stubborn", json!({ "ms": 30_000 })).await;
    raw.request(2, "stubborn", json!({ "ms": 30_000 })).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    raw.cancel(1).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    raw.hang_up();
    // Request 2 is answered "Connection closed"; request 1, cancelled, is not answered.
    let closed = expect_error(&raw.next().await, 2);
    assert_eq!(closed.code, mcpwire::protocol::codes::CONNECTION_CLOSED);
    tokio::time::timeout(Duration::from_secs(5), task).await.unwrap().unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(dropped.load(Ordering::SeqCst), 2, "both handlers were dropped");
}

#[tokio::test]
async fn progress_that_json_cannot_carry_is_not_sent() {
    // `progress` and `total` are JSON numbers: an infinite or NaN value would go out as
    // `null` (and an infinite one would also stop every later value from increasing).
    let mut raw = serve(PeerCancelMode::Interrupt);
    raw.request(1, "odd_progress", json!({ "_meta": { "progressToken": 9 } })).await;
    let mut seen = Vec::new();
    loop {
        let message = json_of(&raw.next().await);
        if message.get("id").is_some() {
            break;
        }
        seen.push(message["params"].clone());
    }
    assert_eq!(
        seen,
        vec![
            json!({ "progressToken": 9, "progress": 1.0 }),
            json!({ "progressToken": 9, "progress": 2.0, "total": 4.0 })
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_progress_follows_the_answer_even_from_a_task_of_the_handler() {
    // Progress "MUST stop after completion": a task the handler spawned that reports
    // progress while the request settles must not get a report out after the answer.
    let mut raw = serve(PeerCancelMode::Interrupt);
    let mut answered = std::collections::HashSet::new();
    let check = |message: Value, answered: &mut std::collections::HashSet<i64>| match message.get("id") {
        Some(id) => {
            answered.insert(id.as_i64().unwrap());
            true
        }
        None => {
            let token = message["params"]["progressToken"].as_i64().unwrap();
            assert!(!answered.contains(&token), "progress after the answer: {message}");
            false
        }
    };
    for id in 0..10_000 {
        raw.request(id, "progress_race", json!({ "_meta": { "progressToken": id } })).await;
        while !check(json_of(&raw.next().await), &mut answered) {}
    }
    while let Ok(Some(out)) = tokio::time::timeout(Duration::from_millis(50), raw.written.recv()).await {
        check(json_of(out.message()), &mut answered);
    }
}

/// A request the caller starts while the connection is closing either sees the close or
/// is failed by it: never a waiter that nothing answers or fails. Callers loop on requests
/// that a peer answers at once, and the connection is closed under them at a varying
/// moment; every caller must come back with the close (no timeout is set).
#[tokio::test(flavor = "multi_thread", worker_threads = 3)]
async fn a_request_racing_the_close_of_its_connection_fails_and_never_hangs() {
    for round in 0..1000u64 {
        let (conn, RawPeer { events, mut written }) = raw_connection();
        let dispatcher = Dispatcher::new(conn);
        let peer = dispatcher.peer();
        let task = dispatcher.spawn(mcpwire::jsonrpc::NoHandler);
        tokio::spawn(async move {
            while let Some(out) = written.recv().await {
                if let Message::Request(r) = out.message() {
                    let answer = Response::new(r.id.clone(), to_raw(json!({})).unwrap());
                    let event = TransportEvent::message(Message::Response(answer), InboundMeta::default());
                    if events.send(event).await.is_err() {
                        return;
                    }
                }
            }
        });
        let callers: Vec<_> = (0..4)
            .map(|_| {
                let peer = peer.clone();
                tokio::spawn(async move {
                    loop {
                        if let Err(e) = peer.request_raw("x", None, CallOptions::default()).await {
                            return e;
                        }
                    }
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_micros(200 + (round % 7) * 50)).await;
        peer.close();
        for caller in callers {
            let outcome = tokio::time::timeout(Duration::from_secs(5), caller).await;
            let error = outcome.unwrap_or_else(|_| panic!("round {round}: a request hung after the close"));
            assert!(matches!(error.unwrap(), RequestError::ConnectionClosed { .. }), "round {round}");
        }
        task.await.unwrap();
    }
}
