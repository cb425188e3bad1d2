//! The 2026 tasks extension, `io.modelcontextprotocol/tasks` (SEP-2663). Not part of the
//! 2026 `schema.json`.
//!
//! A client that declares the extension on a request lets the server answer `tools/call`
//! with a [`CreateTaskResult`] (`resultType: "task"`) instead of its result; the client
//! then polls `tasks/get`, answers input requests with `tasks/update`, and may send
//! `tasks/cancel`. `notifications/tasks` (via `subscriptions/listen` with `taskIds`)
//! pushes the same [`DetailedTask`] that `tasks/get` returns.
//!
//! The names here match the extension's schema and therefore clash with the 2025-11-25
//! core tasks in [`crate::tasks`] (same methods `tasks/get` and `tasks/cancel`, different
//! shapes: `ttlMs`/`pollIntervalMs` instead of `ttl`/`pollInterval`, a flat create result,
//! empty acknowledgements). They are not re-exported at the crate root; use them through
//! this module.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::common::{notification, request, EmptyResult, JsonObject};
use crate::error::ErrorObject;
use crate::jsonrpc::{Notification, Request, Response};
use crate::meta::Meta;
use crate::methods;
use crate::mrtr::{InputRequests, InputResponses};
use crate::result::ResultType;
pub use crate::tasks::TaskStatus;

/// The fields every task carries (extension form).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task id.
    pub task_id: String,
    /// The state.
    pub status: TaskStatus,
    /// A message describing the state; may be shown to the user or model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// Time to live in milliseconds from creation; `null` for unlimited. Always written.
    #[serde(default, deserialize_with = "crate::common::lenient_millis")]
    pub ttl_ms: Option<u64>,
    /// The suggested polling interval in milliseconds.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_millis",
        skip_serializing_if = "Option::is_none"
    )]
    pub poll_interval_ms: Option<u64>,
}

/// The answer to a request the server made a task: `resultType: "task"` and the task,
/// flat. Sent only once the task is durably created.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// `resultType`: `task`.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task's seed state.
    #[serde(flatten)]
    pub task: Task,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateTaskResult {
    /// A task result for `task` (`resultType: "task"`).
    pub fn new(task: Task) -> Self {
        CreateTaskResult { result_type: Some(ResultType::Task), task, meta: None }
    }
}

/// The status-specific part of a [`DetailedTask`], tagged by `status`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TaskState {
    /// In progress.
    Working,
    /// Waiting for the client: answer with `tasks/update`.
    InputRequired {
        /// Every outstanding input request (keys unique over the task's lifetime).
        #[serde(rename = "inputRequests")]
        input_requests: InputRequests,
    },
    /// Finished; `result` is what the original request would have returned (including a
    /// tool result with `isError: true`).
    Completed {
        /// The result, as a JSON object.
        result: JsonObject,
    },
    /// Failed with a JSON-RPC error.
    Failed {
        /// The error.
        error: ErrorObject,
    },
    /// Cancelled.
    Cancelled,
}

impl TaskState {
    /// The status this state has.
    pub fn status(&self) -> TaskStatus {
        match self {
            TaskState::Working => TaskStatus::Working,
            TaskState::InputRequired { .. } => TaskStatus::InputRequired,
            TaskState::Completed { .. } => TaskStatus::Completed,
            TaskState::Failed { .. } => TaskStatus::Failed,
            TaskState::Cancelled => TaskStatus::Cancelled,
        }
    }
}

/// A task with its status-specific fields inlined: the result of `tasks/get`
/// (`resultType: "complete"`) and the params of `notifications/tasks`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// `resultType`: `complete` on a `tasks/get` result; absent on a notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task id.
    pub task_id: String,
    /// A message describing the state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// Time to live in milliseconds from creation; `null` for unlimited. Always written.
    #[serde(default, deserialize_with = "crate::common::lenient_millis")]
    pub ttl_ms: Option<u64>,
    /// The suggested polling interval in milliseconds.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_millis",
        skip_serializing_if = "Option::is_none"
    )]
    pub poll_interval_ms: Option<u64>,
    /// `status` and the members that go with it.
    #[serde(flatten)]
    pub state: TaskState,
    /// `_meta` (on a notification: `io.modelcontextprotocol/subscriptionId`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl DetailedTask {
    /// The status.
    pub fn status(&self) -> TaskStatus {
        self.state.status()
    }

    /// The common task fields.
    pub fn task(&self) -> Task {
        Task {
            task_id: self.task_id.clone(),
            status: self.status(),
            status_message: self.status_message.clone(),
            created_at: self.created_at.clone(),
            last_updated_at: self.last_updated_at.clone(),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
        }
    }

    /// A detailed task from its common fields and state (`resultType` unset).
    pub fn new(task: Task, state: TaskState) -> Self {
        DetailedTask {
            result_type: None,
            task_id: task.task_id,
            status_message: task.status_message,
            created_at: task.created_at,
            last_updated_at: task.last_updated_at,
            ttl_ms: task.ttl_ms,
            poll_interval_ms: task.poll_interval_ms,
            state,
            meta: None,
        }
    }

    /// Parses the result of a completed task as `T` (the original request's result type);
    /// `None` when the task has not completed.
    pub fn result_as<T: DeserializeOwned>(&self) -> Option<Result<T, serde_json::Error>> {
        match &self.state {
            TaskState::Completed { result } => {
                Some(T::deserialize(serde_json::Value::Object(result.clone())))
            }
            _ => None,
        }
    }
}

