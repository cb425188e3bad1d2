//! Answering a JSON-RPC batch on a line transport with one array, as JSON-RPC 2.0 asks:
//! the reader notes which requests came together, and the writer holds their answers
//! until the last one is in, then writes them all on one line.
//!
//! A request of a batch that settles without an answer (the peer cancelled it) is let go
//! through the transport's unanswered hook, so its batch does not wait for it. A batch
//! whose items all went unanswered writes nothing (JSON-RPC: never an empty array). When
//! the connection closes, what a batch has gathered so far is written as it is.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures_util::task::AtomicWaker;
use mcpwire_protocol::{IdKey, Message, RequestId};

use crate::id_map::IdMap;

/// The batches of one connection whose answers are still being gathered, shared by its
/// reader, its writer and the unanswered hooks of their requests.
#[derive(Default)]
pub(crate) struct BatchAnswers {
    state: Mutex<State>,
    /// How many requests are awaited: the writer looks an answer up only when some are.
    awaited: AtomicUsize,
    /// Set when a batch completed away from the writer (see [`State::ready`]).
    ready: AtomicBool,
    /// The writer, woken for such a batch.
    writer: AtomicWaker,
}

#[derive(Default)]
struct State {
    next: u64,
    /// The batch each awaited request belongs to, by the request's id, and how many
    /// answers with that id it awaits (more than one when the batch repeats the id: the
    /// repeat is answered with an error under the same id, and that answer is the
    /// batch's too).
    awaited: IdMap<IdKey, (u64, usize)>,
    batches: HashMap<u64, Gathering>,
    /// Batches completed by the reader or by an unanswered hook, for the writer to write.
    ready: Vec<Vec<Message>>,
}

/// One batch's answers so far, and how many more it waits for.
struct Gathering {
    left: usize,
    answers: Vec<Message>,
}

/// A batch the reader is taking in; [`BatchAnswers::close`] ends it.
pub(crate) struct Batch(u64);

/// What the writer does with an outgoing message.
pub(crate) enum Gathered {
    /// It answers no awaited request: written as it is.
    Alone(Message),
    /// It was the last answer of its batch: the batch's answers, to write as one array.
    Complete(Vec<Message>),
    /// Held with its batch, which waits for more.
    Held,
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl State {
    /// Counts one answer to `key` as in: the batch that awaited it, if one did.
    fn take_awaited(&mut self, key: &IdKey) -> Option<u64> {
        let (n, count) = self.awaited.get_mut(key)?;
        let n = *n;
        *count -= 1;
        if *count == 0 {
            self.awaited.remove(key);
        }
        Some(n)
    }

    /// Counts one item of batch `n` settled (with `answer`, if any); its answers once
    /// nothing is left.
    fn settle(&mut self, n: u64, answer: Option<Message>) -> Option<Vec<Message>> {
        let gathering = self.batches.get_mut(&n)?;
        gathering.answers.extend(answer);
        gathering.left -= 1;
        if gathering.left > 0 {
            return None;
        }
        self.batches.remove(&n).map(|g| g.answers)
    }

    /// Queues a completed batch for the writer; `true` when there is something to write.
    fn make_ready(&mut self, answers: Option<Vec<Message>>) -> bool {
        match answers {
            Some(answers) if !answers.is_empty() => {
                self.ready.push(answers);
                true
            }
            _ => false,
        }
    }
}

impl BatchAnswers {
    /// Starts a batch. It cannot complete before [`BatchAnswers::close`], however fast its
    /// requests are answered.
    pub(crate) fn open(&self) -> Batch {
        let mut state = lock(&self.state);
        let n = state.next;
        state.next += 1;
        state.batches.insert(n, Gathering { left: 1, answers: Vec::new() });
        Batch(n)
    }

