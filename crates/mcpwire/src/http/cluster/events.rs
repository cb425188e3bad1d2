//! SSE events in Redis, so that a stream can be resumed on an instance other than the
//! one that wrote it. Events are kept in the instance's own store first (which makes
//! the ids and serves resumption on the same instance) and written behind to Redis in
//! batches, off the path of the message being routed.

use std::sync::{Arc, Weak};

use bytes::Bytes;
use mcpwire_protocol::{codes, ErrorObject, ErrorResponse, Message, RequestId};
use tokio::sync::mpsc;

use super::{Cluster, Shared};
use crate::http::event_store::{EventStore, Replay};

/// Writes waiting for Redis; past this many, new events are not shared (they stay
/// resumable on the instance that wrote them).
const WRITE_QUEUE: usize = 8192;
/// Most writes sent to Redis in one round trip.
const WRITE_BATCH: usize = 256;

enum Write {
    /// An event of a stream: its id and message (empty for a priming event).
    Event { stream: Arc<str>, id: String, message: Bytes },
    /// The requests a stream was opened for (JSON array of ids).
    Requests { stream: Arc<str>, ids: String },
}

/// An [`EventStore`] shared through Redis, in front of this instance's own store.
pub(crate) struct ClusterEventStore {
    local: Arc<dyn EventStore>,
    writes: mpsc::Sender<Write>,
}

impl ClusterEventStore {
    pub(crate) fn new(local: Arc<dyn EventStore>, cluster: &Cluster) -> Self {
        let (writes, rx) = mpsc::channel(WRITE_QUEUE);
        tokio::spawn(write_behind(Arc::downgrade(&cluster.shared), rx));
        ClusterEventStore { local, writes }
    }

    fn queue(&self, write: Write) {
        if self.writes.try_send(write).is_err() {
            tracing::warn!("too many SSE events waiting for redis; one is resumable on this instance only");
        }
    }
}

impl EventStore for ClusterEventStore {
    fn store(&self, stream: &str, message: Bytes) -> Option<String> {
        let id = self.local.store(stream, message.clone())?;
        self.queue(Write::Event { stream: stream.into(), id: id.clone(), message });
        Some(id)
    }

    fn replay_after(&self, last_event_id: &str) -> Option<Replay> {
        self.local.replay_after(last_event_id)
    }

    fn forget(&self, stream: &str) {
        // Only here: in Redis the stream outlives this instance's interest in it (another
        // instance may resume it) and expires by itself.
        self.local.forget(stream);
    }

    fn stream_completed(&self, stream: &str) {
        self.local.stream_completed(stream);
    }

    fn stream_opened(&self, stream: &str, requests: &[RequestId]) {
        let ids = serde_json::to_string(requests).unwrap_or_else(|_| "[]".into());
        self.queue(Write::Requests { stream: stream.into(), ids });
    }
}

/// Sends queued writes to Redis, a batch per round trip, while the cluster lives.
async fn write_behind(weak: Weak<Shared>, mut writes: mpsc::Receiver<Write>) {
    let mut batch = Vec::with_capacity(WRITE_BATCH);
    while writes.recv_many(&mut batch, WRITE_BATCH).await > 0 {
        let Some(shared) = weak.upgrade() else { return };
        let cluster = Cluster { shared };
        let ttl = cluster.shared.options.event_ttl.as_millis().max(1) as u64;
        let keep = cluster.shared.options.events_per_stream.max(1) as i64;
        let mut pipe = redis::pipe();
        let mut touched: Vec<Arc<str>> = Vec::new();
        for write in batch.drain(..) {
            match write {
                Write::Event { stream, id, message } => {
                    let mut entry = Vec::with_capacity(id.len() + 1 + message.len());
                    entry.extend_from_slice(id.as_bytes());
                    entry.push(b'\n');
                    entry.extend_from_slice(&message);
                    pipe.cmd("RPUSH").arg(cluster.events_key(&stream)).arg(entry).ignore();
                    if !touched.contains(&stream) {
                        touched.push(stream);
                    }
                }
                Write::Requests { stream, ids } => {
                    pipe.cmd("SET").arg(cluster.requests_key(&stream)).arg(ids).arg("PX").arg(ttl).ignore();
                }
            }
        }
        for stream in &touched {
            let key = cluster.events_key(stream);
            pipe.cmd("LTRIM").arg(&key).arg(-keep).arg(-1).ignore();
            pipe.cmd("PEXPIRE").arg(&key).arg(ttl).ignore();
        }
        if let Err(e) = pipe.query_async::<()>(&mut cluster.redis()).await {
            tracing::warn!("SSE events could not be written to redis (resumable on this instance only): {e}");
        }
    }
}

