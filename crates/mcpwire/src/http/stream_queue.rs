//! The bounded queue between a 2025 session's router and the HTTP response carrying one
//! of its streams: one sender (the stream's entry in the session), one receiver (the
//! response body), at most `capacity` events waiting.
//!
//! Nearly every POST opens a stream for its one request, and the stream carries one or
//! two chunks before it ends (the JSON answer; or, as SSE, the priming event and then the
//! events up to the answer). tokio's channel is built
//! for many senders and long lives: making one allocates its shared state and a block of
//! 32 slots (past the allocator's per-thread cache), and every send and receive goes
//! through its semaphore. For this one-to-one queue a mutex over a deque does the same
//! job with two small allocations; the session's own lock already orders the sends.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;

/// Makes a queue that holds at most `capacity` events (at least one).
pub(crate) fn stream_queue(capacity: usize) -> (StreamSender, StreamReceiver) {
    let shared = Arc::new(Mutex::new(State {
        events: VecDeque::new(),
        capacity: capacity.max(1),
        waker: None,
        sender_gone: false,
        receiver_gone: false,
        json: false,
    }));
    (StreamSender(shared.clone()), StreamReceiver(shared))
}

struct State {
    events: VecDeque<Bytes>,
    capacity: usize,
    /// The receiver's waker while it waits for an event.
    waker: Option<Waker>,
    sender_gone: bool,
    receiver_gone: bool,
    /// The stream carries its request's answer as plain JSON, not as SSE events.
    json: bool,
}

type Shared = Arc<Mutex<State>>;

/// The state, even if a thread panicked while holding it (every update is whole).
fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Why an event was not queued. The event is dropped either way.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// `capacity` events are waiting: the reader is not keeping up.
    Full,
    /// The receiver is gone (the response ended or its client went away).
    Closed,
}

/// The sending end. Dropping it ends the stream once its events are read.
pub(crate) struct StreamSender(Shared);

impl StreamSender {
    /// Queues `event` without waiting.
    pub(crate) fn try_send(&self, event: Bytes) -> Result<(), Refused> {
        let mut state = lock(&self.0);
        if state.receiver_gone {
            return Err(Refused::Closed);
        }
        if state.events.len() >= state.capacity {
            return Err(Refused::Full);
        }
        state.events.push_back(event);
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Marks the stream as one plain JSON answer (before that answer is queued).
    pub(crate) fn mark_json(&self) {
        lock(&self.0).json = true;
    }

    /// Whether the receiver is gone.
    pub(crate) fn is_closed(&self) -> bool {
        lock(&self.0).receiver_gone
    }

    /// A handle that can end the stream at once, and does not keep it open.
    pub(crate) fn ender(&self) -> StreamEnder {
        StreamEnder(Arc::downgrade(&self.0))
    }
}

/// Ends a stream at once, dropping what its reader has not taken: for a connection that
/// another takes the place of (the events stay in the event store, for resumption).
pub(crate) struct StreamEnder(Weak<Mutex<State>>);

impl StreamEnder {
    /// Ends the stream now.
    pub(crate) fn end_now(&self) {
        let Some(shared) = self.0.upgrade() else { return };
        let mut state = lock(&shared);
        state.events = VecDeque::new();
        state.sender_gone = true;
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether the stream's reader is gone (nothing left to end).
    pub(crate) fn is_gone(&self) -> bool {
        self.0.upgrade().is_none_or(|shared| lock(&shared).receiver_gone)
    }
}

impl Drop for StreamSender {
    fn drop(&mut self) {
        let mut state = lock(&self.0);
        state.sender_gone = true;
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The receiving end: the events in order, then `None` once the sender is gone.
pub(crate) struct StreamReceiver(Shared);

impl std::fmt::Debug for StreamReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StreamReceiver")
    }
}

impl StreamReceiver {
    /// The next event, `Ready(None)` when the stream has ended.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let mut state = lock(&self.0);
        if let Some(event) = state.events.pop_front() {
            return Poll::Ready(Some(event));
        }
        if state.sender_gone {
            return Poll::Ready(None);
        }
        match &mut state.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// Waits until an event is queued or the stream has ended, without taking anything.
    pub(crate) async fn ready(&mut self) {
        poll_fn(|cx| {
            let mut state = lock(&self.0);
            if !state.events.is_empty() || state.sender_gone {
                return Poll::Ready(());
            }
            match &mut state.waker {
                Some(waker) if waker.will_wake(cx.waker()) => {}
                slot => *slot = Some(cx.waker().clone()),
            }
            Poll::Pending
        })
        .await
    }

    /// The next event if one is waiting: `Ok(Some(_))`, `Ok(None)` when the stream has
    /// ended, `Err(())` when it is open and empty.
    pub(crate) fn try_recv(&mut self) -> Result<Option<Bytes>, ()> {
        let mut state = lock(&self.0);
        match state.events.pop_front() {
            Some(event) => Ok(Some(event)),
            None if state.sender_gone => Ok(None),
            None => Err(()),
        }
    }

    /// Whether the sender marked the stream as one plain JSON answer
    /// ([`StreamSender::mark_json`]).
    pub(crate) fn is_json(&self) -> bool {
        lock(&self.0).json
    }

