//! How the server answers with tasks: whether a `tools/call` runs as one, creating it and
//! starting its handler, and the 2026 extension's `tasks/get`, `tasks/update` and
//! `tasks/cancel`.

use mcpwire_protocol::capabilities::ClientCapabilities;
use mcpwire_protocol::lifecycle::RequestEnvelope;
use mcpwire_protocol::mrtr::InputResponses;
use mcpwire_protocol::tasks::{
    CreateTaskResult as CoreCreateTaskResult, TaskMetadata, TaskStatusNotificationParams,
};
use mcpwire_protocol::tasks_ext::{
    CancelTaskRequestParams, CreateTaskResult, GetTaskRequestParams, UpdateTaskRequestParams,
};
use mcpwire_protocol::tools::{TaskSupport, Tool, ToolExecution};
use mcpwire_protocol::{codes, meta, methods, ProtocolVersion, ResultType};
use serde_json::json;
use serde_json::value::RawValue;
use std::sync::{Arc, Weak};
use std::time::Duration;

use super::super::context::{Ctx, EraInfo};
use super::super::params::parse;
use super::super::reply::Reply;
use super::super::router::Seed;
use super::super::session_info::SessionInfo;
use super::super::stateless::in_2026_terms;
use super::super::tool::ToolDef;
use super::super::Server;
use super::runtime::StatusHook;
use super::TaskRecord;
use crate::error::McpError;

