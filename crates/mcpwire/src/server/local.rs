//! Local mode: tool handlers whose futures are not `Send` (they hold an `Rc`, a
//! `RefCell`, a non-`Send` database handle across an `.await`). Such futures run on the
//! server's own single-threaded executor (a `LocalSet` on its own thread, started on first
//! use, ended when the server is dropped); the server awaits their results from any
//! thread. Cancelling the request drops the local future too.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::error::McpError;

type LocalJob = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ()>>> + Send>;

/// How many local jobs may wait for the executor before submitters wait.
const QUEUE: usize = 1024;

/// A server's executor for local handlers: a thread with a `LocalSet`, started by the
/// first local job; it stops once the server (the only sender) is gone.
#[derive(Default)]
pub(crate) struct LocalExecutor {
    sender: OnceLock<Option<mpsc::Sender<LocalJob>>>,
}

impl LocalExecutor {
    fn sender(&self) -> Option<&mpsc::Sender<LocalJob>> {
        self.sender.get_or_init(start).as_ref()
    }
}

/// Starts the executor's thread; `None` if the thread or its runtime cannot start.
fn start() -> Option<mpsc::Sender<LocalJob>> {
    let (tx, mut rx) = mpsc::channel::<LocalJob>(QUEUE);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
    std::thread::Builder::new()
        .name("mcpwire-local".into())
        .spawn(move || {
            let local = tokio::task::LocalSet::new();
            local.block_on(&runtime, async move {
                while let Some(job) = rx.recv().await {
                    tokio::task::spawn_local(job());
                }
            });
        })
        .ok()?;
    Some(tx)
}

/// Runs `make()`'s future on the local executor and returns its output; `cancel` drops it.
pub(crate) async fn run_local<F, Fut, T>(
    executor: &LocalExecutor,
    make: F,
    cancel: CancellationToken,
) -> Result<T, McpError>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = T> + 'static,
    T: Send + 'static,
{
    let executor =
        executor.sender().ok_or_else(|| McpError::internal("the local executor could not start"))?;
    let (tx, rx) = oneshot::channel();
    let job: LocalJob = Box::new(move || {
        Box::pin(async move {
            tokio::select! {
                _ = cancel.cancelled() => {}
                output = make() => {
                    let _ = tx.send(output);
                }
            }
        })
    });
    executor.send(job).await.map_err(|_| McpError::internal("the local executor stopped"))?;
    rx.await.map_err(|_| McpError::internal("a local handler was cancelled or panicked"))
}
