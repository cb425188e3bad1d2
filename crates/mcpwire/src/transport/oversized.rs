//! What can be told about a message too long to keep, from its first and last bytes:
//! its `id`, and whether it is a request or an answer. With that, an answer over the
//! size limit fails the request it answers at once (rather than leaving it to time
//! out), and a request over the limit gets an error that names it.
//!
//! The `id` is read where serializers put it: among the object's first top-level members
//! (`{"jsonrpc":"2.0","id":1,...}`, most SDKs) or as its last member
//! (`{"result":...,"jsonrpc":"2.0","id":1}`, the TypeScript SDK).

use mcpwire_protocol::RequestId;

/// How many leading bytes of an oversized message are kept for [`probe`].
pub const HEAD_BYTES: usize = 4096;

/// How many trailing bytes are kept.
pub const TAIL_BYTES: usize = 256;

/// What [`probe`] found.
#[derive(Debug, Default, PartialEq)]
pub struct Probe {
    /// The message's `id`, if it could be read.
    pub id: Option<RequestId>,
    /// It has a top-level `method` (a request or notification).
    pub method: bool,
}

/// Reads what it can from the first bytes (`head`) and the last bytes (`tail`) of one
/// JSON-RPC message.
pub fn probe(head: &[u8], tail: &[u8]) -> Probe {
    let mut found = Probe::default();
    scan_head(head, &mut found);
    if found.id.is_none() {
        found.id = trailing_id(tail);
    }
    found
}

/// Walks the top level of the object at the start of `head`, noting `method` and the
/// value of `id`, until the bytes run out.
fn scan_head(head: &[u8], found: &mut Probe) {
    let mut depth = 0usize;
    let mut i = 0;
    while i < head.len() {
        match head[i] {
            b'"' => {
                let Some(end) = string_end(head, i) else { return };
                let is_key = depth == 1 && next_token(head, end + 1) == Some(b':');
                if is_key {
                    let key = &head[i + 1..end];
                    let value_at = skip_ws(head, skip_ws(head, end + 1) + 1);
                    if key == b"method" {
                        found.method = true;
                    } else if key == b"id" {
                        found.id = scalar_at(head, value_at);
                    }
                }
                i = end + 1;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
}

/// The `id` of an object whose last member it is: `... "id" : VALUE }` at the very end.
fn trailing_id(tail: &[u8]) -> Option<RequestId> {
    let end = tail.iter().rposition(|b| !b.is_ascii_whitespace())?;
    if tail[end] != b'}' {
        return None;
    }
    let value_end = tail[..end].iter().rposition(|b| !b.is_ascii_whitespace())? + 1;
    let value_start = if tail[value_end - 1] == b'"' {
        // A string id: back to its opening quote (ids have no escaped quotes in practice;
        // one that does is simply not found).
        tail[..value_end - 1].iter().rposition(|b| *b == b'"')?
    } else {
        tail[..value_end].iter().rposition(|b| !(b.is_ascii_digit() || *b == b'-'))? + 1
    };
    let before = tail[..value_start].iter().rposition(|b| !b.is_ascii_whitespace())?;
    if tail[before] != b':' {
        return None;
    }
    let key_end = tail[..before].iter().rposition(|b| !b.is_ascii_whitespace())?;
    let key = tail.get(key_end.checked_sub(3)?..=key_end)?;
    let unescaped = key_end < 4 || tail[key_end - 4] != b'\\';
    if key != b"\"id\"" || !unescaped {
        return None;
    }
    serde_json::from_slice(&tail[value_start..value_end]).ok()
}

/// The index of the closing quote of the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn next_token(bytes: &[u8], i: usize) -> Option<u8> {
    bytes.get(skip_ws(bytes, i)).copied()
}

/// A string or number id starting at `i`.
fn scalar_at(bytes: &[u8], i: usize) -> Option<RequestId> {
    let end = match bytes.get(i)? {
        b'"' => string_end(bytes, i)? + 1,
        _ => i + bytes[i..].iter().position(|b| !(b.is_ascii_digit() || *b == b'-'))?,
    };
    // A number that goes on (`1.5`, `1e3`) is not the integer its first digits write.
    if matches!(bytes.get(end), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    serde_json::from_slice(&bytes[i..end]).ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn id(n: i64) -> Option<RequestId> {
        Some(RequestId::from(n))
    }

    #[test]
    fn reads_a_leading_id() {
        let found = probe(br#"{"jsonrpc":"2.0","id":17,"result":{"content":[{"text":"aaaa"#, b"aaa\"}]}}");
        assert_eq!(found, Probe { id: id(17), method: false });
        let found = probe(br#"{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"x":"#, b"\"}}");
        assert_eq!(found, Probe { id: Some(RequestId::from("r-1".to_owned())), method: true });
    }

    #[test]
    fn reads_a_trailing_id() {
        let found = probe(
            br#"{"result":{"content":[{"type":"text","text":"aaaa"#,
            br#"aaaa"}]},"jsonrpc":"2.0","id":5}"#,
        );
        assert_eq!(found, Probe { id: id(5), method: false });
        assert_eq!(
            probe(b"{\"result\":{\"a\":\"", b"zz\" , \"id\" : \"k\" }\n").id,
            Some(RequestId::from("k".to_owned()))
        );
    }

    #[test]
    fn ignores_nested_and_quoted_ids() {
        // An `id` inside the result is not the message's.
        assert_eq!(probe(br#"{"result":{"id":3,"text":"aaa"#, br#"aa"}}"#).id, None);
        assert_eq!(probe(br#"{"result":{"text":"aa"#, br#"aa\"id\":4}"}}"#).id, None);
        assert_eq!(probe(b"", b"").id, None);
        assert_eq!(probe(b"not json", b"at all").id, None);
    }

    #[test]
    fn a_number_with_a_fraction_or_exponent_is_no_id() {
        for frame in [&br#"{"jsonrpc":"2.0","id":1.5,"result":"#[..], br#"{"id":2e0,"result":"#] {
            assert_eq!(probe(frame, b"").id, None, "{}", String::from_utf8_lossy(frame));
        }
        assert_eq!(probe(b"{\"result\":{\"a\":\"", b"zz\",\"id\":3.5}").id, None);
    }
}
