//! Tool calls that the server runs as tasks, in both eras. [`Client::call_tool`] follows
//! a task to its end by itself: it polls at the server's suggested interval, answers the
//! task's questions through the client's elicitation and sampling callbacks, reports
//! each status to the call's progress callback, and cancels the task when the call is
//! dropped, times out or is cancelled. The lower-level calls here start, inspect, answer,
//! cancel and list tasks one request at a time.
//!
//! 2026-07-28 (extension `io.modelcontextprotocol/tasks`, declared on every request of a
//! 2026 client): the server decides; `tasks/get` shows the result and any questions,
//! `tasks/update` answers them. 2025-11-25 (core tasks): the client asks with
//! `params.task`; questions arrive as server requests during `tasks/result`, which also
//! returns the result.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use mcpwire_protocol::mrtr::InputResponses;
use mcpwire_protocol::tasks::{GetTaskResult, ListTasksResult, Task as CoreTask, TaskStatus};
use mcpwire_protocol::tasks_ext::{CreateTaskResult, DetailedTask, Task, TaskState};
use mcpwire_protocol::tools::{CallToolResult, TaskSupport, Tool};
use mcpwire_protocol::{methods, Era, ProtocolVersion, RawJson};
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{Client, RequestOptions};
use crate::error::RequestError;
use crate::jsonrpc::ProgressUpdate;

/// A server's suggested polling interval is honoured within these bounds (a server that
/// suggests 0 would otherwise be asked a hundred times a second).
const MIN_POLL: Duration = Duration::from_millis(100);
const MAX_POLL: Duration = Duration::from_secs(30);
/// The interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// How many times one request of a followed task (`tasks/get`, `tasks/result`,
/// `tasks/update`) that failed on the way ([`on_the_way`]) is sent again before the
/// follower gives up: the task is still on the server, and one lost request must not end
/// the call. Each try waits twice as long as the one before, from the poll interval.
const MAX_RESENDS: u32 = 3;

/// How a tool call began: with its result, or as a task on the server.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolCallStart {
    /// The server answered at once.
    Done(CallToolResult),
    /// The server runs the call as a task; follow it with [`Client::get_task`] or
    /// [`Client::wait_task`].
    Task(Task),
}

/// The `execution.taskSupport` of a 2025-11-25 server's tools, learned from `tools/list`.
#[derive(Debug, Default)]
pub(crate) struct TaskTools {
    support: Mutex<Support>,
}

/// Each tool's task support, and the bytes of the pages it was learned from.
#[derive(Debug, Default)]
struct Support {
    by_name: HashMap<String, TaskSupport>,
    page_bytes: usize,
}

/// Bytes of `tools/list` pages whose tools' task support is kept at most (as much as one
/// listing reads): past it, what was learned before is forgotten (and learned again from
/// a new listing when a tool is called), so that a server listing other tools at every
/// listing cannot make the client keep ever more names.
const MAX_LEARNED_BYTES: usize = 64 * 1024 * 1024;

impl TaskTools {
    fn lock(&self) -> std::sync::MutexGuard<'_, Support> {
        self.support.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Learns the task support of a page of listed tools, `page_bytes` long as it came.
    pub(crate) fn learn(&self, tools: &[Tool], page_bytes: usize) {
        let mut support = self.lock();
        if support.page_bytes.saturating_add(page_bytes) > MAX_LEARNED_BYTES {
            *support = Support::default();
        }
        support.page_bytes = support.page_bytes.saturating_add(page_bytes);
        for tool in tools {
            let s = tool.execution.as_ref().and_then(|e| e.task_support.clone());
            support.by_name.insert(tool.name.clone(), s.unwrap_or(TaskSupport::Forbidden));
        }
    }

    /// Forgets what it learned (the tool list changed): each tool's support is learned
    /// again from `tools/list` before its next call.
    pub(crate) fn forget(&self) {
        *self.lock() = Support::default();
    }

    fn get(&self, name: &str) -> Option<TaskSupport> {
        self.lock().by_name.get(name).cloned()
    }
}

/// Sends `tasks/cancel` for a task whose follower goes away before its end (the call
/// was dropped, timed out, or failed: an answer it could not read, say).
struct CancelOnDrop {
    client: Client,
    task_id: Option<String>,
}

