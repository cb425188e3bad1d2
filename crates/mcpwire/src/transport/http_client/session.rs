//! The 2025 session: the GET streams (standalone and resumption), re-`initialize` after a
//! 404, and `DELETE` on close.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use http::{header, HeaderMap, HeaderValue, Method};
use http_body_util::BodyExt;
use mcpwire_protocol::lifecycle::InitializeResult;
use mcpwire_protocol::{decode_frame, methods, Frame, Message, ProtocolVersion, RequestId};

use super::body::read_limited;
use super::{lock, Shared, SseParser, MAX_RESUMES};
use crate::mcp_headers::{PROTOCOL_VERSION, SESSION_ID};

impl Shared {
    /// The current session's `Mcp-Session-Id` as a header value, if it has one (callers
    /// hold the session's lock, so it is read beside the same session's version).
    pub(super) fn session_id_header(&self) -> Option<HeaderValue> {
        self.renewed.with_session_id(|id| id.and_then(|s| HeaderValue::from_str(s).ok()))
    }

    /// A GET SSE stream of the session (resuming from `last_event_id` if given).
    pub(super) async fn get_stream(&self, last_event_id: Option<&str>) -> Option<hyper::body::Incoming> {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        {
            let session = lock(&self.session);
            if let Some(id) = self.session_id_header() {
                h.insert(SESSION_ID, id);
            }
            if let Some(v) = session.version.as_deref().and_then(|s| HeaderValue::from_str(s).ok()) {
                h.insert(PROTOCOL_VERSION, v);
            }
        }
        if let Some(last) = last_event_id.and_then(|s| HeaderValue::from_str(s).ok()) {
            h.insert("last-event-id", last);
        }
        let request = self.build(Method::GET, self.url.clone(), None, h)?;
        let response = self.send(request).await.ok()?;
        let is_sse = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        (response.status().is_success() && is_sse).then(|| response.into_body())
    }

    /// Opens the 2025 standalone GET stream once the session is initialized (returning
    /// once the server answered the GET); a server without one (405) is fine. A dropped
    /// stream is resumed as long as its session lasts and resuming brings new events
    /// (a few times in a row when it brings none).
    pub(super) async fn open_standalone(self: Arc<Self>) {
        let session_id = {
            let mut session = lock(&self.session);
            let session_id = self.renewed.session_id();
            if session.standalone_open || session_id.is_none() || session.legacy_post.is_some() {
                return;
            }
            session.standalone_open = true;
            session_id
        };
        // The server answers the GET at once (with a stream, or 405); one that does not
        // must not stall the writer.
        let Ok(Some(first)) = tokio::time::timeout(super::ACKNOWLEDGE_WAIT, self.get_stream(None)).await
        else {
            return;
        };
        let owner = self.clone();
        owner.spawn_until_closed(async move {
            let mut parser = SseParser::new(self.max_message_bytes);
            let mut body = Some(first);
            // Resumes in a row that brought no new event; one that did resets it (a
            // server may end each connection and keep the stream, SEP-1699).
            let mut fruitless = 0;
            while fruitless <= MAX_RESUMES {
                let before = parser.last_event_id().map(str::to_owned);
                let stream = match body.take() {
                    Some(b) => b,
                    None => {
                        if self.renewed.session_id() != session_id {
                            return; // re-initialized: the new session has its own stream
                        }
                        let last = parser.last_event_id().map(str::to_owned);
                        match self.get_stream(last.as_deref()).await {
                            Some(b) => b,
                            None => return,
                        }
                    }
                };
                self.read_sse(stream, &mut parser, None).await;
                if self.incoming.is_closed() {
                    return;
                }
                fruitless = match parser.last_event_id() == before.as_deref() {
                    true => fruitless + 1,
                    false => 0,
                };
                tokio::time::sleep(super::reconnect_delay(&parser, fruitless)).await;
            }
        });
    }

    /// Replaces the session `stale`, which the server answered 404 for: by a new
    /// `initialize` exchange, unless another request has replaced it meanwhile (requests
    /// in flight together all meet the 404; one session replaces it for all of them).
    /// Whether there is a new session to retry with.
    pub(super) async fn renew_session(&self, stale: Option<&str>) -> bool {
        let _one_at_a_time = self.renewing.lock().await;
        let current = self.renewed.session_id();
        if current.is_some() && current.as_deref() != stale {
            return true;
        }
        self.reinitialize().await
    }

