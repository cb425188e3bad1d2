//! Interactive login for command-line programs (`mcpwire login URL`): ask the server
//! without a token, and when it answers `401`, authorize through the user's browser and
//! a [`LoopbackRedirect`], keeping the tokens (and the client registration) in a
//! [`FileTokenStore`] that later connections read.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use http::Method;
use serde_json::json;

use super::client::{OAuthClient, OAuthConfig};
use super::credentials::ClientCredentials;
use super::discovery::canonical_resource;
use super::fetch::Fetcher;
use super::loopback::{LoopbackRedirect, UrlOpener};
use super::store::{FileTokenStore, TokenStore, Tokens};
use super::AuthError;

/// How [`login`] runs.
#[derive(Clone)]
pub struct LoginOptions {
    /// The token store file (default [`FileTokenStore::default_path`]).
    pub store_path: Option<PathBuf>,
    /// The client name sent in Dynamic Client Registration.
    pub client_name: String,
    /// An HTTPS URL of this client's Client ID Metadata Document, if it has one.
    pub client_metadata_url: Option<String>,
    /// Pre-registered credentials, if the server's authorization server needs them.
    pub pre_registered: Option<(Option<String>, ClientCredentials)>,
    /// How long to wait for the user (default 5 minutes).
    pub timeout: Duration,
    /// Shows the authorization URL (default: print it and try to open a browser).
    pub opener: Option<UrlOpener>,
}

impl Default for LoginOptions {
    fn default() -> Self {
        LoginOptions {
            store_path: None,
            client_name: "mcpwire".into(),
            client_metadata_url: None,
            pre_registered: None,
            timeout: Duration::from_secs(300),
            opener: None,
        }
    }
}

impl std::fmt::Debug for LoginOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginOptions").field("store_path", &self.store_path).finish_non_exhaustive()
    }
}

/// Logs in to the protected MCP server at `url` and returns the tokens, which are also
/// saved in the file store (replacing older ones). Any stored token is ignored: this is
/// a fresh login. Fails when the server does not ask for authorization, and when the
/// tokens could not be saved (a login is for the runs that read them).
pub async fn login(url: &str, options: LoginOptions) -> Result<Tokens, AuthError> {
    let path = options
        .store_path
        .clone()
        .or_else(FileTokenStore::default_path)
        .ok_or_else(|| AuthError::Protocol("no token store path (set HOME or XDG_CONFIG_HOME)".into()))?;
    let mut handler = LoopbackRedirect::bind()?.with_timeout(options.timeout);
    if let Some(opener) = options.opener.clone() {
        handler = handler.with_opener(move |u| opener(u));
    }
    let store = Arc::new(FileTokenStore::new(path));
    let client = OAuthClient::new(OAuthConfig {
        redirect_uri: handler.redirect_uri().to_owned(),
        client_name: options.client_name,
        client_metadata_url: options.client_metadata_url,
        pre_registered: options.pre_registered,
        authorizer: Arc::new(handler),
        store: store.clone(),
        ..OAuthConfig::default()
    });
    // An unauthenticated initialize: a protected server answers 401 before anything else.
    let probe = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "mcpwire-login", "version": env!("CARGO_PKG_VERSION") },
        },
    });
    let headers = [("accept", "application/json, text/event-stream".to_owned())];
    let response = Fetcher::default()
        .send(Method::POST, url, &headers, Some(("application/json", probe.to_string().into_bytes())))
        .await?;
    if response.status != http::StatusCode::UNAUTHORIZED {
        return Err(AuthError::Protocol(format!(
            "{url} answered {} without a token: it does not ask for authorization",
            response.status
        )));
    }
    client.authorize_anew(url, &response.headers).await?;
    let tokens =
        client.tokens().ok_or_else(|| AuthError::Protocol("the authorization produced no token".into()))?;
    keep(store, url, &tokens).await?;
    Ok(tokens)
}

/// Saves the tokens of the resource at `url` again, to learn whether they are kept: the
/// client only warns when a save fails (its tokens in memory still serve), but a login's
/// tokens are for later runs.
async fn keep(store: Arc<FileTokenStore>, url: &str, tokens: &Tokens) -> Result<(), AuthError> {
    let (key, saved) = (canonical_resource(url), tokens.clone());
    let why = match tokio::task::spawn_blocking(move || store.save_tokens(&key, Some(&saved))).await {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(AuthError::Http(why) | AuthError::Protocol(why) | AuthError::Denied(why))) => why,
        Err(_) => "the save did not finish".to_owned(),
    };
    Err(AuthError::Protocol(format!("logged in, but the tokens could not be saved: {why}")))
}
