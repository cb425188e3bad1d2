//! Taking in one message: the rules a connection applies to what the peer sends, in one
//! place for the reading loop ([`Dispatcher::run`](super::Dispatcher::run)) and for a
//! connection fed by its transport's own tasks (`Direct`).

use std::sync::Arc;

use mcpwire_protocol::{codes, methods, ErrorResponse, Message, Notification, RequestId};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio_util::task::TaskTracker;

use super::{inbound, lock, Handler, NotificationContext, Peer, ProgressUpdate, Shared};
use crate::error::RequestError;
use crate::transport::{Inbound, LocalFailure, Outgoing, TransportEvent};

/// Where requests run: how a request whose method is one of
/// [`DispatcherConfig::inline_methods`](super::DispatcherConfig::inline_methods) runs before the
/// next message is taken in, and where any other request is first polled.
#[derive(Clone, Copy)]
pub(super) enum Inline {
    /// Awaited in the reading loop's own future; other requests go straight to a task
    /// of their own (a loop that polled them would read no more while one computes).
    InPlace,
    /// On a task of its own, awaited by whoever delivered it: a `Direct` connection is
    /// fed from futures that may be dropped (an HTTP request whose client went away), and
    /// a request dropped half-way would never settle. Other requests are polled once by
    /// their deliverer (one HTTP request, which waits for their answer anyway) and move
    /// to a task of their own only if they wait.
    #[cfg(feature = "http")]
    OwnTask,
}

/// What taking in a message needs: the same for a reading loop and for a `Direct`
/// connection, so that both apply the same rules with the same code.
pub(super) struct Intake<H> {
    pub(super) peer: Peer,
    handler: Arc<H>,
    /// At most [`DispatcherConfig::max_in_flight`](super::DispatcherConfig::max_in_flight) requests
    /// at once.
    permits: Arc<Semaphore>,
    pub(super) tasks: TaskTracker,
    inline: Inline,
}

/// What follows a message taken in.
pub(super) enum Next {
    /// Take the next one.
    Read,
    /// Stop reading: the connection is shutting down, or (`transport_closed`) the
    /// transport ended.
    Stop { transport_closed: bool },
}

impl<H: Handler> Intake<H> {
    pub(super) fn new(shared: Arc<Shared>, handler: Arc<H>, inline: Inline) -> Self {
        let permits = Arc::new(Semaphore::new(shared.config.max_in_flight.max(1)));
        Intake { peer: Peer { shared }, handler, permits, tasks: TaskTracker::new(), inline }
    }