impl CancelOnDrop {
    /// The task ended, or was cancelled already: nothing to do when this goes.
    fn disarm(&mut self) {
        self.task_id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(task_id) = self.task_id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let client = self.client.clone();
        runtime.spawn(async move {
            if let Err(e) = client.cancel_task(&task_id).await {
                tracing::debug!(task = %task_id, "could not cancel an abandoned task: {e}");
            }
        });
    }
}

fn decode<T: serde::de::DeserializeOwned>(raw: &RawJson) -> Result<T, RequestError> {
    serde_json::from_str(raw.get()).map_err(RequestError::InvalidResult)
}

/// `Err` when the server answered about another task than the one asked about.
fn same_task(asked: &str, answered: &str) -> Result<(), RequestError> {
    if asked == answered {
        return Ok(());
    }
    Err(RequestError::Protocol(format!(
        "asked about task {asked:?}, the server answered about task {answered:?}"
    )))
}

/// `Err` when a `tasks/result` names another task in its `related-task` `_meta` (which
/// 2025-11-25 requires on it; one without it is taken as about the task asked).
fn related_to(asked: &str, result: &RawJson) -> Result<(), RequestError> {
    #[derive(serde::Deserialize)]
    struct Related {
        #[serde(rename = "taskId")]
        task_id: String,
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "io.modelcontextprotocol/related-task")]
        related: Option<Related>,
    }
    #[derive(serde::Deserialize)]
    struct WithMeta {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    let named = serde_json::from_str::<WithMeta>(result.get()).ok().and_then(|r| r.meta?.related);
    named.map_or(Ok(()), |related| same_task(asked, &related.task_id))
}

fn task_params(task_id: &str) -> Map<String, Value> {
    let mut params = Map::new();
    params.insert("taskId".into(), Value::String(task_id.to_owned()));
    params
}

/// Whether a request failed on the way rather than at the server: it was never sent (no
/// room for it within its limit), or the transport lost it (a broken connection, an
/// answer that could not be read). Sending it again may succeed. A timeout is not one
/// (a 2025 `tasks/result` waits for the task's end, and a timed-out one is polled again
/// anyway), nor a closed connection.
fn on_the_way(error: &RequestError) -> bool {
    matches!(error, RequestError::NotSent { .. } | RequestError::Transport { .. })
}

/// The server's suggested interval, within bounds.
fn poll_interval(ms: Option<u64>) -> Duration {
    ms.map_or(DEFAULT_POLL, Duration::from_millis).clamp(MIN_POLL, MAX_POLL)
}

/// A 2025 task in the 2026 shape (the two carry the same facts under other names).
fn from_core(task: CoreTask) -> Task {
    Task {
        task_id: task.task_id,
        status: task.status,
        status_message: task.status_message,
        created_at: task.created_at,
        last_updated_at: task.last_updated_at,
        ttl_ms: task.ttl,
        poll_interval_ms: task.poll_interval,
    }
}

fn cancelled() -> RequestError {
    RequestError::Cancelled { method: methods::TOOLS_CALL.to_owned() }
}

/// A task that ended cancelled while this call followed it, not by this call (the
/// server, or another client holding its id, cancelled it): the server's `-32800`, not
/// [`RequestError::Cancelled`], which says the caller cancelled.
fn cancelled_elsewhere(id: &str) -> RequestError {
    let error = mcpwire_protocol::ErrorObject::new(
        mcpwire_protocol::codes::REQUEST_CANCELLED,
        format!("task {id} was cancelled, not by this call (by the server, or another client)"),
    );
    RequestError::Peer(error)
}

/// Tells the call's progress callback the task's status.
fn report(options: &RequestOptions, polls: u32, task: &Task) {
    let Some(on_progress) = &options.on_progress else { return };
    let status = serde_json::to_value(task.status).ok();
    let status = status.as_ref().and_then(Value::as_str).unwrap_or("unknown");
    let message = match &task.status_message {
        Some(m) => format!("task {}: {status} ({m})", task.task_id),
        None => format!("task {}: {status}", task.task_id),
    };
    on_progress(ProgressUpdate { progress: f64::from(polls), total: None, message: Some(message) });
}

