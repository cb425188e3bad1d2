//! Integrity protection for the multi-round-trip `requestState`.
//!
//! When a server answers a request with an `input_required` result it may
//! hand the client an opaque `requestState` string, which the client echoes
//! byte for byte when it retries the request. The string comes back from
//! the client, so it is attacker-controlled input. [`StateSealer`] turns a
//! server-side state string into a token that is
//!
//! * **authenticated** with HMAC-SHA256 (tags compared in constant time),
//! * **bound** to the request it was issued for ([`Binding`]: method,
//!   target, digest of the arguments, principal), so it cannot be replayed
//!   against another tool, prompt, resource, argument set or user,
//! * **time-limited** (default TTL [`DEFAULT_TTL`], ten minutes),
//! * **key-rotatable**: the first key seals, every key verifies.
//!
//! The state is *not encrypted*: the client can base64-decode it and read
//! the user state. Do not put secrets in it.
//!
//! # Token format (version 1)
//!
//! `base64url(payload) "." base64url(tag)`, both without padding, where
//!
//! ```text
//! payload = version:u8 (=1)
//!         | expires_at:u64 big-endian, milliseconds since the Unix epoch
//!         | binding_digest:[u8; 32]
//!         | has_state:u8 (0 or 1)
//!         | user_state: UTF-8 bytes (only when has_state = 1)
//! tag     = HMAC-SHA256(key, "mcpwire/requestState/v1\0" || payload)
//! ```
//!
//! [`StateSealer::open`] refuses tokens longer than [`MAX_TOKEN_LEN`]
//! before decoding anything, so a user state longer than roughly 48 KiB
//! produces a token that can never be opened.
//!
//! All [`StateError`] variants display the same generic message, meant to
//! be mapped to one JSON-RPC `-32602` "Invalid or expired requestState"
//! error; the variant itself (via `Debug`) is for server-side logs only.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

type HmacSha256 = Hmac<Sha256>;

/// Default lifetime of a sealed token: ten minutes.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);

/// Longest token, in bytes, that [`StateSealer::open`] will look at.
pub const MAX_TOKEN_LEN: usize = 64 * 1024;

const VERSION: u8 = 1;
const TAG_DOMAIN: &[u8] = b"mcpwire/requestState/v1\0";
const BINDING_DOMAIN: &[u8] = b"mcpwire/requestState/binding/v1\0";
const JSON_DOMAIN: &[u8] = b"mcpwire/json/v1\0";
const TAG_LEN: usize = 32;
/// Length of the base64url (unpadded) text of a 32-byte tag.
const TAG_B64_LEN: usize = 43;
/// version + expiry + binding digest + has_state flag.
const HEADER_LEN: usize = 1 + 8 + 32 + 1;

/// Why a `requestState` token was rejected.
///
/// Every variant displays the same generic message so that nothing about
/// the failure leaks to the client; use `Debug` in server logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    /// Not a token this module could have produced (empty, too long, bad
    /// encoding, wrong structure or version).
    Malformed,
    /// The authentication tag did not verify under any configured key.
    BadSignature,
    /// The token verified but its lifetime is over.
    Expired,
    /// The token verified but was issued for a different request
    /// (method, target, arguments or principal).
    WrongBinding,
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid or expired requestState")
    }
}

impl std::error::Error for StateError {}

/// Why a [`StateSealer`] could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// [`StateSealer::with_keys`] was given an empty key list.
    NoKeys,
    /// The operating system's random number generator failed.
    RandomUnavailable,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::NoKeys => f.write_str("at least one requestState key is required"),
            KeyError::RandomUnavailable => {
                f.write_str("could not generate a requestState key: system randomness unavailable")
            }
        }
    }
}

impl std::error::Error for KeyError {}

