//! Character classes and percent-encoding (RFC 3986 sets, as RFC 6570 uses them).

pub(super) fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

pub(super) fn is_reserved(b: u8) -> bool {
    matches!(
        b,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}

pub(super) fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// True when `bytes[i..]` starts with a `%XX` triplet.
pub(crate) fn is_pct_triplet(bytes: &[u8], i: usize) -> bool {
    bytes.get(i) == Some(&b'%')
        && bytes.get(i + 1).copied().and_then(hex_value).is_some()
        && bytes.get(i + 2).copied().and_then(hex_value).is_some()
}

/// Appends `s` percent-encoded: unreserved characters are copied; with
/// `allow_reserved`, reserved characters and existing `%XX` triplets are
/// copied too; every other byte of the UTF-8 encoding becomes `%XX`.
pub(super) fn encode_into(out: &mut String, s: &str, allow_reserved: bool) {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if allow_reserved && is_pct_triplet(bytes, i) {
            out.push('%');
            out.extend(bytes.get(i + 1..i + 3).unwrap_or_default().iter().map(|&c| char::from(c)));
            i += 3;
            continue;
        }
        if is_unreserved(b) || (allow_reserved && is_reserved(b)) {
            out.push(char::from(b));
        } else {
            push_pct(out, b);
        }
        i += 1;
    }
}

/// Appends `%XX` for one byte.
fn push_pct(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 0x0f)]));
}

/// Appends `s` as one path segment (RFC 3986 `segment`): unreserved characters,
/// sub-delimiters, `:` and `@` are copied; every other byte of the UTF-8 encoding (`/`,
/// `?`, `#`, `%`, spaces, non-ASCII) becomes `%XX`.
pub(crate) fn encode_segment_into(out: &mut String, s: &str) {
    for &b in s.as_bytes() {
        let pchar = matches!(b, b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=');
        if is_unreserved(b) || pchar || b == b':' || b == b'@' {
            out.push(char::from(b));
        } else {
            push_pct(out, b);
        }
    }
}

/// Decodes `%XX` triplets; a stray `%` is kept. `None` if the result is
/// not UTF-8.
pub(crate) fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hi = bytes.get(i + 1).copied().and_then(hex_value);
            let lo = bytes.get(i + 2).copied().and_then(hex_value);
            if let (Some(hi), Some(lo)) = (hi, lo) {
                out.push((hi << 4) | lo);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// The first `n` characters of `s`.
pub(super) fn char_prefix(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((idx, _)) => s.get(..idx).unwrap_or(s),
        None => s,
    }
}
