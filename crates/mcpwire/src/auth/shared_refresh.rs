//! Renewing tokens that other clients share through the token store (two `mcpwire`
//! commands, two programs over one file). An authorization server that rotates refresh
//! tokens (OAuth 2.1 §4.3.1) takes each once: after another client sharing the store
//! has refreshed, the refresh token this one holds is spent, and presenting it again is
//! refused (and may make the server revoke the whole grant). So the store is read before
//! each refresh: tokens saved there since are taken up (their access token as it is
//! while it has not expired, else their refresh token is the one presented); a refresh
//! refused all the same reads the store again, for tokens saved in between.

use super::{OAuthClient, Session};
use crate::auth::jose::now_secs;
use crate::auth::store::Tokens;
use crate::auth::token_endpoint::{self, parse_tokens, Refused};
use crate::auth::AuthError;

/// The most refresh requests one renewal makes: each with another refresh token (the
/// one held, or one the store has after another client rotated it).
const MAX_REFRESHES: usize = 3;

impl OAuthClient {
    /// Renews the tokens in use, whose access token `stale` was refused or is about to
    /// expire (`None`: there is none): takes up the tokens the store has, when another
    /// client saved them since and their access token is not `stale` and has not
    /// expired; else refreshes, with the refresh token the store has if it is new to
    /// this client, else with its own. A refused refresh reads the store again and tries
    /// a refresh token not tried yet, [`MAX_REFRESHES`] at most; `invalid_client` ends
    /// it at once (the client is registered again).
    pub(super) async fn renew(&self, session: &Session, stale: Option<&str>) -> Result<(), Refused> {
        let issuer = session.discovered.issuer.as_str();
        let mut tried: Vec<String> = Vec::new();
        let mut refused = None;
        for _ in 0..MAX_REFRESHES {
            let mine = self.tokens();
            let stored = self.stored_tokens(session).await.filter(|s| mine.as_ref() != Some(s));
            if let Some(saved) = &stored {
                let unexpired = saved.expires_at.is_none_or(|at| at > now_secs());
                if unexpired && Some(saved.access_token.as_str()) != stale {
                    self.take_up(saved.clone(), session);
                    return Ok(());
                }
            }
            // A refresh token the store has and this client does not: whoever saved it
            // most likely spent this client's own.
            let held = mine.as_ref().and_then(|m| m.refresh_token.as_ref());
            let old = match stored.filter(|s| s.refresh_token.is_some() && s.refresh_token.as_ref() != held) {
                Some(saved) => saved,
                None => match mine.filter(|m| m.issuer.as_deref() == Some(issuer)) {
                    Some(mine) => mine,
                    None => break,
                },
            };
            let Some(token) = old.refresh_token.clone().filter(|t| !tried.contains(t)) else { break };
            tried.push(token);
            match self.refresh(session, old).await {
                Ok(()) => return Ok(()),
                Err(e) if e.invalid_client => return Err(e),
                Err(e) => refused = Some(e),
            }
        }
        Err(refused.unwrap_or_else(|| AuthError::Protocol("no refresh token".into()).into()))
    }

    /// The tokens the store keeps for the session's resource, when this client can use
    /// them: granted by the session's authorization server, and, for DPoP-bound ones,
    /// with the DPoP key the store keeps being this client's. `None` too when the store
    /// does not answer (said in a warning): the tokens in memory are renewed.
    async fn stored_tokens(&self, session: &Session) -> Option<Tokens> {
        let key = session.key.clone();
        let read = self.store.call("load_tokens", move |s| {
            let tokens = s.load_tokens(&key)?;
            let dpop_key = if tokens.is_dpop() { s.load_dpop_key() } else { None };
            Some((tokens, dpop_key))
        });
        let (tokens, dpop_key) = read.await.unwrap_or_else(|e| {
            tracing::warn!("stored tokens not read again: {e}");
            None
        })?;
        let same_issuer = tokens.issuer.as_deref() == Some(session.discovered.issuer.as_str());
        let provable = !tokens.is_dpop()
            || dpop_key.is_some_and(|der| self.dpop().is_some_and(|dpop| dpop.is_key(&der)));
        (same_issuer && provable).then_some(tokens)
    }

    /// Uses tokens another client saved (not saved again: the store has them).
    fn take_up(&self, tokens: Tokens, session: &Session) {
        let mut current = self.current();
        current.tokens = Some(tokens);
        current.loaded = true;
        current.refreshed_ahead = false;
        current.received_at = now_secs();
        current.session = Some(session.clone());
    }

    /// The `refresh_token` grant (with `resource`) with the refresh token of `old`; keeps
    /// that refresh token when the answer carries no new one.
    async fn refresh(&self, session: &Session, old: Tokens) -> Result<(), Refused> {
        let refresh_token =
            old.refresh_token.clone().ok_or_else(|| AuthError::Protocol("no refresh token".into()))?;
        let fields = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh_token),
            ("resource", session.discovered.resource.clone()),
        ];
        let answer = token_endpoint::request(
            &self.fetch,
            self.session_dpop(session),
            &session.discovered,
            &session.credentials,
            fields,
        )
        .await?;
        let scopes = old.scope.as_deref().unwrap_or_default().split_whitespace().map(str::to_owned).collect();
        let proof_sent = self.session_dpop(session).is_some();
        let tokens =
            parse_tokens(&answer, &session.discovered.issuer, &scopes, old.refresh_token, proof_sent)?;
        self.set_tokens(&session.key, Some(tokens), Some(session.clone())).await;
        Ok(())
    }
}
