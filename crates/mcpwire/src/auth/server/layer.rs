//! [`BearerAuthLayer`]: the tower middleware that lets only requests with a valid bearer
//! token through (RFC 6750), answers the others with the `WWW-Authenticate` challenge the
//! MCP client needs to get one (RFC 9728 `resource_metadata`, `scope`, `error`), and hands
//! the token's [`Principal`] and [`TokenClaims`] to the wrapped service in the request's
//! extensions, where the MCP endpoint binds 2025 sessions to the principal and shows it
//! to handlers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{header, HeaderValue, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use serde_json::json;

use super::body::AuthResponseBody;
use super::claims::{TokenClaims, TokenError, TokenVerifier};
use super::policy::{self, McpCall, ScopePolicy};
use crate::Principal;

#[derive(Clone)]
struct Config {
    verifier: Arc<dyn TokenVerifier>,
    resource_metadata: String,
    required_scopes: Vec<String>,
    challenge_scope: Option<String>,
    policy: Option<ScopePolicy>,
    max_body_bytes: usize,
}

/// Builds [`BearerAuth`] services. Cheap to clone.
#[derive(Clone)]
pub struct BearerAuthLayer {
    config: Arc<Config>,
}

impl std::fmt::Debug for BearerAuthLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BearerAuthLayer")
            .field("resource_metadata", &self.config.resource_metadata)
            .field("required_scopes", &self.config.required_scopes)
            .finish_non_exhaustive()
    }
}

impl BearerAuthLayer {
    /// Checks tokens with `verifier`; challenges point to the Protected Resource Metadata
    /// at `resource_metadata_url` (see [`ResourceMetadata::url`](super::ResourceMetadata::url)).
    pub fn new(verifier: impl TokenVerifier, resource_metadata_url: impl Into<String>) -> Self {
        BearerAuthLayer {
            config: Arc::new(Config {
                verifier: Arc::new(verifier),
                resource_metadata: resource_metadata_url.into(),
                required_scopes: Vec::new(),
                challenge_scope: None,
                policy: None,
                max_body_bytes: 4 * 1024 * 1024,
            }),
        }
    }

    fn edit(mut self, f: impl FnOnce(&mut Config)) -> Self {
        f(Arc::make_mut(&mut self.config));
        self
    }

    /// Scopes every request needs (a token without them gets `403 insufficient_scope`);
    /// `offline_access` is not one (it is dropped: it asks for a refresh token).
    pub fn required_scopes<I: IntoIterator<Item = S>, S: Into<String>>(self, scopes: I) -> Self {
        // `offline_access` asks for a refresh token; no access token needs to carry it.
        let scopes: Vec<String> =
            scopes.into_iter().map(Into::into).filter(|s| s != super::metadata::OFFLINE_ACCESS).collect();
        self.edit(|c| c.required_scopes = scopes)
    }

    /// The `scope` of the `401` challenge (default: the required scopes, if any): what a
    /// client should ask for to use the server.
    pub fn challenge_scope(self, scope: impl Into<String>) -> Self {
        let scope = scope.into();
        self.edit(|c| c.challenge_scope = Some(scope))
    }

    /// Extra scopes per request, decided from its head and the MCP messages of its body
    /// (for example `mcp:admin` for `tools/call` of the `admin` tool). With a policy the
    /// layer reads each authenticated request's body (up to
    /// [`max_body_bytes`](Self::max_body_bytes); `413` beyond) before passing it on, the
    /// same way in both eras; a body that is not JSON-RPC, or repeats a member the policy
    /// reads, gets `400`.
    pub fn scope_policy(
        self,
        policy: impl Fn(&http::request::Parts, &[McpCall]) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.edit(|c| c.policy = Some(Arc::new(policy)))
    }

    /// The largest body a scope policy reads (default 4 MiB, the endpoint's default).
    pub fn max_body_bytes(self, limit: usize) -> Self {
        self.edit(|c| c.max_body_bytes = limit)
    }

    /// Wraps `inner`: the same as [`tower_layer::Layer::layer`], callable without
    /// importing the trait.
    pub fn layer<S>(&self, inner: S) -> BearerAuth<S> {
        BearerAuth { inner, config: self.config.clone() }
    }
}

