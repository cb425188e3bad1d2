//! A 2026 task that never stops asking: the client following it answers at most
//! `ClientOptions::max_input_rounds` rounds of new questions, then cancels the task and
//! fails the call, as it bounds a call's own `input_required` rounds.
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
