//! Opaque pagination cursors for MCP list methods (`tools/list`,
//! `resources/list`, `prompts/list`, ...).
//!
//! MCP treats a cursor as an opaque string: the server issues it in
//! `nextCursor` and the client echoes it in the next request's `cursor`.
//! This module encodes a list offset as base64url (no padding) of a short
//! tagged ASCII string, so clients cannot mistake it for a plain number
//! and so that anything this module did not produce is rejected with a
//! typed [`CursorError`].
//!
//! The cursor is *not* authenticated: a client can forge one for any
//! offset. That is harmless as long as the caller treats the decoded
//! offset as untrusted (an offset past the end of the list simply yields an
//! empty page or an error, at the caller's choice).
//!
//! Note: in MCP an empty string is a valid cursor that a server *may*
//! issue. [`encode_offset`] never produces `""`, and [`decode_offset`]
//! rejects `""` with [`CursorError::Empty`].
//!
//! ```
//! use mcpwire::server::cursor::{decode_offset, encode_offset};
//!
//! let cursor = encode_offset(50);
//! assert_eq!(decode_offset(&cursor).unwrap(), 50);
//! // A cursor this module did not make is refused, not read as an offset.
//! assert!(decode_offset("50").is_err());
//! ```

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use std::fmt;

/// Tag that prefixes the decimal offset inside the encoded cursor.
const TAG: &[u8] = b"mcpw.off1:";

/// Longest cursor string [`decode_offset`] looks at; anything longer is
/// rejected before decoding. Real cursors are at most 40 characters.
pub const MAX_CURSOR_LEN: usize = 64;

/// Why a cursor string was rejected by [`decode_offset`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CursorError {
    /// The cursor was the empty string.
    Empty,
    /// The cursor was longer than [`MAX_CURSOR_LEN`].
    TooLong,
    /// The cursor was not canonical unpadded base64url.
    NotBase64,
    /// The decoded bytes do not carry this module's tag.
    UnknownFormat,
    /// The offset part is not a canonical decimal number (empty, signed,
    /// leading zeros or non-digit characters).
    InvalidOffset,
    /// The offset does not fit in `usize` on this platform.
    Overflow,
}

impl fmt::Display for CursorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let msg = match self {
            CursorError::Empty => "invalid cursor: empty",
            CursorError::TooLong => "invalid cursor: too long",
            CursorError::NotBase64 => "invalid cursor: not a cursor issued by this server",
            CursorError::UnknownFormat => "invalid cursor: unknown format",
            CursorError::InvalidOffset => "invalid cursor: bad offset",
            CursorError::Overflow => "invalid cursor: offset out of range",
        };
        f.write_str(msg)
    }
}

impl std::error::Error for CursorError {}

/// Encodes a list offset as an opaque, URL-safe cursor string.
///
/// The result is never empty and always round-trips through
/// [`decode_offset`]. For example offset `50` becomes `bWNwdy5vZmYxOjUw`.
pub fn encode_offset(offset: usize) -> String {
    let mut raw = Vec::with_capacity(TAG.len() + 20);
    raw.extend_from_slice(TAG);
    raw.extend_from_slice(offset.to_string().as_bytes());
    URL_SAFE_NO_PAD.encode(raw)
}

/// Decodes a cursor produced by [`encode_offset`] back into the offset.
///
/// Rejects, with a typed error and without panicking, anything that
/// [`encode_offset`] could not have produced: the empty string, over-long
/// input, non-canonical base64url, a missing tag, signs, leading zeros,
/// non-digits, and offsets that overflow `usize`.
pub fn decode_offset(cursor: &str) -> Result<usize, CursorError> {
    let raw = decode_payload(cursor)?;
    let digits = raw.strip_prefix(TAG).ok_or(CursorError::UnknownFormat)?;
    parse_decimal(digits)
}

/// Tag of a cursor that also names the item its page ended with ([`encode_position`]).
const POSITION_TAG: &[u8] = b"mcpw.pos1:";

/// Encodes where the next page of a list starts: its offset, and a 32-bit digest of the
/// key (a tool's name, a resource's URI) of the item the page before it ended with, so
/// the next page still starts after that item if the list changed in between.
pub fn encode_position(offset: usize, last_key: &str) -> String {
    let payload = format!("{offset}.{}", key_digest(last_key));
    let mut raw = Vec::with_capacity(POSITION_TAG.len() + payload.len());
    raw.extend_from_slice(POSITION_TAG);
    raw.extend_from_slice(payload.as_bytes());
    URL_SAFE_NO_PAD.encode(raw)
}

