//! Outbound requests and notifications: id allocation, the pending table, timeouts, and
//! the `notifications/cancelled` a request sends when its caller stops waiting.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use mcpwire_protocol::{
    methods, ErrorObject, IdKey, Message, Notification, RawJson, Request, RequestId, RequestParams,
};
use tokio::sync::{oneshot, Notify};
use tokio::time::Instant;

use super::progress::ProgressCallback;
use super::{Outlet, Peer, State};
use crate::error::RequestError;
use crate::transport::Outgoing;

/// How many finished requests keep their progress callback, so that a progress
/// notification processed after the response still reaches it.
const RECENT_PROGRESS: usize = 64;

/// Per-call options.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// Use this id instead of allocating one (strings allowed). It must not be in flight.
    pub id: Option<RequestId>,
    /// Give up (and send `notifications/cancelled`) after this long. `None` uses the
    /// dispatcher's default.
    pub timeout: Option<Duration>,
    /// Receive `notifications/progress` for this request; sets `_meta.progressToken`.
    pub on_progress: Option<ProgressCallback>,
    /// The inbound request this one is sent on behalf of (set by
    /// [`RequestContext::request`](super::RequestContext::request)).
    pub related: Option<RequestId>,
    /// Cancel to give up on the request: `notifications/cancelled` is sent and the call
    /// fails with [`RequestError::Cancelled`].
    pub cancel: Option<tokio_util::sync::CancellationToken>,
    /// With a limit here, every `notifications/progress` for the request starts its
    /// `timeout` again (the request asks for progress even without `on_progress`), and
    /// this limit bounds the whole wait whatever progress comes: a long job that reports
    /// its progress is not given up on, and one that never ends still is.
    pub max_total_timeout: Option<Duration>,
}

impl CallOptions {
    /// Sets the timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets a progress callback.
    pub fn on_progress(mut self, callback: impl Fn(super::ProgressUpdate) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(std::sync::Arc::new(callback));
        self
    }

    /// Uses a caller-chosen id.
    pub fn id(mut self, id: impl Into<RequestId>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Starts the timeout again on each progress notification, waiting `max_total` at
    /// most in all (see [`CallOptions::max_total_timeout`]).
    pub fn reset_timeout_on_progress(mut self, max_total: Duration) -> Self {
        self.max_total_timeout = Some(max_total);
        self
    }
}

/// How long a request's caller waits for its answer.
enum Limits {
    /// At most this long (no limit when `None`).
    Fixed(Option<Duration>),
    /// `timeout` from the last progress notification (`progressed` tells of each), and
    /// `max_total` at most in all.
    Restarting { timeout: Option<Duration>, max_total: Duration, progressed: Arc<Notify> },
}

impl Limits {
    /// The answer, or `Err(limit)` with the limit that ran out first.
    async fn wait<T>(
        self,
        answer: oneshot::Receiver<T>,
    ) -> Result<Result<T, oneshot::error::RecvError>, Duration> {
        let (timeout, max_total, progressed) = match self {
            Limits::Fixed(Some(t)) => return tokio::time::timeout(t, answer).await.map_err(|_| t),
            Limits::Fixed(None) => return Ok(answer.await),
            Limits::Restarting { timeout, max_total, progressed } => (timeout, max_total, progressed),
        };
        let end = Instant::now() + max_total;
        let deadline = |from: Instant| timeout.map_or(end, |t| (from + t).min(end));
        let expiry = tokio::time::sleep_until(deadline(Instant::now()));
        tokio::pin!(answer, expiry);
        loop {
            tokio::select! {
                biased;
                answer = &mut answer => return Ok(answer),
                _ = progressed.notified() => expiry.as_mut().reset(deadline(Instant::now())),
                _ = &mut expiry => {
                    return Err(match timeout {
                        Some(t) if expiry.deadline() < end => t,
                        _ => max_total,
                    });
                }
            }
        }
    }
}

/// `callback` (when there is one), which also tells `progressed` of each notification.
fn telling(callback: Option<ProgressCallback>, progressed: Arc<Notify>) -> ProgressCallback {
    Arc::new(move |update| {
        if let Some(callback) = &callback {
            callback(update);
        }
        progressed.notify_one();
    })
}

/// How an outbound request ends: the peer's result, the peer's error, or a failure
/// found here (for example an answer too large to read), which must not look like the
/// peer's own error.
enum Answer {
    Result(RawJson),
    Error(ErrorObject),
    Local(RequestError),
}

type Waiter = oneshot::Sender<Answer>;

struct PendingEntry {
    waiter: Waiter,
    progress: Option<ProgressCallback>,
}

/// Outbound requests awaiting a response.
#[derive(Default)]
pub(crate) struct PendingTable {
    entries: crate::id_map::IdMap<IdKey, PendingEntry>,
    recent_progress: VecDeque<(IdKey, ProgressCallback)>,
}

impl PendingTable {
    /// Delivers a response; `false` if no request waits for this id.
    pub(crate) fn resolve(&mut self, id: &RequestId, outcome: Result<RawJson, ErrorObject>) -> bool {
        let key = id.key();
        let Some(entry) = self.entries.remove(&key) else { return false };
        if let Some(progress) = entry.progress {
            if self.recent_progress.len() == RECENT_PROGRESS {
                self.recent_progress.pop_front();
            }
            self.recent_progress.push_back((key, progress));
        }
        let _ = entry.waiter.send(match outcome {
            Ok(result) => Answer::Result(result),
            Err(error) => Answer::Error(error),
        });
        true
    }

