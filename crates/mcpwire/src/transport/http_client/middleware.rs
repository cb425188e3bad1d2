//! The middleware hook: user code that sees, and may change, every HTTP request the
//! transport sends (method, URI, headers), and sees every response's status and headers:
//! for logging, custom authentication, header injection. Every request goes through
//! [`Shared::send`], so none bypasses it (POSTs, GET streams, resumption, `DELETE`); it
//! also follows a server's same-origin `307`/`308` redirects.

use std::sync::Arc;

use bytes::Bytes;
use futures_util::future::BoxFuture;
use http::{Request as HttpRequest, Response};
use http_body_util::Full;
use hyper::body::Incoming;

use super::Shared;
use crate::error::error_chain;

/// What a middleware fails a request with (the request is then not sent; its caller gets
/// [`RequestError::Transport`](crate::RequestError::Transport) with this message).
pub type MiddlewareError = Box<dyn std::error::Error + Send + Sync>;

/// A hook on every HTTP exchange of an [`HttpClientTransport`](super::HttpClientTransport),
/// added with [`HttpClientTransport::middleware`](super::HttpClientTransport::middleware).
///
/// Middlewares run in the order they were added for requests, and in the reverse order
/// for responses, like layers around the wire. Both methods may await (to fetch a token,
/// say); both default to doing nothing.
///
/// ```
/// use futures_util::future::BoxFuture;
/// use mcpwire::transport::http_client::{HttpMiddleware, MiddlewareError};
///
/// /// Adds a tenant header to every request.
/// struct Tenant(&'static str);
///
/// impl HttpMiddleware for Tenant {
///     fn on_request<'a>(
///         &'a self,
///         request: &'a mut http::request::Parts,
///     ) -> BoxFuture<'a, Result<(), MiddlewareError>> {
///         Box::pin(async move {
///             request.headers.insert("x-tenant", http::HeaderValue::from_static(self.0));
///             Ok(())
///         })
///     }
/// }
/// ```
pub trait HttpMiddleware: Send + Sync + 'static {
    /// Called before a request is sent, with everything but its body; may change the
    /// method, URI and headers, or fail the request.
    fn on_request<'a>(
        &'a self,
        request: &'a mut http::request::Parts,
    ) -> BoxFuture<'a, Result<(), MiddlewareError>> {
        let _ = request;
        Box::pin(async { Ok(()) })
    }

    /// Called with the status and headers of every response, before the transport reads
    /// its body.
    fn on_response<'a>(&'a self, response: &'a http::response::Parts) -> BoxFuture<'a, ()> {
        let _ = response;
        Box::pin(async {})
    }
}

/// The middlewares of one transport, in the order they were added.
#[derive(Clone, Default)]
pub(super) struct Middlewares(pub(super) Vec<Arc<dyn HttpMiddleware>>);

impl std::fmt::Debug for Middlewares {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} middleware(s)", self.0.len())
    }
}

impl Shared {
    /// Sends one HTTP request through the middlewares. `Err` is why no response came
    /// (a middleware refused the request, or the connection failed), for a person to read.
    pub(super) async fn send(&self, request: HttpRequest<Full<Bytes>>) -> Result<Response<Incoming>, String> {
        let (mut parts, body) = request.into_parts();
        let mut followed = 0;
        loop {
            let response = self.send_once(copy_of(&parts, &body)).await?;
            let Some(target) = same_origin_redirect(&parts.uri, &response) else { return Ok(response) };
            if followed == MAX_REDIRECTS {
                return Err(format!("more than {MAX_REDIRECTS} redirects, the last to {target}"));
            }
            tracing::debug!(from = %parts.uri, to = %target, "following the server's redirect");
            parts.uri = target;
            followed += 1;
        }
    }

    /// One request, without following a redirect.
    async fn send_once(&self, request: HttpRequest<Full<Bytes>>) -> Result<Response<Incoming>, String> {
        if self.middlewares.0.is_empty() {
            return self.request_once_more_if_stale(request).await;
        }
        let (mut parts, body) = request.into_parts();
        for middleware in &self.middlewares.0 {
            middleware
                .on_request(&mut parts)
                .await
                .map_err(|e| format!("a middleware refused the request: {}", error_chain(e.as_ref())))?;
        }
        let response = self.request_once_more_if_stale(HttpRequest::from_parts(parts, body)).await?;
        let (parts, body) = response.into_parts();
        for middleware in self.middlewares.0.iter().rev() {
            middleware.on_response(&parts).await;
        }
        Ok(Response::from_parts(parts, body))
    }
}

impl Shared {
    /// Sends a request; if it died on a pooled connection the server had already dropped
    /// (a server restarted since the last request: the write or the answer's head fails
    /// at once), sends it once more, on a new connection. Only failures that end before
    /// any answer count; such a request can still have reached a server that then died
    /// handling it, a rarer case than a restart, and one a second failure then reports.
    async fn request_once_more_if_stale(
        &self,
        request: HttpRequest<Full<Bytes>>,
    ) -> Result<Response<Incoming>, String> {
        let (parts, body) = request.into_parts();
        let again = copy_of(&parts, &body);
        match self.http.request(HttpRequest::from_parts(parts, body)).await {
            Err(e) if stale_connection(&e) => {
                tracing::debug!("retrying on a new connection after {}", error_chain(&e));
                self.http.request(again).await.map_err(|e| error_chain(&e))
            }
            other => other.map_err(|e| error_chain(&e)),
        }
    }
}

