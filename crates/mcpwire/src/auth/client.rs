//! The OAuth 2.1 client of a protected MCP server: on a `401`, discover the Protected
//! Resource Metadata (RFC 9728) and the authorization server's metadata (RFC 8414 /
//! OpenID Connect, in the spec's order), get client credentials (pre-registered, a
//! Client ID Metadata Document, or Dynamic Client Registration), run the authorization
//! code flow with PKCE (S256), the `resource` parameter and `state`, validate the RFC
//! 9207 `iss`, and exchange the code. On a `403 insufficient_scope`, step up with the
//! union of scopes, a bounded number of times.

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::sync::Mutex;

use super::challenge::Challenge;
use super::fetch::{encode, origin, path, query_params, Fetched, Fetcher};
use super::AuthError;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Completes the user's part of the authorization: given the authorization URL, returns
/// the redirect URL the authorization server sent back (with `code`, `state`, `iss`).
/// A CLI opens a browser and listens on a loopback redirect; tests and headless agents
/// may fetch the URL and read the redirect ([`FetchRedirect`]).
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// Returns the final redirect URL.
    fn authorize(&self, url: String) -> BoxFuture<Result<String, AuthError>>;
}

/// Fetches the authorization URL without following redirects and returns the
/// `Location` it redirects to (for authorization servers that approve without a user).
#[derive(Clone, Debug, Default)]
pub struct FetchRedirect;

impl AuthorizationHandler for FetchRedirect {
    fn authorize(&self, url: String) -> BoxFuture<Result<String, AuthError>> {
        Box::pin(async move {
            let fetched = Fetcher::default().get(&url).await?;
            match fetched.location {
                Some(location) if fetched.status.is_redirection() => Ok(location),
                _ => Err(AuthError::Protocol(format!(
                    "the authorization endpoint answered {} without a redirect",
                    fetched.status
                ))),
            }
        })
    }
}

/// Client credentials at one authorization server.
#[derive(Clone, Debug, Default)]
pub struct ClientCredentials {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, for confidential clients.
    pub client_secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none` (default: basic with a
    /// secret, none without).
    pub token_endpoint_auth_method: Option<String>,
}

/// How the client identifies itself and completes authorization.
#[derive(Clone)]
pub struct OAuthConfig {
    /// Where the authorization server redirects (default `http://localhost:3000/callback`).
    pub redirect_uri: String,
    /// The name sent in Dynamic Client Registration.
    pub client_name: String,
    /// An HTTPS URL of this client's Client ID Metadata Document, used as `client_id`
    /// when the authorization server supports it.
    pub client_metadata_url: Option<String>,
    /// Pre-registered credentials (used first, at the authorization server they name or
    /// at any if `issuer` is `None`).
    pub pre_registered: Option<(Option<String>, ClientCredentials)>,
    /// Completes the user's part.
    pub authorizer: Arc<dyn AuthorizationHandler>,
    /// Most step-ups (re-authorizations for more scope) before giving up (default 2, so
    /// at most 3 authorizations for one request).
    pub max_step_ups: usize,
}

impl Default for OAuthConfig {
    fn default() -> Self {
        OAuthConfig {
            redirect_uri: "http://localhost:3000/callback".into(),
            client_name: "mcpwire".into(),
            client_metadata_url: None,
            pre_registered: None,
            authorizer: Arc::new(FetchRedirect),
            max_step_ups: 2,
        }
    }
}

#[derive(Default)]
struct State {
    access_token: Option<String>,
    refresh_token: Option<String>,
    scopes: BTreeSet<String>,
    /// Credentials by authorization-server issuer: never reused at another server.
    credentials: HashMap<String, ClientCredentials>,
    step_ups: usize,
}

/// The OAuth client of one MCP server. Cheap to clone (clones share tokens).
#[derive(Clone)]
pub struct OAuthClient {
    config: OAuthConfig,
    fetch: Fetcher,
    state: Arc<Mutex<State>>,
    /// The access token requests carry now; a plain lock so that building a request needs
    /// no await.
    current: Arc<std::sync::Mutex<Option<String>>>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient").field("redirect_uri", &self.config.redirect_uri).finish()
    }
}

