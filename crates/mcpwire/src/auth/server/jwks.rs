//! The authorization server's signing keys (a JWK Set, RFC 7517) as `jsonwebtoken`
//! decoding keys: fetched from `jwks_uri` (given, or read from the authorization server's metadata),
//! cached for a TTL, and refetched when a token names an unknown `kid`, at most once per
//! interval so that a flood of made-up `kid`s cannot hammer the authorization server.

use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, PublicKeyUse};
use jsonwebtoken::DecodingKey;
use serde_json::Value;

use super::claims::TokenError;
use crate::auth::fetch::{origin, path, Fetcher};

/// The most keys kept from one JWK Set (the rest are ignored).
const MAX_KEYS: usize = 64;

/// A JWS signature algorithm this crate verifies (RFC 7518 names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (keys of 2048 to 8192 bits).
    RS256,
    /// RSASSA-PSS with SHA-256 (keys of 2048 to 8192 bits).
    PS256,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// Ed25519.
    EdDSA,
}

impl Algorithm {
    /// Every supported algorithm (the default allow-list).
    pub const ALL: [Algorithm; 4] = [Algorithm::RS256, Algorithm::PS256, Algorithm::ES256, Algorithm::EdDSA];

    /// The algorithm a JWS `alg` names; `none` and unknown names are `None`.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        match name {
            "RS256" => Some(Algorithm::RS256),
            "PS256" => Some(Algorithm::PS256),
            "ES256" => Some(Algorithm::ES256),
            "EdDSA" => Some(Algorithm::EdDSA),
            _ => None,
        }
    }

    /// The JWS name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::RS256 => "RS256",
            Algorithm::PS256 => "PS256",
            Algorithm::ES256 => "ES256",
            Algorithm::EdDSA => "EdDSA",
        }
    }

    /// The same algorithm as `jsonwebtoken` names it.
    fn to_jwt(self) -> jsonwebtoken::Algorithm {
        match self {
            Algorithm::RS256 => jsonwebtoken::Algorithm::RS256,
            Algorithm::PS256 => jsonwebtoken::Algorithm::PS256,
            Algorithm::ES256 => jsonwebtoken::Algorithm::ES256,
            Algorithm::EdDSA => jsonwebtoken::Algorithm::EdDSA,
        }
    }
}

/// The kinds of key this crate verifies with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Rsa,
    P256,
    Ed25519,
}

/// One verification key of the set.
#[derive(Clone)]
pub(crate) struct Jwk {
    kid: Option<String>,
    alg: Option<String>,
    kind: Kind,
    key: DecodingKey,
}

impl std::fmt::Debug for Jwk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jwk")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .field("kind", &self.kind)
            .finish()
    }
}

impl Jwk {
    /// Parses one JWK (as `jsonwebtoken` reads it); keys of unsupported types or curves,
    /// keys that do not parse, and encryption keys are `None`.
    fn parse(value: &Value) -> Option<Jwk> {
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(value.clone()).ok()?;
        if jwk.common.public_key_use.as_ref().is_some_and(|u| *u != PublicKeyUse::Signature) {
            return None;
        }
        let (kind, key) = match &jwk.algorithm {
            // Some servers write the modulus with a leading zero byte, which ring refuses.
            AlgorithmParameters::RSA(rsa) => {
                let (n, e) = (URL_SAFE_NO_PAD.decode(&rsa.n).ok()?, URL_SAFE_NO_PAD.decode(&rsa.e).ok()?);
                (Kind::Rsa, DecodingKey::from_rsa_raw_components(strip_zeros(&n), strip_zeros(&e)))
            }
            AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => {
                (Kind::P256, DecodingKey::from_jwk(&jwk).ok()?)
            }
            AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
                (Kind::Ed25519, DecodingKey::from_jwk(&jwk).ok()?)
            }
            _ => return None,
        };
        Some(Jwk {
            kid: jwk.common.key_id.clone(),
            alg: value.get("alg").and_then(Value::as_str).map(str::to_owned),
            kind,
            key,
        })
    }

    /// Whether this key can check a signature made with `alg`.
    fn fits(&self, alg: Algorithm) -> bool {
        let kind_fits = matches!(
            (self.kind, alg),
            (Kind::Rsa, Algorithm::RS256 | Algorithm::PS256)
                | (Kind::P256, Algorithm::ES256)
                | (Kind::Ed25519, Algorithm::EdDSA)
        );
        kind_fits && self.alg.as_deref().is_none_or(|a| a == alg.name())
    }

    /// Whether `signature` (base64url, as in the token) is this key's `alg` signature of
    /// `message`.
    pub(crate) fn verifies(&self, alg: Algorithm, message: &[u8], signature: &str) -> bool {
        self.fits(alg)
            && jsonwebtoken::crypto::verify(signature, message, &self.key, alg.to_jwt()).unwrap_or(false)
    }
}

