//! Progress, log messages, server-to-client requests answered by the callbacks (both
//! eras), concurrent calls and list changes.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::{RequestOptions, ServerChange};
use mcpwire::jsonrpc::ProgressUpdate;
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::RequestError;
use serde_json::{json, Value};

use crate::common::callbacks::{eventually, first_text};
use crate::common::expected::fixture_logs;
use crate::fixture::{matrix, Fixture, Mode, Server};

matrix!(progress, logging, elicitation, sampling, roots, multi_round, concurrent_calls, list_changed);

/// Progress notifications reach the call's callback, in order, before the result.
async fn progress(f: Fixture) {
    let updates = Arc::new(Mutex::new(Vec::<ProgressUpdate>::new()));
    let sink = updates.clone();
    let options = RequestOptions::default().on_progress(move |u| sink.lock().unwrap().push(u));
    let update =
        |p: f64, t: f64, m: &str| ProgressUpdate { progress: p, total: Some(t), message: Some(m.into()) };
    match f.server {
        Server::Python => {
            let result = f.client.call_tool_with("progress", json!({ "steps": 3 }), options).await.unwrap();
            assert_eq!(first_text(&result), "done 3");
            assert_eq!(
                *updates.lock().unwrap(),
                [
                    update(1.0, 3.0, "step 1 of 3"),
                    update(2.0, 3.0, "step 2 of 3"),
                    update(3.0, 3.0, "step 3 of 3")
                ]
            );
        }
        Server::Rust => {
            let result =
                f.client.call_tool_with("test_tool_with_progress", json!({}), options).await.unwrap();
            // The tool answers with the progress token, which is the request id.
            assert!(first_text(&result).parse::<u64>().is_ok(), "{result:?}");
            assert_eq!(
                *updates.lock().unwrap(),
                [
                    update(0.0, 100.0, "Completed step 0 of 100"),
                    update(50.0, 100.0, "Completed step 50 of 100"),
                    update(100.0, 100.0, "Completed step 100 of 100"),
                ]
            );
        }
    }
    // Without a callback no token is sent, and nothing is reported.
    if f.server == Server::Rust {
        assert_eq!(f.text("test_tool_with_progress", json!({})).await, "0");
    }
    f.close().await;
}

/// Log messages reach `on_log`: in 2025 as the session's level says, in 2026 only for
/// requests sent after `set_log_level` (as `_meta` logLevel).
async fn logging(f: Fixture) {
    let c = &f.client;
    let (tool, args) = match f.server {
        Server::Python => ("log", json!({ "message": "m" })),
        Server::Rust => ("test_tool_with_logging", json!({})),
    };
    let python = fixture_logs;
    let rust = ["Tool execution started", "Tool processing data", "Tool execution completed"]
        .iter()
        .map(|m| (LoggingLevel::Info, None, json!(m)))
        .collect::<Vec<_>>();
    let expect_all = match f.server {
        Server::Python => python(&[LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Warning]),
        Server::Rust => rust.clone(),
    };
    let expect_info = match f.server {
        Server::Python => python(&[LoggingLevel::Info, LoggingLevel::Warning]),
        Server::Rust => rust.clone(),
    };
    let expect_warning = match f.server {
        Server::Python => python(&[LoggingLevel::Warning]),
        Server::Rust => vec![],
    };

    f.text(tool, args.clone()).await;
    match f.mode {
        // A 2025 session sends every level until the client sets one.
        Mode::Legacy => assert!(eventually(|| f.logs() == expect_all).await, "{:?}", f.logs()),
        // A 2026 request without logLevel gets no log messages.
        Mode::Auto => {
            tokio::time::sleep(Duration::from_millis(200)).await;
            assert_eq!(f.logs(), []);
        }
    }
    f.seen.logs.lock().unwrap().clear();

    c.set_log_level(LoggingLevel::Info).await.unwrap();
    f.text(tool, args.clone()).await;
    assert!(eventually(|| f.logs() == expect_info).await, "{:?}", f.logs());
    f.seen.logs.lock().unwrap().clear();

    c.set_log_level(LoggingLevel::Warning).await.unwrap();
    f.text(tool, args).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(f.logs(), expect_warning);
    f.close().await;
}