/// Decodes a cursor made by [`encode_position`]: the offset and the digest of the key
/// of the item before it (compare with [`key_digest`]). Rejects what
/// [`decode_offset`] rejects.
pub fn decode_position(cursor: &str) -> Result<(usize, u32), CursorError> {
    let raw = decode_payload(cursor)?;
    let rest = raw.strip_prefix(POSITION_TAG).ok_or(CursorError::UnknownFormat)?;
    let dot = rest.iter().position(|&b| b == b'.').ok_or(CursorError::InvalidOffset)?;
    let offset = parse_decimal(&rest[..dot])?;
    let digest = u32::try_from(parse_decimal(&rest[dot + 1..])?).map_err(|_| CursorError::Overflow)?;
    Ok((offset, digest))
}

/// The digest of a list item's key that [`encode_position`] stores: the same in every
/// process of one build (a cursor may reach another instance of a cluster).
pub fn key_digest(key: &str) -> u32 {
    use std::hash::{Hash, Hasher};
    // `DefaultHasher::new` has fixed keys: equal input, equal digest.
    let mut hasher = std::hash::DefaultHasher::new();
    key.hash(&mut hasher);
    hasher.finish() as u32
}

/// A cursor's payload, after the checks every cursor gets.
fn decode_payload(cursor: &str) -> Result<Vec<u8>, CursorError> {
    if cursor.is_empty() {
        return Err(CursorError::Empty);
    }
    if cursor.len() > MAX_CURSOR_LEN {
        return Err(CursorError::TooLong);
    }
    URL_SAFE_NO_PAD.decode(cursor).map_err(|_| CursorError::NotBase64)
}