    /// Fails the request waiting for `id` with a local error; `false` if none waits.
    pub(crate) fn fail(&mut self, id: &RequestId, error: RequestError) -> bool {
        match self.entries.remove(&id.key()) {
            Some(entry) => {
                let _ = entry.waiter.send(Answer::Local(error));
                true
            }
            None => false,
        }
    }

    /// The progress callback registered for `token`, if any.
    pub(crate) fn progress_callback(&self, token: &IdKey) -> Option<ProgressCallback> {
        if let Some(entry) = self.entries.get(token) {
            return entry.progress.clone();
        }
        self.recent_progress.iter().rev().find(|(k, _)| k == token).map(|(_, cb)| cb.clone())
    }

    /// Drops every waiter: their requests fail with a connection-closed error.
    pub(crate) fn fail_all(&mut self) {
        self.entries.clear();
        self.recent_progress.clear();
    }
}

impl Peer {
    /// Sends a request and waits for its raw result.
    ///
    /// Fails at once if the connection is not running yet or has closed. If the returned
    /// future is dropped before the response arrives, or the timeout fires, the request
    /// is forgotten and `notifications/cancelled` is sent for it (never for `initialize`
    /// or `server/discover`, which must not be cancelled); a late response is dropped.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<RawJson>,
        options: CallOptions,
    ) -> Result<RawJson, RequestError> {
        match self.shared.state() {
            State::NotStarted => return Err(RequestError::NotRunning),
            State::Closed => return Err(self.shared.closed_error()),
            // Closing: the request could not be answered.
            State::Running if self.is_closed() => return Err(self.shared.closed_error()),
            State::Running => {}
        }
        let id = match options.id {
            Some(id) => id,
            None => self.allocate_id(),
        };
        // A timeout that progress starts again learns of it through the request's
        // progress callback (so the request asks for progress).
        let restart = options.max_total_timeout.map(|max_total| (max_total, Arc::new(Notify::new())));
        let on_progress = match &restart {
            Some((_, progressed)) => Some(telling(options.on_progress, progressed.clone())),
            None => options.on_progress,
        };
        let params = match &on_progress {
            Some(_) => Some(with_progress_token(params, &id).map_err(RequestError::Encode)?),
            None => params,
        };
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = self.shared.pending.lock().unwrap_or_else(|e| e.into_inner());
            // Looked at again under the lock the connection's end takes to fail every
            // waiter, after it marks itself closed: a request registered here is either
            // failed by it or sees the close. (Seen only before the lock, a close between
            // the two left a waiter that nothing would ever answer or fail.)
            if self.is_closed() {
                return Err(self.shared.closed_error());
            }
            let key = id.key();
            if pending.entries.contains_key(&key) {
                return Err(RequestError::DuplicateId(id));
            }
            pending.entries.insert(key, PendingEntry { waiter: tx, progress: on_progress });
        }
        let mut guard = PendingGuard {
            peer: self,
            id: id.clone(),
            cancellable: method != methods::INITIALIZE && method != methods::SERVER_DISCOVER,
            related: options.related.clone(),
            done: false,
            cancel_reason: None,
        };
        let request = Request::new(id, method, params);
        let timeout = options.timeout.or(self.shared.config.request_timeout);
        let max_total = restart.as_ref().map(|(max_total, _)| *max_total);
        // A full queue (a peer that stopped reading) is waited on within the call's
        // limits: the time spent there counts against them.
        let queued = self.queue(Outgoing::new(Message::Request(request), options.related), {
            let limit = match (timeout, max_total) {
                (Some(t), Some(m)) => Some(t.min(m)),
                (t, m) => t.or(m),
            };
            (limit, options.cancel.as_ref())
        });
        let waited = match queued.await {
            Queued::Sent(waited) => waited,
            unqueued => {
                // Nothing went out: there is nothing to cancel.
                guard.done = true;
                guard.forget();
                return Err(match unqueued {
                    Queued::TimedOut(limit) => {
                        RequestError::NotSent { method: method.to_owned(), waited: limit }
                    }
                    Queued::Cancelled => RequestError::Cancelled { method: method.to_owned() },
                    _ => self.shared.closed_error(),
                });
            }
        };
        let left = |limit: Duration| limit.saturating_sub(waited);
        let limits = match restart {
            Some((max_total, progressed)) => {
                Limits::Restarting { timeout: timeout.map(left), max_total: left(max_total), progressed }
            }
            None => Limits::Fixed(timeout.map(left)),
        };
        let waited = limits.wait(rx);
        let waited = match options.cancel.clone() {
            Some(token) => tokio::select! {
                biased;
                _ = token.cancelled() => {
                    guard.cancel_reason = Some("cancelled by the caller".to_owned());
                    drop(guard);
                    return Err(RequestError::Cancelled { method: method.to_owned() });
                }
                waited = waited => waited,
            },
            None => waited.await,
        };
        let outcome = match waited {
            Ok(outcome) => outcome,
            Err(t) => {
                guard.cancel_reason = Some(format!("timed out after {t:?}"));
                drop(guard);
                return Err(RequestError::Timeout { method: method.to_owned(), timeout: t });
            }
        };
        guard.done = true;
        match outcome {
            Ok(Answer::Result(result)) => Ok(result),
            Ok(Answer::Error(error)) => Err(RequestError::Peer(error)),
            Ok(Answer::Local(error)) => Err(error),
            Err(_) => Err(self.shared.closed_error()),
        }
    }

    /// Sends a typed request and decodes its typed result.
    pub async fn request<P: RequestParams>(
        &self,
        params: &P,
        options: CallOptions,
    ) -> Result<P::Result, RequestError> {
        let raw = crate::json_write::to_raw_value(params).map_err(RequestError::Encode)?;
        let result = self.request_raw(P::METHOD, Some(raw), options).await?;
        serde_json::from_str(result.get()).map_err(RequestError::InvalidResult)
    }

    /// Sends a notification. After the connection closed it is dropped with a debug log
    /// (it never fails); before the connection runs it is queued.
    pub async fn notify(&self, method: &str, params: Option<RawJson>) {
        self.notify_related(method, params, None).await;
    }

    pub(crate) async fn notify_related(
        &self,
        method: &str,
        params: Option<RawJson>,
        related: Option<RequestId>,
    ) {
        let message = Message::Notification(Notification::new(method, params));
        if !self.send(Outgoing::new(message, related)).await {
            tracing::debug!(method, "dropped a notification: the connection is closed");
        }
    }

    /// Allocates the next free integer id (1, 2, 3, ...), skipping ids in flight.
    fn allocate_id(&self) -> RequestId {
        let pending = self.shared.pending.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let n = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
            let id = RequestId::Number(n);
            if !pending.entries.contains_key(&id.key()) {
                return id;
            }
        }
    }

    /// Queues a message for the transport; `false` if the connection is closed.
    ///
    /// A queue with room takes it at once (the usual case); only a full one is waited
    /// on, in a boxed future, so that the wait's state (a semaphore waiter) is no part
    /// of every future that sends, such as every request's task.
    pub(crate) async fn send(&self, out: Outgoing) -> bool {
        match self.try_send(out) {
            Ok(()) => true,
            Err(out) => Box::pin(self.send_waiting(out)).await,
        }
    }

    /// Queues a request's message as [`Peer::send`] does, but waits for room in a full
    /// queue no longer than `limit`, and not past a cancel of `cancel`. `Sent` tells how
    /// long it waited (zero when the queue had room, the usual case).
    async fn queue(
        &self,
        out: Outgoing,
        (limit, cancel): (Option<Duration>, Option<&tokio_util::sync::CancellationToken>),
    ) -> Queued {
        let out = match self.try_send(out) {
            Ok(()) => return Queued::Sent(Duration::ZERO),
            Err(out) => out,
        };
        let started = Instant::now();
        let waiting = Box::pin(self.send_waiting(out));
        let bounded = async {
            match limit {
                Some(limit) => tokio::time::timeout(limit, waiting).await.map_err(|_| limit),
                None => Ok(waiting.await),
            }
        };
        let outcome = match cancel {
            Some(token) => tokio::select! {
                biased;
                _ = token.cancelled() => return Queued::Cancelled,
                outcome = bounded => outcome,
            },
            None => bounded.await,
        };
        match outcome {
            Ok(true) => Queued::Sent(started.elapsed()),
            Ok(false) => Queued::Closed,
            Err(limit) => Queued::TimedOut(limit),
        }
    }

    /// [`Peer::send`] when the queue was full (or closed). (A direct outlet is never
    /// full: it failed because the connection is closed.)
    async fn send_waiting(&self, out: Outgoing) -> bool {
        match self.waiting_sender() {
            Some(sender) => sender.send(out).await.is_ok(),
            None => false,
        }
    }

    /// The queue to wait on when it was full: `None` when there is none to wait on (the
    /// connection closed, or a direct outlet, which is never full).
    fn waiting_sender(&self) -> Option<tokio::sync::mpsc::Sender<Outgoing>> {
        match &mut *self.shared.outgoing.write().unwrap_or_else(|e| e.into_inner()) {
            Some(Outlet::Queue(sender)) => Some(sender.clone()),
            #[cfg(feature = "http")]
            Some(Outlet::OnDemand(queue)) => Some(queue.sender().clone()),
            #[cfg(feature = "http")]
            Some(Outlet::Direct(_)) => None,
            None => None,
        }
    }

    /// [`Peer::send`] for a message that may go out only while `open` says so, decided
    /// under `gate` and queued before `gate` is let go: whoever closes it under the same
    /// lock (a request settling) knows that what was let through is already queued.
    /// A full queue is waited on with the lock let go, then `open` is asked again.
    /// `false` if the message was not sent.
    pub(crate) async fn send_gated(
        &self,
        out: Outgoing,
        gate: &std::sync::Mutex<()>,
        open: impl Fn() -> bool,
    ) -> bool {
        let out = {
            let _gate = gate.lock().unwrap_or_else(|e| e.into_inner());
            if !open() {
                return false;
            }
            match self.try_send(out) {
                Ok(()) => return true,
                Err(out) => out,
            }
        };
        let Some(sender) = self.waiting_sender() else { return false };
        let Ok(room) = sender.reserve_owned().await else { return false };
        let _gate = gate.lock().unwrap_or_else(|e| e.into_inner());
        if !open() {
            return false;
        }
        room.send(out);
        true
    }

    /// Queues a message without waiting (or routes it, on a direct outlet); `Err` if
    /// closed or full.
    pub(crate) fn try_send(&self, out: Outgoing) -> Result<(), Outgoing> {
        // Under the read lock rather than on a clone of the sender: a clone and its drop
        // are four atomic operations per message.
        let outlet = self.shared.outgoing.read().unwrap_or_else(|e| e.into_inner());
        match outlet.as_ref() {
            Some(Outlet::Queue(sender)) => sender.try_send(out).map_err(unsent),
            #[cfg(feature = "http")]
            Some(Outlet::OnDemand(queue)) => {
                if let Some(sender) = queue.made() {
                    return sender.try_send(out).map_err(unsent);
                }
                // The first message makes the queue, under the write lock.
                drop(outlet);
                let mut outlet = self.shared.outgoing.write().unwrap_or_else(|e| e.into_inner());
                match outlet.as_mut() {
                    Some(Outlet::OnDemand(queue)) => queue.sender().try_send(out).map_err(unsent),
                    _ => Err(out),
                }
            }
            #[cfg(feature = "http")]
            Some(Outlet::Direct(route)) => match route.upgrade() {
                Some(route) => {
                    route.route(out);
                    Ok(())
                }
                None => Err(out),
            },
            None => Err(out),
        }
    }
}

