//! 2025-11-25 tasks on the client's side: a server may send `sampling/createMessage` or
//! `elicitation/create` with `params.task`, asking the client to run it as a task. The
//! client then answers at once with the new task (`CreateTaskResult`), runs the callback
//! in the background, and answers the server's `tasks/get`, `tasks/result` (which waits
//! for the callback), `tasks/list` and `tasks/cancel` (which stops the callback) about it.
//!
//! The client declares this (`tasks.requests.sampling.createMessage`,
//! `tasks.requests.elicitation.create`, `tasks.list`, `tasks.cancel`) for the callbacks it
//! has, at `initialize` only: the 2026 revision moved tasks to an extension in which the
//! client runs none. Records live in a [`MemoryTaskStore`], bounded and expired by their
//! TTL like the server's, so a server that never asks for its results cannot make the
//! client grow.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use mcpwire_protocol::capabilities::{
    ClientTaskRequests, ClientTasksCapability, TaskElicitationRequests, TaskSamplingRequests,
};
use mcpwire_protocol::common::JsonObject;
use mcpwire_protocol::tasks::{
    CancelTaskRequestParams, CreateTaskResult, GetTaskPayloadRequestParams, GetTaskRequestParams,
    ListTasksRequestParams, TaskMetadata,
};
use mcpwire_protocol::tasks_ext::TaskState;
use mcpwire_protocol::{methods, RawJson, Request};
use tokio::sync::watch;
use tokio::task::AbortHandle;

use super::callbacks::{parse, Callbacks};
use crate::error::McpError;
use crate::random_id::random_id;
use crate::server::tasks::{
    core_task_page, core_task_value, finished_payload, owned_record, store_error, MemoryTaskStore,
    TaskRecord, TaskStore,
};

/// The most task records the client keeps (finished ones are dropped first when full).
const CAPACITY: usize = 256;
/// How long a record is kept when the server asks for no TTL.
const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);
/// The longest TTL a server may ask for.
const MAX_TTL: Duration = Duration::from_secs(60 * 60);
/// The shortest TTL a task gets: one of 0 would expire as it is created, never to be
/// polled, and the answer would state a TTL it does not have.
const MIN_TTL: Duration = Duration::from_secs(1);
/// The polling interval suggested to the server.
const POLL_INTERVAL: Duration = Duration::from_millis(500);
/// How often `tasks/result` re-reads a task it has heard nothing about.
const RESULT_RECHECK: Duration = Duration::from_secs(1);
/// The most tasks `tasks/list` answers in one page.
const PAGE: usize = 50;

/// A callback's work, as a task runs it.
pub(crate) type Work = Pin<Box<dyn Future<Output = Result<RawJson, McpError>> + Send>>;

/// The `tasks` capability a client with these callbacks declares at `initialize`, if any.
pub(crate) fn capability(callbacks: &Callbacks) -> Option<ClientTasksCapability> {
    let sampling = callbacks.sampling.is_some();
    let elicitation = callbacks.elicitation.is_some();
    (sampling || elicitation).then(|| ClientTasksCapability {
        list: Some(JsonObject::new()),
        cancel: Some(JsonObject::new()),
        requests: Some(ClientTaskRequests {
            sampling: sampling.then(|| TaskSamplingRequests {
                create_message: Some(JsonObject::new()),
                ..Default::default()
            }),
            elicitation: elicitation
                .then(|| TaskElicitationRequests { create: Some(JsonObject::new()), ..Default::default() }),
            ..Default::default()
        }),
        ..Default::default()
    })
}

/// The tasks this client runs for its server.
pub(crate) struct CallbackTasks {
    store: MemoryTaskStore,
    /// The callbacks still running, to stop one on `tasks/cancel`.
    running: Mutex<HashMap<String, AbortHandle>>,
    /// Bumped whenever a task finishes: `tasks/result` waits on it.
    finished: watch::Sender<u64>,
}

impl CallbackTasks {
    pub(crate) fn new() -> Self {
        CallbackTasks {
            store: MemoryTaskStore::new(CAPACITY),
            running: Mutex::new(HashMap::new()),
            finished: watch::Sender::new(0),
        }
    }

    fn running(&self) -> MutexGuard<'_, HashMap<String, AbortHandle>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts `work` as a task asked for with `task`, and answers with the new task.
    pub(crate) async fn start(
        self: &Arc<Self>,
        task: &TaskMetadata,
        work: Work,
    ) -> Result<RawJson, McpError> {
        self.stop_expired().await;
        let now = SystemTime::now();
        let ttl = task.ttl.map_or(DEFAULT_TTL, Duration::from_millis).min(MAX_TTL).max(MIN_TTL);
        let record = TaskRecord {
            task_id: random_id()?,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl: Some(ttl),
            poll_interval: Some(POLL_INTERVAL),
            state: TaskState::Working,
            owner: None,
        };
        self.store.create(record.clone()).await.map_err(store_error)?;
        let id = record.task_id.clone();
        // The lock is held while the callback starts, so that it cannot finish (and be
        // forgotten) before it is remembered.
        {
            let mut running = self.running();
            // Weak: a callback does not keep the client's tasks alive (their drop, with
            // the client's, stops it).
            let tasks = Arc::downgrade(self);
            let task_id = id.clone();
            let handle = tokio::spawn(async move {
                let outcome = work.await;
                if let Some(tasks) = tasks.upgrade() {
                    tasks.finish(&task_id, outcome).await;
                }
            });
            running.insert(id, handle.abort_handle());
        }
        Ok(serde_json::value::to_raw_value(&CreateTaskResult { task: record.core_task(), meta: None })?)
    }

