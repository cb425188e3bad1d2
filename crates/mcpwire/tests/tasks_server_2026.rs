//! The server side of the 2026 tasks extension (`io.modelcontextprotocol/tasks`) over the
//! in-memory transport, frame by frame: task creation only for clients that declared the
//! extension, polling, input through `tasks/update`, cancellation reaching the handler,
//! `notifications/tasks` on a listen stream, TTL expiry and the store's bound.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcpwire::protocol::elicitation::ElicitRequestParams;
use mcpwire::protocol::{codes, Message};
use mcpwire::server::tasks::{MemoryTaskStore, TaskConfig, TaskSupport};
use mcpwire::server::{tool, Ctx, Server, ServerBuilder};
use mcpwire::McpError;
use serde_json::{json, Value};

/// Whether the `forever` tool's handler saw its cancellation token fire.
#[derive(Clone, Default)]
struct Fired(Arc<AtomicBool>);

fn builder(fired: Fired) -> ServerBuilder {
    Server::builder("tasks-test", "0.1.0")
        .tool(
            tool("quick")
                .description("Answers at once")
                .task_support(TaskSupport::Optional)
                .handler(|| "done"),
        )
        .tool(
            tool("must")
                .description("Always a task")
                .task_support(TaskSupport::Required)
                .handler(|| "must done"),
        )
        .tool(
            tool("forever").description("Runs until cancelled").task_support(TaskSupport::Required).handler(
                move |ctx: Ctx| {
                    let fired = fired.clone();
                    async move {
                        ctx.cancellation().cancelled().await;
                        fired.0.store(true, Ordering::SeqCst);
                        Err::<String, _>(McpError::internal("stopped"))
                    }
                },
            ),
        )
        .tool(tool("asks").description("Asks a question").task_support(TaskSupport::Optional).handler(
            |ctx: Ctx| async move {
                let form: ElicitRequestParams = serde_json::from_value(json!({
                    "message": "Name?",
                    "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } }
                }))
                .unwrap();
                let answer = ctx.elicit_as("name", form).await?;
                let answer = serde_json::to_value(&answer).unwrap();
                Ok::<_, McpError>(format!("hello {}", answer["content"]["name"]))
            },
        ))
}

fn start(builder: ServerBuilder) -> RawPeer {
    let (conn, raw) = raw_connection();
    let server = builder.build().unwrap();
    tokio::spawn(async move { server.serve(conn).await });
    raw
}

fn meta(extension: bool) -> Value {
    let mut caps = json!({ "elicitation": {} });
    if extension {
        caps["extensions"] = json!({ "io.modelcontextprotocol/tasks": {} });
    }
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    })
}

/// Sends a request with the envelope and returns its answer (skipping notifications).
async fn ask(raw: &mut RawPeer, id: i64, method: &str, mut params: Value, extension: bool) -> Message {
    params["_meta"] = meta(extension);
    raw.request(id, method, params).await;
    loop {
        match raw.next().await {
            Message::Notification(_) => continue,
            other => return other,
        }
    }
}

async fn get(raw: &mut RawPeer, id: i64, task: &str) -> Value {
    expect_result(&ask(raw, id, "tasks/get", json!({ "taskId": task }), true).await, id)
}

