//! What a verified access token says (subject, client, scopes, audience, expiry), the
//! [`TokenVerifier`] trait that produces it, and the checks every verifier applies to the
//! claims whatever their source (a JWT payload or an introspection answer).

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

pub use crate::extensions::TokenClaims;

/// A boxed future, the return type of [`TokenVerifier::verify`] (keeps the trait usable
/// as `dyn TokenVerifier`).
pub type VerifyFuture<'a> = Pin<Box<dyn Future<Output = Result<TokenClaims, TokenError>> + Send + 'a>>;

/// Validates a bearer token and says what it grants. Implementations must check the
/// signature or ask the issuer, the expiry, the issuer and the audience (the token must
/// have been issued for this server, RFC 8707); the layer checks scopes itself.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token` (the bare token, without `Bearer `).
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;
}

impl<V: TokenVerifier + ?Sized> TokenVerifier for std::sync::Arc<V> {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        (**self).verify(token)
    }
}

/// Why a token was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// The token is malformed, forged, expired, revoked or not for this server: `401`
    /// with `error="invalid_token"`.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// The verifier could not decide (the authorization server is unreachable or answers
    /// nonsense): `503`, since the token may well be valid.
    #[error("token verification unavailable: {0}")]
    Unavailable(String),
}

/// The claim checks shared by the provided verifiers.
#[derive(Clone, Debug)]
pub struct ClaimRules {
    /// Accepted audiences: `aud` must contain one of them (normally the server's
    /// canonical resource URI, RFC 8707). Never empty in practice: an empty list refuses
    /// every token.
    pub audiences: Vec<String>,
    /// The required `iss`, when set.
    pub issuer: Option<String>,
    /// Whether `exp` must be present (JWTs: yes; introspection answers may omit it).
    pub require_exp: bool,
    /// Clock skew tolerated on `exp` and `nbf` (default 60 s).
    pub leeway: Duration,
}

impl ClaimRules {
    /// Rules for tokens meant for `audience`.
    pub fn new(audience: impl Into<String>) -> Self {
        ClaimRules {
            audiences: vec![audience.into()],
            issuer: None,
            require_exp: true,
            leeway: Duration::from_secs(60),
        }
    }

    /// Checks the claims and extracts the well-known ones.
    pub fn check(&self, claims: Map<String, Value>) -> Result<TokenClaims, TokenError> {
        let invalid = |m: &str| Err(TokenError::Invalid(m.to_owned()));
        let now = now_secs();
        let leeway = self.leeway.as_secs();
        let expires_at = match claims.get("exp") {
            Some(v) => match numeric_date(v) {
                Some(exp) => Some(exp),
                None => return invalid("exp is not a number"),
            },
            None if self.require_exp => return invalid("the token has no exp"),
            None => None,
        };
        if expires_at.is_some_and(|exp| now >= exp.saturating_add(leeway)) {
            return invalid("the token expired");
        }
        match claims.get("nbf").map(numeric_date) {
            Some(None) => return invalid("nbf is not a number"),
            Some(Some(nbf)) if now.saturating_add(leeway) < nbf => {
                return invalid("the token is not valid yet")
            }
            _ => {}
        }
        let issuer = claims.get("iss").and_then(Value::as_str).map(str::to_owned);
        if let Some(expected) = &self.issuer {
            if issuer.as_deref() != Some(expected.as_str()) {
                return invalid("the token comes from another issuer");
            }
        }
        let audience = strings(claims.get("aud"));
        if !audience.iter().any(|a| self.audiences.contains(a)) {
            return invalid("the token is not for this resource");
        }
        let scopes = match claims.get("scope") {
            Some(Value::String(s)) => s.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect(),
            _ => strings(claims.get("scp")),
        };
        // The identity claims are StringOrURI (RFC 7519 §4.1.2): one of another type, or
        // empty, is refused rather than read as absent (which would fall back to the client
        // id and bind unrelated users to one principal).
        for name in ["sub", "client_id", "azp"] {
            if claims.get(name).is_some_and(|v| v.as_str().is_none_or(str::is_empty)) {
                return invalid(&format!("{name} must be a non-empty string"));
            }
        }
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        Ok(TokenClaims {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            audience,
            issuer,
            expires_at,
            claims,
        })
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// A NumericDate (RFC 7519 §2): a number of seconds, possibly fractional; negative or
/// absurd values are not dates.
fn numeric_date(value: &Value) -> Option<u64> {
    match value.as_u64() {
        Some(n) => Some(n),
        None => value.as_f64().filter(|f| f.is_finite() && *f >= 0.0 && *f < 1e15).map(|f| f as u64),
    }
}

/// A string or an array of strings (`aud`, `scp`); other entries are skipped.
fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn claims(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn checks_expiry_audience_issuer_and_reads_scopes() {
        let mut rules = ClaimRules::new("http://rs/mcp");
        rules.issuer = Some("http://as".into());
        // Times outside the 60 s leeway are an hour away, so the clock ticking between
        // here and the checks cannot change an answer.
        let now = now_secs();
        let ok = rules
            .check(claims(json!({"iss": "http://as", "aud": ["x", "http://rs/mcp"], "exp": now + 100,
                "sub": "alice", "azp": "app", "scope": "a  b"})))
            .unwrap();
        assert_eq!(ok.scopes, ["a", "b"]);
        assert_eq!((ok.subject.as_deref(), ok.client_id.as_deref()), (Some("alice"), Some("app")));
        let scp = rules
            .check(claims(json!({"iss": "http://as", "aud": "http://rs/mcp", "exp": now, "scp": ["c"]})))
            .unwrap();
        assert_eq!(scp.scopes, ["c"]);
        let fail = |v: Value| rules.check(claims(v)).unwrap_err().to_string();
        assert!(
            fail(json!({"iss": "http://as", "aud": "http://rs/mcp", "exp": now - 3600})).contains("expired")
        );
        assert!(fail(json!({"iss": "http://as", "aud": "http://rs/mcp"})).contains("no exp"));
        // An identity claim that is not a non-empty string is refused, not read as absent
        // (a numeric `sub` would have fallen back to the client id, shared by many users).
        for (name, value) in
            [("sub", json!(123)), ("sub", json!("")), ("sub", json!(["a"])), ("client_id", json!(7))]
        {
            let mut token =
                json!({"iss": "http://as", "aud": "http://rs/mcp", "exp": now + 100, "client_id": "app"});
            token[name] = value;
            assert!(fail(token).contains(&format!("{name} must be a non-empty string")), "{name}");
        }
        assert!(fail(json!({"iss": "http://as", "aud": "http://rs/mcp", "exp": now + 9, "nbf": now + 3600}))
            .contains("not valid yet"));
        assert!(
            fail(json!({"iss": "http://evil", "aud": "http://rs/mcp", "exp": now + 9})).contains("issuer")
        );
        assert!(
            fail(json!({"iss": "http://as", "aud": "http://rs/mcp/", "exp": now + 9})).contains("resource")
        );
        assert!(fail(json!({"iss": "http://as", "aud": "http://rs/mcp", "exp": "soon"})).contains("exp"));
    }
}
