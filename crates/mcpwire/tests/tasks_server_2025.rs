//! The server side of the 2025-11-25 core tasks over the in-memory transport, frame by
//! frame: the capability and `execution.taskSupport`, `params.task`, the `-32601` and
//! `-32602` rules, `tasks/get`, `tasks/list`, `tasks/cancel`, and `tasks/result`, which
//! waits for the end and carries the task's questions to the client.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod task_store_support;

use std::sync::Arc;
use std::time::Duration;

use common::*;
// Every frame these tests wait for comes past the tasks' status notifications.
use common::{call_past_task_status as call, next_past_task_status as next};
use mcpwire::protocol::elicitation::ElicitRequestParams;
use mcpwire::protocol::{codes, Message, Response};
use mcpwire::server::tasks::TaskConfig;
use mcpwire::server::tasks::{MemoryTaskStore, StoreFuture, TaskSupport};
use mcpwire::server::{tool, Ctx, Server};
use mcpwire::McpError;
use serde_json::{json, Value};
use task_store_support::{Found, HookedStore, StoreHooks};

fn start() -> RawPeer {
    start_with(server())
}

/// A connection to `server`, served in the background.
fn start_with(server: Server) -> RawPeer {
    let (conn, raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });
    raw
}

/// An initialized 2025-11-25 session of `server`.
async fn session_of(server: Server) -> RawPeer {
    let mut raw = start_with(server);
    initialize(&mut raw, "2025-11-25").await;
    raw
}

fn server() -> Server {
    Server::builder("tasks-2025", "0.1.0")
        .tool(tool("plain").description("Never a task").handler(|| "plain"))
        .tool(
            tool("maybe")
                .description("Optionally a task")
                .task_support(TaskSupport::Optional)
                .handler(|| "maybe"),
        )
        .tool(tool("forever").description("Until cancelled").task_support(TaskSupport::Required).handler(
            |ctx: Ctx| async move {
                ctx.cancellation().cancelled().await;
                Err::<String, _>(McpError::internal("stopped"))
            },
        ))
        .tool(tool("asks").description("Asks a name").task_support(TaskSupport::Required).handler(
            |ctx: Ctx| async move {
                let form: ElicitRequestParams = serde_json::from_value(json!({
                    "message": "Name?",
                    "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } }
                }))
                .unwrap();
                let answer = serde_json::to_value(ctx.elicit(form).await?).unwrap();
                Ok::<_, McpError>(format!("hello {}", answer["content"]["name"].as_str().unwrap_or("")))
            },
        ))
        .tool(tool("reports").description("Reports progress").task_support(TaskSupport::Required).handler(
            |ctx: Ctx| async move {
                // After the answer that created the task.
                tokio::time::sleep(Duration::from_millis(50)).await;
                ctx.progress(1.0, Some(2.0), Some("half")).await;
                ctx.progress(2.0, Some(2.0), None).await;
                "reported"
            },
        ))
        .build()
        .unwrap()
}

/// An initialized 2025-11-25 session whose `asks` tool runs as a task, and the question
/// that task's `tasks/result` (id 2, still waiting) carries to the client.
async fn a_task_asking() -> (RawPeer, String, mcpwire::protocol::Request) {
    let mut raw = start();
    initialize(&mut raw, "2025-11-25").await;
    let (id, question) = task_asking(&mut raw, "asks").await;
    (raw, id, question)
}

async fn initialize(raw: &mut RawPeer, version: &str) -> Value {
    let params = json!({ "protocolVersion": version, "capabilities": { "elicitation": {} },
        "clientInfo": { "name": "c", "version": "1" } });
    let r = expect_result(&call(raw, 0, "initialize", params).await, 0);
    raw.send(mcpwire::protocol::Notification::new("notifications/initialized", None)).await;
    r
}