/// Polls `tasks/get` until the task has `status` (at most 5 s).
async fn until(raw: &mut RawPeer, id: &mut i64, task: &str, status: &str) -> Value {
    for _ in 0..100 {
        *id += 1;
        let t = get(raw, *id, task).await;
        if t["status"] == status {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {task} never reached {status}");
}

#[tokio::test]
async fn tasks_only_for_declaring_clients_and_results_inline() {
    let mut raw = start(builder(Fired::default()));
    let discover = expect_result(&ask(&mut raw, 1, "server/discover", json!({}), false).await, 1);
    assert_eq!(discover["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"], json!({}));
    assert!(discover["capabilities"].get("tasks").is_none());

    // Not declared: an optional tool answers in place, a required one is -32021.
    let r = expect_result(&ask(&mut raw, 2, "tools/call", json!({ "name": "quick" }), false).await, 2);
    assert_eq!(
        (r["resultType"].clone(), r["content"][0]["text"].clone()),
        (json!("complete"), json!("done"))
    );
    let e = expect_error(&ask(&mut raw, 3, "tools/call", json!({ "name": "must" }), false).await, 3);
    assert_eq!(e.code, codes::MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert_eq!(
        e.data.unwrap()["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    let e = expect_error(&ask(&mut raw, 4, "tasks/get", json!({ "taskId": "x" }), false).await, 4);
    assert_eq!(e.code, codes::MISSING_REQUIRED_CLIENT_CAPABILITY);

    // Declared: a flat task, stored before the answer, its result inlined once done.
    let created = expect_result(&ask(&mut raw, 5, "tools/call", json!({ "name": "must" }), true).await, 5);
    assert_eq!(created["resultType"], "task");
    assert!(created["ttlMs"].as_u64().unwrap() > 0 && created["pollIntervalMs"].as_u64().unwrap() > 0);
    assert!(created["createdAt"].as_str().unwrap().ends_with('Z'));
    let task = created["taskId"].as_str().unwrap().to_owned();
    let mut id = 10;
    let done = until(&mut raw, &mut id, &task, "completed").await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "must done");
    assert_eq!(done["result"]["resultType"], "complete", "the result is a 2026 CallToolResult");

    let e = expect_error(&ask(&mut raw, 99, "tasks/get", json!({ "taskId": "nope" }), true).await, 99);
    assert_eq!(e.code, codes::INVALID_PARAMS);
    let e = expect_error(&ask(&mut raw, 100, "tasks/list", json!({}), true).await, 100);
    assert_eq!(e.code, codes::METHOD_NOT_FOUND);
}

#[tokio::test]
async fn cancel_fires_the_handlers_token_and_sticks() {
    let fired = Fired::default();
    let mut raw = start(builder(fired.clone()));
    let created = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "forever" }), true).await, 1);
    let task = created["taskId"].as_str().unwrap().to_owned();
    assert_eq!(get(&mut raw, 2, &task).await["status"], "working");
    let ack = expect_result(&ask(&mut raw, 3, "tasks/cancel", json!({ "taskId": task }), true).await, 3);
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("status").is_none() && ack.get("taskId").is_none());
    assert_eq!(get(&mut raw, 4, &task).await["status"], "cancelled");
    for _ in 0..100 {
        if fired.0.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(fired.0.load(Ordering::SeqCst), "the handler's cancellation token fired");
    // The handler's own error afterwards does not turn the task into `failed`.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(get(&mut raw, 5, &task).await["status"], "cancelled");
    // Cancelling a finished task is the same empty acknowledgement.
    expect_result(&ask(&mut raw, 6, "tasks/cancel", json!({ "taskId": task }), true).await, 6);
}

#[tokio::test]
async fn elicitation_inside_a_task_is_input_required_until_updated() {
    let mut raw = start(builder(Fired::default()));
    let created = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "asks" }), true).await, 1);
    let task = created["taskId"].as_str().unwrap().to_owned();
    let mut id = 1;
    let waiting = until(&mut raw, &mut id, &task, "input_required").await;
    let request = &waiting["inputRequests"]["name"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Name?");
    // An unknown key is ignored; the right one resumes the task.
    let answers = json!({ "taskId": task, "inputResponses": {
        "other": { "action": "accept", "content": { "name": "x" } },
    }});
    expect_result(&ask(&mut raw, 50, "tasks/update", answers, true).await, 50);
    assert_eq!(get(&mut raw, 51, &task).await["status"], "input_required");
    let answers = json!({ "taskId": task, "inputResponses": {
        "name": { "action": "accept", "content": { "name": "Ada" } },
    }});
    let ack = expect_result(&ask(&mut raw, 52, "tasks/update", answers, true).await, 52);
    assert_eq!(ack["resultType"], "complete");
    let done = until(&mut raw, &mut id, &task, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "hello \"Ada\"");
}

#[tokio::test]
async fn listen_streams_task_notifications_for_the_asked_ids() {
    let mut raw = start(builder(Fired::default()));
    let created = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "forever" }), true).await, 1);
    let task = created["taskId"].as_str().unwrap().to_owned();

    // Undeclared: -32021.
    let e = expect_error(
        &ask(&mut raw, 2, "subscriptions/listen", json!({ "notifications": { "taskIds": [task] } }), false)
            .await,
        2,
    );
    assert_eq!(e.code, codes::MISSING_REQUIRED_CLIENT_CAPABILITY);

    let mut params = json!({ "notifications": { "taskIds": [task] } });
    params["_meta"] = meta(true);
    raw.request("listen", "subscriptions/listen", params).await;
    let ack = json_of(&raw.next().await);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([task]));

    let mut cancel = json!({ "taskId": task });
    cancel["_meta"] = meta(true);
    raw.request(3, "tasks/cancel", cancel).await;
    let mut saw_ack = false;
    let mut saw_cancelled = false;
    while !(saw_ack && saw_cancelled) {
        let m = json_of(&raw.next().await);
        if m["id"] == 3 {
            saw_ack = true;
        } else if m["method"] == "notifications/tasks" {
            assert_eq!(m["params"]["taskId"], task.as_str());
            assert_eq!(m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen");
            saw_cancelled |= m["params"]["status"] == "cancelled";
        } else {
            panic!("unexpected frame {m}");
        }
    }
}