/// The most redirects one request follows.
const MAX_REDIRECTS: usize = 5;

/// A copy of a request (its body is shared bytes), to send again.
fn copy_of(parts: &http::request::Parts, body: &Full<Bytes>) -> HttpRequest<Full<Bytes>> {
    let mut copy = HttpRequest::new(body.clone());
    *copy.method_mut() = parts.method.clone();
    *copy.uri_mut() = parts.uri.clone();
    *copy.headers_mut() = parts.headers.clone();
    copy
}

/// Where a `307` or `308` answer sends the request, when that is on the same origin
/// (scheme, host and port) as `from`: the request is made again there, unchanged, as
/// those codes ask (an endpoint at `/mcp` that the user called `/mcp/`, say). A redirect
/// to another origin is not followed: the request's headers carry the user's credentials
/// for this one.
fn same_origin_redirect(from: &http::Uri, response: &Response<Incoming>) -> Option<http::Uri> {
    use http::StatusCode;
    if !matches!(response.status(), StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT) {
        return None;
    }
    let location = response.headers().get(http::header::LOCATION)?.to_str().ok()?;
    let target = resolve(from, location)?;
    (target.scheme() == from.scheme() && target.authority() == from.authority()).then_some(target)
}

/// `location` resolved against `from` as RFC 3986 (section 5.2) resolves a reference: an
/// absolute URI, `//host/path`, `/path`, a relative path such as `../mcp`, or `?query`
/// (a fragment is never sent, so it is dropped).
fn resolve(from: &http::Uri, location: &str) -> Option<http::Uri> {
    let location = location.split('#').next().unwrap_or_default();
    if let Ok(absolute) = location.parse::<http::Uri>() {
        if absolute.scheme().is_some() {
            return Some(absolute);
        }
    }
    if location.starts_with("//") {
        return format!("{}:{location}", from.scheme_str()?).parse().ok();
    }
    let (path, query) = match location.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (location, None),
    };
    let base = from.path();
    let merged = if path.is_empty() {
        base.to_owned()
    } else if path.starts_with('/') {
        path.to_owned()
    } else {
        // Beside the base's last segment: `/a/b` and `c` make `/a/c`.
        format!("{}{path}", &base[..=base.rfind('/')?])
    };
    let query = if path.is_empty() && query.is_none() { from.query() } else { query };
    let path = remove_dot_segments(&merged);
    let path_and_query = match query {
        Some(query) => format!("{path}?{query}"),
        None => path,
    };
    let mut parts = from.clone().into_parts();
    parts.path_and_query = Some(path_and_query.parse().ok()?);
    http::Uri::from_parts(parts).ok()
}

/// An absolute path without its `.` and `..` segments (RFC 3986, section 5.2.4): `..`
/// drops the segment before it, and a path that ends in either ends with `/`.
fn remove_dot_segments(path: &str) -> String {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let mut kept: Vec<&str> = Vec::with_capacity(segments.len());
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." | ".." => {
                if *segment == ".." {
                    kept.pop();
                }
                if i + 1 == segments.len() {
                    kept.push("");
                }
            }
            other => kept.push(other),
        }
    }
    format!("/{}", kept.join("/"))
}

/// Whether a failed request died on a connection that was already closed: hyper reports
/// the pooled connection closed before the answer's head (or the request) went through.
fn stale_connection(error: &hyper_util::client::legacy::Error) -> bool {
    if error.is_connect() {
        return false;
    }
    let mut source = std::error::Error::source(error);
    while let Some(e) = source {
        if let Some(hyper) = e.downcast_ref::<hyper::Error>() {
            return hyper.is_incomplete_message() || hyper.is_canceled() || hyper.is_closed();
        }
        source = e.source();
    }
    false
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::resolve;

    fn resolved(location: &str) -> String {
        let from: http::Uri = "http://h:1/a/b/mcp?x=1".parse().unwrap();
        resolve(&from, location).map(|u| u.to_string()).unwrap_or_else(|| "none".to_owned())
    }

    #[test]
    fn locations_resolve_as_rfc_3986_says() {
        assert_eq!(resolved("http://o:2/p"), "http://o:2/p");
        assert_eq!(resolved("//h:1/z"), "http://h:1/z");
        assert_eq!(resolved("/mcp/"), "http://h:1/mcp/");
        assert_eq!(resolved("../mcp"), "http://h:1/a/mcp");
        assert_eq!(resolved("../../../../mcp"), "http://h:1/mcp");
        assert_eq!(resolved("mcp2"), "http://h:1/a/b/mcp2");
        assert_eq!(resolved("./"), "http://h:1/a/b/");
        assert_eq!(resolved(".."), "http://h:1/a/");
        assert_eq!(resolved("?y=2"), "http://h:1/a/b/mcp?y=2");
        assert_eq!(resolved(""), "http://h:1/a/b/mcp?x=1");
        assert_eq!(resolved("/q#frag"), "http://h:1/q");
    }
}
