//! Reading a successful answer: a JSON body, or an SSE stream resumed after a drop (2025)
//! or reported lost (2026, where the request is then re-issued).

use http::header;
use http_body_util::BodyExt;
use mcpwire_protocol::meta::SUBSCRIPTION_ID;
use mcpwire_protocol::{decode_frame, DecodeError, Frame, Message, RequestId};
use serde_json::{Map, Value};

use super::body::read_limited;
use super::{lock, Shared, SseParser, MAX_RESUMES};

/// Why a request whose response stream ended without its answer failed.
pub(super) const LOST: &str = "the response stream ended before the answer arrived";

/// The request whose answer a response carries: its id as the dispatcher knows it, and
/// the id it went out with (another one after a 2026 re-issue). An answer carrying the
/// wire id is delivered with the dispatcher's.
#[derive(Clone, Copy)]
pub(super) struct Awaited<'a> {
    /// The dispatcher's id.
    pub id: &'a RequestId,
    /// The id on the wire.
    pub on_wire: &'a RequestId,
}

impl Awaited<'_> {
    /// Whether `message` answers this request; if so its id becomes the dispatcher's.
    fn claim(&self, message: &mut Message) -> bool {
        let id = match message {
            Message::Response(r) => &mut r.id,
            Message::Error(e) => match &mut e.id {
                Some(id) => id,
                None => return false,
            },
            _ => return false,
        };
        if id.key() != self.on_wire.key() {
            return false;
        }
        id.clone_from(self.id);
        true
    }

    /// A re-issued `subscriptions/listen` stream's notifications carry the wire id as
    /// their `subscriptionId` (the server stamps its request's id): it becomes the
    /// dispatcher's again, so that they reach the subscription that asked for them.
    fn restamp(&self, message: &mut Message) {
        if self.id.key() == self.on_wire.key() {
            return;
        }
        let Message::Notification(note) = message else { return };
        let Some(raw) = &note.params else { return };
        let Ok(mut params) = serde_json::from_str::<Map<String, Value>>(raw.get()) else { return };
        let Some(Value::Object(meta)) = params.get_mut("_meta") else { return };
        let stamped =
            meta.get(SUBSCRIPTION_ID).and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
        if stamped.is_none_or(|s| s.key() != self.on_wire.key()) {
            return;
        }
        let Ok(id) = serde_json::to_value(self.id) else { return };
        meta.insert(SUBSCRIPTION_ID.to_owned(), id);
        if let Ok(raw) = serde_json::value::to_raw_value(&params) {
            note.params = Some(raw);
        }
    }
}

/// How reading a successful answer ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Read {
    /// The answer was delivered, or the request failed with the reason.
    Done,
    /// A 2026 response stream ended before the answer: the request is lost (the server
    /// took the closed stream as its cancel) and is still pending.
    Lost,
}

impl Shared {
    /// Reads a successful answer: a JSON body or an SSE stream (resumed if it drops in
    /// 2025; reported [`Read::Lost`] in 2026, which has no resumption).
    pub(super) async fn read_answer(
        &self,
        response: hyper::Response<hyper::body::Incoming>,
        awaited: Option<Awaited<'_>>,
        stateless: bool,
    ) -> Read {
        let id = awaited.map(|a| a.id);
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        if content_type.starts_with("text/event-stream") {
            let mut parser = SseParser::new(self.max_message_bytes);
            let mut answered = self.read_sse(response.into_body(), &mut parser, awaited).await;
            let mut resumes = 0;
            while !answered && !stateless && resumes < MAX_RESUMES {
                let Some(last) = parser.last_event_id().map(str::to_owned) else { break };
                tokio::time::sleep(super::reconnect_delay(&parser, resumes)).await;
                resumes += 1;
                let Some(body) = self.get_stream(Some(&last)).await else { continue };
                answered = self.read_sse(body, &mut parser, awaited).await;
                // A connection that brought new events is a server polling (it may end
                // each one, SEP-1699), not a failed resume: only those in a row that bring
                // nothing are limited. (The caller's timeout bounds the whole wait.)
                if parser.last_event_id() != Some(last.as_str()) {
                    resumes = 0;
                }
            }
            if let (false, Some(id)) = (answered, id) {
                if lock(&self.pending).contains_key(&id.key()) {
                    if stateless {
                        return Read::Lost;
                    }
                    self.fail(id, LOST.into()).await;
                }
            }
            return Read::Done;
        }
        let body = match read_limited(response.into_body(), self.max_message_bytes).await {
            Ok(b) => b,
            Err(reason) => {
                if let Some(id) = id {
                    self.fail(id, reason).await;
                }
                return Read::Done;
            }
        };
        if body.is_empty() {
            if let Some(id) = id {
                self.fail(id, "the server accepted a request without answering it".into()).await;
            }
            return Read::Done;
        }
        let frame = match decode_frame(&body) {
            Ok(frame) => frame,
            Err(e) => {
                if let Some(id) = id {
                    self.fail(id, format!("the server's answer is not JSON-RPC: {e}")).await;
                }
                return Read::Done;
            }
        };
        for mut message in frame_messages(frame) {
            if let Some(awaited) = awaited {
                awaited.claim(&mut message);
            }
            self.deliver(message).await;
        }
        // A JSON body is all the answer its POST gets: one that did not answer the request
        // (another id) leaves nothing to wait for.
        if let Some(id) = id {
            if lock(&self.pending).contains_key(&id.key()) {
                self.fail(id, "the server's answer did not carry this request's id".into()).await;
            }
        }
        Read::Done
    }