#[tokio::test]
async fn a_task_nobody_polls_expires_and_the_store_stays_bounded() {
    let fired = Fired::default();
    // Long enough that the second call below comes while the first task is alive, even on
    // a busy machine.
    let config = TaskConfig { default_ttl: Duration::from_millis(1500), ..TaskConfig::default() };
    let mut raw = start(builder(fired.clone()).task_config(config).task_store(MemoryTaskStore::new(1)));
    let created = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "forever" }), true).await, 1);
    assert_eq!(created["ttlMs"], 1500);
    let task = created["taskId"].as_str().unwrap().to_owned();
    // The store holds one unfinished task: another is refused with an error, not queued.
    let e = expect_error(&ask(&mut raw, 2, "tools/call", json!({ "name": "forever" }), true).await, 2);
    assert_eq!(e.code, codes::INTERNAL_ERROR);
    assert!(e.message.contains("task store is full"), "the reason is said: {}", e.message);
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let e = expect_error(&ask(&mut raw, 3, "tasks/get", json!({ "taskId": task }), true).await, 3);
    assert_eq!(e.code, codes::INVALID_PARAMS, "an expired task is gone");
    assert!(fired.0.load(Ordering::SeqCst), "the expired task's handler was cancelled");
    // Room again.
    let created = expect_result(&ask(&mut raw, 4, "tools/call", json!({ "name": "quick" }), true).await, 4);
    assert_eq!(created["resultType"], "task");
}

/// Past `TaskConfig::max_running`, a call that would start a task is refused with the
/// reason (not a bare "Internal error").
#[tokio::test]
async fn too_many_running_tasks_is_said_as_it_is() {
    let config = TaskConfig { max_running: 1, ..TaskConfig::default() };
    let mut raw = start(builder(Fired::default()).task_config(config));
    let created = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "forever" }), true).await, 1);
    assert_eq!(created["resultType"], "task");
    let e = expect_error(&ask(&mut raw, 2, "tools/call", json!({ "name": "forever" }), true).await, 2);
    assert_eq!(e.code, codes::INTERNAL_ERROR);
    assert!(e.message.contains("Too many tasks running (1 at most)"), "{}", e.message);
    let task = created["taskId"].as_str().unwrap().to_owned();
    expect_result(&ask(&mut raw, 3, "tasks/cancel", json!({ "taskId": task }), true).await, 3);
}

/// `ask`, from an authenticated client: the request carries `principal` as the HTTP
/// endpoint's authentication layer puts it.
async fn ask_as(raw: &mut RawPeer, principal: &str, id: i64, method: &str, mut params: Value) -> Message {
    params["_meta"] = meta(true);
    let request =
        mcpwire::protocol::Request::new(id, method, Some(serde_json::value::to_raw_value(&params).unwrap()));
    let mut inbound = mcpwire::transport::InboundMeta::default();
    inbound.extensions.insert(mcpwire::extensions::Principal(principal.to_owned()));
    raw.send_with(request, inbound).await;
    loop {
        match raw.next().await {
            Message::Notification(_) => continue,
            other => return other,
        }
    }
}

