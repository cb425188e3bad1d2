//! Interop with PyPI `fastmcp` and its `fastmcp-tasks` (the 2026-07-28 tasks extension):
//! mcpwire's client follows the tasks of a fastmcp server (a result, a question answered
//! through `tasks/update`, a cancel) over real stdio pipes, and fastmcp's client follows
//! the tasks of mcpwire's everything-server (`tests/peers/python/fastmcp_tasks_client.py`).
//! Both speak 2026-07-28 only for tasks (fastmcp's are extension tasks), so that is the
//! revision tested here.
//!
//! The interpreter is `$MCPWIRE_PYTHON`, or else `<workspace>/.tools/venv/bin/python`;
//! without one the tests are skipped (they say why), except under `CI`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;
use std::sync::Arc;

use common::callbacks::{first_text, recording_client, Seen};
use common::peers::{python, run_script, workspace_root};
use mcpwire::client::{RequestOptions, ToolCallStart};
use mcpwire::protocol::tasks::TaskStatus;
use mcpwire::protocol::Era;
use mcpwire::transport::child::ChildProcess;
use serde_json::json;

#[test]
fn fastmcp_client_follows_mcpwire_tasks() {
    let Some(python) = python() else { return };
    let mut command = Command::new(&python);
    command
        .arg(workspace_root().join("tests/peers/python/fastmcp_tasks_client.py"))
        .arg(env!("CARGO_BIN_EXE_everything-server"))
        .arg("--stdio")
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    run_script("the fastmcp client", command, "== fastmcp tasks:");
}

#[tokio::test]
async fn mcpwire_client_follows_fastmcp_tasks() {
    let Some(python) = python() else { return };
    let fixture = workspace_root().join("conformance/tests/fixtures/fastmcp_tasks_server.py");
    let seen = Arc::new(Seen::default());
    let process = ChildProcess::new(python).arg(fixture).env("PYTHONDONTWRITEBYTECODE", "1");
    let client = recording_client(&seen).spawn(process).await.unwrap();
    assert_eq!(client.era(), Era::Stateless);

    let result = client.call_tool("slow_add", json!({ "a": 2, "b": 3 })).await.unwrap();
    assert_eq!(first_text(&result), "sum=5");
    let result = client.call_tool("ask_name", json!({})).await.unwrap();
    assert_eq!(first_text(&result), "hello Ada");
    assert_eq!(seen.elicitation_messages(), ["What is your name?"]);
    let result = client.call_tool("double", json!({ "x": 4 })).await.unwrap();
    assert_eq!(first_text(&result), "8");

    let start = client
        .start_tool_call("slow_add", json!({ "a": 1, "b": 1, "seconds": 60 }), RequestOptions::default())
        .await
        .unwrap();
    let ToolCallStart::Task(task) = start else { panic!("slow_add runs as a task") };
    client.cancel_task(&task.task_id).await.unwrap();
    let mut status = client.get_task(&task.task_id).await.unwrap().status();
    for _ in 0..50 {
        if status == TaskStatus::Cancelled {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        status = client.get_task(&task.task_id).await.unwrap().status();
    }
    assert_eq!(status, TaskStatus::Cancelled);
    client.close().await;
}
