//! The 2026-07-28 path: one POST carries one request and gets one answer — a JSON body,
//! or an SSE stream when the handler sends notifications first (progress, logs, a
//! `subscriptions/listen` stream). Closing the response cancels the request, and nothing
//! more is written for it. The headers must agree with the body (`-32020` otherwise).

use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Response, StatusCode};
use mcpwire_protocol::{codes, Message, Request};
use tokio::sync::{mpsc, OwnedSemaphorePermit};

use super::response_body::McpBody;
use super::{sse, status, Inner};
use crate::extensions::Extensions;
use crate::jsonrpc::{poll_once, serve_one, Handler, OneShot, RequestContext};
use crate::server::Server;
use crate::transport::{InboundMeta, Outgoing};

/// The handler of one 2026 request: the server's 2026 era, through its middleware.
struct Stateless(Server);

impl Handler for Stateless {
    fn in_stateless_era(&self) -> bool {
        true
    }

    async fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<mcpwire_protocol::RawJson, crate::McpError> {
        self.0.serve_stateless(request, ctx).await
    }
}

/// Serves one 2026 request, holding `slot` until its answer is written or its stream
/// ends. The handler runs inside this future ([`serve_one`]): an answer that comes
/// before anything else is sent as JSON; a notification first commits the response to
/// SSE, and the handler moves with the request into the task that writes the stream.
/// When the endpoint's `closing` token fires (it shuts down) the request ends at once: a
/// `subscriptions/listen` stream with its final result, anything else (streaming or not
/// yet) with the answer every transport gives a request in flight at shutdown (its
/// handler is stopped: [`stop`]), written within the dispatcher's `shutdown_grace`. A
/// stream that cannot take an event for one keep-alive interval (a client that does not
/// read) is dropped, which cancels its handler.
///
/// The caller has checked that the client accepts both JSON and SSE.
pub(crate) async fn serve(
    endpoint: &Inner,
    request: Request,
    extensions: Extensions,
    slot: OwnedSemaphorePermit,
    leftovers: impl Send + 'static,
) -> Response<McpBody> {
    let handler = Stateless(endpoint.server.clone());
    serve_alone(endpoint, handler, request, extensions, slot, leftovers, false).await
}