/// With authentication, a 2026 task is its principal's: another principal (or an
/// anonymous request) holding its id gets `-32602` from `tasks/get`, `tasks/update` and
/// `tasks/cancel`, as for an unknown task.
#[tokio::test]
async fn an_authenticated_task_is_its_principals_alone() {
    let mut raw = start(builder(Fired::default()));
    let created =
        expect_result(&ask_as(&mut raw, "alice", 1, "tools/call", json!({ "name": "forever" })).await, 1);
    let task = created["taskId"].as_str().unwrap().to_owned();
    let got = expect_result(&ask_as(&mut raw, "alice", 2, "tasks/get", json!({ "taskId": task })).await, 2);
    assert_eq!(got["status"], "working");
    for (id, method) in (3..).zip(["tasks/get", "tasks/update", "tasks/cancel"]) {
        let params = json!({ "taskId": task, "inputResponses": {} });
        let e = expect_error(&ask_as(&mut raw, "mallory", id, method, params.clone()).await, id);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{method} by another principal");
        let e = expect_error(&ask(&mut raw, id + 100, method, params, true).await, id + 100);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{method} without a principal");
    }
    let got = expect_result(&ask_as(&mut raw, "alice", 10, "tasks/get", json!({ "taskId": task })).await, 10);
    assert_eq!(got["status"], "working", "nobody else could cancel it");
    expect_result(&ask_as(&mut raw, "alice", 11, "tasks/cancel", json!({ "taskId": task })).await, 11);
}

/// A failed task says why in `statusMessage` ("The `tasks/get` response SHOULD include a
/// `statusMessage` field with diagnostic information about the failure").
#[tokio::test]
async fn a_failed_tasks_status_message_says_why() {
    let builder = Server::builder("failures", "0.1.0").tool(
        tool("breaks")
            .task_support(TaskSupport::Required)
            .handler(|| async { Err::<String, _>(McpError::invalid_params("the input was wrong")) }),
    );
    let mut raw = start(builder);
    let created = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "breaks" }), true).await, 1);
    let task = created["taskId"].as_str().unwrap().to_owned();
    let mut id = 1;
    let failed = until(&mut raw, &mut id, &task, "failed").await;
    assert_eq!(failed["error"]["message"], "the input was wrong", "{failed}");
    assert!(failed["statusMessage"].as_str().is_some_and(|m| m.contains("the input was wrong")), "{failed}");
}

/// A task's error is a 2026 error too: a failed task never carries the 2025-only codes
/// 2026 must not emit. "Resource not found" (`-32002`) is `-32602`, as a request answers
/// it; "URL elicitation required" (`-32042`) is `-32603` naming it, its URLs in `data`.
#[tokio::test]
async fn a_failed_tasks_error_has_no_2025_only_code() {
    let page: mcpwire::protocol::elicitation::ElicitRequestURLParams = serde_json::from_value(json!({
        "mode": "url", "message": "Pay first", "url": "https://pay.example/7", "elicitationId": "pay-7",
    }))
    .unwrap();
    let builder = Server::builder("failures", "0.1.0")
        .tool(
            tool("missing")
                .task_support(TaskSupport::Required)
                .handler(|| async { Err::<String, _>(McpError::resource_not_found("file:///gone")) }),
        )
        .tool(tool("unpaid").task_support(TaskSupport::Required).handler(move || {
            let page = page.clone();
            async move { Err::<String, _>(McpError::url_elicitation_required(vec![page])) }
        }));
    let mut raw = start(builder);
    let mut id = 0;
    let mut failed = Vec::new();
    for name in ["missing", "unpaid"] {
        id += 1;
        let created =
            expect_result(&ask(&mut raw, id, "tools/call", json!({ "name": name }), true).await, id);
        let task = created["taskId"].as_str().unwrap().to_owned();
        failed.push(until(&mut raw, &mut id, &task, "failed").await);
    }
    let [missing, unpaid] = &failed[..] else { unreachable!() };
    assert_eq!(missing["error"]["code"], codes::INVALID_PARAMS, "{missing}");
    assert_eq!(missing["error"]["data"], json!({ "uri": "file:///gone" }), "{missing}");
    assert_eq!(unpaid["error"]["code"], codes::INTERNAL_ERROR, "{unpaid}");
    assert!(unpaid["error"]["message"].as_str().unwrap().contains("-32042"), "{unpaid}");
    assert_eq!(unpaid["error"]["data"]["elicitations"][0]["url"], "https://pay.example/7", "{unpaid}");
}

/// 2026 has no `params.task` (SEP-2663: "servers MUST ignore it (treat the field as
/// unknown)"): one that would not be a valid 2025 `task` changes nothing.
#[tokio::test]
async fn a_2026_call_ignores_params_task() {
    let mut raw = start(builder(Fired::default()));
    let created =
        expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "must", "task": [] }), true).await, 1);
    assert_eq!(created["resultType"], "task", "{created}");
    let params = json!({ "name": "quick", "task": { "ttl": -1 } });
    let r = expect_result(&ask(&mut raw, 2, "tools/call", params, false).await, 2);
    assert_eq!(r["content"][0]["text"], "done", "{r}");
}

