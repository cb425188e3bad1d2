//! How `mcpwire call` and `mcpwire tools` show tasks: a call's task statuses on the
//! progress bar, and the note on a tool that runs only (or also) as a task.

use mcpwire::jsonrpc::ProgressUpdate;
use mcpwire::protocol::tasks_ext::Task;
use serde_json::Value;

use crate::ui::Ui;

/// The progress callback of `mcpwire call`: progress and task statuses on the bar (a
/// terminal). What a progress message says is the server's text, shown as such.
pub fn progress_hook(ui: Ui) -> impl Fn(ProgressUpdate) + Send + Sync + 'static {
    move |update: ProgressUpdate| ui.progress(update)
}

/// The task callback of `mcpwire call`: on stderr, the id of the task the server made of
/// the call (from its task result), so that `mcpwire tasks get|cancel` can reach it
/// later. An id of visible ASCII is shown as it is (to be copied); any other is quoted
/// and escaped, so that it cannot end the line or write over the terminal.
pub fn task_hook(ui: Ui) -> impl Fn(&Task) + Send + Sync + 'static {
    move |task: &Task| {
        let id = &task.task_id;
        let shown = match !id.is_empty() && id.bytes().all(|b| b.is_ascii_graphic()) {
            true => crate::ui::truncate(id, 200),
            false => crate::ui::truncate(&format!("{id:?}"), 200),
        };
        ui.note(&format!("mcpwire: the server runs this call as task {shown}"));
    }
}

/// A `tools` listing's note for a tool that can only be called as a task (2025-11-25
/// servers say so in `execution.taskSupport`; 2026 servers decide per call).
pub fn tool_note(tool: &Value) -> &'static str {
    match tool.pointer("/execution/taskSupport").and_then(Value::as_str) {
        Some("required") => "[task required] ",
        Some("optional") => "[task optional] ",
        _ => "",
    }
}
