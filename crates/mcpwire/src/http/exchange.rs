//! Delivering a 2025 POST's messages into a session and answering it: `202` for
//! notifications and responses only; otherwise the answers, as one JSON body (a JSON
//! array for a batch) or as an SSE stream that carries everything related to the
//! requests and ends with their answers. A single request answered before anything else
//! was sent for it (most calls: the handler answers at its first poll) gets JSON; an SSE
//! stream that is complete within a few milliseconds is sent as one body, so it goes out
//! in one write.

use std::time::Duration;

use bytes::Bytes;
use http::{Response, StatusCode};
use mcpwire_protocol::{codes, ErrorResponse, Message, RequestId};

use super::session::Session;
use super::stream_queue::StreamReceiver;
use super::{request_extensions, stateless, status, McpBody, McpService};
use crate::transport::{InboundMeta, TransportEvent};

impl McpService {
    /// Delivers `messages` (a batch if `batch`) into `session` and answers; `refused`:
    /// the error answers of a batch's members that did not decode, which go first in its
    /// answer (then a JSON one: they are answered before anything else is).
    pub(super) async fn exchange(
        &self,
        session: &std::sync::Arc<Session>,
        parts: &mut http::request::Parts,
        messages: Vec<Message>,
        batch: bool,
        mut refused: Vec<Bytes>,
        json: bool,
    ) -> Response<McpBody> {
        // A POST nearly always carries one request: its id needs no list of its own.
        let (one, many): (Option<[RequestId; 1]>, Vec<RequestId>) = match messages.as_slice() {
            [Message::Request(r)] => (Some([r.id.clone()]), Vec::new()),
            _ => {
                let ids = messages.iter().filter_map(|m| match m {
                    Message::Request(r) => Some(r.id.clone()),
                    _ => None,
                });
                (None, ids.collect())
            }
        };
        let request_ids: &[RequestId] = one.as_ref().map_or(&many, |one| one);
        let extensions = request_extensions(parts);
        if request_ids.is_empty() {
            return deliver_unanswered(session, messages.into_iter(), &extensions, &refused).await;
        }

        // The requests' slots, held by their stream and by the response: given back when
        // the last of the requests has settled (not when the POST ends: a request goes
        // on without it) and its answers are written (or their client gone), so that
        // answers nobody reads count too.
        let wanted = u32::try_from(request_ids.len()).unwrap_or(u32::MAX);
        let Ok(slots) = self.inner.session_request_slots.clone().try_acquire_many_owned(wanted) else {
            let id = one.map(|[id]| id);
            return status::busy(id, "Too many requests in progress; try again later");
        };
        let slots = std::sync::Arc::new(slots);
        let json = json || !refused.is_empty();
        let (opened, left_out) = if batch {
            // A batch is answered member by member: a request repeating an id is refused
            // alone, inside the batch's answer.
            let (opened, left_out) = session.open_batch_stream(request_ids, json, Some(slots.clone()));
            refused.extend(left_out.iter().map(|&i| duplicate_answer(&request_ids[i])));
            (opened, left_out)
        } else {
            match session.open_stream(request_ids, json, Some(slots.clone())) {
                Ok(opened) => (Some(opened), Vec::new()),
                Err(duplicate) => {
                    let error = crate::jsonrpc::duplicate_id(&duplicate);
                    return status::error_object(StatusCode::BAD_REQUEST, Some(duplicate), error);
                }
            }
        };
        let json = json || !left_out.is_empty();
        let count = request_ids.len() - left_out.len();
        // The requests left out are not delivered: their answers would take over the
        // streams of the requests whose ids they repeat.
        let mut requests_seen = 0;
        let mut skipped = left_out.iter().copied().peekable();
        let messages = messages.into_iter().filter(|m| {
            if !matches!(m, Message::Request(_)) {
                return true;
            }
            requests_seen += 1;
            skipped.next_if_eq(&(requests_seen - 1)).is_none()
        });
        let Some((stream, rx)) = opened else {
            return deliver_unanswered(session, messages, &extensions, &refused).await;
        };
        // Each message is made an event as it is delivered, with no list in between.
        let events = messages.map(|m| {
            let meta = match &m {
                Message::Request(r) => session.request_meta(&r.id, stream, json, extensions.clone()),
                _ => InboundMeta { extensions: extensions.clone(), ..Default::default() },
            };
            TransportEvent::message(m, meta)
        });
        if !session.deliver(events).await {
            return status::error(StatusCode::NOT_FOUND, None, codes::INVALID_REQUEST, "Session not found");
        }
        let mut rx = rx;
        // A request not answered while it was delivered (a sync tool on the blocking pool,
        // a handler that awaited a moment) gets a moment more before its stream is made
        // SSE: a quick answer then still goes out as one JSON body, which every client
        // reads whole (the Python SDK's refuses an SSE event over 1 MiB). That moment is
        // the SSE response's hold too ([`hold`]): a slow request waits for it once.
        let mut held_until = None;
        if count == 1 && !json && !rx.is_json() {
            let until = tokio::time::Instant::now() + SSE_HOLD;
            let _ = tokio::time::timeout_at(until, rx.ready()).await;
            held_until = Some(until);
        }
        session.settle(stream);
        // The handlers' facts share the request's header map: it comes back for the
        // response once they are done with it ([`status::reclaim_room`]).
        let headers = extensions.shared::<http::HeaderMap>();
        drop(extensions);
        let response = self.answer(rx, (count, held_until), batch, json, &refused, headers).await;
        response.map(|body| body.with_guard(slots))
    }

