//! The demo: this program spawns itself as a child process speaking JSON-RPC over stdio,
//! sends it a few requests (one with progress, one it cancels by giving up), prints what
//! happens, and shuts the child down the way the spec describes.
//!
//! Run it with `cargo run --release -p mcpwire --example demo`.

use std::time::Duration;

use mcpwire::jsonrpc::{CallOptions, Dispatcher, Handler, NoHandler, RequestContext};
use mcpwire::protocol::{RawJson, Request};
use mcpwire::transport::child::{ChildProcess, StderrMode};
use mcpwire::transport::stdio::stdio;
use mcpwire::McpError;
use serde_json::{json, Value};

/// The child: a tiny server with an `add` method and a slow `count` that reports progress.
struct Calculator;

impl Handler for Calculator {
    async fn on_request(&self, request: Request, ctx: RequestContext) -> Result<RawJson, McpError> {
        let params: Value = request.parse_params().map_err(|e| McpError::invalid_params(e.to_string()))?;
        let result = match request.method.as_str() {
            "add" => match (params["a"].as_f64(), params["b"].as_f64()) {
                (Some(a), Some(b)) => json!({ "sum": a + b }),
                _ => return Err(McpError::invalid_params("add needs numbers a and b")),
            },
            "count" => {
                let to = params["to"].as_u64().unwrap_or(5);
                for i in 1..=to {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    ctx.progress(i as f64, Some(to as f64), None).await;
                }
                json!({ "counted": to })
            }
            other => return Err(McpError::method_not_found(other)),
        };
        Ok(serde_json::value::to_raw_value(&result)?)
    }
}

fn params(value: Value) -> Option<RawJson> {
    serde_json::value::to_raw_value(&value).ok()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--serve") {
        Dispatcher::new(stdio()).run(Calculator).await;
        return Ok(());
    }

    let exe = std::env::current_exe()?;
    let (connection, child) = ChildProcess::new(exe).arg("--serve").stderr(StderrMode::Capture).spawn()?;
    let dispatcher = Dispatcher::new(connection);
    let peer = dispatcher.peer();
    let running = dispatcher.spawn(NoHandler);

    let sum = peer.request_raw("add", params(json!({ "a": 2, "b": 40 })), CallOptions::default()).await?;
    println!("add(2, 40)        -> {}", sum.get());

    let missing = peer.request_raw("divide", params(json!({})), CallOptions::default()).await;
    println!("divide            -> error: {}", missing.err().map(|e| e.to_string()).unwrap_or_default());

    let counted = peer
        .request_raw(
            "count",
            params(json!({ "to": 3 })),
            CallOptions::default()
                .on_progress(|p| println!("  progress {}/{}", p.progress, p.total.unwrap_or(0.0))),
        )
        .await?;
    println!("count(3)          -> {}", counted.get());

    let gave_up = peer
        .request_raw(
            "count",
            params(json!({ "to": 50 })),
            CallOptions::default().timeout(Duration::from_millis(250)),
        )
        .await;
    println!(
        "count(50), 250 ms -> {} (the child was sent notifications/cancelled)",
        gave_up.err().map(|e| e.to_string()).unwrap_or_default()
    );

    let status = child.shutdown().await;
    println!("child exited: {}", status.map(|s| s.to_string()).unwrap_or_else(|| "unknown".into()));
    running.await?;
    Ok(())
}
