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
//! * **key-rotatable**: the first key seals, every key verifies,
//! * and, when asked ([`StateSealer::single_use`]), **single-use**: a token opens once.
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
//! before decoding anything, so a user state longer than roughly 750 KiB
//! produces a token that can never be opened (the server refuses to hand
//! out such a token: the round fails with `-32603` instead).
//!
//! All [`StateError`] variants display the same generic message, meant to
//! be mapped to one JSON-RPC `-32602` "Invalid or expired requestState"
//! error; the variant itself (via `Debug`) is for server-side logs only.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

mod digest;
mod spent;

pub use digest::digest_json;
pub(crate) use digest::digest_json_text;
use spent::{Refused, Spent};

type HmacSha256 = Hmac<Sha256>;

/// Default lifetime of a sealed token: ten minutes.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);

/// Longest token, in bytes, that [`StateSealer::open`] will look at (1 MiB). The state
/// of a multi round-trip exchange carries the answers of its rounds so far (a long form
/// field, a sampled text), so the bound leaves them room; the request that brings the
/// token back is bounded by the transport's message limit anyway.
pub const MAX_TOKEN_LEN: usize = 1024 * 1024;

const VERSION: u8 = 1;
const TAG_DOMAIN: &[u8] = b"mcpwire/requestState/v1\0";
const BINDING_DOMAIN: &[u8] = b"mcpwire/requestState/binding/v1\0";
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
    /// A [single-use](StateSealer::single_use) token that was opened before.
    Replayed,
    /// A [single-use](StateSealer::single_use) sealer already remembers as many
    /// unexpired tokens as it can; it refuses new ones rather than forget used ones.
    TooManyInUse,
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

/// Seals and opens `requestState` tokens.
///
/// Holds one or more 32-byte HMAC-SHA256 keys (the first seals, all
/// verify, which allows key rotation) and a time-to-live. `Debug` never
/// prints the keys. Clones share a single-use sealer's memory of used tokens.
#[derive(Clone)]
pub struct StateSealer {
    keys: Vec<[u8; 32]>,
    ttl: Duration,
    spent: Option<Arc<Spent>>,
}

impl fmt::Debug for StateSealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateSealer")
            .field("keys", &format_args!("[{} redacted]", self.keys.len()))
            .field("ttl", &self.ttl)
            .field("single_use", &self.spent.is_some())
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
        Ok(StateSealer { keys, ttl: DEFAULT_TTL, spent: None })
    }

    /// Makes every token open only once ([`StateError::Replayed`] after that), for state
    /// whose reuse would do harm (a confirmation that must not be spent twice, a one-off
    /// grant). The spec leaves this to the server ("enforce one-time use server-side when
    /// needed").
    ///
    /// The memory of used tokens is this process's (shared by clones of this sealer):
    /// servers behind a load balancer that share keys do not share it. Each used token is
    /// remembered until it expires, up to 100,000 at once; past that new tokens are
    /// refused ([`StateError::TooManyInUse`]). A client retrying a request whose answer it
    /// lost (a broken 2026 response stream) cannot reuse its token either.
    #[must_use]
    pub fn single_use(mut self) -> Self {
        self.spent.get_or_insert_with(Arc::default);
        self
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
    /// expiry instant), the binding ([`StateError::WrongBinding`]) and, for a
    /// [single-use](StateSealer::single_use) sealer, that it was not opened before
    /// ([`StateError::Replayed`], [`StateError::TooManyInUse`]).
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
        let user_state = match flag {
            [0] if state.is_empty() => None,
            [1] => Some(String::from_utf8(state.to_vec()).map_err(|_| StateError::Malformed)?),
            _ => return Err(StateError::Malformed),
        };
        if let Some(spent) = &self.spent {
            let tag: [u8; TAG_LEN] = tag.as_slice().try_into().map_err(|_| StateError::Malformed)?;
            spent.claim(tag, expires_at, unix_millis(now)).map_err(|refused| match refused {
                Refused::Replayed => StateError::Replayed,
                Refused::Full => StateError::TooManyInUse,
            })?;
        }
        Ok(user_state)
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
mod tests;
