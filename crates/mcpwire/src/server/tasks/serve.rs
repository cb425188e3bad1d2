//! How the server answers with tasks: whether a `tools/call` runs as one, creating it and
//! starting its handler, and the 2026 extension's `tasks/get`, `tasks/update` and
//! `tasks/cancel`.

use mcpwire_protocol::capabilities::ClientCapabilities;
use mcpwire_protocol::lifecycle::RequestEnvelope;
use mcpwire_protocol::tasks_ext::{
    CancelTaskRequestParams, CreateTaskResult, GetTaskRequestParams, UpdateTaskRequestParams,
};
use mcpwire_protocol::tools::TaskSupport;
use mcpwire_protocol::{codes, meta, methods, ResultType};
use serde_json::json;
use serde_json::value::RawValue;

use super::super::context::{Ctx, EraInfo};
use super::super::reply::Reply;
use super::super::router::parse;
use super::super::tool::ToolDef;
use super::super::Server;
use crate::error::McpError;

/// `-32021`: the call needs a task and the client did not declare the extension.
pub(crate) fn tasks_extension_required() -> McpError {
    McpError::new(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability")
        .with_data(json!({ "requiredCapabilities": { "extensions": { meta::TASKS_EXTENSION: {} } } }))
}

/// Whether a 2026 request declared the tasks extension.
fn declared(caps: &ClientCapabilities) -> bool {
    caps.supports_tasks_extension()
}

impl Server {
    /// Whether this call of `def` runs as a task: on a 2026 request, when the tool supports
    /// tasks and the request declared the extension (a tool that requires one, from a
    /// client that did not declare it, is `-32021`).
    pub(crate) fn runs_as_task(&self, def: &ToolDef, ctx: &Ctx) -> Result<bool, McpError> {
        let EraInfo::Stateless(info) = &ctx.inner.era else { return Ok(false) };
        let declared = declared(&info.envelope.client_capabilities);
        match def.task_support {
            TaskSupport::Required if !declared => Err(tasks_extension_required()),
            TaskSupport::Required | TaskSupport::Optional => Ok(declared),
            _ => Ok(false),
        }
    }

    /// Creates the task of a call (stored before the answer goes out) and starts its
    /// handler; the answer is the task.
    pub(crate) async fn start_tool_task(
        &self,
        def: &ToolDef,
        ctx: Ctx,
        arguments: Option<&RawValue>,
    ) -> Result<Reply, McpError> {
        let tasks = &self.inner.tasks;
        let (record, link) = tasks.create(None, None).await?;
        let _ = ctx.inner.task.set(link.clone());
        let arguments = arguments.map(ToOwned::to_owned);
        tasks.spawn(link, record.ttl, def.call_owned(ctx, arguments));
        let created = CreateTaskResult::new(record.ext_task());
        Ok(Reply::Custom(serde_json::to_value(created)?))
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of the 2026 extension (`-32021`
    /// when the request did not declare it).
    pub(crate) async fn serve_task_method(
        &self,
        envelope: &RequestEnvelope,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Reply, McpError> {
        if !declared(&envelope.client_capabilities) {
            return Err(tasks_extension_required());
        }
        let tasks = &self.inner.tasks;
        match method {
            methods::TASKS_GET => {
                let p: GetTaskRequestParams = parse(params)?;
                let mut detailed = tasks.get(&p.task_id).await?.detailed();
                detailed.result_type = Some(ResultType::Complete);
                Ok(Reply::Custom(serde_json::to_value(detailed)?))
            }
            methods::TASKS_UPDATE => {
                let p: UpdateTaskRequestParams = parse(params)?;
                tasks.answer(&p.task_id, p.input_responses).await?;
                Ok(Reply::Empty)
            }
            methods::TASKS_CANCEL => {
                let p: CancelTaskRequestParams = parse(params)?;
                tasks.cancel(&p.task_id).await?;
                Ok(Reply::Empty)
            }
            other => Err(McpError::method_not_found(other)),
        }
    }
}
