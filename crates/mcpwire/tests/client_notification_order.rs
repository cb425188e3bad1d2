//! A client sees a server's progress and log messages in the order the server sent them:
//! log messages are not handed over ahead of the progress sent before them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use mcpwire::client::{Client, RequestOptions};
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{tool, Ctx, Server};

/// Rounds of progress, then a log message, per call.
const ROUNDS: usize = 50;

fn server() -> Server {
    Server::builder("order", "1")
        .register(tool("interleave").description("progress and logs, alternating").handler(
            |ctx: Ctx| async move {
                for i in 0..ROUNDS {
                    ctx.progress(i as f64, Some(ROUNDS as f64), None).await;
                    ctx.log(LoggingLevel::Info, format!("log {i}")).await;
                }
                "done"
            },
        ))
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_log_messages_arrive_in_the_order_sent_in_both_eras() {
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let (a, b) = mcpwire::transport::memory::pair();
        let served = server();
        tokio::spawn(async move { served.serve(b).await });
        let seen = Arc::new(Mutex::new(Vec::new()));
        let logs = seen.clone();
        let client = Client::builder("t", "1")
            .protocol_version(version.clone())
            .on_log(move |params| logs.lock().unwrap().push(params.data.as_str().unwrap().to_owned()))
            .connect(a)
            .await
            .unwrap();
        client.set_log_level(LoggingLevel::Debug).await.unwrap();
        let progress = seen.clone();
        let options = RequestOptions::default().on_progress(move |update| {
            progress.lock().unwrap().push(format!("progress {}", update.progress))
        });
        let result = client.call_tool_with("interleave", serde_json::json!({}), options).await.unwrap();
        assert!(!result.is_error.unwrap_or(false));
        let expected: Vec<String> =
            (0..ROUNDS).flat_map(|i| [format!("progress {i}"), format!("log {i}")]).collect();
        assert_eq!(*seen.lock().unwrap(), expected, "{version:?}");
        client.close().await;
    }
}