impl Client {
    /// Whether this is a 2025-11-25 connection to a server that runs tool calls as tasks.
    fn core_tasks(&self) -> bool {
        // The version and the capabilities of one session's answer.
        self.inner.initialized().is_some_and(|session| {
            session.protocol_version.is_at_least(&ProtocolVersion::V2025_11_25)
                && session
                    .capabilities
                    .tasks
                    .as_ref()
                    .and_then(|t| t.requests.as_ref())
                    .and_then(|r| r.tools.as_ref())
                    .is_some_and(|t| t.call.is_some())
        })
    }

    /// A 2025-11-25 tool's task support (the tool list is fetched once if the tool is
    /// not known yet); `None` without core tasks.
    async fn core_task_support(&self, name: &str) -> Option<TaskSupport> {
        if !self.core_tasks() {
            return None;
        }
        self.inner.forget_tools_of_replaced_sessions();
        if let Some(support) = self.inner.task_tools.get(name) {
            return Some(support);
        }
        let _ = self.list_all_tools().await;
        self.inner.task_tools.get(name)
    }

    /// `tools/call` as a 2025-11-25 task when the tool requires one (or, with
    /// `optional_too`, allows one): the created task; `None` to call it plainly.
    pub(crate) async fn start_core_task(
        &self,
        params: &Map<String, Value>,
        options: &RequestOptions,
        optional_too: bool,
    ) -> Result<Option<Task>, RequestError> {
        let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
        let wanted = match self.core_task_support(name).await {
            Some(TaskSupport::Required) => true,
            Some(TaskSupport::Optional) => optional_too,
            _ => false,
        };
        if !wanted {
            return Ok(None);
        }
        let mut params = params.clone();
        params.insert("task".into(), json!({}));
        let (_, raw) = self.send(methods::TOOLS_CALL, params, options).await?;
        let created: mcpwire_protocol::tasks::CreateTaskResult = decode(&raw)?;
        Ok(Some(from_core(created.task)))
    }