    /// Waits for the next event; `None` when the stream has ended.
    pub(crate) async fn recv(&mut self) -> Option<Bytes> {
        poll_fn(|cx| self.poll_recv(cx)).await
    }
}

impl Drop for StreamReceiver {
    fn drop(&mut self) {
        let mut state = lock(&self.0);
        state.receiver_gone = true;
        // What was not read is dropped now, not when the sender goes.
        let events = std::mem::take(&mut state.events);
        state.waker = None;
        drop(state);
        drop(events);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn events_come_in_order_then_the_end() {
        let (tx, mut rx) = stream_queue(4);
        tx.try_send(Bytes::from_static(b"a")).unwrap();
        tx.try_send(Bytes::from_static(b"b")).unwrap();
        drop(tx);
        assert_eq!(rx.recv().await.as_deref(), Some(&b"a"[..]));
        assert_eq!(rx.try_recv().unwrap().as_deref(), Some(&b"b"[..]));
        assert_eq!(rx.try_recv(), Ok(None));
        assert_eq!(rx.recv().await, None);
    }

    #[tokio::test]
    async fn an_ender_ends_the_stream_at_once_and_keeps_nothing_alive() {
        let (tx, mut rx) = stream_queue(4);
        let ender = tx.ender();
        tx.try_send(Bytes::from_static(b"unread")).unwrap();
        assert!(!ender.is_gone());
        ender.end_now();
        assert_eq!(rx.recv().await, None, "what the reader had not taken is dropped");
        drop(tx);
        drop(rx);
        assert!(ender.is_gone());
        ender.end_now();
    }

    #[tokio::test]
    async fn ready_waits_for_an_event_and_takes_nothing() {
        let (tx, mut rx) = stream_queue(2);
        let waiting = tokio::time::timeout(Duration::from_millis(20), rx.ready()).await;
        assert!(waiting.is_err(), "nothing queued yet");
        tx.try_send(Bytes::from_static(b"x")).unwrap();
        rx.ready().await;
        assert_eq!(rx.try_recv().unwrap().as_deref(), Some(&b"x"[..]), "still there");
        drop(tx);
        rx.ready().await;
    }

    #[tokio::test]
    async fn an_open_empty_queue_has_nothing_to_try() {
        let (tx, mut rx) = stream_queue(1);
        assert_eq!(rx.try_recv(), Err(()));
        tx.try_send(Bytes::from_static(b"x")).unwrap();
        assert_eq!(rx.try_recv().unwrap().as_deref(), Some(&b"x"[..]));
        assert_eq!(rx.try_recv(), Err(()));
    }

    #[tokio::test]
    async fn a_full_queue_refuses_and_a_read_makes_room() {
        let (tx, mut rx) = stream_queue(2);
        tx.try_send(Bytes::from_static(b"1")).unwrap();
        tx.try_send(Bytes::from_static(b"2")).unwrap();
        assert_eq!(tx.try_send(Bytes::from_static(b"3")), Err(Refused::Full));
        assert_eq!(rx.recv().await.as_deref(), Some(&b"1"[..]));
        tx.try_send(Bytes::from_static(b"3")).unwrap();
        assert_eq!(rx.recv().await.as_deref(), Some(&b"2"[..]));
        assert_eq!(rx.recv().await.as_deref(), Some(&b"3"[..]));
    }

    #[test]
    fn the_receiver_sees_the_senders_json_mark() {
        let (tx, rx) = stream_queue(1);
        assert!(!rx.is_json());
        tx.mark_json();
        drop(tx);
        assert!(rx.is_json(), "the mark outlives the sender");
    }

    #[tokio::test]
    async fn a_capacity_of_zero_holds_one() {
        let (tx, _rx) = stream_queue(0);
        tx.try_send(Bytes::new()).unwrap();
        assert_eq!(tx.try_send(Bytes::new()), Err(Refused::Full));
    }

    #[tokio::test]
    async fn a_dropped_receiver_closes_the_queue_and_frees_its_events() {
        let (tx, rx) = stream_queue(4);
        let event = Bytes::from(vec![7u8; 64]);
        tx.try_send(event.clone()).unwrap();
        assert!(!tx.is_closed());
        drop(rx);
        assert!(tx.is_closed());
        assert_eq!(tx.try_send(Bytes::new()), Err(Refused::Closed));
        // The queued copy is gone: only this one is left.
        assert!(event.is_unique());
    }

    #[tokio::test]
    async fn a_waiting_receiver_wakes_for_an_event_and_for_the_end() {
        let (tx, mut rx) = stream_queue(4);
        let reader = tokio::spawn(async move {
            let first = rx.recv().await;
            let end = rx.recv().await;
            (first, end)
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        tx.try_send(Bytes::from_static(b"x")).unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(tx);
        let (first, end) = tokio::time::timeout(Duration::from_secs(5), reader).await.unwrap().unwrap();
        assert_eq!(first.as_deref(), Some(&b"x"[..]));
        assert_eq!(end, None);
    }

    #[test]
    fn works_across_threads() {
        let (tx, mut rx) = stream_queue(8);
        let writer = std::thread::spawn(move || {
            let mut sent = 0u32;
            while sent < 1000 {
                if tx.try_send(Bytes::from(sent.to_be_bytes().to_vec())).is_ok() {
                    sent += 1;
                } else {
                    std::thread::yield_now();
                }
            }
        });
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let got = runtime.block_on(async {
            let mut got = Vec::new();
            while let Some(event) = rx.recv().await {
                got.push(u32::from_be_bytes(event[..].try_into().unwrap()));
            }
            got
        });
        writer.join().unwrap();
        assert_eq!(got, (0..1000).collect::<Vec<_>>());
    }
}