/// Serves one request that is a connection of its own (a 2026 request, or a 2025 POST
/// without a session) with `handler`, as [`serve`] describes. With `json_only` (a 2025
/// endpoint set to answer in JSON), what the handler sends before its answer is dropped
/// and the answer is always JSON.
pub(crate) async fn serve_alone<H: Handler>(
    endpoint: &Inner,
    handler: H,
    request: Request,
    extensions: Extensions,
    slot: OwnedSemaphorePermit,
    leftovers: impl Send + 'static,
    json_only: bool,
) -> Response<McpBody> {
    let Inner { settings, dispatcher: config, closing, .. } = endpoint;
    let id = request.id.clone();
    let stateless_era = handler.in_stateless_era();
    let headers = extensions.shared::<HeaderMap>();
    let meta = InboundMeta { extensions, no_back_channel: true, ..Default::default() };
    let mut call = serve_one(handler, request, meta, config.clone(), settings.stream_queue);

    // Most handlers answer at their first poll: then no timer is armed and `closing` is
    // not waited on (both cost more than the poll).
    let (first, mut sent) = match poll_once(&mut call).await {
        Poll::Ready(answer) => {
            let sent = if json_only { None } else { call.sent(false) };
            // The handler has finished, and its context, which held the headers, with it.
            // The rest of the request is freed once its answer has been written.
            let room = status::reclaim_room(headers);
            let statuses = Statuses::of(stateless_era, &call);
            return answered(id, answer, sent, room, (call, leftovers), statuses);
        }
        Poll::Pending if json_only => {
            // Nothing but the answer is sent: the queue's receiver is dropped, so what
            // the handler sends is discarded rather than left to fill the queue.
            drop(call.sent(true));
            let answer = tokio::select! {
                biased;
                answer = &mut call => answer,
                _ = closing.cancelled() => stop(&mut call).await,
            };
            let statuses = Statuses::of(stateless_era, &call);
            return answered(id, answer, None, None, (call, leftovers), statuses);
        }
        Poll::Pending => {
            // The handler waits: what it sends now is watched for (its queue is made).
            let Some(mut sent) = call.sent(true) else { return internal_error(id) };
            let uncommitted = tokio::time::sleep(settings.keep_alive);
            let first = tokio::select! {
                biased;
                answer = &mut call => {
                    let statuses = Statuses::of(stateless_era, &call);
                    return answered(id, answer, Some(sent), None, leftovers, statuses)
                }
                first = sent.recv() => match first {
                    Some(out) => Some(out),
                    // Unreachable: the request holds a sender while it runs.
                    None => return internal_error(id),
                },
                _ = uncommitted => None,
                _ = closing.cancelled() => {
                    let answer = stop(&mut call).await;
                    let statuses = Statuses::of(stateless_era, &call);
                    return answered(id, answer, Some(sent), None, leftovers, statuses);
                }
            };
            (first, sent)
        }
    };

    let closing = closing.clone();
    let (body_tx, body_rx) = mpsc::channel::<Bytes>(settings.stream_queue);
    let keep_alive = settings.keep_alive;
    let grace = config.shutdown_grace;
    tokio::spawn(async move {
        // The request lives as long as this task: when it ends (the client went away, the
        // answer was sent) `call` is dropped, which cancels a handler still running, and
        // the slot is given back.
        let _slot = slot;
        let mut stream = Stream { body: body_tx, stall: keep_alive };
        let mut stopped = false;
        let opening = match first {
            Some(out) => sse::event(None, None, &out.message().to_vec()),
            None => sse::keep_alive(),
        };
        if !stream.send(opening).await {
            return;
        }
        loop {
            let next = tokio::select! {
                biased;
                _ = stream.body.closed() => return,
                _ = closing.cancelled(), if !stopped => {
                    // The request is stopped as a connection's shutdown stops it: its answer
                    // (a listen stream's final result, the closed error of anything else)
                    // comes next and ends the stream, written within the shutdown grace or
                    // not at all.
                    call.shut_down();
                    stopped = true;
                    stream.stall = stream.stall.min(grace);
                    continue;
                }
                answer = &mut call => {
                    // What the handler sent before its answer goes first.
                    while let Ok(out) = sent.try_recv() {
                        if !stream.send(sse::event(None, None, &out.message().to_vec())).await {
                            return;
                        }
                    }
                    if let Some(answer) = answer {
                        stream.send(sse::event(None, None, &answer.to_vec())).await;
                    }
                    return;
                }
                next = tokio::time::timeout(keep_alive, sent.recv()) => next,
            };
            match next {
                Ok(Some(out)) => {
                    if !stream.send(sse::event(None, None, &out.message().to_vec())).await {
                        return;
                    }
                }
                Ok(None) => return,
                Err(_) => {
                    if !stream.send(sse::keep_alive()).await {
                        return;
                    }
                }
            }
        }
    });
    sse_response(McpBody::stream(body_rx))
}

/// The response of a request answered before its response was committed: JSON, unless
/// the handler sent something first (then those events and the answer, as one SSE body).
/// Its headers go in `room` when given: the request's own header map
/// ([`status::reclaim_room`]); `leftovers` are freed with a JSON body, once it is written
/// ([`McpBody::full_leaving`]). `statuses`: how an error's HTTP status is chosen.
fn answered(
    id: mcpwire_protocol::RequestId,
    answer: Option<Message>,
    sent: Option<mpsc::Receiver<Outgoing>>,
    room: Option<HeaderMap>,
    leftovers: impl Send + 'static,
    statuses: Statuses,
) -> Response<McpBody> {
    let Some(answer) = answer else { return internal_error(id) };
    let mut body = Vec::new();
    if let Some(mut sent) = sent {
        while let Ok(out) = sent.try_recv() {
            body.extend_from_slice(&sse::event(None, None, &out.message().to_vec()));
        }
    }
    if body.is_empty() {
        return json_answer(answer, room, leftovers, statuses);
    }
    body.extend_from_slice(&sse::event(None, None, &answer.to_vec()));
    sse_response_in(room, McpBody::full(body))
}