/// How queueing a request's message ended ([`Peer::queue`]).
enum Queued {
    /// Queued, after waiting this long for room.
    Sent(Duration),
    /// The connection is closed.
    Closed,
    /// No room within this limit.
    TimedOut(Duration),
    /// The caller cancelled while waiting for room.
    Cancelled,
}

/// The message a queue did not take (full or closed).
fn unsent(e: tokio::sync::mpsc::error::TrySendError<Outgoing>) -> Outgoing {
    match e {
        tokio::sync::mpsc::error::TrySendError::Full(o)
        | tokio::sync::mpsc::error::TrySendError::Closed(o) => o,
    }
}

/// Adds `_meta.progressToken` (= the request id) to raw params.
fn with_progress_token(params: Option<RawJson>, id: &RequestId) -> Result<RawJson, serde_json::Error> {
    let mut object: serde_json::Map<String, serde_json::Value> = match params {
        Some(raw) => serde_json::from_str(raw.get())?,
        None => serde_json::Map::new(),
    };
    let meta = object.entry("_meta").or_insert_with(|| serde_json::Value::Object(Default::default()));
    if let serde_json::Value::Object(meta) = meta {
        meta.insert("progressToken".into(), serde_json::to_value(id)?);
    }
    serde_json::value::to_raw_value(&object)
}

