//! The transport's authorization hook: whatever authorizes requests (the OAuth 2.1 client
//! of `mcpwire::auth`, feature `auth`, or one of the application's own) plugs in here. The
//! transport asks it for headers on every request and, when a response asks for
//! authorization, lets it authorize and sends the request again. The transport knows no
//! OAuth: the hook sits above it and decides what an answer means.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use http::{HeaderMap, Method, StatusCode, Uri};
use hyper::body::Incoming;
use hyper::Response;

use super::body::read_limited;
use super::Shared;

/// What authorizes a transport's requests; given to
/// [`HttpClientTransport::oauth`](super::HttpClientTransport::oauth).
/// `mcpwire::auth::OAuthClient` (feature `auth`) is one.
///
/// ```
/// use std::future::Future;
/// use std::pin::Pin;
/// use http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
/// use mcpwire::transport::http_client::{AuthHook, HttpClientTransport};
///
/// /// Sends a fixed API key and never re-authorizes.
/// struct ApiKey(HeaderValue);
///
/// impl AuthHook for ApiKey {
///     fn request_headers(&self, _method: &Method, _uri: &Uri) -> HeaderMap {
///         HeaderMap::from_iter([(http::header::AUTHORIZATION, self.0.clone())])
///     }
///     fn wants_authorization(&self, _status: StatusCode, _headers: &HeaderMap) -> bool {
///         false
///     }
///     fn authorize<'a>(
///         &'a self,
///         _url: &'a str,
///         _status: StatusCode,
///         _headers: &'a HeaderMap,
///     ) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>> {
///         Box::pin(async { Err("no way to authorize".to_owned()) })
///     }
/// }
///
/// let transport = HttpClientTransport::new("http://127.0.0.1:3000/mcp")
///     .unwrap()
///     .oauth(ApiKey(HeaderValue::from_static("Bearer k")));
/// # drop(transport);
/// ```
pub trait AuthHook: Send + Sync + 'static {
    /// The headers that authorize one request (an `Authorization` header, a DPoP proof).
    fn request_headers(&self, method: &Method, uri: &Uri) -> HeaderMap;

    /// Whether a response with `status` and `headers` asks for an authorization this hook
    /// can give (for OAuth: a `401`, or a `403` whose challenge is `insufficient_scope`).
    fn wants_authorization(&self, status: StatusCode, headers: &HeaderMap) -> bool;

    /// Authorizes at the endpoint `url` after such a response; `Ok` sends the request
    /// again, `Err` fails it with that reason.
    fn authorize<'a>(
        &'a self,
        url: &'a str,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>>;

    /// Gets ready to authorize requests to the endpoint `url` (for OAuth: loads the
    /// tokens a store kept, off the async runtime), before the transport's first request
    /// asks for [`request_headers`](Self::request_headers), which cannot wait. Called once
    /// per connection; by default nothing.
    fn prepare<'a>(&'a self, url: &'a str) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        let _ = url;
        Box::pin(std::future::ready(()))
    }
}

/// The hook of one transport, if any.
#[derive(Clone, Default)]
pub(super) struct Hook(pub(super) Option<Arc<dyn AuthHook>>);

impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "an authorization hook" } else { "no authorization hook" })
    }
}

/// What became of a response that may ask for authorization.
pub(super) enum Authorization {
    /// No authorization step: the response, to read as usual.
    Answered(Response<Incoming>),
    /// Authorized: send the request again.
    Retry,
    /// Authorization failed, for this reason.
    Failed(String),
}

/// How often one request may go through authorization.
const MAX_AUTHORIZATIONS: usize = 3;

impl Shared {
    /// The hook's headers for one request (none without a hook).
    pub(super) fn auth_headers(&self, method: &Method, uri: &Uri) -> HeaderMap {
        match &self.auth.0 {
            Some(hook) => hook.request_headers(method, uri),
            None => HeaderMap::new(),
        }
    }

    /// Has the hook get ready, once per connection, before the first request's headers are
    /// built (nothing without a hook; later calls return at once).
    pub(super) async fn prepare_auth(&self) {
        let Some(hook) = &self.auth.0 else { return };
        self.auth_prepared
            .get_or_init(|| async {
                let url = self.url.to_string();
                hook.prepare(&url).await;
            })
            .await;
    }

    /// Lets the hook authorize when a response asks for it, at most
    /// [`MAX_AUTHORIZATIONS`] times per request (`attempts` counts them).
    pub(super) async fn authorize_on(
        &self,
        response: Response<Incoming>,
        attempts: &mut usize,
    ) -> Authorization {
        let Some(hook) = &self.auth.0 else { return Authorization::Answered(response) };
        let status = response.status();
        if status.is_success() || *attempts >= MAX_AUTHORIZATIONS {
            return Authorization::Answered(response);
        }
        let headers = response.headers().clone();
        if !hook.wants_authorization(status, &headers) {
            return Authorization::Answered(response);
        }
        *attempts += 1;
        let _ = read_limited(response.into_body(), self.max_message_bytes).await;
        match hook.authorize(&self.url.to_string(), status, &headers).await {
            Ok(()) => Authorization::Retry,
            Err(e) => {
                // An OAuth client's errors already say that authorization is what failed.
                let reason = e.to_string();
                match reason.starts_with("authorization") {
                    true => Authorization::Failed(reason),
                    false => Authorization::Failed(format!("authorization failed: {reason}")),
                }
            }
        }
    }
}
