//! Where 2025-era SSE events are kept so that a client whose connection dropped can
//! resume a stream with `GET` and `Last-Event-ID` (the stream's events after that id are
//! replayed, and no other stream's).
//!
//! ```
//! use bytes::Bytes;
//! use mcpwire::http::event_store::{EventStore, MemoryEventStore};
//!
//! // At most 100 events per stream, 1000 streams.
//! let store = MemoryEventStore::new(100, 1000);
//! let first = store.store("session-1-1", Bytes::from_static(b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}")).unwrap();
//! store.store("session-1-1", Bytes::from_static(b"{\"jsonrpc\":\"2.0\",\"method\":\"b\"}")).unwrap();
//! // A client that saw `first` resumes after it: only the later event comes back.
//! let replay = store.replay_after(&first).unwrap();
//! assert_eq!(replay.stream, "session-1-1");
//! assert_eq!(replay.events.len(), 1);
//! ```

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use bytes::Bytes;

/// The events of one stream after a given event, for a resuming client.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The stream the event id belongs to.
    pub stream: String,
    /// Its later events, oldest first: `(event id, JSON message; empty for priming)`.
    pub events: Vec<(String, Bytes)>,
}

/// Stores SSE events by stream. Calls happen while the session routes messages, so an
/// implementation must be quick (an in-memory structure, or a local cache in front of a
/// remote one). Event ids must be unique across all streams and encode the stream.
pub trait EventStore: Send + Sync + 'static {
    /// Stores one event of `stream` and returns its id, or `None` if it could not be
    /// stored (the event is then sent without an id and cannot be replayed).
    fn store(&self, stream: &str, message: Bytes) -> Option<String>;

    /// The events of the stream of `last_event_id` that came after it, or `None` if the
    /// id is unknown (or already evicted).
    fn replay_after(&self, last_event_id: &str) -> Option<Replay>;

    /// Forgets a stream (its session ended).
    fn forget(&self, stream: &str);

    /// A stream was opened for these requests (a store shared between instances keeps
    /// them, to answer the ones that die with their instance). Does nothing by default.
    fn stream_opened(&self, stream: &str, requests: &[mcpwire_protocol::RequestId]) {
        let _ = (stream, requests);
    }

    /// A stream's requests are all answered: it gets no more events, and a bounded store
    /// should give up its events before those of streams still running (whose answers a
    /// resuming client has yet to get). Does nothing by default.
    fn stream_completed(&self, stream: &str) {
        let _ = stream;
    }
}

/// Calls into a store with its panics contained: a broken store must cost resumption
/// only (the event goes out without an id, a replay is refused), never the session's
/// router task or the response being routed. Each contained panic is logged.
pub(crate) mod guarded {
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use bytes::Bytes;

    use super::{EventStore, Replay};

    fn contain<T>(what: &str, call: impl FnOnce() -> Option<T>) -> Option<T> {
        catch_unwind(AssertUnwindSafe(call)).unwrap_or_else(|_| {
            tracing::error!("the event store panicked in {what}; resumption is off for this event");
            None
        })
    }

    /// [`EventStore::store`], `None` if it panicked.
    pub(crate) fn store(store: &dyn EventStore, stream: &str, message: Bytes) -> Option<String> {
        contain("store", || store.store(stream, message))
    }

    /// [`EventStore::replay_after`], `None` (unknown id) if it panicked.
    pub(crate) fn replay_after(store: &dyn EventStore, last_event_id: &str) -> Option<Replay> {
        contain("replay_after", || store.replay_after(last_event_id))
    }

    /// [`EventStore::stream_opened`], with a panic logged and ignored.
    pub(crate) fn stream_opened(
        store: &dyn EventStore,
        stream: &str,
        requests: &[mcpwire_protocol::RequestId],
    ) {
        contain("stream_opened", || {
            store.stream_opened(stream, requests);
            Some(())
        });
    }

    /// [`EventStore::stream_completed`], with a panic logged and ignored.
    pub(crate) fn stream_completed(store: &dyn EventStore, stream: &str) {
        contain("stream_completed", || {
            store.stream_completed(stream);
            Some(())
        });
    }

    /// [`EventStore::forget`], with a panic logged and ignored.
    pub(crate) fn forget(store: &dyn EventStore, stream: &str) {
        contain("forget", || {
            store.forget(stream);
            Some(())
        });
    }
}

