//! A call cancelled by its caller while the client's callback answers a question of the
//! server (a person filling in a form, say) ends at once as cancelled, in both eras, for
//! a plain call and for one that became a task (which is then cancelled on the server),
//! rather than when the callback is done or the call's timeout runs out.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::{Client, RequestOptions};
use mcpwire::error::RequestError;
use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams};
use mcpwire::protocol::tasks_ext::TaskState;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::tasks::TaskSupport;
use mcpwire::server::{tool, Ctx, Server};
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Asks the user to confirm, then answers.
async fn confirm(ctx: Ctx) -> Result<&'static str, mcpwire::McpError> {
    let form = json!({ "message": "Sure?", "requestedSchema": {
        "type": "object", "properties": { "ok": { "type": "boolean" } } } });
    let form: ElicitRequestFormParams = serde_json::from_value(form).unwrap();
    ctx.elicit_as("confirm", ElicitRequestParams::Form(form)).await?;
    Ok("confirmed")
}

fn server() -> Server {
    Server::builder("asks", "1")
        .register(tool("plain").description("asks in the call").handler(confirm))
        .register(
            tool("task").description("asks as a task").task_support(TaskSupport::Required).handler(confirm),
        )
        .build()
        .unwrap()
}

/// A client whose elicitation callback tells `asked` and never answers.
async fn client(version: ProtocolVersion, asked: mpsc::UnboundedSender<()>) -> Client {
    let (a, b) = mcpwire::transport::memory::pair();
    let server = server();
    tokio::spawn(async move { server.serve(b).await });
    Client::builder("c", "1")
        .protocol_version(version)
        .on_elicitation(move |_| {
            let _ = asked.send(());
            std::future::pending()
        })
        .connect(a)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_call_cancelled_while_its_callback_answers_ends_at_once() {
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        for tool in ["plain", "task"] {
            let (tx, mut asked) = mpsc::unbounded_channel();
            let client = client(version.clone(), tx).await;
            let cancel = CancellationToken::new();
            let task_id = Arc::new(Mutex::new(None));
            let told = task_id.clone();
            let options = RequestOptions::default()
                .timeout(Duration::from_secs(3600))
                .cancel_on(cancel.clone())
                .on_task(move |task| *told.lock().unwrap() = Some(task.task_id.clone()));
            let call = tokio::spawn({
                let client = client.clone();
                async move { client.call_tool_with(tool, json!({}), options).await }
            });
            let waited = tokio::time::timeout(Duration::from_secs(10), asked.recv()).await;
            waited.unwrap_or_else(|_| panic!("{version:?} {tool}: the callback was never asked"));
            cancel.cancel();
            let ended = tokio::time::timeout(Duration::from_secs(10), call).await;
            let outcome =
                ended.unwrap_or_else(|_| panic!("{version:?} {tool}: the call did not end")).unwrap();
            assert!(
                matches!(outcome, Err(RequestError::Cancelled { .. })),
                "{version:?} {tool}: {outcome:?}"
            );
            // A task nobody follows any more is cancelled on the server.
            if tool == "task" {
                let id = task_id.lock().unwrap().clone().expect("the call became a task");
                let cancelled = async {
                    while !matches!(client.get_task(&id).await.map(|t| t.state), Ok(TaskState::Cancelled)) {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                };
                let ended = tokio::time::timeout(Duration::from_secs(10), cancelled).await;
                ended.unwrap_or_else(|_| panic!("{version:?}: the task was not cancelled"));
            }
            client.close().await;
        }
    }
}
