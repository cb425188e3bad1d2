//! A connection's shutdown token, made only when something waits on it.
//!
//! A 2026 HTTP request is a connection of its own ([`super::serve_one`]), and nearly
//! always nothing waits for it to shut down: no handler asks for its token (the child of
//! this one), nothing is spawned that watches it. Making a `CancellationToken`, then
//! cancelling and dropping it, is an allocation and several lock round trips per
//! request; this one is a flag until someone asks for the token itself.

use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::OnceLock;

use tokio_util::sync::CancellationToken;

/// A flag, and the token it stands for once asked for (born cancelled if the flag is set).
#[derive(Default)]
pub(crate) struct LazyToken {
    cancelled: AtomicBool,
    token: OnceLock<CancellationToken>,
}

impl LazyToken {
    /// The token, made now if it was not: cancelled already if [`LazyToken::cancel`] ran
    /// (or, when another thread is making it at that moment, as soon as that thread has).
    pub(crate) fn get(&self) -> &CancellationToken {
        // Made already: whoever made it did the check below (a reading loop asks for the
        // token once per message, and the fence is not free).
        if let Some(token) = self.token.get() {
            return token;
        }
        let token = self.token.get_or_init(CancellationToken::new);
        // Published, then the flag read; `cancel` writes the flag, then reads the token:
        // with a fence in each, one of the two sees the other, so the token is cancelled
        // whichever comes first.
        fence(Ordering::SeqCst);
        if self.cancelled.load(Ordering::Relaxed) {
            token.cancel();
        }
        token
    }

    /// Cancels the token (and any made later).
    pub(crate) fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        if let Some(token) = self.token.get() {
            token.cancel();
        }
    }

    /// Whether [`LazyToken::cancel`] ran.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    /// Resolves once the token is cancelled.
    pub(crate) async fn cancelled(&self) {
        self.get().cancelled().await;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    #[test]
    fn no_token_is_made_until_asked_for() {
        let lazy = LazyToken::default();
        assert!(!lazy.is_cancelled());
        lazy.cancel();
        assert!(lazy.is_cancelled());
        assert!(lazy.token.get().is_none(), "cancelling made no token");
        assert!(lazy.get().is_cancelled(), "a token asked for later is born cancelled");
    }

    #[test]
    fn a_token_asked_for_first_is_cancelled_with_its_children() {
        let lazy = LazyToken::default();
        let child = lazy.get().child_token();
        assert!(!child.is_cancelled());
        lazy.cancel();
        assert!(lazy.get().is_cancelled() && child.is_cancelled());
    }

    #[tokio::test]
    async fn a_waiter_wakes_when_cancelled() {
        let lazy = Arc::new(LazyToken::default());
        let waiting = tokio::spawn({
            let lazy = lazy.clone();
            async move { lazy.cancelled().await }
        });
        tokio::task::yield_now().await;
        lazy.cancel();
        tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap();
    }

    /// Making the token on one thread while another cancels: the token ends up
    /// cancelled, every time.
    #[test]
    fn a_race_between_asking_and_cancelling_never_loses_the_cancel() {
        for _ in 0..2_000 {
            let lazy = Arc::new(LazyToken::default());
            let asking = std::thread::spawn({
                let lazy = lazy.clone();
                move || lazy.get().clone()
            });
            lazy.cancel();
            let token = asking.join().unwrap();
            assert!(token.is_cancelled());
        }
    }
}
