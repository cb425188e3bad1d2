//! Reading a successful answer: a JSON body, or an SSE stream resumed after a drop (2025).

use std::time::Duration;

use http::header;
use http_body_util::BodyExt;
use mcpwire_protocol::{decode_frame, Frame, Message, RequestId};

use super::body::read_limited;
use super::{lock, Shared, SseParser, MAX_RESUMES};

impl Shared {
    /// Reads a successful answer: a JSON body or an SSE stream (resumed if it drops).
    pub(super) async fn read_answer(
        &self,
        response: hyper::Response<hyper::body::Incoming>,
        id: Option<&RequestId>,
        stateless: bool,
    ) {
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        if content_type.starts_with("text/event-stream") {
            let mut parser = SseParser::new(self.max_message_bytes);
            let mut answered = self.read_sse(response.into_body(), &mut parser, id).await;
            let mut resumes = 0;
            while !answered && !stateless && resumes < MAX_RESUMES {
                let Some(last) = parser.last_event_id().map(str::to_owned) else { break };
                resumes += 1;
                tokio::time::sleep(Duration::from_millis(parser.retry_ms().unwrap_or(1000).min(30_000)))
                    .await;
                let Some(body) = self.get_stream(Some(&last)).await else { continue };
                answered = self.read_sse(body, &mut parser, id).await;
            }
            if let (false, Some(id)) = (answered, id) {
                if lock(&self.pending).contains_key(&id.key()) {
                    self.fail(id, "the response stream ended before the answer arrived".into()).await;
                }
            }
            return;
        }
        let body = match read_limited(response.into_body(), self.max_message_bytes).await {
            Ok(b) => b,
            Err(reason) => {
                if let Some(id) = id {
                    self.fail(id, reason).await;
                }
                return;
            }
        };
        if body.is_empty() {
            if let Some(id) = id {
                self.fail(id, "the server accepted a request without answering it".into()).await;
            }
            return;
        }
        match decode_frame(&body) {
            Ok(Frame::Single(m)) => self.deliver(m).await,
            Ok(Frame::Batch(items)) => {
                for m in items.into_iter().flatten() {
                    self.deliver(m).await;
                }
            }
            Err(e) => {
                if let Some(id) = id {
                    self.fail(id, format!("the server's answer is not JSON-RPC: {e}")).await;
                }
            }
        }
    }

    /// Delivers the messages of an SSE body; returns whether the answer to `id` came.
    pub(super) async fn read_sse(
        &self,
        mut body: hyper::body::Incoming,
        parser: &mut SseParser,
        id: Option<&RequestId>,
    ) -> bool {
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
                let Ok(Frame::Single(message)) = decode_frame(event.data.as_bytes()) else { continue };
                let answers = match (&message, id) {
                    (Message::Response(r), Some(id)) => r.id.key() == id.key(),
                    (Message::Error(e), Some(id)) => e.id.as_ref().map(RequestId::key) == Some(id.key()),
                    _ => false,
                };
                self.deliver(message).await;
                if answers {
                    answered = true;
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
