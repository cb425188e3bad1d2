//! The OAuth 2.1 hook of the transport (feature `auth`): the OAuth client's headers on
//! every request, and authorization when the server answers `401` (or `403` with
//! `insufficient_scope`, a step-up), after which the request is sent again. Without the
//! feature, requests carry no OAuth headers and a 401 is an ordinary HTTP failure.

use http::{HeaderMap, Method, Uri};
use hyper::body::Incoming;
use hyper::Response;

use super::Shared;

/// What became of a response that may ask for authorization.
#[cfg_attr(not(feature = "auth"), allow(dead_code))] // only `Answered` without OAuth
pub(super) enum Authorization {
    /// No authorization step: the response, to read as usual.
    Answered(Response<Incoming>),
    /// Authorized: send the request again.
    Retry,
    /// Authorization failed, for this reason.
    Failed(String),
}

/// How often one request may go through authorization.
#[cfg(feature = "auth")]
const MAX_AUTHORIZATIONS: usize = 3;

#[cfg(feature = "auth")]
impl Shared {
    /// The OAuth client's headers for one request (none without an OAuth client).
    pub(super) fn auth_headers(&self, method: &Method, uri: &Uri) -> HeaderMap {
        match &self.oauth {
            Some(oauth) => oauth.request_headers(method, uri),
            None => HeaderMap::new(),
        }
    }

    /// Authorizes on 401, and steps up on 403 `insufficient_scope`, at most
    /// [`MAX_AUTHORIZATIONS`] times per request (`attempts` counts them).
    pub(super) async fn authorize_on(
        &self,
        response: Response<Incoming>,
        attempts: &mut usize,
    ) -> Authorization {
        use http::{header, StatusCode};
        let status = response.status();
        let Some(oauth) = &self.oauth else { return Authorization::Answered(response) };
        if !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return Authorization::Answered(response);
        }
        let response_headers = response.headers().clone();
        let forbidden = status == StatusCode::FORBIDDEN;
        let step_up = response_headers
            .get(header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .and_then(crate::auth::Challenge::parse)
            .and_then(|c| c.error)
            .as_deref()
            == Some("insufficient_scope");
        if (forbidden && !step_up) || *attempts >= MAX_AUTHORIZATIONS {
            return Authorization::Answered(response);
        }
        *attempts += 1;
        let _ = super::exchange::read_limited(response.into_body(), self.max_message_bytes).await;
        match oauth.authorize(&self.url.to_string(), &response_headers, forbidden).await {
            Ok(()) => Authorization::Retry,
            Err(e) => Authorization::Failed(format!("authorization failed: {e}")),
        }
    }
}

#[cfg(not(feature = "auth"))]
impl Shared {
    /// No OAuth without the `auth` feature: no headers.
    pub(super) fn auth_headers(&self, _method: &Method, _uri: &Uri) -> HeaderMap {
        HeaderMap::new()
    }

    /// No OAuth without the `auth` feature: every response is read as it is.
    pub(super) async fn authorize_on(
        &self,
        response: Response<Incoming>,
        _attempts: &mut usize,
    ) -> Authorization {
        Authorization::Answered(response)
    }
}