/// The result of `tasks/get`.
pub type GetTaskResult = DetailedTask;
/// The params of `notifications/tasks`.
pub type TaskNotificationParams = DetailedTask;

/// `tasks/get` params. An unknown task id is an error (`-32602`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequestParams {
    /// The task id.
    pub task_id: String,
    /// `_meta`: the required 2026 envelope.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `tasks/update` params: answers to a task's outstanding input requests. The result is an
/// empty acknowledgement; unknown or already answered keys are ignored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskRequestParams {
    /// The task id.
    pub task_id: String,
    /// The answers, by input request key; at most
    /// [`MAX_INPUT_RESPONSES`](crate::mrtr::MAX_INPUT_RESPONSES) are read.
    #[serde(deserialize_with = "crate::mrtr::bounded_input_responses")]
    pub input_responses: InputResponses,
    /// `_meta`: the required 2026 envelope.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `tasks/cancel` params. The result is an empty acknowledgement; cancellation is
/// cooperative and the task may still finish otherwise.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelTaskRequestParams {
    /// The task id.
    pub task_id: String,
    /// `_meta`: the required 2026 envelope.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `tasks/update` (an empty acknowledgement, `resultType: "complete"`).
pub type UpdateTaskResult = EmptyResult;
/// The result of `tasks/cancel` (an empty acknowledgement, `resultType: "complete"`).
pub type CancelTaskResult = EmptyResult;

request!(GetTaskRequestParams => methods::TASKS_GET, GetTaskResult);
request!(UpdateTaskRequestParams => methods::TASKS_UPDATE, UpdateTaskResult);
request!(CancelTaskRequestParams => methods::TASKS_CANCEL, CancelTaskResult);
notification!(DetailedTask => methods::NOTIFICATION_TASKS);

/// `tasks/get`, as a whole message.
pub type GetTaskRequest = Request<GetTaskRequestParams>;
/// The response to `tasks/get`.
pub type GetTaskResultResponse = Response<GetTaskResult>;
/// `tasks/update`, as a whole message.
pub type UpdateTaskRequest = Request<UpdateTaskRequestParams>;
/// `tasks/cancel`, as a whole message.
pub type CancelTaskRequest = Request<CancelTaskRequestParams>;
/// `notifications/tasks`, as a whole message.
pub type TaskNotification = Notification<TaskNotificationParams>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn base() -> serde_json::Value {
        json!({
            "taskId": "786512e2", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:50:00Z", "ttlMs": 60000, "pollIntervalMs": 5000
        })
    }

    fn with(extra: serde_json::Value) -> serde_json::Value {
        let mut v = base();
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    }

    #[test]
    fn every_variant_round_trips() {
        let cases = [
            with(json!({"resultType": "complete", "status": "working"})),
            with(json!({"resultType": "complete", "status": "cancelled", "statusMessage": "by user"})),
            with(json!({"status": "input_required", "inputRequests": {
                "name": {"method": "elicitation/create", "params": {"mode": "form", "message": "Name?",
                    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}
            }})),
            with(
                json!({"status": "completed", "result": {"content": [{"type": "text", "text": "ok"}], "isError": false}}),
            ),
            with(json!({"status": "failed", "error": {"code": -32603, "message": "boom"}, "ttlMs": null})),
        ];
        for v in cases {
            let t: DetailedTask = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(serde_json::to_value(&t).unwrap(), v);
        }
        let done: DetailedTask = serde_json::from_value(with(json!({"status": "completed",
            "result": {"content": [], "isError": true}})))
        .unwrap();
        assert_eq!(done.status(), TaskStatus::Completed);
        assert_eq!(done.result_as::<crate::CallToolResult>().unwrap().unwrap().is_error, Some(true));
    }

    #[test]
    fn missing_status_fields_are_errors() {
        assert!(serde_json::from_value::<DetailedTask>(with(json!({"status": "completed"}))).is_err());
        assert!(serde_json::from_value::<DetailedTask>(with(json!({"status": "paused"}))).is_err());
        assert!(serde_json::from_value::<DetailedTask>(base()).is_err());
    }

    #[test]
    fn create_result_is_flat() {
        let v = with(json!({"resultType": "task", "status": "working"}));
        let r: CreateTaskResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.task.ttl_ms, Some(60000));
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
        let update = UpdateTaskRequestParams {
            task_id: "t".into(),
            input_responses: [(
                "name".to_owned(),
                crate::ElicitResult::action(crate::ElicitAction::Cancel).into(),
            )]
            .into_iter()
            .collect(),
            meta: None,
        };
        assert_eq!(
            serde_json::to_value(&update).unwrap(),
            json!({"taskId": "t", "inputResponses": {"name": {"action": "cancel"}}})
        );
    }
}