/// A canonical decimal number: digits only, no leading zero, within `usize`.
fn parse_decimal(digits: &[u8]) -> Result<usize, CursorError> {
    if digits.is_empty()
        || !digits.iter().all(u8::is_ascii_digit)
        || (digits.len() > 1 && digits.first() == Some(&b'0'))
    {
        return Err(CursorError::InvalidOffset);
    }
    let mut value: usize = 0;
    for d in digits {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(usize::from(d - b'0')))
            .ok_or(CursorError::Overflow)?;
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn raw_cursor(payload: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(payload)
    }

    #[test]
    fn round_trips_small_and_extreme_offsets() {
        for offset in [0, 1, 9, 10, 99, 100, 12_345, 1 << 31, usize::MAX - 1, usize::MAX] {
            let cursor = encode_offset(offset);
            assert_eq!(decode_offset(&cursor), Ok(offset), "offset {offset}");
        }
    }

    #[test]
    fn encoded_cursor_is_opaque_not_a_bare_number() {
        for offset in [0, 7, 100, 65_536] {
            let cursor = encode_offset(offset);
            assert!(cursor.parse::<u64>().is_err(), "{cursor} looks numeric");
            assert_ne!(cursor, offset.to_string());
        }
    }

    #[test]
    fn encoded_cursor_is_url_safe_and_never_empty() {
        for offset in [0, 1, 62, 63, 255, usize::MAX] {
            let cursor = encode_offset(offset);
            assert!(!cursor.is_empty());
            assert!(cursor.len() <= MAX_CURSOR_LEN);
            assert!(cursor.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        }
    }

    #[test]
    fn encoding_format_is_stable() {
        // Cursors may outlive a server restart or upgrade: keep the format.
        assert_eq!(encode_offset(50), "bWNwdy5vZmYxOjUw");
        assert_eq!(decode_offset("bWNwdy5vZmYxOjUw"), Ok(50));
    }

    #[test]
    fn distinct_offsets_give_distinct_cursors() {
        let cursors: std::collections::HashSet<String> = (0..1000).map(encode_offset).collect();
        assert_eq!(cursors.len(), 1000);
    }

    #[test]
    fn rejects_empty_string() {
        assert_eq!(decode_offset(""), Err(CursorError::Empty));
    }

    #[test]
    fn rejects_bare_numbers_and_garbage() {
        for bad in ["0", "10", "-1", "abc", "!!!", "null", "%20", "Zm9v", "a b"] {
            assert!(decode_offset(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn rejects_huge_input_before_decoding() {
        let huge = "A".repeat(1 << 20);
        assert_eq!(decode_offset(&huge), Err(CursorError::TooLong));
        let just_over = "A".repeat(MAX_CURSOR_LEN + 1);
        assert_eq!(decode_offset(&just_over), Err(CursorError::TooLong));
    }

    #[test]
    fn rejects_padded_or_non_canonical_base64() {
        let good = encode_offset(5);
        assert_eq!(decode_offset(&format!("{good}=")), Err(CursorError::NotBase64));
        assert_eq!(decode_offset(&format!("{good}==")), Err(CursorError::NotBase64));
        // Standard alphabet characters are not part of base64url.
        assert_eq!(decode_offset("ab+/"), Err(CursorError::NotBase64));
        // The 11-byte payload leaves 2 unused bits in the last character;
        // setting them gives a non-canonical encoding of the same bytes.
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        assert_eq!(good.len(), 15);
        let last = good.as_bytes()[14];
        let idx = ALPHABET.iter().position(|&c| c == last).unwrap();
        let mut tweaked = good[..14].to_owned();
        tweaked.push(char::from(ALPHABET[idx | 1]));
        assert_ne!(tweaked, good);
        assert_eq!(decode_offset(&tweaked), Err(CursorError::NotBase64));
        // Appending characters changes the payload, never silently accepted.
        assert!(decode_offset(&format!("{good}A")).is_err());
    }

    #[test]
    fn rejects_missing_or_wrong_tag() {
        assert_eq!(decode_offset(&raw_cursor(b"5")), Err(CursorError::UnknownFormat));
        assert_eq!(decode_offset(&raw_cursor(b"mcpw.off2:5")), Err(CursorError::UnknownFormat));
        assert_eq!(decode_offset(&raw_cursor(b"MCPW.OFF1:5")), Err(CursorError::UnknownFormat));
    }

    #[test]
    fn rejects_negative_signed_and_non_digit_offsets() {
        for tail in ["-1", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "", "١"] {
            let mut payload = TAG.to_vec();
            payload.extend_from_slice(tail.as_bytes());
            assert_eq!(decode_offset(&raw_cursor(&payload)), Err(CursorError::InvalidOffset), "{tail:?}");
        }
    }

    #[test]
    fn rejects_leading_zeros_so_every_offset_has_one_cursor() {
        let mut payload = TAG.to_vec();
        payload.extend_from_slice(b"007");
        assert_eq!(decode_offset(&raw_cursor(&payload)), Err(CursorError::InvalidOffset));
    }

    #[test]
    fn rejects_offsets_that_overflow_usize() {
        let too_big = (u128::from(usize::MAX as u64) + 1).to_string();
        let mut payload = TAG.to_vec();
        payload.extend_from_slice(too_big.as_bytes());
        assert_eq!(decode_offset(&raw_cursor(&payload)), Err(CursorError::Overflow));
        let mut payload = TAG.to_vec();
        payload.extend_from_slice(b"99999999999999999999999999");
        assert_eq!(decode_offset(&raw_cursor(&payload)), Err(CursorError::Overflow));
    }

    #[test]
    fn rejects_non_utf8_payload_without_panicking() {
        let mut payload = TAG.to_vec();
        payload.extend_from_slice(&[0xff, 0xfe]);
        assert_eq!(decode_offset(&raw_cursor(&payload)), Err(CursorError::InvalidOffset));
        assert!(decode_offset(&raw_cursor(&[0xff; 20])).is_err());
    }

    #[test]
    fn error_messages_are_generic_and_non_empty() {
        for e in [
            CursorError::Empty,
            CursorError::TooLong,
            CursorError::NotBase64,
            CursorError::UnknownFormat,
            CursorError::InvalidOffset,
            CursorError::Overflow,
        ] {
            let msg = e.to_string();
            assert!(msg.starts_with("invalid cursor"), "{msg}");
        }
    }

    #[test]
    fn position_cursors_round_trip_and_fit() {
        for (offset, key) in [(1, "a"), (50, "tool-name"), (usize::MAX, "file:///a/very/long/uri")] {
            let cursor = encode_position(offset, key);
            assert!(cursor.len() <= MAX_CURSOR_LEN, "{cursor}");
            assert_eq!(decode_position(&cursor), Ok((offset, key_digest(key))));
            // Neither kind of cursor is read as the other.
            assert_eq!(decode_offset(&cursor), Err(CursorError::UnknownFormat));
        }
        assert_eq!(decode_position(&encode_offset(5)), Err(CursorError::UnknownFormat));
        assert_eq!(decode_position(&raw_cursor(b"mcpw.pos1:5")), Err(CursorError::InvalidOffset));
        assert_eq!(decode_position(&raw_cursor(b"mcpw.pos1:5.99999999999")), Err(CursorError::Overflow));
    }
}
