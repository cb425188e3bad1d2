//! Tool calls that run as tasks, in both protocol eras: the 2026-07-28 extension
//! `io.modelcontextprotocol/tasks` (the server decides, the client polls `tasks/get` and
//! answers `tasks/update`) and the 2025-11-25 core tasks (the client asks with
//! `params.task`).
//!
//! A tool opts in with [`ToolBuilder::task_support`](super::ToolBuilder::task_support);
//! its handler is the same function either way. Inside a task, `ctx.elicit(..)` and
//! `ctx.sample(..)` park the task in `input_required` until the client answers, and
//! `ctx.cancellation()` fires on `tasks/cancel`. Records live in a [`TaskStore`]
//! (in memory by default, bounded and TTL-expired); the handlers run in this process.
//!
//! ```
//! use mcpwire::server::tasks::TaskSupport;
//! use mcpwire::server::{tool, Ctx, Server};
//!
//! let server = Server::builder("reports", "1.0.0")
//!     .tool(
//!         tool("report")
//!             .description("A slow report; a task when the client allows it")
//!             .task_support(TaskSupport::Optional)
//!             .handler(|ctx: Ctx| async move {
//!                 tokio::time::sleep(std::time::Duration::from_millis(10)).await;
//!                 if ctx.is_cancelled() { "cancelled" } else { "done" }
//!             }),
//!     )
//!     .build()
//!     .unwrap();
//! # drop(server);
//! ```

mod clock;
mod memory;
mod outcome;
mod runtime;
mod serve;
mod serve_core;
mod store;

pub use mcpwire_protocol::tools::TaskSupport;
pub use memory::MemoryTaskStore;
pub use store::{StoreFuture, TaskChange, TaskRecord, TaskSignal, TaskStore, TaskStoreError};

pub(crate) use runtime::{owned_record, store_error, TaskLink, Tasks};
pub(crate) use serve::{session_has_core_tasks, stateless_owner, tasks_extension_required};
pub(crate) use serve_core::{
    core_capability, core_task_page, core_task_value, finished_payload, related_task_meta,
};

use std::time::Duration;

/// Task settings ([`ServerBuilder::task_config`](super::ServerBuilder::task_config)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskConfig {
    /// How long a task's record is kept after creation when the client asks for no TTL
    /// (default 1 hour). A task still running then is cancelled.
    pub default_ttl: Duration,
    /// The longest TTL a 2025 client may ask for (default 24 hours). (A task is kept at
    /// least a second, whatever the client asks.)
    pub max_ttl: Duration,
    /// The polling interval suggested to clients (default 500 ms).
    pub poll_interval: Duration,
    /// How long a cancelled handler may take to notice its cancellation token before it
    /// is dropped (default 5 s).
    pub cancel_grace: Duration,
    /// Tasks running at once in this process (default 1000); more are refused.
    pub max_running: usize,
    /// Input requests one task may have outstanding (default 64).
    pub max_pending_inputs: usize,
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig {
            default_ttl: Duration::from_secs(3600),
            max_ttl: Duration::from_secs(24 * 3600),
            poll_interval: Duration::from_millis(500),
            cancel_grace: Duration::from_secs(5),
            max_running: 1000,
            max_pending_inputs: 64,
        }
    }
}
