//! One HTTP exchange carried to the instance that owns its session and back: the
//! request in one frame, the response as a head, body pieces and an end. A client that
//! goes away cancels the owner's side, as a dropped connection would locally.
//!
//! Every wait of the requesting side is bounded. Pub/sub delivers at most once: a frame
//! is lost when the receiver's inbox is full (the owner's, for the request; this
//! instance's, for the answer), or while a Redis connection is down. So after a quiet
//! while the requesting side asks the owner whether it still serves the exchange
//! ([`Frame::Probe`]), and ends the client's response when the owner does not know it
//! (the request or the end of its answer was lost), does not answer within another
//! quiet while (it died, hangs, or its answer was lost), is not listening at all, or
//! when this instance's Redis connection was made anew or cannot be reached (frames may
//! have been lost in between). A live owner that is still serving says so, and the
//! exchange goes on however long its handler takes. The owner of a quiet streamed answer
//! asks the other way ([`Frame::Wanted`]), so that a requester that vanished, or dropped
//! the exchange without its cancellation arriving, does not hold the stream.

use std::time::Duration;

use bytes::Bytes;
use http::{Request as HttpRequest, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use mcpwire_protocol::{
    codes, decode_frame, ErrorObject, ErrorResponse, Frame as JsonRpcFrame, Message, RequestId,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::wire::{self, Frame};
use super::{lock, Cluster};
use crate::http::{status, McpBody};
use crate::transport::http_client::SseParser;

/// Why a tunnelled request did not reach its session's owner (it was not served, so
/// it may be sent again).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NotDelivered {
    /// The owner is shutting down: the session is to be taken over.
    Leaving,
    /// No instance listens on the owner's inbox (it stopped, or its Redis subscription
    /// is down for a moment).
    NotListening,
}

/// A request another instance tunnelled here.
pub(crate) struct Incoming {
    pub(crate) tunnel: u64,
    pub(crate) from: String,
    pub(crate) method: String,
    pub(crate) uri: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) principal: Option<String>,
    pub(crate) body: String,
}

/// The largest complete answer sent as one frame (larger ones go in pieces).
const WHOLE_LIMIT: usize = 1024 * 1024;

/// How many response pieces may wait between the tunnel and the client's connection.
const BODY_QUEUE: usize = 64;
/// How many frames of one exchange may wait for the tunnel's pump.
pub(super) const FRAME_QUEUE: usize = 256;

/// Forgets a tunnel when its exchange ends, however it ends; unless the owner ended
/// it, tells the owner to stop (the client went away, or the tunnel broke), as a
/// dropped connection would stop the request locally.
struct Registered {
    cluster: Cluster,
    tunnel: u64,
    owner: String,
    ended: bool,
}

impl Drop for Registered {
    fn drop(&mut self) {
        lock(&self.cluster.shared.tunnels).remove(&self.tunnel);
        if !self.ended {
            let cluster = self.cluster.clone();
            let (owner, cancel) =
                (self.owner.clone(), Frame::Cancel { tunnel: self.tunnel, from: cluster.shared.id.clone() });
            tokio::spawn(async move {
                let _ = cluster.send(&owner, &cancel).await;
            });
        }
    }
}

/// The ids of the requests in a tunnelled POST body (none for a GET or a notification).
fn request_ids(body: &[u8]) -> Vec<RequestId> {
    let requests = |m: Message| match m {
        Message::Request(r) => Some(r.id),
        _ => None,
    };
    match decode_frame(body) {
        Ok(JsonRpcFrame::Single(m)) => requests(m).into_iter().collect(),
        Ok(JsonRpcFrame::Batch(items)) => {
            items.into_iter().filter_map(|m| m.ok().and_then(requests)).collect()
        }
        Err(_) => Vec::new(),
    }
}

/// The requests of a tunnelled POST whose SSE response has not carried their answer yet,
/// found by reading the events passed to the client.
struct Waiting {
    ids: Vec<RequestId>,
    parser: Option<SseParser>,
}

impl Waiting {
    fn new(ids: Vec<RequestId>) -> Self {
        let parser = (!ids.is_empty()).then(|| SseParser::new(MAX_EVENT_BYTES));
        Waiting { ids, parser }
    }

    /// Reads a piece of the response body on its way to the client.
    fn saw(&mut self, bytes: &[u8]) {
        let Some(parser) = self.parser.as_mut() else { return };
        let events = match parser.push(bytes) {
            Ok(events) => events,
            // An event too large to follow: stop following (no error can be made up
            // for a stream whose answers are unknown).
            Err(_) => {
                self.ids.clear();
                self.parser = None;
                return;
            }
        };
        for event in events {
            let answered = super::events::answered_request(event.data.as_bytes());
            if let Some(id) = answered {
                self.ids.retain(|waiting| waiting.key() != id.key());
            }
        }
    }