    /// Starts a tool call without following the task it may become: its result, or the
    /// task (2026: when the server makes it one; 2025-11-25: when the tool supports one).
    pub async fn start_tool_call(
        &self,
        name: &str,
        arguments: impl Serialize,
        options: RequestOptions,
    ) -> Result<ToolCallStart, RequestError> {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name.to_owned()));
        params.insert("arguments".into(), serde_json::to_value(arguments).map_err(RequestError::Encode)?);
        if let Some(task) = self.start_core_task(&params, &options, true).await? {
            return Ok(ToolCallStart::Task(task));
        }
        let raw = self.send_with_input(methods::TOOLS_CALL, params, &options).await?;
        match super::is_task_result(&raw)? {
            true => Ok(ToolCallStart::Task(decode::<CreateTaskResult>(&raw)?.task)),
            false => Ok(ToolCallStart::Done(decode(&raw)?)),
        }
    }

    /// The state of a task. 2026: everything `tasks/get` says, outstanding questions
    /// included. 2025-11-25: a finished task's result is fetched with `tasks/result`;
    /// its questions are asked only during `tasks/result`, so `inputRequests` is empty.
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, RequestError> {
        let options = RequestOptions::default();
        let (_, raw) = self.send(methods::TASKS_GET, task_params(task_id), &options).await?;
        if self.era() == Era::Stateless {
            let detailed: DetailedTask = decode(&raw)?;
            same_task(task_id, &detailed.task_id)?;
            return Ok(detailed);
        }
        let task = from_core(decode::<GetTaskResult>(&raw)?.task);
        same_task(task_id, &task.task_id)?;
        let state = match task.status {
            TaskStatus::Working => TaskState::Working,
            TaskStatus::InputRequired => TaskState::InputRequired { input_requests: Default::default() },
            TaskStatus::Cancelled => TaskState::Cancelled,
            TaskStatus::Completed | TaskStatus::Failed => {
                match self.core_task_result(task_id, &options).await {
                    Ok(raw) => TaskState::Completed { result: decode(&raw)? },
                    Err(RequestError::Peer(error)) => TaskState::Failed { error },
                    Err(other) => return Err(other),
                }
            }
        };
        Ok(DetailedTask::new(task, state))
    }

    /// Answers a 2026 task's questions (`tasks/update`; unknown keys are ignored).
    pub async fn update_task(&self, task_id: &str, responses: InputResponses) -> Result<(), RequestError> {
        if self.era() != Era::Stateless {
            return Err(RequestError::Protocol(
                "tasks/update is 2026-07-28 only: a 2025 task asks during tasks/result".into(),
            ));
        }
        let mut params = task_params(task_id);
        params
            .insert("inputResponses".into(), serde_json::to_value(responses).map_err(RequestError::Encode)?);
        self.send(methods::TASKS_UPDATE, params, &RequestOptions::default()).await.map(drop)
    }

    /// Asks the server to cancel a task (`tasks/cancel`).
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), RequestError> {
        self.send(methods::TASKS_CANCEL, task_params(task_id), &RequestOptions::default()).await.map(drop)
    }

    /// One page of this session's tasks (`tasks/list`, 2025-11-25 only: 2026 has none).
    pub async fn list_tasks(&self, cursor: Option<&str>) -> Result<ListTasksResult, RequestError> {
        self.tasks_page(cursor).await.map(|(page, _)| page)
    }

    /// One page of `tasks/list` and its size in bytes as it came.
    async fn tasks_page(&self, cursor: Option<&str>) -> Result<(ListTasksResult, usize), RequestError> {
        if self.era() != Era::Stateful {
            return Err(RequestError::Protocol(
                "tasks/list does not exist in the 2026-07-28 revision".into(),
            ));
        }
        let mut params = Map::new();
        if let Some(cursor) = cursor {
            params.insert("cursor".into(), Value::String(cursor.to_owned()));
        }
        let raw = self.send(methods::TASKS_LIST, params, &RequestOptions::default()).await?.1;
        Ok((decode(&raw)?, raw.get().len()))
    }

    /// Every task of this session, following the cursors (2025-11-25 only).
    pub async fn list_all_tasks(&self) -> Result<Vec<CoreTask>, RequestError> {
        super::calls::every_page(|cursor| async move {
            let (page, size) = self.tasks_page(cursor.as_deref()).await?;
            Ok((page.tasks, page.next_cursor, size))
        })
        .await
    }

    /// Follows a task to its end and returns the tool's result (see the module docs).
    pub async fn wait_task(
        &self,
        task: &Task,
        options: RequestOptions,
    ) -> Result<CallToolResult, RequestError> {
        decode(&self.follow_task(task, &options, tokio::time::Instant::now()).await?)
    }

    /// `tasks/result` (2025-11-25): waits for the end; the task's questions arrive as
    /// server requests meanwhile and go to the callbacks.
    async fn core_task_result(
        &self,
        task_id: &str,
        options: &RequestOptions,
    ) -> Result<RawJson, RequestError> {
        // It waits for the task's end: the call's whole limit bounds it.
        let options = RequestOptions {
            timeout: options.whole_call_limit(),
            cancel: options.cancel.clone(),
            ..Default::default()
        };
        let (_, raw) = self.send(methods::TASKS_RESULT, task_params(task_id), &options).await?;
        related_to(task_id, &raw)?;
        Ok(raw)
    }

    /// Follows a task to its end: the raw tool result, telling the call's
    /// [`on_task`](RequestOptions::on_task) first. The call's timeout (if it has
    /// one; its maximum when progress starts the timeout again), counted from `started`
    /// (when the call that became the task began), bounds it; without one,
    /// the TTL the task was created with does (counted from its arrival; a task the
    /// server keeps working past it would otherwise be waited for without end). A request
    /// about the task that fails on the way (never sent, or lost by the transport) is
    /// sent again, a few times, before the call gives up: the task goes on meanwhile.
    /// Dropped, timed out, cancelled or failed before the task's end (an answer that
    /// cannot be read, a question that could not be answered), the task is cancelled on
    /// the server: nobody follows it any more.
    pub(crate) async fn follow_task(
        &self,
        task: &Task,
        options: &RequestOptions,
        started: tokio::time::Instant,
    ) -> Result<RawJson, RequestError> {
        let mut guard = CancelOnDrop { client: self.clone(), task_id: Some(task.task_id.clone()) };
        if let Some(on_task) = &options.on_task {
            on_task(task);
        }
        let run = self.poll_task(task, options, &mut guard);
        let ttl = task.ttl_ms.filter(|&ms| ms > 0).map(Duration::from_millis).map(|t| (t, t));
        // The limit, and what is left of it.
        let call = options.whole_call_limit().map(|t| (t, t.saturating_sub(started.elapsed())));
        match call.or(ttl) {
            Some((timeout, left)) => tokio::time::timeout(left, run).await.unwrap_or_else(|_| {
                Err(RequestError::Timeout { method: methods::TOOLS_CALL.to_owned(), timeout })
            }),
            None => run.await,
        }
    }

    /// Waits `wait` before the next request about the followed task, unless the call is
    /// cancelled meanwhile (see [`Client::unless_cancelled`]).
    async fn pause(
        &self,
        wait: Duration,
        options: &RequestOptions,
        guard: &mut CancelOnDrop,
    ) -> Result<(), RequestError> {
        self.unless_cancelled(tokio::time::sleep(wait), options, guard).await
    }

    /// `work`'s output, unless the call is cancelled first: the task is then cancelled on
    /// the server (and `guard` disarmed) and the call fails as cancelled.
    async fn unless_cancelled<T>(
        &self,
        work: impl std::future::Future<Output = T>,
        options: &RequestOptions,
        guard: &mut CancelOnDrop,
    ) -> Result<T, RequestError> {
        let Some(token) = &options.cancel else { return Ok(work.await) };
        tokio::select! {
            done = work => Ok(done),
            () = token.cancelled() => Err(self.cancel_followed(guard).await),
        }
    }

    /// The call was cancelled: the task is cancelled on the server, and the call fails as
    /// the `tools/call` the caller made, cancelled. `guard` is disarmed once the server
    /// has answered the `tasks/cancel` (a task that ended meanwhile is refused, and that
    /// is all); a `tasks/cancel` that failed on the way is sent again when it goes.
    async fn cancel_followed(&self, guard: &mut CancelOnDrop) -> RequestError {
        if let Some(id) = guard.task_id.clone() {
            match self.cancel_task(&id).await {
                Ok(()) | Err(RequestError::Peer(_)) => guard.disarm(),
                Err(e) => tracing::debug!(task = %id, "tasks/cancel for a cancelled call failed: {e}"),
            }
        }
        cancelled()
    }

    /// `send()`, a request about the followed task, and again (at most [`MAX_RESENDS`]
    /// more times, waiting `interval`, then twice as long each time) while it fails on
    /// the way ([`on_the_way`]): its last outcome.
    async fn resending<T, F, Fut>(
        &self,
        interval: Duration,
        options: &RequestOptions,
        guard: &mut CancelOnDrop,
        mut send: F,
    ) -> Result<T, RequestError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, RequestError>>,
    {
        let mut wait = interval;
        let mut resends = 0;
        loop {
            match send().await {
                Err(e) if on_the_way(&e) && resends < MAX_RESENDS => {
                    tracing::debug!(task = ?guard.task_id, "a request about a followed task failed on the way, sent again: {e}");
                    resends += 1;
                    self.pause(wait, options, guard).await?;
                    wait = (wait * 2).min(MAX_POLL);
                }
                outcome => return outcome,
            }
        }
    }

    /// Polls a task to its end; `guard` is disarmed once the task has ended (or this
    /// cancelled it), so that whatever else ends the polling cancels the task.
    async fn poll_task(
        &self,
        task: &Task,
        options: &RequestOptions,
        guard: &mut CancelOnDrop,
    ) -> Result<RawJson, RequestError> {
        let id = task.task_id.as_str();
        let mut interval = poll_interval(task.poll_interval_ms);
        let mut answered = HashSet::new();
        // Rounds of new questions, bounded like a call's `input_required` rounds.
        let mut rounds = 0usize;
        let mut polls = 0u32;
        report(options, polls, task);
        let plain = RequestOptions::default();
        loop {
            self.pause(interval, options, guard).await?;
            polls += 1;
            if self.era() == Era::Stateful {
                let get = || self.send(methods::TASKS_GET, task_params(id), &plain);
                let (_, raw) = self.resending(interval, options, guard, get).await?;
                let current = from_core(decode::<GetTaskResult>(&raw)?.task);
                same_task(id, &current.task_id)?;
                interval = poll_interval(current.poll_interval_ms);
                report(options, polls, &current);
                match current.status {
                    TaskStatus::Working => continue,
                    TaskStatus::Cancelled => {
                        guard.disarm();
                        return Err(cancelled_elsewhere(id));
                    }
                    // Input needed or finished: tasks/result carries both.
                    _ => match self
                        .resending(interval, options, guard, || self.core_task_result(id, options))
                        .await
                    {
                        Err(RequestError::Timeout { .. }) => continue,
                        // The caller cancelled the call while its `tasks/result` waited:
                        // the call, not the request made for it, was cancelled.
                        Err(RequestError::Cancelled { .. }) => return Err(self.cancel_followed(guard).await),
                        // The task's result or error (or the server no longer knows it).
                        outcome @ (Ok(_) | Err(RequestError::Peer(_))) => {
                            guard.disarm();
                            return outcome;
                        }
                        outcome => return outcome,
                    },
                }
            }
            let current = self.resending(interval, options, guard, || self.get_task(id)).await?;
            interval = poll_interval(current.poll_interval_ms);
            report(options, polls, &current.task());
            if current.status().is_terminal() {
                guard.disarm();
            }
            match current.state {
                TaskState::Working => {}
                TaskState::Completed { result } => {
                    return serde_json::value::to_raw_value(&result).map_err(RequestError::Encode)
                }
                TaskState::Failed { error } => return Err(RequestError::Peer(error)),
                TaskState::Cancelled => return Err(cancelled_elsewhere(id)),
                TaskState::InputRequired { input_requests } => {
                    // Keys are never reused: each question is answered once.
                    let fresh: Vec<_> =
                        input_requests.into_iter().filter(|(key, _)| !answered.contains(key)).collect();
                    if let Err(e) = super::mrtr::check_input_count(methods::TASKS_GET, fresh.len()) {
                        let _ = self.cancel_task(id).await;
                        guard.disarm();
                        return Err(e);
                    }
                    if !fresh.is_empty() {
                        rounds += 1;
                        let max = self.inner.options.max_input_rounds;
                        if rounds > max {
                            // A server that never stops asking: give up, and end the task.
                            let _ = self.cancel_task(id).await;
                            guard.disarm();
                            return Err(RequestError::Protocol(format!(
                                "the task asked for input more than {max} times (ClientOptions::max_input_rounds); it was cancelled"
                            )));
                        }
                    }
                    // The callbacks may take long (a person answering a form): the
                    // call's cancel does not wait for them.
                    let answering = async {
                        let mut answers = Map::new();
                        for (key, request) in fresh {
                            answered.insert(key.clone());
                            answers.insert(key, self.resolve(request, options).await?);
                        }
                        Ok::<_, RequestError>(answers)
                    };
                    let answers = self.unless_cancelled(answering, options, guard).await??;
                    if !answers.is_empty() {
                        let mut params = task_params(id);
                        params.insert("inputResponses".into(), Value::Object(answers));
                        // Sent again as it is, if need be: the server ignores keys it
                        // already has.
                        let update = || self.send(methods::TASKS_UPDATE, params.clone(), &plain);
                        self.resending(interval, options, guard, update).await?;
                        interval = MIN_POLL.max(interval / 4);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A server that lists other tools at every listing does not make the client keep
    /// ever more of their names: past the bytes of one listing, what was learned before
    /// is forgotten.
    #[test]
    fn task_support_learned_over_many_listings_is_bounded() {
        let tools = TaskTools::default();
        let megabyte = 1024 * 1024;
        for n in 0..200 {
            let tool: Tool = serde_json::from_value(
                json!({ "name": format!("t{n}"), "inputSchema": { "type": "object" } }),
            )
            .unwrap();
            tools.learn(&[tool], megabyte);
        }
        // 64 MiB of pages: the last 64 listings at most.
        let kept = tools.lock().by_name.len();
        assert!(kept <= 64, "{kept} tools kept");
        assert_eq!(tools.get("t199"), Some(TaskSupport::Forbidden), "the latest listing is kept");
    }
}
