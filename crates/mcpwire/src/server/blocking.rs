//! Sync handlers, run off the runtime's worker threads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Runs a sync handler on the runtime's blocking pool (`spawn_blocking`), as a thread
/// pool runs a Python SDK's sync tools: one that blocks holds up no other request, and
/// the connection goes on reading (a cancellation of that very call among them: the
/// call is then not answered, though a function already running runs to its end; one
/// still queued for a thread, as calls past the pool's threads are, is not run at all).
/// A panic in it goes on in the caller, where the dispatcher contains it like an async
/// handler's.
pub async fn run_blocking<R: Send + 'static>(run: impl FnOnce() -> R + Send + 'static) -> R {
    /// Tells the queued function, when dropped with the call, that nobody waits for it.
    struct Waiting(Arc<AtomicBool>);
    impl Drop for Waiting {
        fn drop(&mut self) {
            self.0.store(false, Ordering::Release);
        }
    }
    let waiting = Waiting(Arc::new(AtomicBool::new(true)));
    let wanted = waiting.0.clone();
    match tokio::task::spawn_blocking(move || wanted.load(Ordering::Acquire).then(run)).await {
        Ok(Some(output)) => output,
        // Not run: this call was dropped first, so nothing awaits this any more.
        Ok(None) => std::future::pending().await,
        Err(failed) => match failed.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // The runtime is shutting down: no answer will be written anyway.
            Err(_) => std::future::pending().await,
        },
    }
}