    /// An SSE event with a JSON-RPC error for each request still waiting.
    fn errors(&self) -> Vec<Bytes> {
        self.ids
            .iter()
            .map(|id| {
                let error = ErrorObject::new(
                    codes::INTERNAL_ERROR,
                    "The connection to the server instance running this request was lost; its outcome is unknown",
                );
                let message = Message::Error(ErrorResponse::new(Some(id.clone()), error));
                crate::http::sse::event(None, None, &message.to_vec())
            })
            .collect()
    }
}

/// The largest SSE event a tunnel follows to see which requests it answers.
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// What a waiting exchange checks: its number, the instance that serves it, and the id
/// of the Redis connection its frames arrive on.
struct Watch<'a> {
    tunnel: u64,
    owner: &'a str,
    connection: i64,
}

fn unavailable(message: &str) -> Response<McpBody> {
    status::error(StatusCode::SERVICE_UNAVAILABLE, None, codes::INTERNAL_ERROR, message)
}

impl Cluster {
    /// How long a tunnel waits for a frame before it asks the owner about its exchange,
    /// and then for the owner's answer.
    fn liveness_check(&self) -> Duration {
        self.shared.options.heartbeat * 2
    }

    /// Carries a request for a session of `owner` there and streams the answer back.
    /// `Err` when the request reached no one able to serve it, so it was not served.
    pub(crate) async fn forward(
        &self,
        owner: &str,
        parts: &http::request::Parts,
        body: Bytes,
    ) -> Result<Response<McpBody>, NotDelivered> {
        let tunnel = self.next_tunnel();
        let (frames_tx, mut frames) = mpsc::channel(FRAME_QUEUE);
        lock(&self.shared.tunnels).insert(tunnel, frames_tx);
        let mut registered =
            Registered { cluster: self.clone(), tunnel, owner: owner.to_owned(), ended: false };
        let request = Frame::Request {
            tunnel,
            from: self.shared.id.clone(),
            method: parts.method.as_str().to_owned(),
            uri: parts.uri.to_string(),
            headers: wire::text_headers(&parts.headers),
            principal: parts.extensions.get::<crate::extensions::Principal>().map(|p| p.0.clone()),
            body: wire::encode(&body),
        };
        let connection = match self.send_watched(owner, &request).await {
            Ok(Some(connection)) => connection,
            Ok(None) => {
                registered.ended = true;
                tracing::debug!("the instance that owns a session is not listening to redis");
                return Err(NotDelivered::NotListening);
            }
            Err(e) => {
                registered.ended = true;
                tracing::warn!("could not reach the instance that owns a session: {e}");
                return Ok(unavailable("The session store is unavailable; try again later"));
            }
        };
        let watch = Watch { tunnel, owner, connection };
        let (status_code, headers) = loop {
            match self.next_frame(&watch, &mut frames).await {
                Some(Frame::Head { status, headers, .. }) => break (status, headers),
                Some(Frame::Whole { status, headers, data, .. }) => {
                    registered.ended = true;
                    let mut response = Response::new(McpBody::full(wire::decode(&data).unwrap_or_default()));
                    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
                    *response.headers_mut() = wire::header_map(&headers);
                    return Ok(response);
                }
                Some(Frame::Gone { .. }) => {
                    registered.ended = true;
                    return Err(NotDelivered::Leaving);
                }
                Some(_) => continue,
                None => {
                    return Ok(unavailable(
                        "The instance serving this session stopped or did not take the request; try again",
                    ))
                }
            }
        };
        let (body_tx, body_rx) = mpsc::channel(BODY_QUEUE);
        let mut response = Response::new(McpBody::stream(body_rx));
        *response.status_mut() = StatusCode::from_u16(status_code).unwrap_or(StatusCode::BAD_GATEWAY);
        *response.headers_mut() = wire::header_map(&headers);
        let sse = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let mut waiting = Waiting::new(if sse { request_ids(&body) } else { Vec::new() });
        let cluster = self.clone();
        let owner = owner.to_owned();
        tokio::spawn(async move {
            // The whole guard moves here (not just the field), to drop when the pump ends:
            // unless the owner ended the answer, the guard tells the owner to stop.
            let mut registered = registered;
            let watch = Watch { tunnel, owner: &owner, connection };
            registered.ended = cluster.pump(&watch, &mut frames, &body_tx, &mut waiting).await;
            if !registered.ended {
                // The client's stream would end in silence: its requests still waiting
                // get an error instead (their outcome on the owner is unknown).
                for error in waiting.errors() {
                    if body_tx.try_send(error).is_err() {
                        break;
                    }
                }
            }
            drop(registered);
        });
        Ok(response)
    }

