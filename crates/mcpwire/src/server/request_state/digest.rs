//! A digest of a JSON value that does not depend on how the client wrote it: what a
//! `requestState` is bound to for a request's arguments.

use sha2::{Digest, Sha256};

/// Hashed first, so these digests never match a hash of the same bytes made elsewhere.
const JSON_DOMAIN: &[u8] = b"mcpwire/json/v1\0";

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

/// Text hashed before arguments that do not read as a tree, so their digest never
/// matches that of any tree.
const TEXT_DOMAIN: &[u8] = b"mcpwire/json-text/v1\0";

/// SHA-256 digest of the JSON text of a request's arguments: [`digest_json`] of the tree
/// it reads as, or, when it does not read as one (nested deeper than serde_json reads, a
/// number out of range), a digest of the text itself with the whitespace between tokens
/// left out. Arguments that do not read as a tree must still bind a `requestState` to
/// themselves alone: a handler may read them all the same (its own type ignores the
/// member that is too deep), so taking them all for one value would let a state issued
/// for some arguments open for any others.
pub(crate) fn digest_json_text(text: &str) -> [u8; 32] {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        return digest_json(&value);
    }
    let mut h = Sha256::new();
    h.update(TEXT_DOMAIN);
    let bytes = text.as_bytes();
    let (mut in_string, mut escaped, mut start) = (false, false, 0);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            h.update(bytes.get(start..i).unwrap_or_default());
            start = i + 1;
        }
    }
    h.update(bytes.get(start..).unwrap_or_default());
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

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
    fn text_too_deep_to_read_is_digested_as_written_less_its_whitespace() {
        let deep = |inner: &str| format!("{{\"a\": {}{inner}{}}}", "[".repeat(300), "]".repeat(300));
        let (one, two) = (deep("1"), deep("2"));
        assert_ne!(digest_json_text(&one), digest_json_text(&two));
        assert_ne!(digest_json_text(&one), digest_json(&json!({})));
        assert_eq!(digest_json_text(&one), digest_json_text(&one.replace(' ', "\n\t ")));
        // Whitespace inside a string is part of the value.
        assert_ne!(digest_json_text(&deep("\"a b\"")), digest_json_text(&deep("\"ab\"")));
        assert_ne!(digest_json_text(&deep("\"\\\" b\"")), digest_json_text(&deep("\"\\\"b\"")));
        // Text that reads as a tree is digested as that tree.
        assert_eq!(digest_json_text("{ \"b\": 1, \"a\": [2] }"), digest_json(&json!({"a": [2], "b": 1})));
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