    /// Takes in one event: a request starts its task (in arrival order; an inline one
    /// runs to completion first), a notification is handled on a task, a response goes
    /// to the outbound request waiting for it.
    pub(super) async fn take(&self, event: TransportEvent) -> Next {
        let Intake { peer, handler, permits, tasks, inline } = self;
        let shared = &peer.shared;
        match event {
            TransportEvent::Closed { reason } => {
                // Nothing follows `Closed` (the transport's contract).
                *shared.close_reason.lock().unwrap_or_else(|e| e.into_inner()) = reason.map(|r| *r);
                return Next::Stop { transport_closed: true };
            }
            TransportEvent::Invalid(error) => answer_invalid(peer, *error).await,
            TransportEvent::Failed(failure) => {
                let LocalFailure { id, reason } = *failure;
                if !lock(&shared.pending).fail(&id, RequestError::Transport { reason }) {
                    tracing::debug!(%id, "dropped a transport failure for an unknown or abandoned request");
                }
            }
            TransportEvent::Message(inbound) => {
                let Inbound { message, meta } = *inbound;
                match message {
                    Message::Request(request) => {
                        let is_inline = shared.config.inline_methods.contains(&request.method);
                        let permit = match permit(shared, permits, *inline).await {
                            Slot::Taken(permit) => permit,
                            Slot::Full => {
                                peer.send(busy(request.id, shared.config.max_in_flight)).await;
                                return Next::Read;
                            }
                            Slot::Closing => return Next::Stop { transport_closed: false },
                        };
                        let task = match inbound::start_request(peer, handler, request, meta, permit) {
                            Ok(task) => task,
                            Err(duplicate) => {
                                peer.send(duplicate).await;
                                return Next::Read;
                            }
                        };
                        // Boxed once, whichever way it runs. Awaited in place, the
                        // request's whole future would otherwise be a state of this
                        // loop's future, which every connection holds for its lifetime;
                        // spawned, tokio's task cell (aligned to 128 bytes, which the
                        // allocator serves by carving a larger block) holds a pointer
                        // rather than the future, and moves no more than that.
                        let task = Box::pin(task);
                        match (is_inline, inline) {
                            (true, Inline::InPlace) => task.await,
                            #[cfg(feature = "http")]
                            (true, Inline::OwnTask) => {
                                let _ = tasks.spawn(task).await;
                            }
                            (false, Inline::InPlace) => drop(tasks.spawn(task)),
                            #[cfg(feature = "http")]
                            (false, Inline::OwnTask) => {
                                // Polled once in the delivering task first: a request
                                // that answers at once (most tool calls) then costs no
                                // task, no hop to one and back, and runs while what it
                                // read is still in cache. One that waits moves on to
                                // a task of its own, and runs on whatever becomes of
                                // its deliverer.
                                let mut task = task;
                                if super::poll_once(&mut task).await.is_pending() {
                                    drop(tasks.spawn(task));
                                }
                            }
                        }
                    }
                    Message::Notification(notification) => {
                        let arrived = intercept(shared, notification).and_then(|n| {
                            let taken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                handler.on_notification_arrival(n)
                            }));
                            taken.unwrap_or_else(|_| {
                                tracing::error!("a notification's arrival hook panicked");
                                None
                            })
                        });
                        if let Some(notification) = arrived {
                            let ctx = NotificationContext { peer: peer.clone(), extensions: meta.extensions };
                            let handler = handler.clone();
                            tasks.spawn(async move { handler.on_notification(notification, ctx).await });
                        }
                    }
                    Message::Response(response) => {
                        let delivered = lock(&shared.pending).resolve(&response.id, Ok(response.result));
                        if !delivered {
                            tracing::debug!(id = %response.id, "dropped a response for an unknown or abandoned request");
                        }
                    }
                    Message::Error(error) => match &error.id {
                        Some(id) => {
                            if !lock(&shared.pending).resolve(id, Err(error.error.clone())) {
                                tracing::debug!(%id, "dropped an error for an unknown or abandoned request");
                            }
                        }
                        None => {
                            tracing::warn!(error = %error.error, "the peer reported an error without an id")
                        }
                    },
                }
            }
        }
        Next::Read
    }
}

/// What [`permit`] found.
enum Slot {
    /// A slot, held until the request settles.
    Taken(OwnedSemaphorePermit),
    /// Every slot is taken, and this connection does not wait for one.
    Full,
    /// The connection is shutting down.
    Closing,
}

/// A slot for one more request in flight. When all are taken by running handlers, a
/// reading loop ([`Inline::InPlace`]) does not wait: it must go on reading, or the
/// cancellations and the end of input queued behind the request would not be seen until
/// a handler finished (never, for one that waits for them). When they are taken by
/// answers that wait for the peer to read (the transport's queue is full), it waits:
/// neither reading on nor a refusal would get anything written, and the wait is the
/// back-pressure that stops a peer that writes but does not read. A `Direct`
/// connection's deliverer (one HTTP POST, which its client can abandon) waits, watching
/// the shutdown token as well.
async fn permit(shared: &Shared, permits: &Arc<Semaphore>, inline: Inline) -> Slot {
    if shared.shutdown.is_cancelled() {
        return Slot::Closing;
    }
    match permits.clone().try_acquire_owned() {
        Ok(permit) => return Slot::Taken(permit),
        Err(TryAcquireError::Closed) => return Slot::Closing,
        Err(TryAcquireError::NoPermits) => {}
    }
    if matches!(inline, Inline::InPlace) && !shared.output_full() {
        return Slot::Full;
    }
    tokio::select! {
        biased;
        _ = shared.shutdown.cancelled() => Slot::Closing,
        permit = permits.clone().acquire_owned() => permit.map_or(Slot::Closing, Slot::Taken),
    }
}

