//! DPoP (RFC 9449): one ES256 key per client proves possession on every token request
//! and every resource request. A proof is a `dpop+jwt` carrying the public `jwk`, the
//! request's `htm` and `htu` (no query, no fragment), `iat`, a fresh `jti`, `ath` (the
//! hash of the access token) on resource requests, and the latest `nonce` the server at
//! that origin handed out (`DPoP-Nonce`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::fetch::origin;
use super::jose::{b64url, now_secs, random_id, SigningKey};
use super::AuthError;

/// The most origins whose nonces are remembered (a client talks to a handful).
const MAX_NONCES: usize = 64;
/// The longest nonce kept (servers send short opaque strings).
const MAX_NONCE_LEN: usize = 1024;

/// The DPoP key of one client and the nonces its servers asked for. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Dpop {
    key: Arc<SigningKey>,
    jwk: Value,
    /// The last `DPoP-Nonce` per origin (authorization server and resource server apart).
    nonces: Arc<Mutex<HashMap<String, String>>>,
    /// A fresh key's PKCS#8, until the token store has it.
    unsaved: Arc<Mutex<Option<Vec<u8>>>>,
}

/// The `htu` of a URL: the URL without its query and fragment.
pub(crate) fn htu(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    &url[..end]
}

impl Dpop {
    /// A fresh ES256 key.
    #[cfg(test)]
    pub(crate) fn generate() -> Result<Dpop, AuthError> {
        Self::of(SigningKey::generate_es256()?, None)
    }

    /// The key a token store kept (`stored`, an ES256 key as PKCS#8), or a fresh one, which
    /// the token store keeps once tokens are bound to it ([`Dpop::take_unsaved`]): tokens bound to the key in one
    /// process stay usable in the next (a resource server rejects a proof signed by any
    /// other key, RFC 9449 §7.1).
    pub(crate) fn stored_or_new(stored: Option<Vec<u8>>) -> Result<Dpop, AuthError> {
        if let Some(der) = stored {
            match SigningKey::from_pkcs8_der(&der, Some("ES256")) {
                Ok(key) => return Self::of(key, None),
                Err(e) => tracing::debug!("the stored DPoP key is unusable, making another: {e}"),
            }
        }
        let der = SigningKey::generate_es256_pkcs8()?;
        Self::of(SigningKey::from_pkcs8_der(&der, Some("ES256"))?, Some(der))
    }

    /// A fresh key's PKCS#8, once, for the token store to keep: tokens bound to it are
    /// about to be saved.
    pub(crate) fn take_unsaved(&self) -> Option<Vec<u8>> {
        self.unsaved.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    fn of(key: SigningKey, unsaved: Option<Vec<u8>>) -> Result<Dpop, AuthError> {
        let jwk = key.public_jwk().ok_or_else(|| AuthError::Protocol("no public JWK".into()))?;
        Ok(Dpop { key: Arc::new(key), jwk, nonces: Arc::default(), unsaved: Arc::new(Mutex::new(unsaved)) })
    }

    /// Whether `pkcs8` (a key a token store keeps) is this key: tokens bound to it can
    /// be proved with this one.
    pub(crate) fn is_key(&self, pkcs8: &[u8]) -> bool {
        let stored = SigningKey::from_pkcs8_der(pkcs8, Some("ES256")).ok();
        stored.and_then(|key| key.public_jwk()).is_some_and(|jwk| jwk == self.jwk)
    }

    /// The public key's JWK.
    #[cfg(test)]
    pub(crate) fn jwk(&self) -> &Value {
        &self.jwk
    }

    /// Remembers the nonce a server at `url`'s origin asked for. Returns whether it
    /// changed (a new nonce is worth a retry; the same one again is not).
    pub(crate) fn set_nonce(&self, url: &str, nonce: &str) -> bool {
        let Some(origin) = origin(url) else { return false };
        if nonce.is_empty() || nonce.len() > MAX_NONCE_LEN || !nonce.is_ascii() {
            return false;
        }
        let mut nonces = self.nonces.lock().unwrap_or_else(PoisonError::into_inner);
        if nonces.len() >= MAX_NONCES && !nonces.contains_key(&origin) {
            nonces.clear();
        }
        nonces.insert(origin, nonce.to_owned()).as_deref() != Some(nonce)
    }

    /// Takes the `DPoP-Nonce` of a response from `url`, if any (see
    /// [`set_nonce`](Self::set_nonce)).
    pub(crate) fn take_nonce_header(&self, url: &str, headers: &http::HeaderMap) -> bool {
        match headers.get("dpop-nonce").and_then(|v| v.to_str().ok()) {
            Some(nonce) => self.set_nonce(url, nonce.trim()),
            None => false,
        }
    }

    /// A proof for a `method` request to `url`, bound to `access_token` when given.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<String, AuthError> {
        let mut claims = json!({
            "jti": random_id()?,
            "htm": method,
            "htu": htu(url),
            "iat": now_secs(),
        });
        if let Some(token) = access_token {
            claims["ath"] = Value::from(b64url(Sha256::digest(token.as_bytes())));
        }
        let nonce = origin(url)
            .and_then(|o| self.nonces.lock().unwrap_or_else(PoisonError::into_inner).get(&o).cloned());
        if let Some(nonce) = nonce {
            claims["nonce"] = Value::from(nonce);
        }
        self.key.sign_jwt(json!({ "typ": "dpop+jwt", "jwk": self.jwk }), &claims)
    }
}