/// Removes a request from the pending table when its caller stops waiting, and tells the
/// peer with `notifications/cancelled` unless the response already arrived.
struct PendingGuard<'a> {
    peer: &'a Peer,
    id: RequestId,
    cancellable: bool,
    related: Option<RequestId>,
    done: bool,
    cancel_reason: Option<String>,
}

impl PendingGuard<'_> {
    fn forget(&self) -> bool {
        let mut pending = self.peer.shared.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.entries.remove(&self.id.key()).is_some()
    }
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        // Still pending means no response arrived: the caller gave up.
        if !self.forget() || !self.cancellable || self.peer.shared.state() != State::Running {
            return;
        }
        let reason = self.cancel_reason.take().unwrap_or_else(|| "the caller stopped waiting".to_owned());
        let params = serde_json::json!({ "requestId": self.id, "reason": reason });
        let params = serde_json::value::to_raw_value(&params).ok();
        let message = Message::Notification(Notification::new(methods::NOTIFICATION_CANCELLED, params));
        let out = Outgoing::new(message, self.related.clone());
        if let Err(out) = self.peer.try_send(out) {
            // The queue is full: send it from a task rather than block in a destructor.
            let peer = self.peer.clone();
            if let Ok(handle) = tokio::runtime::Handle::try_current() {
                handle.spawn(async move {
                    peer.send(out).await;
                });
            }
        }
    }
}
