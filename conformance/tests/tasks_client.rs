//! mcpwire's client following tasks on mcpwire's everything server (in process, over an
//! in-memory pair; and as a process over Streamable HTTP), in both eras: `call_tool` polls a task to its end, answers its
//! questions through the elicitation callback, and cancels it when the call times out;
//! the lower-level calls start, inspect, list and cancel tasks.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::callbacks::{first_text, recording_client, Seen};
use common::peers::EverythingHttp;
use mcpwire::client::{Client, RequestOptions, ToolCallStart};
use mcpwire::error::RequestError;
use mcpwire::protocol::tasks::TaskStatus;
use mcpwire::protocol::ProtocolVersion;
use serde_json::json;

async fn connect(version: ProtocolVersion, seen: &Arc<Seen>) -> Client {
    let (a, b) = mcpwire::transport::memory::pair();
    let server = mcpwire_conformance::everything::server();
    tokio::spawn(async move { server.serve(b).await });
    recording_client(seen).protocol_version(version).connect(a).await.unwrap()
}

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28];

#[tokio::test]
async fn call_tool_follows_tasks_and_answers_their_questions() {
    for version in ERAS {
        let seen = Arc::new(Seen::default());
        let client = connect(version.clone(), &seen).await;
        // A task that needs the user's name: asked through the elicitation callback (2026:
        // an MRTR round before the task; 2025: during tasks/result).
        let result = client.call_tool("test_tool_with_task", json!({})).await.unwrap();
        assert_eq!(first_text(&result), "Hello from a task, Ada!", "{version}");
        assert_eq!(seen.elicitation_messages().len(), 1, "{version}: asked once");
        // A required task that reports a tool error.
        let result = client.call_tool("failing_job", json!({})).await.unwrap();
        assert!(result.is_error(), "{version}");
        // A protocol error of a task.
        let e = client.call_tool("protocol_error_job", json!({})).await.unwrap_err();
        assert!(matches!(e, RequestError::Peer(_)), "{version}: {e}");
    }
    // 2026: questions asked inside a running task, two at once, answered with tasks/update.
    let seen = Arc::new(Seen::default());
    let client = connect(ProtocolVersion::V2026_07_28, &seen).await;
    let statuses = Arc::new(Mutex::new(Vec::new()));
    let recorded = statuses.clone();
    let options = RequestOptions::default()
        .on_progress(move |p| recorded.lock().unwrap().push(p.message.unwrap_or_default()));
    let result = client.call_tool_with("multi_input", json!({}), options).await.unwrap();
    assert_eq!(first_text(&result), "Got Ada and Ada");
    assert_eq!(seen.elicitation_messages().len(), 2);
    let statuses = statuses.lock().unwrap().join("\n");
    assert!(statuses.contains("input_required") && statuses.contains("completed"), "{statuses}");
}

#[tokio::test]
async fn a_timed_out_call_cancels_its_task() {
    let seen = Arc::new(Seen::default());
    let client = connect(ProtocolVersion::V2026_07_28, &seen).await;
    let task_line = Arc::new(Mutex::new(String::new()));
    let recorded = task_line.clone();
    let options = RequestOptions::default()
        .timeout(Duration::from_millis(300))
        .on_progress(move |p| *recorded.lock().unwrap() = p.message.unwrap_or_default());
    let e = client.call_tool_with("slow_compute", json!({ "seconds": 60 }), options).await.unwrap_err();
    assert!(matches!(e, RequestError::Timeout { .. }), "{e}");
    let line = task_line.lock().unwrap().clone();
    let task_id = line.strip_prefix("task ").and_then(|l| l.split(':').next()).unwrap().to_owned();
    // The call's drop guard cancels the task in the background.
    let mut status = None;
    for _ in 0..100 {
        status = Some(client.get_task(&task_id).await.unwrap().status());
        if status == Some(TaskStatus::Cancelled) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, Some(TaskStatus::Cancelled), "the abandoned task was cancelled");
}

#[tokio::test]
async fn the_lower_level_calls_in_both_eras() {
    for version in ERAS {
        let seen = Arc::new(Seen::default());
        let client = connect(version.clone(), &seen).await;
        let start =
            client.start_tool_call("slow_compute", json!({ "seconds": 60 }), RequestOptions::default()).await;
        let ToolCallStart::Task(task) = start.unwrap() else { panic!("{version}: not a task") };
        assert_eq!(client.get_task(&task.task_id).await.unwrap().status(), TaskStatus::Working);
        if version == ProtocolVersion::V2025_11_25 {
            let listed = client.list_tasks(None).await.unwrap();
            assert!(listed.tasks.iter().any(|t| t.task_id == task.task_id), "{version}");
        } else {
            assert!(client.list_tasks(None).await.is_err(), "no tasks/list in 2026");
        }
        client.cancel_task(&task.task_id).await.unwrap();
        assert_eq!(
            client.get_task(&task.task_id).await.unwrap().status(),
            TaskStatus::Cancelled,
            "{version}"
        );
        // A quick task followed with wait_task.
        let start = client
            .start_tool_call(
                "slow_compute",
                json!({ "seconds": 0.1, "label": "w" }),
                RequestOptions::default(),
            )
            .await;
        let ToolCallStart::Task(task) = start.unwrap() else { panic!("{version}: not a task") };
        let result = client.wait_task(&task, RequestOptions::default()).await.unwrap();
        assert!(first_text(&result).starts_with("Computed w"), "{version}");
        // A plain tool is never a task.
        let start = client.start_tool_call("greet", json!({ "name": "x" }), RequestOptions::default()).await;
        assert!(matches!(start.unwrap(), ToolCallStart::Done(_)), "{version}");
    }
}

#[tokio::test]
async fn tasks_over_streamable_http_in_both_eras() {
    let server = EverythingHttp::start();
    for version in ERAS {
        let seen = Arc::new(Seen::default());
        let transport = mcpwire::transport::http_client::HttpClientTransport::new(&server.url()).unwrap();
        let client =
            recording_client(&seen).protocol_version(version.clone()).connect(transport).await.unwrap();
        // 2026: an MRTR round, then a task polled over separate POSTs (Mcp-Name = the
        // task id); 2025: the question is a server request on the tasks/result stream.
        let result = client.call_tool("test_tool_with_task", json!({})).await.unwrap();
        assert_eq!(first_text(&result), "Hello from a task, Ada!", "{version}");
        let start =
            client.start_tool_call("slow_compute", json!({ "seconds": 60 }), RequestOptions::default()).await;
        let ToolCallStart::Task(task) = start.unwrap() else { panic!("{version}: not a task") };
        client.cancel_task(&task.task_id).await.unwrap();
        assert_eq!(
            client.get_task(&task.task_id).await.unwrap().status(),
            TaskStatus::Cancelled,
            "{version}"
        );
        client.close().await;
    }
}