#[tokio::test]
async fn capability_task_support_and_the_error_rules() {
    let mut raw = start();
    let init = initialize(&mut raw, "2025-11-25").await;
    assert_eq!(
        init["capabilities"]["tasks"],
        json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } })
    );
    assert!(init["capabilities"].get("extensions").is_none());
    let tools = expect_result(&call(&mut raw, 1, "tools/list", json!({})).await, 1);
    let support: Vec<Value> =
        tools["tools"].as_array().unwrap().iter().map(|t| t["execution"]["taskSupport"].clone()).collect();
    assert_eq!(
        support,
        [json!(null), json!("optional"), json!("required"), json!("required"), json!("required")]
    );

    let e = expect_error(&call(&mut raw, 2, "tools/call", json!({ "name": "plain", "task": {} })).await, 2);
    assert_eq!(e.code, codes::METHOD_NOT_FOUND);
    let e = expect_error(&call(&mut raw, 3, "tools/call", json!({ "name": "forever" })).await, 3);
    assert_eq!(e.code, codes::METHOD_NOT_FOUND);
    // Optional without `task`: an ordinary call.
    let r = expect_result(&call(&mut raw, 4, "tools/call", json!({ "name": "maybe" })).await, 4);
    assert_eq!(r["content"][0]["text"], "maybe");
    let e = expect_error(&call(&mut raw, 5, "tasks/get", json!({ "taskId": "nope" })).await, 5);
    assert_eq!(e.code, codes::INVALID_PARAMS);
    // `task` is an object with a whole-number `ttl`; params are an object.
    for (id, params) in [
        (6, json!({ "name": "maybe", "task": [] })),
        (7, json!({ "name": "maybe", "task": { "ttl": 1.5 } })),
        (8, json!({ "name": "maybe", "task": { "ttl": -1 } })),
        (9, json!(["maybe", {}])),
    ] {
        let e = expect_error(&call(&mut raw, id, "tools/call", params.clone()).await, id);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{params}: {}", e.message);
    }
    let r = expect_result(
        &call(&mut raw, 10, "tools/call", json!({ "name": "maybe", "task": { "ttl": null } })).await,
        10,
    );
    assert!(r["task"]["ttl"].as_u64().is_some(), "a null ttl is the default: {r}");
}

#[tokio::test]
async fn a_task_is_polled_listed_and_its_result_fetched() {
    let mut raw = start();
    initialize(&mut raw, "2025-11-25").await;
    let created = expect_result(
        &call(&mut raw, 1, "tools/call", json!({ "name": "maybe", "task": { "ttl": 60000 } })).await,
        1,
    );
    let task = &created["task"];
    assert_eq!(task["ttl"], 60000);
    assert!(task["pollInterval"].as_u64().unwrap() > 0);
    let id = task["taskId"].as_str().unwrap().to_owned();
    let result = expect_result(&call(&mut raw, 2, "tasks/result", json!({ "taskId": id })).await, 2);
    assert_eq!(result["content"][0]["text"], "maybe");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id.as_str());
    let got = expect_result(&call(&mut raw, 3, "tasks/get", json!({ "taskId": id })).await, 3);
    assert_eq!(got["status"], "completed");
    let list = expect_result(&call(&mut raw, 4, "tasks/list", json!({})).await, 4);
    assert_eq!(list["tasks"][0]["taskId"], id.as_str());
    let e = expect_error(&call(&mut raw, 5, "tasks/cancel", json!({ "taskId": id })).await, 5);
    assert_eq!(e.code, codes::INVALID_PARAMS, "a finished task cannot be cancelled");
    let e = expect_error(&call(&mut raw, 6, "tasks/list", json!({ "cursor": "bogus" })).await, 6);
    assert_eq!(e.code, codes::INVALID_PARAMS);
}

/// A TTL of 0 would make a task expire as it is created: the server keeps it at least a
/// second, and says so in the answer (the TTL it states is the one it keeps).
#[tokio::test]
async fn a_zero_ttl_task_is_kept_long_enough_to_be_polled() {
    let mut raw = start();
    initialize(&mut raw, "2025-11-25").await;
    let created = expect_result(
        &call(&mut raw, 1, "tools/call", json!({ "name": "maybe", "task": { "ttl": 0 } })).await,
        1,
    );
    assert_eq!(created["task"]["ttl"], 1000);
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let result = expect_result(&call(&mut raw, 2, "tasks/result", json!({ "taskId": id })).await, 2);
    assert_eq!(result["content"][0]["text"], "maybe");
    let got = expect_result(&call(&mut raw, 3, "tasks/get", json!({ "taskId": id })).await, 3);
    assert_eq!(got["status"], "completed");
}