/// `-32021`: the call needs a task and the client did not declare the extension.
pub(crate) fn tasks_extension_required() -> McpError {
    McpError::new(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability")
        .with_data(json!({ "requiredCapabilities": { "extensions": { meta::TASKS_EXTENSION: {} } } }))
}

/// Who may see a 2026 task: with an authenticated request, only its principal (the
/// spec's tasks bind to the authorization context when there is one); without, anyone
/// holding the id (`None`). (A 2025 task is its session's, whose owner is a number: the
/// prefix keeps the two apart.)
pub(crate) fn stateless_owner(rpc: &crate::jsonrpc::RequestContext) -> Option<String> {
    let principal = rpc.extensions().get::<crate::extensions::Principal>()?;
    Some(format!("principal:{}", principal.0))
}

/// Whether a 2026 request declared the tasks extension.
fn declared(caps: &ClientCapabilities) -> bool {
    caps.supports_tasks_extension()
}

/// Whether a 2025 session speaks core tasks (2025-11-25 on).
pub(crate) fn has_core_tasks(version: &ProtocolVersion) -> bool {
    version.is_at_least(&ProtocolVersion::V2025_11_25)
}

/// Whether `session` offers core tasks: at 2025-11-25 on, unless it is a session-less
/// request's (a task it created could never be polled).
pub(crate) fn session_has_core_tasks(session: &SessionInfo) -> bool {
    session.offers_tasks && has_core_tasks(&session.version)
}

/// `-32601` for a call that breaks a tool's `execution.taskSupport` (2025-11-25).
fn task_support_violation(def: &ToolDef, wanted: bool) -> McpError {
    let how = if wanted { "must not be called as a task" } else { "must be called as a task" };
    McpError::new(codes::METHOD_NOT_FOUND, format!("Tool {} {how}", def.tool.name))
}

/// Sends a 2025 session `notifications/tasks/status` on each change of its task (while
/// the session lives; a session that reads nothing misses them, as the spec allows).
fn status_notifier(session: Weak<SessionInfo>) -> StatusHook {
    Box::new(move |record: &TaskRecord| {
        let Some(session) = session.upgrade() else { return };
        let params = TaskStatusNotificationParams { task: record.core_task(), meta: None };
        session.push(methods::NOTIFICATION_TASKS_STATUS, serde_json::value::to_raw_value(&params).ok());
    })
}

/// The answers a 2026 call brings into its task, moved out of its context (so that
/// the task's asks take them one by one, and let each go once taken); copied if the
/// context is shared still (something the tool's `input_before_task` started holds it).
fn carried_answers(ctx: &mut Ctx) -> InputResponses {
    match Arc::get_mut(&mut ctx.inner).map(|inner| &mut inner.era) {
        Some(EraInfo::Stateless(info)) => std::mem::take(&mut info.responses),
        None => match &ctx.inner.era {
            EraInfo::Stateless(info) => info.responses.clone(),
            EraInfo::Stateful(_) => InputResponses::new(),
        },
        Some(EraInfo::Stateful(_)) => InputResponses::new(),
    }
}

impl Server {
    /// Whether this call of `def` runs as a task. 2026: when the tool supports tasks and
    /// the request declared the extension (a required task from a client that did not
    /// is `-32021`). 2025-11-25: when the call carries `params.task`; a task for a tool
    /// that forbids them, or none for one that requires it, is `-32601`.
    pub(crate) fn runs_as_task(
        &self,
        def: &ToolDef,
        ctx: &Ctx,
        task: Option<&TaskMetadata>,
    ) -> Result<bool, McpError> {
        let supported = !matches!(def.task_support, TaskSupport::Forbidden);
        let required = matches!(def.task_support, TaskSupport::Required);
        match &ctx.inner.era {
            EraInfo::Stateless(info) => {
                let declared = declared(&info.envelope.client_capabilities);
                if required && !declared {
                    return Err(tasks_extension_required());
                }
                Ok(supported && declared)
            }
            // A server that declares no tasks capability (no tool of it runs as a task)
            // processes the call normally, ignoring `params.task`.
            EraInfo::Stateful(session) if self.inner.tasks_enabled && session_has_core_tasks(session) => {
                match task {
                    Some(_) if !supported => Err(task_support_violation(def, true)),
                    None if required => Err(task_support_violation(def, false)),
                    wanted => Ok(wanted.is_some()),
                }
            }
            EraInfo::Stateful(_) => Ok(false),
        }
    }

    /// A tool as `tools/list` shows it: with `execution.taskSupport` on a 2025-11-25
    /// session (2026 has no such member).
    pub(crate) fn listed_tool(&self, def: &ToolDef, seed: &Seed) -> Tool {
        let mut tool = def.tool.clone();
        if let Seed::Stateful(session) = seed {
            if session_has_core_tasks(session) && !matches!(def.task_support, TaskSupport::Forbidden) {
                tool.execution = Some(ToolExecution { task_support: Some(def.task_support.clone()) });
            }
        }
        tool
    }

    /// Creates the task of a call (stored before the answer goes out) and starts its
    /// handler; the answer is the task, in the era's shape.
    pub(crate) async fn start_tool_task(
        &self,
        def: &ToolDef,
        mut ctx: Ctx,
        arguments: Option<&RawValue>,
        wanted: Option<TaskMetadata>,
    ) -> Result<Reply, McpError> {
        let tasks = &self.inner.tasks;
        let owner = match &ctx.inner.era {
            EraInfo::Stateful(session) => Some(session.task_owner().to_string()),
            EraInfo::Stateless(_) => stateless_owner(&ctx.inner.rpc),
        };
        let ttl = wanted.and_then(|t| t.ttl).map(Duration::from_millis);
        let on_status = match &ctx.inner.era {
            EraInfo::Stateful(session) => Some(status_notifier(Arc::downgrade(session))),
            EraInfo::Stateless(_) => None,
        };
        let (record, link) = tasks.create(owner.clone(), ttl, on_status, carried_answers(&mut ctx)).await?;
        let _ = ctx.inner.task.set(link.clone());
        let arguments = arguments.map(ToOwned::to_owned);
        // A 2025 task is its session's alone (no other session sees it): when the
        // session's connection ends, nobody can read its result, so it stops.
        let session_end = match &ctx.inner.era {
            EraInfo::Stateful(session) => Some(session.peer.clone()),
            EraInfo::Stateless(_) => None,
        };
        // A 2026 task's error is a 2026 error, in that era's terms as a request's is
        // (`Server::layered`): a task that fails never carries `-32002` or `-32042`.
        let in_2026 = session_end.is_none();
        let call = def.call_owned(ctx, arguments);
        let call = async move { call.await.map_err(|e| if in_2026 { in_2026_terms(e) } else { e }) };
        tasks.spawn(link, record.ttl, session_end.clone(), call);
        let created = match session_end {
            Some(_) => serde_json::to_value(CoreCreateTaskResult { task: record.core_task(), meta: None })?,
            None => serde_json::to_value(CreateTaskResult::new(record.ext_task()))?,
        };
        Ok(Reply::Custom(created))
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of the 2026 extension (`-32021`
    /// when the request did not declare it).
    pub(crate) async fn serve_task_method(
        &self,
        envelope: &RequestEnvelope,
        rpc: &crate::jsonrpc::RequestContext,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Reply, McpError> {
        if !declared(&envelope.client_capabilities) {
            return Err(tasks_extension_required());
        }
        let tasks = &self.inner.tasks;
        let owner = stateless_owner(rpc);
        let owner = owner.as_deref();
        match method {
            methods::TASKS_GET => {
                let p: GetTaskRequestParams = parse(params)?;
                let mut detailed = tasks.get_owned(&p.task_id, owner).await?.detailed();
                detailed.result_type = Some(ResultType::Complete);
                Ok(Reply::Custom(serde_json::to_value(detailed)?))
            }
            methods::TASKS_UPDATE => {
                let p: UpdateTaskRequestParams = parse(params)?;
                tasks.get_owned(&p.task_id, owner).await?;
                tasks.update(&p.task_id, p.input_responses).await?;
                Ok(Reply::Empty)
            }
            methods::TASKS_CANCEL => {
                let p: CancelTaskRequestParams = parse(params)?;
                tasks.get_owned(&p.task_id, owner).await?;
                tasks.cancel(&p.task_id).await?;
                Ok(Reply::Empty)
            }
            other => Err(McpError::method_not_found(other)),
        }
    }
}
