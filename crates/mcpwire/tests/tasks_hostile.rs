//! Tasks under a careless or hostile client, both eras: a thousand `tasks/result` calls
//! waiting on one task at once, a task handler that panics, a TTL far past the limit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod task_store_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcpwire::protocol::{codes, Message};
use mcpwire::server::tasks::{MemoryTaskStore, StoreFuture, TaskSupport};
use mcpwire::server::{tool, Server};
use serde_json::json;
use task_store_support::{Found, HookedStore, StoreHooks};

fn server(go: Arc<tokio::sync::Notify>) -> Server {
    Server::builder("tasks-hostile", "0.1.0")
        .tool(tool("waits").task_support(TaskSupport::Required).handler(move || {
            let go = go.clone();
            async move {
                go.notified().await;
                "done"
            }
        }))
        .tool(tool("panics").task_support(TaskSupport::Required).handler(|| async {
            if std::hint::black_box(true) {
                panic!("a handler bug");
            }
            "never"
        }))
        .build()
        .unwrap()
}

async fn next_answer(raw: &mut RawPeer) -> Message {
    loop {
        match raw.next().await {
            Message::Notification(_) => continue,
            other => return other,
        }
    }
}

/// A thousand `tasks/result` calls waiting on one task: each is answered with the
/// result once the task completes, and the session goes on.
#[tokio::test]
async fn a_thousand_result_calls_on_one_task_are_each_answered_once() {
    let go = Arc::new(tokio::sync::Notify::new());
    let mut raw = initialized(server(go.clone())).await;
    raw.request(1, "tools/call", json!({ "name": "waits", "task": {} })).await;
    let created = expect_result(&next_answer(&mut raw).await, 1);
    let task = created["task"]["taskId"].as_str().unwrap().to_owned();
    for id in 2..1002 {
        raw.request(id, "tasks/result", json!({ "taskId": task })).await;
    }
    // Every call is waiting once this one, sent last, is answered.
    raw.request(5000, "tasks/get", json!({ "taskId": task })).await;
    assert_eq!(expect_result(&next_answer(&mut raw).await, 5000)["status"], "working");
    go.notify_one();
    let mut answered = std::collections::HashSet::new();
    for _ in 2..1002 {
        let Message::Response(r) = next_answer(&mut raw).await else { panic!("expected a result") };
        let value: serde_json::Value = serde_json::from_str(r.result.get()).unwrap();
        assert_eq!(value["content"][0]["text"], "done");
        assert!(answered.insert(serde_json::to_string(&r.id).unwrap()), "answered twice");
    }
    raw.request(6000, "tasks/get", json!({ "taskId": task })).await;
    assert_eq!(expect_result(&next_answer(&mut raw).await, 6000)["status"], "completed");
}

/// A task whose handler panics is `failed` with an internal error, in both eras, and the
/// server serves on; a TTL far past the limit is capped, not refused.
#[tokio::test]
async fn a_panicking_task_fails_and_a_huge_ttl_is_capped() {
    let mut raw = initialized(server(Arc::default())).await;
    raw.request(1, "tools/call", json!({ "name": "panics", "task": { "ttl": u64::MAX } })).await;
    let created = expect_result(&next_answer(&mut raw).await, 1);
    assert_eq!(created["task"]["ttl"], 24 * 3600 * 1000, "capped at TaskConfig::max_ttl");
    let task = created["task"]["taskId"].as_str().unwrap().to_owned();
    raw.request(2, "tasks/result", json!({ "taskId": task })).await;
    let e = expect_error(&next_answer(&mut raw).await, 2);
    assert_eq!(e.code, codes::INTERNAL_ERROR, "{}", e.message);
    raw.request(3, "tasks/get", json!({ "taskId": task })).await;
    let got = expect_result(&next_answer(&mut raw).await, 3);
    assert_eq!(got["status"], "failed");
    // Said without the panic's text (an internal error does not leak details).
    assert_eq!(got["statusMessage"], "Internal error", "{got}");
    tokio::time::timeout(Duration::from_secs(5), async {
        raw.request(4, "ping", json!({})).await;
        expect_result(&next_answer(&mut raw).await, 4);
    })
    .await
    .unwrap();
}

/// How many times the store was read, and how many of those reads copied out a
/// finished task (its result with it).
#[derive(Default)]
struct Reads {
    all: AtomicUsize,
    finished: AtomicUsize,
}

/// Counts the in-memory store's reads.
impl StoreHooks for Reads {
    fn after_get<'a>(&'a self, found: &'a Found) -> StoreFuture<'a, ()> {
        self.all.fetch_add(1, Ordering::SeqCst);
        if matches!(found, Ok(Some(r)) if r.status().is_terminal()) {
            self.finished.fetch_add(1, Ordering::SeqCst);
        }
        Box::pin(async {})
    }
}

/// Many `tasks/result` calls waiting on one task with a large result share one copy of
/// it: the finished record is read (and its result copied out of the store) once, not
/// once per waiting call, and each call is answered with the whole result.
#[tokio::test]
async fn result_calls_waiting_on_one_task_share_one_copy_of_its_result() {
    const WAITERS: usize = 200;
    let go = Arc::new(tokio::sync::Notify::new());
    let reads = Arc::new(Reads::default());
    let large = "x".repeat(256 * 1024);
    let server = Server::builder("tasks-hostile", "0.1.0")
        .task_store(HookedStore::new(MemoryTaskStore::default(), reads.clone()))
        .tool(tool("large").task_support(TaskSupport::Required).handler({
            let (go, large) = (go.clone(), large.clone());
            move || {
                let (go, large) = (go.clone(), large.clone());
                async move {
                    go.notified().await;
                    large
                }
            }
        }))
        .build()
        .unwrap();
    let mut raw = initialized(server).await;
    raw.request(1, "tools/call", json!({ "name": "large", "task": {} })).await;
    let created = expect_result(&next_answer(&mut raw).await, 1);
    let task = created["task"]["taskId"].as_str().unwrap().to_owned();
    let before = reads.all.load(Ordering::SeqCst);
    for id in 2..2 + WAITERS as i64 {
        raw.request(id, "tasks/result", json!({ "taskId": task })).await;
    }
    // Every call has read the running task once before the task finishes.
    tokio::time::timeout(Duration::from_secs(10), async {
        while reads.all.load(Ordering::SeqCst) < before + WAITERS {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("every tasks/result call read the task");
    go.notify_one();
    let mut answered = std::collections::HashSet::new();
    for _ in 0..WAITERS {
        let Message::Response(r) = next_answer(&mut raw).await else { panic!("expected a result") };
        let value: serde_json::Value = serde_json::from_str(r.result.get()).unwrap();
        assert_eq!(value["content"][0]["text"].as_str().map(str::len), Some(large.len()));
        assert_eq!(value["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task.as_str());
        assert!(answered.insert(serde_json::to_string(&r.id).unwrap()), "answered twice");
    }
    assert_eq!(reads.finished.load(Ordering::SeqCst), 1, "the finished task was copied out per waiter");
}
