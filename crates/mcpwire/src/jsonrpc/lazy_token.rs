//! A connection's shutdown token, made only when something waits on it.
//!
//! A 2026 HTTP request is a connection of its own ([`super::serve_one`]), and nearly
//! always nothing waits for it to shut down: no handler asks for its token (the child of
//! this one), nothing is spawned that watches it. Making a `CancellationToken`, then
//! cancelling and dropping it, is an allocation and several lock round trips per
//! request; this one is a flag until someone asks for the token itself.
//!
//! [`on_demand`] and [`cancel_made`] are the two halves of making a token on demand
//! beside a flag that may be set at the same moment; a request's own token
//! (`InFlight::token`) is made the same way.

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
        on_demand(&self.token, CancellationToken::new, || self.cancelled.load(Ordering::Relaxed)).0
    }

    /// Cancels the token (and any made later).
    pub(crate) fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
        cancel_made(&self.token);
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

/// The token in `cell`, made with `make` if it is not yet, and whether this call made it
/// (or took the one another thread made at that moment). One made here is cancelled at
/// once if `fired` says its owner's flag is set; the owner's cancel sets the flag, then
/// calls [`cancel_made`]. Each side has a fence between its write and its read, so one of
/// the two sees the other and a token made while its owner fires is never left
/// uncancelled. A token made already is returned without the fence: whoever made it did
/// the check (a reading loop asks for its token once per message, and a fence is not
/// free).
pub(crate) fn on_demand(
    cell: &OnceLock<CancellationToken>,
    make: impl FnOnce() -> CancellationToken,
    fired: impl FnOnce() -> bool,
) -> (&CancellationToken, bool) {
    if let Some(token) = cell.get() {
        return (token, false);
    }
    let token = cell.get_or_init(make);
    fence(Ordering::SeqCst);
    if fired() {
        token.cancel();
    }
    (token, true)
}

/// The cancel side of [`on_demand`], after the owner's flag is set: cancels the token in
/// `cell` if one was made.
pub(crate) fn cancel_made(cell: &OnceLock<CancellationToken>) {
    fence(Ordering::SeqCst);
    if let Some(token) = cell.get() {
        token.cancel();
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
