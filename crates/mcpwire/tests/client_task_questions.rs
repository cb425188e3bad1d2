//! A 2026 task that never stops asking: the client following it answers at most
//! `ClientOptions::max_input_rounds` rounds of new questions, then cancels the task and
//! fails the call, as it bounds a call's own `input_required` rounds. And a call's
//! `on_task` hook, told the task a call became (and nothing for a plain call).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpwire::client::{Client, ClientOptions};
use mcpwire::error::RequestError;
use mcpwire::protocol::elicitation::{ElicitRequestParams, ElicitResult, ElicitValue};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::tasks::TaskSupport;
use mcpwire::server::{tool, Ctx, Server};
use serde_json::json;

/// Asks question after question, each under a new key, and never answers.
async fn nosy(ctx: Ctx) -> Result<&'static str, mcpwire::McpError> {
    for i in 0..1000 {
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "message": format!("question {i}"),
            "requestedSchema": { "type": "object", "properties": { "a": { "type": "string" } } }
        }))
        .unwrap();
        ctx.elicit_as(&format!("q{i}"), params).await?;
    }
    Ok("never")
}

#[tokio::test]
async fn a_task_that_keeps_asking_is_cancelled_after_the_round_bound() {
    let server = Server::builder("nosy", "1")
        .register(tool("nosy").description("asks forever").task_support(TaskSupport::Required).handler(nosy))
        .build()
        .unwrap();
    let (a, b) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(b).await });
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let options = ClientOptions { max_input_rounds: 3, ..ClientOptions::default() };
    let client = Client::builder("t", "1")
        .protocol_version(ProtocolVersion::V2026_07_28)
        .options(options)
        .on_elicitation(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            async {
                Ok(ElicitResult::accept(BTreeMap::from([("a".to_owned(), ElicitValue::String("x".into()))])))
            }
        })
        .connect(a)
        .await
        .unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(30), client.call_tool("nosy", json!({})))
        .await
        .expect("the call ends");
    match outcome {
        Err(RequestError::Protocol(message)) => {
            assert!(message.contains("asked for input more than 3 times"), "{message}")
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
    assert_eq!(asked.load(Ordering::SeqCst), 3, "three rounds answered, the fourth refused");
    client.close().await;
}

/// A task cancelled while a call follows it, but not by that call (here another client
/// holding its id), fails the call with the server's `-32800`, not
/// `RequestError::Cancelled`, which says the caller cancelled.
#[tokio::test]
async fn a_task_cancelled_elsewhere_is_not_the_callers_cancellation() {
    use mcpwire::client::RequestOptions;
    let server = Server::builder("cancelled", "1")
        .register(tool("forever").task_support(TaskSupport::Required).handler(|ctx: Ctx| async move {
            ctx.cancellation().cancelled().await;
            "stopped"
        }))
        .build()
        .unwrap();
    let connect = || {
        let (a, b) = mcpwire::transport::memory::pair();
        let server = server.clone();
        tokio::spawn(async move { server.serve(b).await });
        Client::builder("t", "1").protocol_version(ProtocolVersion::V2026_07_28).connect(a)
    };
    let (follower, other) = (connect().await.unwrap(), connect().await.unwrap());
    let (tx, mut statuses) = tokio::sync::mpsc::unbounded_channel();
    let options = RequestOptions::default().on_progress(move |update| {
        let _ = tx.send(update.message.unwrap_or_default());
    });
    let call = tokio::spawn({
        let follower = follower.clone();
        async move { follower.call_tool_with("forever", json!({}), options).await }
    });
    let status = tokio::time::timeout(Duration::from_secs(10), statuses.recv()).await.unwrap().unwrap();
    let id =
        status.strip_prefix("task ").and_then(|s| s.split(':').next()).expect("a task status").to_owned();
    other.cancel_task(&id).await.unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(30), call).await.expect("the call ends").unwrap();
    match outcome {
        Err(RequestError::Peer(e)) => {
            assert_eq!(e.code, mcpwire::protocol::codes::REQUEST_CANCELLED);
            assert!(e.message.contains("not by this call"), "{}", e.message);
        }
        other => panic!("expected the server's cancellation, got {other:?}"),
    }
    follower.close().await;
    other.close().await;
}

/// `RequestOptions::on_task` is told once, in both eras, the task a tool call became (the
/// id its statuses then name), and never for a call answered at once.
#[tokio::test]
async fn on_task_is_told_the_task_a_call_became_and_nothing_else() {
    let server = Server::builder("jobs", "1")
        .register(tool("job").description("a task").task_support(TaskSupport::Required).handler(|| "done"))
        .register(tool("plain").description("never a task").handler(|| "done"))
        .build()
        .unwrap();
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let (a, b) = mcpwire::transport::memory::pair();
        let serving = server.clone();
        tokio::spawn(async move { serving.serve(b).await });
        let client = Client::builder("c", "1").protocol_version(version.clone()).connect(a).await.unwrap();
        let told = Arc::new(std::sync::Mutex::new(Vec::new()));
        let statuses = Arc::new(std::sync::Mutex::new(Vec::new()));
        let options = |told: &Arc<std::sync::Mutex<Vec<String>>>| {
            let (told, statuses) = (told.clone(), statuses.clone());
            mcpwire::client::RequestOptions::default()
                .on_task(move |task| told.lock().unwrap().push(task.task_id.clone()))
                .on_progress(move |p| statuses.lock().unwrap().extend(p.message))
        };
        let done = client.call_tool_with("job", json!({}), options(&told)).await.unwrap();
        assert_eq!(done.content[0].as_text(), Some("done"));
        let ids = told.lock().unwrap().clone();
        assert_eq!(ids.len(), 1, "{version:?}: {ids:?}");
        let first = statuses.lock().unwrap().first().cloned().unwrap_or_default();
        assert!(first.starts_with(&format!("task {}:", ids[0])), "{version:?}: {first}");
        told.lock().unwrap().clear();
        client.call_tool_with("plain", json!({}), options(&told)).await.unwrap();
        assert!(told.lock().unwrap().is_empty(), "{version:?}: a plain call became no task");
        client.close().await;
    }
}