#[cfg(all(test, feature = "auth"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::auth::jose::tests::verify_es256;

    #[test]
    fn proof_has_the_rfc_9449_structure_and_verifies() {
        let dpop = Dpop::generate().unwrap();
        let before = now_secs();
        let proof = dpop.proof("POST", "http://127.0.0.1:9/mcp?x=1#frag", Some("tok")).unwrap();
        let after = now_secs();
        let (header, claims) = verify_es256(&proof, dpop.jwk());
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"], *dpop.jwk());
        assert!(header["jwk"].get("d").is_none(), "never the private key");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "http://127.0.0.1:9/mcp");
        assert_eq!(claims["ath"], b64url(Sha256::digest(b"tok")));
        assert!((before..=after).contains(&claims["iat"].as_u64().unwrap()), "{claims}");
        assert!(claims.get("nonce").is_none());
        let again = dpop.proof("POST", "http://127.0.0.1:9/mcp", Some("tok")).unwrap();
        let (_, again) = verify_es256(&again, dpop.jwk());
        assert_ne!(claims["jti"], again["jti"], "every proof has its own jti");
        // No access token (a token request): no ath.
        let (_, token_request) =
            verify_es256(&dpop.proof("POST", "http://as/token", None).unwrap(), dpop.jwk());
        assert!(token_request.get("ath").is_none());
    }

    /// A stored key is recognised as this key only when it is: tokens bound to another
    /// key (another process's) are not sent with this one's proofs.
    #[test]
    fn a_stored_key_is_this_key_only_when_it_is() {
        let dpop = Dpop::stored_or_new(None).unwrap();
        let der = dpop.take_unsaved().unwrap();
        assert!(dpop.is_key(&der));
        assert!(Dpop::stored_or_new(Some(der.clone())).unwrap().is_key(&der), "loaded from the store");
        let other = Dpop::stored_or_new(None).unwrap().take_unsaved().unwrap();
        assert!(!dpop.is_key(&other));
        assert!(!dpop.is_key(b"not a key"));
    }

    #[test]
    fn nonces_are_kept_per_origin() {
        let dpop = Dpop::generate().unwrap();
        assert!(dpop.set_nonce("http://as:1/token", "n1"));
        assert!(!dpop.set_nonce("http://as:1/other", "n1"), "the same nonce again is no news");
        assert!(!dpop.set_nonce("http://as:1/token", ""));
        let (_, at_as) = verify_es256(&dpop.proof("POST", "http://as:1/token", None).unwrap(), dpop.jwk());
        assert_eq!(at_as["nonce"], "n1");
        let (_, at_rs) = verify_es256(&dpop.proof("POST", "http://rs:2/mcp", None).unwrap(), dpop.jwk());
        assert!(at_rs.get("nonce").is_none());
        let mut headers = http::HeaderMap::new();
        headers.insert("DPoP-Nonce", http::HeaderValue::from_static("n2"));
        assert!(dpop.take_nonce_header("http://rs:2/mcp", &headers));
        let (_, at_rs) = verify_es256(&dpop.proof("GET", "http://rs:2/mcp", None).unwrap(), dpop.jwk());
        assert_eq!(at_rs["nonce"], "n2");
    }
}