/// The answer to a request that found every slot of its connection taken: `-32603`, as
/// an HTTP endpoint past its bound answers (with `503`); the client may try again once
/// some of its requests have been answered.
fn busy(id: RequestId, max_in_flight: usize) -> Outgoing {
    let error = mcpwire_protocol::ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!(
            "Too many requests in progress on this connection (at most {max_in_flight}); try again once some are answered"
        ),
    );
    Outgoing::unrelated(ErrorResponse::new(Some(id), error))
}

/// Applies `notifications/cancelled` and routes progress to its callback; returns the
/// notification if the handler should see it.
fn intercept(shared: &Shared, notification: Notification) -> Option<Notification> {
    match notification.method.as_str() {
        methods::NOTIFICATION_CANCELLED => {
            #[derive(serde::Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct Cancelled {
                request_id: RequestId,
            }
            match notification.parse_params::<Cancelled>() {
                Ok(c) => inbound::cancel(shared, &c.request_id),
                Err(e) => tracing::debug!("ignored a malformed cancellation: {e}"),
            }
            None
        }
        methods::NOTIFICATION_PROGRESS => {
            #[derive(serde::Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct Progress {
                progress_token: RequestId,
                #[serde(flatten)]
                update: serde_json::Value,
            }
            let Ok(p) = notification.parse_params::<Progress>() else { return Some(notification) };
            let callback = lock(&shared.pending).progress_callback(&p.progress_token.key());
            match (callback, serde_json::from_value::<ProgressUpdate>(p.update)) {
                (Some(callback), Ok(update)) => {
                    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(update))).is_err() {
                        tracing::error!("a progress callback panicked");
                    }
                    None
                }
                _ => Some(notification),
            }
        }
        _ => Some(notification),
    }
}