/// The tasks extension declared with settings that are not an object (the schema's
/// `extensions` values are objects) is a malformed envelope, as any other capability of
/// the wrong type is: `-32602`, and no task is made.
#[tokio::test]
async fn an_extension_declared_with_settings_that_are_not_an_object_is_invalid_params() {
    let mut raw = start(builder(Fired::default()));
    for (i, settings) in [json!(null), json!(5), json!(true), json!("yes"), json!([])].into_iter().enumerate()
    {
        let id = i as i64 + 1;
        let mut params = json!({ "name": "must" });
        params["_meta"] = meta(true);
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            ["io.modelcontextprotocol/tasks"] = settings.clone();
        raw.request(id, "tools/call", params).await;
        let e = expect_error(&raw.next().await, id);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{settings}: {e:?}");
        assert!(e.message.contains("clientCapabilities"), "{settings}: {e:?}");
    }
}

/// `tasks/update` carries at most 100 answers, as a retry does: past that it is invalid
/// params, and the task still waits for (and takes) its answer.
#[tokio::test]
async fn an_update_with_more_answers_than_a_round_can_ask_is_invalid_params() {
    let mut raw = start(builder(Fired::default()));
    let created = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "asks" }), true).await, 1);
    let task = created["taskId"].as_str().unwrap().to_owned();
    let mut id = 1;
    until(&mut raw, &mut id, &task, "input_required").await;
    let mut answers = serde_json::Map::new();
    for i in 0..101 {
        answers.insert(format!("k{i}"), json!({ "action": "decline" }));
    }
    let update = json!({ "taskId": task, "inputResponses": answers });
    let e = expect_error(&ask(&mut raw, 50, "tasks/update", update, true).await, 50);
    assert_eq!(e.code, codes::INVALID_PARAMS, "{e:?}");
    assert!(e.message.contains("at most 100"), "{e:?}");
    let answers = json!({ "taskId": task, "inputResponses": {
        "name": { "action": "accept", "content": { "name": "Ada" } },
    }});
    expect_result(&ask(&mut raw, 51, "tasks/update", answers, true).await, 51);
    let done = until(&mut raw, &mut id, &task, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "hello \"Ada\"");
}

/// A `tasks/update` answer that does not fit its question (a roots answer to an
/// elicitation, an elicitation answer malformed) is `-32602` for that request alone: the
/// task keeps waiting with the question outstanding, and the right answer still resumes it.
#[tokio::test]
async fn an_answer_of_the_wrong_shape_is_invalid_params_and_the_task_still_waits() {
    let mut raw = start(builder(Fired::default()));
    let created = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "asks" }), true).await, 1);
    let task = created["taskId"].as_str().unwrap().to_owned();
    let mut id = 1;
    until(&mut raw, &mut id, &task, "input_required").await;
    for (n, wrong) in [
        json!({ "roots": [] }),
        json!({ "role": "assistant", "content": { "type": "text", "text": "x" }, "model": "m" }),
        json!({ "action": 5 }),
        json!({}),
        json!("accept"),
    ]
    .into_iter()
    .enumerate()
    {
        let rid = 100 + n as i64;
        let answers = json!({ "taskId": task, "inputResponses": { "name": wrong } });
        let e = expect_error(&ask(&mut raw, rid, "tasks/update", answers, true).await, rid);
        assert_eq!(e.code, codes::INVALID_PARAMS, "{wrong}: {}", e.message);
        let still = get(&mut raw, rid + 50, &task).await;
        assert_eq!(still["status"], "input_required", "{wrong}");
        assert_eq!(still["inputRequests"]["name"]["method"], "elicitation/create");
    }
    let answers = json!({ "taskId": task, "inputResponses": {
        "name": { "action": "accept", "content": { "name": "Ada" } },
    }});
    expect_result(&ask(&mut raw, 200, "tasks/update", answers, true).await, 200);
    let done = until(&mut raw, &mut id, &task, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "hello \"Ada\"");
}

