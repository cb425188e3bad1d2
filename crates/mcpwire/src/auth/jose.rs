//! The little JOSE the OAuth client needs: signing compact JWTs with ES256 or RS256 keys
//! (client assertions for `private_key_jwt`, RFC 7523, and DPoP proofs, RFC 9449), the
//! public JWK of an EC key, and the base64url, clock and random helpers around them.
//! Signing only: the client never verifies a JWT (the servers do). The signatures are
//! `jsonwebtoken`'s; ring generates DPoP keys and gives their public points. Without the
//! `auth` feature no key can be made, so every signing path reports an error.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
#[cfg(feature = "auth")]
use jsonwebtoken::{Algorithm, EncodingKey};
#[cfg(feature = "auth")]
use ring::rand::SystemRandom;
#[cfg(feature = "auth")]
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
#[cfg(feature = "auth")]
use serde_json::json;
use serde_json::Value;

use super::AuthError;

/// base64url without padding (JOSE's encoding).
pub(crate) fn b64url(bytes: impl AsRef<[u8]>) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Seconds since the Unix epoch.
pub(crate) fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// A random identifier (128 bits, base64url) for `jti` claims, `state` and the like.
pub(crate) fn random_id() -> Result<String, AuthError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|_| AuthError::Protocol("no randomness".into()))?;
    Ok(b64url(bytes))
}

/// The key as `jsonwebtoken` signs with it, and for an EC key its public point.
#[cfg(feature = "auth")]
enum Key {
    /// The uncompressed SEC1 point `04 || x || y` beside the signing key.
    Es256(EncodingKey, Vec<u8>),
    Rs256(EncodingKey),
}

/// Without `ring` there are no keys.
#[cfg(not(feature = "auth"))]
enum Key {}

/// A private key that signs JWTs: ECDSA P-256 (`ES256`) or RSA (`RS256`), read from an
/// unencrypted PKCS#8 document (PEM `-----BEGIN PRIVATE KEY-----` or DER) or generated.
pub struct SigningKey {
    key: Key,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey").field("alg", &self.alg()).finish_non_exhaustive()
    }
}

