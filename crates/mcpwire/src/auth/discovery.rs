//! Finding the authorization server of a protected MCP server: Protected Resource
//! Metadata (RFC 9728: the challenge's `resource_metadata`, then the path-based and root
//! well-known URLs), the authorization server's metadata (RFC 8414 and OpenID Connect
//! discovery, in the spec's order), and Dynamic Client Registration.

use serde_json::{json, Value};

use super::credentials::ClientCredentials;
use super::fetch::{origin, path, quoted, secure_or_loopback, Fetcher};
use super::AuthError;

/// Whether the protected resource `prm_resource` covers the server URL (same origin, and
/// the server's path is the resource's path or below it).
pub(crate) fn resource_matches(prm_resource: &str, server_url: &str) -> bool {
    let (Some(a), Some(b)) = (origin(prm_resource), origin(server_url)) else { return false };
    if !a.eq_ignore_ascii_case(&b) {
        return false;
    }
    let (rp, sp) = (path(prm_resource), path(server_url));
    sp == rp || rp.is_empty() || sp.starts_with(&format!("{rp}/"))
}

/// The server URL as a resource indicator (RFC 8707): no query, no fragment, no
/// trailing slash. Also the key tokens are stored under.
pub(crate) fn canonical_resource(server_url: &str) -> String {
    let end = server_url.find(['?', '#']).unwrap_or(server_url.len());
    server_url[..end].trim_end_matches('/').to_owned()
}

/// Where a protected resource sends its clients for tokens.
pub(crate) struct Discovered {
    /// The resource indicator (the metadata's `resource`, exactly as published).
    pub(crate) resource: String,
    /// The authorization server's issuer.
    pub(crate) issuer: String,
    /// Its metadata.
    pub(crate) metadata: Value,
    /// The resource's `scopes_supported`, if it published metadata.
    pub(crate) scopes_supported: Option<Vec<String>>,
    /// Whether the resource's metadata says it takes DPoP-bound tokens (RFC 9728:
    /// `dpop_signing_alg_values_supported`, `dpop_bound_access_tokens_required`).
    pub(crate) resource_dpop: bool,
}