    /// Moves body pieces to the client until the owner ends the body (`true`), or the
    /// client goes away, the owner dies or the tunnel breaks (`false`).
    async fn pump(
        &self,
        watch: &Watch<'_>,
        frames: &mut mpsc::Receiver<Frame>,
        body: &mpsc::Sender<Bytes>,
        waiting: &mut Waiting,
    ) -> bool {
        loop {
            let frame = tokio::select! {
                frame = self.next_frame(watch, frames) => frame,
                () = body.closed() => return false,
            };
            match frame {
                Some(Frame::Data { data, .. }) => {
                    let Some(bytes) = wire::decode(&data) else { return false };
                    waiting.saw(&bytes);
                    if body.send(bytes).await.is_err() {
                        return false;
                    }
                }
                Some(Frame::End { .. }) => return true,
                Some(_) => continue,
                None => return false,
            }
        }
    }

    /// Publishes a request frame to `owner` and returns the id of the Redis connection
    /// that will carry the answer (one round trip for both); `None` when no one received
    /// the frame (the owner's subscription is down, for a moment after Redis restarted).
    async fn send_watched(&self, owner: &str, frame: &Frame) -> Result<Option<i64>, redis::RedisError> {
        let (receivers, connection): (u64, i64) = redis::pipe()
            .cmd("PUBLISH")
            .arg(self.inbox(owner))
            .arg(frame.to_bytes())
            .cmd("CLIENT")
            .arg("ID")
            .query_async(&mut self.redis())
            .await?;
        Ok((receivers > 0).then_some(connection))
    }

    /// Sends one frame of a tunnelled answer to `instance`; an error also when no one
    /// received it (the requester's subscription is down, so the rest would be lost too).
    async fn send_answer(&self, instance: &str, frame: &Frame) -> Result<(), ()> {
        let receivers: Result<u64, _> = redis::cmd("PUBLISH")
            .arg(self.inbox(instance))
            .arg(frame.to_bytes())
            .query_async(&mut self.redis())
            .await;
        match receivers {
            Ok(n) if n > 0 => Ok(()),
            _ => Err(()),
        }
    }

    /// The exchange's next frame; `None` when the tunnel broke, or when after a quiet
    /// while the owner, asked, does not know the exchange or does not answer within
    /// another, is not listening, Redis could not be reached, or this instance's Redis
    /// connection is not the one the exchange began on (frames may have been lost in
    /// between). Only a quiet exchange costs the question: one that gets frames, none.
    async fn next_frame(&self, watch: &Watch<'_>, frames: &mut mpsc::Receiver<Frame>) -> Option<Frame> {
        let mut asked = false;
        loop {
            match tokio::time::timeout(self.liveness_check(), frames.recv()).await {
                Ok(Some(Frame::Serving { .. })) => asked = false,
                Ok(Some(Frame::Unknown { .. })) => {
                    tracing::warn!("the instance owning a session does not know a tunnelled exchange (a message was lost); it is ended");
                    return None;
                }
                Ok(frame) => return frame,
                Err(_) if asked => {
                    tracing::warn!("the instance owning a session did not answer about a tunnelled exchange; it is ended");
                    return None;
                }
                Err(_) => {
                    let probe = Frame::Probe { tunnel: watch.tunnel, from: self.shared.id.clone() };
                    let checked: Result<(u64, i64), _> = redis::pipe()
                        .cmd("PUBLISH")
                        .arg(self.inbox(watch.owner))
                        .arg(probe.to_bytes())
                        .cmd("CLIENT")
                        .arg("ID")
                        .query_async(&mut self.redis())
                        .await;
                    match checked {
                        Ok((0, _)) => return None,
                        Ok((_, connection)) if connection == watch.connection => asked = true,
                        Ok(_) => {
                            tracing::warn!("the redis connection was made anew during a tunnelled exchange; it is ended (its frames may be lost)");
                            return None;
                        }
                        Err(e) => {
                            tracing::warn!("redis is away during a tunnelled exchange; it is ended: {e}");
                            return None;
                        }
                    }
                }
            }
        }
    }

