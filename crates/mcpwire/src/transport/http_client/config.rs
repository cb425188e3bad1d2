//! How a transport is configured: the endpoint URL, extra headers, credentials, timeouts.

use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue, Uri};

/// Why a transport could not be configured.
#[derive(Debug, thiserror::Error)]
pub enum HttpClientError {
    /// The URL does not parse or is not `http://`.
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// A header name or value is invalid.
    #[error("invalid header {0:?}")]
    InvalidHeader(String),
    /// TLS could not be set up (for example a root certificate that does not parse).
    #[error("TLS: {0}")]
    Tls(String),
}

/// A Streamable HTTP connection to one MCP endpoint.
#[derive(Debug, Clone)]
pub struct HttpClientTransport {
    pub(super) url: Uri,
    pub(super) headers: HeaderMap,
    pub(super) connect_timeout: Duration,
    pub(super) max_message_bytes: usize,
    pub(super) auth: super::auth_hook::Hook,
    pub(super) middlewares: super::middleware::Middlewares,
    #[cfg(feature = "tls")]
    pub(super) tls: super::tls::Tls,
    /// Cancelled when the writer has finished after close (the session's `DELETE` sent).
    pub(super) finished: tokio_util::sync::CancellationToken,
    /// The `initialize` answer of a session made in place of a forgotten one (the client
    /// reads it).
    pub(super) renewed: crate::transport::RenewedSession,
}

impl HttpClientTransport {
    /// A transport to the endpoint at `url` (`http://host:port/path`, or `https://` with
    /// the `tls` feature, on by default).
    pub fn new(url: &str) -> Result<Self, HttpClientError> {
        let invalid =
            |reason: &str| HttpClientError::InvalidUrl { url: url.to_owned(), reason: reason.to_owned() };
        let uri: Uri = url.parse().map_err(|e: http::uri::InvalidUri| invalid(&e.to_string()))?;
        match uri.scheme_str() {
            Some("http") => {}
            #[cfg(feature = "tls")]
            Some("https") => {}
            #[cfg(not(feature = "tls"))]
            Some("https") => return Err(invalid("https needs the `tls` feature of mcpwire")),
            _ => return Err(invalid("the URL must start with http:// or https://")),
        }
        if uri.host().is_none() {
            return Err(invalid("the URL has no host"));
        }
        Ok(HttpClientTransport {
            url: uri,
            headers: HeaderMap::new(),
            connect_timeout: Duration::from_secs(10),
            max_message_bytes: super::DEFAULT_MAX_MESSAGE_BYTES,
            auth: Default::default(),
            middlewares: Default::default(),
            #[cfg(feature = "tls")]
            tls: super::tls::Tls::new().map_err(HttpClientError::Tls)?,
            finished: tokio_util::sync::CancellationToken::new(),
            renewed: Default::default(),
        })
    }

    /// Adds a header to every request (for example an API key).
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, HttpClientError> {
        let n = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| HttpClientError::InvalidHeader(name.to_owned()))?;
        let v = HeaderValue::from_str(value.trim())
            .map_err(|_| HttpClientError::InvalidHeader(name.to_owned()))?;
        self.headers.append(n, v);
        Ok(self)
    }

    /// Sends `Authorization: Bearer <token>` with every request.
    pub fn bearer_token(self, token: &str) -> Result<Self, HttpClientError> {
        self.header("authorization", &format!("Bearer {token}"))
    }

    /// Authorizes requests through `hook`: its headers go with every request, and it
    /// authorizes when a response asks for it, after which the request is sent again.
    /// With `mcpwire::auth::OAuthClient` (feature `auth`, on by default) that is OAuth
    /// 2.1: a token on every request, the flow on a `401`, a step-up on a `403
    /// insufficient_scope`.
    pub fn oauth(mut self, hook: impl super::AuthHook) -> Self {
        self.auth = super::auth_hook::Hook(Some(std::sync::Arc::new(hook)));
        self
    }

    /// Adds a middleware that sees and may change every request, and sees every
    /// response's status and headers (see [`HttpMiddleware`](super::HttpMiddleware)).
    /// Middlewares run in the order added for requests, in reverse for responses.
    pub fn middleware(mut self, middleware: impl super::HttpMiddleware) -> Self {
        self.middlewares.0.push(std::sync::Arc::new(middleware));
        self
    }

    /// Also trusts the root certificate(s) of a PEM document for `https://` (a private CA,
    /// or a self-signed server certificate). The built-in Mozilla roots stay trusted.
    #[cfg(feature = "tls")]
    pub fn add_root_certificate(mut self, pem: &[u8]) -> Result<Self, HttpClientError> {
        self.tls.add_roots(pem).map_err(HttpClientError::Tls)?;
        Ok(self)
    }

    /// How long connecting may take (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The largest response body or SSE event this client reads (default
    /// [`DEFAULT_MAX_MESSAGE_BYTES`](super::DEFAULT_MAX_MESSAGE_BYTES), 16 MiB). An answer
    /// over it fails its request at once with an error naming the limit.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes.max(1);
        self
    }
}
