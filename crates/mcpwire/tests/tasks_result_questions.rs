//! The questions a 2025-11-25 task asks the client during `tasks/result`, and how long
//! they wait: as long as the task lives (not the connection's default request timeout),
//! and no longer than the `tasks/result` call that carries them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
// Every frame these tests wait for comes past the tasks' status notifications.
use common::{call_past_task_status as call, next_past_task_status as next};
use mcpwire::jsonrpc::{DispatcherConfig, PeerCancelMode};
use mcpwire::protocol::elicitation::ElicitRequestParams;
use mcpwire::protocol::{Message, Notification, Response};
use mcpwire::server::tasks::TaskSupport;
use mcpwire::server::{tool, Ctx, Server};
use mcpwire::McpError;
use serde_json::json;

/// A 2025-11-25 session of a server (with `config`) whose `asks` task asks a name, and
/// the question its `tasks/result` (id 2, still waiting) carries to the client.
async fn a_task_asking(config: DispatcherConfig) -> (RawPeer, String, mcpwire::protocol::Request) {
    let form: ElicitRequestParams = serde_json::from_value(json!({
        "message": "Name?",
        "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } }
    }))
    .unwrap();
    let server = Server::builder("tasks-2025", "0.1.0")
        .dispatcher_config(config)
        .tool(tool("asks").description("Asks a name").task_support(TaskSupport::Required).handler(
            move |ctx: Ctx| {
                let form = form.clone();
                async move {
                    let answer = serde_json::to_value(ctx.elicit(form).await?).unwrap();
                    Ok::<_, McpError>(format!("hello {}", answer["content"]["name"].as_str().unwrap_or("")))
                }
            },
        ))
        .build()
        .unwrap();
    let mut raw = initialize_with(server, json!({ "elicitation": {} })).await;
    raw.send(Notification::new("notifications/initialized", None)).await;
    let (id, question) = task_asking(&mut raw, "asks").await;
    (raw, id, question)
}

async fn answer(raw: &mut RawPeer, question: mcpwire::protocol::Request, name: &str) {
    let answer = json!({ "action": "accept", "content": { "name": name } });
    raw.send(Response::new(question.id, serde_json::value::to_raw_value(&answer).unwrap())).await;
}

/// A question a task asks during `tasks/result` waits for the user as long as the task
/// lives (its TTL, or until the client cancels it), not the server's default request
/// timeout: a user who takes longer than that to answer does not fail the task.
#[tokio::test]
async fn a_tasks_question_waits_past_the_default_request_timeout() {
    let config = DispatcherConfig { request_timeout: Some(Duration::from_millis(200)), ..Default::default() };
    let (mut raw, _, question) = a_task_asking(config).await;
    // Well past the default timeout: the server neither gives up on the question (a
    // `notifications/cancelled`) nor ends the task.
    let quiet = tokio::time::timeout(Duration::from_millis(1500), next(&mut raw)).await;
    assert!(quiet.is_err(), "the server gave up on the task's question: {:?}", quiet.map(|m| json_of(&m)));
    answer(&mut raw, question, "Ada").await;
    let result = expect_result(&next(&mut raw).await, 2);
    assert_eq!(result["content"][0]["text"], "hello Ada");
}

/// A client that cancels its `tasks/result` while the task's question is out takes the
/// question back with it (the server cancels it), even where handlers run on after a
/// cancel (`PeerCancelMode::Signal`); the task still waits for the answer, and the next
/// `tasks/result` asks again.
#[tokio::test]
async fn a_cancelled_result_call_takes_its_question_back_and_the_task_waits_on() {
    let config = DispatcherConfig { cancel_mode: PeerCancelMode::Signal, ..Default::default() };
    let (mut raw, id, question) = a_task_asking(config).await;
    let cancel = json!({ "requestId": 2, "reason": "the user moved on" });
    raw.send(Notification::new("notifications/cancelled", to_raw(cancel))).await;
    // The question is taken back.
    let m = json_of(&next(&mut raw).await);
    assert_eq!(m["method"], "notifications/cancelled", "{m}");
    assert_eq!(m["params"]["requestId"], json_of(&Message::Request(question))["id"], "{m}");
    // The task still waits for its answer; the next tasks/result asks again.
    let task = expect_result(&call(&mut raw, 3, "tasks/get", json!({ "taskId": id })).await, 3);
    assert_eq!(task["status"], "input_required", "{task}");
    raw.request(4, "tasks/result", json!({ "taskId": id })).await;
    let Message::Request(again) = next(&mut raw).await else { panic!("expected elicitation/create") };
    assert_eq!(again.method, "elicitation/create");
    answer(&mut raw, again, "Ada").await;
    let result = expect_result(&next(&mut raw).await, 4);
    assert_eq!(result["content"][0]["text"], "hello Ada");
}
