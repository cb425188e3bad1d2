//! Authorization (OAuth 2.1) for Streamable HTTP, in two halves that sit above the
//! transports they serve. The client half ([`OAuthClient`]) gets an access token when a
//! server answers `401`/`403`: it is the HTTP client transport's
//! [`AuthHook`](crate::transport::http_client::AuthHook), given to
//! [`HttpClientTransport::oauth`](crate::transport::http_client::HttpClientTransport::oauth).
//! The server half ([`server`]) checks bearer tokens in front of the HTTP endpoint.
//!
//! The client runs the authorization code flow with PKCE by default, or a
//! machine-to-machine [`Grant`] (`client_credentials` with a secret or `private_key_jwt`,
//! the `jwt-bearer` grant of workload identity, enterprise-managed ID-JAG); binds tokens
//! with DPoP when the authorization server supports it; refreshes them; and keeps them
//! in a [`TokenStore`]. [`login()`] is the CLI's interactive login.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//!
//! use mcpwire::auth::{LoopbackRedirect, OAuthClient, OAuthConfig};
//! use mcpwire::client::Client;
//! use mcpwire::transport::http_client::HttpClientTransport;
//!
//! // Logs in through the browser on the first 401, then sends the token with every request.
//! let oauth = OAuthClient::new(OAuthConfig {
//!     authorizer: Arc::new(LoopbackRedirect::bind()?),
//!     ..OAuthConfig::default()
//! });
//! let transport = HttpClientTransport::new("https://mcp.example.com/mcp")?.oauth(oauth);
//! let client = Client::builder("my-client", "1.0.0").connect(transport).await?;
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! `crates/mcpwire/examples/oauth_login.rs` is the whole program.

mod authorizer;
mod challenge;
mod client;
mod code_flow;
mod credentials;
mod discovery;
mod dpop;
mod fetch;
mod grant;
mod hook;
mod jose;
mod login;
mod loopback;
#[cfg(feature = "auth")]
pub mod server;
mod store;
mod token_endpoint;

pub use authorizer::{AuthorizationHandler, FetchRedirect};
pub use challenge::Challenge;
pub use client::{DpopPolicy, OAuthClient, OAuthConfig};
pub use credentials::ClientCredentials;
pub use grant::{
    AssertionSource, Grant, IdentityProvider, StaticAssertion, JWT_BEARER_GRANT, TOKEN_EXCHANGE_GRANT,
};
pub use jose::SigningKey;
pub use login::{login, LoginOptions};
pub use loopback::{print_and_open, LoopbackRedirect, UrlOpener};
pub use store::{FileTokenStore, MemoryTokenStore, TokenStore, Tokens};

/// Why authorization failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AuthError {
    /// An HTTP exchange with the authorization or resource server failed.
    #[error("authorization HTTP request failed: {0}")]
    Http(String),
    /// A server broke the protocol (missing metadata, mismatched issuer or resource...).
    #[error("authorization failed: {0}")]
    Protocol(String),
    /// The authorization server or the user refused.
    #[error("authorization denied: {0}")]
    Denied(String),
}
