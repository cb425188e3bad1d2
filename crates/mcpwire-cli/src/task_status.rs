//! How `mcpwire call` and `mcpwire tools` show tasks: a call's task statuses on the
//! progress bar, and the note on a tool that runs only (or also) as a task.

use std::sync::atomic::{AtomicBool, Ordering};

use mcpwire::jsonrpc::ProgressUpdate;
use serde_json::Value;

use crate::ui::Ui;

/// The progress callback of `mcpwire call`: progress and task statuses on the bar (a
/// terminal), and once, on stderr, the id of the task the server made of the call, so
/// that `mcpwire tasks get|cancel` can reach it later.
pub fn progress_hook(ui: Ui) -> impl Fn(ProgressUpdate) + Send + Sync + 'static {
    let announced = AtomicBool::new(false);
    move |update: ProgressUpdate| {
        let task =
            update.message.as_deref().and_then(|m| m.strip_prefix("task ")).and_then(|m| m.split(':').next());
        if let Some(id) = task {
            if !announced.swap(true, Ordering::Relaxed) {
                ui.note(&format!("mcpwire: the server runs this call as task {id}"));
            }
        }
        ui.progress(&update);
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