/// What a sealed `requestState` is bound to: the request it was issued for.
///
/// A token sealed for one binding is rejected with
/// [`StateError::WrongBinding`] when opened with any other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding<'a> {
    /// JSON-RPC method, e.g. `"tools/call"`.
    pub method: &'a str,
    /// Tool name, prompt name or resource URI the request addresses.
    pub target: &'a str,
    /// Digest of the request arguments, usually from [`digest_json`].
    pub args_digest: [u8; 32],
    /// Authenticated principal (user, client or session identity), if any.
    pub principal: Option<&'a str>,
}

impl Binding<'_> {
    /// SHA-256 over an unambiguous (length-prefixed) encoding of all fields.
    fn digest(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(BINDING_DOMAIN);
        update_len_prefixed(&mut h, self.method.as_bytes());
        update_len_prefixed(&mut h, self.target.as_bytes());
        h.update(self.args_digest);
        match self.principal {
            None => h.update([0u8]),
            Some(p) => {
                h.update([1u8]);
                update_len_prefixed(&mut h, p.as_bytes());
            }
        }
        h.finalize().into()
    }
}

fn update_len_prefixed(h: &mut Sha256, bytes: &[u8]) {
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    h.update(len.to_be_bytes());
    h.update(bytes);
}

/// SHA-256 digest of a JSON value in a canonical serialization.
///
/// Object keys are sorted (by their UTF-8 bytes) at every depth, so the key
/// order chosen by the client does not change the digest; array order does.
/// Strings are written with a fixed escaping, numbers with `serde_json`'s
/// own formatting (so `1` and `1.0` are different values). The walk is
/// iterative, so arbitrarily deep values cannot overflow the stack.
pub fn digest_json(value: &serde_json::Value) -> [u8; 32] {
    use serde_json::Value;

    enum Item<'v> {
        Value(&'v Value),
        Key(&'v str),
        Punct(&'static [u8]),
    }

    let mut h = Sha256::new();
    h.update(JSON_DOMAIN);
    let mut stack = vec![Item::Value(value)];
    while let Some(item) = stack.pop() {
        match item {
            Item::Punct(p) => h.update(p),
            Item::Key(k) => hash_json_string(&mut h, k),
            Item::Value(v) => match v {
                Value::Null => h.update(b"null"),
                Value::Bool(true) => h.update(b"true"),
                Value::Bool(false) => h.update(b"false"),
                Value::Number(n) => h.update(n.to_string().as_bytes()),
                Value::String(s) => hash_json_string(&mut h, s),
                Value::Array(items) => {
                    h.update(b"[");
                    stack.push(Item::Punct(b"]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(Item::Value(item));
                        if i > 0 {
                            stack.push(Item::Punct(b","));
                        }
                    }
                }
                Value::Object(map) => {
                    h.update(b"{");
                    stack.push(Item::Punct(b"}"));
                    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                    entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                    for (i, (k, v)) in entries.into_iter().enumerate().rev() {
                        stack.push(Item::Value(v));
                        stack.push(Item::Punct(b":"));
                        stack.push(Item::Key(k));
                        if i > 0 {
                            stack.push(Item::Punct(b","));
                        }
                    }
                }
            },
        }
    }
    h.finalize().into()
}

/// Writes `s` as a JSON string literal with a fixed, minimal escaping.
fn hash_json_string(h: &mut Sha256, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    h.update(b"\"");
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: Option<[u8; 6]> = match b {
            b'"' | b'\\' => Some([b'\\', b, 0, 0, 0, 0]),
            0x00..=0x1f => {
                Some([b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]])
            }
            _ => None,
        };
        if let Some(esc) = escape {
            h.update(bytes.get(start..i).unwrap_or_default());
            let len = if esc[1] == b'u' { 6 } else { 2 };
            h.update(esc.get(..len).unwrap_or_default());
            start = i + 1;
        }
    }
    h.update(bytes.get(start..).unwrap_or_default());
    h.update(b"\"");
}

/// Seals and opens `requestState` tokens.
///
/// Holds one or more 32-byte HMAC-SHA256 keys (the first seals, all
/// verify, which allows key rotation) and a time-to-live. `Debug` never
/// prints the keys.
#[derive(Clone)]
pub struct StateSealer {
    keys: Vec<[u8; 32]>,
    ttl: Duration,
}

impl fmt::Debug for StateSealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateSealer")
            .field("keys", &format_args!("[{} redacted]", self.keys.len()))
            .field("ttl", &self.ttl)
            .finish()
    }
}