/// The default event store: in memory, bounded per stream, in number of streams and in
/// bytes. The bounds are global (all sessions share them): past them the oldest completed
/// streams go first (those whose requests are all answered), then the oldest streams, so
/// a busy session's finished requests do not cost another session a request still
/// running. A very busy server can make an old stream unresumable (its `Last-Event-ID` is
/// then unknown) but never grows without bound. Event ids are numbered across all
/// streams, so an id is never given twice, even to a stream dropped and written again.
#[derive(Debug)]
pub struct MemoryEventStore {
    inner: Mutex<Streams>,
    per_stream: usize,
    max_streams: usize,
    max_bytes: usize,
}

#[derive(Debug, Default)]
struct Streams {
    /// Keyed by stream names, which the sessions make (a client's `Last-Event-ID` is
    /// only looked up).
    logs: HashMap<Arc<str>, Log, foldhash::fast::FixedState>,
    /// Stream names in creation order, for eviction. A forgotten stream's name may stay
    /// here (skipped, and compacted away once stale names outnumber live ones), so that
    /// forgetting a stream is not a scan of every stream.
    order: VecDeque<Arc<str>>,
    /// Completed streams' names in completion order, evicted before any in `order` (a
    /// name may be stale here too, and is skipped).
    completed: VecDeque<Arc<str>>,
    /// The bytes of every stored message.
    bytes: usize,
    /// The next event's sequence number, for whichever stream.
    next_seq: u64,
}

impl Streams {
    /// Drops the oldest stream still stored other than `except`; `false` if there is
    /// none. This runs for every new stream once the store is full, so the names at the
    /// front are taken with one lookup each (the removal itself, which also tells a
    /// forgotten stream's stale name from a live one).
    fn evict_oldest_other(&mut self, except: &str) -> bool {
        while let Some(front) = self.completed.pop_front() {
            if &*front == except {
                continue;
            }
            if let Some(log) = self.logs.remove(&front) {
                self.bytes -= log.bytes;
                self.compact_order();
                return true;
            }
        }
        while self.order.front().is_some_and(|s| &**s != except) {
            let Some(front) = self.order.pop_front() else { break };
            if let Some(log) = self.logs.remove(&front) {
                self.bytes -= log.bytes;
                return true;
            }
        }
        // `except` is the oldest name left: look past it.
        match self.oldest_other(except) {
            Some(old) => {
                self.evict(&old);
                true
            }
            None => false,
        }
    }

    /// Drops a whole stream.
    fn evict(&mut self, stream: &str) {
        if let Some(log) = self.logs.remove(stream) {
            self.bytes -= log.bytes;
        }
        if self.order.front().is_some_and(|s| &**s == stream) {
            self.order.pop_front();
        } else {
            self.compact_order();
        }
    }

    /// Drops the stale names of `order` and `completed` once they outnumber the live
    /// streams.
    fn compact_order(&mut self) {
        let logs = &self.logs;
        if self.order.len() > 2 * logs.len() + 16 {
            self.order.retain(|s| logs.contains_key(s));
        }
        if self.completed.len() > 2 * logs.len() + 16 {
            self.completed.retain(|s| logs.contains_key(s));
        }
    }

    /// The oldest stream still stored, other than `except`.
    fn oldest_other(&mut self, except: &str) -> Option<Arc<str>> {
        while self.order.front().is_some_and(|s| !self.logs.contains_key(s)) {
            self.order.pop_front();
        }
        self.order.iter().find(|s| &***s != except && self.logs.contains_key(*s)).cloned()
    }

    /// Drops the oldest event of a stream; `false` if it has none to spare (its newest
    /// event always stays).
    fn pop_oldest(&mut self, stream: &str) -> bool {
        let Some(log) = self.logs.get_mut(stream).filter(|l| l.events.len() > 1) else { return false };
        if let Some((_, m)) = log.events.pop_front() {
            log.bytes -= m.len();
            self.bytes -= m.len();
        }
        true
    }
}

#[derive(Debug, Default)]
struct Log {
    events: VecDeque<(u64, Bytes)>,
    /// The bytes of `events`.
    bytes: usize,
}

impl Log {
    /// Appends event `seq`; returns the stream's event count.
    fn push(&mut self, seq: u64, message: Bytes) -> usize {
        self.bytes += message.len();
        self.events.push_back((seq, message));
        self.events.len()
    }
}

/// `<stream>#<sequence>` (once per event).
fn event_id(stream: &str, seq: u64) -> String {
    numbered(stream, '#', seq)
}

/// `<name><separator><n>`, in one allocation of exactly its size: event ids, and the
/// stream names they start with.
pub(crate) fn numbered(name: &str, separator: char, n: u64) -> String {
    let mut digits = itoa::Buffer::new();
    let n = digits.format(n);
    let mut out = String::with_capacity(name.len() + separator.len_utf8() + n.len());
    out.push_str(name);
    out.push(separator);
    out.push_str(n);
    out
}