/// The progress token of a task-augmented call stays valid until the task ends: the
/// task's progress, reported after the answer that created it, reaches the client, each
/// notification naming the task.
#[tokio::test]
async fn a_tasks_progress_goes_on_after_the_task_is_created() {
    let mut raw = start();
    initialize(&mut raw, "2025-11-25").await;
    let params = json!({ "name": "reports", "task": {}, "_meta": { "progressToken": "p" } });
    let created = expect_result(&call(&mut raw, 1, "tools/call", params).await, 1);
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let mut updates = Vec::new();
    for _ in 0..2 {
        let Message::Notification(n) = next(&mut raw).await else { panic!("expected progress") };
        assert_eq!(n.method, "notifications/progress");
        updates.push(n.parse_params::<Value>().unwrap());
    }
    let related = json!({ "io.modelcontextprotocol/related-task": { "taskId": id } });
    assert_eq!(
        updates,
        [
            json!({ "progressToken": "p", "progress": 1.0, "total": 2.0, "message": "half", "_meta": related }),
            json!({ "progressToken": "p", "progress": 2.0, "total": 2.0, "_meta": related }),
        ]
    );
    let result = expect_result(&call(&mut raw, 2, "tasks/result", json!({ "taskId": id })).await, 2);
    assert_eq!(result["content"][0]["text"], "reported");
}

/// A client from `builder`, connected at 2025-11-25 to a [`server`] in this process.
async fn connected(builder: mcpwire::client::ClientBuilder) -> mcpwire::client::Client {
    let (ours, theirs) = mcpwire::transport::memory::pair();
    let server = server();
    tokio::spawn(async move { server.serve(theirs).await });
    builder.protocol_version(mcpwire::protocol::ProtocolVersion::V2025_11_25).connect(ours).await.unwrap()
}

/// The same through `Client::call_tool_with`, which follows the task: the server's own
/// progress reaches the call's callback beside the task's status reports.
#[tokio::test]
async fn a_client_following_a_task_gets_its_progress() {
    use std::sync::{Arc, Mutex};
    let client = connected(mcpwire::client::Client::builder("c", "1")).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options =
        mcpwire::client::RequestOptions::default().on_progress(move |u| sink.lock().unwrap().push(u));
    let result = client.call_tool_with("reports", json!({}), options).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("reported"));
    let seen = seen.lock().unwrap().clone();
    let own: Vec<_> = seen.iter().filter(|u| u.total == Some(2.0)).map(|u| u.progress).collect();
    assert_eq!(own, [1.0, 2.0], "{seen:?}");
    client.close().await;
}

/// `Client::call_tool_raw` (a relay's call): a tool that requires a task is run as one
/// and its raw result returned; any other tool is called plainly, its params as given.
#[tokio::test]
async fn a_raw_call_of_a_task_only_tool_returns_the_tasks_result() {
    let client = connected(mcpwire::client::Client::builder("c", "1").without_tasks()).await;
    let options = mcpwire::client::RequestOptions::default;
    let result =
        client.call_tool_raw(json!({ "name": "reports", "arguments": {} }), options()).await.unwrap();
    assert_eq!(result["content"][0]["text"], "reported", "{result}");
    assert!(result.get("task").is_none(), "{result}");
    // A plain result: the task it came from is not the relay's client's to ask about.
    assert!(
        result.get("_meta").and_then(|m| m.get("io.modelcontextprotocol/related-task")).is_none(),
        "{result}"
    );
    let result =
        client.call_tool_raw(json!({ "name": "maybe", "_meta": { "k": 1 } }), options()).await.unwrap();
    assert_eq!(result["content"][0]["text"], "maybe", "{result}");
    // Without the task, the server refuses the task-only tool: what the raw call avoids.
    let refused = client.send_request("tools/call", json!({ "name": "reports" }), options()).await;
    assert!(refused.is_err(), "{refused:?}");
    client.close().await;
}

#[tokio::test]
async fn cancel_reaches_cancelled_before_answering() {
    let mut raw = start();
    initialize(&mut raw, "2025-11-25").await;
    let created =
        expect_result(&call(&mut raw, 1, "tools/call", json!({ "name": "forever", "task": {} })).await, 1);
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let r = expect_result(&call(&mut raw, 2, "tasks/cancel", json!({ "taskId": id })).await, 2);
    assert_eq!(r["status"], "cancelled");
    tokio::time::sleep(Duration::from_millis(50)).await;
    let got = expect_result(&call(&mut raw, 3, "tasks/get", json!({ "taskId": id })).await, 3);
    assert_eq!(got["status"], "cancelled", "cancelled sticks");
    let e = expect_error(&call(&mut raw, 4, "tasks/result", json!({ "taskId": id })).await, 4);
    assert!(e.message.contains("cancelled"), "{}", e.message);
}

