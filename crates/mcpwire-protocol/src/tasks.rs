//! Core tasks of revision 2025-11-25 (experimental there): a request augmented with
//! `task` answers at once with a task handle, and the requestor polls `tasks/get`, fetches
//! the outcome with `tasks/result`, lists with `tasks/list` and cancels with `tasks/cancel`.
//! Tasks run in both directions.
//!
//! 2026 removed core tasks; its tasks *extension* has a different shape (a flat result
//! with `resultType: "task"`, `ttlMs` instead of `ttl`, `tasks/update`) and lives in
//! [`crate::tasks_ext`]. The two share only [`TaskStatus`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::{notification, paginated_params, request};
use crate::jsonrpc::{Notification, Request, Response};
use crate::meta::Meta;
use crate::methods;

/// The state of a task (both the 2025-11-25 core tasks and the 2026 extension).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The request is being processed.
    Working,
    /// The task waits for input from the requestor.
    InputRequired,
    /// Finished successfully (terminal).
    Completed,
    /// Failed (terminal).
    Failed,
    /// Cancelled (terminal).
    Cancelled,
}

impl TaskStatus {
    /// Whether the status is terminal: `completed`, `failed` or `cancelled`.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

/// `task` on a request: run it as a task (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Map<String, serde_json::Value>")]
pub struct TaskMetadata {
    /// The requested time to live, in milliseconds from creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// Read from an object only (a derived reader would take an array as the fields in
/// order), with `ttl` a whole number of milliseconds when present.
impl TryFrom<serde_json::Map<String, serde_json::Value>> for TaskMetadata {
    type Error = String;

    fn try_from(object: serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        let ttl =
            match object.get("ttl") {
                None | Some(serde_json::Value::Null) => None,
                Some(value) => Some(value.as_u64().ok_or_else(|| {
                    format!("task.ttl must be a whole number of milliseconds, not {value}")
                })?),
            };
        Ok(TaskMetadata { ttl })
    }
}

/// `_meta["io.modelcontextprotocol/related-task"]`: the task a message belongs to
/// (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The task id.
    pub task_id: String,
}

/// A task (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task id.
    pub task_id: String,
    /// The state.
    pub status: TaskStatus,
    /// A message describing the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// The time to live in milliseconds from creation; `null` for unlimited. Always
    /// written (as `null` when `None`), since the member is required.
    #[serde(default, deserialize_with = "crate::common::lenient_millis")]
    pub ttl: Option<u64>,
    /// The suggested polling interval in milliseconds.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_millis",
        skip_serializing_if = "Option::is_none"
    )]
    pub poll_interval: Option<u64>,
}

/// The answer to a task-augmented request (2025-11-25): the new task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// The task.
    pub task: Task,
    /// `_meta`, optionally with `io.modelcontextprotocol/model-immediate-response`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `tasks/get` params (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequestParams {
    /// The task id.
    pub task_id: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `tasks/get` and of `tasks/cancel` (2025-11-25): the task, flat, with
/// `_meta`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GetTaskResult {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `tasks/result` params (2025-11-25): wait for the task's outcome.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskPayloadRequestParams {
    /// The task id.
    pub task_id: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `tasks/result` (2025-11-25): exactly the result the underlying request
/// would have had (a `CallToolResult`, say), kept as an open object; parse it with
/// [`GetTaskPayloadResult::parse`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GetTaskPayloadResult {
    /// `_meta`, with `io.modelcontextprotocol/related-task`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The members of the underlying result.
    #[serde(flatten)]
    pub result: Map<String, Value>,
}

impl GetTaskPayloadResult {
    /// Parses the payload as the underlying request's result type.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        let mut all = self.result.clone();
        if let Some(meta) = &self.meta {
            all.insert("_meta".to_owned(), Value::Object(meta.clone()));
        }
        T::deserialize(Value::Object(all))
    }
}

/// `tasks/cancel` params (2025-11-25). Cancelling a terminal task is an error (`-32602`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelTaskRequestParams {
    /// The task id.
    pub task_id: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `tasks/cancel` (2025-11-25): the task, now `cancelled`.
pub type CancelTaskResult = GetTaskResult;

paginated_params!(
    /// `tasks/list` params (2025-11-25).
    ListTasksRequestParams
);

/// The result of `tasks/list` (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// The tasks on this page.
    pub tasks: Vec<Task>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `notifications/tasks/status` params (2025-11-25): the task, flat, with `_meta`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskStatusNotificationParams {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

request!(GetTaskRequestParams => methods::TASKS_GET, GetTaskResult);
request!(GetTaskPayloadRequestParams => methods::TASKS_RESULT, GetTaskPayloadResult);
request!(CancelTaskRequestParams => methods::TASKS_CANCEL, CancelTaskResult);
request!(ListTasksRequestParams => methods::TASKS_LIST, ListTasksResult);
notification!(TaskStatusNotificationParams => methods::NOTIFICATION_TASKS_STATUS);

/// `tasks/get`, as a whole message (2025-11-25).
pub type GetTaskRequest = Request<GetTaskRequestParams>;
/// `tasks/result`, as a whole message (2025-11-25).
pub type GetTaskPayloadRequest = Request<GetTaskPayloadRequestParams>;
/// `tasks/cancel`, as a whole message (2025-11-25).
pub type CancelTaskRequest = Request<CancelTaskRequestParams>;
/// `tasks/list`, as a whole message (2025-11-25).
pub type ListTasksRequest = Request<ListTasksRequestParams>;
/// The response to `tasks/get` (2025-11-25).
pub type GetTaskResultResponse = Response<GetTaskResult>;
/// `notifications/tasks/status`, as a whole message (2025-11-25).
pub type TaskStatusNotification = Notification<TaskStatusNotificationParams>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn ttl_is_always_written() {
        let v = json!({
            "taskId": "t", "status": "input_required", "createdAt": "a", "lastUpdatedAt": "b", "ttl": null,
            "_meta": {"k": 1}
        });
        let r: GetTaskResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.task.status, TaskStatus::InputRequired);
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
    }

    #[test]
    fn payload_keeps_the_underlying_result() {
        let v = json!({"content": [{"type": "text", "text": "x"}], "isError": false,
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t"}}});
        let p: GetTaskPayloadResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
        let r: crate::CallToolResult = p.parse().unwrap();
        assert_eq!(r.is_error, Some(false));
        assert!(r.meta.is_some());
    }

    #[test]
    fn terminal_states() {
        assert!(TaskStatus::Cancelled.is_terminal());
        assert!(!TaskStatus::InputRequired.is_terminal());
    }
}
