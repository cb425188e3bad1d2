//! Authorization (OAuth 2.1) for Streamable HTTP: the client side, which gets an access
//! token when a server answers `401`/`403`, used by
//! [`HttpClientTransport::oauth`](crate::transport::http_client::HttpClientTransport::oauth).

mod challenge;
mod client;
mod fetch;
#[cfg(feature = "auth")]
pub mod server;

pub use challenge::Challenge;
pub use client::{AuthorizationHandler, ClientCredentials, FetchRedirect, OAuthClient, OAuthConfig};

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
