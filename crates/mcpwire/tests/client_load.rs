//! Our client under load: 10,000 concurrent calls on one connection are all answered,
//! each with its own result (back-pressure on the bounded channels, nothing lost).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcpwire::client::Client;
use mcpwire::server::{tool, Args, Server};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Echo {
    text: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_concurrent_calls_are_all_answered() {
    let server = Server::builder("echo", "0")
        .tool(tool("echo").handler(|Args(e): Args<Echo>| e.text))
        .build()
        .unwrap();
    let (a, b) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(b).await });
    let client = Client::builder("load", "0").connect(a).await.unwrap();
    let calls = (0..10_000).map(|i| {
        let client = client.clone();
        tokio::spawn(async move {
            let result = client.call_tool("echo", json!({ "text": format!("call {i}") })).await.unwrap();
            serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap().to_owned()
        })
    });
    let answers = futures_util::future::join_all(calls).await;
    assert_eq!(answers.len(), 10_000);
    for (i, answer) in answers.into_iter().enumerate() {
        assert_eq!(answer.unwrap(), format!("call {i}"));
    }
    client.close().await;
}