/// The default byte budget of a [`MemoryEventStore`]: 64 MiB of messages.
pub const DEFAULT_EVENT_STORE_BYTES: usize = 64 * 1024 * 1024;

impl Default for MemoryEventStore {
    fn default() -> Self {
        MemoryEventStore::new(1024, 4096)
    }
}

impl MemoryEventStore {
    /// A store keeping at most `per_stream` events of each stream (the oldest go first),
    /// at most `max_streams` streams (the oldest stream goes first), and at most
    /// [`DEFAULT_EVENT_STORE_BYTES`] of messages.
    pub fn new(per_stream: usize, max_streams: usize) -> Self {
        Self::with_byte_limit(per_stream, max_streams, DEFAULT_EVENT_STORE_BYTES)
    }

    /// [`MemoryEventStore::new`] with another byte budget. Past it, the oldest other
    /// streams are dropped first, then the oldest events of the stream being written
    /// (its newest event always stays).
    pub fn with_byte_limit(per_stream: usize, max_streams: usize, max_bytes: usize) -> Self {
        MemoryEventStore {
            inner: Mutex::new(Streams::default()),
            per_stream: per_stream.max(1),
            max_streams: max_streams.max(1),
            max_bytes,
        }
    }

    /// The bytes of the messages stored now.
    pub fn stored_bytes(&self) -> usize {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).bytes
    }
}

/// Event ids are `<stream>#<sequence>`; stream names never contain `#`.
fn split_id(id: &str) -> Option<(&str, u64)> {
    let (stream, seq) = id.rsplit_once('#')?;
    Some((stream, seq.parse().ok()?))
}

