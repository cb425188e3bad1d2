//! What an inbound request's handler can reach: its cancellation token, the transport's
//! facts, and a way to send messages that belong to this request.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use futures_util::task::AtomicWaker;

use mcpwire_protocol::{RawJson, RequestId};
use serde_json::value::RawValue;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::outbound::CallOptions;
use super::{Peer, PeerCancelMode};
use crate::error::RequestError;
use crate::extensions::Extensions;

/// The state of one inbound request, shared by its task, its context and the in-flight
/// table. Settling is decided once, under the in-flight table's lock.
///
/// Its cancellation is a pair of flags and a waker, not a `CancellationToken` of its
/// own: a token is an allocation and a node in the connection's cancellation tree (a
/// lock on the parent to link it and another to unlink it), paid by every request
/// though few handlers ever look at theirs. The token is made the first time a handler
/// asks for it ([`InFlight::token`]); shutdown fires every request still in flight
/// ([`Shared::shut_down`](super::Shared::shut_down)).
#[derive(Debug)]
pub(crate) struct InFlight {
    pub(crate) id: RequestId,
    /// [`FIRED`] and [`SHUT_DOWN`].
    signals: AtomicU8,
    /// The task running the handler, woken when a signal is raised or the token is made.
    waker: AtomicWaker,
    /// The handler's token, once asked for: a child of the connection's shutdown token,
    /// also cancelled when the request fires.
    token: OnceLock<CancellationToken>,
    /// Held while the token is made and while the request fires: a token made as the
    /// request fires is then either born cancelled or cancelled by the firing.
    making: Mutex<()>,
    /// Set (under the table lock) when the peer cancelled this request.
    pub(crate) peer_cancelled: AtomicBool,
    /// Set as it arrives when the request is of the 2026 era
    /// ([`Handler::in_stateless_era`](super::Handler::in_stateless_era)).
    pub(crate) stateless_era: AtomicBool,
    /// Set when the request was refused for its 2026 envelope (`_meta` missing or
    /// ill-formed): on HTTP that is a malformed request, answered with `400`, where other
    /// errors of an answered request come with `200`.
    pub(crate) envelope_refused: AtomicBool,
    /// [`Settle`] state; changed only under `sending`.
    settled: AtomicU8,
    /// Held while a message for the request is checked and queued
    /// ([`RequestContext::notify`]) and while the request settles: a message checked
    /// before the request settled is queued before its answer, one checked after is not
    /// sent.
    sending: Mutex<()>,
    /// The last progress value sent (the bits of an `f64`; none yet: `-inf`): progress
    /// must increase, so a value that does not is dropped.
    last_progress: AtomicU64,
    /// `_meta.progressToken`, read when first asked for.
    progress_token: ProgressToken,
    /// The result the request is answered with if it is stopped by the connection's end
    /// rather than finishing ([`RequestContext::answer_at_shutdown`]); otherwise it gets
    /// the closed error.
    pub(crate) shutdown_answer: OnceLock<RawJson>,
}

/// A request's `_meta.progressToken`, read from its params the first time a handler asks.
///
/// Finding it means parsing the params, which every request with a token would pay for at
/// arrival though most handlers never report progress. So the params are kept instead
/// (only when their text mentions `progressToken`: a copy, much cheaper than a parse) and
/// parsed on first use, once.
#[derive(Debug)]
struct ProgressToken {
    params: Option<RawJson>,
    token: OnceLock<Option<RawJson>>,
}

impl ProgressToken {
    fn of(params: Option<&RawValue>) -> Self {
        // A searcher is built once: building one is most of a short search.
        static KEY: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new("progressToken"));
        let params = params.filter(|p| KEY.find(p.get().as_bytes()).is_some());
        ProgressToken { params: params.map(ToOwned::to_owned), token: OnceLock::new() }
    }

    fn get(&self) -> Option<&RawValue> {
        self.token.get_or_init(|| read_progress_token(self.params.as_deref()?)).as_deref()
    }
}

