//! Instances of one server sharing state through a real Redis (`http::cluster`): tasks
//! created on one instance, followed, answered and cancelled through another; an MRTR
//! `requestState` sealed by one instance and opened by another; a 2025 session used
//! through both, its state (log level) kept when its owner leaves, and ended everywhere
//! by a DELETE on either; Redis gone: a clear error in time, never a hang, and service
//! again once it is back, with no instance restarted.
//!
//! Needs `redis-server` (Debian's package; CI installs it). Without it the tests fail,
//! unless `MCPWIRE_SKIP_REDIS=1`.
#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_http;
mod raw_http;

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_http::{answer, in_session, initialize_body, open_session, stateless_request, V25};
use mcpwire::client::{Client, ToolCallStart};
use mcpwire::error::McpError;
use mcpwire::http::cluster::{Cluster, ClusterOptions};
use mcpwire::http::{serve_with_shutdown, HttpSettings};
use mcpwire::protocol::elicitation::{ElicitRequestParams, ElicitResult, ElicitValue};
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::mrtr::{InputResponse, InputResponses};
use mcpwire::protocol::tasks::TaskStatus;
use mcpwire::protocol::tools::TaskSupport;
use mcpwire::server::{tool, Ctx, Server, ServerBuilder};
use raw_http::{send, Req};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A `redis-server` on a free loopback port, killed when dropped.
struct Redis {
    child: Child,
    url: String,
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn redis() -> Option<Redis> {
    if std::env::var_os("MCPWIRE_SKIP_REDIS").is_some() {
        eprintln!("MCPWIRE_SKIP_REDIS is set: skipped");
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server is needed (apt-get install redis-server), or set MCPWIRE_SKIP_REDIS=1");
    let deadline = Instant::now() + Duration::from_secs(20);
    // A probe the kernel happened to give the probed port as its own source port
    // connects to itself while nothing listens: not the server.
    while !std::net::TcpStream::connect(("127.0.0.1", port))
        .is_ok_and(|s| s.local_addr().ok() != s.peer_addr().ok())
    {
        assert!(Instant::now() < deadline, "redis-server did not listen on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(Redis { child, url: format!("redis://127.0.0.1:{port}") })
}

/// What the test sees of the handlers that ran on any instance.
#[derive(Default)]
struct Seen {
    cancelled: AtomicBool,
    hang_started: AtomicBool,
    hang_stopped: AtomicBool,
}

/// Records that the `hang` handler stopped.
struct Stopped(Arc<Seen>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.hang_stopped.store(true, Ordering::SeqCst);
    }
}

/// A form asking for a name.
fn ask(message: &str) -> ElicitRequestParams {
    let form = json!({ "message": message, "requestedSchema": {
        "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] } });
    serde_json::from_value(form).unwrap()
}

fn builder(seen: Arc<Seen>) -> ServerBuilder {
    let hang_seen = seen.clone();
    Server::builder("cluster-test", "1")
        .tool(tool("two_names").task_support(TaskSupport::Required).handler(|ctx: Ctx| async move {
            let first = ctx.elicit_as("first", ask("First?")).await?;
            let second = ctx.elicit_as("second", ask("Second?")).await?;
            Ok::<_, McpError>(format!("{} and {}", name(&first), name(&second)))
        }))
        .tool(tool("wait_for_cancel").task_support(TaskSupport::Required).handler(move |ctx: Ctx| {
            let seen = seen.clone();
            async move {
                ctx.cancellation().cancelled().await;
                seen.cancelled.store(true, Ordering::SeqCst);
                Ok::<_, McpError>("stopped".to_owned())
            }
        }))
        .tool(tool("hang").handler({
            let seen = hang_seen;
            move || {
                seen.hang_started.store(true, Ordering::SeqCst);
                // Set when the handler stops, whether it sees its cancellation or is
                // dropped.
                let stopped = Stopped(seen.clone());
                async move {
                    std::future::pending::<()>().await;
                    drop(stopped);
                    "never"
                }
            }
        }))
        .tool(tool("change_tools").handler(|ctx: Ctx| async move {
            ctx.notify_tools_changed();
            "changed"
        }))
        .tool(tool("log_twice").handler(|ctx: Ctx| async move {
            ctx.log(LoggingLevel::Info, "an info line").await;
            ctx.log(LoggingLevel::Error, "an error line").await;
            "logged"
        }))
        .tool(tool("greet").handler(|ctx: Ctx| async move {
            let answer = ctx.elicit_as("name", ask("Name?")).await?;
            Ok::<_, McpError>(format!("Hello, {}!", name(&answer)))
        }))
}

fn name(result: &ElicitResult) -> String {
    match result.content.as_ref().and_then(|c| c.get("name")) {
        Some(ElicitValue::String(name)) => name.clone(),
        other => format!("{other:?}"),
    }
}

/// One instance on a free port.
struct Instance {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Instance {
    /// Shuts the instance down and waits until it has stopped, so that what follows never
    /// races its leaving (another instance asked meanwhile answers 503, "try again").
    async fn stop(self) {
        self.shutdown.cancel();
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("the instance stopped")
            .unwrap();
    }
}

async fn instance(redis: &Redis, seen: &Arc<Seen>) -> Instance {
    instance_with(redis, seen, ClusterOptions::default()).await
}

async fn instance_with(redis: &Redis, seen: &Arc<Seen>, options: ClusterOptions) -> Instance {
    let cluster = Cluster::connect_with(&redis.url, options).await.unwrap();
    let service = cluster.service(builder(seen.clone()), HttpSettings::default()).unwrap();
    let bound = serve_with_shutdown(service, "127.0.0.1:0", "/mcp").await.unwrap();
    Instance { addr: bound.local_addr, shutdown: bound.shutdown, task: bound.task }
}

async fn client(instance: &Instance) -> Client {
    let url = format!("http://{}/mcp", instance.addr);
    let transport = mcpwire::transport::http_client::HttpClientTransport::new(&url).unwrap();
    // Declares elicitation (the tasks' questions are answered with `tasks/update` here).
    Client::builder("cluster-test-client", "1")
        .on_elicitation(|_params| async {
            Ok(serde_json::from_value(json!({ "action": "decline" })).unwrap())
        })
        .connect(transport)
        .await
        .unwrap()
}

fn accept(name: &str) -> InputResponse {
    serde_json::from_value(json!({ "action": "accept", "content": { "name": name } })).unwrap()
}

/// Polls `tasks/get` through `client` until the task has `status`.
async fn until(
    client: &Client,
    task: &str,
    status: TaskStatus,
) -> mcpwire::protocol::tasks_ext::DetailedTask {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = client.get_task(task).await.unwrap();
        if got.task().status == status {
            return got;
        }
        assert!(Instant::now() < deadline, "task {task} never reached {status:?}: {got:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_instance_is_followed_answered_and_cancelled_through_another() {
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let (a, b) = (instance(&redis, &seen).await, instance(&redis, &seen).await);
    let (on_a, on_b) = (client(&a).await, client(&b).await);

    let ToolCallStart::Task(task) =
        on_a.start_tool_call("two_names", json!({}), Default::default()).await.unwrap()
    else {
        panic!("two_names runs as a task")
    };
    // B reads the record A wrote, and B's answers reach the handler waiting on A.
    let waiting = until(&on_b, &task.task_id, TaskStatus::InputRequired).await;
    assert!(serde_json::to_string(&waiting).unwrap().contains("First?"), "{waiting:?}");
    on_b.update_task(&task.task_id, [("first".to_owned(), accept("Ada"))].into()).await.unwrap();
    // The handler asks its second question once the first is answered.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !serde_json::to_string(&on_a.get_task(&task.task_id).await.unwrap()).unwrap().contains("Second?") {
        assert!(Instant::now() < deadline, "the handler on A never asked its second question");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let answers: InputResponses = [("second".to_owned(), accept("Grace"))].into();
    on_b.update_task(&task.task_id, answers).await.unwrap();
    let done = until(&on_b, &task.task_id, TaskStatus::Completed).await;
    assert!(serde_json::to_string(&done).unwrap().contains("Ada and Grace"), "{done:?}");

    // A cancellation sent to B stops the handler running on A.
    let ToolCallStart::Task(task) =
        on_a.start_tool_call("wait_for_cancel", json!({}), Default::default()).await.unwrap()
    else {
        panic!("wait_for_cancel runs as a task")
    };
    until(&on_b, &task.task_id, TaskStatus::Working).await;
    on_b.cancel_task(&task.task_id).await.unwrap();
    mcp_http::wait_for("the handler on A to see its cancellation", || seen.cancelled.load(Ordering::SeqCst))
        .await;
    assert_eq!(until(&on_a, &task.task_id, TaskStatus::Cancelled).await.task().status, TaskStatus::Cancelled);
}

/// Runs `redis-cli` against the test's Redis; its output.
fn redis_cli(redis: &Redis, args: &[&str]) -> String {
    let port = redis.url.rsplit(':').next().unwrap();
    let out = Command::new("redis-cli").args(["-p", port]).args(args).output().expect("redis-cli");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A task whose instance died (its heartbeat gone: here deleted, as its expiry would)
/// can never finish: the instance that reads it next records it failed, instead of
/// reporting it `working` until its TTL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_instance_died_is_failed_by_the_next_reader() {
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    // A beats rarely: once its heartbeat key is deleted, it stays "dead" for the test.
    let options = ClusterOptions { heartbeat: Duration::from_secs(3600), ..ClusterOptions::default() };
    let cluster = Cluster::connect_with(&redis.url, options).await.unwrap();
    let service = cluster.service(builder(seen.clone()), HttpSettings::default()).unwrap();
    let bound = serve_with_shutdown(service, "127.0.0.1:0", "/mcp").await.unwrap();
    let a = Instance { addr: bound.local_addr, shutdown: bound.shutdown, task: bound.task };
    let b = instance(&redis, &seen).await;
    let (on_a, on_b) = (client(&a).await, client(&b).await);
    let ToolCallStart::Task(task) =
        on_a.start_tool_call("wait_for_cancel", json!({}), Default::default()).await.unwrap()
    else {
        panic!("wait_for_cancel runs as a task")
    };
    until(&on_b, &task.task_id, TaskStatus::Working).await;
    let record: serde_json::Value =
        serde_json::from_str(&redis_cli(&redis, &["GET", &format!("mcpwire:task:{}", task.task_id)]))
            .unwrap();
    let runner = record["runner"].as_str().unwrap().to_owned();
    // Alive, it is left alone.
    assert_eq!(on_b.get_task(&task.task_id).await.unwrap().task().status, TaskStatus::Working);
    assert_eq!(redis_cli(&redis, &["DEL", &format!("mcpwire:instance:{runner}")]), "1");
    let failed = until(&on_b, &task.task_id, TaskStatus::Failed).await;
    let text = serde_json::to_string(&failed).unwrap();
    assert!(text.contains("stopped before the task finished"), "{text}");
    // It stays failed, for its runner too (a terminal state stays).
    assert_eq!(on_a.get_task(&task.task_id).await.unwrap().task().status, TaskStatus::Failed);
    on_b.cancel_task(&task.task_id).await.ok();
    assert_eq!(on_b.get_task(&task.task_id).await.unwrap().task().status, TaskStatus::Failed);
    a.shutdown.cancel();
    b.shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_state_sealed_by_one_instance_is_opened_by_another() {
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let (a, b) = (instance(&redis, &seen).await, instance(&redis, &seen).await);
    let caps = json!({ "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } } });
    let first = json!({ "name": "greet", "arguments": {}, "_meta": caps });
    let first = answer(send(a.addr, stateless_request(1, "tools/call", first)).await).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = json!({ "name": "greet", "arguments": {}, "requestState": state, "_meta": caps,
        "inputResponses": { "name": { "action": "accept", "content": { "name": "Ada" } } } });
    let done = answer(send(b.addr, stateless_request(2, "tools/call", retry)).await).await;
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada!", "{done}");
    // Tampered, it fails on B as it would on A.
    let forged = json!({ "name": "greet", "arguments": {}, "requestState": format!("{state}x"), "_meta": caps,
        "inputResponses": { "name": { "action": "accept", "content": { "name": "Ada" } } } });
    let refused = answer(send(b.addr, stateless_request(3, "tools/call", forged)).await).await;
    assert!(refused.get("error").is_some(), "{refused}");
}

/// `logging/setLevel` through `addr`, in session `sid`.
async fn set_level(addr: SocketAddr, sid: &str, level: &str) {
    let body =
        json!({ "jsonrpc": "2.0", "id": 7, "method": "logging/setLevel", "params": { "level": level } });
    let reply = answer(send(addr, in_session(Req::post(&body), sid, V25)).await).await;
    assert!(reply.get("result").is_some(), "{reply}");
}

async fn tools_list(addr: SocketAddr, sid: &str, id: i64) -> raw_http::Response {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list" });
    send(addr, in_session(Req::post(&body), sid, V25)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_session_works_through_every_instance_outlives_its_owner_and_ends_everywhere() {
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let (a, b, c) =
        (instance(&redis, &seen).await, instance(&redis, &seen).await, instance(&redis, &seen).await);
    let sid = open_session(a.addr, V25).await;
    // B carries the session's requests to A.
    set_level(b.addr, &sid, "error").await;
    let listed = answer(tools_list(b.addr, &sid, 2).await).await;
    assert!(listed["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{listed}");
    // A leaves (shutdown): C takes the session over, in the state it had: the log level
    // set through B lets only the error line through.
    a.stop().await;
    let call = mcp_http::call_body(3, "log_twice", json!({}));
    let mut stream = send(c.addr, in_session(Req::post(&call), &sid, V25)).await;
    assert_eq!(stream.status, 200);
    let mut logged = Vec::new();
    loop {
        let message = stream.next_message().await;
        if message.get("method").is_none() {
            assert_eq!(message["result"]["content"][0]["text"], "logged", "{message}");
            break;
        }
        logged.push(message["params"]["data"].clone());
    }
    assert_eq!(logged, vec![json!("an error line")]);
    // A second initialize-less request on B now goes to C, the new owner.
    let listed = answer(tools_list(b.addr, &sid, 4).await).await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    // DELETE through B ends it everywhere.
    let deleted = send(b.addr, in_session(Req::new("DELETE"), &sid, V25)).await;
    assert_eq!(deleted.status, 200);
    for addr in [b.addr, c.addr] {
        assert_eq!(tools_list(addr, &sid, 5).await.status, 404, "the session is gone on {addr}");
    }
    // A session that never existed is 404 everywhere, as without a cluster.
    assert_eq!(tools_list(c.addr, &"0".repeat(32), 6).await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_redis_a_remote_session_fails_in_time_and_2026_requests_go_on() {
    let Some(mut redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let (a, b) = (instance(&redis, &seen).await, instance(&redis, &seen).await);
    let sid = open_session(a.addr, V25).await;
    let _ = redis.child.kill();
    let _ = redis.child.wait();
    let started = Instant::now();
    let response = tools_list(b.addr, &sid, 2).await;
    assert_eq!(response.status, 503, "a request needing redis fails clearly");
    assert!(started.elapsed() < Duration::from_secs(8), "took {:?}", started.elapsed());
    let initialize = send(b.addr, Req::post(&initialize_body(1, V25))).await;
    assert_eq!(initialize.status, 503, "a session cannot start without its record");
    // The session's own instance and the stateless era need no redis.
    assert!(answer(tools_list(a.addr, &sid, 3).await).await["result"]["tools"].is_array());
    let listed = answer(send(b.addr, stateless_request(4, "tools/list", json!({}))).await).await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    // Redis back on the same port: the instances reconnect by themselves.
    let port = redis.url.rsplit(':').next().unwrap().to_owned();
    redis.child = Command::new("redis-server")
        .args(["--port", &port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    let sid = loop {
        let mut response = send(b.addr, Req::post(&initialize_body(1, V25))).await;
        if response.status == 200 {
            let _ = response.next_message().await;
            break response.header("mcp-session-id").unwrap().to_owned();
        }
        assert!(Instant::now() < deadline, "no session could start after redis came back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // A session made after the restart is served through the other instance again, once
    // that one has reconnected too (each instance reconnects on its own time).
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    loop {
        let status = send(a.addr, in_session(Req::post(&initialized), &sid, V25)).await.status;
        if status == 202 {
            break;
        }
        assert_eq!(status, 503, "only a missing redis connection may refuse it");
        assert!(Instant::now() < deadline, "the other instance never reconnected");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(answer(tools_list(a.addr, &sid, 5).await).await["result"]["tools"].is_array());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_on_one_instance_hears_of_changes_and_tasks_on_another() {
    use mcpwire::protocol::subscriptions::SubscriptionFilter;
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let (a, b) = (instance(&redis, &seen).await, instance(&redis, &seen).await);
    let (on_a, on_b) = (client(&a).await, client(&b).await);
    let ToolCallStart::Task(task) =
        on_a.start_tool_call("wait_for_cancel", json!({}), Default::default()).await.unwrap()
    else {
        panic!("wait_for_cancel runs as a task")
    };
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        task_ids: Some(vec![task.task_id.clone()]),
        ..Default::default()
    };
    let mut listening = on_b.listen(filter).await.unwrap();
    // The task runs on A and is cancelled through A: B's stream hears of it.
    on_a.cancel_task(&task.task_id).await.unwrap();
    let deadline = Duration::from_secs(10);
    let heard = tokio::time::timeout(deadline, async {
        loop {
            let note = listening.next().await.expect("the listen stream ended");
            let params = serde_json::to_value(&note.params).unwrap();
            if note.method == "notifications/tasks" && params["status"] == "cancelled" {
                return params;
            }
        }
    })
    .await
    .expect("no notifications/tasks on B for the task cancelled on A");
    assert_eq!(heard["taskId"], task.task_id.as_str());
    // A list change published on A reaches B's listen stream too.
    tokio::time::timeout(deadline, async {
        let trigger = json!({ "name": "change_tools", "arguments": {} });
        let _ = answer(send(a.addr, stateless_request(9, "tools/call", trigger)).await).await;
        loop {
            let note = listening.next().await.expect("the listen stream ended");
            if note.method == "notifications/tools/list_changed" {
                return;
            }
        }
    })
    .await
    .expect("no tools/list_changed on B for the change on A");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tunnelled_call_keeps_local_semantics_a_hang_up_detaches_and_a_cancellation_stops_it() {
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let (a, b) = (instance(&redis, &seen).await, instance(&redis, &seen).await);
    let sid = open_session(a.addr, V25).await;
    let call = mcp_http::call_body(2, "hang", json!({}));
    let connection = raw_http::send_only(b.addr, in_session(Req::post(&call), &sid, V25)).await;
    mcp_http::wait_for("the call to start on A", || seen.hang_started.load(Ordering::SeqCst)).await;
    // A 2025 client that drops its stream has not cancelled (it may resume): the call
    // goes on on A, as it would had the client been on A.
    drop(connection);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!seen.hang_stopped.load(Ordering::SeqCst), "a hang-up is not a cancellation in 2025");
    // notifications/cancelled through B reaches the handler on A.
    let cancel =
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 2 } });
    let sent = send(b.addr, in_session(Req::post(&cancel), &sid, V25)).await;
    assert_eq!(sent.status, 202);
    mcp_http::wait_for("the handler on A to be cancelled", || seen.hang_stopped.load(Ordering::SeqCst)).await;
}

/// The session's standalone GET stream, resumed after `last_event_id` if given.
async fn get_stream(addr: SocketAddr, sid: &str, last_event_id: Option<&str>) -> raw_http::Response {
    let mut req = in_session(Req::new("GET").header("accept", "text/event-stream"), sid, V25);
    if let Some(id) = last_event_id {
        req = req.header("last-event-id", id);
    }
    send(addr, req).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_stream_resumed_after_its_owner_left_goes_on_live_on_the_new_owner() {
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let (a, b) = (instance(&redis, &seen).await, instance(&redis, &seen).await);
    let sid = open_session(a.addr, V25).await;
    let mut stream = get_stream(a.addr, &sid, None).await;
    assert_eq!(stream.status, 200);
    let change = mcp_http::call_body(2, "change_tools", json!({}));
    let _ = answer(send(a.addr, in_session(Req::post(&change), &sid, V25)).await).await;
    let first = stream.next_event().await;
    assert!(first.data.contains("notifications/tools/list_changed"), "{first:?}");
    let last = first.id.expect("a resumable event");
    // Written behind to redis within milliseconds (a second leaves room for a busy
    // machine); then A leaves.
    tokio::time::sleep(Duration::from_secs(1)).await;
    a.stop().await;
    let mut resumed = get_stream(b.addr, &sid, Some(&last)).await;
    assert_eq!(resumed.status, 200);
    // The stream is live on B: a change made there now arrives on it.
    let change = mcp_http::call_body(3, "change_tools", json!({}));
    let _ = answer(send(b.addr, in_session(Req::post(&change), &sid, V25)).await).await;
    let next = resumed.next_message().await;
    assert_eq!(next["method"], "notifications/tools/list_changed", "{next}");
}

/// A 2025 session's tasks are listed as long as `tasks/get` finds them ("If a task is
/// retrievable via `tasks/get` for a requestor, it MUST be retrievable via `tasks/list`
/// for that requestor"): a later task with a shorter TTL does not cut the list short.
#[tokio::test]
async fn a_shorter_lived_task_does_not_hide_an_owners_longer_lived_ones_from_the_list() {
    use mcpwire::server::tasks::{TaskRecord, TaskStore};
    let Some(redis) = redis() else { return };
    let store = Cluster::connect(&redis.url).await.unwrap().task_store();
    let record = |id: &str, ttl: Duration| {
        let now = std::time::SystemTime::now();
        TaskRecord {
            task_id: id.into(),
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl: Some(ttl),
            poll_interval: None,
            state: mcpwire::protocol::tasks_ext::TaskState::Working,
            owner: Some("s1".into()),
        }
    };
    store.create(record("long", Duration::from_secs(60))).await.unwrap();
    store.create(record("short", Duration::from_millis(300))).await.unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(store.get("long").await.unwrap().is_some());
    let listed: Vec<String> =
        store.list(Some("s1"), None, 10).await.unwrap().into_iter().map(|r| r.task_id).collect();
    assert_eq!(listed, ["long"]);
}

/// A session's journal (what a takeover replays) keeps the latest request per piece of
/// state: a client repeating `logging/setLevel`, or unsubscribing from ever new URIs,
/// does not grow Redis; a takeover still restores the last level set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_state_setting_requests_do_not_grow_the_session_journal() {
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let (a, b) = (instance(&redis, &seen).await, instance(&redis, &seen).await);
    let sid = open_session(a.addr, V25).await;
    let key = format!("mcpwire:journal:{sid}");
    let size = || redis_cli(&redis, &["MEMORY", "USAGE", &key]).parse::<u64>().unwrap();
    set_level(a.addr, &sid, "debug").await;
    let before = size();
    for i in 0..200 {
        set_level(a.addr, &sid, if i % 2 == 0 { "info" } else { "error" }).await;
        let uri = format!("file:///{i}");
        let body = json!({ "jsonrpc": "2.0", "id": 1000 + i, "method": "resources/unsubscribe",
            "params": { "uri": uri } });
        let _ = answer(send(a.addr, in_session(Req::post(&body), &sid, V25)).await).await;
    }
    let after = size();
    assert!(after <= before + 256, "the journal grew from {before} to {after} bytes");
    // B takes the session over at the last level set: only the error line comes through.
    a.stop().await;
    let call = mcp_http::call_body(3, "log_twice", json!({}));
    let mut stream = send(b.addr, in_session(Req::post(&call), &sid, V25)).await;
    assert_eq!(stream.status, 200);
    let mut logged = Vec::new();
    loop {
        let message = stream.next_message().await;
        if message.get("method").is_none() {
            break;
        }
        logged.push(message["params"]["data"].clone());
    }
    assert_eq!(logged, vec![json!("an error line")]);
}

/// An owner's task list drops its expired tasks as new ones come: a server creating
/// short-lived tasks without end (2026 tasks all share one list) does not grow Redis.
#[tokio::test]
async fn expired_tasks_leave_their_owners_list() {
    use mcpwire::server::tasks::{TaskRecord, TaskStore};
    let Some(redis) = redis() else { return };
    let store = Cluster::connect(&redis.url).await.unwrap().task_store();
    let record = |id: String, ttl: u64| {
        let now = std::time::SystemTime::now();
        TaskRecord {
            task_id: id,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl: Some(Duration::from_millis(ttl)),
            poll_interval: None,
            state: mcpwire::protocol::tasks_ext::TaskState::Working,
            owner: None,
        }
    };
    // A long-lived task keeps the list alive while short-lived ones come and go.
    store.create(record("long".into(), 60_000)).await.unwrap();
    for i in 0..200 {
        store.create(record(format!("short-{i}"), 200)).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    store.create(record("new".into(), 200)).await.unwrap();
    let listed = redis_cli(&redis, &["ZRANGE", "mcpwire:tasks-of:-", "0", "-1"]);
    assert_eq!(listed.lines().collect::<Vec<_>>(), ["long", "new"]);
}

/// Keys are `PREFIX:KIND:ID`: a prefix holding `:` could overlap another deployment's
/// (`mcpwire:session` beside `mcpwire`, whose session `instance:X` would be the other's
/// heartbeat), so such a prefix, or an empty one, is refused before Redis is reached.
#[tokio::test]
async fn a_key_prefix_that_could_overlap_another_is_refused() {
    for prefix in ["mcpwire:session", "a:", ":", ""] {
        let options = ClusterOptions { prefix: prefix.into(), ..ClusterOptions::default() };
        // Nothing listens on port 1: only a check made before connecting answers "prefix".
        let refused = Cluster::connect_with("redis://127.0.0.1:1", options).await.unwrap_err();
        assert!(refused.to_string().contains("prefix"), "{prefix:?}: {refused}");
    }
    let Some(redis) = redis() else { return };
    for prefix in ["mcpwire-session", "tenant.a_1"] {
        let options = ClusterOptions { prefix: prefix.into(), ..ClusterOptions::default() };
        Cluster::connect_with(&redis.url, options).await.unwrap();
    }
}

/// A tunnelled request that its owner never takes in (its inbox was full: pub/sub drops
/// the message), here an "owner" whose heartbeat is live and whose inbox is listened to
/// but never answered: the waiting side gives up within a bounded time with a 503, rather
/// than waiting as long as the owner lives. A real owner that is still serving a long
/// call says so when asked, and the call goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tunnelled_request_its_owner_never_took_in_fails_in_bounded_time() {
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let options = || ClusterOptions { heartbeat: Duration::from_millis(200), ..ClusterOptions::default() };
    let (a, b) =
        (instance_with(&redis, &seen, options()).await, instance_with(&redis, &seen, options()).await);
    let (owner, sid) = ("f".repeat(32), "e".repeat(32));
    redis_cli(&redis, &["SET", &format!("mcpwire:instance:{owner}"), "1", "PX", "600000"]);
    let record = format!("mcpwire:session:{sid}");
    redis_cli(&redis, &["HSET", &record, "owner", &owner, "version", V25, "generation", "0"]);
    let inbox = format!("mcpwire:inbox:{owner}");
    let port = redis.url.rsplit(':').next().unwrap();
    let mut deaf = Command::new("redis-cli")
        .args(["-p", port, "SUBSCRIBE", &inbox])
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-cli");
    while redis_cli(&redis, &["PUBSUB", "NUMSUB", &inbox]).lines().nth(1) != Some("1") {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let started = Instant::now();
    let response = tokio::time::timeout(Duration::from_secs(10), tools_list(b.addr, &sid, 2)).await;
    let _ = deaf.kill();
    let _ = deaf.wait();
    let response = response.expect("the tunnelled request waited without a bound");
    assert_eq!(response.status, 503);
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(response.json().await["error"]["code"], -32603);

    // A call that runs on A for many times the wait, tunnelled through B, is not cut.
    let sid = open_session(a.addr, V25).await;
    let call = mcp_http::call_body(3, "hang", json!({}));
    let mut stream = send(b.addr, in_session(Req::post(&call), &sid, V25)).await;
    assert_eq!(stream.status, 200);
    let waited = tokio::time::timeout(Duration::from_secs(2), stream.next_message()).await;
    assert!(waited.is_err(), "a live owner's long call was ended: {waited:?}");
    assert!(seen.hang_started.load(Ordering::SeqCst) && !seen.hang_stopped.load(Ordering::SeqCst));
}

/// A session's GET stream tunnelled to its owner for an instance that then vanished
/// (here a listener standing in for it, gone after the stream began) is not held by the
/// owner for ever: the owner asks after a quiet while whether the stream is still
/// wanted, finds no one listening, and ends it, so the client, back through another
/// instance, can open the session's stream again (it got `409` while the dead one held it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_tunnelled_for_a_vanished_instance_is_let_go() {
    let Some(redis) = redis() else { return };
    let seen = Arc::new(Seen::default());
    let options = ClusterOptions { heartbeat: Duration::from_millis(200), ..ClusterOptions::default() };
    let a = instance_with(&redis, &seen, options).await;
    let sid = open_session(a.addr, V25).await;
    let gone = "d".repeat(32);
    let inbox = format!("mcpwire:inbox:{gone}");
    let port = redis.url.rsplit(':').next().unwrap();
    let mut listener = Command::new("redis-cli")
        .args(["-p", port, "SUBSCRIBE", &inbox])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    while redis_cli(&redis, &["PUBSUB", "NUMSUB", &inbox]).lines().nth(1) != Some("1") {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let headers = json!([
        ["host", a.addr.to_string()],
        ["accept", "text/event-stream"],
        ["mcp-session-id", sid],
        ["mcp-protocol-version", V25]
    ]);
    let request = json!({ "t": "request", "tunnel": 1, "from": gone, "method": "GET", "uri": "/mcp",
        "headers": headers, "principal": null, "body": "" });
    let owners = redis_cli(&redis, &["PUBSUB", "CHANNELS", "mcpwire:inbox:*"]);
    let owner = owners.lines().find(|c| *c != inbox).unwrap().to_owned();
    assert_eq!(redis_cli(&redis, &["PUBLISH", &owner, &request.to_string()]), "1");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(get_stream(a.addr, &sid, None).await.status, 409, "the tunnelled stream is open");
    let _ = listener.kill();
    let _ = listener.wait();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let status = get_stream(a.addr, &sid, None).await.status;
        if status == 200 {
            break;
        }
        assert_eq!(status, 409);
        assert!(Instant::now() < deadline, "the stream of the vanished instance is still held");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// An answer or cancellation for a task whose instance is alive (its heartbeat goes on)
/// but does not listen (its Redis subscription is down) reached no one: the store said it
/// was carried, so `tasks/update` succeeded and the handler waited on for an answer that
/// was lost. The store now says it was not carried.
#[tokio::test]
async fn a_task_signal_no_instance_received_is_an_error() {
    use mcpwire::server::tasks::{TaskRecord, TaskSignal, TaskStore};
    let Some(redis) = redis() else { return };
    // The runner beats rarely: its heartbeat outlives it.
    let options = ClusterOptions { heartbeat: Duration::from_secs(3600), ..ClusterOptions::default() };
    let runner = Cluster::connect_with(&redis.url, options).await.unwrap();
    let now = std::time::SystemTime::now();
    let record = TaskRecord {
        task_id: "t1".into(),
        status_message: None,
        created_at: now,
        last_updated_at: now,
        ttl: Some(Duration::from_secs(60)),
        poll_interval: None,
        state: mcpwire::protocol::tasks_ext::TaskState::Working,
        owner: None,
    };
    runner.task_store().create(record).await.unwrap();
    let inbox = format!("mcpwire:inbox:{}", runner.instance_id());
    drop(runner);
    let deadline = Instant::now() + Duration::from_secs(10);
    while redis_cli(&redis, &["PUBSUB", "NUMSUB", &inbox]).lines().nth(1) != Some("0") {
        assert!(Instant::now() < deadline, "the runner's subscription stayed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let other = Cluster::connect(&redis.url).await.unwrap().task_store();
    assert!(other.get("t1").await.unwrap().is_some(), "the runner still counts as alive");
    let carried = other.signal("t1", TaskSignal::Cancel).await;
    assert!(carried.is_err(), "a signal no one received was reported carried: {carried:?}");
}