impl SigningKey {
    /// Reads a PKCS#8 private key in PEM. `alg` (`ES256` or `RS256`) names the
    /// algorithm; `None` tries both.
    pub fn from_pem(pem: &str, alg: Option<&str>) -> Result<SigningKey, AuthError> {
        let body: String =
            pem.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("-----")).collect();
        if pem.contains("BEGIN EC PRIVATE KEY") || pem.contains("BEGIN RSA PRIVATE KEY") {
            return Err(AuthError::Protocol(
                "the private key must be PKCS#8 (BEGIN PRIVATE KEY), not SEC1/PKCS#1".into(),
            ));
        }
        let der = STANDARD
            .decode(body.as_bytes())
            .map_err(|e| AuthError::Protocol(format!("the private key PEM is not base64: {e}")))?;
        SigningKey::from_pkcs8_der(&der, alg)
    }

    /// Reads a PKCS#8 private key in DER (see [`from_pem`](Self::from_pem)).
    #[cfg(not(feature = "auth"))]
    pub fn from_pkcs8_der(_der: &[u8], _alg: Option<&str>) -> Result<SigningKey, AuthError> {
        Err(AuthError::Protocol("JWT signing needs mcpwire's `auth` feature".into()))
    }

    /// A fresh ECDSA P-256 key (for DPoP, one per client).
    #[cfg(not(feature = "auth"))]
    pub fn generate_es256() -> Result<SigningKey, AuthError> {
        SigningKey::from_pkcs8_der(&[], None)
    }

    #[cfg(not(feature = "auth"))]
    pub(crate) fn generate_es256_pkcs8() -> Result<Vec<u8>, AuthError> {
        Err(AuthError::Protocol("JWT signing needs mcpwire's `auth` feature".into()))
    }

    /// The JWS `alg` this key signs with.
    #[cfg(not(feature = "auth"))]
    pub fn alg(&self) -> &'static str {
        match self.key {}
    }

    #[cfg(not(feature = "auth"))]
    pub(crate) fn public_jwk(&self) -> Option<Value> {
        match self.key {}
    }

    #[cfg(not(feature = "auth"))]
    pub(crate) fn sign_jwt(&self, _header: Value, _claims: &Value) -> Result<String, AuthError> {
        match self.key {}
    }

    /// Reads a PKCS#8 private key in DER (see [`from_pem`](Self::from_pem)).
    #[cfg(feature = "auth")]
    pub fn from_pkcs8_der(der: &[u8], alg: Option<&str>) -> Result<SigningKey, AuthError> {
        let key = match alg {
            Some("ES256") => es256(der),
            Some("RS256") => rs256(der),
            Some(other) => Err(format!("unsupported signing algorithm {other:?} (ES256 or RS256)")),
            None => es256(der).or_else(|_| rs256(der)),
        }
        .map_err(|e| AuthError::Protocol(format!("unusable private key: {e}")))?;
        Ok(SigningKey { key })
    }

    /// A fresh ECDSA P-256 key (for DPoP, one per client).
    #[cfg(feature = "auth")]
    pub fn generate_es256() -> Result<SigningKey, AuthError> {
        SigningKey::from_pkcs8_der(&Self::generate_es256_pkcs8()?, Some("ES256"))
    }

    /// A fresh ECDSA P-256 key as PKCS#8 DER (to keep, then load with
    /// [`SigningKey::from_pkcs8_der`]).
    #[cfg(feature = "auth")]
    pub(crate) fn generate_es256_pkcs8() -> Result<Vec<u8>, AuthError> {
        let document = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
            .map_err(|_| AuthError::Protocol("cannot generate a P-256 key".into()))?;
        Ok(document.as_ref().to_vec())
    }

    /// The JWS `alg` this key signs with.
    #[cfg(feature = "auth")]
    pub fn alg(&self) -> &'static str {
        match self.key {
            Key::Es256(..) => "ES256",
            Key::Rs256(_) => "RS256",
        }
    }

    /// The public key as a JWK (EC keys only: the members RFC 7638 hashes, in its order).
    #[cfg(feature = "auth")]
    pub(crate) fn public_jwk(&self) -> Option<Value> {
        let Key::Es256(_, point) = &self.key else { return None };
        if point.len() != 65 {
            return None;
        }
        Some(json!({
            "crv": "P-256",
            "kty": "EC",
            "x": b64url(&point[1..33]),
            "y": b64url(&point[33..]),
        }))
    }

    /// The compact JWS of `claims` with `header` (whose `alg` is set to this key's).
    #[cfg(feature = "auth")]
    pub(crate) fn sign_jwt(&self, mut header: Value, claims: &Value) -> Result<String, AuthError> {
        if let Some(h) = header.as_object_mut() {
            h.insert("alg".into(), Value::from(self.alg()));
        }
        let input = format!("{}.{}", b64url(header.to_string()), b64url(claims.to_string()));
        let (key, alg) = match &self.key {
            Key::Es256(key, _) => (key, Algorithm::ES256),
            Key::Rs256(key) => (key, Algorithm::RS256),
        };
        let signature = jsonwebtoken::crypto::sign(input.as_bytes(), key, alg)
            .map_err(|e| AuthError::Protocol(format!("{} signing failed: {e}", self.alg())))?;
        Ok(format!("{input}.{signature}"))
    }
}

/// An ES256 key from PKCS#8 DER. ring reads it first, which checks it and gives the
/// public point that `jsonwebtoken` does not expose.
#[cfg(feature = "auth")]
fn es256(der: &[u8]) -> Result<Key, String> {
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, &SystemRandom::new())
        .map_err(|e| e.to_string())?;
    Ok(Key::Es256(EncodingKey::from_ec_der(der), pair.public_key().as_ref().to_vec()))
}

