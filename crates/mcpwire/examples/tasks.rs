//! Tasks: a long tool call that runs as a task, so that no request has to stay open while
//! it works and the client can come back for its result, see its status or cancel it.
//! `task_support = "optional"` is all the tool says; its handler is an ordinary tool's.
//! In 2026-07-28 the server makes the call a task when the client declares the tasks
//! extension (mcpwire's client does); at 2025-11-25 when the client asks for one in
//! `params.task` (mcpwire's `start_tool_call` does for a tool that allows tasks, its
//! `call_tool` only for one that requires them: otherwise the same handler runs in the
//! call). `call_tool` follows a task to its end.
//!
//! Inside the task, `ctx.elicit_form` parks it in `input_required` until the client
//! answers (through the client's elicitation callback, as in a plain call), and
//! `ctx.cancellation()` fires when the client cancels the task. Progress reaches a 2025
//! client; a 2026 task sends no notifications (the client polls its status). Served over
//! stdio; the `client` example answers the form.
//!
//! ```sh
//! cargo build -p mcpwire --examples
//! target/debug/examples/client target/debug/examples/tasks build_report '{"pages":3}'
//! target/debug/examples/client --era 2025 target/debug/examples/tasks build_report '{"pages":3}'
//! ```

use std::time::Duration;

use mcpwire::server::{Ctx, Elicited, Server, ToolError};
use mcpwire::McpError;
use schemars::JsonSchema;
use serde::Deserialize;

/// The form the user fills before the report is written.
#[derive(Deserialize, JsonSchema)]
struct Cover {
    /// The report's title.
    title: String,
}

/// Builds a report of `pages` pages, one every 100 ms, after asking for its title.
#[mcpwire::tool(task_support = "optional")]
async fn build_report(ctx: Ctx, pages: u32) -> Result<Result<String, ToolError>, McpError> {
    let title = match ctx.elicit_form::<Cover>("What title should the report have?").await? {
        Elicited::Accepted(cover) => cover.title,
        Elicited::Declined | Elicited::Cancelled => return Ok(Err(ToolError::new("no title, no report"))),
    };
    for page in 1..=pages {
        tokio::select! {
            () = ctx.cancellation().cancelled() => return Ok(Err(ToolError::new("cancelled"))),
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
        ctx.progress(f64::from(page), Some(f64::from(pages)), Some(&format!("page {page} of {pages}"))).await;
    }
    let place = ctx.task_id().map_or("in the call".to_owned(), |id| format!("in task {id}"));
    Ok(Ok(format!("report \"{title}\": {pages} pages, written {place}")))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("tasks-example", "1.0.0")
        .register_all(mcpwire::definitions![build_report])
        .build()?;
    server.serve_stdio().await;
    Ok(())
}
