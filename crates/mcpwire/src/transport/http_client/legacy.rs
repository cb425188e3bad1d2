//! The legacy HTTP+SSE transport (2024-11-05), the fallback for a server that refuses a
//! Streamable HTTP `initialize`.

use std::sync::Arc;
use std::time::Duration;

use http::{header, HeaderMap, HeaderValue, Method, Uri};
use http_body_util::BodyExt;

use super::{lock, Shared, SseParser};

impl Shared {
    /// Switches to the legacy HTTP+SSE transport: GET the endpoint, wait for the
    /// `endpoint` event, then keep reading the stream for every answer.
    pub(super) async fn start_legacy(self: &Arc<Self>) -> bool {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        let Some(request) = self.build(Method::GET, self.url.clone(), None, h) else { return false };
        let Ok(response) = self.send(request).await else { return false };
        if !response.status().is_success() {
            return false;
        }
        let mut body = response.into_body();
        let mut parser = SseParser::new(self.max_message_bytes);
        let endpoint = loop {
            let Some(Ok(frame)) =
                tokio::time::timeout(Duration::from_secs(10), body.frame()).await.ok().flatten()
            else {
                return false;
            };
            let Ok(data) = frame.into_data() else { continue };
            let Ok(events) = parser.push(&data) else { return false };
            if let Some(e) = events.into_iter().find(|e| e.event.as_deref() == Some("endpoint")) {
                break e.data;
            }
        };
        let Some(post) = resolve(&self.url, endpoint.trim()) else { return false };
        lock(&self.session).legacy_post = Some(post);
        tracing::info!("the server speaks the legacy HTTP+SSE transport (2024-11-05)");
        let shared = self.clone();
        self.spawn_until_closed(async move {
            shared.read_sse(body, &mut parser, None).await;
        });
        true
    }
}

/// Resolves the legacy `endpoint` (absolute, or a path on the same origin).
fn resolve(base: &Uri, endpoint: &str) -> Option<Uri> {
    if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        return endpoint.parse().ok();
    }
    let mut parts = base.clone().into_parts();
    let path = if endpoint.starts_with('/') { endpoint.to_owned() } else { format!("/{endpoint}") };
    parts.path_and_query = Some(path.parse().ok()?);
    Uri::from_parts(parts).ok()
}