    /// Replays the `initialize` exchange for a new session (the old one is gone). The
    /// stale session id stays until the new one is known: a request sent meanwhile meets
    /// the 404 too, and then takes the new session ([`Shared::renew_session`]).
    async fn reinitialize(&self) -> bool {
        let Some(Message::Request(mut init)) = lock(&self.session).initialize.clone() else { return false };
        init.id = RequestId::String(format!(
            "mcpwire-reinitialize-{}",
            self.internal_ids.fetch_add(1, Ordering::Relaxed)
        ));
        let message = Message::Request(init);
        let headers = self.message_headers(&message, None);
        let Some(request) = self.build(Method::POST, self.url.clone(), Some(message.to_vec()), headers)
        else {
            return false;
        };
        let Ok(response) = self.send(request).await else { return false };
        let sid = match response.headers().get(SESSION_ID) {
            Some(sid) if !super::exchange::acceptable_session_id(sid) => {
                tracing::warn!(
                    "the server forgot the session and named a new one that is not 1 to {} visible ASCII characters",
                    super::exchange::MAX_SESSION_ID_BYTES
                );
                return false;
            }
            sid => sid.map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
        };
        let ok = response.status().is_success();
        let sse = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        // The new session's version goes on every later request (it may not be the old
        // one's); an answer without one this client speaks (an error, say) is no session.
        let answer = match ok {
            true => initialize_answer(response.into_body(), sse, self.max_message_bytes).await,
            false => None,
        };
        let Some(answer) = answer else {
            tracing::warn!("the server forgot the session and refused a new one");
            return false;
        };
        // `notifications/initialized` goes out before any request takes the new session.
        let initialized =
            Message::Notification(mcpwire_protocol::Notification::new(methods::INITIALIZED, None));
        let mut headers = self.message_headers(&initialized, None);
        headers.remove(SESSION_ID);
        if let Some(id) = sid.as_deref().and_then(|s| HeaderValue::from_str(s).ok()) {
            headers.insert(SESSION_ID, id);
        }
        if let Some(request) = self.build(Method::POST, self.url.clone(), Some(initialized.to_vec()), headers)
        {
            let _ = self.send(request).await;
        }
        {
            // The new session's server-initiated messages need their own stream.
            let mut session = lock(&self.session);
            self.renewed.set_session_id(sid);
            // From now on the headers carry the new session's version, and the client
            // describes the server by the new session's answer, all of it at once.
            session.version = Some(answer.protocol_version.as_str().to_owned());
            self.renewed.set(answer);
            session.standalone_open = false;
        }
        tracing::info!("the server forgot the session; re-initialized");
        true
    }

    /// Ends the 2025 session with DELETE (best effort).
    pub(super) async fn delete_session(&self) {
        let (id, version) = {
            let session = lock(&self.session);
            (self.renewed.session_id(), session.version.clone())
        };
        let Some(id) = id.and_then(|s| HeaderValue::from_str(&s).ok()) else { return };
        let mut h = HeaderMap::new();
        h.insert(SESSION_ID, id);
        if let Some(v) = version.and_then(|s| HeaderValue::from_str(&s).ok()) {
            h.insert(PROTOCOL_VERSION, v);
        }
        if let Some(request) = self.build(Method::DELETE, self.url.clone(), None, h) {
            let _ = tokio::time::timeout(Duration::from_secs(2), self.send(request)).await;
        }
    }
}

/// An `initialize` answer (a JSON body, or the SSE events that carry it) when it is a
/// result that reads as one (as the handshake's must) and names a 2025 revision this
/// client speaks. An SSE stream is read only up to its first answer: a server may leave
/// the stream open after it, and the answer is all the exchange waits for.
async fn initialize_answer(body: hyper::body::Incoming, sse: bool, limit: usize) -> Option<InitializeResult> {
    if !sse {
        let body = read_limited(body, limit).await.ok()?;
        return match decode_frame(&body).ok()? {
            Frame::Single(message) => as_initialize_answer(message),
            Frame::Batch(_) => None,
        };
    }
    let mut parser = SseParser::new(limit);
    let mut body = body;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.ok()?.into_data() else { continue };
        for event in parser.push(&data).ok()? {
            match decode_frame(event.data.as_bytes()) {
                Ok(Frame::Single(message @ (Message::Response(_) | Message::Error(_)))) => {
                    return as_initialize_answer(message)
                }
                _ => continue,
            }
        }
    }
    None
}

/// The result of an `initialize` answer, if it is one this client can take.
fn as_initialize_answer(message: Message) -> Option<InitializeResult> {
    let Message::Response(response) = message else { return None };
    let answer: InitializeResult = serde_json::from_str(response.result.get()).ok()?;
    ProtocolVersion::STATEFUL.contains(&answer.protocol_version).then_some(answer)
}