    /// Records a callback's outcome (unless the task was cancelled or expired meanwhile).
    async fn finish(&self, id: &str, outcome: Result<RawJson, McpError>) {
        let state = match outcome.and_then(|raw| Ok(serde_json::from_str::<JsonObject>(raw.get())?)) {
            Ok(result) => TaskState::Completed { result },
            Err(error) => TaskState::Failed { error: error.to_error_object() },
        };
        self.set_state(id, state).await;
        self.running().remove(id);
    }

    /// Moves an unfinished task to `state`; `false` when it had finished already (or is
    /// unknown).
    async fn set_state(&self, id: &str, state: TaskState) -> bool {
        let mut changed = false;
        let change = Box::new(|record: &mut TaskRecord| {
            if !record.status().is_terminal() {
                record.state = state;
                record.last_updated_at = SystemTime::now();
                changed = true;
            }
        });
        let _ = self.store.update(id, change).await;
        if changed {
            self.finished.send_modify(|n| *n = n.wrapping_add(1));
        }
        changed
    }

    /// Stops the callbacks whose records expired (the server can no longer ask for them).
    async fn stop_expired(&self) {
        let ids: Vec<String> = self.running().keys().cloned().collect();
        for id in ids {
            if matches!(self.store.get(&id).await, Ok(None)) {
                if let Some(handle) = self.running().remove(&id) {
                    handle.abort();
                }
            }
        }
    }

    async fn record(&self, id: &str) -> Result<TaskRecord, McpError> {
        owned_record(&self.store, id, None).await
    }

    /// Answers one of the server's `tasks/*` requests.
    pub(crate) async fn serve(&self, request: &Request) -> Result<RawJson, McpError> {
        let reply = match request.method.as_str() {
            methods::TASKS_GET => {
                let p: GetTaskRequestParams = parse(request)?;
                core_task_value(&self.record(&p.task_id).await?)?
            }
            methods::TASKS_CANCEL => {
                let p: CancelTaskRequestParams = parse(request)?;
                let before = self.record(&p.task_id).await?;
                if !self.set_state(&p.task_id, TaskState::Cancelled).await {
                    return Err(McpError::invalid_params(format!(
                        "Task {} already finished ({:?})",
                        p.task_id,
                        before.status()
                    )));
                }
                if let Some(handle) = self.running().remove(&p.task_id) {
                    handle.abort();
                }
                core_task_value(&self.record(&p.task_id).await?)?
            }
            methods::TASKS_LIST => {
                let p: ListTasksRequestParams = parse(request)?;
                serde_json::to_value(core_task_page(&self.store, None, p.cursor.as_deref(), PAGE).await?)?
            }
            methods::TASKS_RESULT => {
                let p: GetTaskPayloadRequestParams = parse(request)?;
                return self.result(&p.task_id).await;
            }
            other => return Err(McpError::method_not_found(other)),
        };
        Ok(serde_json::value::to_raw_value(&reply)?)
    }

    /// `tasks/result`: waits until the task finishes, then answers with the callback's
    /// result (or its error), marked with `related-task`.
    async fn result(&self, id: &str) -> Result<RawJson, McpError> {
        let mut finished = self.finished.subscribe();
        loop {
            if let Some(outcome) = finished_payload(id, self.record(id).await?.state) {
                return Ok(serde_json::value::to_raw_value(&outcome?)?);
            }
            // Until a task finishes, or a while passes (the record may have expired).
            let _ = tokio::time::timeout(RESULT_RECHECK, finished.changed()).await;
        }
    }
}

/// A client that is gone runs no callback for its server any more.
impl Drop for CallbackTasks {
    fn drop(&mut self) {
        for handle in self.running().values() {
            handle.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use mcpwire_protocol::codes;
    use serde_json::{json, Value};

    fn request(method: &str, params: Value) -> Request {
        serde_json::from_value(json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }))
            .unwrap()
    }

    async fn call(tasks: &CallbackTasks, method: &str, params: Value) -> Result<Value, McpError> {
        let raw = tasks.serve(&request(method, params)).await?;
        Ok(serde_json::from_str(raw.get()).unwrap())
    }