/// `_meta.progressToken` in raw params (`None` if absent, if the params do not read, or
/// if the token is not what the schema allows, a string or an integer: progress under a
/// token the client could not match, or one a notification may not carry, is not sent).
fn read_progress_token(params: &RawValue) -> Option<RawJson> {
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<MetaProbe>,
    }
    #[derive(serde::Deserialize)]
    struct MetaProbe {
        #[serde(rename = "progressToken")]
        progress_token: Option<RawJson>,
    }
    let token = serde_json::from_str::<Params>(params.get()).ok()?.meta?.progress_token?;
    if serde_json::from_str::<mcpwire_protocol::RequestId>(token.get()).is_err() {
        tracing::debug!(
            token = token.get(),
            "ignored a progress token that is neither a string nor an integer"
        );
        return None;
    }
    Some(token)
}

/// The request's cancellation fired: the peer cancelled it, its handler timed out, or
/// the connection shut down.
const FIRED: u8 = 1;
/// The connection shut down while the request was in flight (what stops a handler in
/// signal mode).
const SHUT_DOWN: u8 = 2;

/// Why a request's cancellation fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fire {
    /// The peer cancelled it, or its handler ran past its time.
    Cancel,
    /// The connection is shutting down.
    Shutdown,
}

/// Whether a request has settled and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Settle {
    Running = 0,
    Answered = 1,
    Unanswered = 2,
}

impl InFlight {
    /// A request that has just arrived, not cancelled; its `params` may carry a progress
    /// token.
    pub(crate) fn with_params(id: RequestId, params: Option<&RawValue>) -> Self {
        InFlight {
            id,
            signals: AtomicU8::new(0),
            waker: AtomicWaker::new(),
            token: OnceLock::new(),
            making: Mutex::new(()),
            peer_cancelled: AtomicBool::new(false),
            stateless_era: AtomicBool::new(false),
            envelope_refused: AtomicBool::new(false),
            settled: AtomicU8::new(Settle::Running as u8),
            sending: Mutex::new(()),
            last_progress: AtomicU64::new(f64::NEG_INFINITY.to_bits()),
            progress_token: ProgressToken::of(params),
            shutdown_answer: OnceLock::new(),
        }
    }

    pub(crate) fn is_settled(&self) -> bool {
        self.settled.load(Ordering::Acquire) != Settle::Running as u8
    }

    /// Settles the request (`how`): from then on nothing more is sent for it.
    pub(crate) fn settle(&self, how: Settle) {
        let _sending = self.sending.lock().unwrap_or_else(|e| e.into_inner());
        self.settled.store(how as u8, Ordering::Release);
    }

    /// Whether a message may still be sent for the request: it has not settled and the
    /// peer did not cancel it.
    fn open(&self) -> bool {
        !self.is_settled() && !self.is_peer_cancelled()
    }

    /// Whether the peer cancelled the request: nothing more may be sent for it, even
    /// while its handler finishes (signal mode) or what it spawned runs on.
    pub(crate) fn is_peer_cancelled(&self) -> bool {
        self.peer_cancelled.load(Ordering::Acquire)
    }

    /// Fires the request's cancellation: its token (if made) is cancelled and the task
    /// running it is woken to apply the cancel mode.
    pub(crate) fn fire(&self, why: Fire) {
        let bits = match why {
            Fire::Cancel => FIRED,
            Fire::Shutdown => FIRED | SHUT_DOWN,
        };
        {
            let _making = self.making.lock().unwrap_or_else(|e| e.into_inner());
            self.signals.fetch_or(bits, Ordering::AcqRel);
            if let Some(token) = self.token.get() {
                token.cancel();
            }
        }
        self.waker.wake();
    }

    /// Whether the request's cancellation fired (its token, if made, may also have been
    /// cancelled by the handler itself: see [`RequestContext::is_cancelled`]).
    pub(crate) fn is_fired(&self) -> bool {
        self.signals.load(Ordering::Acquire) & FIRED != 0
    }