fn pkce() -> Result<(String, String), AuthError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|_| AuthError::Protocol("no randomness".into()))?;
    let verifier = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let challenge =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    Ok((verifier, challenge))
}

fn random_state() -> Result<String, AuthError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|_| AuthError::Protocol("no randomness".into()))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// Whether the protected resource `prm_resource` covers the server URL (same origin, and
/// the server's path is the resource's path or below it).
fn resource_matches(prm_resource: &str, server_url: &str) -> bool {
    let (Some(a), Some(b)) = (origin(prm_resource), origin(server_url)) else { return false };
    if !a.eq_ignore_ascii_case(&b) {
        return false;
    }
    let (rp, sp) = (path(prm_resource), path(server_url));
    sp == rp || rp.is_empty() || sp.starts_with(&format!("{rp}/"))
}

/// The server URL as a resource indicator (RFC 8707): no fragment, no trailing slash.
fn canonical_resource(server_url: &str) -> String {
    let url = server_url.split('#').next().unwrap_or(server_url);
    url.trim_end_matches('/').to_owned()
}

impl OAuthClient {
    /// A client with a configuration.
    pub fn new(config: OAuthConfig) -> Self {
        OAuthClient {
            config,
            fetch: Fetcher::default(),
            state: Arc::new(Mutex::new(State::default())),
            current: Arc::default(),
        }
    }

    /// The current access token, if any.
    pub async fn access_token(&self) -> Option<String> {
        self.state.lock().await.access_token.clone()
    }