/// Elicitation: a real `elicitation/create` in 2025, an `input_required` round in 2026;
/// the same callback answers both.
async fn elicitation(f: Fixture) {
    let tool =
        if f.server == Server::Python { "elicit_name" } else { "test_input_required_result_elicitation" };
    assert_eq!(f.text(tool, json!({})).await, "Hello, Ada!");
    assert_eq!(f.elicitations(), ["What is your name?"]);
    if f.server == Server::Rust {
        let answer = f.text("test_elicitation", json!({ "message": "Say something" })).await;
        assert_eq!(answer, r#"User response: action=accept, content={"response":"yes"}"#);
        assert_eq!(f.elicitations(), ["What is your name?", "Say something"]);
    }
    f.close().await;
}

/// Sampling through the callback, in both eras.
async fn sampling(f: Fixture) {
    match f.server {
        Server::Python => {
            assert_eq!(f.text("sample", json!({})).await, "model said: Paris (model test-model)");
            assert_eq!(f.seen.samplings.load(Ordering::SeqCst), 1);
        }
        Server::Rust => {
            assert_eq!(f.text("test_sampling", json!({ "prompt": "q" })).await, "LLM response: Paris");
            assert_eq!(
                f.text("test_input_required_result_sampling", json!({})).await,
                "Sampling result: Paris"
            );
            assert_eq!(f.seen.samplings.load(Ordering::SeqCst), 2);
        }
    }
    f.close().await;
}

/// Roots through the callback, in both eras.
async fn roots(f: Fixture) {
    match f.server {
        Server::Python => assert_eq!(f.text("roots", json!({})).await, "roots: file:///tmp/a, file:///tmp/b"),
        Server::Rust => {
            assert_eq!(f.text("test_input_required_result_list_roots", json!({})).await, "Found 2 root(s)")
        }
    }
    assert_eq!(f.seen.roots.load(Ordering::SeqCst), 1);
    f.close().await;
}

/// Two dependent questions: two `input_required` rounds in 2026 (the second depends on
/// the first answer), two sequential requests in 2025.
async fn multi_round(f: Fixture) {
    match f.server {
        Server::Python => {
            assert_eq!(f.text("favourite", json!({})).await, "Ada likes blue");
            assert_eq!(f.elicitations(), ["What is your name?", "Ada, what is your favourite colour?"]);
        }
        Server::Rust => {
            assert_eq!(
                f.text("test_input_required_result_multi_round", json!({})).await,
                "Multi-round complete for Ada who likes blue"
            );
            assert_eq!(
                f.elicitations(),
                ["Step 1: What is your name?", "Step 2: What is your favorite color?"]
            );
            // Three kinds of input in one round.
            assert_eq!(
                f.text("test_input_required_result_multiple_inputs", json!({})).await,
                "Name: Ada; Greeting: Paris; Roots: 2"
            );
            assert_eq!(
                f.text("test_input_required_result_request_state", json!({})).await,
                "state-ok: requestState validated (ok=true)"
            );
            assert_eq!(
                f.text("test_input_required_result_capabilities", json!({})).await,
                "capabilities-ok: elicitation, sampling, roots"
            );
        }
    }
    f.close().await;
}

/// Several calls at once, each with its own rounds of questions (2026) or requests from
/// the server (2025), interleaved with plain calls.
async fn concurrent_calls(f: Fixture) {
    let (tool, answer, plain, plain_args, plain_answer) = match f.server {
        Server::Python => ("favourite", "Ada likes blue", "echo", json!({ "text": "x" }), "echo: x"),
        Server::Rust => (
            "test_input_required_result_multi_round",
            "Multi-round complete for Ada who likes blue",
            "test_simple_text",
            json!({}),
            "This is a simple text response for testing.",
        ),
    };
    let mut calls = Vec::new();
    for i in 0..10 {
        let client = f.client.clone();
        let (name, args) = if i % 2 == 0 { (tool, json!({})) } else { (plain, plain_args.clone()) };
        calls.push(tokio::spawn(async move { client.call_tool(name, args).await }));
    }
    for (i, call) in calls.into_iter().enumerate() {
        let result = call.await.unwrap().unwrap();
        assert_eq!(first_text(&result), if i % 2 == 0 { answer } else { plain_answer }, "call {i}");
    }
    assert_eq!(f.elicitations().len(), 10);
    f.close().await;
}

/// List changes: `on_change` in 2025; a `subscriptions/listen` stream in 2026.
async fn list_changed(f: Fixture) {
    let c = &f.client;
    let (tool, watched) = match f.server {
        Server::Python => ("change_tools", Some("fixture://static")),
        Server::Rust => ("test_trigger_tool_change", None),
    };
    match f.mode {
        Mode::Legacy => {
            f.text(tool, json!({})).await;
            assert!(
                eventually(|| f.seen.changes.lock().unwrap().contains(&ServerChange::ToolsChanged)).await
            );
            if let Some(uri) = watched {
                c.subscribe(uri).await.unwrap();
                assert_eq!(f.text("touch", json!({ "uri": uri })).await, format!("touched {uri}"));
                let updated = ServerChange::ResourceUpdated(uri.to_owned());
                assert!(eventually(|| f.seen.changes.lock().unwrap().contains(&updated)).await);
            }
            assert!(matches!(c.listen(SubscriptionFilter::default()).await, Err(RequestError::Protocol(_))));
        }
        Mode::Auto => {
            let filter = SubscriptionFilter {
                tools_list_changed: Some(true),
                resource_subscriptions: watched.map(|u| vec![u.to_owned()]),
                ..Default::default()
            };
            let mut sub = c.listen(filter.clone()).await.unwrap();
            assert_eq!(sub.acknowledged(), &filter);
            f.text(tool, json!({})).await;
            let next = tokio::time::timeout(Duration::from_secs(5), sub.next()).await.unwrap().unwrap();
            assert_eq!(next.method, "notifications/tools/list_changed");
            assert!(
                eventually(|| f.seen.changes.lock().unwrap().contains(&ServerChange::ToolsChanged)).await
            );
            if let Some(uri) = watched {
                f.text("touch", json!({ "uri": uri })).await;
                let next = tokio::time::timeout(Duration::from_secs(5), sub.next()).await.unwrap().unwrap();
                assert_eq!(next.method, "notifications/resources/updated");
                let params: Value = next.parse_params().unwrap();
                assert_eq!(params["uri"], uri);
            }
            drop(sub);
            // The connection goes on after the stream ends.
            f.client.list_tools(None).await.unwrap();
        }
    }
    f.close().await;
}