impl EventStore for MemoryEventStore {
    fn store(&self, stream: &str, message: Bytes) -> Option<String> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let inner = &mut *inner;
        let size = message.len();
        let seq = inner.next_seq;
        inner.next_seq += 1;
        // One hash of the name for an event of a known stream, two for a new stream's
        // first event (this runs for every event).
        let events = match inner.logs.get_mut(stream) {
            Some(log) => log.push(seq, message),
            None => {
                if inner.logs.len() >= self.max_streams {
                    inner.evict_oldest_other(stream);
                }
                // Most streams hold two events (the priming event and one answer):
                // room for those, not the four a first push would allocate.
                let mut log = Log { events: VecDeque::with_capacity(2), ..Log::default() };
                let pushed = log.push(seq, message);
                let name: Arc<str> = Arc::from(stream);
                inner.order.push_back(name.clone());
                inner.logs.insert(name, log);
                pushed
            }
        };
        inner.bytes += size;
        if events > self.per_stream {
            inner.pop_oldest(stream);
        }
        while inner.bytes > self.max_bytes {
            if !inner.evict_oldest_other(stream) && !inner.pop_oldest(stream) {
                break;
            }
        }
        Some(event_id(stream, seq))
    }

    fn replay_after(&self, last_event_id: &str) -> Option<Replay> {
        let (stream, seq) = split_id(last_event_id)?;
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let log = inner.logs.get(stream)?;
        let events = log
            .events
            .iter()
            .filter(|(s, _)| *s > seq)
            .map(|(s, m)| (event_id(stream, *s), m.clone()))
            .collect();
        Some(Replay { stream: stream.to_owned(), events })
    }

    fn forget(&self, stream: &str) {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).evict(stream);
    }

    fn stream_completed(&self, stream: &str) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((name, _)) = inner.logs.get_key_value(stream) {
            let name = name.clone();
            inner.completed.push_back(name);
            inner.compact_order();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn replays_only_later_events_of_the_same_stream() {
        let store = MemoryEventStore::new(10, 10);
        let a0 = store.store("a", Bytes::new()).unwrap();
        store.store("b", Bytes::from_static(b"b1")).unwrap();
        store.store("a", Bytes::from_static(b"a1")).unwrap();
        store.store("a", Bytes::from_static(b"a2")).unwrap();
        let replay = store.replay_after(&a0).unwrap();
        assert_eq!(replay.stream, "a");
        assert_eq!(
            replay.events.iter().map(|(_, m)| &m[..]).collect::<Vec<_>>(),
            vec![&b"a1"[..], &b"a2"[..]]
        );
        assert!(store.replay_after("nope").is_none());
        assert!(store.replay_after("zz#1").is_none());
    }

    #[test]
    fn bounded_per_stream_and_in_streams() {
        let store = MemoryEventStore::new(2, 2);
        let first = store.store("a", Bytes::new()).unwrap();
        for _ in 0..5 {
            store.store("a", Bytes::from_static(b"x")).unwrap();
        }
        assert_eq!(store.replay_after(&first).unwrap().events.len(), 2);
        store.store("b", Bytes::new());
        store.store("c", Bytes::new());
        assert!(store.replay_after(&first).is_none(), "the oldest stream was evicted");
    }

    #[test]
    fn completed_streams_are_evicted_before_running_ones() {
        let store = MemoryEventStore::new(10, 3);
        let running = store.store("running", Bytes::new()).unwrap();
        for n in 0..100 {
            let name = format!("done-{n}");
            store.store(&name, Bytes::new()).unwrap();
            store.store(&name, Bytes::from_static(b"answer")).unwrap();
            store.stream_completed(&name);
        }
        assert!(store.replay_after(&running).is_some(), "the running stream outlived 100 finished ones");
        // Once it completes, it is evicted like any other completed stream.
        store.stream_completed("running");
        store.store("x", Bytes::new()).unwrap();
        store.store("y", Bytes::new()).unwrap();
        store.store("z", Bytes::new()).unwrap();
        assert!(store.replay_after(&running).is_none());
        let inner = store.inner.lock().unwrap();
        assert!(inner.completed.len() <= 2 * inner.logs.len() + 16, "{}", inner.completed.len());
    }

    #[test]
    fn a_stream_dropped_and_written_again_never_reuses_an_id() {
        let store = MemoryEventStore::new(10, 1);
        let priming = store.store("a", Bytes::new()).unwrap();
        store.store("b", Bytes::new()).unwrap();
        assert!(store.replay_after(&priming).is_none(), "a was evicted");
        let answer = store.store("a", Bytes::from_static(b"answer")).unwrap();
        assert_ne!(answer, priming);
        // A client resuming after the priming event gets what is still kept after it.
        let replay = store.replay_after(&priming).unwrap();
        assert_eq!(replay.events, vec![(answer, Bytes::from_static(b"answer"))]);
    }

    #[test]
    fn event_ids_are_stream_hash_sequence() {
        assert_eq!(event_id("s-1", 0), "s-1#0");
        assert_eq!(event_id("s-1", 1234567890), "s-1#1234567890");
        assert_eq!(event_id("", u64::MAX), format!("#{}", u64::MAX));
    }

    #[test]
    fn forgotten_streams_free_their_slots_and_their_names() {
        let store = MemoryEventStore::new(10, 3);
        for round in 0..1000 {
            let name = format!("s-{round}");
            store.store(&name, Bytes::from_static(b"x")).unwrap();
            store.forget(&name);
        }
        let inner = store.inner.lock().unwrap();
        assert!(inner.logs.is_empty());
        assert!(inner.order.len() <= 16, "stale names are compacted: {}", inner.order.len());
        drop(inner);
        // Forgotten streams do not count: three live ones fit, the fourth evicts the oldest.
        let a = store.store("a", Bytes::new()).unwrap();
        store.store("gone", Bytes::new()).unwrap();
        store.forget("gone");
        let b = store.store("b", Bytes::new()).unwrap();
        store.store("c", Bytes::new()).unwrap();
        assert!(store.replay_after(&a).is_some() && store.replay_after(&b).is_some());
        store.store("d", Bytes::new()).unwrap();
        assert!(store.replay_after(&a).is_none(), "the oldest live stream was evicted");
        assert!(store.replay_after(&b).is_some());
    }

    #[test]
    fn bounded_in_bytes_oldest_streams_first() {
        let store = MemoryEventStore::with_byte_limit(100, 100, 10);
        let a = store.store("a", Bytes::from_static(b"aaaa")).unwrap();
        store.store("b", Bytes::from_static(b"bbbb")).unwrap();
        assert_eq!(store.stored_bytes(), 8);
        // 12 bytes would be over the budget: the oldest other stream goes.
        let c = store.store("c", Bytes::from_static(b"cccc")).unwrap();
        assert_eq!(store.stored_bytes(), 8);
        assert!(store.replay_after(&a).is_none(), "stream a was dropped");
        // One stream over the budget by itself keeps its newest events only.
        for _ in 0..5 {
            store.store("c", Bytes::from_static(b"cccc")).unwrap();
        }
        assert_eq!(store.stored_bytes(), 8);
        assert_eq!(store.replay_after(&c).unwrap().events.len(), 2);
        // An event larger than the budget is still kept (the newest always stays).
        store.store("d", Bytes::from(vec![b'd'; 50])).unwrap();
        assert_eq!(store.stored_bytes(), 50);
        store.forget("d");
        assert_eq!(store.stored_bytes(), 0);
    }
}
