//! The outcome of a finished task as its 2025 `tasks/result` calls answer it, read from
//! the store and serialized once and shared by every call waiting on that task at the
//! time: a client that sends many `tasks/result` for one task with a large result does
//! not make the server hold a copy of it per call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use mcpwire_protocol::ErrorObject;
use serde_json::value::RawValue;
use tokio::sync::OnceCell;

use mcpwire_protocol::tasks_ext::TaskState;
use serde_json::Value;

use super::TaskRecord;
use crate::error::McpError;

/// A finished task's answer to `tasks/result`, and whose task it is.
pub(crate) struct Finished {
    owner: Option<String>,
    outcome: Result<Arc<RawValue>, ErrorObject>,
}

impl Finished {
    /// The answer for a call of `owner`: the shared result, or the error; `None` when the
    /// task is another's (which the caller answers as an unknown id).
    pub(crate) fn answer(&self, owner: Option<&str>) -> Option<Result<Arc<RawValue>, McpError>> {
        if self.owner.as_deref() != owner {
            return None;
        }
        Some(self.outcome.clone().map_err(McpError::from_error_object))
    }
}

type Cell = OnceCell<Finished>;

/// The shared outcomes of the tasks that `tasks/result` calls wait on now (one entry per
/// such task; it goes with the last call that holds it).
#[derive(Default)]
pub(crate) struct SharedOutcomes {
    cells: Mutex<HashMap<String, Weak<Cell>>>,
}

/// One `tasks/result` call's hold on its task's shared outcome.
pub(crate) struct OutcomeSlot<'a> {
    outcomes: &'a SharedOutcomes,
    id: &'a str,
    cell: Option<Arc<Cell>>,
}

/// What a read through a slot found.
pub(crate) enum Read<'s> {
    /// The task finished: its shared outcome.
    Finished(&'s Finished),
    /// The task runs: its record as read (boxed: it is much larger than the other).
    Running(Box<TaskRecord>),
}

/// Why a slot's read did not settle the outcome.
enum NotSettled {
    Running,
    Failed(McpError),
}

impl SharedOutcomes {
    fn cells(&self) -> std::sync::MutexGuard<'_, HashMap<String, Weak<Cell>>> {
        self.cells.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The hold of a `tasks/result` call of task `id` on its shared outcome.
    pub(crate) fn slot<'a>(&'a self, id: &'a str) -> OutcomeSlot<'a> {
        let mut cells = self.cells();
        let cell = match cells.get(id).and_then(Weak::upgrade) {
            Some(cell) => cell,
            None => {
                let cell = Arc::new(Cell::new());
                cells.insert(id.to_owned(), Arc::downgrade(&cell));
                cell
            }
        };
        OutcomeSlot { outcomes: self, id, cell: Some(cell) }
    }
}

impl OutcomeSlot<'_> {
    /// The task's outcome if another call has settled it already; otherwise reads the
    /// record with `read` (one call at a time: those waiting meanwhile take the outcome
    /// it settles rather than read it again), and settles the outcome if the task
    /// finished, with `payload` (what `tasks/result` answers for a finished task's state;
    /// `None` while it runs).
    pub(crate) async fn read<F, P>(&self, read: F, payload: P) -> Result<Read<'_>, McpError>
    where
        F: std::future::Future<Output = Result<TaskRecord, McpError>>,
        P: FnOnce(&str, TaskState) -> Option<Result<Value, McpError>>,
    {
        let Some(cell) = &self.cell else { return Err(McpError::internal("no outcome slot")) };
        let mut running = None;
        let settled = cell
            .get_or_try_init(|| async {
                let record = read.await.map_err(NotSettled::Failed)?;
                if !record.status().is_terminal() {
                    running = Some(Box::new(record));
                    return Err(NotSettled::Running);
                }
                let owner = record.owner.clone();
                let outcome = match payload(self.id, record.state) {
                    Some(Ok(value)) => Ok(Arc::from(crate::json_write::into_raw_value(value)?)),
                    Some(Err(error)) => Err(error.to_error_object()),
                    None => {
                        return Err(NotSettled::Failed(McpError::internal(
                            "a finished task without an outcome",
                        )))
                    }
                };
                Ok(Finished { owner, outcome })
            })
            .await;
        match settled {
            Ok(finished) => Ok(Read::Finished(finished)),
            Err(NotSettled::Failed(e)) => Err(e),
            Err(NotSettled::Running) => running
                .map(Read::Running)
                .ok_or_else(|| McpError::internal("a running task without its record")),
        }
    }
}

impl From<serde_json::Error> for NotSettled {
    fn from(e: serde_json::Error) -> Self {
        NotSettled::Failed(e.into())
    }
}

impl Drop for OutcomeSlot<'_> {
    fn drop(&mut self) {
        drop(self.cell.take());
        let mut cells = self.outcomes.cells();
        // Under the lock, nobody takes a hold: a dead entry stays dead.
        if cells.get(self.id).is_some_and(|cell| cell.strong_count() == 0) {
            cells.remove(self.id);
        }
    }
}