    /// The headers that carry the current access token on a request to the resource
    /// server (`method` to `uri`): `Authorization: Bearer …`, or nothing before the first
    /// authorization.
    pub fn request_headers(&self, _method: &http::Method, _uri: &http::Uri) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        let token = self.current.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        if let Some(value) = token.and_then(|t| http::HeaderValue::from_str(&format!("Bearer {t}")).ok()) {
            headers.insert(http::header::AUTHORIZATION, value);
        }
        headers
    }

    /// Handles a `401` (or a `403 insufficient_scope`, a step-up) from `server_url`, given
    /// that response's headers (`WWW-Authenticate`): runs the flow, after which
    /// [`request_headers`](Self::request_headers) carries the fresh token.
    pub async fn authorize(
        &self,
        server_url: &str,
        response_headers: &http::HeaderMap,
        forbidden: bool,
    ) -> Result<(), AuthError> {
        let www_authenticate =
            response_headers.get(http::header::WWW_AUTHENTICATE).and_then(|v| v.to_str().ok());
        let challenge = www_authenticate.and_then(Challenge::parse).unwrap_or_default();
        let mut state = self.state.lock().await;
        if forbidden {
            if state.step_ups >= self.config.max_step_ups {
                return Err(AuthError::Denied(format!("still forbidden after {} step-ups", state.step_ups)));
            }
            state.step_ups += 1;
        }
        // 1. Protected Resource Metadata, then the authorization server.
        let prm =
            self.protected_resource_metadata(server_url, challenge.resource_metadata.as_deref()).await?;
        // The resource indicator is the metadata's `resource`, exactly as published.
        let resource = prm
            .as_ref()
            .and_then(|p| p.get("resource"))
            .and_then(Value::as_str)
            .map_or_else(|| canonical_resource(server_url), str::to_owned);
        let issuer = match &prm {
            Some(prm) => {
                let prm_resource = prm.get("resource").and_then(Value::as_str).unwrap_or_default();
                if !resource_matches(prm_resource, server_url) {
                    return Err(AuthError::Protocol(format!(
                        "the protected resource metadata is for {prm_resource:?}, not {server_url:?}"
                    )));
                }
                prm.get("authorization_servers")
                    .and_then(|a| a.get(0))
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        AuthError::Protocol("the resource metadata names no authorization server".into())
                    })?
                    .to_owned()
            }
            // 2025-03-26 servers publish no resource metadata: the MCP origin is the issuer.
            None => origin(server_url).ok_or_else(|| AuthError::Protocol("invalid server URL".into()))?,
        };
        let metadata = self.authorization_server_metadata(&issuer, prm.is_some()).await?;

        // 2. Client credentials for this authorization server.
        let credentials = self.credentials(&mut state, &issuer, &metadata).await?;

        // 3. Scopes: the challenge's, else the resource's, merged with those granted.
        let mut scopes: BTreeSet<String> = match (&challenge.scope, &prm) {
            (Some(s), _) => s.split_whitespace().map(str::to_owned).collect(),
            (None, Some(prm)) => prm
                .get("scopes_supported")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default(),
            (None, None) => BTreeSet::new(),
        };
        if forbidden {
            scopes.extend(state.scopes.iter().cloned());
        }
        let supports = |scope: &str| {
            metadata
                .get("scopes_supported")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|s| s == scope))
        };
        if supports("offline_access") {
            scopes.insert("offline_access".into());
        } else {
            scopes.remove("offline_access");
        }

        // 4. The authorization request.
        let (verifier, code_challenge) = pkce()?;
        let csrf = random_state()?;
        let endpoint = metadata.get("authorization_endpoint").and_then(Value::as_str).ok_or_else(|| {
            AuthError::Protocol("the authorization server has no authorization_endpoint".into())
        })?;
        let mut query = vec![
            ("response_type", "code".to_owned()),
            ("client_id", credentials.client_id.clone()),
            ("redirect_uri", self.config.redirect_uri.clone()),
            ("code_challenge", code_challenge),
            ("code_challenge_method", "S256".to_owned()),
            ("state", csrf.clone()),
            ("resource", resource.clone()),
        ];
        if !scopes.is_empty() {
            query.push(("scope", scopes.iter().cloned().collect::<Vec<_>>().join(" ")));
        }
        let separator = if endpoint.contains('?') { '&' } else { '?' };
        let url = format!("{endpoint}{separator}{}", super::fetch::form_encode(&query));
        let redirect = self.config.authorizer.authorize(url).await?;
        let params: HashMap<String, String> = query_params(&redirect).into_iter().collect();

        // 5. RFC 9207: the issuer in the redirect must be exactly the one we asked.
        let iss_advertised =
            metadata.get("authorization_response_iss_parameter_supported") == Some(&Value::Bool(true));
        match params.get("iss") {
            Some(iss) if iss != &issuer => {
                return Err(AuthError::Protocol(format!(
                    "the authorization response came from issuer {iss:?}, not {issuer:?}"
                )))
            }
            None if iss_advertised => {
                return Err(AuthError::Protocol(
                    "the authorization response has no iss though the server advertises it".into(),
                ))
            }
            _ => {}
        }
        if let Some(error) = params.get("error") {
            return Err(AuthError::Denied(format!("the authorization server refused: {error}")));
        }
        if params.get("state") != Some(&csrf) {
            return Err(AuthError::Protocol("the authorization response's state does not match".into()));
        }
        let code = params
            .get("code")
            .ok_or_else(|| AuthError::Protocol("the authorization response has no code".into()))?;

        // 6. The token request.
        let fields = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.clone()),
            ("redirect_uri", self.config.redirect_uri.clone()),
            ("code_verifier", verifier),
            ("resource", resource),
        ];
        let token = self.token_request(&metadata, &credentials, fields).await?;
        let access = token
            .get("access_token")
            .and_then(Value::as_str)
            .ok_or_else(|| AuthError::Protocol("the token response has no access_token".into()))?
            .to_owned();
        state.access_token = Some(access.clone());
        state.refresh_token = token.get("refresh_token").and_then(Value::as_str).map(str::to_owned);
        state.scopes = match token.get("scope").and_then(Value::as_str) {
            Some(granted) => granted.split_whitespace().map(str::to_owned).collect(),
            None => scopes,
        };
        *self.current.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(access);
        Ok(())
    }

    /// Sends a token request with the client authentication its method asks for.
    async fn token_request(
        &self,
        metadata: &Value,
        credentials: &ClientCredentials,
        mut fields: Vec<(&str, String)>,
    ) -> Result<Value, AuthError> {
        let endpoint = metadata
            .get("token_endpoint")
            .and_then(Value::as_str)
            .ok_or_else(|| AuthError::Protocol("the authorization server has no token_endpoint".into()))?;
        let method = credentials.token_endpoint_auth_method.clone().unwrap_or_else(|| {
            if credentials.client_secret.is_some() {
                "client_secret_basic".into()
            } else {
                "none".into()
            }
        });
        let mut headers = Vec::new();
        match (method.as_str(), &credentials.client_secret) {
            ("client_secret_basic", Some(secret)) => {
                let pair = format!("{}:{}", encode(&credentials.client_id), encode(secret));
                headers.push((
                    "authorization",
                    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair)),
                ));
            }
            ("client_secret_post", Some(secret)) => {
                fields.push(("client_id", credentials.client_id.clone()));
                fields.push(("client_secret", secret.clone()));
            }
            _ => fields.push(("client_id", credentials.client_id.clone())),
        }
        let response = self.fetch.post_form(endpoint, &fields, &headers).await?;
        if !response.status.is_success() {
            return Err(AuthError::Denied(format!(
                "the token request failed: {} {}",
                response.status,
                String::from_utf8_lossy(&response.body)
            )));
        }
        response.json().ok_or_else(|| AuthError::Protocol("the token response is not JSON".into()))
    }

    /// RFC 9728 discovery: the challenge's `resource_metadata`, else the path-based
    /// well-known URL, else the root one. `None` when the server publishes none.
    async fn protected_resource_metadata(
        &self,
        server_url: &str,
        hinted: Option<&str>,
    ) -> Result<Option<Value>, AuthError> {
        let base = origin(server_url).ok_or_else(|| AuthError::Protocol("invalid server URL".into()))?;
        let path = path(server_url);
        let mut candidates = Vec::new();
        if let Some(url) = hinted {
            candidates.push(url.to_owned());
        }
        if !path.is_empty() {
            candidates.push(format!("{base}/.well-known/oauth-protected-resource{path}"));
        }
        candidates.push(format!("{base}/.well-known/oauth-protected-resource"));
        for url in candidates {
            if let Ok(Fetched { status, body, .. }) = self.fetch.get(&url).await {
                if status.is_success() {
                    if let Ok(v) = serde_json::from_slice::<Value>(&body) {
                        return Ok(Some(v));
                    }
                }
            }
        }
        Ok(None)
    }

    /// RFC 8414 / OIDC discovery in the spec's order; the document's `issuer` must equal
    /// the issuer exactly, and PKCE S256 must be supported. Without any document (a
    /// 2025-03-26 server), the default endpoints at the issuer.
    async fn authorization_server_metadata(&self, issuer: &str, strict: bool) -> Result<Value, AuthError> {
        let base = origin(issuer).ok_or_else(|| AuthError::Protocol(format!("invalid issuer {issuer:?}")))?;
        let path = path(issuer);
        let candidates = if path.is_empty() {
            vec![
                format!("{base}/.well-known/oauth-authorization-server"),
                format!("{base}/.well-known/openid-configuration"),
            ]
        } else {
            vec![
                format!("{base}/.well-known/oauth-authorization-server{path}"),
                format!("{base}/.well-known/openid-configuration{path}"),
                format!("{base}{path}/.well-known/openid-configuration"),
            ]
        };
        for url in candidates {
            let Ok(fetched) = self.fetch.get(&url).await else { continue };
            if !fetched.status.is_success() {
                continue;
            }
            let Some(metadata) = fetched.json() else { continue };
            if metadata.get("issuer").and_then(Value::as_str) != Some(issuer) {
                return Err(AuthError::Protocol(format!(
                    "the authorization server metadata at {url} names issuer {:?}, not {issuer:?}",
                    metadata.get("issuer")
                )));
            }
            let s256 = metadata
                .get("code_challenge_methods_supported")
                .and_then(Value::as_array)
                .is_some_and(|m| m.iter().any(|v| v == "S256"));
            if !s256 {
                return Err(AuthError::Protocol(
                    "the authorization server does not support PKCE S256".into(),
                ));
            }
            return Ok(metadata);
        }
        if strict {
            return Err(AuthError::Protocol(format!(
                "no authorization server metadata found for {issuer:?}"
            )));
        }
        Ok(json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "code_challenge_methods_supported": ["S256"],
        }))
    }

    /// Credentials at `issuer`: kept ones, pre-registered ones, a Client ID Metadata
    /// Document, or Dynamic Client Registration (with `application_type`).
    async fn credentials(
        &self,
        state: &mut State,
        issuer: &str,
        metadata: &Value,
    ) -> Result<ClientCredentials, AuthError> {
        if let Some(c) = state.credentials.get(issuer) {
            return Ok(c.clone());
        }
        if let Some((for_issuer, c)) = &self.config.pre_registered {
            if for_issuer.as_deref().is_none_or(|i| i == issuer) {
                state.credentials.insert(issuer.to_owned(), c.clone());
                return Ok(c.clone());
            }
        }
        let cimd = metadata.get("client_id_metadata_document_supported") == Some(&Value::Bool(true));
        if let (true, Some(url)) = (cimd, &self.config.client_metadata_url) {
            let c = ClientCredentials {
                client_id: url.clone(),
                client_secret: None,
                token_endpoint_auth_method: Some("none".into()),
            };
            state.credentials.insert(issuer.to_owned(), c.clone());
            return Ok(c);
        }
        let endpoint = metadata.get("registration_endpoint").and_then(Value::as_str).ok_or_else(|| {
            AuthError::Protocol(
                "the authorization server offers no client registration; pre-register a client".into(),
            )
        })?;
        let loopback = ["http://localhost", "http://127.0.0.1", "http://[::1]"]
            .iter()
            .any(|p| self.config.redirect_uri.starts_with(p));
        let request = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [self.config.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "client_secret_basic",
            "application_type": if loopback { "native" } else { "web" },
        });
        let response = self.fetch.post_json(endpoint, &request).await?;
        let registered = match response.json() {
            Some(v) if response.status.is_success() => v,
            _ => return Err(AuthError::Protocol(format!("client registration failed: {}", response.status))),
        };
        let c = ClientCredentials {
            client_id: registered
                .get("client_id")
                .and_then(Value::as_str)
                .ok_or_else(|| AuthError::Protocol("the registration response has no client_id".into()))?
                .to_owned(),
            client_secret: registered.get("client_secret").and_then(Value::as_str).map(str::to_owned),
            token_endpoint_auth_method: registered
                .get("token_endpoint_auth_method")
                .and_then(Value::as_str)
                .map(str::to_owned),
        };
        state.credentials.insert(issuer.to_owned(), c.clone());
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_matching() {
        assert!(resource_matches("http://h:1/mcp", "http://h:1/mcp"));
        assert!(resource_matches("http://h:1", "http://h:1/mcp"));
        assert!(resource_matches("http://h:1/", "http://h:1/mcp/"));
        assert!(!resource_matches("http://h:1/other", "http://h:1/mcp"));
        assert!(!resource_matches("http://h:1/mc", "http://h:1/mcp"));
        assert!(!resource_matches("http://evil:1/mcp", "http://h:1/mcp"));
    }

    #[test]
    fn pkce_challenge_is_the_s256_of_the_verifier() {
        let (verifier, challenge) = pkce().unwrap_or_default();
        assert!((43..=128).contains(&verifier.len()));
        let expected =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        assert_eq!(challenge, expected);
    }
}