    /// The handler's token, made on first use as a child of `shutdown` (so it fires at
    /// shutdown even after the request settled, as it did when every request had one),
    /// and born cancelled if the request already fired.
    pub(crate) fn token(&self, shutdown: &CancellationToken) -> &CancellationToken {
        if let Some(token) = self.token.get() {
            return token;
        }
        let mut made = false;
        let token = {
            let _making = self.making.lock().unwrap_or_else(|e| e.into_inner());
            self.token.get_or_init(|| {
                made = true;
                let token = shutdown.child_token();
                if self.is_fired() {
                    token.cancel();
                }
                token
            })
        };
        if made {
            // In interrupt mode the task running the handler watches the token from now
            // on (the handler, or something it spawned, may cancel it itself).
            self.waker.wake();
        }
        token
    }

    /// Whether the handler's token exists and was cancelled.
    fn token_cancelled(&self) -> bool {
        self.token.get().is_some_and(CancellationToken::is_cancelled)
    }

    /// Resolves when the handler must be stopped: in interrupt mode when the request
    /// fires or its token is cancelled (by the handler too); in signal mode when the
    /// connection shuts down (`shutdown`, the connection's token, is watched once the
    /// peer cancelled the request: it then left the in-flight table, which shutdown
    /// fires).
    pub(crate) fn stopped<'a>(
        &'a self,
        mode: PeerCancelMode,
        shutdown: &'a CancellationToken,
    ) -> Stopped<'a> {
        Stopped { entry: self, mode, shutdown, token: None }
    }
}

/// The future of [`InFlight::stopped`]: a reference and, only once a handler made its
/// token (interrupt mode) or the peer cancelled the request (signal mode), a boxed wait
/// on a token (a token's wait is a waiter node, larger than everything else here, and
/// most requests never need it).
pub(crate) struct Stopped<'a> {
    entry: &'a InFlight,
    mode: PeerCancelMode,
    shutdown: &'a CancellationToken,
    token: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
}

impl Future for Stopped<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        if let Some(wait) = this.token.as_mut() {
            return wait.as_mut().poll(cx);
        }
        let entry = this.entry;
        entry.waker.register(cx.waker());
        let watched = match this.mode {
            PeerCancelMode::Interrupt => FIRED,
            PeerCancelMode::Signal => SHUT_DOWN,
        };
        if entry.signals.load(Ordering::Acquire) & watched != 0 {
            return Poll::Ready(());
        }
        let token = match (this.mode, entry.token.get()) {
            // Firing cancels the token too, so from here on the token is all to watch.
            (PeerCancelMode::Interrupt, Some(token)) => token,
            // Cancelled by the peer, the request left the in-flight table, so shutdown
            // will not fire it: from here on the connection's token is watched.
            (PeerCancelMode::Signal, _) if entry.is_peer_cancelled() => this.shutdown,
            _ => return Poll::Pending,
        };
        let wait = this.token.insert(Box::pin(token.clone().cancelled_owned()));
        wait.as_mut().poll(cx)
    }
}

/// The context of one inbound request.
#[derive(Clone)]
pub struct RequestContext {
    pub(crate) entry: Arc<InFlight>,
    pub(crate) peer: Peer,
    pub(crate) extensions: Extensions,
    pub(crate) back_channel: bool,
}

impl RequestContext {
    /// The request's id.
    pub fn id(&self) -> &RequestId {
        &self.entry.id
    }

    /// Cancelled when the peer cancels this request or the connection shuts down. In
    /// interrupt mode the handler's future is also dropped; in signal mode the handler
    /// should watch this token and stop early.
    pub fn cancellation(&self) -> &CancellationToken {
        self.entry.token(&self.peer.shared.shutdown)
    }

    /// Whether the request was cancelled (what [`RequestContext::cancellation`] would
    /// say, without making the token).
    pub fn is_cancelled(&self) -> bool {
        self.entry.is_fired() || self.entry.token_cancelled() || self.peer.shared.shutdown.is_cancelled()
    }

