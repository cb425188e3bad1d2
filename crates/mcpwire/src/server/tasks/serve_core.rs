//! The 2025-11-25 core task methods on a session: `tasks/get`, `tasks/list`,
//! `tasks/cancel` and `tasks/result`, which waits for the task to finish and, while the
//! task waits for input, asks the client its questions on this request (each marked
//! with the `related-task` `_meta`).

use std::collections::HashSet;
use std::time::{Duration, SystemTime};

use mcpwire_protocol::capabilities::{ServerTaskRequests, ServerTasksCapability, TaskToolsRequests};
use mcpwire_protocol::mrtr::{InputRequest, InputResponse, InputResponses};
use mcpwire_protocol::tasks::TaskStatus;
use mcpwire_protocol::tasks::{
    CancelTaskRequestParams, GetTaskPayloadRequestParams, GetTaskRequestParams, GetTaskResult,
    ListTasksRequestParams, ListTasksResult,
};
use mcpwire_protocol::tasks_ext::TaskState;
use mcpwire_protocol::{codes, meta, methods};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::super::params::parse;
use super::super::reply::Reply;
use super::super::session_info::SessionInfo;
use super::super::Server;
use super::outcome::Read;
use super::runtime::{owned_record, store_error, unknown_task};
use super::{TaskRecord, TaskStore};
use crate::error::McpError;
use crate::jsonrpc::{CallOptions, RequestContext};

/// How often `tasks/result` re-reads a task it has heard nothing about (a change feed
/// that lagged, or a store written by another process).
const RESULT_RECHECK: Duration = Duration::from_secs(1);

