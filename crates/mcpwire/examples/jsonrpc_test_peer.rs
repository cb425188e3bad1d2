//! A small JSON-RPC peer over stdio, used by the test suite as a real child process (and a
//! readable example of the dispatcher on its own).
//!
//! Methods: `echo` (returns its params), `sleep` `{ms}` (answers `{}` after a delay),
//! `fail` `{code, message}` (an error), `panic`, `progress` `{steps}` (reports progress,
//! then answers), `exit` `{code}` (the process exits at once, mid-request), and
//! `ask` `{method}` (sends that request back to the parent and answers with its result).
//! With `--signal`, peer cancellation only signals handlers; each handler that notices it
//! then sends `test/noticed_cancel` `{id}` (a notification unrelated to the request).

use std::time::Duration;

use mcpwire::jsonrpc::{CallOptions, Dispatcher, DispatcherConfig, Handler, PeerCancelMode, RequestContext};
use mcpwire::protocol::{RawJson, Request};
use mcpwire::transport::stdio::stdio;
use mcpwire::McpError;
use serde_json::{json, Value};

struct TestPeer;

fn raw(value: Value) -> RawJson {
    serde_json::value::to_raw_value(&value).unwrap_or_default()
}

impl Handler for TestPeer {
    async fn on_request(&self, request: Request, ctx: RequestContext) -> Result<RawJson, McpError> {
        let params: Value = request.parse_params().map_err(|e| McpError::invalid_params(e.to_string()))?;
        match request.method.as_str() {
            "echo" => Ok(raw(params)),
            "sleep" => {
                let ms = params["ms"].as_u64().unwrap_or(100);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
                    _ = ctx.cancellation().cancelled() => {
                        // Signal mode: tell the parent (unrelated to the request), then finish anyway.
                        ctx.peer().notify("test/noticed_cancel", Some(raw(json!({ "id": ctx.id() })))).await;
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
                Ok(raw(json!({})))
            }
            "fail" => Err(McpError::new(
                params["code"].as_i64().unwrap_or(-1),
                params["message"].as_str().unwrap_or("failed"),
            )),
            "panic" => panic!("the test peer was asked to panic"),
            "progress" => {
                let steps = params["steps"].as_u64().unwrap_or(3);
                for i in 1..=steps {
                    ctx.progress(i as f64, Some(steps as f64), Some("working")).await;
                }
                Ok(raw(json!({ "steps": steps })))
            }
            "exit" => std::process::exit(params["code"].as_i64().unwrap_or(3) as i32),
            "ask" => {
                let method = params["method"].as_str().unwrap_or("echo").to_owned();
                let result = ctx
                    .request(&method, Some(raw(json!({ "from": "child" }))), CallOptions::default())
                    .await?;
                Ok(result)
            }
            other => Err(McpError::method_not_found(other)),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let signal = std::env::args().any(|a| a == "--signal");
    let config = DispatcherConfig {
        cancel_mode: if signal { PeerCancelMode::Signal } else { PeerCancelMode::Interrupt },
        ..DispatcherConfig::default()
    };
    Dispatcher::with_config(stdio(), config).run(TestPeer).await;
}