/// The answer when a request ended without one.
fn internal_error(id: mcpwire_protocol::RequestId) -> Response<McpBody> {
    status::error(StatusCode::INTERNAL_SERVER_ERROR, Some(id), codes::INTERNAL_ERROR, "Internal error")
}

/// The SSE body of one 2026 response, as its forwarding task writes it.
struct Stream {
    body: mpsc::Sender<Bytes>,
    /// How long one event may wait for room before the reader counts as gone.
    stall: Duration,
}

impl Stream {
    /// Queues one event; `false` when the response is over: the client went away, or it
    /// has not made room for `stall` (its queue and the socket are full), in which case
    /// the stream is dropped rather than left to hold the handler and its memory.
    async fn send(&self, event: Bytes) -> bool {
        match tokio::time::timeout(self.stall, self.body.send(event)).await {
            Ok(sent) => sent.is_ok(),
            Err(_) => {
                tracing::warn!("a 2026 client is not reading its response stream; dropping it");
                false
            }
        }
    }
}

/// The answer of a request still running when the endpoint shut down: it is stopped as a
/// connection's shutdown stops a request, and answered as every transport answers a
/// request in flight at shutdown ([`OneShot::shut_down`]). An answered request like any
/// other, with the status of its era's errors (`200` in both: not the `503` of a request
/// that comes after the shutdown and is not served at all).
async fn stop(call: &mut OneShot) -> Option<Message> {
    call.shut_down();
    call.await
}

/// How the HTTP status of an answer sent as JSON is chosen.
#[derive(Clone, Copy)]
enum Statuses {
    /// A 2025 answer is `200` whatever it says, as a 2025 session's are: that era gives a
    /// request's JSON-RPC errors no status of their own, and its clients take any other
    /// status for a failed exchange (the TypeScript SDK's throws the body away, and a
    /// `404` reads as a session that expired).
    Always200,
    /// A 2026 error gets the status the spec gives it ([`status::for_error`]).
    Of2026 { envelope_refused: bool },
}

impl Statuses {
    /// The statuses of `call`'s era, read once it has been answered.
    fn of(stateless_era: bool, call: &OneShot) -> Statuses {
        match stateless_era {
            true => Statuses::Of2026 { envelope_refused: call.envelope_refused() },
            false => Statuses::Always200,
        }
    }
}

/// A JSON answer (its headers in `room`, emptied, when given; `leftovers` freed once it is
/// written), with the status `statuses` gives it.
fn json_answer(
    message: Message,
    room: Option<HeaderMap>,
    leftovers: impl Send + 'static,
    statuses: Statuses,
) -> Response<McpBody> {
    let code = match (&message, statuses) {
        (Message::Error(e), Statuses::Of2026 { envelope_refused }) => {
            status::for_error(e.error.code, envelope_refused)
        }
        _ => StatusCode::OK,
    };
    status::json_body_in(room, code, McpBody::full_leaving(message.to_vec(), (message, leftovers)))
}

/// An SSE response.
pub(crate) fn sse_response(body: McpBody) -> Response<McpBody> {
    sse_response_in(None, body)
}

/// [`sse_response`] with its headers in `room` when given ([`status::response_in`]).
pub(crate) fn sse_response_in(room: Option<HeaderMap>, body: McpBody) -> Response<McpBody> {
    let mut response = status::response_in(room, body);
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    response
}

/// Tells a proxy in front (nginx) not to buffer the stream. Made once: a name given as
/// text is parsed and checked on every insert.
const X_ACCEL_BUFFERING: http::HeaderName = http::HeaderName::from_static("x-accel-buffering");

/// How long a 2026 response may stay uncommitted, and the keep-alive interval after.
pub(crate) const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);