/// Runs discovery for `server_url`, starting from the challenge's `resource_metadata`.
pub(crate) async fn discover(
    fetch: &Fetcher,
    server_url: &str,
    hinted: Option<&str>,
) -> Result<Discovered, AuthError> {
    // Metadata read in plain text off this machine could name any authorization server;
    // a hint on the server's own origin is no less safe than the server itself.
    if let Some(url) = hinted.filter(|u| !secure_or_loopback(u) && origin(u) != origin(server_url)) {
        return Err(AuthError::Protocol(format!(
            "the server names its resource metadata at {}, which is neither https nor on this machine",
            quoted(url)
        )));
    }
    let (prm, hint_failure) = protected_resource_metadata(fetch, server_url, hinted).await?;
    // Only a 2025-03-26 server has no resource metadata (its origin is then the
    // authorization server, at default endpoints); one that names its metadata is of a
    // later revision, where none to be read means no way to authorize.
    if let (None, Some(url)) = (&prm, hinted) {
        let why = hint_failure.unwrap_or_default();
        return Err(AuthError::Protocol(format!(
            "the server names its resource metadata at {}, but it could not be read ({why}), nor any at the well-known URLs",
            quoted(url)
        )));
    }
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
                    "the protected resource metadata is for {}, not {server_url:?}",
                    quoted(prm_resource)
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
    if !secure_or_loopback(&issuer) {
        return Err(AuthError::Protocol(format!(
            "the authorization server {} is neither https nor on this machine",
            quoted(&issuer)
        )));
    }
    let metadata = authorization_server_metadata(fetch, &issuer, prm.is_some()).await?;
    // The client sends its secrets, codes and verifiers to these.
    for name in ["authorization_endpoint", "token_endpoint", "registration_endpoint"] {
        if let Some(url) = metadata.get(name).and_then(Value::as_str).filter(|u| !secure_or_loopback(u)) {
            return Err(AuthError::Protocol(format!(
                "the authorization server's {name} {} is neither https nor on this machine",
                quoted(url)
            )));
        }
    }
    let scopes_supported = prm
        .as_ref()
        .and_then(|p| p.get("scopes_supported"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect());
    let resource_dpop = prm.as_ref().is_some_and(|p| {
        p.get("dpop_signing_alg_values_supported").and_then(Value::as_array).is_some_and(|a| !a.is_empty())
            || p.get("dpop_bound_access_tokens_required").and_then(Value::as_bool) == Some(true)
    });
    Ok(Discovered { resource, issuer, metadata, scopes_supported, resource_dpop })
}

/// A JSON document at `url`, or why there is none (said in errors).
async fn document(fetch: &Fetcher, url: &str) -> Result<Value, String> {
    let fetched = fetch.get(url).await.map_err(|e| match e {
        AuthError::Http(m) | AuthError::Protocol(m) | AuthError::Denied(m) => m,
    })?;
    if !fetched.status.is_success() {
        return Err(format!("{} answered {}", quoted(url), fetched.status));
    }
    fetched.json().ok_or_else(|| format!("{} did not answer JSON", quoted(url)))
}

/// RFC 9728 discovery: the challenge's `resource_metadata`, else the path-based
/// well-known URL, else the root one. `None` when the server publishes none, with why
/// the hinted document could not be read.
async fn protected_resource_metadata(
    fetch: &Fetcher,
    server_url: &str,
    hinted: Option<&str>,
) -> Result<(Option<Value>, Option<String>), AuthError> {
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
    let mut hint_failure = None;
    for (i, url) in candidates.iter().enumerate() {
        match document(fetch, url).await {
            Ok(v) => return Ok((Some(v), hint_failure)),
            Err(why) if i == 0 && hinted.is_some() => hint_failure = Some(why),
            Err(_) => {}
        }
    }
    Ok((None, hint_failure))
}

/// RFC 8414 / OIDC discovery in the spec's order; the document's `issuer` must equal
/// the issuer exactly. PKCE S256 must be supported, unless the metadata advertises no
/// authorization endpoint at all (a server for machine-to-machine grants only). Without
/// any document (a 2025-03-26 server), the default endpoints at the issuer.
async fn authorization_server_metadata(
    fetch: &Fetcher,
    issuer: &str,
    strict: bool,
) -> Result<Value, AuthError> {
    let base =
        origin(issuer).ok_or_else(|| AuthError::Protocol(format!("invalid issuer {}", quoted(issuer))))?;
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
    let mut failures = Vec::new();
    for url in candidates {
        let metadata = match document(fetch, &url).await {
            Ok(metadata) => metadata,
            Err(why) => {
                failures.push(why);
                continue;
            }
        };
        if metadata.get("issuer").and_then(Value::as_str) != Some(issuer) {
            let named: String = metadata
                .get("issuer")
                .map_or_else(|| "none".into(), Value::to_string)
                .chars()
                .take(256)
                .collect();
            return Err(AuthError::Protocol(format!(
                "the authorization server metadata at {} names issuer {named}, not {}",
                quoted(&url),
                quoted(issuer)
            )));
        }
        return Ok(metadata);
    }
    if strict {
        return Err(AuthError::Protocol(format!(
            "no authorization server metadata found for {} ({})",
            quoted(issuer),
            failures.join("; ")
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

/// Refuses an authorization server that cannot do PKCE S256 (checked before the
/// authorization code flow, the only one that uses it).
pub(crate) fn require_pkce_s256(metadata: &Value) -> Result<(), AuthError> {
    let s256 = metadata
        .get("code_challenge_methods_supported")
        .and_then(Value::as_array)
        .is_some_and(|m| m.iter().any(|v| v == "S256"));
    if s256 {
        Ok(())
    } else {
        Err(AuthError::Protocol("the authorization server does not support PKCE S256".into()))
    }
}

/// The longest `client_id` or `client_secret` taken from a registration: the id goes
/// into every authorization URL shown to the user, and both go into the token store.
const MAX_REGISTERED_BYTES: usize = 4096;

/// Dynamic Client Registration (RFC 7591) with `application_type` (native for a
/// loopback redirect, else web); a `client_id` that is empty, or one or a
/// `client_secret` over [`MAX_REGISTERED_BYTES`], is refused.
pub(crate) async fn register(
    fetch: &Fetcher,
    metadata: &Value,
    client_name: &str,
    redirect_uri: &str,
) -> Result<ClientCredentials, AuthError> {
    let endpoint = metadata.get("registration_endpoint").and_then(Value::as_str).ok_or_else(|| {
        AuthError::Protocol(
            "the authorization server offers no client registration; pre-register a client".into(),
        )
    })?;
    let loopback =
        ["http://localhost", "http://127.0.0.1", "http://[::1]"].iter().any(|p| redirect_uri.starts_with(p));
    let request = json!({
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "client_secret_basic",
        "application_type": if loopback { "native" } else { "web" },
    });
    let response = fetch.post_json(endpoint, &request).await?;
    let registered = match response.json() {
        Some(v) if response.status.is_success() => v,
        _ => return Err(AuthError::Protocol(format!("client registration failed: {}", response.status))),
    };
    let text = |name: &str| registered.get(name).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id")
        .ok_or_else(|| AuthError::Protocol("the registration response has no client_id".into()))?;
    // An empty secret is none (a public client's registration may say so).
    let client_secret = text("client_secret").filter(|s| !s.is_empty());
    for (name, value) in [("client_id", Some(&client_id)), ("client_secret", client_secret.as_ref())] {
        if value.is_some_and(|v| v.is_empty() || v.len() > MAX_REGISTERED_BYTES) {
            let size = value.map_or(0, String::len);
            return Err(AuthError::Protocol(format!(
                "the registration response's {name} is {size} bytes (1 to {MAX_REGISTERED_BYTES} taken)"
            )));
        }
    }
    Ok(ClientCredentials {
        client_id,
        client_secret,
        token_endpoint_auth_method: text("token_endpoint_auth_method"),
        signing_key: None,
        redirect_uri: Some(redirect_uri.to_owned()),
        // RFC 7591 §3.2.1: when the secret expires (0: never); kept so that a stored
        // registration with an expired secret is replaced.
        client_secret_expires_at: registered.get("client_secret_expires_at").and_then(Value::as_u64),
    })
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
    fn canonical_resource_drops_query_fragment_and_trailing_slash() {
        assert_eq!(canonical_resource("http://h:1/mcp/?a=1#x"), "http://h:1/mcp");
        assert_eq!(canonical_resource("http://h:1"), "http://h:1");
    }
}
