//! The everything server's task fixtures (the `tasks-*` scenarios of the suite's
//! extension leg, SEP-2663): a plain tool, tools that run as tasks when the client
//! allows or always, and tasks that ask for input, fail, or are cancelled.

use std::time::Duration;

use mcpwire::protocol::elicitation::ElicitRequestParams;
use mcpwire::server::tasks::TaskSupport;
use mcpwire::server::{tool, Args, Ctx, ServerBuilder, ToolError};
use mcpwire::McpError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::forms::{answer_text, form};

#[derive(Deserialize, JsonSchema)]
struct NameArg {
    /// Who to greet.
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct ComputeArgs {
    /// How long the computation takes, in seconds (0: at once).
    #[serde(default)]
    seconds: f64,
    /// A label echoed in the result.
    #[serde(default)]
    label: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct FileArg {
    /// The file to delete.
    filename: String,
}

/// A form asking for one field.
fn ask(message: &str, field: &str, kind: &str) -> ElicitRequestParams {
    form(message, json!({ field: { "type": kind } }), &[field])
}

/// Sleeps `seconds`, or fails when the task is cancelled first.
async fn work(ctx: &Ctx, seconds: f64) -> Result<(), McpError> {
    let duration = Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or(Duration::from_secs(3600));
    tokio::select! {
        () = tokio::time::sleep(duration) => Ok(()),
        () = ctx.cancellation().cancelled() => Err(McpError::internal("cancelled")),
    }
}

/// Registers the task fixtures.
pub fn task_tools(b: ServerBuilder) -> ServerBuilder {
    b.tool(
        tool("greet")
            .description("Greets someone (never a task)")
            .handler(|Args(NameArg { name }): Args<NameArg>| format!("Hello, {name}!")),
    )
    .tool(
        tool("slow_compute")
            .description("Sleeps for `seconds`, then answers; a task when the client allows")
            .task_support(TaskSupport::Optional)
            .handler(|ctx: Ctx, Args(a): Args<ComputeArgs>| async move {
                work(&ctx, a.seconds).await?;
                Ok::<_, McpError>(format!("Computed {} after {}s", a.label.unwrap_or_default(), a.seconds))
            }),
    )
    .tool(
        tool("failing_job")
            .description("A task that reports a tool error after about a second")
            .task_support(TaskSupport::Required)
            .handler(|ctx: Ctx| async move {
                work(&ctx, 1.0).await?;
                Ok::<Result<String, ToolError>, McpError>(Err(ToolError::new("The job failed")))
            }),
    )
    .tool(
        tool("protocol_error_job")
            .description("A task that fails with a protocol error")
            .task_support(TaskSupport::Required)
            .handler(|ctx: Ctx| async move {
                work(&ctx, 0.2).await?;
                Err::<String, _>(McpError::internal("the job hit an internal failure"))
            }),
    )
    .tool(
        tool("confirm_delete")
            .description("A task that asks the user to confirm before deleting a file")
            .task_support(TaskSupport::Optional)
            .handler(|ctx: Ctx, Args(FileArg { filename }): Args<FileArg>| async move {
                let answer = ctx
                    .elicit_as("confirm", ask(&format!("Delete {filename}?"), "confirm", "boolean"))
                    .await?;
                Ok::<_, McpError>(match answer_text(&answer, "confirm").as_str() {
                    "true" => format!("Deleted {filename}"),
                    _ => format!("Kept {filename}"),
                })
            }),
    )
    .tool(
        tool("multi_input")
            .description("A task that asks two questions at once")
            .task_support(TaskSupport::Optional)
            .handler(|ctx: Ctx| async move {
                let (first, second) = tokio::join!(
                    ctx.elicit_as("first", ask("First name?", "name", "string")),
                    ctx.elicit_as("second", ask("Second name?", "name", "string")),
                );
                Ok::<_, McpError>(format!(
                    "Got {} and {}",
                    answer_text(&first?, "name"),
                    answer_text(&second?, "name")
                ))
            }),
    )
    .tool(
        tool("test_tool_with_task")
            .description("Asks the user's name (input_required), then greets them from a task")
            .task_support(TaskSupport::Required)
            .input_before_task(|ctx: Ctx| async move {
                ctx.elicit_as("user_name", ask("What is your name?", "name", "string")).await.map(drop)
            })
            .handler(|ctx: Ctx| async move {
                let answer = ctx.elicit_as("user_name", ask("What is your name?", "name", "string")).await?;
                work(&ctx, 0.5).await?;
                Ok::<_, McpError>(format!("Hello from a task, {}!", answer_text(&answer, "name")))
            }),
    )
}
