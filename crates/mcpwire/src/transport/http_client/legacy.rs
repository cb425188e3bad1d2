//! The legacy HTTP+SSE transport (2024-11-05), the fallback for a server that refuses a
//! Streamable HTTP `initialize`.

use std::sync::Arc;
use std::time::Duration;

use http::{header, HeaderMap, HeaderValue, Method, Uri};
use http_body_util::BodyExt;

use super::{lock, Shared, SseParser};
use crate::transport::TransportEvent;

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
        let Some(post) = resolve(&self.url, endpoint.trim()) else {
            tracing::warn!(
                endpoint = endpoint.trim(),
                "refused the legacy HTTP+SSE endpoint: not a path or URL on {}'s origin",
                self.url
            );
            return false;
        };
        lock(&self.session).legacy_post = Some(post);
        self.renewed.set_legacy_http_sse();
        tracing::info!("the server speaks the legacy HTTP+SSE transport (2024-11-05)");
        let shared = self.clone();
        self.spawn_until_closed(async move {
            shared.read_sse(body, &mut parser, None).await;
            // This transport has no resumption and no other way back: with its one stream
            // gone nothing posted can be answered, so the connection is over (calls fail
            // at once rather than at their timeouts).
            let reason = "the server ended its HTTP+SSE stream (2024-11-05), which carried every answer";
            let _ = shared.incoming.send(TransportEvent::closed(Some(reason.to_owned()))).await;
        });
        true
    }
}

/// Resolves the legacy `endpoint` (a path, or an absolute URL on `base`'s origin). An
/// endpoint elsewhere is refused: every message posted to it carries the client's
/// credentials and headers, which a server must not be able to send to another host,
/// port or scheme.
fn resolve(base: &Uri, endpoint: &str) -> Option<Uri> {
    if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        let uri: Uri = endpoint.parse().ok()?;
        return (origin(&uri)? == origin(base)?).then_some(uri);
    }
    let mut parts = base.clone().into_parts();
    let path = if endpoint.starts_with('/') { endpoint.to_owned() } else { format!("/{endpoint}") };
    parts.path_and_query = Some(path.parse().ok()?);
    Uri::from_parts(parts).ok()
}

/// A URL's origin: its scheme, host (lowercase) and port (the scheme's default if none).
fn origin(uri: &Uri) -> Option<(String, String, u16)> {
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let default = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    Some((scheme, uri.host()?.to_ascii_lowercase(), uri.port_u16().unwrap_or(default)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_stays_on_the_servers_origin() {
        let base: Uri = "http://Example.com/mcp".parse().unwrap();
        let ok = |e: &str| resolve(&base, e).map(|u| u.to_string());
        assert_eq!(ok("/messages?session=1").as_deref(), Some("http://Example.com/messages?session=1"));
        assert_eq!(ok("messages").as_deref(), Some("http://Example.com/messages"));
        assert_eq!(ok("http://example.com:80/m").as_deref(), Some("http://example.com:80/m"));
        // A protocol-relative path stays a path on the server's host.
        assert_eq!(ok("//evil.example/m").as_deref(), Some("http://Example.com//evil.example/m"));
        for elsewhere in [
            "http://evil.example/m",
            "http://example.com:8080/m",
            "https://example.com/m",
            "http://127.0.0.2/m",
        ] {
            assert_eq!(ok(elsewhere), None, "{elsewhere}");
        }
    }
}