/// So that the layer goes wherever tower layers go (`ServiceBuilder::layer`, axum's
/// `Router::layer`, `route_layer`).
impl<S> tower_layer::Layer<S> for BearerAuthLayer {
    type Service = BearerAuth<S>;

    fn layer(&self, inner: S) -> BearerAuth<S> {
        BearerAuthLayer::layer(self, inner)
    }
}

/// The body [`BearerAuth`] passes on: the request's own, or the bytes a scope policy read.
pub type RequestBody<B> = http_body_util::Either<B, Full<Bytes>>;

/// A service that authenticates each request before passing it to `S`.
#[derive(Clone)]
pub struct BearerAuth<S> {
    inner: S,
    config: Arc<Config>,
}

impl<S> std::fmt::Debug for BearerAuth<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BearerAuth").field("resource_metadata", &self.config.resource_metadata).finish()
    }
}

/// Why a request was refused, and how to say it.
struct Refusal {
    status: StatusCode,
    /// The RFC 6750 error code (`None` when the request carried no credentials at all).
    error: Option<&'static str>,
    description: String,
    scope: Option<String>,
}

impl Refusal {
    fn new(status: StatusCode, error: Option<&'static str>, description: impl Into<String>) -> Self {
        Refusal { status, error, description: description.into(), scope: None }
    }
}

impl Config {
    /// The `WWW-Authenticate` value: `Bearer resource_metadata="…"`, then `scope` and
    /// `error` when there are.
    fn challenge(&self, scope: Option<&str>, error: Option<&str>) -> String {
        let mut value = format!("Bearer resource_metadata=\"{}\"", quote(&self.resource_metadata));
        // `offline_access` is never challenged for: it is not this resource's scope.
        let scope = scope.map(|s| {
            s.split_whitespace()
                .filter(|s| *s != super::metadata::OFFLINE_ACCESS)
                .collect::<Vec<_>>()
                .join(" ")
        });
        if let Some(scope) = scope.filter(|s| !s.is_empty()) {
            value.push_str(&format!(", scope=\"{}\"", quote(&scope)));
        }
        if let Some(error) = error {
            value.push_str(&format!(", error=\"{error}\""));
        }
        value
    }

    fn default_scope(&self) -> Option<String> {
        self.challenge_scope.clone().or_else(|| Some(self.required_scopes.join(" ")))
    }