impl Cluster {
    fn events_key(&self, stream: &str) -> String {
        self.key("stream", stream)
    }

    fn requests_key(&self, stream: &str) -> String {
        self.key("stream-requests", stream)
    }

    /// A stream of session `session` resumed after its owner died: its events after
    /// `last_event_id` from Redis, then an error for each of its requests that got no
    /// answer. `None` if Redis does not know the event (or it is another session's).
    pub(crate) async fn replay_remote(&self, session: &str, last_event_id: &str) -> Option<RemoteReplay> {
        let (stream, _) = last_event_id.rsplit_once('#')?;
        if !stream.strip_prefix(session).is_some_and(|rest| rest.starts_with('-')) {
            return None;
        }
        let (entries, requests): (Vec<Vec<u8>>, Option<String>) = redis::pipe()
            .cmd("LRANGE")
            .arg(self.events_key(stream))
            .arg(0)
            .arg(-1)
            .cmd("GET")
            .arg(self.requests_key(stream))
            .query_async(&mut self.redis())
            .await
            .map_err(|e| tracing::warn!("could not read a stream's events from redis: {e}"))
            .ok()?;
        let events: Vec<(&str, &[u8])> = entries
            .iter()
            .filter_map(|e| {
                let cut = e.iter().position(|b| *b == b'\n')?;
                Some((std::str::from_utf8(&e[..cut]).ok()?, &e[cut + 1..]))
            })
            .collect();
        let from = events.iter().position(|(id, _)| *id == last_event_id)? + 1;
        let mut answered = std::collections::HashSet::new();
        for id in events.iter().filter_map(|(_, message)| answered_request(message)) {
            answered.insert(id.key());
        }
        let mut out: Vec<Bytes> = events[from..]
            .iter()
            .filter(|(_, message)| !message.is_empty())
            .map(|(id, message)| crate::http::sse::event(Some(id), None, message))
            .collect();
        // A stream opened for no request is the session's standalone GET stream.
        let standalone = requests.is_none();
        let requests: Vec<RequestId> =
            requests.and_then(|r| serde_json::from_str(&r).ok()).unwrap_or_default();
        for id in requests.into_iter().filter(|id| !answered.contains(&id.key())) {
            let error = ErrorObject::new(
                codes::INTERNAL_ERROR,
                "The server instance running this request stopped before it answered",
            );
            let message = Message::Error(ErrorResponse::new(Some(id), error));
            out.push(crate::http::sse::event(None, None, &message.to_vec()));
        }
        Some(RemoteReplay { events: out, standalone })
    }
}

/// The request a message (JSON) answers, if it is a response or an error with an id.
pub(super) fn answered_request(message: &[u8]) -> Option<RequestId> {
    match serde_json::from_slice::<Message>(message).ok()? {
        Message::Response(r) => Some(r.id),
        Message::Error(e) => e.id,
        _ => None,
    }
}

/// What [`Cluster::replay_remote`] found of a stream.
pub(crate) struct RemoteReplay {
    /// SSE events to send, in order.
    pub(crate) events: Vec<Bytes>,
    /// The stream was the session's standalone GET stream (it goes on after the replay).
    pub(crate) standalone: bool,
}