/// Answers a frame that did not decode, where JSON-RPC says to: parse errors and invalid
/// requests get an error response (with the id when it could be read); a malformed frame
/// that looks like a response is only logged, since answering it could start a loop.
async fn answer_invalid(peer: &Peer, mut error: mcpwire_protocol::DecodeError) {
    tracing::debug!(code = error.code, "invalid frame from the peer: {}", error.message);
    // An answer (an id, no method) that could not be taken in fails the request it
    // answers now, rather than leaving it to time out.
    if let (Some(id), false) = (&error.id, error.had_method) {
        let why = error.message.strip_prefix("Invalid request: ").unwrap_or(&error.message);
        let reason = format!("the peer's answer could not be taken in: {why}");
        if lock(&peer.shared.pending).fail(id, crate::error::RequestError::Transport { reason }) {
            return;
        }
        // A line too long to read whole may still be a request whose `method` came after
        // the part that was looked at: answered as before, without an id.
        if error.message.contains(crate::transport::lines::SIZE_LIMIT_WORDS) {
            error.id = None;
        }
    }
    // What reads as an answer (an id, no method; a frame that is not JSON included, whose
    // id was read from its bytes; an object with a `result` or an `error` whose id could
    // not be read) is only logged: answering it would answer an answer.
    let answer = error.had_method || (error.id.is_none() && !error.is_answer);
    if !answer {
        if error.is_answer && error.id.is_none() {
            tracing::warn!(
                "dropped an answer from the peer whose id is not a string or an integer: {}",
                error.message
            );
        }
        return;
    }
    let without_id = error.id.is_none();
    let response =
        ErrorResponse::new(error.id, mcpwire_protocol::ErrorObject::new(error.code, error.message));
    // An error without an id answers nothing the peer waits for. When the peer is not
    // reading (a server writing its start-up logs to stdout before it reads its stdin),
    // waiting for room to send it would stop this reader, which is what drains the peer:
    // each side would wait for the other for ever. So it is dropped when there is no room.
    if without_id {
        if peer.try_send(Outgoing::unrelated(response)).is_err() {
            tracing::debug!("the peer is not reading: an error answering a frame without an id was dropped");
        }
        return;
    }
    peer.send(Outgoing::unrelated(response)).await;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::time::Duration;

    use super::*;
    use crate::jsonrpc::{DispatcherConfig, Outlet};

    /// A connection whose transport queue holds one message; the receiver keeps it open.
    fn shared() -> (Arc<Shared>, tokio::sync::mpsc::Receiver<Outgoing>) {
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        (Arc::new(Shared::new(Arc::new(DispatcherConfig::default()), Outlet::Queue(tx))), rx)
    }

    /// Fills the connection's transport queue: the peer is not reading.
    fn fill_output(shared: &Shared) {
        let Some(Outlet::Queue(tx)) = &*shared.outgoing.read().unwrap() else { panic!("a queue") };
        let ping = mcpwire_protocol::Notification::new("ping", None);
        tx.try_send(Outgoing::unrelated(ping)).unwrap();
    }

    #[tokio::test]
    async fn a_free_slot_is_taken_and_a_stopped_connection_gets_none() {
        let (shared, _rx) = shared();
        let permits = Arc::new(Semaphore::new(1));
        let Slot::Taken(held) = permit(&shared, &permits, Inline::InPlace).await else {
            panic!("a free slot")
        };
        assert_eq!(permits.available_permits(), 0);
        drop(held);
        shared.shutdown.cancel();
        // Stopped: no slot, although one is free.
        assert!(matches!(permit(&shared, &permits, Inline::InPlace).await, Slot::Closing));
        assert_eq!(permits.available_permits(), 1);
    }

    #[tokio::test]
    async fn a_reading_loop_full_of_handlers_is_told_at_once() {
        let (shared, _rx) = shared();
        let permits = Arc::new(Semaphore::new(1));
        let _held = permit(&shared, &permits, Inline::InPlace).await;
        let found = tokio::time::timeout(Duration::from_secs(5), permit(&shared, &permits, Inline::InPlace));
        assert!(matches!(found.await.unwrap(), Slot::Full));
    }

    #[tokio::test]
    async fn a_full_connection_whose_peer_does_not_read_waits_for_a_slot_or_for_its_end() {
        let (shared, _rx) = shared();
        fill_output(&shared);
        let permits = Arc::new(Semaphore::new(1));
        let Slot::Taken(held) = permit(&shared, &permits, Inline::InPlace).await else {
            panic!("a free slot")
        };
        let waiting = tokio::spawn({
            let (shared, permits) = (shared.clone(), permits.clone());
            async move { matches!(permit(&shared, &permits, Inline::InPlace).await, Slot::Taken(_)) }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "it waits while every slot is taken");
        drop(held);
        assert!(tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap());

        let _held = permit(&shared, &permits, Inline::InPlace).await;
        let waiting = tokio::spawn({
            let (shared, permits) = (shared.clone(), permits.clone());
            async move { matches!(permit(&shared, &permits, Inline::InPlace).await, Slot::Closing) }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        shared.shutdown.cancel();
        assert!(tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap());
    }

    #[tokio::test]
    async fn a_closed_semaphore_gives_none() {
        let (shared, _rx) = shared();
        let permits = Arc::new(Semaphore::new(1));
        permits.close();
        assert!(matches!(permit(&shared, &permits, Inline::InPlace).await, Slot::Closing));
    }
}
