//! A tool call the client follows as a task, against a scripted server whose transport
//! fails some of the follower's polls (`tasks/get`, and the 2025 `tasks/result`) before
//! they are answered: the task is still on the server, so the follower polls again, a few
//! times, rather than ending the call; a poll that keeps failing ends it, with the
//! transport's error, and the task is cancelled. And the call's timeout bounds the call
//! as a whole, the time before the task was created included; a call cancelled while it
//! waits on `tasks/result` fails naming the `tools/call`, and cancels the task.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::Client;
use mcpwire::protocol::{Message, ProtocolVersion, Response};
use mcpwire::transport::{Connection, InboundMeta, TransportEvent};
use mcpwire::RequestError;
use serde_json::{json, Value};

/// What the scripted server does with one request.
enum Reply {
    Result(Value),
    /// The result, after a while (the scripted server waits meanwhile).
    Late(Duration, Value),
    /// The transport fails the request: its answer cannot come (a broken connection).
    Fail,
}

/// Every request method the scripted server read, in order.
type Seen = Arc<Mutex<Vec<String>>>;

/// A server that answers each request with `answer(method, how many of that method came
/// before)`, recording the methods.
fn scripted(answer: impl Fn(&str, usize) -> Reply + Send + 'static) -> (Connection, Seen) {
    let (connection, mut raw) = common::raw_connection();
    let seen: Seen = Default::default();
    let record = seen.clone();
    tokio::spawn(async move {
        while let Some(out) = raw.written.recv().await {
            let (Message::Request(request), _) = out.into_parts() else { continue };
            let before = {
                let mut seen = record.lock().unwrap();
                let before = seen.iter().filter(|m| **m == request.method).count();
                seen.push(request.method.clone());
                before
            };
            let (wait, result) = match answer(&request.method, before) {
                Reply::Result(result) => (Duration::ZERO, result),
                Reply::Late(wait, result) => (wait, result),
                Reply::Fail => {
                    let failed = TransportEvent::failed(request.id, "connection reset by peer");
                    match raw.events.send(failed).await {
                        Ok(()) => continue,
                        Err(_) => return,
                    }
                }
            };
            tokio::time::sleep(wait).await;
            let response = Response::new(request.id, serde_json::value::to_raw_value(&result).unwrap());
            let event = TransportEvent::message(response, InboundMeta::default());
            if raw.events.send(event).await.is_err() {
                return;
            }
        }
    });
    (connection, seen)
}

fn count(seen: &Seen, method: &str) -> usize {
    seen.lock().unwrap().iter().filter(|m| *m == method).count()
}

