//! [`IntrospectionVerifier`]: opaque access tokens checked by asking the authorization
//! server (RFC 7662), with a short, size-bounded cache of positive answers so that a busy
//! server does not ask once per request.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::claims::{now_secs, ClaimRules, TokenClaims, TokenError, TokenVerifier, VerifyFuture};
use crate::auth::fetch::{encode, Fetcher};

/// Verifies tokens at the authorization server's introspection endpoint, authenticating
/// with `client_secret_basic`. The answer must say `active: true`; then `exp`/`nbf`,
/// `aud` (it must contain the server's resource identifier) and, when set with
/// [`claim_rules`](Self::claim_rules), `iss` are checked as for a JWT.
///
/// Active answers are cached by the token's SHA-256 for [`cache_ttl`](Self::cache_ttl)
/// (default 30 s, never past the token's `exp`), at most
/// [`cache_capacity`](Self::cache_capacity) entries (default 1,000); refusals are not
/// cached. Each request is bounded by [`timeout`](Self::timeout) (default 5 s) and 1 MiB.
pub struct IntrospectionVerifier {
    endpoint: String,
    authorization: String,
    rules: ClaimRules,
    fetcher: Fetcher,
    timeout: Duration,
    cache_ttl: Duration,
    cache_capacity: usize,
    cache: Mutex<HashMap<[u8; 32], (TokenClaims, Instant)>>,
}

impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("endpoint", &self.endpoint)
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

impl IntrospectionVerifier {
    /// Asks `endpoint` as the client `client_id`/`client_secret` about tokens that must be
    /// for `audience` (the server's canonical resource URI).
    pub fn new(
        endpoint: impl Into<String>,
        client_id: &str,
        client_secret: &str,
        audience: impl Into<String>,
    ) -> Self {
        // RFC 6749 §2.3.1: both halves are form-encoded before base64.
        let credentials = STANDARD.encode(format!("{}:{}", encode(client_id), encode(client_secret)));
        let mut rules = ClaimRules::new(audience);
        rules.require_exp = false;
        IntrospectionVerifier {
            endpoint: endpoint.into(),
            authorization: format!("Basic {credentials}"),
            rules,
            fetcher: Fetcher::default(),
            timeout: Duration::from_secs(5),
            cache_ttl: Duration::from_secs(30),
            cache_capacity: 1000,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Adjusts the claim checks: the leeway (default 60 s), more accepted audiences,
    /// the required issuer...
    pub fn claim_rules(mut self, edit: impl FnOnce(&mut ClaimRules)) -> Self {
        edit(&mut self.rules);
        self
    }

    /// The longest one introspection request may take (default 5 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long an active answer is reused (default 30 s; zero disables the cache).
    /// Revocation takes up to this long to be noticed.
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// The most cached answers (default 1,000).
    pub fn cache_capacity(mut self, capacity: usize) -> Self {
        self.cache_capacity = capacity;
        self
    }

    async fn check(&self, token: &str) -> Result<TokenClaims, TokenError> {
        if token.len() > super::jwt::MAX_TOKEN_BYTES {
            return Err(TokenError::Invalid("the token is too long".into()));
        }
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(claims) = self.cached(&key) {
            return Ok(claims);
        }
        let fields = [("token", token.to_owned()), ("token_type_hint", "access_token".to_owned())];
        let headers = [("authorization", self.authorization.clone())];
        let fetched =
            tokio::time::timeout(self.timeout, self.fetcher.post_form(&self.endpoint, &fields, &headers))
                .await
                .map_err(|_| TokenError::Unavailable("the introspection request timed out".into()))?
                .map_err(|e| TokenError::Unavailable(e.to_string()))?;
        if !fetched.status.is_success() {
            return Err(TokenError::Unavailable(format!(
                "the introspection endpoint answered {}",
                fetched.status
            )));
        }
        let Some(Value::Object(answer)) = fetched.json() else {
            return Err(TokenError::Unavailable("the introspection answer is not a JSON object".into()));
        };
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(TokenError::Invalid("the token is not active".into()));
        }
        let claims = self.rules.check(answer)?;
        self.remember(key, &claims);
        Ok(claims)
    }

    fn cached(&self, key: &[u8; 32]) -> Option<TokenClaims> {
        let mut cache = self.cache.lock().ok()?;
        match cache.get(key) {
            Some((claims, until)) if Instant::now() < *until => Some(claims.clone()),
            Some(_) => {
                cache.remove(key);
                None
            }
            None => None,
        }
    }

    fn remember(&self, key: [u8; 32], claims: &TokenClaims) {
        let left = claims.expires_at.map(|exp| Duration::from_secs(exp.saturating_sub(now_secs())));
        let ttl = left.map_or(self.cache_ttl, |left| left.min(self.cache_ttl));
        if ttl.is_zero() || self.cache_capacity == 0 {
            return;
        }
        let Ok(mut cache) = self.cache.lock() else { return };
        if cache.len() >= self.cache_capacity {
            let now = Instant::now();
            cache.retain(|_, (_, until)| now < *until);
        }
        if cache.len() >= self.cache_capacity {
            if let Some(victim) = cache.keys().next().copied() {
                cache.remove(&victim);
            }
        }
        cache.insert(key, (claims.clone(), Instant::now() + ttl));
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}