    async fn start(tasks: &Arc<CallbackTasks>, work: Work) -> String {
        let created = tasks.start(&TaskMetadata { ttl: Some(60_000) }, work).await.unwrap();
        let created: Value = serde_json::from_str(created.get()).unwrap();
        assert_eq!(created["task"]["status"], "working", "{created}");
        assert_eq!(created["task"]["ttl"], 60_000);
        created["task"]["taskId"].as_str().unwrap().to_owned()
    }

    #[tokio::test]
    async fn a_task_answers_get_result_list_and_cancel() {
        let tasks = Arc::new(CallbackTasks::new());
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let done = start(
            &tasks,
            Box::pin(async move {
                released.await.unwrap();
                Ok(serde_json::value::to_raw_value(&json!({ "action": "decline" })).unwrap())
            }),
        )
        .await;
        let got = call(&tasks, methods::TASKS_GET, json!({ "taskId": done })).await.unwrap();
        assert_eq!(got["status"], "working");
        // `tasks/result` waits for the callback.
        let waiting = {
            let tasks = tasks.clone();
            let id = done.clone();
            tokio::spawn(async move { call(&tasks, methods::TASKS_RESULT, json!({ "taskId": id })).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished());
        release.send(()).unwrap();
        let result = waiting.await.unwrap().unwrap();
        assert_eq!(result["action"], "decline");
        assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], done.as_str());
        let got = call(&tasks, methods::TASKS_GET, json!({ "taskId": done })).await.unwrap();
        assert_eq!(got["status"], "completed");

        // A callback that never ends is stopped by `tasks/cancel`.
        let hung = start(&tasks, Box::pin(std::future::pending())).await;
        let listed = call(&tasks, methods::TASKS_LIST, json!({})).await.unwrap();
        let ids: Vec<&str> =
            listed["tasks"].as_array().unwrap().iter().map(|t| t["taskId"].as_str().unwrap()).collect();
        assert_eq!(ids, [done.as_str(), hung.as_str()]);
        let cancelled = call(&tasks, methods::TASKS_CANCEL, json!({ "taskId": hung })).await.unwrap();
        assert_eq!(cancelled["status"], "cancelled");
        assert!(tasks.running().is_empty(), "the callback was stopped");
        let error = call(&tasks, methods::TASKS_RESULT, json!({ "taskId": hung })).await.unwrap_err();
        assert_eq!(error.code(), codes::INVALID_PARAMS);
        // A finished task cannot be cancelled; an unknown one is invalid params.
        let error = call(&tasks, methods::TASKS_CANCEL, json!({ "taskId": done })).await.unwrap_err();
        assert_eq!(error.code(), codes::INVALID_PARAMS);
        let error = call(&tasks, methods::TASKS_GET, json!({ "taskId": "nope" })).await.unwrap_err();
        assert_eq!(error.code(), codes::INVALID_PARAMS);
    }

    #[tokio::test]
    async fn the_callbacks_stop_with_the_client() {
        struct Dropped(Option<tokio::sync::oneshot::Sender<()>>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                let _ = self.0.take().map(|tx| tx.send(()));
            }
        }
        let tasks = Arc::new(CallbackTasks::new());
        let (tx, dropped) = tokio::sync::oneshot::channel();
        let flag = Dropped(Some(tx));
        start(
            &tasks,
            Box::pin(async move {
                let _flag = flag;
                std::future::pending().await
            }),
        )
        .await;
        drop(tasks);
        tokio::time::timeout(Duration::from_secs(5), dropped).await.unwrap().unwrap();
    }

    /// A TTL of 0 would expire the task as it is created, and the answer would state a
    /// TTL it does not have: the task is kept at least a second, and says so.
    #[tokio::test]
    async fn a_zero_ttl_task_is_kept_long_enough_to_be_polled() {
        let tasks = Arc::new(CallbackTasks::new());
        let work: Work = Box::pin(std::future::pending());
        let created = tasks.start(&TaskMetadata { ttl: Some(0) }, work).await.unwrap();
        let created: Value = serde_json::from_str(created.get()).unwrap();
        assert_eq!(created["task"]["ttl"], 1000, "{created}");
        let id = created["task"]["taskId"].as_str().unwrap();
        let got = call(&tasks, methods::TASKS_GET, json!({ "taskId": id })).await.unwrap();
        assert_eq!(got["status"], "working");
    }

    #[tokio::test]
    async fn a_failed_callback_is_the_results_error() {
        let tasks = Arc::new(CallbackTasks::new());
        let id = start(&tasks, Box::pin(async { Err(McpError::new(-1, "the user closed the form")) })).await;
        let error = call(&tasks, methods::TASKS_RESULT, json!({ "taskId": id })).await.unwrap_err();
        let object = error.to_error_object();
        assert_eq!((object.code, object.message.as_str()), (-1, "the user closed the form"));
        assert_eq!(
            object.data.unwrap()["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str()
        );
        let got = call(&tasks, methods::TASKS_GET, json!({ "taskId": id })).await.unwrap();
        assert_eq!(got["status"], "failed");
    }
}