    /// The response carrying the answers of a POST's requests (`count` of them) from `rx`;
    /// `held_until`: when an SSE response's [`hold`] ends, if its wait has begun already.
    async fn answer(
        &self,
        mut rx: StreamReceiver,
        (count, held_until): (usize, Option<tokio::time::Instant>),
        batch: bool,
        json: bool,
        refused: &[Bytes],
        headers: Option<std::sync::Arc<http::HeaderMap>>,
    ) -> Response<McpBody> {
        if json || rx.is_json() {
            let mut answers = Vec::with_capacity(count);
            while answers.len() < count {
                match rx.recv().await {
                    Some(chunk) => answers.push(chunk),
                    None => break,
                }
            }
            let body = if batch {
                json_array(refused.iter().chain(&answers))
            } else {
                answers.into_iter().next().unwrap_or_default()
            };
            status::json_in(status::reclaim_room(headers), StatusCode::OK, body)
        } else {
            let (first, complete) = hold(&mut rx, self.inner.settings.stream_queue, held_until).await;
            if complete {
                // The requests are answered: their handlers no longer hold the headers.
                stateless::sse_response_in(status::reclaim_room(headers), McpBody::full(concat(first)))
            } else {
                stateless::sse_response(McpBody::session_stream(first, rx, self.inner.settings.keep_alive))
            }
        }
    }
}

/// Delivers messages none of which awaits an answer (notifications and responses; a
/// batch's requests all refused) and answers the POST: `202`, or the refusals of a
/// batch's members as one array, with `200` beside messages delivered and `400` when
/// none was (as a single invalid message gets).
async fn deliver_unanswered(
    session: &Session,
    messages: impl Iterator<Item = Message>,
    extensions: &crate::Extensions,
    refused: &[Bytes],
) -> Response<McpBody> {
    let mut delivered = false;
    let events = messages.map(|m| {
        delivered = true;
        TransportEvent::message(m, InboundMeta { extensions: extensions.clone(), ..Default::default() })
    });
    if !session.deliver(events).await {
        status::error(StatusCode::NOT_FOUND, None, codes::INVALID_REQUEST, "Session not found")
    } else if refused.is_empty() {
        status::empty(StatusCode::ACCEPTED)
    } else {
        let status = if delivered { StatusCode::OK } else { StatusCode::BAD_REQUEST };
        status::json_in(None, status, json_array(refused))
    }
}

/// The answer to a batch's request whose id is already in flight (or repeated earlier in
/// the batch): the dispatcher's own answer to a duplicate.
fn duplicate_answer(id: &RequestId) -> Bytes {
    let error = ErrorResponse::new(Some(id.clone()), crate::jsonrpc::duplicate_id(id));
    Bytes::from(Message::Error(error).to_vec())
}

/// The status of the answer to a batch none of whose requests needs one: the errors of
/// its invalid members come with `200` beside valid notifications or responses, with
/// `400` when no member was valid (as a single invalid message gets).
pub(super) fn refused_status(valid: &[Message]) -> StatusCode {
    match valid.is_empty() {
        true => StatusCode::BAD_REQUEST,
        false => StatusCode::OK,
    }
}

/// JSON texts as one JSON array.
pub(super) fn json_array<'a>(items: impl IntoIterator<Item = &'a Bytes>) -> Bytes {
    let mut out = b"[".to_vec();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.push(b']');
    Bytes::from(out)
}

/// How long a 2025 SSE response waits for its stream to end before its head is sent. A
/// stream that ends soon (a handler that waited a moment) then goes out as one complete
/// body, with its priming event, in one write; anything slower starts streaming at once
/// after it.
const SSE_HOLD: Duration = Duration::from_millis(5);

/// Takes the stream's events for up to [`SSE_HOLD`] (until `until`, when given), and at
/// most `limit` of them: `(events, true)` if the stream ended meanwhile. What is there
/// already is taken without a timer: a quick handler has answered before this runs, and
/// a tokio timer costs a clock read and its registration.
async fn hold(
    rx: &mut StreamReceiver,
    limit: usize,
    until: Option<tokio::time::Instant>,
) -> (Vec<Bytes>, bool) {
    let limit = limit.max(1);
    let mut events = Vec::with_capacity(2);
    while events.len() < limit {
        match rx.try_recv() {
            Ok(Some(event)) => events.push(event),
            Ok(None) => return (events, true),
            Err(()) => break,
        }
    }
    let deadline = match until {
        Some(until) => tokio::time::sleep_until(until),
        None => tokio::time::sleep(SSE_HOLD),
    };
    tokio::pin!(deadline);
    while events.len() < limit {
        tokio::select! {
            biased;
            event = rx.recv() => match event {
                Some(event) => events.push(event),
                None => return (events, true),
            },
            _ = &mut deadline => break,
        }
    }
    (events, false)
}

/// The events of a complete stream as one body.
fn concat(events: Vec<Bytes>) -> Bytes {
    match <[Bytes; 1]>::try_from(events) {
        Ok([one]) => one,
        Err(events) => {
            let mut body = Vec::with_capacity(events.iter().map(Bytes::len).sum());
            for event in &events {
                body.extend_from_slice(event);
            }
            Bytes::from(body)
        }
    }
}
