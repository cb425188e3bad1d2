//! The [`OAuthClient`]'s credentials at an authorization server: which to use (kept,
//! pre-registered, stored, a Client ID Metadata Document, or a new Dynamic Client
//! Registration), and what to do when the server answers `invalid_client` (RFC 6749
//! §5.2): a registration it no longer knows (expired or deleted) is forgotten and made
//! again, once; pre-registered credentials are the user's, never forgotten, and their
//! refusal is reported.

use serde_json::Value;

use super::{OAuthClient, State};
use crate::auth::credentials::ClientCredentials;
use crate::auth::discovery::{register, Discovered};
use crate::auth::jose::now_secs;
use crate::auth::token_endpoint::Refused;
use crate::auth::AuthError;

impl OAuthClient {
    /// Whether stored credentials fit this client: a registration made for another
    /// redirect URI is replaced, but not one that differs in a loopback listener's port
    /// alone (it changes from run to run, and OAuth 2.1 has the authorization server take
    /// any port there): the client that got a saved refresh token is the one that
    /// presents it. A registration whose secret has expired (`client_secret_expires_at`
    /// passed, RFC 7591 §3.2.1) is replaced too.
    fn still_registered(&self, c: &ClientCredentials) -> bool {
        let redirect_fits = !self.config.grant.is_interactive()
            || c.redirect_uri
                .as_deref()
                .is_none_or(|registered| same_redirect(registered, &self.redirect_uri()));
        redirect_fits && !c.secret_expired(now_secs())
    }

    /// The credentials the store keeps for `issuer`, if they still fit this client (read
    /// off the async runtime); an error when the store does not answer.
    async fn stored_client(&self, issuer: &str) -> Result<Option<ClientCredentials>, AuthError> {
        let issuer = issuer.to_owned();
        let stored = self.store.call("load_client", move |s| s.load_client(&issuer)).await?;
        Ok(stored.filter(|c| self.still_registered(c)))
    }

    /// The credentials configured for `issuer`, if any.
    fn pre_registered(&self, issuer: &str) -> Option<&ClientCredentials> {
        let configured = self.config.pre_registered.as_ref();
        configured.filter(|(i, _)| i.as_deref().is_none_or(|i| i == issuer)).map(|(_, c)| c)
    }

    /// Credentials at the discovered issuer: kept ones, pre-registered ones, stored
    /// ones, a Client ID Metadata Document, or Dynamic Client Registration. A kept or
    /// stored registration whose secret has expired is not used.
    pub(super) async fn credentials(
        &self,
        state: &mut State,
        discovered: &Discovered,
    ) -> Result<ClientCredentials, AuthError> {
        let issuer = discovered.issuer.as_str();
        let pre_registered = self.pre_registered(issuer);
        let kept = state.credentials.get(issuer);
        if let Some(c) = kept.filter(|c| pre_registered.is_some() || !c.secret_expired(now_secs())) {
            return Ok(c.clone());
        }
        let c = if let Some(c) = pre_registered {
            c.clone()
        } else if let Some(c) = self.stored_client(issuer).await? {
            c
        } else if !self.config.grant.is_interactive() {
            return Err(AuthError::Protocol(format!(
                "no pre-registered client credentials for {}",
                crate::auth::fetch::quoted(issuer)
            )));
        } else if let (Some(true), Some(url)) = (
            discovered.metadata.get("client_id_metadata_document_supported").and_then(Value::as_bool),
            &self.config.client_metadata_url,
        ) {
            ClientCredentials {
                client_id: url.clone(),
                token_endpoint_auth_method: Some("none".into()),
                ..ClientCredentials::default()
            }
        } else {
            self.register_client(discovered).await?
        };
        state.remember_credentials(issuer, &c);
        Ok(c)
    }

    /// Dynamic Client Registration at the discovered server, saved in the store (a
    /// store that fails to save it leaves it for this client's life only).
    async fn register_client(&self, discovered: &Discovered) -> Result<ClientCredentials, AuthError> {
        let c = register(&self.fetch, &discovered.metadata, &self.config.client_name, &self.redirect_uri())
            .await?;
        let (issuer, saved) = (discovered.issuer.clone(), c.clone());
        let saving = self.store.call("save_client", move |s| s.save_client(&issuer, &saved));
        if let Err(e) = saving.await.and_then(|saved| saved) {
            tracing::warn!("could not save the client registration: {e}");
        }
        Ok(c)
    }

