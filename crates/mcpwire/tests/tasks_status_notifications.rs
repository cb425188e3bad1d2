//! A 2025-11-25 task's `notifications/tasks/status`: told in the order its changes were
//! made, so that a session never hears of a state after the task's terminal one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod task_store_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcpwire::protocol::elicitation::ElicitRequestParams;
use mcpwire::protocol::tasks::TaskStatus;
use mcpwire::protocol::{Message, Notification, Response};
use mcpwire::server::tasks::{MemoryTaskStore, StoreFuture, TaskRecord, TaskSupport};
use mcpwire::server::{tool, Ctx, Server};
use mcpwire::McpError;
use serde_json::json;
use task_store_support::{Found, HookedStore, StoreHooks};

/// Hooks on the in-memory store: the write that takes a task out of `input_required`
/// returns only after a later write has ended the task (and says, through `holding`,
/// that it waits): the two writers then tell of their changes in the other order than
/// they were made.
struct SlowToResume {
    armed: AtomicBool,
    holding: Arc<tokio::sync::Notify>,
    ended: tokio::sync::Notify,
}

impl StoreHooks for SlowToResume {
    fn after_update<'a>(&'a self, changed: &'a Found) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let status = changed.as_ref().ok().and_then(|r| r.as_ref()).map(TaskRecord::status);
            match status {
                Some(TaskStatus::InputRequired) => self.armed.store(true, Ordering::SeqCst),
                Some(TaskStatus::Working) if self.armed.swap(false, Ordering::SeqCst) => {
                    self.holding.notify_one();
                    let _ = tokio::time::timeout(Duration::from_secs(5), self.ended.notified()).await;
                }
                Some(s) if s.is_terminal() => self.ended.notify_one(),
                _ => {}
            }
        })
    }
}

/// A task answered and then cancelled while the answer's change is still being told:
/// the session hears `cancelled` last, never `working` after it. (The handler ignores
/// its cancellation, so the task runs on for its grace meanwhile.)
#[tokio::test]
async fn no_status_is_told_after_the_terminal_one() {
    let form: ElicitRequestParams = serde_json::from_value(json!({
        "message": "Name?",
        "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } }
    }))
    .unwrap();
    let holding = Arc::new(tokio::sync::Notify::new());
    let hooks = SlowToResume {
        armed: AtomicBool::new(false),
        holding: holding.clone(),
        ended: tokio::sync::Notify::new(),
    };
    let store = HookedStore::new(MemoryTaskStore::default(), Arc::new(hooks));
    let server = Server::builder("tasks-2025", "0.1.0")
        .task_store(store)
        .tool(
            tool("asks")
                .description("Asks a name, then never ends")
                .task_support(TaskSupport::Required)
                .handler(move |ctx: Ctx| {
                    let form = form.clone();
                    async move {
                        ctx.elicit(form).await?;
                        std::future::pending::<()>().await;
                        Ok::<_, McpError>("never")
                    }
                }),
        )
        .build()
        .unwrap();
    let mut raw = initialize_with(server, json!({ "elicitation": {} })).await;
    raw.send(Notification::new("notifications/initialized", None)).await;
    raw.request(1, "tools/call", json!({ "name": "asks", "task": {} })).await;
    let mut statuses = Vec::new();
    let mut answers = std::collections::HashMap::<i64, serde_json::Value>::new();
    while answers.len() < 4 {
        match raw.next().await {
            Message::Notification(n) if n.method == "notifications/tasks/status" => {
                let params: serde_json::Value = serde_json::from_str(n.params.unwrap().get()).unwrap();
                statuses.push(params["status"].as_str().unwrap().to_owned());
            }
            Message::Request(question) => {
                let answer = json!({ "action": "accept", "content": { "name": "Ada" } });
                raw.send(Response::new(question.id, serde_json::value::to_raw_value(&answer).unwrap())).await;
                // The answer's change is made, and not told yet: the task is cancelled.
                tokio::time::timeout(Duration::from_secs(5), holding.notified()).await.unwrap();
                let task = answers[&1]["result"]["task"]["taskId"].clone();
                raw.request(3, "tasks/cancel", json!({ "taskId": task })).await;
            }
            m => {
                let m = json_of(&m);
                let id = m["id"].as_i64().unwrap();
                if id == 1 {
                    let task = m["result"]["task"]["taskId"].clone();
                    raw.request(2, "tasks/result", json!({ "taskId": task })).await;
                }
                if id == 3 {
                    // A ping that follows every notification sent before.
                    raw.request(4, "ping", json!({})).await;
                }
                answers.insert(id, m);
            }
        }
    }
    assert_eq!(answers[&3]["result"]["status"], "cancelled", "{:?}", answers[&3]);
    assert!(answers[&2]["error"].is_object(), "{:?}", answers[&2]);
    let terminal = statuses.iter().position(|s| s == "cancelled").expect("cancelled was told");
    assert_eq!(terminal, statuses.len() - 1, "a status told after the terminal one: {statuses:?}");
}
