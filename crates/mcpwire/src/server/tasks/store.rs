//! Where task records live: the [`TaskStore`] trait, so that a durable store can replace
//! the in-memory default, and the record both protocol eras read their answers from.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

use mcpwire_protocol::tasks::TaskStatus;
use mcpwire_protocol::tasks_ext::{DetailedTask, Task as ExtTask, TaskState};

use super::clock::iso8601;

/// The future a [`TaskStore`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One task as stored: what `tasks/get` answers in either era.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRecord {
    /// The task id (unguessable: it is the only handle a client needs).
    pub task_id: String,
    /// A message describing the state.
    pub status_message: Option<String>,
    /// When the task was created.
    pub created_at: SystemTime,
    /// When the task last changed.
    pub last_updated_at: SystemTime,
    /// How long after creation the record is kept; `None` keeps it until evicted.
    pub ttl: Option<Duration>,
    /// The polling interval suggested to clients.
    pub poll_interval: Option<Duration>,
    /// The status and what goes with it (outstanding input requests, result, error).
    pub state: TaskState,
    /// Who may see the task: the 2025 session that created it (`tasks/list` lists only
    /// a session's own tasks); `None` for a 2026 task, which its id alone reaches.
    pub owner: Option<String>,
}

impl TaskRecord {
    /// The status.
    pub fn status(&self) -> TaskStatus {
        self.state.status()
    }

    /// Whether the record outlived its TTL at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        self.ttl.is_some_and(|ttl| now >= self.created_at + ttl)
    }

    /// The 2026 extension's common task fields.
    pub fn ext_task(&self) -> ExtTask {
        ExtTask {
            task_id: self.task_id.clone(),
            status: self.status(),
            status_message: self.status_message.clone().or_else(|| self.failure(false)),
            created_at: iso8601(self.created_at),
            last_updated_at: iso8601(self.last_updated_at),
            ttl_ms: self.ttl.map(millis),
            poll_interval_ms: self.poll_interval.map(millis),
        }
    }

    /// The record as `tasks/get` (2026) answers it. A completed task's `result` is the
    /// original request's 2026 result, so it says `"resultType": "complete"` (clients
    /// validate it as a `CallToolResult`, which requires it); the record keeps the
    /// result as the handler made it, since 2025 `tasks/result` answers without it.
    pub fn detailed(&self) -> DetailedTask {
        let mut state = self.state.clone();
        if let TaskState::Completed { result } = &mut state {
            result.entry("resultType").or_insert_with(|| "complete".into());
        }
        DetailedTask::new(self.ext_task(), state)
    }

    /// The 2025-11-25 core task fields. A tool call whose result has `isError: true` is
    /// `failed` there (2026 calls it `completed`); `tasks/result` still returns the result.
    pub fn core_task(&self) -> mcpwire_protocol::tasks::Task {
        let status = match &self.state {
            TaskState::Completed { result } if is_tool_error(result) => TaskStatus::Failed,
            state => state.status(),
        };
        mcpwire_protocol::tasks::Task {
            task_id: self.task_id.clone(),
            status,
            status_message: self.status_message.clone().or_else(|| self.failure(true)),
            created_at: iso8601(self.created_at),
            last_updated_at: iso8601(self.last_updated_at),
            ttl: self.ttl.map(millis),
            poll_interval: self.poll_interval.map(millis),
        }
    }

    /// What a failed task's `statusMessage` says when the task set none (both eras ask
    /// for one): the error's message, or (2025, `core`) the text of a tool result with
    /// `isError`.
    fn failure(&self, core: bool) -> Option<String> {
        match &self.state {
            TaskState::Failed { error } => Some(error.message.clone()),
            TaskState::Completed { result } if core && is_tool_error(result) => {
                let text = result
                    .get("content")
                    .and_then(|c| c.as_array())
                    .and_then(|blocks| blocks.iter().find_map(|b| b.get("text").and_then(|t| t.as_str())));
                Some(format!("The tool reported an error: {}", text.unwrap_or("(no text)")))
            }
            _ => None,
        }
    }
}

/// Whether a tool result says `isError: true`.
fn is_tool_error(result: &serde_json::Map<String, serde_json::Value>) -> bool {
    result.get("isError").and_then(serde_json::Value::as_bool) == Some(true)
}

/// A duration in whole milliseconds, at least 1 (the wire forbids fractions and zero).
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// Why a store refused.
#[derive(Debug, thiserror::Error)]
pub enum TaskStoreError {
    /// The store holds as many tasks as it may, none of them past its TTL.
    #[error("the task store is full")]
    Full,
    /// The task's owner (a 2025 session, a 2026 principal) holds as many tasks as one
    /// may (the limit).
    #[error("this client holds {0} tasks, as many as one may")]
    OwnerFull(usize),
    /// A task with this id exists already.
    #[error("task {0} exists already")]
    Duplicate(String),
    /// The backing store failed.
    #[error("task store failure: {0}")]
    Backend(String),
}

/// What a client asked of a task that runs in another process (a store shared by many
/// instances of one server carries it there: see [`TaskStore::signal`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TaskSignal {
    /// `tasks/update`: answers to the task's input requests.
    Answer {
        /// The answers, by input request key.
        responses: mcpwire_protocol::mrtr::InputResponses,
    },
    /// `tasks/cancel`.
    Cancel,
}

/// A change applied to one record, atomically with respect to other changes.
pub type TaskChange<'a> = Box<dyn FnOnce(&mut TaskRecord) + Send + 'a>;

/// Keeps task records. The server writes a record before it answers with the task
/// (so a `tasks/get` right after always finds it) and on every change of state; handlers
/// run in this process, so a store only has to keep the records. Expired records must
/// not be returned.
pub trait TaskStore: Send + Sync + 'static {
    /// Adds a new record.
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>>;

    /// The record of `task_id`, unless unknown or expired.
    fn get<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Applies `change` to the record of `task_id` and returns the record as changed, or
    /// `None` when it is unknown or expired.
    fn update<'a>(
        &'a self,
        task_id: &'a str,
        change: TaskChange<'a>,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Up to `limit` records of `owner`, in creation order, starting after the task
    /// `after` (a page cursor); unknown `after` starts at the beginning.
    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>>;

    /// Drops the record of `task_id`, which no client can reach any more (its 2025
    /// session ended), so that it does not hold a place until its TTL. The default keeps
    /// it until then: right for a store that other instances share, or whose room is not
    /// counted in records.
    fn remove<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Result<(), TaskStoreError>> {
        let _ = task_id;
        Box::pin(async { Ok(()) })
    }

    /// Carries `signal` to the process running `task_id`, when that is not this one (a
    /// store shared by many instances knows which runs it); `Ok(false)` when no other
    /// process runs it. A store of one process (the default) has nowhere to carry it.
    fn signal<'a>(
        &'a self,
        task_id: &'a str,
        signal: TaskSignal,
    ) -> StoreFuture<'a, Result<bool, TaskStoreError>> {
        let _ = (task_id, signal);
        Box::pin(async { Ok(false) })
    }
}
