//! The Protected Resource Metadata document (RFC 9728) of a protected MCP server, and
//! [`MetadataRouter`], which serves it at the well-known URLs next to the endpoint (the
//! document must be reachable without a token: it tells clients where to get one).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{header, HeaderValue, Method, Request, Response, StatusCode};
use serde_json::{json, Map, Value};

use super::body::AuthResponseBody;
use crate::auth::fetch::{origin, path};

/// The OAuth scope that asks for a refresh token, which a resource server neither lists
/// nor challenges for.
pub(crate) const OFFLINE_ACCESS: &str = "offline_access";

/// The well-known path prefix of RFC 9728 §3.
pub const WELL_KNOWN_PREFIX: &str = "/.well-known/oauth-protected-resource";

/// What a protected MCP server says about itself (RFC 9728 §2). Empty lists and unset
/// fields are left out of the document.
#[derive(Clone, Debug)]
pub struct ResourceMetadata {
    /// `resource`: the server's canonical URI, for example `https://mcp.example.com/mcp`
    /// (tokens must name it in `aud`).
    pub resource: String,
    /// `authorization_servers`: issuer URLs of the authorization servers (at least one).
    pub authorization_servers: Vec<String>,
    /// `scopes_supported`. `offline_access` is left out of the document: it asks the
    /// authorization server for a refresh token and is not a scope of this resource (the
    /// spec says not to list it here).
    pub scopes_supported: Vec<String>,
    /// `bearer_methods_supported` (default `["header"]`: the only way MCP allows).
    pub bearer_methods_supported: Vec<String>,
    /// `resource_name`: a human-readable name.
    pub resource_name: Option<String>,
    /// `resource_documentation`: a URL of documentation for developers.
    pub resource_documentation: Option<String>,
    /// Any other members (they do not replace the ones above).
    pub extra: Map<String, Value>,
}

impl ResourceMetadata {
    /// Metadata of `resource`, protected by the authorization server `issuer`.
    pub fn new(resource: impl Into<String>, issuer: impl Into<String>) -> Self {
        ResourceMetadata {
            resource: resource.into(),
            authorization_servers: vec![issuer.into()],
            scopes_supported: Vec::new(),
            bearer_methods_supported: vec!["header".into()],
            resource_name: None,
            resource_documentation: None,
            extra: Map::new(),
        }
    }

    /// The JSON document.
    pub fn document(&self) -> Value {
        let mut doc = self.extra.clone();
        let mut set = |name: &str, value: Value| {
            doc.insert(name.to_owned(), value);
        };
        set("resource", json!(self.resource));
        set("authorization_servers", json!(self.authorization_servers));
        let scopes: Vec<&String> = self.scopes_supported.iter().filter(|s| *s != OFFLINE_ACCESS).collect();
        if !scopes.is_empty() {
            set("scopes_supported", json!(scopes));
        }
        if !self.bearer_methods_supported.is_empty() {
            set("bearer_methods_supported", json!(self.bearer_methods_supported));
        }
        if let Some(name) = &self.resource_name {
            set("resource_name", json!(name));
        }
        if let Some(docs) = &self.resource_documentation {
            set("resource_documentation", json!(docs));
        }
        Value::Object(doc)
    }

    /// The path of the endpoint (`/mcp`; `/` for a resource without a path).
    pub fn endpoint_path(&self) -> String {
        let p = path(&self.resource);
        if p.is_empty() {
            "/".into()
        } else {
            p
        }
    }

    /// The document's URL for the `resource_metadata` challenge parameter: the well-known
    /// prefix with the resource's path appended (RFC 9728 §3.1).
    pub fn url(&self) -> String {
        format!("{}{WELL_KNOWN_PREFIX}{}", origin(&self.resource).unwrap_or_default(), path(&self.resource))
    }

    /// The paths the document is served at: the path-suffixed one, then the root one.
    pub fn well_known_paths(&self) -> Vec<String> {
        let suffixed = format!("{WELL_KNOWN_PREFIX}{}", path(&self.resource));
        let mut paths = vec![suffixed];
        if paths[0] != WELL_KNOWN_PREFIX {
            paths.push(WELL_KNOWN_PREFIX.into());
        }
        paths
    }
}