/// An answer a call carries into its task (gathered before the task existed) answers the
/// handler's first ask of its key and is then let go: the task does not keep it for its
/// whole life, and a second ask of the same question is a new question of the task.
#[tokio::test]
async fn an_answer_carried_into_a_task_answers_one_ask_and_is_let_go() {
    fn form() -> ElicitRequestParams {
        serde_json::from_value(json!({
            "message": "Name?",
            "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } }
        }))
        .unwrap()
    }
    let name = |v: &mcpwire::protocol::elicitation::ElicitResult| {
        serde_json::to_value(v).unwrap()["content"]["name"].as_str().unwrap_or_default().to_owned()
    };
    let builder = Server::builder("tasks-test", "0.1.0").tool(
        tool("twice")
            .description("Asks the same question before its task and twice inside it")
            .task_support(TaskSupport::Optional)
            .input_before_task(|ctx: Ctx| async move { ctx.elicit_as("name", form()).await.map(drop) })
            .handler(move |ctx: Ctx| async move {
                let first = name(&ctx.elicit_as("name", form()).await?);
                let second = name(&ctx.elicit_as("name", form()).await?);
                Ok::<_, McpError>(format!("{first} then {second}"))
            }),
    );
    let mut raw = start(builder);
    let round = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "twice" }), true).await, 1);
    assert_eq!(round["resultType"], "input_required");
    assert!(round["inputRequests"]["name"].is_object());
    let retry = json!({
        "name": "twice",
        "inputResponses": { "name": { "action": "accept", "content": { "name": "Ada" } } },
        "requestState": round["requestState"],
    });
    let created = expect_result(&ask(&mut raw, 2, "tools/call", retry, true).await, 2);
    assert_eq!(created["resultType"], "task");
    let task = created["taskId"].as_str().unwrap().to_owned();
    // The first ask took the carried answer; the second is asked through the task.
    let mut id = 2;
    let waiting = until(&mut raw, &mut id, &task, "input_required").await;
    let keys: Vec<&String> = waiting["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 1, "{waiting}");
    let key = keys[0].clone();
    assert_ne!(key, "name", "a key the call already used is not asked again under the same name");
    let answers = json!({ "taskId": task, "inputResponses": {
        key: { "action": "accept", "content": { "name": "Grace" } },
    }});
    expect_result(&ask(&mut raw, 90, "tasks/update", answers, true).await, 90);
    let done = until(&mut raw, &mut id, &task, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Ada then Grace");
}

/// A handler that asks again each time the client declines, and a client that always
/// declines: the task does not remember ever more question keys (each is kept, as keys
/// are never reused), it fails once it has asked as many questions as one task may.
#[tokio::test]
async fn a_task_asks_a_bounded_number_of_questions_in_its_life() {
    let builder = Server::builder("tasks-test", "0.1.0").tool(
        tool("insists").description("Asks until the client accepts").task_support(TaskSupport::Optional).handler(
            |ctx: Ctx| async move {
                loop {
                    let form: ElicitRequestParams = serde_json::from_value(json!({
                        "message": "Name?",
                        "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } }
                    }))
                    .unwrap();
                    let answer = serde_json::to_value(ctx.elicit_as("name", form).await?).unwrap();
                    if answer["action"] == "accept" {
                        return Ok::<_, McpError>("accepted");
                    }
                }
            },
        ),
    );
    let mut raw = start(builder);
    let created = expect_result(&ask(&mut raw, 1, "tools/call", json!({ "name": "insists" }), true).await, 1);
    let task = created["taskId"].as_str().unwrap().to_owned();
    let mut id = 1;
    let mut declined = 0;
    let failed = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            id += 1;
            let t = get(&mut raw, id, &task).await;
            match t["status"].as_str().unwrap() {
                "failed" => return t,
                "input_required" => {
                    assert!(declined <= 1000, "the task asked more than 1000 questions");
                    let keys: Vec<String> = t["inputRequests"].as_object().unwrap().keys().cloned().collect();
                    let decline: serde_json::Map<String, Value> =
                        keys.into_iter().map(|k| (k, json!({ "action": "decline" }))).collect();
                    id += 1;
                    let update = json!({ "taskId": task, "inputResponses": decline });
                    expect_result(&ask(&mut raw, id, "tasks/update", update, true).await, id);
                    declined += 1;
                }
                "working" => tokio::task::yield_now().await,
                other => panic!("unexpected status {other}: {t}"),
            }
        }
    })
    .await
    .expect("the task ends");
    assert_eq!(declined, 1000, "{failed}");
    assert!(failed["error"]["message"].as_str().unwrap().contains("questions"), "{failed}");
}
