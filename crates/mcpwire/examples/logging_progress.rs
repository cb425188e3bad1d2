//! Logging and progress: a long tool call that tells the client how far it has got and
//! logs as it goes. The client sees progress only if it sent a `progressToken`. A 2025
//! session gets every log message until it sets a level (`logging/setLevel`), then those
//! at or above it; a 2026 request gets logs only at or above the level it names in its
//! `_meta` (none if it names none). A
//! cancelled call stops at its next `await`: by default its future is dropped there; a
//! server built with `PeerCancelMode::Signal` (or a call run as a task) sees the
//! cancellation token fire instead, which the `select!` below handles. Outside any
//! request, `Server::log` reaches 2025 sessions at their level (here a heartbeat every
//! 30 s; 2026 clients take logs only with a request). Served over stdio.
//!
//! ```sh
//! cargo build -p mcpwire --example logging_progress
//! mcpwire -v call stdio:target/debug/examples/logging_progress crunch steps=5
//! ```

use std::time::Duration;

use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::server::{Ctx, Server, ToolError};

/// Crunches numbers in `steps` steps, reporting progress and logging each step.
#[mcpwire::tool]
async fn crunch(ctx: Ctx, steps: u32) -> Result<String, ToolError> {
    let mut total: u64 = 0;
    for step in 1..=steps {
        tokio::select! {
            _ = ctx.cancellation().cancelled() => return Err(ToolError::new("cancelled")),
            _ = tokio::time::sleep(Duration::from_millis(50)) => {}
        }
        total += u64::from(step) * u64::from(step);
        ctx.log(LoggingLevel::Info, format!("step {step}: running total {total}")).await;
        ctx.progress(f64::from(step), Some(f64::from(steps)), Some(&format!("step {step} of {steps}"))).await;
    }
    Ok(format!("the sum of squares up to {steps} is {total}"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("logging-progress-example", "1.0.0")
        .register_all(mcpwire::definitions![crunch])
        .build()?;
    let heartbeat = server.clone();
    tokio::spawn(async move {
        let mut beats: u64 = 0;
        loop {
            tokio::time::sleep(Duration::from_secs(30)).await;
            beats += 1;
            heartbeat.log(LoggingLevel::Debug, Some("heartbeat"), format!("still serving ({beats})"));
        }
    });
    server.serve_stdio().await;
    Ok(())
}