impl StateSealer {
    /// A sealer with one fresh random key from the operating system and
    /// the default TTL. Tokens it seals cannot be opened by another process
    /// or after a restart; use [`StateSealer::with_keys`] for that.
    pub fn random() -> Result<Self, KeyError> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|_| KeyError::RandomUnavailable)?;
        Self::with_keys(vec![key])
    }

    /// A sealer with the given keys and the default TTL. The first key
    /// seals new tokens; every key is tried when opening, so during a key
    /// rotation put the new key first and keep the old one after it until
    /// the old tokens have expired.
    pub fn with_keys(keys: Vec<[u8; 32]>) -> Result<Self, KeyError> {
        if keys.is_empty() {
            return Err(KeyError::NoKeys);
        }
        Ok(StateSealer { keys, ttl: DEFAULT_TTL })
    }

    /// Sets how long sealed tokens stay valid.
    #[must_use]
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The configured time-to-live of sealed tokens.
    pub fn time_to_live(&self) -> Duration {
        self.ttl
    }

    /// Seals `user_state` (opaque, may be absent) for the request described
    /// by `binding`, valid until `now` plus the TTL. Returns a compact,
    /// URL-safe token (`[A-Za-z0-9_-]` plus one `.`).
    pub fn seal(&self, binding: &Binding<'_>, user_state: Option<&str>, now: SystemTime) -> String {
        let expires_at = unix_millis(now).saturating_add(duration_millis(self.ttl));
        let state = user_state.map(str::as_bytes).unwrap_or_default();
        let mut payload = Vec::with_capacity(HEADER_LEN + state.len());
        payload.push(VERSION);
        payload.extend_from_slice(&expires_at.to_be_bytes());
        payload.extend_from_slice(&binding.digest());
        payload.push(u8::from(user_state.is_some()));
        payload.extend_from_slice(state);

        // `with_keys` guarantees at least one key; an empty list cannot be
        // constructed, but fall back to an all-zero tag rather than panic.
        let tag: [u8; TAG_LEN] = match self.keys.first() {
            Some(key) => tag_mac(key, &payload).finalize().into_bytes().into(),
            None => [0u8; TAG_LEN],
        };

        let mut token = URL_SAFE_NO_PAD.encode(&payload);
        token.push('.');
        URL_SAFE_NO_PAD.encode_string(tag, &mut token);
        token
    }

    /// Verifies `token` and returns the user state it carries.
    ///
    /// Checks, in order: length bound and structure
    /// ([`StateError::Malformed`]), the HMAC tag under each key in constant
    /// time ([`StateError::BadSignature`]), the expiry
    /// ([`StateError::Expired`]; a token is valid strictly before its
    /// expiry instant) and the binding ([`StateError::WrongBinding`]).
    pub fn open(
        &self,
        token: &str,
        binding: &Binding<'_>,
        now: SystemTime,
    ) -> Result<Option<String>, StateError> {
        if token.is_empty() || token.len() > MAX_TOKEN_LEN {
            return Err(StateError::Malformed);
        }
        let (payload_b64, tag_b64) = token.split_once('.').ok_or(StateError::Malformed)?;
        if tag_b64.len() != TAG_B64_LEN {
            return Err(StateError::Malformed);
        }
        let tag = URL_SAFE_NO_PAD.decode(tag_b64).map_err(|_| StateError::Malformed)?;
        let payload = URL_SAFE_NO_PAD.decode(payload_b64).map_err(|_| StateError::Malformed)?;
        if tag.len() != TAG_LEN || payload.len() < HEADER_LEN {
            return Err(StateError::Malformed);
        }

        let authentic = self.keys.iter().any(|key| tag_mac(key, &payload).verify_slice(&tag).is_ok());
        if !authentic {
            return Err(StateError::BadSignature);
        }

        // The payload is authentic from here on; still parse defensively.
        let (header, state) = payload.split_at_checked(HEADER_LEN).ok_or(StateError::Malformed)?;
        let (&version, rest) = header.split_first().ok_or(StateError::Malformed)?;
        if version != VERSION {
            return Err(StateError::Malformed);
        }
        let (expiry_bytes, rest) = rest.split_at_checked(8).ok_or(StateError::Malformed)?;
        let (digest, flag) = rest.split_at_checked(32).ok_or(StateError::Malformed)?;
        let expires_at = u64::from_be_bytes(expiry_bytes.try_into().map_err(|_| StateError::Malformed)?);
        if unix_millis(now) >= expires_at {
            return Err(StateError::Expired);
        }
        if !constant_time_eq(digest, &binding.digest()) {
            return Err(StateError::WrongBinding);
        }
        match flag {
            [0] if state.is_empty() => Ok(None),
            [1] => String::from_utf8(state.to_vec()).map(Some).map_err(|_| StateError::Malformed),
            _ => Err(StateError::Malformed),
        }
    }
}

