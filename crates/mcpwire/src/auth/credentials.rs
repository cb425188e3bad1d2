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
    /// When the registered `client_secret` expires (seconds since the Unix epoch; `0`:
    /// never), from the registration response (RFC 7591 §3.2.1). A stored registration
    /// whose secret has expired is not used: the client registers again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_expires_at: Option<u64>,
}

impl ClientCredentials {
    /// Whether the secret has expired at `now` (seconds since the Unix epoch): there is
    /// one, and its `client_secret_expires_at` is neither `0` (never) nor later.
    pub fn secret_expired(&self, now: u64) -> bool {
        self.client_secret.is_some() && self.client_secret_expires_at.is_some_and(|at| at != 0 && at <= now)
    }
}