fn strip_zeros(bytes: &[u8]) -> &[u8] {
    let zeros = bytes.iter().take_while(|b| **b == 0).count();
    &bytes[zeros..]
}

/// Parses a JWK Set document, keeping the usable keys (at most [`MAX_KEYS`]).
pub(crate) fn parse_set(document: &Value) -> Option<Vec<Jwk>> {
    let keys = document.get("keys")?.as_array()?;
    Some(keys.iter().filter_map(Jwk::parse).take(MAX_KEYS).collect())
}

/// Where the keys are published.
#[derive(Clone, Debug)]
pub(crate) enum JwksSource {
    /// A JWK Set URL.
    Url(String),
    /// An issuer whose metadata (RFC 8414, then OpenID Connect discovery) names
    /// `jwks_uri`.
    Issuer(String),
}

/// Cache timings and fetch bounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CachePolicy {
    pub(crate) ttl: Duration,
    pub(crate) min_refetch: Duration,
    pub(crate) fetch_timeout: Duration,
}

/// The keys as last fetched.
#[derive(Default)]
struct Snapshot {
    keys: Vec<Jwk>,
    fetched_at: Option<Instant>,
}

/// What only the (single) fetching task touches.
#[derive(Default)]
struct FetchState {
    /// The resolved JWK Set URL.
    jwks_uri: Option<String>,
    /// When the last fetch ended (not began: tasks that waited for it must not start
    /// another at once, one after the other, each up to the fetch timeout).
    last_attempt: Option<Instant>,
    /// Why the last fetch failed, while no fetch has succeeded since: a token no known key
    /// matches is then undecided (`503`), not invalid.
    last_failure: Option<TokenError>,
}

/// The cached key set. Verifications read the snapshot without waiting; a fetch holds
/// the fetch lock, so concurrent verifications that need one wait for it (bounded by the
/// fetch timeout) instead of each starting their own, while tokens of known keys go on.
pub(crate) struct KeyCache {
    source: JwksSource,
    policy: CachePolicy,
    fetcher: Fetcher,
    snapshot: std::sync::RwLock<Snapshot>,
    fetching: tokio::sync::Mutex<FetchState>,
}

impl KeyCache {
    pub(crate) fn new(source: JwksSource, policy: CachePolicy) -> Self {
        KeyCache {
            source,
            policy,
            fetcher: Fetcher::default(),
            snapshot: Default::default(),
            fetching: Default::default(),
        }
    }

    pub(crate) fn set_policy(&mut self, policy: CachePolicy) {
        self.policy = policy;
    }

    pub(crate) fn policy(&self) -> CachePolicy {
        self.policy
    }

    /// The fresh keys matching `kid` and `alg` (none when the snapshot is stale).
    fn lookup(&self, kid: Option<&str>, alg: Algorithm) -> (Vec<Jwk>, bool) {
        let Ok(snapshot) = self.snapshot.read() else { return (Vec::new(), false) };
        let fresh = snapshot.fetched_at.is_some_and(|t| t.elapsed() < self.policy.ttl);
        let found = snapshot
            .keys
            .iter()
            .filter(|k| k.fits(alg) && (kid.is_none() || k.kid.as_deref() == kid))
            .cloned()
            .collect();
        (found, fresh)
    }

    /// The keys that may have signed a token with this `kid` (any key when the token
    /// names none) and `alg`. Fetches when the cache is empty, stale, or lacks the
    /// `kid`, unless the last attempt was less than `min_refetch` ago.
    pub(crate) async fn candidates(&self, kid: Option<&str>, alg: Algorithm) -> Result<Vec<Jwk>, TokenError> {
        let (found, fresh) = self.lookup(kid, alg);
        if fresh && !found.is_empty() {
            return Ok(found);
        }
        let mut state = self.fetching.lock().await;
        // Another task may have fetched while this one waited.
        let (found, fresh) = self.lookup(kid, alg);
        if fresh && !found.is_empty() {
            return Ok(found);
        }
        let may_fetch = state.last_attempt.is_none_or(|t| t.elapsed() >= self.policy.min_refetch);
        if may_fetch {
            let fetched =
                tokio::time::timeout(self.policy.fetch_timeout, self.fetch(&mut state.jwks_uri)).await;
            state.last_attempt = Some(Instant::now());
            state.last_failure = match fetched {
                Ok(Ok(keys)) => {
                    if let Ok(mut snapshot) = self.snapshot.write() {
                        *snapshot = Snapshot { keys, fetched_at: Some(Instant::now()) };
                    }
                    None
                }
                Ok(Err(e)) => Some(e),
                Err(_) => Some(TokenError::Unavailable("fetching the JWK Set timed out".into())),
            };
        }
        // Stale keys still serve when a refetch failed or was not due; with none that
        // matches, a failed fetch (this one or the last, not yet due again) leaves the
        // token undecided.
        let (found, _) = self.lookup(kid, alg);
        match &state.last_failure {
            _ if !found.is_empty() => Ok(found),
            Some(e) => Err(e.clone()),
            None => Err(TokenError::Invalid("no known key matches the token's kid and alg".into())),
        }
    }