/// A 2025-11-25 server whose tool `job` requires a task (`t1`, done at the first
/// `tasks/get`), whose `tasks/result` fails `failures` times before it is answered.
fn server_2025(failures: usize) -> (Connection, Seen) {
    let task = |status: &str| {
        json!({ "taskId": "t1", "status": status, "createdAt": "2026-12-04T00:00:00Z",
            "lastUpdatedAt": "2026-12-04T00:00:00Z", "ttl": 60000, "pollInterval": 100 })
    };
    scripted(move |method, before| {
        Reply::Result(match method {
            "initialize" => json!({ "protocolVersion": "2025-11-25",
                "capabilities": { "tools": {}, "tasks": { "cancel": {}, "requests": { "tools": { "call": {} } } } },
                "serverInfo": { "name": "s", "version": "1" } }),
            "tools/list" => json!({ "tools": [{ "name": "job", "inputSchema": { "type": "object" },
                "execution": { "taskSupport": "required" } }] }),
            "tools/call" => json!({ "task": task("working") }),
            "tasks/get" => task("completed"),
            "tasks/result" if before < failures => return Reply::Fail,
            "tasks/result" => json!({ "content": [{ "type": "text", "text": "done" }],
                "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "t1" } } }),
            _ => json!({}),
        })
    })
}

/// A 2026 server whose `tools/call` becomes the task `t1`, whose `tasks/get` fails
/// `failures` times before it says the task completed.
fn server_2026(failures: usize) -> (Connection, Seen) {
    scripted(move |method, before| {
        Reply::Result(match method {
            "tools/call" => json!({ "resultType": "task", "taskId": "t1", "status": "working",
                "createdAt": "2026-12-04T00:00:00Z", "lastUpdatedAt": "2026-12-04T00:00:00Z",
                "ttlMs": 60000, "pollIntervalMs": 100 }),
            "tasks/get" if before < failures => return Reply::Fail,
            "tasks/get" => json!({ "resultType": "complete", "taskId": "t1", "status": "completed",
                "createdAt": "2026-12-04T00:00:00Z", "lastUpdatedAt": "2026-12-04T00:00:00Z",
                "ttlMs": 60000, "result": { "content": [{ "type": "text", "text": "done" }] } }),
            _ => json!({ "resultType": "complete" }),
        })
    })
}

async fn connect(connection: Connection, version: ProtocolVersion) -> Client {
    Client::builder("c", "1").protocol_version(version).connect(connection).await.unwrap()
}

/// The follower's poll that the transport fails is sent again: the task's result comes.
#[tokio::test(start_paused = true)]
async fn a_poll_the_transport_failed_is_sent_again_in_both_eras() {
    for (version, (connection, seen), poll) in [
        (ProtocolVersion::V2025_11_25, server_2025(2), "tasks/result"),
        (ProtocolVersion::V2026_07_28, server_2026(2), "tasks/get"),
    ] {
        let client = connect(connection, version.clone()).await;
        let call = client.call_tool("job", json!({}));
        let result = tokio::time::timeout(Duration::from_secs(60), call).await.expect("the call ends");
        let result = result.unwrap_or_else(|e| panic!("{version:?}: {e}"));
        assert_eq!(result.content[0].as_text(), Some("done"), "{version:?}");
        assert_eq!(count(&seen, poll), 3, "{version:?}: two failed polls, then the answer");
        assert_eq!(count(&seen, "tasks/cancel"), 0, "{version:?}: the task ended by itself");
        client.close().await;
    }
}

/// A poll that keeps failing ends the call with the transport's error after a few tries,
/// not at once and not never, and the task nobody follows any more is cancelled.
#[tokio::test(start_paused = true)]
async fn a_poll_that_keeps_failing_ends_the_call_and_cancels_the_task() {
    for (version, (connection, seen), poll) in [
        (ProtocolVersion::V2025_11_25, server_2025(usize::MAX), "tasks/result"),
        (ProtocolVersion::V2026_07_28, server_2026(usize::MAX), "tasks/get"),
    ] {
        let client = connect(connection, version.clone()).await;
        let call = client.call_tool("job", json!({}));
        let outcome = tokio::time::timeout(Duration::from_secs(600), call).await.expect("the call ends");
        let Err(RequestError::Transport { reason }) = outcome else { panic!("{version:?}: {outcome:?}") };
        assert!(reason.contains("connection reset"), "{version:?}: {reason}");
        let polls = count(&seen, poll);
        assert!(polls > 1 && polls <= 5, "{version:?}: {polls} polls");
        let cancelled = tokio::time::timeout(Duration::from_secs(10), async {
            while count(&seen, "tasks/cancel") == 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        });
        cancelled.await.unwrap_or_else(|_| panic!("{version:?}: the task was not cancelled"));
        client.close().await;
    }
}

/// A call's timeout bounds all of it: a task created late in the call (its `tools/call`
/// answered after most of the timeout) is followed for what is left of it, not for a
/// whole timeout more.
#[tokio::test(start_paused = true)]
async fn the_timeout_of_a_call_that_became_a_task_counts_from_the_call() {
    // Each era reads the members it knows of these answers (the 2025 task under `task`,
    // the 2026 one flat) and ignores the others.
    let working = json!({ "taskId": "t1", "status": "working", "createdAt": "2026-12-04T00:00:00Z",
        "lastUpdatedAt": "2026-12-04T00:00:00Z", "ttl": 600000, "ttlMs": 600000,
        "pollInterval": 100, "pollIntervalMs": 100 });
    let late = Duration::from_millis(800);
    let server = || {
        let working = working.clone();
        scripted(move |method, _| match method {
            "initialize" => Reply::Result(json!({ "protocolVersion": "2025-11-25",
                "capabilities": { "tools": {}, "tasks": { "cancel": {}, "requests": { "tools": { "call": {} } } } },
                "serverInfo": { "name": "s", "version": "1" } })),
            "tools/list" => Reply::Result(json!({ "tools": [{ "name": "job",
                "inputSchema": { "type": "object" }, "execution": { "taskSupport": "required" } }] })),
            "tools/call" => {
                let mut created = working.clone();
                created["resultType"] = json!("task");
                created["task"] = working.clone();
                Reply::Late(late, created)
            }
            "tasks/get" => {
                let mut polled = working.clone();
                polled["resultType"] = json!("complete");
                Reply::Result(polled)
            }
            _ => Reply::Result(json!({ "resultType": "complete" })),
        })
    };
    let timeout = Duration::from_secs(1);
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let (connection, seen) = server();
        let client = connect(connection, version.clone()).await;
        let started = tokio::time::Instant::now();
        let options = mcpwire::client::RequestOptions::default().timeout(timeout);
        let outcome = client.call_tool_with("job", json!({}), options).await;
        assert!(matches!(outcome, Err(RequestError::Timeout { .. })), "{version:?}: {outcome:?}");
        assert!(count(&seen, "tasks/get") > 0, "{version:?}: the task was followed");
        assert!(started.elapsed() <= timeout, "{version:?}: the call took {:?}", started.elapsed());
        client.close().await;
    }
}

/// A 2025 task-augmented call cancelled while the client waits on `tasks/result` fails
/// as the `tools/call` the caller made was cancelled (not the `tasks/result` the client
/// sent on its behalf), and the task is cancelled on the server with `tasks/cancel`.
#[tokio::test(start_paused = true)]
async fn a_call_cancelled_during_tasks_result_names_the_tool_call_and_cancels_the_task() {
    let task = json!({ "taskId": "t1", "status": "completed", "createdAt": "2026-12-04T00:00:00Z",
        "lastUpdatedAt": "2026-12-04T00:00:00Z", "ttl": 60000, "pollInterval": 100 });
    let (connection, seen) = scripted(move |method, _| match method {
        "initialize" => Reply::Result(json!({ "protocolVersion": "2025-11-25",
            "capabilities": { "tools": {}, "tasks": { "cancel": {}, "requests": { "tools": { "call": {} } } } },
            "serverInfo": { "name": "s", "version": "1" } })),
        "tools/list" => {
            Reply::Result(json!({ "tools": [{ "name": "job", "inputSchema": { "type": "object" },
            "execution": { "taskSupport": "required" } }] }))
        }
        "tools/call" => Reply::Result(json!({ "task": task.clone() })),
        "tasks/get" => Reply::Result(task.clone()),
        // Still waiting on the task when the call is cancelled.
        "tasks/result" => Reply::Late(Duration::from_secs(5), json!({ "content": [] })),
        _ => Reply::Result(json!({})),
    });
    let client = connect(connection, ProtocolVersion::V2025_11_25).await;
    let cancel = tokio_util::sync::CancellationToken::new();
    let options = mcpwire::client::RequestOptions::default().cancel_on(cancel.clone());
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool_with("job", json!({}), options).await }
    });
    let asked = tokio::time::timeout(Duration::from_secs(10), async {
        while count(&seen, "tasks/result") == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    asked.await.expect("the client never sent tasks/result");
    cancel.cancel();
    let outcome = tokio::time::timeout(Duration::from_secs(30), call).await.expect("the call ends").unwrap();
    match outcome {
        Err(RequestError::Cancelled { method }) => assert_eq!(method, "tools/call"),
        other => panic!("{other:?}"),
    }
    let cancelled = tokio::time::timeout(Duration::from_secs(10), async {
        while count(&seen, "tasks/cancel") == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    cancelled.await.expect("the task was not cancelled");
    client.close().await;
}