/// An HMAC-SHA256 instance keyed with `key`, already fed the domain
/// separator and `payload`.
fn tag_mac(key: &[u8; 32], payload: &[u8]) -> HmacSha256 {
    keyed_mac(key).chain_update(TAG_DOMAIN).chain_update(payload)
}

/// HMAC-SHA256 keyed with a 32-byte key. HMAC zero-pads keys shorter than
/// the 64-byte block, so placing the key in a zeroed block is the same as
/// keying with the 32 bytes directly, and it cannot fail.
fn keyed_mac(key: &[u8; 32]) -> HmacSha256 {
    let mut block = hmac::digest::Key::<HmacSha256>::default();
    for (dst, src) in block.iter_mut().zip(key.iter()) {
        *dst = *src;
    }
    <HmacSha256 as KeyInit>::new(&block)
}

/// Whether `a` and `b` are equal, in time that does not depend on where they differ
/// (a length difference is not secret).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    subtle::ConstantTimeEq::ct_eq(a, b).into()
}

fn unix_millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map(duration_millis).unwrap_or(0)
}

fn duration_millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    const KEY_A: [u8; 32] = [0xa5; 32];
    const KEY_B: [u8; 32] = [0x3c; 32];

    fn t0() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000)
    }

    fn binding<'a>(args: &serde_json::Value, principal: Option<&'a str>) -> Binding<'a> {
        Binding { method: "tools/call", target: "book_flight", args_digest: digest_json(args), principal }
    }

    fn sealer() -> StateSealer {
        StateSealer::with_keys(vec![KEY_A]).unwrap()
    }

    #[test]
    fn round_trip_returns_user_state() {
        let s = sealer();
        let b = binding(&json!({"from": "CDG", "to": "SFO"}), Some("alice"));
        let token = s.seal(&b, Some("step=2;seat=14C"), t0());
        assert_eq!(s.open(&token, &b, t0()), Ok(Some("step=2;seat=14C".to_owned())));
    }

    #[test]
    fn round_trip_without_user_state_returns_none() {
        let s = sealer();
        let b = binding(&json!({}), None);
        let token = s.seal(&b, None, t0());
        assert_eq!(s.open(&token, &b, t0()), Ok(None));
    }

    #[test]
    fn empty_user_state_is_distinct_from_absent() {
        let s = sealer();
        let b = binding(&json!(null), None);
        let token = s.seal(&b, Some(""), t0());
        assert_eq!(s.open(&token, &b, t0()), Ok(Some(String::new())));
    }

    #[test]
    fn round_trip_unicode_and_json_user_state() {
        let s = sealer();
        let b = binding(&json!([1, 2]), None);
        let state = r#"{"ünïcødé":"✓ 🚀","q":"a.b.c"}"#;
        let token = s.seal(&b, Some(state), t0());
        assert_eq!(s.open(&token, &b, t0()).unwrap().as_deref(), Some(state));
    }

    #[test]
    fn token_is_compact_and_url_safe() {
        let s = sealer();
        let b = binding(&json!({}), None);
        let token = s.seal(&b, Some("x"), t0());
        assert_eq!(token.matches('.').count(), 1);
        assert!(token.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.'));
        assert!(token.len() < 120, "{}", token.len());
    }

    #[test]
    fn every_single_byte_change_is_rejected() {
        let s = sealer();
        let b = binding(&json!({"k": "v"}), Some("bob"));
        let token = s.seal(&b, Some("state"), t0());
        let bytes = token.as_bytes();
        let mut checked = 0;
        for i in 0..bytes.len() {
            for replacement in 0u8..=255 {
                if replacement == bytes[i] {
                    continue;
                }
                let mut mutated = bytes.to_vec();
                mutated[i] = replacement;
                // Bytes that make the token invalid UTF-8 cannot reach `open`.
                let Ok(mutated) = String::from_utf8(mutated) else {
                    continue;
                };
                assert!(s.open(&mutated, &b, t0()).is_err(), "accepted change at {i}");
                checked += 1;
            }
        }
        assert!(checked > bytes.len() * 100);
    }

    #[test]
    fn every_single_bit_flip_is_rejected() {
        let s = sealer();
        let b = binding(&json!({"k": "v"}), None);
        let token = s.seal(&b, None, t0());
        for i in 0..token.len() {
            for bit in 0..7 {
                let mut mutated = token.as_bytes().to_vec();
                mutated[i] ^= 1 << bit;
                let mutated = String::from_utf8(mutated).unwrap();
                assert!(s.open(&mutated, &b, t0()).is_err(), "bit {bit} of byte {i}");
            }
        }
    }

    #[test]
    fn tampered_payload_with_valid_encoding_fails_signature() {
        let s = sealer();
        let b = binding(&json!({}), None);
        let token = s.seal(&b, Some("admin=false"), t0());
        let (payload, tag) = token.split_once('.').unwrap();
        let mut raw = URL_SAFE_NO_PAD.decode(payload).unwrap();
        let last = raw.len() - 5;
        raw[last..].copy_from_slice(b"=true");
        let forged = format!("{}.{}", URL_SAFE_NO_PAD.encode(&raw), tag);
        assert_eq!(s.open(&forged, &b, t0()), Err(StateError::BadSignature));
    }

    #[test]
    fn extended_expiry_fails_signature() {
        let s = sealer();
        let b = binding(&json!({}), None);
        let token = s.seal(&b, None, t0());
        let (payload, tag) = token.split_once('.').unwrap();
        let mut raw = URL_SAFE_NO_PAD.decode(payload).unwrap();
        raw[1..9].copy_from_slice(&u64::MAX.to_be_bytes());
        let forged = format!("{}.{}", URL_SAFE_NO_PAD.encode(&raw), tag);
        assert_eq!(s.open(&forged, &b, t0()), Err(StateError::BadSignature));
    }

    #[test]
    fn truncated_tokens_are_rejected() {
        let s = sealer();
        let b = binding(&json!({}), None);
        let token = s.seal(&b, Some("some state"), t0());
        for len in 0..token.len() {
            assert!(s.open(&token[..len], &b, t0()).is_err(), "prefix of length {len}");
        }
        for start in 1..token.len() {
            assert!(s.open(&token[start..], &b, t0()).is_err(), "suffix from {start}");
        }
    }

    #[test]
    fn empty_and_garbage_tokens_are_malformed() {
        let s = sealer();
        let b = binding(&json!({}), None);
        for bad in
            ["", ".", "..", "abc", "abc.def", "not base64!.AAAA", "🚀.🚀", "a.b.c", "\0\0\0", "%00.%00"]
        {
            assert_eq!(s.open(bad, &b, t0()), Err(StateError::Malformed), "{bad:?}");
        }
    }

    #[test]
    fn extra_separators_and_padding_are_rejected() {
        let s = sealer();
        let b = binding(&json!({}), None);
        let token = s.seal(&b, Some("x"), t0());
        for bad in [
            format!("{token}."),
            format!(".{token}"),
            format!("{token}="),
            token.replacen('.', "..", 1),
            format!(" {token}"),
            format!("{token}\n"),
        ] {
            assert!(s.open(&bad, &b, t0()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn huge_tokens_are_rejected_before_decoding() {
        let s = sealer();
        let b = binding(&json!({}), None);
        let huge = format!("{}.{}", "A".repeat(10 * MAX_TOKEN_LEN), "A".repeat(TAG_B64_LEN));
        assert_eq!(s.open(&huge, &b, t0()), Err(StateError::Malformed));
        let at_limit_plus_one = "A".repeat(MAX_TOKEN_LEN + 1);
        assert_eq!(s.open(&at_limit_plus_one, &b, t0()), Err(StateError::Malformed));
    }

    #[test]
    fn large_user_state_within_limit_round_trips() {
        let s = sealer();
        let b = binding(&json!({}), None);
        let state = "s".repeat(40 * 1024);
        let token = s.seal(&b, Some(&state), t0());
        assert!(token.len() <= MAX_TOKEN_LEN);
        assert_eq!(s.open(&token, &b, t0()), Ok(Some(state)));
    }

    #[test]
    fn wellformed_token_with_bad_tag_is_bad_signature() {
        let s = sealer();
        let b = binding(&json!({}), None);
        let token = s.seal(&b, None, t0());
        let (payload, _) = token.split_once('.').unwrap();
        let forged = format!("{payload}.{}", URL_SAFE_NO_PAD.encode([0u8; 32]));
        assert_eq!(s.open(&forged, &b, t0()), Err(StateError::BadSignature));
    }

    #[test]
    fn expires_after_ttl() {
        let s = sealer().ttl(Duration::from_secs(60));
        let b = binding(&json!({}), None);
        let token = s.seal(&b, Some("x"), t0());
        assert!(s.open(&token, &b, t0() + Duration::from_secs(59)).is_ok());
        assert!(s.open(&token, &b, t0() + Duration::from_millis(59_999)).is_ok());
        assert_eq!(s.open(&token, &b, t0() + Duration::from_secs(60)), Err(StateError::Expired));
        assert_eq!(s.open(&token, &b, t0() + Duration::from_secs(86_400)), Err(StateError::Expired));
    }

    #[test]
    fn default_ttl_is_ten_minutes() {
        let s = sealer();
        assert_eq!(s.time_to_live(), Duration::from_secs(600));
        let b = binding(&json!({}), None);
        let token = s.seal(&b, None, t0());
        assert!(s.open(&token, &b, t0() + Duration::from_secs(599)).is_ok());
        assert_eq!(s.open(&token, &b, t0() + Duration::from_secs(600)), Err(StateError::Expired));
    }

    #[test]
    fn zero_ttl_is_immediately_expired() {
        let s = sealer().ttl(Duration::ZERO);
        let b = binding(&json!({}), None);
        let token = s.seal(&b, None, t0());
        assert_eq!(s.open(&token, &b, t0()), Err(StateError::Expired));
    }

    #[test]
    fn huge_ttl_and_pre_epoch_clock_do_not_panic() {
        let s = sealer().ttl(Duration::MAX);
        let b = binding(&json!({}), None);
        let token = s.seal(&b, None, t0());
        assert_eq!(s.open(&token, &b, t0()), Ok(None));
        let before_epoch = UNIX_EPOCH - Duration::from_secs(10);
        let s = sealer();
        let token = s.seal(&b, None, before_epoch);
        assert_eq!(s.open(&token, &b, before_epoch), Ok(None));
    }

    #[test]
    fn wrong_method_is_rejected() {
        let s = sealer();
        let b = binding(&json!({"a": 1}), None);
        let token = s.seal(&b, None, t0());
        let other = Binding { method: "prompts/get", ..b };
        assert_eq!(s.open(&token, &other, t0()), Err(StateError::WrongBinding));
    }

    #[test]
    fn wrong_target_is_rejected() {
        let s = sealer();
        let b = binding(&json!({"a": 1}), None);
        let token = s.seal(&b, None, t0());
        let other = Binding { target: "cancel_flight", ..b };
        assert_eq!(s.open(&token, &other, t0()), Err(StateError::WrongBinding));
    }

    #[test]
    fn wrong_arguments_are_rejected() {
        let s = sealer();
        let b = binding(&json!({"amount": 10}), None);
        let token = s.seal(&b, None, t0());
        let other = binding(&json!({"amount": 10_000}), None);
        assert_eq!(s.open(&token, &other, t0()), Err(StateError::WrongBinding));
    }

    #[test]
    fn wrong_or_missing_principal_is_rejected() {
        let s = sealer();
        let args = json!({"a": 1});
        let token = s.seal(&binding(&args, Some("alice")), None, t0());
        assert_eq!(s.open(&token, &binding(&args, Some("mallory")), t0()), Err(StateError::WrongBinding));
        assert_eq!(s.open(&token, &binding(&args, None), t0()), Err(StateError::WrongBinding));
        let anonymous = s.seal(&binding(&args, None), None, t0());
        assert_eq!(s.open(&anonymous, &binding(&args, Some("")), t0()), Err(StateError::WrongBinding));
    }

    #[test]
    fn binding_fields_do_not_run_into_each_other() {
        let s = sealer();
        let d = digest_json(&json!({}));
        let b1 = Binding { method: "ab", target: "c", args_digest: d, principal: None };
        let b2 = Binding { method: "a", target: "bc", args_digest: d, principal: None };
        let token = s.seal(&b1, None, t0());
        assert_eq!(s.open(&token, &b2, t0()), Err(StateError::WrongBinding));
    }

    #[test]
    fn argument_key_order_does_not_matter() {
        let s = sealer();
        let a: serde_json::Value =
            serde_json::from_str(r#"{"x":1,"y":{"b":[1,{"d":2,"c":3}],"a":null}}"#).unwrap();
        let b: serde_json::Value =
            serde_json::from_str(r#"{"y":{"a":null,"b":[1,{"c":3,"d":2}]},"x":1}"#).unwrap();
        let token = s.seal(&binding(&a, None), Some("st"), t0());
        assert_eq!(s.open(&token, &binding(&b, None), t0()), Ok(Some("st".to_owned())));
    }

    #[test]
    fn key_rotation_old_key_still_verifies_while_listed() {
        let old = StateSealer::with_keys(vec![KEY_A]).unwrap();
        let b = binding(&json!({}), None);
        let token = old.seal(&b, Some("s"), t0());

        let rotated = StateSealer::with_keys(vec![KEY_B, KEY_A]).unwrap();
        assert_eq!(rotated.open(&token, &b, t0()), Ok(Some("s".to_owned())));

        let retired = StateSealer::with_keys(vec![KEY_B]).unwrap();
        assert_eq!(retired.open(&token, &b, t0()), Err(StateError::BadSignature));
    }

    #[test]
    fn key_rotation_first_key_seals() {
        let rotated = StateSealer::with_keys(vec![KEY_B, KEY_A]).unwrap();
        let b = binding(&json!({}), None);
        let token = rotated.seal(&b, None, t0());
        let only_b = StateSealer::with_keys(vec![KEY_B]).unwrap();
        let only_a = StateSealer::with_keys(vec![KEY_A]).unwrap();
        assert_eq!(only_b.open(&token, &b, t0()), Ok(None));
        assert_eq!(only_a.open(&token, &b, t0()), Err(StateError::BadSignature));
    }

    #[test]
    fn sealer_is_send_and_sync_for_sharing_across_tasks() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<StateSealer>();
        assert_send_sync::<StateError>();
        assert_send_sync::<KeyError>();
    }

    #[test]
    fn empty_key_list_is_an_error() {
        assert_eq!(StateSealer::with_keys(Vec::new()).unwrap_err(), KeyError::NoKeys);
    }

    #[test]
    fn random_sealers_use_distinct_keys() {
        let s1 = StateSealer::random().unwrap();
        let s2 = StateSealer::random().unwrap();
        let b = binding(&json!({}), None);
        let token = s1.seal(&b, None, t0());
        assert_eq!(s1.open(&token, &b, t0()), Ok(None));
        assert_eq!(s2.open(&token, &b, t0()), Err(StateError::BadSignature));
    }

    #[test]
    fn sealing_is_deterministic_for_same_inputs() {
        let s = sealer();
        let b = binding(&json!({"q": 1}), None);
        assert_eq!(s.seal(&b, Some("x"), t0()), s.seal(&b, Some("x"), t0()));
        assert_ne!(s.seal(&b, Some("x"), t0()), s.seal(&b, Some("y"), t0()));
    }

    #[test]
    fn debug_output_redacts_keys() {
        let s = sealer();
        let dbg = format!("{s:?}");
        assert!(dbg.contains("redacted"));
        assert!(!dbg.contains("165"), "{dbg}"); // 0xa5
    }

    #[test]
    fn error_display_is_generic_for_every_variant() {
        for e in
            [StateError::Malformed, StateError::BadSignature, StateError::Expired, StateError::WrongBinding]
        {
            assert_eq!(e.to_string(), "invalid or expired requestState");
        }
    }

    #[test]
    fn hmac_matches_rfc4231_test_case_2() {
        // Key "Jefe" zero-padded to 32 bytes is the same HMAC key.
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        let tag = keyed_mac(&key).chain_update(b"what do ya want for nothing?").finalize().into_bytes();
        let expected = [
            0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
            0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
        ];
        assert_eq!(tag[..], expected[..]);
    }

    #[test]
    fn digest_json_ignores_key_order_at_every_depth() {
        let a: serde_json::Value =
            serde_json::from_str(r#"{"b":{"z":1,"y":[{"q":1,"p":2}]},"a":"x"}"#).unwrap();
        let b: serde_json::Value =
            serde_json::from_str(r#"{"a":"x","b":{"y":[{"p":2,"q":1}],"z":1}}"#).unwrap();
        assert_eq!(digest_json(&a), digest_json(&b));
    }

    #[test]
    fn digest_json_distinguishes_values() {
        let cases = [
            json!(null),
            json!(false),
            json!(true),
            json!(0),
            json!(1),
            json!(1.5),
            json!(-1),
            json!(""),
            json!("1"),
            json!("null"),
            json!([]),
            json!({}),
            json!([1, 2]),
            json!([2, 1]),
            json!([[1], 2]),
            json!([1, [2]]),
            json!({"a": 1}),
            json!({"a": "1"}),
            json!({"a": [1]}),
            json!({"a": 1, "b": 2}),
            json!({"a,\"b\":2": 1}),
            json!({"ab": 1}),
            json!(["a\"b"]),
            json!(["a\\\"b"]),
            json!(["\u{0001}"]),
            json!(["\\u0001"]),
        ];
        let digests: std::collections::HashSet<[u8; 32]> = cases.iter().map(digest_json).collect();
        assert_eq!(digests.len(), cases.len());
    }

    #[test]
    fn digest_json_handles_very_deep_values_without_recursion() {
        let depth = 100_000;
        let mut v = json!(0);
        for _ in 0..depth {
            v = serde_json::Value::Array(vec![v]);
        }
        let d1 = digest_json(&v);
        assert_ne!(d1, digest_json(&json!([0])));
        // Tear down iteratively: dropping a 100k-deep value recursively
        // would overflow the test thread's stack.
        let mut cur = v;
        while let serde_json::Value::Array(mut items) = cur {
            cur = items.pop().unwrap_or(serde_json::Value::Null);
        }
    }
}