    /// Fetches the key set, resolving (and remembering) `jwks_uri` first if needed.
    async fn fetch(&self, jwks_uri: &mut Option<String>) -> Result<Vec<Jwk>, TokenError> {
        let uri = match (&self.source, jwks_uri.as_ref()) {
            (_, Some(uri)) => uri.clone(),
            (JwksSource::Url(url), None) => url.clone(),
            (JwksSource::Issuer(issuer), None) => self.discover_jwks_uri(issuer).await?,
        };
        *jwks_uri = Some(uri.clone());
        let document = self.get_json(&uri).await?;
        parse_set(&document).ok_or_else(|| TokenError::Unavailable(format!("{uri} is not a JWK Set")))
    }

    /// `jwks_uri` from the issuer's RFC 8414 metadata, else its OpenID configuration;
    /// the document's `issuer` must be the issuer asked about.
    async fn discover_jwks_uri(&self, issuer: &str) -> Result<String, TokenError> {
        let base = origin(issuer).ok_or_else(|| TokenError::Unavailable(format!("bad issuer {issuer:?}")))?;
        let candidates = [
            format!("{base}/.well-known/oauth-authorization-server{}", path(issuer)),
            format!("{}/.well-known/openid-configuration", issuer.trim_end_matches('/')),
        ];
        for url in candidates {
            let Ok(metadata) = self.get_json(&url).await else { continue };
            if metadata.get("issuer").and_then(Value::as_str) != Some(issuer) {
                continue;
            }
            if let Some(uri) = metadata.get("jwks_uri").and_then(Value::as_str) {
                return Ok(uri.to_owned());
            }
        }
        Err(TokenError::Unavailable(format!("no metadata of {issuer} names a jwks_uri")))
    }

    async fn get_json(&self, url: &str) -> Result<Value, TokenError> {
        let fetched = self.fetcher.get(url).await.map_err(|e| TokenError::Unavailable(e.to_string()))?;
        if !fetched.status.is_success() {
            return Err(TokenError::Unavailable(format!("{url} answered {}", fetched.status)));
        }
        fetched.json().ok_or_else(|| TokenError::Unavailable(format!("{url} did not answer JSON")))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_supported_keys_and_skips_the_rest() {
        let b = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        let set = json!({"keys": [
            {"kty": "RSA", "kid": "r", "n": b(&[0, 0, 1, 2]), "e": b(&[1, 0, 1])},
            {"kty": "EC", "crv": "P-256", "kid": "e", "x": b(&[1; 32]), "y": b(&[2; 32]), "alg": "ES256"},
            {"kty": "EC", "crv": "P-384", "x": b(&[1; 48]), "y": b(&[2; 48])},
            {"kty": "OKP", "crv": "Ed25519", "kid": "o", "x": b(&[3; 32])},
            {"kty": "OKP", "crv": "Ed25519", "use": "enc", "x": b(&[3; 32])},
            {"kty": "oct", "k": b(b"secret")}
        ]});
        let keys = parse_set(&set).unwrap();
        assert_eq!(keys.len(), 3);
        assert_eq!(keys.iter().map(|k| k.kind).collect::<Vec<_>>(), [Kind::Rsa, Kind::P256, Kind::Ed25519]);
        assert_eq!(
            keys.iter().map(|k| k.kid.as_deref()).collect::<Vec<_>>(),
            [Some("r"), Some("e"), Some("o")]
        );
        assert!(keys[0].fits(Algorithm::PS256) && !keys[0].fits(Algorithm::ES256));
        assert!(keys[1].fits(Algorithm::ES256) && !keys[1].fits(Algorithm::EdDSA));
        assert!(keys[2].fits(Algorithm::EdDSA));
        assert!(parse_set(&json!({"keys": {}})).is_none());
        assert_eq!(Algorithm::from_name("none"), None);
        assert_eq!(Algorithm::from_name("HS256"), None);
    }
}
