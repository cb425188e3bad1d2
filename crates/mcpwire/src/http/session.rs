//! One 2025-era session: a connection that the session's POSTs feed themselves (no task
//! and no queue of its own, so an idle session is a few structures in memory), and a
//! router that puts each outgoing message on exactly one stream — the stream of the
//! request it answers or belongs to, else the standalone GET stream — storing SSE events
//! for resumption.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use mcpwire_protocol::{codes, ErrorObject, ErrorResponse, Message, ProtocolVersion, RequestId};

use super::event_store::guarded;
use super::sse;
use super::stream_queue::{stream_queue, Refused, StreamEnder, StreamReceiver, StreamSender};
use super::HttpSettings;
use crate::id_map::IdMap;
use crate::jsonrpc::{Direct, Handler, NotificationContext, RequestContext, Route};
use crate::server::stateful::StatefulSession;
use crate::server::Server;
use crate::transport::{InboundMeta, Outgoing, StreamControl, TransportEvent, UnansweredHook};

struct Stream {
    /// The stream's number in its session.
    no: u64,
    /// The HTTP response currently carrying the stream, if any.
    live: Option<StreamSender>,
    /// Responses still expected on this stream (`usize::MAX` for the standalone stream).
    pending: usize,
    /// How the stream's response carries its messages.
    wire: Wire,
    /// The request of a stream opened for exactly one (nearly every POST): found by a
    /// scan of the few open streams, so it costs no hashing and no map entry.
    only: Option<RequestId>,
    /// The service-wide slots of the stream's requests
    /// ([`HttpSettings::max_session_requests`](super::HttpSettings::max_session_requests)),
    /// shared with the response carrying them: given back once every request is answered
    /// (the stream is then removed) and the response has been written or dropped.
    _slots: Option<RequestSlots>,
    /// An event with an id has gone out on the stream: the client can resume it.
    has_id: bool,
}

/// Service-wide request slots, shared by a stream and its response.
pub(crate) type RequestSlots = Arc<tokio::sync::OwnedSemaphorePermit>;

/// How a stream's HTTP response carries its messages.
#[derive(Debug, PartialEq, Eq)]
enum Wire {
    /// SSE events, stored for resumption (when the session can resume) under the
    /// stream's name in the event store, `<session>-<no>`.
    Sse { name: String },
    /// The answers' JSON only (an endpoint set to answer in JSON).
    Json,
    /// Not settled yet: the stream of a single request, until its first message or the
    /// end of its POST's delivery (the handler's first poll). An answer that comes first
    /// is sent as plain JSON, as a 2026 request's is: it has nothing to stream and nothing
    /// to resume. Anything else makes the stream SSE from then on, priming event first.
    Undecided,
}

/// The session's open streams. Both collections give their memory back when they
/// empty, so an idle session holds none: a session spends most of its life idle, and
/// a few hundred bytes each add up over thousands of sessions.
#[derive(Default)]
struct Streams {
    /// The stream of each request of a batch whose answer is still due. A map: one
    /// batch can bring thousands of ids. (A single request's stream knows its id.)
    by_request: IdMap<RequestId, u64>,
    /// A list: there is one stream per POST in progress (plus the standalone one), a
    /// handful, for which a scan is cheaper than hashing.
    streams: Vec<Stream>,
    standalone: Option<u64>,
    /// The connection replaying each ended stream that a client resumed, by the stream's
    /// name: a stream is carried by one connection at a time, so a stream's stored events
    /// are copied into one response however often it is resumed.
    replays: Vec<(String, StreamEnder)>,
}

impl Streams {
    fn get_mut(&mut self, no: u64) -> Option<&mut Stream> {
        self.streams.iter_mut().find(|s| s.no == no)
    }

    /// The stream of the request `key`, if its answer is still due.
    fn of_request(&self, key: &RequestId) -> Option<u64> {
        let single = self.streams.iter().find(|s| s.only.as_ref() == Some(key)).map(|s| s.no);
        single.or_else(|| self.by_request.get(key).copied())
    }

    /// Forgets a request whose answer went out.
    fn unroute(&mut self, key: &RequestId) {
        if self.by_request.is_empty() {
            return;
        }
        self.by_request.remove(key);
        if self.by_request.is_empty() {
            self.by_request = IdMap::default();
        }
    }