    /// Serves a request another instance tunnelled here, and streams the answer back;
    /// `serving` marks it served until then.
    pub(super) async fn serve_tunnel(self, incoming: Incoming, serving: Serving) {
        let Incoming { tunnel, from, method, uri, headers, principal, body } = incoming;
        let cancel = serving.cancel.clone();
        if cancel.is_cancelled() {
            return;
        }
        let head = |status: u16, headers| Frame::Head { tunnel, status, headers };
        if self.shared.leaving.is_cancelled() {
            // Shutting down: the requester takes the session over.
            let _ = self.send_answer(&from, &Frame::Gone { tunnel }).await;
            return;
        }
        let Some(endpoint) = self.endpoint() else {
            let _ = self.send_answer(&from, &head(503, Vec::new())).await;
            let _ = self.send_answer(&from, &Frame::End { tunnel }).await;
            return;
        };
        let mut request = HttpRequest::new(Full::new(wire::decode(&body).unwrap_or_default()));
        *request.method_mut() = http::Method::from_bytes(method.as_bytes()).unwrap_or(http::Method::POST);
        *request.uri_mut() = uri.parse().unwrap_or_default();
        *request.headers_mut() = wire::header_map(&headers);
        if let Some(principal) = principal {
            request.extensions_mut().insert(crate::extensions::Principal(principal));
        }
        let response = tokio::select! {
            response = endpoint.handle_here(request) => response,
            () = cancel.cancelled() => return,
        };
        let (parts, mut body) = response.into_parts();
        // An answer complete already (most are) goes in one frame.
        if http_body::Body::size_hint(&body).exact().is_some_and(|len| len <= WHOLE_LIMIT as u64) {
            let mut data = Vec::new();
            while let Some(Ok(frame)) = body.frame().await {
                if let Ok(chunk) = frame.into_data() {
                    data.extend_from_slice(&chunk);
                }
            }
            let whole = Frame::Whole {
                tunnel,
                status: parts.status.as_u16(),
                headers: wire::text_headers(&parts.headers),
                data: wire::encode(&data),
            };
            let _ = self.send_answer(&from, &whole).await;
            return;
        }
        let mut sent =
            self.send_answer(&from, &head(parts.status.as_u16(), wire::text_headers(&parts.headers))).await;
        // A quiet stream asks now and then whether its requester still wants it: one that
        // vanished (no one listens: `send_answer` fails) or dropped the exchange without
        // its cancellation arriving would otherwise hold it, and what it holds (a
        // session's one GET stream), until the next event.
        let mut quiet = tokio::time::interval(self.liveness_check());
        quiet.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        quiet.reset();
        let mut active = false;
        while sent.is_ok() {
            let frame = tokio::select! {
                frame = body.frame() => frame,
                () = cancel.cancelled() => break,
                _ = quiet.tick() => {
                    if !std::mem::take(&mut active) {
                        let wanted = Frame::Wanted { tunnel, from: self.shared.id.clone() };
                        sent = self.send_answer(&from, &wanted).await;
                    }
                    continue;
                }
            };
            match frame {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        active = true;
                        sent =
                            self.send_answer(&from, &Frame::Data { tunnel, data: wire::encode(&data) }).await;
                    }
                }
                Some(Err(_)) | None => {
                    let _ = self.send_answer(&from, &Frame::End { tunnel }).await;
                    break;
                }
            }
        }
    }
}

/// An exchange served here, by (requester, number): known to probes and cancellations
/// from its arrival, forgotten when it ends, however it ends.
pub(super) struct Serving {
    cluster: Cluster,
    key: (String, u64),
    cancel: CancellationToken,
}

impl Serving {
    /// Marks the exchange `key` served here.
    pub(super) fn start(cluster: &Cluster, key: (String, u64)) -> Serving {
        let cancel = CancellationToken::new();
        lock(&cluster.shared.serving).insert(key.clone(), cancel.clone());
        Serving { cluster: cluster.clone(), key, cancel }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        lock(&self.cluster.shared.serving).remove(&self.key);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_broken_stream_answers_the_requests_it_had_not_answered() {
        let body = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
        let mut waiting = Waiting::new(request_ids(body));
        assert_eq!(waiting.ids.len(), 2);
        // The answer to 1 arrives split over two pieces, then a request of the server's.
        waiting.saw(b"id: s#1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,");
        waiting
            .saw(b"\"result\":{}}\n\nid: s#2\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n\n");
        let errors: Vec<Message> = waiting
            .errors()
            .iter()
            .map(|event| {
                let text = std::str::from_utf8(event).unwrap();
                let data = text.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
                serde_json::from_str(data).unwrap()
            })
            .collect();
        let [Message::Error(error)] = errors.as_slice() else { panic!("{errors:?}") };
        assert_eq!(error.id, Some(RequestId::String("b".into())));
        assert_eq!(error.error.code, codes::INTERNAL_ERROR);
        assert!(request_ids(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_empty());
        assert!(Waiting::new(Vec::new()).errors().is_empty());
    }
}