/// Store hooks that, once armed, let the task finish inside the next `get` (after
/// reading the record, before returning it): the state `tasks/cancel` reads is then
/// already stale.
struct FinishingInsideGet {
    armed: std::sync::atomic::AtomicBool,
    go: Arc<tokio::sync::Notify>,
    finished: tokio::sync::Notify,
}

impl StoreHooks for FinishingInsideGet {
    fn after_get<'a>(&'a self, _: &'a Found) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if self.armed.swap(false, std::sync::atomic::Ordering::SeqCst) {
                self.go.notify_one();
                tokio::time::timeout(Duration::from_secs(5), self.finished.notified())
                    .await
                    .expect("the task finished");
            }
        })
    }

    fn after_update<'a>(&'a self, changed: &'a Found) -> StoreFuture<'a, ()> {
        if matches!(changed, Ok(Some(r)) if r.status().is_terminal()) {
            self.finished.notify_one();
        }
        Box::pin(async {})
    }
}

/// A task that completes while its `tasks/cancel` is under way was terminal when the
/// cancellation came: the cancel is `-32602` (never an answer saying `completed`, which
/// the spec forbids: a successful cancel is `cancelled`), and the task stays completed.
#[tokio::test]
async fn a_cancel_racing_completion_is_refused_when_completion_wins() {
    let go = Arc::new(tokio::sync::Notify::new());
    let store = Arc::new(FinishingInsideGet {
        armed: false.into(),
        go: go.clone(),
        finished: tokio::sync::Notify::new(),
    });
    let server = Server::builder("tasks-2025", "0.1.0")
        .tool(tool("waits").task_support(TaskSupport::Required).handler(move || {
            let go = go.clone();
            async move {
                go.notified().await;
                "done"
            }
        }))
        .task_store(HookedStore::new(MemoryTaskStore::new(10), store.clone()))
        .build()
        .unwrap();
    let mut raw = session_of(server).await;
    let created =
        expect_result(&call(&mut raw, 1, "tools/call", json!({ "name": "waits", "task": {} })).await, 1);
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    store.armed.store(true, std::sync::atomic::Ordering::SeqCst);
    match call(&mut raw, 2, "tasks/cancel", json!({ "taskId": id })).await {
        Message::Response(r) => panic!("a cancel answered with {}", r.result.get()),
        other => assert_eq!(expect_error(&other, 2).code, codes::INVALID_PARAMS),
    }
    let got = expect_result(&call(&mut raw, 3, "tasks/get", json!({ "taskId": id })).await, 3);
    assert_eq!(got["status"], "completed");
}

/// Store hooks whose `create` waits (a few seconds at most) until two creations are
/// under way at once.
struct MeetingInCreate {
    arrived: tokio::sync::watch::Sender<usize>,
}

impl StoreHooks for MeetingInCreate {
    fn before_create(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.arrived.send_modify(|n| *n += 1);
            let mut seen = self.arrived.subscribe();
            let _ = tokio::time::timeout(Duration::from_secs(3), seen.wait_for(|n| *n >= 2)).await;
        })
    }
}

/// `max_running` holds for calls that arrive together: a place is taken before the
/// record is written, so two calls whose records are written at once cannot both pass.
#[tokio::test]
async fn calls_arriving_together_do_not_run_past_max_running() {
    let server = Server::builder("tasks-2025", "0.1.0")
        .tool(tool("forever").task_support(TaskSupport::Required).handler(|ctx: Ctx| async move {
            ctx.cancellation().cancelled().await;
            "stopped"
        }))
        .task_store(HookedStore::new(
            MemoryTaskStore::new(10),
            Arc::new(MeetingInCreate { arrived: Default::default() }),
        ))
        .task_config(TaskConfig { max_running: 1, ..TaskConfig::default() })
        .build()
        .unwrap();
    let mut raw = session_of(server).await;
    raw.request(1, "tools/call", json!({ "name": "forever", "task": {} })).await;
    raw.request(2, "tools/call", json!({ "name": "forever", "task": {} })).await;
    let (mut created, mut refused) = (0, 0);
    for _ in 0..2 {
        match next(&mut raw).await {
            Message::Response(_) => created += 1,
            other => {
                let e = expect_error(&other, other_id(&other));
                assert!(e.message.contains("Too many tasks running"), "{}", e.message);
                refused += 1;
            }
        }
    }
    assert_eq!((created, refused), (1, 1));
}