    fn respond<B: AuthResponseBody>(&self, refusal: Refusal) -> Response<B> {
        let mut body = json!({ "error_description": refusal.description });
        if let Some(error) = refusal.error {
            body["error"] = error.into();
        }
        let mut response = Response::new(B::from_bytes(Bytes::from(body.to_string())));
        *response.status_mut() = refusal.status;
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if matches!(
            refusal.status,
            StatusCode::BAD_REQUEST | StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
        ) {
            let scope = refusal.scope.or_else(|| self.default_scope());
            let challenge = self.challenge(scope.as_deref(), refusal.error);
            let value = HeaderValue::from_str(&challenge).unwrap_or(HeaderValue::from_static("Bearer"));
            headers.insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }

    /// Authenticates one request head: its principal and claims, or the refusal.
    async fn authenticate(&self, parts: &http::request::Parts) -> Result<(Principal, TokenClaims), Refusal> {
        let bad_request = |m: &str| Refusal::new(StatusCode::BAD_REQUEST, Some("invalid_request"), m);
        let in_query = parts.uri.query().is_some_and(|q| {
            q.split('&').any(|pair| pair.split('=').next().is_some_and(|name| name == "access_token"))
        });
        if in_query {
            return Err(bad_request("access tokens are not accepted in the query string"));
        }
        let mut values = parts.headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return match parts.headers.contains_key(header::AUTHORIZATION) {
                true => Err(bad_request("more than one Authorization header")),
                false => Err(Refusal::new(StatusCode::UNAUTHORIZED, None, "no access token")),
            };
        };
        let value = value.to_str().map_err(|_| bad_request("the Authorization header is not text"))?;
        let token = match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => return Err(Refusal::new(StatusCode::UNAUTHORIZED, None, "no bearer token")),
        };
        if !is_b64token(token) {
            return Err(bad_request("the bearer token is malformed"));
        }
        let claims = self.verifier.verify(token).await.map_err(|e| match e {
            TokenError::Invalid(m) => Refusal::new(StatusCode::UNAUTHORIZED, Some("invalid_token"), m),
            TokenError::Unavailable(m) => {
                // The details (URLs, statuses of the authorization server) stay in the log.
                tracing::warn!("token verification unavailable: {m}");
                let description = "token verification is temporarily unavailable";
                Refusal::new(StatusCode::SERVICE_UNAVAILABLE, Some("temporarily_unavailable"), description)
            }
        })?;
        let Some(principal) = claims.principal().map(|p| Principal(p.to_owned())) else {
            return Err(Refusal::new(
                StatusCode::UNAUTHORIZED,
                Some("invalid_token"),
                "the token names neither a subject nor a client",
            ));
        };
        Ok((principal, claims))
    }

    /// Checks the scopes the request needs: the global ones and the policy's.
    fn check_scopes(
        &self,
        claims: &TokenClaims,
        parts: &http::request::Parts,
        calls: &[McpCall],
    ) -> Result<(), Refusal> {
        let mut required = self.required_scopes.clone();
        if let Some(policy) = &self.policy {
            for scope in policy(parts, calls) {
                if !required.contains(&scope) {
                    required.push(scope);
                }
            }
        }
        if !claims.has_scopes(&required) {
            let mut refusal = Refusal::new(
                StatusCode::FORBIDDEN,
                Some("insufficient_scope"),
                "the token lacks a required scope",
            );
            refusal.scope = Some(required.join(" "));
            return Err(refusal);
        }
        Ok(())
    }

    /// The body, read whole when a policy needs its messages.
    async fn read_calls<B>(
        &self,
        body: B,
        parts: &http::request::Parts,
    ) -> Result<(RequestBody<B>, Vec<McpCall>), Refusal>
    where
        B: http_body::Body<Data = Bytes> + Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        if self.policy.is_none() {
            return Ok((RequestBody::Left(body), Vec::new()));
        }
        let too_large =
            || Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, Some("invalid_request"), "the body is too large");
        let declared =
            parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|len| len > self.max_body_bytes as u64) {
            return Err(too_large());
        }
        let bytes = match http_body_util::Limited::new(body, self.max_body_bytes).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
                return Err(too_large())
            }
            Err(_) => {
                return Err(Refusal::new(
                    StatusCode::BAD_REQUEST,
                    Some("invalid_request"),
                    "the body could not be read",
                ))
            }
        };
        match policy::calls(&bytes) {
            Some(calls) => Ok((RequestBody::Right(Full::new(bytes)), calls)),
            None => Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                Some("invalid_request"),
                "the body is not a readable JSON-RPC message",
            )),
        }
    }
}

/// RFC 6750 §2.1 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/'))
}

/// Escapes a quoted-string's content.
fn quote(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

impl<S, ReqBody, ResBody> tower_service::Service<Request<ReqBody>> for BearerAuth<S>
where
    S: tower_service::Service<Request<RequestBody<ReqBody>>, Response = Response<ResBody>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Send + 'static,
    ReqBody: http_body::Body<Data = Bytes> + Send + 'static,
    ReqBody::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    ResBody: AuthResponseBody + Send + 'static,
{
    type Response = Response<ResBody>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<ResBody>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        // The clone may not be ready; the instance polled ready is the one that is called.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let config = self.config.clone();
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            // The token first: nobody unauthenticated makes the layer read a body.
            let checked = match config.authenticate(&parts).await {
                Ok((principal, claims)) => match config.read_calls(body, &parts).await {
                    Ok((body, calls)) => {
                        config.check_scopes(&claims, &parts, &calls).map(|()| (principal, claims, body))
                    }
                    Err(refusal) => Err(refusal),
                },
                Err(refusal) => Err(refusal),
            };
            match checked {
                Ok((principal, claims, body)) => {
                    parts.extensions.insert(principal);
                    parts.extensions.insert(claims);
                    inner.call(Request::from_parts(parts, body)).await
                }
                Err(refusal) => Ok(config.respond(refusal)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_b64tokens() {
        assert!(is_b64token("abc.DEF-_~+/=="));
        assert!(!is_b64token("=="));
        assert!(!is_b64token("a b"));
        assert!(!is_b64token("a\"b"));
        assert_eq!(quote(r#"a"b\c"#), r#"a\"b\\c"#);
    }
}