/// An RS256 key from PKCS#8 DER, which `jsonwebtoken` reads from PEM only.
#[cfg(feature = "auth")]
fn rs256(der: &[u8]) -> Result<Key, String> {
    let pem = format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n", STANDARD.encode(der));
    let key = EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(|e| e.to_string())?;
    // Refused now rather than at the first signature: jsonwebtoken only stores the bytes.
    ring::signature::RsaKeyPair::from_pkcs8(der).map_err(|e| e.to_string())?;
    Ok(Key::Rs256(key))
}

#[cfg(all(test, feature = "auth"))]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    /// Splits a compact JWS, checks its ES256 signature against the JWK in `jwk` with
    /// ring, and returns (header, claims).
    pub(crate) fn verify_es256(jwt: &str, jwk: &Value) -> (Value, Value) {
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3, "a compact JWS has three parts");
        let decode = |s: &str| URL_SAFE_NO_PAD.decode(s).unwrap();
        let mut point = vec![4u8];
        point.extend(decode(jwk["x"].as_str().unwrap()));
        point.extend(decode(jwk["y"].as_str().unwrap()));
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &decode(parts[2]))
            .expect("the ES256 signature verifies");
        let header = serde_json::from_slice(&decode(parts[0])).unwrap();
        let claims = serde_json::from_slice(&decode(parts[1])).unwrap();
        (header, claims)
    }

    #[test]
    fn es256_jwt_verifies_with_its_public_jwk() {
        let key = SigningKey::generate_es256().unwrap();
        let jwk = key.public_jwk().unwrap();
        let jwt = key.sign_jwt(json!({"typ": "JWT"}), &json!({"sub": "me"})).unwrap();
        let (header, claims) = verify_es256(&jwt, &jwk);
        assert_eq!(header, json!({"typ": "JWT", "alg": "ES256"}));
        assert_eq!(claims, json!({"sub": "me"}));
    }

    #[test]
    fn rs256_jwt_from_an_rsa_pkcs8_key_verifies() {
        use ring::signature::RSA_PKCS1_2048_8192_SHA256;
        // A throwaway 2048-bit test key (openssl genpkey), used nowhere else.
        let key = SigningKey::from_pem(include_str!("rs256_test_key.pem"), None).unwrap();
        assert_eq!(key.alg(), "RS256");
        assert!(key.public_jwk().is_none(), "DPoP keys are EC keys");
        let jwt = key.sign_jwt(json!({}), &json!({"iss": "cid"})).unwrap();
        // The public key from ring, independently of the signer.
        let der = STANDARD
            .decode(
                include_str!("rs256_test_key.pem")
                    .lines()
                    .filter(|l| !l.starts_with("-----"))
                    .collect::<String>(),
            )
            .unwrap();
        let pair = ring::signature::RsaKeyPair::from_pkcs8(&der).unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, pair.public().as_ref())
            .verify(
                format!("{}.{}", parts[0], parts[1]).as_bytes(),
                &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .expect("the RS256 signature verifies");
        assert_eq!(URL_SAFE_NO_PAD.decode(parts[0]).unwrap(), br#"{"alg":"RS256"}"#);
        assert!(SigningKey::from_pem(include_str!("rs256_test_key.pem"), Some("ES256")).is_err());
    }

    #[test]
    fn reads_a_pkcs8_pem_and_refuses_garbage() {
        let rng = SystemRandom::new();
        let der = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let b64 = STANDARD.encode(der.as_ref());
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n{}\n-----END PRIVATE KEY-----\n",
            &b64[..40],
            &b64[40..]
        );
        assert_eq!(SigningKey::from_pem(&pem, Some("ES256")).unwrap().alg(), "ES256");
        assert_eq!(SigningKey::from_pem(&pem, None).unwrap().alg(), "ES256");
        assert!(SigningKey::from_pem(&pem, Some("RS256")).is_err());
        assert!(SigningKey::from_pem(&pem, Some("HS256")).is_err());
        assert!(
            SigningKey::from_pem("-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----", None).is_err()
        );
        assert!(SigningKey::from_pem(
            "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----",
            None
        )
        .is_err());
    }
}