    /// Transport facts (HTTP headers, the authenticated principal, what an HTTP layer in
    /// front put on the request, what a middleware added, ...).
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The transport facts, to add to: a middleware that resolved something about the
    /// request (the user behind a key, say) inserts it here, and the handlers after it
    /// read it with [`extensions`](Self::extensions) (`Ctx::extensions` in a tool).
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }

    /// The connection's peer handle, for messages unrelated to this request.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Whether the request is served in the 2026 era
    /// ([`Handler::in_stateless_era`](super::Handler::in_stateless_era), asked as it
    /// arrived).
    pub(crate) fn in_stateless_era(&self) -> bool {
        self.entry.stateless_era.load(Ordering::Relaxed)
    }

    /// Notes that the request was refused for its 2026 envelope
    /// ([`InFlight::envelope_refused`]).
    pub(crate) fn refuse_envelope(&self) {
        self.entry.envelope_refused.store(true, Ordering::Relaxed);
    }

    /// Names the result this request is answered with if the connection ends while it
    /// runs, in place of the closed error: what a request that never finishes on its own
    /// (a `subscriptions/listen` stream) says when it ends normally. The first call counts.
    pub(crate) fn answer_at_shutdown(&self, result: RawJson) {
        let _ = self.entry.shutdown_answer.set(result);
    }

    /// The request's `_meta.progressToken`, raw, if it asked for progress.
    pub fn progress_token(&self) -> Option<&RawValue> {
        self.entry.progress_token.get()
    }

    /// Sends a notification that belongs to this request (progress, a log message). Once
    /// the request has settled, or the peer cancelled it, this is dropped with a debug
    /// log: nothing may follow a request's response, and nothing more is sent for a
    /// cancelled request.
    pub async fn notify(&self, method: &str, params: Option<RawJson>) {
        let entry = &self.entry;
        if !entry.open() {
            tracing::debug!(method, id = %entry.id, "dropped a notification for a settled or cancelled request");
            return;
        }
        let message =
            mcpwire_protocol::Message::Notification(mcpwire_protocol::Notification::new(method, params));
        let out = crate::transport::Outgoing::new(message, Some(entry.id.clone()));
        // Checked and queued under the request's `sending` lock, so that a task of the
        // handler's cannot get a notification out after the answer.
        if !self.peer.send_gated(out, &entry.sending, || entry.open()).await {
            tracing::debug!(method, id = %entry.id, "dropped a notification: the request settled or the connection closed");
        }
    }

    /// Sends `notifications/progress` for this request, if it asked for progress (no-op
    /// otherwise). A value that is not above the last one sent (or not a finite number)
    /// is dropped, since the protocol requires progress to increase; a total that is not
    /// finite is left out.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(params) = self.progress_params(progress, total, message, None) {
            self.notify(mcpwire_protocol::methods::NOTIFICATION_PROGRESS, Some(params)).await;
        }
    }

    /// [`RequestContext::progress`] for work that goes on after this request's answer,
    /// such as a 2025 task, whose progress token stays valid until the task ends (`meta`
    /// is the notification's `_meta`, naming the task). Once the request is answered, the
    /// notification is sent as the connection's own (on an HTTP session's standalone
    /// stream) instead of being dropped.
    pub async fn progress_beyond_answer(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
        meta: serde_json::Value,
    ) {
        let Some(params) = self.progress_params(progress, total, message, Some(meta)) else { return };
        self.notify_beyond_answer(mcpwire_protocol::methods::NOTIFICATION_PROGRESS, params).await;
    }

    /// [`RequestContext::notify`] for work that goes on after this request's answer (a
    /// 2025 task's log messages, say): once the request is answered, the notification is
    /// sent as the connection's own instead of being dropped.
    pub(crate) async fn notify_beyond_answer(&self, method: &str, params: RawJson) {
        let related = (!self.entry.is_settled()).then(|| self.entry.id.clone());
        self.peer.notify_related(method, Some(params), related).await;
    }

    /// The params of a progress notification, or `None` when this request asked for no
    /// progress or the value does not increase.
    fn progress_params(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
        meta: Option<serde_json::Value>,
    ) -> Option<RawJson> {
        let token = self.progress_token()?;
        if !progress.is_finite() {
            // JSON has no such number (serde_json writes it `null`); an infinite value
            // would also leave no later value above it.
            tracing::debug!(progress, "dropped a progress value that is not a finite number");
            return None;
        }
        // An unknown total, rather than a `null` one.
        let total = total.filter(|t| t.is_finite());
        let last = &self.entry.last_progress;
        let increases = last
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |bits| {
                (progress > f64::from_bits(bits)).then_some(progress.to_bits())
            })
            .is_ok();
        if !increases {
            tracing::debug!(progress, "dropped a progress value that does not increase");
            return None;
        }
        let mut params = serde_json::Map::new();
        params.insert("progressToken".into(), serde_json::from_str(token.get()).unwrap_or_default());
        params.insert("progress".into(), progress.into());
        if let Some(total) = total {
            params.insert("total".into(), total.into());
        }
        if let Some(message) = message {
            params.insert("message".into(), message.into());
        }
        if let Some(meta) = meta {
            params.insert("_meta".into(), meta);
        }
        serde_json::value::to_raw_value(&params).ok()
    }

    /// Sends a request to the peer on behalf of this request (a server asking the client
    /// for sampling, elicitation or roots mid-call). HTTP transports carry it on this
    /// request's stream. Once the peer cancelled this request it fails at once with
    /// [`RequestError::Cancelled`], unsent.
    pub async fn request(
        &self,
        method: &str,
        params: Option<RawJson>,
        mut options: CallOptions,
    ) -> Result<RawJson, RequestError> {
        if self.entry.is_settled() {
            return Err(RequestError::Protocol("the request this belongs to has already settled".into()));
        }
        if self.entry.is_peer_cancelled() {
            // Nothing more is sent for a cancelled request, a request of ours included.
            return Err(RequestError::Cancelled { method: method.to_owned() });
        }
        if !self.back_channel {
            return Err(RequestError::NoBackChannel);
        }
        options.related = Some(self.entry.id.clone());
        self.peer.request_raw(method, params, options).await
    }
}

