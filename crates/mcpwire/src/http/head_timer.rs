//! hyper's timer for one connection's request-head deadline, with one tokio timer for the
//! connection's whole life.
//!
//! hyper arms the head deadline for every request: it asks its timer for a new sleep
//! while it waits for the head (keep-alive idle time included) and drops that sleep as
//! soon as the head is read. With hyper-util's `TokioTimer` each of those sleeps is a new
//! tokio timer, registered in the runtime's timer wheel on its first poll and taken out
//! again under the driver's lock when dropped: about 1.5k instructions per request.
//!
//! [`HeadTimer`] keeps one tokio [`Sleep`](tokio::time::Sleep) per connection instead and
//! moves its deadline. A deadline later than the one registered is a single atomic
//! update in tokio (the wheel sees the new deadline when the old one comes round), so a
//! busy connection touches the wheel about once per
//! [`head_timeout`](super::HttpSettings::head_timeout) rather than twice per request. The protection is the same: a head that has not
//! arrived by its deadline ends the connection.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The connection's one tokio timer, made on first use (it needs the runtime's context,
/// which hyper's first call has).
type Slot = Mutex<Option<Pin<Box<tokio::time::Sleep>>>>;

/// A [`hyper::rt::Timer`] for one connection. Make a new one for each connection: every
/// sleep it hands out shares its one tokio timer, which is right for hyper's HTTP/1 server
/// (it holds at most one sleep at a time, the head deadline) and for nothing else.
#[derive(Default)]
pub(super) struct HeadTimer {
    slot: Arc<Slot>,
}

impl hyper::rt::Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.sleep_until(self.now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        let mut slot = lock(&self.slot);
        match slot.as_mut() {
            Some(sleep) => sleep.as_mut().reset(deadline.into()),
            None => *slot = Some(Box::pin(tokio::time::sleep_until(deadline.into()))),
        }
        drop(slot);
        Box::pin(HeadSleep { slot: Arc::clone(&self.slot) })
    }

    /// tokio's clock, the one the deadlines are measured on (it differs from the system's
    /// only when a test pauses time).
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }
}

/// One sleep handed to hyper: a handle on the connection's tokio timer.
struct HeadSleep {
    slot: Arc<Slot>,
}

impl Future for HeadSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match lock(&self.slot).as_mut() {
            Some(sleep) => sleep.as_mut().poll(cx),
            // Not reachable (a handle exists only after its timer was made); a sleep
            // with no timer never ends.
            None => Poll::Pending,
        }
    }
}

impl hyper::rt::Sleep for HeadSleep {}

/// The slot, even if a thread panicked while holding it (the timer inside is still
/// whole: every update of it is a single call).
fn lock(slot: &Slot) -> MutexGuard<'_, Option<Pin<Box<tokio::time::Sleep>>>> {
    slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::rt::Timer;

    #[tokio::test(start_paused = true)]
    async fn a_sleep_ends_at_its_deadline() {
        let timer = HeadTimer::default();
        let start = tokio::time::Instant::now();
        timer.sleep(Duration::from_secs(30)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn a_later_sleep_moves_the_shared_deadline() {
        let timer = HeadTimer::default();
        let start = tokio::time::Instant::now();
        let mut first = timer.sleep(Duration::from_secs(30));
        // Waited on while the connection was idle (so registered for 30 s)...
        assert!(tokio::time::timeout(Duration::from_secs(20), &mut first).await.is_err());
        drop(first);
        // ...then the next request's head: a new deadline 30 s from now, 50 s from the start.
        timer.sleep(Duration::from_secs(30)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(50));
    }

    #[tokio::test(start_paused = true)]
    async fn a_timer_that_fired_unwatched_is_armed_again() {
        let timer = HeadTimer::default();
        let mut idle = timer.sleep(Duration::from_secs(1));
        // Waited on (so registered with the runtime) while the connection was idle...
        let waited = tokio::time::timeout(Duration::from_millis(10), &mut idle).await;
        assert!(waited.is_err());
        drop(idle);
        // ...then its deadline passes while nobody waits (a long request).
        tokio::time::advance(Duration::from_secs(5)).await;
        let start = tokio::time::Instant::now();
        timer.sleep(Duration::from_secs(30)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn reset_moves_the_deadline_of_a_held_sleep() {
        let timer = HeadTimer::default();
        let start = tokio::time::Instant::now();
        let mut sleep = timer.sleep(Duration::from_secs(30));
        timer.reset(&mut sleep, timer.now() + Duration::from_secs(5));
        sleep.await;
        assert_eq!(start.elapsed(), Duration::from_secs(5));
    }
}
