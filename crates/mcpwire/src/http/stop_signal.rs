//! The listener's stop token as a connection waits for it: an atomic check per poll
//! instead of two locks.
//!
//! A connection's task waits for its next request and for the listener's stop token at
//! once, and `tokio::select!` polls both every time the task wakes, which is at least
//! once per request. Polling a token's future takes the token's lock and its wait list's
//! lock, and every connection shares the listener's token, so each request took two
//! locks that all connections contend for. [`StopSignal`] polls the token's future only
//! when that future has woken it (and on its first poll, which registers it): the future
//! gets a waker of this module's, which notes the wake before passing it on.
//!
//! Why not hyper-util's `GracefulShutdown`: its `watch` receiver takes a lock shared with
//! other connections on every wake of a connection's task (the contention avoided here),
//! and the connections it watches run on past any deadline put on its shutdown.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

/// Resolves once the token is cancelled.
pub(super) struct StopSignal {
    cancelled: Pin<Box<WaitForCancellationFutureOwned>>,
    wake: Arc<NotedWake>,
    /// `wake` as a waker, made once.
    waker: Waker,
    /// Whether the token's future has been polled (and so holds `waker`).
    registered: bool,
}

/// The waker the token's future holds: notes that it fired, then wakes the task.
#[derive(Default)]
struct NotedWake {
    fired: AtomicBool,
    task: AtomicWaker,
}

impl Wake for NotedWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.fired.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl StopSignal {
    pub(super) fn new(token: CancellationToken) -> Self {
        let wake = Arc::new(NotedWake::default());
        let waker = Waker::from(wake.clone());
        StopSignal { cancelled: Box::pin(token.cancelled_owned()), wake, waker, registered: false }
    }
}

impl Future for StopSignal {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        // Registered before `fired` is read: a wake after the read wakes this task.
        this.wake.task.register(cx.waker());
        if this.registered && !this.wake.fired.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        this.registered = true;
        this.cancelled.as_mut().poll(&mut Context::from_waker(&this.waker))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_token_cancelled_before_the_first_poll_resolves_it() {
        let token = CancellationToken::new();
        token.cancel();
        tokio::time::timeout(Duration::from_secs(5), StopSignal::new(token)).await.expect("resolved");
    }

    #[tokio::test]
    async fn a_waiting_signal_resolves_when_the_token_is_cancelled() {
        let token = CancellationToken::new();
        let mut signal = StopSignal::new(token.clone());
        // Pending, polled again and again as a select does, without the token's wake.
        for _ in 0..3 {
            assert!(futures_util::poll!(&mut signal).is_pending());
        }
        let waiting = tokio::spawn(signal);
        tokio::task::yield_now().await;
        token.cancel();
        tokio::time::timeout(Duration::from_secs(5), waiting).await.expect("resolved").expect("no panic");
    }

    #[tokio::test]
    async fn every_connection_sees_the_one_token() {
        let token = CancellationToken::new();
        let waiting: Vec<_> = (0..4).map(|_| tokio::spawn(StopSignal::new(token.clone()))).collect();
        tokio::task::yield_now().await;
        token.cancel();
        for task in waiting {
            tokio::time::timeout(Duration::from_secs(5), task).await.expect("resolved").expect("no panic");
        }
    }
}
