//! A client's credentials at one authorization server: what registration gives and the
//! token endpoint's client authentication uses.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::jose::SigningKey;

/// Client credentials at one authorization server.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ClientCredentials {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `none`, `client_secret_basic`, `client_secret_post` or `private_key_jwt`. By
    /// default: `private_key_jwt` with a signing key; with a secret, basic (post when
    /// the server supports only that); else `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// The private key of `private_key_jwt` (RFC 7523): client assertions are signed
    /// with it. Never stored.
    #[serde(skip)]
    pub signing_key: Option<Arc<SigningKey>>,
    /// The redirect URI these credentials were registered with (Dynamic Client
    /// Registration), so that a stored registration for another one is not reused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
}
