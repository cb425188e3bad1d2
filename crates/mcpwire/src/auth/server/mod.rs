//! Authorization for MCP servers (OAuth 2.1 resource servers): bearer-token validation
//! and the Protected Resource Metadata document.
//!
//! - [`TokenVerifier`] checks a token and returns its [`TokenClaims`]; two are provided:
//!   [`JwtVerifier`] (JWTs signed with a key of the authorization server's JWK Set:
//!   RS256, PS256, ES256, EdDSA) and [`IntrospectionVerifier`] (RFC 7662). Both require
//!   the token's audience to name this server (RFC 8707).
//! - [`BearerAuthLayer`] wraps the endpoint: requests without a valid token get `401`,
//!   tokens lacking a required scope `403 insufficient_scope`, each with the
//!   `WWW-Authenticate` challenge that sends clients to the metadata. Accepted requests
//!   carry the [`Principal`](crate::Principal) (the token's subject, else its client)
//!   and the [`TokenClaims`] in their extensions: 2025 sessions are bound to the
//!   principal that created them (another principal's requests get `404`), and handlers
//!   read the principal from [`Ctx::extensions`](crate::server::Ctx::extensions) (the
//!   endpoint hands handlers the principal and the headers; the claims reach only the
//!   services between the layer and the endpoint for now).
//!   A [scope policy](BearerAuthLayer::scope_policy) can ask for more scopes per
//!   request from the MCP messages of its body ([`McpCall`]: method and tool, prompt or
//!   resource), read the same way in both eras.
//! - [`ResourceMetadata`] and [`MetadataRouter`] serve the RFC 9728 document at
//!   `/.well-known/oauth-protected-resource` and its path-suffixed form, without a token.
//! - [`serve_service`] runs the composed service.
//!
//! # Example
//!
//! ```no_run
//! use mcpwire::auth::server::{serve_service, BearerAuthLayer, JwtVerifier, MetadataRouter, ResourceMetadata};
//! use mcpwire::http::McpService;
//! use mcpwire::server::{tool, Ctx, Server};
//! use mcpwire::Principal;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("files", "1.0.0")
//!     .tool(tool("whoami").description("Who is calling").handler(|ctx: Ctx| async move {
//!         ctx.extensions().get::<Principal>().map(|p| p.0.clone()).unwrap_or_default()
//!     }))
//!     .build()?;
//!
//! let resource = "http://127.0.0.1:8000/mcp";
//! let issuer = "https://auth.example.com";
//! let mut metadata = ResourceMetadata::new(resource, issuer);
//! metadata.scopes_supported = vec!["files:read".into()];
//!
//! // The JWK Set URL is read from the issuer's metadata; tokens must name `resource` in `aud`.
//! let verifier = JwtVerifier::from_issuer(issuer, resource);
//! let auth = BearerAuthLayer::new(verifier, metadata.url()).required_scopes(["files:read"]);
//! let app = MetadataRouter::new(&metadata, auth.layer(McpService::new(server)));
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
//! let bound = serve_service(listener, app)?;
//! let _ = bound.task.await;
//! # Ok(())
//! # }
//! ```

mod body;
mod claims;
mod introspection;
mod jwks;
mod jwt;
mod layer;
mod metadata;
mod policy;
mod serve;

pub use body::AuthResponseBody;
pub use claims::{ClaimRules, TokenClaims, TokenError, TokenVerifier, VerifyFuture};
pub use introspection::IntrospectionVerifier;
pub use jwks::Algorithm;
pub use jwt::JwtVerifier;
pub use layer::{BearerAuth, BearerAuthLayer, RequestBody};
pub use metadata::{MetadataRouter, ResourceMetadata, WELL_KNOWN_PREFIX};
pub use policy::{McpCall, ScopePolicy};
pub use serve::serve_service;