/// The id an error answers.
fn other_id(message: &Message) -> i64 {
    match message {
        Message::Error(e) => serde_json::to_value(&e.id).unwrap().as_i64().unwrap(),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[tokio::test]
async fn tasks_result_carries_the_tasks_question_to_the_client() {
    let (mut raw, id, question) = a_task_asking().await;
    assert_eq!(question.method, "elicitation/create");
    let params: Value = serde_json::from_str(question.params.as_ref().unwrap().get()).unwrap();
    assert_eq!(params["message"], "Name?");
    assert_eq!(params["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id.as_str());
    let answer = json!({ "action": "accept", "content": { "name": "Ada" } });
    raw.send(Response::new(question.id, serde_json::value::to_raw_value(&answer).unwrap())).await;
    let result = expect_result(&next(&mut raw).await, 2);
    assert_eq!(result["content"][0]["text"], "hello Ada");
}

/// Two `tasks/result` calls of one task ask its question once (the user answers once),
/// and both end with the task's result.
#[tokio::test]
async fn two_result_calls_ask_the_tasks_question_once() {
    let (mut raw, id, question) = a_task_asking().await;
    raw.request(3, "tasks/result", json!({ "taskId": id })).await;
    // The second call waits for the first one's question rather than asking it again.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let answer = json!({ "action": "accept", "content": { "name": "Ada" } });
    raw.send(Response::new(question.id, serde_json::value::to_raw_value(&answer).unwrap())).await;
    let mut answered = Vec::new();
    while answered.len() < 2 {
        let m = json_of(&next(&mut raw).await);
        assert!(m.get("method").is_none(), "asked again: {m}");
        assert_eq!(m["result"]["content"][0]["text"], "hello Ada", "{m}");
        answered.push(m["id"].as_i64().unwrap());
    }
    answered.sort_unstable();
    assert_eq!(answered, [2, 3]);
}

/// A client that answers the task's question with an error: the task's handler gets the
/// error, as a request's handler would, and `tasks/result` answers with the task's
/// outcome (its failure, marked with `related-task`), not the client's own error.
#[tokio::test]
async fn a_question_answered_with_an_error_reaches_the_tasks_handler() {
    let (mut raw, id, question) = a_task_asking().await;
    let refusal = mcpwire::protocol::ErrorObject::new(-32603, "user closed the dialog");
    raw.send(mcpwire::protocol::Message::Error(mcpwire::protocol::ErrorResponse::new(
        Some(question.id),
        refusal,
    )))
    .await;
    let e = expect_error(&next(&mut raw).await, 2);
    assert_eq!(e.data.unwrap()["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id.as_str());
    let got = expect_result(&call(&mut raw, 3, "tasks/get", json!({ "taskId": id })).await, 3);
    assert_eq!(got["status"], "failed", "the handler's error failed the task");
}

/// A 2025 task is its session's alone: when the session's connection ends, its running
/// tasks are cancelled (nobody else could read their results, and they would hold their
/// places until their TTL).
#[tokio::test]
async fn a_sessions_tasks_stop_when_the_session_ends() {
    let stopped = Arc::new(tokio::sync::Notify::new());
    let told = stopped.clone();
    let server = Server::builder("tasks-2025", "0.1.0")
        .tool(tool("forever").task_support(TaskSupport::Required).handler(move |ctx: Ctx| {
            let told = told.clone();
            async move {
                ctx.cancellation().cancelled().await;
                told.notify_one();
                "stopped"
            }
        }))
        .build()
        .unwrap();
    let mut raw = session_of(server).await;
    expect_result(&call(&mut raw, 1, "tools/call", json!({ "name": "forever", "task": {} })).await, 1);
    raw.hang_up();
    tokio::time::timeout(Duration::from_secs(10), stopped.notified()).await.expect("the task was cancelled");
}

/// A session that ends takes its finished tasks' records with it: nobody else can read
/// them, and kept until their TTL they would fill the store for every other client (a
/// client opening sessions that each create tasks and leave would lock all others out).
#[tokio::test]
async fn an_ended_sessions_finished_tasks_leave_the_store() {
    let server = Server::builder("tasks-2025", "0.1.0")
        .tool(tool("maybe").task_support(TaskSupport::Optional).handler(|| "maybe"))
        .task_store(MemoryTaskStore::new(2))
        .build()
        .unwrap();
    let mut first = session_of(server.clone()).await;
    let mut id = 0;
    for _ in 0..2 {
        id += 1;
        let created = expect_result(
            &call(&mut first, id, "tools/call", json!({ "name": "maybe", "task": { "ttl": 86_400_000 } }))
                .await,
            id,
        );
        let task = created["task"]["taskId"].as_str().unwrap().to_owned();
        id += 1;
        expect_result(&call(&mut first, id, "tasks/result", json!({ "taskId": task })).await, id);
    }
    let full =
        expect_error(&call(&mut first, 9, "tools/call", json!({ "name": "maybe", "task": {} })).await, 9);
    assert!(full.message.contains("Too many tasks"), "{}", full.message);
    first.hang_up();

    let mut second = session_of(server).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    for id in 1.. {
        match call(&mut second, id, "tools/call", json!({ "name": "maybe", "task": {} })).await {
            Message::Response(_) => return,
            other => {
                let e = expect_error(&other, id);
                assert!(e.message.contains("Too many tasks"), "{}", e.message);
                assert!(tokio::time::Instant::now() < deadline, "the ended session's records stayed");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
}

#[tokio::test]
async fn older_sessions_see_no_tasks() {
    let mut raw = start();
    let init = initialize(&mut raw, "2025-06-18").await;
    assert!(init["capabilities"].get("tasks").is_none());
    let tools = expect_result(&call(&mut raw, 1, "tools/list", json!({})).await, 1);
    assert!(tools["tools"][2].get("execution").is_none());
    let e = expect_error(&call(&mut raw, 2, "tasks/get", json!({ "taskId": "x" })).await, 2);
    assert_eq!(e.code, codes::METHOD_NOT_FOUND);
}

#[tokio::test]
async fn status_changes_are_notified_to_the_session() {
    let mut raw = start();
    initialize(&mut raw, "2025-11-25").await;
    raw.request(1, "tools/call", json!({ "name": "maybe", "task": {} })).await;
    let mut created = None;
    let mut completed = false;
    while created.is_none() || !completed {
        let m = json_of(&raw.next().await);
        if m["id"] == 1 {
            created = Some(m["result"]["task"]["taskId"].clone());
        } else {
            assert_eq!(m["method"], "notifications/tasks/status", "{m}");
            assert!(m["params"]["createdAt"].is_string() && m["params"]["taskId"].is_string(), "{m}");
            completed |= m["params"]["status"] == "completed";
        }
    }
}

/// A server that declares no tasks capability (none of its tools runs as a task) must
/// process a task-augmented call normally, ignoring `params.task` (2025-11-25, "Task
/// Support and Handling").
#[tokio::test]
async fn a_server_without_the_tasks_capability_ignores_params_task() {
    let server = Server::builder("no-tasks", "0.1.0")
        .tool(tool("plain").description("Never a task").handler(|| "plain"))
        .build()
        .unwrap();
    let mut raw = start_with(server);
    let init = initialize(&mut raw, "2025-11-25").await;
    assert!(init["capabilities"].get("tasks").is_none(), "{init}");
    let r = expect_result(&call(&mut raw, 1, "tools/call", json!({ "name": "plain", "task": {} })).await, 1);
    assert_eq!(r["content"][0]["text"], "plain", "{r}");
    assert!(r.get("task").is_none(), "{r}");
}

/// 2025-11-25: a task whose tool result has `isError: true` reaches `failed` ("For tool
/// calls specifically, this includes cases where the tool call result has `isError` set
/// to true"); `tasks/result` still returns that result, exactly as the call would have.
#[tokio::test]
async fn a_tool_error_result_fails_the_2025_task() {
    let server = Server::builder("soft-failure", "0.1.0")
        .tool(tool("soft").task_support(TaskSupport::Required).handler(|| async {
            Ok::<_, McpError>(mcpwire::protocol::CallToolResult::error("no such city"))
        }))
        .build()
        .unwrap();
    let mut raw = session_of(server).await;
    let created =
        expect_result(&call(&mut raw, 1, "tools/call", json!({ "name": "soft", "task": {} })).await, 1);
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let result = expect_result(&call(&mut raw, 2, "tasks/result", json!({ "taskId": id })).await, 2);
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["content"][0]["text"], "no such city", "{result}");
    let got = expect_result(&call(&mut raw, 3, "tasks/get", json!({ "taskId": id })).await, 3);
    assert_eq!(got["status"], "failed", "{got}");
    let list = expect_result(&call(&mut raw, 4, "tasks/list", json!({})).await, 4);
    assert_eq!(list["tasks"][0]["status"], "failed", "{list}");
}

/// A 2025 task's log messages reach the client after the answer that created the task,
/// each naming the task ("All requests, notifications, and responses related to a task
/// MUST include the `io.modelcontextprotocol/related-task` key in their `_meta`").
#[tokio::test]
async fn a_tasks_log_messages_name_the_task() {
    let server = Server::builder("task-logs", "0.1.0")
        .tool(tool("logs").task_support(TaskSupport::Required).handler(|ctx: Ctx| async move {
            // After the answer that created the task.
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.log(mcpwire::protocol::LoggingLevel::Info, "working on it").await;
            "logged"
        }))
        .build()
        .unwrap();
    let mut raw = session_of(server).await;
    let created =
        expect_result(&call(&mut raw, 1, "tools/call", json!({ "name": "logs", "task": {} })).await, 1);
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let m = json_of(&next(&mut raw).await);
    assert_eq!(m["method"], "notifications/message", "{m}");
    assert_eq!(m["params"]["data"], "working on it", "{m}");
    assert_eq!(m["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id.as_str(), "{m}");
}

/// A failed task says why in `statusMessage` ("The `tasks/get` response SHOULD include a
/// `statusMessage` field with diagnostic information about the failure"): the error's
/// message, or the text of a tool result with `isError`.
#[tokio::test]
async fn a_failed_tasks_status_message_says_why() {
    let server = Server::builder("failures", "0.1.0")
        .tool(tool("soft").task_support(TaskSupport::Required).handler(|| async {
            Ok::<_, McpError>(mcpwire::protocol::CallToolResult::error("no such city"))
        }))
        .tool(
            tool("breaks")
                .task_support(TaskSupport::Required)
                .handler(|| async { Err::<String, _>(McpError::invalid_params("the input was wrong")) }),
        )
        .build()
        .unwrap();
    let mut raw = session_of(server).await;
    for (n, (tool, why)) in
        [("soft", "no such city"), ("breaks", "the input was wrong")].into_iter().enumerate()
    {
        let id = 10 * n as i64;
        let created = expect_result(
            &call(&mut raw, id + 1, "tools/call", json!({ "name": tool, "task": {} })).await,
            id + 1,
        );
        let task = created["task"]["taskId"].as_str().unwrap().to_owned();
        let _ = call(&mut raw, id + 2, "tasks/result", json!({ "taskId": task })).await;
        let got =
            expect_result(&call(&mut raw, id + 3, "tasks/get", json!({ "taskId": task })).await, id + 3);
        assert_eq!(got["status"], "failed", "{got}");
        assert!(got["statusMessage"].as_str().is_some_and(|m| m.contains(why)), "{got}");
    }
}

/// A task cancelled while its `tasks/result` waits for the client's answer to the task's
/// question: the `tasks/result` answers at once with the task's outcome ("MUST block the
/// response until the task reaches a terminal status", no longer), without waiting for
/// an answer nobody needs any more.
#[tokio::test]
async fn a_result_call_asking_a_cancelled_tasks_question_ends_with_the_task() {
    let (mut raw, id, question) = a_task_asking().await;
    raw.request(3, "tasks/cancel", json!({ "taskId": id })).await;
    let mut answered = std::collections::BTreeMap::new();
    let mut withdrawn = false;
    while answered.len() < 2 || !withdrawn {
        let m = tokio::time::timeout(Duration::from_secs(5), next(&mut raw))
            .await
            .expect("tasks/result ends once the task is cancelled");
        let m = json_of(&m);
        if let Some(n) = m["id"].as_i64() {
            answered.insert(n, m);
        } else if m["method"] == "notifications/cancelled" {
            // The question is withdrawn.
            assert_eq!(m["params"]["requestId"], json_of(&Message::Request(question.clone()))["id"], "{m}");
            withdrawn = true;
        }
    }
    assert_eq!(answered[&3]["result"]["status"], "cancelled", "{}", answered[&3]);
    assert!(answered[&2]["error"]["message"].as_str().unwrap().contains("cancelled"), "{}", answered[&2]);
}