/// The `tasks` capability of a 2025-11-25 server whose tools run as tasks.
pub(crate) fn core_capability() -> ServerTasksCapability {
    ServerTasksCapability {
        list: Some(Default::default()),
        cancel: Some(Default::default()),
        requests: Some(ServerTaskRequests {
            tools: Some(TaskToolsRequests { call: Some(Default::default()), ..Default::default() }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `_meta` naming the task a message belongs to (`related-task`, which 2025-11-25 asks
/// for on every message about a task).
pub(crate) fn related_task_meta(task_id: &str) -> meta::Meta {
    meta::Meta::from_iter([(meta::RELATED_TASK.to_owned(), json!({ "taskId": task_id }))])
}

fn core_task_reply(record: &TaskRecord) -> Result<Reply, McpError> {
    Ok(Reply::Custom(core_task_value(record)?))
}

/// A record as `tasks/get` and `tasks/cancel` (2025-11-25) answer it.
pub(crate) fn core_task_value(record: &TaskRecord) -> Result<Value, McpError> {
    Ok(serde_json::to_value(GetTaskResult { task: record.core_task(), meta: None })?)
}

/// One page of `tasks/list` (2025-11-25): at most `limit` of `owner`'s tasks in `store`,
/// after the task `cursor` (which must be one of them: `-32602` otherwise).
pub(crate) async fn core_task_page(
    store: &dyn TaskStore,
    owner: Option<&str>,
    cursor: Option<&str>,
    limit: usize,
) -> Result<ListTasksResult, McpError> {
    if let Some(cursor) = cursor {
        owned_record(store, cursor, owner).await.map_err(|_| McpError::invalid_params("Invalid cursor"))?;
    }
    let mut page = store.list(owner, cursor, limit + 1).await.map_err(store_error)?;
    let more = page.len() > limit;
    page.truncate(limit);
    let next_cursor = more.then(|| page.last().map(|r| r.task_id.clone())).flatten();
    Ok(ListTasksResult { tasks: page.iter().map(TaskRecord::core_task).collect(), next_cursor, meta: None })
}

impl Server {
    /// A 2025-11-25 core task method on `session` (only its own tasks are visible).
    pub(crate) async fn serve_core_task_method(
        &self,
        session: &SessionInfo,
        rpc: &RequestContext,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Reply, McpError> {
        let owner = session.task_owner().to_string();
        let tasks = &self.inner.tasks;
        match method {
            methods::TASKS_GET => {
                let p: GetTaskRequestParams = parse(params)?;
                core_task_reply(&tasks.get_owned(&p.task_id, Some(&owner)).await?)
            }
            methods::TASKS_CANCEL => {
                let p: CancelTaskRequestParams = parse(params)?;
                let before = tasks.get_owned(&p.task_id, Some(&owner)).await?;
                if before.status().is_terminal() {
                    return Err(McpError::invalid_params(format!(
                        "Task {} already finished ({:?})",
                        p.task_id,
                        before.status()
                    )));
                }
                // Finished while the cancel ran (completion won): as terminal as before.
                match tasks.cancel(&p.task_id).await? {
                    Some(after) if after.status() == TaskStatus::Cancelled => core_task_reply(&after),
                    after => Err(McpError::invalid_params(format!(
                        "Task {} already finished ({:?})",
                        p.task_id,
                        after.as_ref().map_or(before.status(), TaskRecord::status)
                    ))),
                }
            }
            methods::TASKS_LIST => {
                let p: ListTasksRequestParams = parse(params)?;
                let limit = self.inner.config.page_size;
                let page = core_task_page(&*tasks.store, Some(&owner), p.cursor.as_deref(), limit).await?;
                Ok(Reply::Custom(serde_json::to_value(page)?))
            }
            methods::TASKS_RESULT => {
                let p: GetTaskPayloadRequestParams = parse(params)?;
                self.task_result(&p.task_id, &owner, rpc).await
            }
            other => Err(McpError::method_not_found(other)),
        }
    }

    /// `tasks/result`: waits until the task finishes and answers with its result (or its
    /// error), marked with `related-task`. While it waits for input, each question is
    /// asked once, on one of the task's `tasks/result` calls, and its answer (or the
    /// client's error) handed to the task.
    async fn task_result(&self, id: &str, owner: &str, rpc: &RequestContext) -> Result<Reply, McpError> {
        let tasks = &self.inner.tasks;
        let mut changes = tasks.subscribe();
        let mut asked = HashSet::new();
        let ended = tasks.ended(id);
        // Once the task has finished, this call and every other one waiting on it then
        // answer with one shared copy of its outcome.
        let shared = tasks.outcomes.slot(id);
        loop {
            let record = match shared.read(tasks.get_owned(id, Some(owner)), finished_payload).await? {
                Read::Finished(finished) => {
                    return finished
                        .answer(Some(owner))
                        .unwrap_or_else(|| Err(unknown_task(id)))
                        .map(Reply::Shared)
                }
                Read::Running(record) => *record,
            };
            let lifetime = time_left(&record);
            if let TaskState::InputRequired { input_requests } = record.state {
                let mut answers = InputResponses::new();
                // Held until the answers are handed over: no other call asks these.
                let mut claims = Vec::new();
                for (key, request) in input_requests {
                    // Claimed first: a question another call is asking may come back to
                    // this one if that call goes away unanswered.
                    let Some(claim) = tasks.claim_question(id, &key).await else { continue };
                    if !asked.insert(key.clone()) {
                        continue;
                    }
                    let asking = ask_client(rpc, id, &request, lifetime);
                    let outcome = match &ended {
                        Some(ended) => tokio::select! {
                            outcome = asking => Some(outcome),
                            () = ended.cancelled() => None,
                        },
                        None => Some(asking.await),
                    };
                    // The task ended meanwhile (cancelled, say): its question needs no
                    // answer (dropped, the request is cancelled), and this call answers
                    // with the task's outcome.
                    let Some(outcome) = outcome else { break };
                    // The client cancelled this call (its question was cancelled with
                    // it): the question stays the task's, unanswered, for the next call to
                    // ask; the answers gathered so far are handed over.
                    if rpc.is_cancelled() {
                        if !answers.is_empty() {
                            tasks.answer(id, answers).await?;
                        }
                        return Err(McpError::new(codes::REQUEST_CANCELLED, "tasks/result was cancelled"));
                    }
                    match outcome {
                        Ok(answer) => {
                            answers.insert(key, answer);
                            claims.push(claim);
                        }
                        // The client answered the question with an error: the task's
                        // handler gets it (and decides the task's outcome, which this call
                        // then answers with).
                        Err(e) => tasks.refuse(id, &key, e).await?,
                    }
                }
                if !answers.is_empty() {
                    tasks.answer(id, answers).await?;
                    drop(claims);
                    continue;
                }
            }
            // Until this task changes (or a while passes: re-read it anyway).
            let _ = tokio::time::timeout(RESULT_RECHECK, async {
                loop {
                    match changes.recv().await {
                        Ok(changed) if changed == id => return,
                        Ok(_) => continue,
                        Err(RecvError::Lagged(_)) | Err(RecvError::Closed) => return,
                    }
                }
            })
            .await;
        }
    }
}

/// What `tasks/result` (2025-11-25) answers for a task whose state is `state`, once it has
/// finished: its result, or its error, marked with `related-task`; `None` while it runs.
pub(crate) fn finished_payload(id: &str, state: TaskState) -> Option<Result<Value, McpError>> {
    match state {
        TaskState::Completed { mut result } => {
            let meta = result.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(m) = meta {
                m.extend(related_task_meta(id));
            }
            Some(Ok(Value::Object(result)))
        }
        TaskState::Failed { mut error } => {
            error.data = Some(match error.data.take() {
                None => json!({ "_meta": related_task_meta(id) }),
                Some(Value::Object(mut data)) => {
                    data.insert("_meta".into(), Value::Object(related_task_meta(id)));
                    Value::Object(data)
                }
                Some(other) => other,
            });
            Some(Err(McpError::from_error_object(error)))
        }
        TaskState::Cancelled => {
            Some(Err(McpError::new(codes::INVALID_PARAMS, format!("Task {id} was cancelled"))
                .with_data(json!({ "taskId": id, "_meta": related_task_meta(id) }))))
        }
        TaskState::Working | TaskState::InputRequired { .. } => None,
    }
}

/// How long the task of `record` has left to live: a question it asks waits for the user
/// that long, not the connection's default request timeout (the client's cancel of
/// `tasks/result` or of the task ends the wait sooner). `None` (a record of no TTL) keeps
/// the default.
fn time_left(record: &TaskRecord) -> Option<Duration> {
    let ttl = record.ttl?;
    Some((record.created_at + ttl).duration_since(SystemTime::now()).unwrap_or(Duration::ZERO))
}

/// Sends one of a task's questions to the client on `rpc`'s request, with `related-task`,
/// waiting for the answer at most `lifetime` (see [`time_left`]), or until the client
/// cancels that request.
async fn ask_client(
    rpc: &RequestContext,
    id: &str,
    request: &InputRequest,
    lifetime: Option<Duration>,
) -> Result<InputResponse, McpError> {
    let call = serde_json::to_value(request)?;
    let method = call["method"]
        .as_str()
        .ok_or_else(|| McpError::internal("an input request without a method"))?
        .to_owned();
    let mut params = match call.get("params") {
        Some(Value::Object(p)) => p.clone(),
        _ => Default::default(),
    };
    params.insert("_meta".into(), Value::Object(related_task_meta(id)));
    let raw = serde_json::value::to_raw_value(&params)?;
    let options =
        CallOptions { timeout: lifetime, cancel: Some(rpc.cancellation().clone()), ..Default::default() };
    let answer = rpc.request(&method, Some(raw), options).await?;
    Ok(serde_json::from_str(answer.get())?)
}