    /// What follows a refusal of the token or authorization endpoint to a flow that used
    /// `used`. Any error but `invalid_client` is returned as it is. On `invalid_client`:
    /// pre-registered credentials (and a Client ID Metadata Document, which is not a
    /// registration) are reported as refused and kept; a registration is forgotten, in
    /// memory and in the store, and, unless `*registered_again` (this authorization
    /// already registered once) or the grant has no user to register for, a new one is
    /// made and returned, setting `*registered_again`: one new registration per
    /// authorization, never a loop.
    pub(super) async fn after_refusal(
        &self,
        state: &mut State,
        discovered: &Discovered,
        used: &ClientCredentials,
        refused: Refused,
        registered_again: &mut bool,
    ) -> Result<ClientCredentials, AuthError> {
        let Refused { error, invalid_client } = refused;
        if !invalid_client {
            return Err(error);
        }
        let issuer = discovered.issuer.as_str();
        let shown = crate::auth::fetch::quoted(&used.client_id);
        if self.pre_registered(issuer).is_some() {
            return Err(AuthError::Denied(format!(
                "the authorization server does not accept the pre-registered client {shown} (invalid_client); check the configured client credentials ({error})"
            )));
        }
        if self.config.client_metadata_url.as_deref() == Some(used.client_id.as_str()) {
            return Err(AuthError::Denied(format!(
                "the authorization server does not accept the client metadata document {shown} (invalid_client) ({error})"
            )));
        }
        self.forget_client(state, issuer).await;
        if *registered_again || !self.config.grant.is_interactive() {
            return Err(AuthError::Denied(format!(
                "the authorization server does not accept the client {shown} (invalid_client), and it was forgotten ({error})"
            )));
        }
        *registered_again = true;
        tracing::info!("the authorization server no longer knows client {shown}; registering again");
        let c = self.register_client(discovered).await?;
        state.remember_credentials(issuer, &c);
        Ok(c)
    }

    /// Forgets the registration at `issuer`, kept and stored (a store that does not
    /// answer is warned about: the next registration replaces it there).
    async fn forget_client(&self, state: &mut State, issuer: &str) {
        state.credentials.remove(issuer);
        let issuer = issuer.to_owned();
        let forgetting = self.store.call("forget_client", move |s| s.forget_client(&issuer));
        if let Err(e) = forgetting.await.and_then(|forgotten| forgotten) {
            tracing::warn!("could not forget the refused client registration: {e}");
        }
    }
}

/// Whether two redirect URIs name the same place, as an authorization server compares
/// them: equal, or loopback IP URIs (`http://127.0.0.1`, `http://[::1]`) that differ in
/// their port alone (OAuth 2.1's rule, which leaves `localhost` out).
fn same_redirect(registered: &str, current: &str) -> bool {
    if registered == current {
        return true;
    }
    let (Ok(a), Ok(b)) = (registered.parse::<http::Uri>(), current.parse::<http::Uri>()) else {
        return false;
    };
    let loopback = |u: &http::Uri| {
        u.scheme_str() == Some("http") && matches!(u.host(), Some("127.0.0.1" | "[::1]" | "::1"))
    };
    loopback(&a) && loopback(&b) && a.host() == b.host() && a.path_and_query() == b.path_and_query()
}

#[cfg(test)]
mod redirect_tests {
    use super::same_redirect;

    #[test]
    fn a_loopback_redirect_is_the_same_on_any_port() {
        assert!(same_redirect("http://127.0.0.1:5000/callback", "http://127.0.0.1:6123/callback"));
        assert!(same_redirect("http://[::1]:1/cb", "http://[::1]:2/cb"));
        assert!(!same_redirect("http://localhost:1/cb", "http://localhost:2/cb"), "a name, not an IP");
        assert!(same_redirect("https://app.example/cb", "https://app.example/cb"));
        assert!(!same_redirect("http://127.0.0.1:5000/callback", "http://127.0.0.1:5000/other"));
        assert!(!same_redirect("http://127.0.0.1:5000/cb", "http://[::1]:5000/cb"), "another host");
        assert!(!same_redirect("https://app.example:1/cb", "https://app.example:2/cb"), "not loopback");
        assert!(!same_redirect("http://10.0.0.1:1/cb", "http://10.0.0.1:2/cb"), "not loopback");
    }
}