    /// Drops a stream that carried all its answers.
    fn remove(&mut self, no: u64) {
        self.streams.retain(|s| s.no != no);
        if self.streams.is_empty() {
            self.streams = Vec::new();
        }
    }
}

/// Milliseconds from `start` to `at`: a session's last activity fits in an atomic word
/// this way (an `Instant` behind a mutex is three times its size).
fn ticks(start: Instant, at: Instant) -> u64 {
    u64::try_from(at.saturating_duration_since(start).as_millis()).unwrap_or(u64::MAX)
}

/// `<session>-<no>`, a stream's name in the event store.
fn stream_name(session: &str, no: u64) -> String {
    super::event_store::numbered(session, '-', no)
}

pub(crate) struct Session {
    pub(crate) id: String,
    /// The authenticated principal that created the session, if any.
    pub(crate) principal: Option<String>,
    pub(crate) version: Mutex<ProtocolVersion>,
    /// The session's connection: fed by its POSTs, in their own tasks.
    conn: Direct<SessionHandler>,
    /// The session's state (the connection's handler holds the same): whether the client
    /// finished initializing, and what a takeover in a cluster restores.
    stateful: Arc<StatefulSession>,
    /// Set when the session starts closing: requests delivered after it get no `-32800`
    /// terminator.
    closed: AtomicBool,
    /// The runtime the session started on, where [`Session::close`] (which may be called
    /// from anywhere, a service's `shutdown` included) lets its requests finish.
    runtime: tokio::runtime::Handle,
    streams: Mutex<Streams>,
    /// When the session started: the origin of [`ticks`].
    started: Instant,
    /// When the session was last used, in [`ticks`] since `started`.
    last_active: AtomicU64,
    next_stream: AtomicU64,
    settings: Arc<HttpSettings>,
}

/// The dispatcher handler of a 2025 session.
struct SessionHandler(Arc<StatefulSession>);

impl Handler for SessionHandler {
    async fn on_request(
        &self,
        request: mcpwire_protocol::Request,
        ctx: RequestContext,
    ) -> Result<mcpwire_protocol::RawJson, crate::McpError> {
        self.0.on_request(request, ctx).await
    }

    fn on_notification_arrival(
        &self,
        notification: mcpwire_protocol::Notification,
    ) -> Option<mcpwire_protocol::Notification> {
        self.0.on_arrival(&notification);
        Some(notification)
    }

