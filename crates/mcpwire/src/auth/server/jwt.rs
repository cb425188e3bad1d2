//! [`JwtVerifier`]: access tokens that are JWTs (RFC 9068) signed by the authorization
//! server (JWS compact form, RFC 7515), checked against its published keys.

use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{Map, Value};

use super::claims::{ClaimRules, TokenClaims, TokenError, TokenVerifier, VerifyFuture};
use super::jwks::{Algorithm, CachePolicy, JwksSource, KeyCache};

/// The longest token considered (longer ones are refused unread), by this verifier and
/// by introspection (which would send it to the authorization server).
pub(super) const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// Verifies JWT access tokens: the signature (with a key of the issuer's JWK Set and an
/// allowed algorithm; `alg: none` never is), `exp`/`nbf` with a leeway, `iss`, and `aud`
/// (it must contain the server's resource identifier).
///
/// The key set is cached for [`jwks_ttl`](Self::jwks_ttl) (default 10 minutes) and
/// refetched on an unknown `kid` at most once per
/// [`min_refetch_interval`](Self::min_refetch_interval) (default 30 s); each fetch is
/// bounded by [`fetch_timeout`](Self::fetch_timeout) (default 5 s) and 1 MiB.
pub struct JwtVerifier {
    keys: KeyCache,
    rules: ClaimRules,
    algorithms: Vec<Algorithm>,
    require_at_jwt: bool,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("rules", &self.rules)
            .field("algorithms", &self.algorithms)
            .finish()
    }
}

const DEFAULT_POLICY: CachePolicy = CachePolicy {
    ttl: Duration::from_secs(600),
    min_refetch: Duration::from_secs(30),
    fetch_timeout: Duration::from_secs(5),
};

impl JwtVerifier {
    /// Tokens of `issuer` for `audience` (the server's canonical resource URI), signed by
    /// a key of the JWK Set at `jwks_url`.
    pub fn new(jwks_url: impl Into<String>, issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self::with_source(JwksSource::Url(jwks_url.into()), issuer.into(), audience.into())
    }

    /// Like [`new`](Self::new), reading `jwks_uri` from the issuer's authorization server
    /// metadata (RFC 8414, else OpenID Connect discovery) on first use.
    pub fn from_issuer(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        let issuer = issuer.into();
        Self::with_source(JwksSource::Issuer(issuer.clone()), issuer, audience.into())
    }

    fn with_source(source: JwksSource, issuer: String, audience: String) -> Self {
        let mut rules = ClaimRules::new(audience);
        rules.issuer = Some(issuer);
        JwtVerifier {
            keys: KeyCache::new(source, DEFAULT_POLICY),
            rules,
            algorithms: Algorithm::ALL.to_vec(),
            require_at_jwt: false,
        }
    }

    /// The allowed signature algorithms (default: all of [`Algorithm::ALL`]).
    pub fn algorithms(mut self, algorithms: &[Algorithm]) -> Self {
        self.algorithms = algorithms.to_vec();
        self
    }

    /// Requires the RFC 9068 header `typ: at+jwt` (or `application/at+jwt`), which keeps
    /// other JWTs of the same issuer (ID tokens...) from passing as access tokens. Off by
    /// default: many authorization servers still write `typ: JWT`.
    pub fn require_at_jwt_typ(mut self, require: bool) -> Self {
        self.require_at_jwt = require;
        self
    }

    /// Adjusts the claim checks: the leeway (default 60 s), more accepted audiences,
    /// the required issuer...
    pub fn claim_rules(mut self, edit: impl FnOnce(&mut ClaimRules)) -> Self {
        edit(&mut self.rules);
        self
    }

    /// How long a fetched key set is trusted before it is fetched again (default 10 min).
    pub fn jwks_ttl(mut self, ttl: Duration) -> Self {
        let policy = CachePolicy { ttl, ..self.keys.policy() };
        self.keys.set_policy(policy);
        self
    }

    /// The least time between two fetches of the key set (default 30 s): tokens naming
    /// unknown keys within it are refused without asking the authorization server.
    pub fn min_refetch_interval(mut self, interval: Duration) -> Self {
        let policy = CachePolicy { min_refetch: interval, ..self.keys.policy() };
        self.keys.set_policy(policy);
        self
    }

    /// The longest a fetch of the key set (metadata discovery included) may take
    /// (default 5 s).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        let policy = CachePolicy { fetch_timeout: timeout, ..self.keys.policy() };
        self.keys.set_policy(policy);
        self
    }

    async fn check(&self, token: &str) -> Result<TokenClaims, TokenError> {
        let invalid = |m: &str| TokenError::Invalid(m.to_owned());
        if token.len() > MAX_TOKEN_BYTES {
            return Err(invalid("the token is too long"));
        }
        let mut parts = token.split('.');
        let (Some(header_b64), Some(payload_b64), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid("not a JWS in compact form"));
        };
        let header =
            decode_object(header_b64).ok_or_else(|| invalid("the JOSE header is not a JSON object"))?;
        let alg_name = header.get("alg").and_then(Value::as_str).unwrap_or("");
        let alg = Algorithm::from_name(alg_name)
            .filter(|a| self.algorithms.contains(a))
            .ok_or_else(|| TokenError::Invalid(format!("algorithm {alg_name:?} is not allowed")))?;
        let typ = header.get("typ").and_then(Value::as_str).map(str::to_ascii_lowercase);
        if self.require_at_jwt && !matches!(typ.as_deref(), Some("at+jwt" | "application/at+jwt")) {
            return Err(invalid("the token is not typed at+jwt"));
        }
        if header.contains_key("crit") {
            return Err(invalid("critical header parameters are not supported"));
        }
        let kid = match header.get("kid") {
            None => None,
            Some(Value::String(kid)) => Some(kid.as_str()),
            Some(_) => return Err(invalid("kid is not a string")),
        };
        let keys = self.keys.candidates(kid, alg).await?;
        let signed = &token.as_bytes()[..header_b64.len() + 1 + payload_b64.len()];
        if !keys.iter().any(|k| k.verifies(alg, signed, signature)) {
            return Err(invalid("bad signature"));
        }
        let claims = decode_object(payload_b64).ok_or_else(|| invalid("the claims are not a JSON object"))?;
        self.rules.check(claims)
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}

/// A base64url (unpadded) JSON object.
fn decode_object(part: &str) -> Option<Map<String, Value>> {
    let bytes = URL_SAFE_NO_PAD.decode(part).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}