/// Routes a protected server's paths: the metadata at its well-known paths (GET, no token
/// needed), the endpoint's own path to the wrapped service (normally
/// [`BearerAuth`](super::BearerAuth) around [`McpService`](crate::http::McpService)), and
/// `404` anywhere else.
///
/// It sees the whole path: mount it at the origin's root (an axum `fallback_service`, or
/// `route_service` for its two kinds of path), not under a prefix that strips part of the
/// path (`nest_service("/api", ..)`). RFC 9728 puts the metadata at the origin's root
/// (`/.well-known/oauth-protected-resource/api/mcp`), which a nested router never sees, and
/// the endpoint's path is the resource's whole path.
#[derive(Clone, Debug)]
pub struct MetadataRouter<S> {
    inner: S,
    document: Bytes,
    well_known: Vec<String>,
    endpoint_path: String,
}

impl<S> MetadataRouter<S> {
    /// Serves `metadata` and routes the endpoint's path to `inner`.
    pub fn new(metadata: &ResourceMetadata, inner: S) -> Self {
        MetadataRouter {
            inner,
            document: Bytes::from(metadata.document().to_string()),
            well_known: metadata.well_known_paths(),
            endpoint_path: metadata.endpoint_path(),
        }
    }

    fn local<B: AuthResponseBody>(&self, method: &Method) -> Response<B> {
        let (status, body) = match *method {
            Method::GET => (StatusCode::OK, self.document.clone()),
            Method::HEAD => (StatusCode::OK, Bytes::new()),
            _ => (StatusCode::METHOD_NOT_ALLOWED, Bytes::from_static(br#"{"error":"method not allowed"}"#)),
        };
        let mut response = Response::new(B::from_bytes(body));
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        // Browser-based clients read the document from another origin.
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
        if status == StatusCode::METHOD_NOT_ALLOWED {
            headers.insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        }
        response
    }
}

impl<S, ReqBody, ResBody> tower_service::Service<Request<ReqBody>> for MetadataRouter<S>
where
    S: tower_service::Service<Request<ReqBody>, Response = Response<ResBody>, Error = Infallible>,
    S::Future: Send + 'static,
    ResBody: AuthResponseBody + Send + 'static,
{
    type Response = Response<ResBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<ResBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let path = request.uri().path();
        if self.well_known.iter().any(|p| p == path) {
            let response = self.local(request.method());
            return Box::pin(async move { Ok(response) });
        }
        if path == self.endpoint_path {
            return Box::pin(self.inner.call(request));
        }
        let mut response =
            Response::new(ResBody::from_bytes(Bytes::from_static(br#"{"error":"not found"}"#)));
        *response.status_mut() = StatusCode::NOT_FOUND;
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        Box::pin(async move { Ok(response) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_access_is_not_listed() {
        let mut m = ResourceMetadata::new("https://mcp.example.com/mcp", "https://as.example.com");
        m.scopes_supported = vec!["mcp:tools".into(), OFFLINE_ACCESS.into()];
        assert_eq!(m.document()["scopes_supported"], json!(["mcp:tools"]));
        m.scopes_supported = vec![OFFLINE_ACCESS.into()];
        assert!(m.document().get("scopes_supported").is_none());
    }

    #[test]
    fn urls_follow_rfc_9728_path_insertion() {
        let m = ResourceMetadata::new("https://mcp.example.com/mcp", "https://as.example.com");
        assert_eq!(m.url(), "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
        assert_eq!(m.well_known_paths(), [format!("{WELL_KNOWN_PREFIX}/mcp"), WELL_KNOWN_PREFIX.to_owned()]);
        assert_eq!(m.endpoint_path(), "/mcp");
        let root = ResourceMetadata::new("https://mcp.example.com", "https://as.example.com");
        assert_eq!(root.url(), "https://mcp.example.com/.well-known/oauth-protected-resource");
        assert_eq!(root.well_known_paths(), [WELL_KNOWN_PREFIX]);
        assert_eq!(root.endpoint_path(), "/");
    }
}
