//! One HTTP exchange carried to the instance that owns its session and back: the
//! request in one frame, the response as a head, body pieces and an end. The requesting
//! side checks the owner's heartbeat while it waits, so an owner that dies mid-exchange
//! ends the client's response instead of leaving it hanging; a client that goes away
//! cancels the owner's side, as a dropped connection would locally.

use std::time::Duration;

use bytes::Bytes;
use http::{Request as HttpRequest, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use mcpwire_protocol::codes;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::wire::{self, Frame};
use super::{lock, Cluster};
use crate::http::{status, McpBody};

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

/// Liveness checks in a row that Redis may fail before a tunnel gives up.
const MAX_UNANSWERED_CHECKS: u32 = 3;

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

fn unavailable(message: &str) -> Response<McpBody> {
    status::error(StatusCode::SERVICE_UNAVAILABLE, None, codes::INTERNAL_ERROR, message)
}

impl Cluster {
    /// How long a tunnel waits for a frame before it checks the owner's heartbeat.
    fn liveness_check(&self) -> Duration {
        self.shared.options.heartbeat * 2
    }

    /// Carries a request for a session of `owner` there and streams the answer back.
    pub(crate) async fn forward(
        &self,
        owner: &str,
        parts: &http::request::Parts,
        body: Bytes,
    ) -> Response<McpBody> {
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
        if let Err(e) = self.send(owner, &request).await {
            registered.ended = true;
            tracing::warn!("could not reach the instance that owns a session: {e}");
            return unavailable("The session store is unavailable; try again later");
        }
        let (status_code, headers) = loop {
            match self.next_frame(owner, &mut frames).await {
                Some(Frame::Head { status, headers, .. }) => break (status, headers),
                Some(_) => continue,
                None => return unavailable("The instance serving this session stopped; try again"),
            }
        };
        let (body_tx, body_rx) = mpsc::channel(BODY_QUEUE);
        let mut response = Response::new(McpBody::stream(body_rx));
        *response.status_mut() = StatusCode::from_u16(status_code).unwrap_or(StatusCode::BAD_GATEWAY);
        *response.headers_mut() = wire::header_map(&headers);
        let cluster = self.clone();
        let owner = owner.to_owned();
        tokio::spawn(async move {
            // The whole guard moves here (not just the field), to drop when the pump ends.
            let mut registered = registered;
            registered.ended = cluster.pump(&owner, &mut frames, body_tx).await;
            drop(registered);
        });
        response
    }

    /// Moves body pieces to the client until the owner ends the body (`true`), or the
    /// client goes away, the owner dies or the tunnel breaks (`false`).
    async fn pump(&self, owner: &str, frames: &mut mpsc::Receiver<Frame>, body: mpsc::Sender<Bytes>) -> bool {
        loop {
            let frame = tokio::select! {
                frame = self.next_frame(owner, frames) => frame,
                () = body.closed() => return false,
            };
            match frame {
                Some(Frame::Data { data, .. }) => {
                    let Some(bytes) = wire::decode(&data) else { return false };
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

    /// The exchange's next frame; `None` when the tunnel broke or `owner` stopped
    /// beating while this waited.
    async fn next_frame(&self, owner: &str, frames: &mut mpsc::Receiver<Frame>) -> Option<Frame> {
        let mut unanswered = 0;
        loop {
            match tokio::time::timeout(self.liveness_check(), frames.recv()).await {
                Ok(frame) => return frame,
                Err(_) => match self.is_alive(owner).await {
                    Ok(alive) => {
                        if !alive {
                            return None;
                        }
                        unanswered = 0;
                    }
                    // Redis away: frames cannot come either. A short outage is waited
                    // out; a longer one ends the exchange (the client may resume).
                    Err(_) => {
                        unanswered += 1;
                        if unanswered >= MAX_UNANSWERED_CHECKS {
                            return None;
                        }
                    }
                },
            }
        }
    }

    /// Serves a request another instance tunnelled here, and streams the answer back.
    pub(super) async fn serve_tunnel(self, incoming: Incoming) {
        let Incoming { tunnel, from, method, uri, headers, principal, body } = incoming;
        let cancel = CancellationToken::new();
        lock(&self.shared.serving).insert((from.clone(), tunnel), cancel.clone());
        let _serving = Serving { cluster: self.clone(), key: (from.clone(), tunnel) };
        let head = |status: u16, headers| Frame::Head { tunnel, status, headers };
        let Some(endpoint) = self.endpoint() else {
            let _ = self.send(&from, &head(503, Vec::new())).await;
            let _ = self.send(&from, &Frame::End { tunnel }).await;
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
        let mut sent =
            self.send(&from, &head(parts.status.as_u16(), wire::text_headers(&parts.headers))).await;
        while sent.is_ok() {
            let frame = tokio::select! {
                frame = body.frame() => frame,
                () = cancel.cancelled() => break,
            };
            match frame {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        sent = self.send(&from, &Frame::Data { tunnel, data: wire::encode(&data) }).await;
                    }
                }
                Some(Err(_)) | None => {
                    let _ = self.send(&from, &Frame::End { tunnel }).await;
                    break;
                }
            }
        }
    }
}

/// Forgets an exchange served here when it ends, however it ends.
struct Serving {
    cluster: Cluster,
    key: (String, u64),
}

impl Drop for Serving {
    fn drop(&mut self) {
        lock(&self.cluster.shared.serving).remove(&self.key);
    }
}
