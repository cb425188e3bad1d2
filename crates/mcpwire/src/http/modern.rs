//! The 2026-07-28 path: one POST carries one request and gets one answer — a JSON body,
//! or an SSE stream when the handler sends notifications first (progress, logs, a
//! `subscriptions/listen` stream). Closing the response cancels the request, and nothing
//! more is written for it. The headers must agree with the body (`-32020` otherwise).

use std::time::Duration;

use bytes::Bytes;
use http::{header, HeaderValue, Response, StatusCode};
use mcpwire_protocol::subscriptions::SubscriptionsListenResult;
use mcpwire_protocol::{codes, methods, Message, Request};
use serde_json::value::RawValue;
use tokio::sync::{mpsc, OwnedSemaphorePermit};
use tokio_util::sync::CancellationToken;

use super::body::McpBody;
use super::{sse, status, HttpSettings};
use crate::extensions::Extensions;
use crate::jsonrpc::{Dispatcher, Handler, RequestContext};
use crate::server::Server;
use crate::transport::{Connection, InboundMeta, Outgoing, TransportEvent};

/// The dispatcher handler of one 2026 request.
struct Modern(Server);

impl Handler for Modern {
    async fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<mcpwire_protocol::RawJson, crate::McpError> {
        self.0.serve_stateless(request, ctx).await
    }
}

/// Serves one 2026 request, holding `slot` until its answer is written or its stream
/// ends. When `closing` fires (the endpoint shuts down) the request ends at once: a
/// `subscriptions/listen` stream with its final result, anything else by closing its
/// stream (which cancels its handler). A stream that cannot take an event for one
/// keep-alive interval (a client that does not read) is dropped the same way.
pub(crate) async fn serve(
    server: &Server,
    settings: &HttpSettings,
    request: Request,
    extensions: Extensions,
    accepts_sse: bool,
    closing: CancellationToken,
    slot: OwnedSemaphorePermit,
) -> Response<McpBody> {
    let id = request.id.clone();
    let listen = request.method == methods::SUBSCRIPTIONS_LISTEN;
    if listen && !accepts_sse {
        return status::error(
            StatusCode::NOT_ACCEPTABLE,
            Some(id),
            codes::INVALID_REQUEST,
            "subscriptions/listen needs Accept: text/event-stream",
        );
    }
    let (in_tx, in_rx) = mpsc::channel(1);
    let (out_tx, mut out_rx) = mpsc::channel::<Outgoing>(settings.stream_queue);
    let dispatcher = Dispatcher::with_config(
        Connection { incoming: in_rx, outgoing: out_tx },
        server.inner.config.dispatcher.clone(),
    );
    let mut running =
        Running { peer: dispatcher.peer(), run: Box::pin(dispatcher.run(Modern(server.clone()))) };
    let meta = InboundMeta { extensions, no_back_channel: true, ..Default::default() };
    if in_tx.send(TransportEvent::message(Message::Request(request), meta)).await.is_err() {
        return status::error(
            StatusCode::INTERNAL_SERVER_ERROR,
            Some(id),
            codes::INTERNAL_ERROR,
            "Internal error",
        );
    }

    // Answer with JSON if the answer comes before anything else; otherwise commit to SSE.
    // The dispatcher is polled here only until it has started the handler (its own task);
    // after that it just waits for more input, which never comes.
    let first = tokio::select! {
        biased;
        first = tokio::time::timeout(settings.keep_alive, out_rx.recv()) => first,
        _ = &mut running.run => Ok(None),
        _ = closing.cancelled() => return shutting_down(id),
    };
    let first = match first {
        Ok(Some(out)) if is_answer(out.message()) => return json_answer(out.into_parts().0),
        Ok(Some(out)) => Some(out),
        Ok(None) => {
            return status::error(
                StatusCode::INTERNAL_SERVER_ERROR,
                Some(id),
                codes::INTERNAL_ERROR,
                "Internal error",
            )
        }
        Err(_) => None,
    };
    if !accepts_sse {
        // The client takes JSON only: wait for the answer and drop the notifications.
        while let Some(out) = out_rx.recv().await {
            if is_answer(out.message()) {
                return json_answer(out.into_parts().0);
            }
        }
        return status::error(
            StatusCode::INTERNAL_SERVER_ERROR,
            Some(id),
            codes::INTERNAL_ERROR,
            "Internal error",
        );
    }
    let (body_tx, body_rx) = mpsc::channel::<Bytes>(settings.stream_queue);
    let keep_alive = settings.keep_alive;
    tokio::spawn(async move {
        // The request lives as long as this task: when it ends (the client went away, the
        // answer was sent) the dispatcher is closed, which cancels a handler still running,
        // and the slot is given back.
        let _request_alive = (in_tx, slot, running);
        let stream = Stream { body: body_tx, stall: keep_alive };
        let opening = match first {
            Some(out) => sse::event(None, None, &out.message().to_vec()),
            None => sse::keep_alive(),
        };
        if !stream.send(opening).await {
            return;
        }
        loop {
            let next = tokio::select! {
                _ = stream.body.closed() => return,
                _ = closing.cancelled() => {
                    if listen {
                        let end = Message::Response(mcpwire_protocol::Response::new(
                            id.clone(),
                            serde_json::value::to_raw_value(&SubscriptionsListenResult::closed(&id))
                                .unwrap_or_else(|_| RawValue::NULL.to_owned()),
                        ));
                        stream.send(sse::event(None, None, &end.to_vec())).await;
                    }
                    return;
                }
                next = tokio::time::timeout(keep_alive, out_rx.recv()) => next,
            };
            match next {
                Ok(Some(out)) => {
                    let answer = is_answer(out.message());
                    if !stream.send(sse::event(None, None, &out.message().to_vec())).await || answer {
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

/// The dispatcher of one 2026 request, run inside the request's own future instead of
/// on a task of its own (one task and two wake-ups fewer per request). Dropping it
/// closes the connection: a handler still running is cancelled, as closing the response
/// promises.
struct Running {
    peer: crate::jsonrpc::Peer,
    run: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.peer.close();
    }
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

/// The answer to a request that was still uncommitted when the endpoint shut down: what
/// every transport answers a request in flight at shutdown (`-32000`, as the 2025 era's
/// session dispatcher does).
fn shutting_down(id: mcpwire_protocol::RequestId) -> Response<McpBody> {
    status::error(StatusCode::SERVICE_UNAVAILABLE, Some(id), codes::CONNECTION_CLOSED, "Connection closed")
}

fn is_answer(message: &Message) -> bool {
    matches!(message, Message::Response(_) | Message::Error(_))
}

/// A JSON answer, with the HTTP status the spec maps its error code to.
fn json_answer(message: Message) -> Response<McpBody> {
    let code = match &message {
        Message::Error(e) => status::for_code(e.error.code),
        _ => StatusCode::OK,
    };
    status::json(code, message.to_vec())
}

/// An SSE response.
pub(crate) fn sse_response(body: McpBody) -> Response<McpBody> {
    let mut response = Response::new(body);
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// How long a 2026 response may stay uncommitted, and the keep-alive interval after.
pub(crate) const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);