    /// Awaits the answer to request `id` of `batch`; `false` (and the request's answer
    /// will go alone) when that id is already awaited by another batch.
    pub(crate) fn expect(&self, batch: &Batch, id: &RequestId) -> bool {
        let mut state = lock(&self.state);
        let key = id.key();
        match state.awaited.get_mut(&key) {
            Some((n, count)) if *n == batch.0 => *count += 1,
            Some(_) => return false,
            None => {
                state.awaited.insert(key, (batch.0, 1));
            }
        }
        if let Some(gathering) = state.batches.get_mut(&batch.0) {
            gathering.left += 1;
        }
        self.awaited.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Adds an answer the reader made itself (to an item it could not decode).
    pub(crate) fn add(&self, batch: &Batch, answer: Message) {
        if let Some(gathering) = lock(&self.state).batches.get_mut(&batch.0) {
            gathering.answers.push(answer);
        }
    }

    /// Ends taking in `batch`: it completes when its last awaited answer is in, or now.
    pub(crate) fn close(&self, batch: Batch) {
        let mut state = lock(&self.state);
        let complete = state.settle(batch.0, None);
        if state.make_ready(complete) {
            self.wake_writer();
        }
    }

    /// The writer's look at an outgoing message: an answer to an awaited request joins its
    /// batch.
    pub(crate) fn gather(&self, message: Message) -> Gathered {
        if self.awaited.load(Ordering::Relaxed) == 0 {
            return Gathered::Alone(message);
        }
        let key = match &message {
            Message::Response(r) => r.id.key(),
            Message::Error(e) => match &e.id {
                Some(id) => id.key(),
                None => return Gathered::Alone(message),
            },
            _ => return Gathered::Alone(message),
        };
        let mut state = lock(&self.state);
        let Some(n) = state.take_awaited(&key) else { return Gathered::Alone(message) };
        self.awaited.fetch_sub(1, Ordering::Relaxed);
        match state.settle(n, Some(message)) {
            Some(answers) => Gathered::Complete(answers),
            None => Gathered::Held,
        }
    }

    /// Request `id` settled without an answer: its batch stops waiting for it.
    pub(crate) fn unanswered(&self, id: &RequestId) {
        let mut state = lock(&self.state);
        let Some(n) = state.take_awaited(&id.key()) else { return };
        self.awaited.fetch_sub(1, Ordering::Relaxed);
        let complete = state.settle(n, None);
        if state.make_ready(complete) {
            self.wake_writer();
        }
    }

    fn wake_writer(&self) {
        self.ready.store(true, Ordering::Release);
        self.writer.wake();
    }

    /// The hook that lets request `id` go from its batch if it is never answered.
    pub(crate) fn hook(self: &Arc<Self>, id: RequestId) -> crate::transport::UnansweredHook {
        let batches = self.clone();
        Box::new(move || batches.unanswered(&id))
    }

    /// Ready when a batch completed away from the writer since the last time it was;
    /// otherwise the writer's task is woken when one does.
    pub(crate) fn poll_completed_elsewhere(&self, cx: &mut Context<'_>) -> Poll<()> {
        // Registered before the flag is read, so a batch made ready in between still
        // wakes the writer.
        self.writer.register(cx.waker());
        match self.ready.swap(false, Ordering::Acquire) {
            true => Poll::Ready(()),
            false => Poll::Pending,
        }
    }

    /// The batches completed away from the writer.
    pub(crate) fn take_ready(&self) -> Vec<Vec<Message>> {
        std::mem::take(&mut lock(&self.state).ready)
    }

    /// Everything gathered, complete or not (the connection is closing).
    pub(crate) fn take_all(&self) -> Vec<Vec<Message>> {
        let mut state = lock(&self.state);
        state.awaited.clear();
        self.awaited.store(0, Ordering::Relaxed);
        let mut all = std::mem::take(&mut state.ready);
        all.extend(state.batches.drain().map(|(_, g)| g.answers).filter(|a| !a.is_empty()));
        all
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use mcpwire_protocol::Response;

    fn answer(id: i64) -> Message {
        Message::Response(Response::new(RequestId::Number(id), serde_json::value::RawValue::NULL.to_owned()))
    }

    fn ids(messages: &[Message]) -> Vec<i64> {
        messages
            .iter()
            .map(|m| match m {
                Message::Response(r) => match r.id {
                    RequestId::Number(n) => n,
                    RequestId::String(_) => -1,
                },
                _ => -1,
            })
            .collect()
    }

    #[test]
    fn answers_are_held_until_the_last_one_and_others_go_alone() {
        let batches = BatchAnswers::default();
        let batch = batches.open();
        assert!(batches.expect(&batch, &RequestId::Number(1)));
        assert!(batches.expect(&batch, &RequestId::Number(2)));
        // Answered before the reader is done with the batch: held.
        assert!(matches!(batches.gather(answer(2)), Gathered::Held));
        let other = batches.open();
        assert!(!batches.expect(&other, &RequestId::Number(1)), "awaited by another batch: alone");
        batches.close(other);
        batches.close(batch);
        assert!(matches!(batches.gather(answer(7)), Gathered::Alone(_)));
        match batches.gather(answer(1)) {
            Gathered::Complete(answers) => assert_eq!(ids(&answers), [2, 1]),
            _ => panic!("the last answer completes the batch"),
        }
        assert!(matches!(batches.gather(answer(1)), Gathered::Alone(_)), "no longer awaited");
        assert!(batches.take_ready().is_empty());
    }

    #[test]
    fn an_id_repeated_in_one_batch_has_both_answers_in_it() {
        let batches = BatchAnswers::default();
        let batch = batches.open();
        assert!(batches.expect(&batch, &RequestId::Number(1)));
        assert!(batches.expect(&batch, &RequestId::Number(1)), "the repeat's error answers under it");
        batches.close(batch);
        assert!(matches!(batches.gather(answer(1)), Gathered::Held));
        match batches.gather(answer(1)) {
            Gathered::Complete(answers) => assert_eq!(ids(&answers), [1, 1]),
            _ => panic!("both answers complete the batch"),
        }
        assert!(matches!(batches.gather(answer(1)), Gathered::Alone(_)), "no longer awaited");
    }

    #[test]
    fn an_unanswered_request_lets_its_batch_complete_and_an_empty_one_writes_nothing() {
        let batches = BatchAnswers::default();
        let batch = batches.open();
        batches.expect(&batch, &RequestId::Number(1));
        batches.expect(&batch, &RequestId::Number(2));
        batches.close(batch);
        assert!(matches!(batches.gather(answer(1)), Gathered::Held));
        batches.unanswered(&RequestId::Number(2));
        assert_eq!(batches.take_ready().iter().map(|a| ids(a)).collect::<Vec<_>>(), [vec![1]]);

        let batch = batches.open();
        batches.expect(&batch, &RequestId::Number(3));
        batches.close(batch);
        batches.unanswered(&RequestId::Number(3));
        assert!(batches.take_ready().is_empty(), "never an empty array");
    }

    #[test]
    fn a_batch_of_answers_the_reader_made_is_ready_when_closed_and_closing_takes_the_rest() {
        let batches = BatchAnswers::default();
        let batch = batches.open();
        batches.add(&batch, answer(5));
        batches.close(batch);
        assert_eq!(batches.take_ready().iter().map(|a| ids(a)).collect::<Vec<_>>(), [vec![5]]);

        let batch = batches.open();
        batches.expect(&batch, &RequestId::Number(1));
        batches.expect(&batch, &RequestId::Number(2));
        batches.close(batch);
        assert!(matches!(batches.gather(answer(1)), Gathered::Held));
        assert_eq!(batches.take_all().iter().map(|a| ids(a)).collect::<Vec<_>>(), [vec![1]]);
        assert!(matches!(batches.gather(answer(2)), Gathered::Alone(_)));
    }
}