/// The context of one inbound notification.
#[derive(Clone)]
pub struct NotificationContext {
    pub(crate) peer: Peer,
    pub(crate) extensions: Extensions,
}

impl NotificationContext {
    /// The connection's peer handle.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Transport facts.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn token_of(params: &str) -> (bool, Option<String>) {
        let raw = RawValue::from_string(params.to_owned()).unwrap();
        let token = ProgressToken::of(Some(&raw));
        (token.params.is_some(), token.get().map(|t| t.get().to_owned()))
    }

    #[test]
    fn the_progress_token_is_read_from_meta_when_asked_for() {
        assert_eq!(token_of(r#"{"_meta":{"progressToken":7}}"#), (true, Some("7".into())));
        assert_eq!(
            token_of(r#"{"a":[1],"_meta":{"x":{},"progressToken":"t-1"}}"#),
            (true, Some(r#""t-1""#.into()))
        );
        // Params that never mention the key are not kept.
        assert_eq!(token_of(r#"{"name":"echo","_meta":{"x":1}}"#), (false, None));
        // The key elsewhere is not a progress token.
        assert_eq!(token_of(r#"{"arguments":{"progressToken":1}}"#), (true, None));
        assert_eq!(token_of(r#"{"_meta":{"y":"progressToken"}}"#), (true, None));
        assert!(ProgressToken::of(None).get().is_none());
    }

    #[test]
    fn a_progress_token_that_is_neither_a_string_nor_an_integer_is_ignored() {
        for token in ["{\"evil\":true}", "true", "1.5", "[]", "null", "1000000000000000000000000000000"] {
            let params = format!(r#"{{"_meta":{{"progressToken":{token}}}}}"#);
            assert_eq!(token_of(&params), (true, None), "{token}");
        }
        assert_eq!(token_of(r#"{"_meta":{"progressToken":-3}}"#), (true, Some("-3".into())));
    }

    #[test]
    fn the_progress_token_is_parsed_once() {
        let raw = RawValue::from_string(r#"{"_meta":{"progressToken":1}}"#.to_owned()).unwrap();
        let token = ProgressToken::of(Some(&raw));
        assert!(std::ptr::eq(token.get().unwrap(), token.get().unwrap()));
    }
}