    async fn on_notification(&self, notification: mcpwire_protocol::Notification, ctx: NotificationContext) {
        self.0.on_notification(notification, ctx).await;
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Session {
    /// Starts a session: a connection with no task or queue of its own (see [`Direct`]),
    /// whose outgoing messages go straight to the session's router
    /// ([`Session::route_one`], run in the sending task).
    pub(crate) fn start(
        server: &Server,
        settings: Arc<HttpSettings>,
        id: String,
        principal: Option<String>,
        version: ProtocolVersion,
        first_stream: u64,
    ) -> Arc<Session> {
        Arc::new_cyclic(|weak: &Weak<Session>| {
            let route: Weak<dyn Route> = weak.clone();
            let stateful = match settings.sessionless {
                true => StatefulSession::sessionless(server.clone()),
                false => StatefulSession::new(server.clone()),
            };
            Session {
                stateful: stateful.clone(),
                id,
                principal,
                version: Mutex::new(version),
                conn: Direct::new(SessionHandler(stateful), route, server.inner.dispatcher.clone()),
                closed: AtomicBool::new(false),
                runtime: tokio::runtime::Handle::current(),
                streams: Mutex::new(Streams::default()),
                started: Instant::now(),
                last_active: AtomicU64::new(0),
                next_stream: AtomicU64::new(first_stream.max(1)),
                settings,
            }
        })
    }

    /// Sets up a session taken over from another instance of a cluster (see
    /// [`StatefulSession::restore`]).
    #[cfg(feature = "redis")]
    pub(crate) fn restore(&self, journal: &[mcpwire_protocol::Request]) {
        self.stateful.restore(journal, self.conn.peer());
    }

    /// Whether the client's `initialize` succeeded (the session then knows its client).
    pub(crate) fn is_open(&self) -> bool {
        self.stateful.session().is_some()
    }

    /// Marks the session as used now.
    pub(crate) fn touch(&self) {
        self.touch_at(Instant::now());
    }

    /// Marks the session as used at `now`.
    pub(crate) fn touch_at(&self, now: Instant) {
        self.last_active.store(ticks(self.started, now), Ordering::Relaxed);
    }

    /// Whether the session may still be used at `now`, as the reaper would judge it: on
    /// the way of every request, so one time comparison; only a session idle past the
    /// shorter of its timeouts is looked at closer ([`Session::is_expired`]).
    pub(crate) fn is_live_at(&self, now: Instant) -> bool {
        let idle = ticks(self.started, now).saturating_sub(self.last_active.load(Ordering::Relaxed));
        let shortest = self.settings.session_idle_timeout.min(self.settings.uninitialized_session_timeout);
        u128::from(idle) <= shortest.as_millis() || !self.is_expired(now)
    }

    /// Whether the session has been idle longer than its timeout (a connected stream
    /// counts as activity); before the client's `notifications/initialized`, longer than
    /// [`HttpSettings::uninitialized_session_timeout`].
    pub(crate) fn is_expired(&self, now: Instant) -> bool {
        let has_live =
            lock(&self.streams).streams.iter().any(|s| s.live.as_ref().is_some_and(|l| !l.is_closed()));
        let idle = Duration::from_millis(
            ticks(self.started, now).saturating_sub(self.last_active.load(Ordering::Relaxed)),
        );
        let initialized = self.stateful.session().is_some_and(|s| s.is_initialized());
        let timeout = match initialized {
            true => self.settings.session_idle_timeout,
            false => self.settings.session_idle_timeout.min(self.settings.uninitialized_session_timeout),
        };
        !has_live && idle > timeout
    }

    /// Ends the session: what is in flight is answered "Connection closed" (within the
    /// shutdown grace), then every stream's connection ends. Only the first call counts.
    pub(crate) fn close(&self) {
        // The connection calls back `Route::closing`, which does the rest.
        self.conn.peer().close();
    }

    /// Whether new events of this session's streams can be replayed.
    fn resumable(&self) -> bool {
        self.settings.event_store.is_some() && lock(&self.version).is_at_least(&ProtocolVersion::V2025_11_25)
    }

    /// Opens a response stream for the given requests and returns its receiver. A batch's
    /// stream is SSE from the start (a resumable one starts with a priming event); a single
    /// request's is settled by what comes first ([`Wire::Undecided`]).
    ///
    /// Fails with the offending id when a request id is already in flight in this session
    /// (or repeated in the batch): answers are routed by id, so a duplicate would take
    /// over the original's stream and leave it without its answer forever. The caller
    /// refuses it with [`jsonrpc::duplicate_id`](crate::jsonrpc::duplicate_id), the
    /// dispatcher's own answer to a duplicate. (A batch that must be answered member by
    /// member opens its stream with [`Session::open_batch_stream`].)
    pub(crate) fn open_stream(
        &self,
        requests: &[RequestId],
        json: bool,
        slots: Option<RequestSlots>,
    ) -> Result<(u64, StreamReceiver), RequestId> {
        let mut streams = lock(&self.streams);
        // (A single request, the common case, needs no set to find repeats.)
        let mut seen =
            std::collections::HashSet::with_capacity(if requests.len() > 1 { requests.len() } else { 0 });
        if let Some(dup) = requests
            .iter()
            .find(|&id| streams.of_request(id).is_some() || (requests.len() > 1 && !seen.insert(id)))
        {
            return Err(dup.clone());
        }
        Ok(self.open_locked(&mut streams, requests, json, slots))
    }

    /// Opens the response stream of a batch's requests, leaving out each one whose id is
    /// already in flight in this session or repeated earlier in the batch (JSON-RPC answers
    /// a batch member by member, so its other requests still run). Returns the stream (none
    /// when every request was left out) and the positions in `requests` of those left out,
    /// in order, for the caller to answer as duplicates; a stream that leaves some out
    /// answers in JSON, after their refusals.
    pub(crate) fn open_batch_stream(
        &self,
        requests: &[RequestId],
        json: bool,
        slots: Option<RequestSlots>,
    ) -> (Option<(u64, StreamReceiver)>, Vec<usize>) {
        let mut streams = lock(&self.streams);
        let mut seen = std::collections::HashSet::with_capacity(requests.len());
        let left_out: Vec<usize> = (0..requests.len())
            .filter(|&i| streams.of_request(&requests[i]).is_some() || !seen.insert(&requests[i]))
            .collect();
        drop(seen);
        if left_out.is_empty() {
            return (Some(self.open_locked(&mut streams, requests, json, slots)), left_out);
        }
        let mut skipped = left_out.iter().copied().peekable();
        let kept: Vec<RequestId> = (requests.iter().enumerate())
            .filter(|(i, _)| skipped.next_if_eq(i).is_none())
            .map(|(_, id)| id.clone())
            .collect();
        let opened = (!kept.is_empty()).then(|| self.open_locked(&mut streams, &kept, true, slots));
        (opened, left_out)
    }

    /// Opens a stream for `requests`, none of which is in flight: the body of
    /// [`Session::open_stream`] once its ids are checked, under the lock of `streams`.
    fn open_locked(
        &self,
        streams: &mut Streams,
        requests: &[RequestId],
        json: bool,
        slots: Option<RequestSlots>,
    ) -> (u64, StreamReceiver) {
        let no = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = stream_queue(self.settings.stream_queue.max(requests.len() + 1));
        let mut has_id = false;
        let wire = match requests.len() {
            _ if json => Wire::Json,
            1 => Wire::Undecided,
            _ => {
                let name = stream_name(&self.id, no);
                has_id = self.start_sse(&name, Some(&tx), requests);
                Wire::Sse { name }
            }
        };
        let only = match requests {
            [one] => Some(one.clone()),
            batch => {
                for id in batch {
                    streams.by_request.insert(id.clone(), no);
                }
                None
            }
        };
        streams.streams.push(Stream {
            no,
            live: Some(tx),
            pending: requests.len(),
            wire,
            only,
            _slots: slots,
            has_id,
        });
        (no, rx)
    }

    /// Starts a stream's SSE: when the session can resume, the store learns of the
    /// stream and the response gets the priming event (its id and the `retry` interval).
    /// Whether the priming event got an id.
    fn start_sse(&self, name: &str, live: Option<&StreamSender>, requests: &[RequestId]) -> bool {
        let Some(store) = self.settings.event_store.as_deref().filter(|_| self.resumable()) else {
            return false;
        };
        guarded::stream_opened(store, name, requests);
        let Some(id) = guarded::store(store, name, Bytes::new()) else { return false };
        if let Some(live) = live {
            let _ = live.try_send(sse::priming(&id, self.settings.sse_retry_ms));
        }
        true
    }

    /// Makes an undecided stream SSE (see [`Wire::Undecided`]).
    fn settle_as_sse(&self, stream: &mut Stream) {
        if stream.wire == Wire::Undecided {
            let name = stream_name(&self.id, stream.no);
            stream.has_id |= self.start_sse(&name, stream.live.as_ref(), stream.only.as_slice());
            stream.wire = Wire::Sse { name };
        }
    }

    /// Settles how stream `no` goes out once its POST has delivered its request: SSE
    /// unless its answer already came, first, as JSON (the receiver then says so:
    /// [`StreamReceiver::is_json`]).
    pub(crate) fn settle(&self, no: u64) {
        if let Some(stream) = lock(&self.streams).get_mut(no) {
            self.settle_as_sse(stream);
        }
    }

    /// Opens (or re-attaches) the standalone GET stream; `None` if one is connected. (A
    /// second GET is refused rather than let take the stream over, as the official SDKs'
    /// servers do: the TypeScript SDK's client opens one after any POST stream ends
    /// without a result, and reconnects a GET that ends, so a takeover would have two of
    /// its GETs end each other for as long as the session lives.)
    pub(crate) fn open_standalone(&self) -> Option<StreamReceiver> {
        let (tx, rx) = stream_queue(self.settings.stream_queue);
        let mut streams = lock(&self.streams);
        if let Some(stream) = streams.standalone.and_then(|no| streams.get_mut(no)) {
            if stream.live.as_ref().is_some_and(|l| !l.is_closed()) {
                return None;
            }
            stream.live = Some(tx);
            return Some(rx);
        }
        let no = self.next_stream.fetch_add(1, Ordering::Relaxed);
        streams.streams.push(Stream {
            no,
            live: Some(tx),
            pending: usize::MAX,
            wire: Wire::Sse { name: stream_name(&self.id, no) },
            only: None,
            _slots: None,
            has_id: false,
        });
        streams.standalone = Some(no);
        Some(rx)
    }

    /// Resumes a stream after `last_event_id`: replays its later events, then (if the
    /// stream is still open) carries its live events. `None` if the id is unknown or
    /// belongs to another session.
    pub(crate) fn resume(&self, last_event_id: &str) -> Option<StreamReceiver> {
        let store = self.settings.event_store.as_ref()?;
        let streams = &mut *lock(&self.streams);
        let replay = guarded::replay_after(store.as_ref(), last_event_id)?;
        if !replay.stream.strip_prefix(self.id.as_str()).is_some_and(|rest| rest.starts_with('-')) {
            return None;
        }
        let (tx, rx) = stream_queue(self.settings.stream_queue + replay.events.len());
        for (id, message) in &replay.events {
            if !message.is_empty() {
                let _ = tx.try_send(sse::event(Some(id), None, message));
            }
        }
        // The stream's earlier connection, if any, ends: it is one the client gave up on.
        let named = |s: &&mut Stream| matches!(&s.wire, Wire::Sse { name } if *name == replay.stream);
        if let Some(stream) = streams.streams.iter_mut().find(named) {
            if let Some(earlier) = stream.live.replace(tx) {
                earlier.ender().end_now();
            }
        } else {
            let replays = &mut streams.replays;
            replays.retain(|(name, earlier)| {
                let same = *name == replay.stream;
                if same {
                    earlier.end_now();
                }
                !same && !earlier.is_gone()
            });
            replays.push((replay.stream, tx.ender()));
        }
        Some(rx)
    }

    /// Ends the current connection of a stream (the stream goes on, for resumption).
    /// Only a stream that has sent an event id can be resumed: any other (a plain JSON
    /// answer, a session that cannot resume, a store that refused the event) keeps its
    /// connection, or its answer would be lost.
    fn detach(&self, no: u64) {
        if !self.resumable() {
            return;
        }
        if let Some(stream) = lock(&self.streams).get_mut(no).filter(|s| s.wire != Wire::Json) {
            // A stream ended before anything was sent on it is SSE: the client resumes it
            // from its priming event.
            self.settle_as_sse(stream);
            if stream.has_id {
                stream.live = None;
            }
        }
    }

    /// What a request of this session carries into the dispatcher: the stream control
    /// (SEP-1699 polling) and the `-32800` terminator for a cancelled request.
    pub(crate) fn request_meta(
        self: &Arc<Self>,
        id: &RequestId,
        stream: u64,
        json: bool,
        extensions: crate::Extensions,
    ) -> InboundMeta {
        let mut extensions = extensions;
        let weak: Weak<Session> = Arc::downgrade(self);
        let control = weak.clone();
        extensions.insert(StreamControl::new(move || {
            if let Some(session) = control.upgrade() {
                session.detach(stream);
            }
        }));
        let on_unanswered = (!self.closed.load(Ordering::Acquire)).then(|| -> UnansweredHook {
            let id = id.clone();
            let weak = weak.clone();
            Box::new(move || {
                let error = ErrorObject::new(codes::REQUEST_CANCELLED, "Request cancelled");
                let message = Message::Error(ErrorResponse::new(Some(id.clone()), error));
                match weak.upgrade() {
                    // Routed like the request's other messages, in this same task, so it
                    // comes after them.
                    Some(session) => session.route_one(Outgoing::new(message, Some(id))),
                    None => {
                        tracing::debug!("could not end a cancelled request's stream: the session is gone")
                    }
                }
            })
        });
        InboundMeta { on_unanswered, extensions, no_back_channel: json }
    }

    /// Hands messages to the session's connection, in order; `false` if the session is
    /// closed (what is left is then dropped).
    pub(crate) async fn deliver(&self, events: impl IntoIterator<Item = TransportEvent>) -> bool {
        for event in events {
            if !self.conn.deliver(event).await {
                return false;
            }
        }
        true
    }

    /// Puts one outgoing message on its stream.
    fn route_one(&self, out: Outgoing) {
        let (message, related) = out.into_parts();
        let response_id = match &message {
            Message::Response(r) => Some(r.id.clone()),
            Message::Error(e) => e.id.clone(),
            _ => None,
        };
        let key = response_id.clone().or_else(|| related.clone());
        let bytes = message_bytes(&message);
        let streams = &mut *lock(&self.streams);
        let no = match &key {
            Some(k) => streams.of_request(k),
            None => streams.standalone,
        };
        let Some(no) = no else {
            tracing::debug!("no stream for an outgoing message; dropped");
            return;
        };
        let Some(stream) = streams.get_mut(no) else { return };
        if stream.wire == Wire::Undecided {
            if response_id.is_some() {
                stream.wire = Wire::Json;
                if let Some(live) = &stream.live {
                    live.mark_json();
                }
            } else {
                self.settle_as_sse(stream);
            }
        }
        let chunk = match &stream.wire {
            Wire::Sse { name } => {
                let store = self.settings.event_store.as_deref();
                let id = store.and_then(|s| guarded::store(s, name, bytes.clone()));
                stream.has_id |= id.is_some();
                Some(sse::event(id.as_deref(), None, &bytes))
            }
            // (Undecided is settled above.)
            Wire::Json | Wire::Undecided => response_id.as_ref().map(|_| bytes),
        };
        if let (Some(chunk), Some(live)) = (chunk, &stream.live) {
            match live.try_send(chunk) {
                Ok(()) => {}
                Err(Refused::Full) => {
                    tracing::warn!(session = %self.id, "a client is not reading its stream; dropping that connection");
                    stream.live = None;
                }
                Err(Refused::Closed) => stream.live = None,
            }
        }
        if let Some(key) = response_id {
            stream.pending = stream.pending.saturating_sub(1);
            if stream.pending == 0 {
                if let (Wire::Sse { name }, Some(store)) =
                    (&stream.wire, self.settings.event_store.as_deref())
                {
                    guarded::stream_completed(store, name);
                }
                streams.remove(no);
            }
            streams.unroute(&key);
        }
    }
}

/// A message's JSON, exactly as long as it is: the event store keeps it for the life of
/// the stream (an idle session keeps its `initialize` answer), and the serializer's buffer
/// grows by doubling, so it can be up to twice the message.
fn message_bytes(message: &Message) -> Bytes {
    Bytes::from(message.to_vec().into_boxed_slice())
}

impl Route for Session {
    fn route(&self, out: Outgoing) {
        self.route_one(out);
    }

    /// The end of a session, whoever closed its connection ([`Session::close`], or a
    /// middleware through its peer handle).
    fn closing(self: Arc<Self>) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        if let Some(store) = &self.settings.event_store {
            for stream in &lock(&self.streams).streams {
                if let Wire::Sse { name } = &stream.wire {
                    guarded::forget(store.as_ref(), name);
                }
            }
        }
        // The answers are routed to the streams, so these end after them; the task holds
        // the session until then.
        let runtime = self.runtime.clone();
        drop(runtime.spawn(async move {
            self.conn.close().await;
            lock(&self.streams).streams.clear();
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_names_are_session_dash_number() {
        for (session, no) in [("abc", 0), ("0123456789abcdef", 7), ("s", u64::MAX), ("", 42)] {
            assert_eq!(stream_name(session, no), format!("{session}-{no}"));
        }
    }

    #[test]
    fn an_idle_session_keeps_no_stream_memory() {
        let mut streams = Streams::default();
        for no in 1..=3 {
            streams.by_request.insert(RequestId::Number(no as i64), no);
            streams.streams.push(Stream {
                no,
                live: None,
                pending: 1,
                wire: Wire::Sse { name: stream_name("s", no) },
                only: None,
                _slots: None,
                has_id: false,
            });
        }
        for no in 1..=3 {
            assert!(streams.get_mut(no).is_some());
            streams.remove(no);
            streams.unroute(&RequestId::Number(no as i64));
            assert!(streams.get_mut(no).is_none());
        }
        assert_eq!(streams.streams.capacity(), 0, "the list gave its memory back");
        assert_eq!(streams.by_request.capacity(), 0, "the map gave its memory back");
    }
}
