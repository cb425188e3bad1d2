//! Waiting for the server to acknowledge the notifications and answers the client POSTs
//! (`202 Accepted`, which the spec has the server send at once), without letting a
//! server that never does hold up what the client sends after them.
//!
//! Each such POST runs on a task of its own, waiting [`ACKNOWLEDGE_WAIT`] at most; at
//! most [`MAX_UNACKNOWLEDGED`] run at once, and past that the writer waits for one of
//! them to end (back-pressure rather than a queue that grows). The tasks end with the
//! connection; at its close what is still unacknowledged gets the rest of one wait.

use std::sync::Arc;
use std::time::Duration;

use mcpwire_protocol::Message;
use tokio::sync::Semaphore;

use super::Shared;

/// How long a notification or an answer waits for the server's acknowledgement, and the
/// standalone GET stream for its head, before the client goes on without it.
pub(super) const ACKNOWLEDGE_WAIT: Duration = Duration::from_secs(5);

/// The most notifications and answers waiting for their acknowledgement at once.
const MAX_UNACKNOWLEDGED: usize = 16;

/// The notifications and answers of one connection still waiting for the server to
/// acknowledge them.
pub(super) struct Acknowledgements {
    slots: Arc<Semaphore>,
}

impl Acknowledgements {
    /// None waiting yet.
    pub(super) fn new() -> Self {
        Acknowledgements { slots: Arc::new(Semaphore::new(MAX_UNACKNOWLEDGED)) }
    }

    /// POSTs `message` on a task of its own, which waits for the acknowledgement while
    /// the caller goes on; waits first for one of [`MAX_UNACKNOWLEDGED`] slots.
    pub(super) async fn in_background(
        &self,
        shared: &Arc<Shared>,
        message: Message,
        stateless: Option<String>,
    ) {
        let Ok(slot) = self.slots.clone().acquire_owned().await else { return };
        let task_shared = shared.clone();
        shared.spawn_until_closed(async move {
            acknowledged(&task_shared, message, stateless).await;
            drop(slot);
        });
    }

    /// Waits, [`ACKNOWLEDGE_WAIT`] at most in all, for what is still unacknowledged: a
    /// notification sent just before the connection closes still gets its moment.
    pub(super) async fn settle(&self) {
        let all = MAX_UNACKNOWLEDGED as u32;
        let _ = tokio::time::timeout(ACKNOWLEDGE_WAIT, self.slots.acquire_many(all)).await;
    }
}

/// POSTs `message` and waits [`ACKNOWLEDGE_WAIT`] at most for the server to acknowledge
/// it. Awaited by the writer itself for what must reach the server before anything sent
/// after it (`notifications/initialized`).
pub(super) async fn acknowledged(shared: &Arc<Shared>, message: Message, stateless: Option<String>) {
    if tokio::time::timeout(ACKNOWLEDGE_WAIT, shared.exchange(message, stateless)).await.is_err() {
        tracing::warn!(
            "the server did not acknowledge a notification or answer within {ACKNOWLEDGE_WAIT:?}; going on"
        );
    }
}
