//! The OAuth client plugged into the Streamable HTTP transport: it is the transport's
//! [`AuthHook`], so the transport knows nothing of OAuth and `auth` sits above it.

use std::future::Future;
use std::pin::Pin;

use http::{HeaderMap, Method, StatusCode, Uri};

use super::challenge::Challenge;
use super::client::OAuthClient;
use crate::transport::http_client::AuthHook;

impl AuthHook for OAuthClient {
    fn request_headers(&self, method: &Method, uri: &Uri) -> HeaderMap {
        self.loaded_headers(method, uri)
    }

    /// Loads the tokens the store keeps for `url` before the first request.
    fn prepare<'a>(&'a self, url: &'a str) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(self.load_stored(url))
    }

    /// A `401`, or a `403` whose challenge is `insufficient_scope` (a step-up); any other
    /// `403` is the server's final word.
    fn wants_authorization(&self, status: StatusCode, headers: &HeaderMap) -> bool {
        match status {
            StatusCode::UNAUTHORIZED => true,
            StatusCode::FORBIDDEN => {
                Challenge::from_headers(headers).and_then(|c| c.error).as_deref()
                    == Some("insufficient_scope")
            }
            _ => false,
        }
    }

    fn authorize<'a>(
        &'a self,
        url: &'a str,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>> {
        let forbidden = status == StatusCode::FORBIDDEN;
        Box::pin(async move {
            OAuthClient::authorize(self, url, headers, forbidden).await.map_err(|e| e.to_string())
        })
    }
}