    /// Delivers the messages of an SSE body; returns whether the answer to `id` came.
    pub(super) async fn read_sse(
        &self,
        mut body: hyper::body::Incoming,
        parser: &mut SseParser,
        awaited: Option<Awaited<'_>>,
    ) -> bool {
        let id = awaited.map(|a| a.id);
        let mut answered = false;
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { break };
            let Ok(data) = frame.into_data() else { continue };
            let events = match parser.push(&data) {
                Ok(events) => events,
                Err(e) => {
                    tracing::warn!("closing an SSE stream: {e}");
                    // The answer this stream was for will not come: say why now.
                    if let Some(id) = id.filter(|id| lock(&self.pending).contains_key(&id.key())) {
                        self.fail(id, e.to_string()).await;
                        answered = true;
                    }
                    break;
                }
            };
            for event in events {
                if event.data.is_empty() || event.event.as_deref().is_some_and(|e| e != "message") {
                    continue;
                }
                // An event holds one message, or a batch (which a 2025-03-26 client must
                // take in, as it does in a JSON body).
                let frame = match decode_frame(event.data.as_bytes()) {
                    Ok(frame) => frame,
                    Err(e) => {
                        answered |= self.fail_if_answer(awaited, e, event.data.as_bytes()).await;
                        continue;
                    }
                };
                for mut message in frame_messages(frame) {
                    if let Some(a) = awaited {
                        a.restamp(&mut message);
                    }
                    let answers = awaited.is_some_and(|a| a.claim(&mut message));
                    self.deliver(message).await;
                    if answers {
                        answered = true;
                    }
                }
            }
            if answered {
                break;
            }
        }
        parser.finish();
        answered
    }
}

impl Shared {
    /// An SSE event that did not decode but reads as an answer (an id, no `method`) to a
    /// request in flight is that request's answer: the request fails now with the reason,
    /// rather than waiting for one that will not come (or, in 2026, being sent again as
    /// if its stream had been lost). On a response stream (`awaited`) only that request's
    /// id counts; on a stream of no one request (the legacy transport's, a 2025 session's
    /// GET stream) any request in flight's. An answer whose id is of no type an id can
    /// have answers the one request a response stream is for (the server sends answers to
    /// nothing else there). Whether it answered `awaited`.
    async fn fail_if_answer(&self, awaited: Option<Awaited<'_>>, error: DecodeError, data: &[u8]) -> bool {
        let error = crate::transport::lines::with_answer_id(error, data);
        let id = match (&error.id, awaited) {
            (None, Some(a)) if error.is_answer => Some(a.on_wire),
            (id, _) => id.as_ref(),
        };
        let (Some(id), false) = (id, error.had_method) else {
            tracing::debug!("skipped an SSE event that is not JSON-RPC: {}", error.message);
            return false;
        };
        let (target, answers_awaited) = match awaited {
            Some(a) if id.key() == a.on_wire.key() => (a.id, true),
            Some(_) => return false,
            None => (id, false),
        };
        if !lock(&self.pending).contains_key(&target.key()) {
            return false;
        }
        self.fail(target, format!("the server's answer is not JSON-RPC: {}", error.message)).await;
        answers_awaited
    }
}

/// The messages of a decoded frame, a JSON body's or an SSE event's: the one message, or
/// the members of a batch that decoded (one that did not answers nothing). One loop takes
/// both shapes; a single message (nearly every answer) allocates nothing.
fn frame_messages(frame: Frame) -> impl Iterator<Item = Message> {
    let (single, batch) = match frame {
        Frame::Single(message) => (Some(message), Vec::new()),
        Frame::Batch(items) => (None, items.into_iter().flatten().collect()),
    };
    single.into_iter().chain(batch)
}
