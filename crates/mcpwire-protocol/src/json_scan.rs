//! A strict JSON scanner for the hot paths: it reads a message member by member in its
//! commonest spelling and checks every value it skips, so that what it accepts is valid
//! JSON that serde_json reads the same way. Anything it is not sure of (an escape in a
//! member name, a nesting deeper than [`MAX_DEPTH`], the end of the text) makes it give
//! up with `None`, and the caller leaves the text to serde_json, which decides and
//! reports errors as ever.
//!
//! Why by hand: serde_json reads a small request through its generic map machinery and
//! captures each raw member with a second scan; for a `tools/call` of a few hundred bytes
//! that costs more than the whole tool call.

use serde_json::value::RawValue;

/// Nesting deeper than this inside a skipped value is left to serde_json.
pub(crate) const MAX_DEPTH: u32 = 128;

/// The text of one JSON value that [`Cursor::value`] checked: well-formed, as serde_json
/// reads it, with no whitespace around it. Only the scan makes one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Checked<'a>(&'a str);

impl<'a> Checked<'a> {
    /// The value's text.
    pub(crate) fn text(self) -> &'a str {
        self.0
    }

    /// The value as an owned raw value, without parsing it again (parsing it again,
    /// serde_json's one safe way to make a `RawValue`, costs as much as the scan).
    #[allow(unsafe_code)]
    pub(crate) fn to_raw(self) -> Box<RawValue> {
        // SAFETY: `RawValue` must hold one well-formed JSON value without surrounding
        // whitespace, which is what a `Checked` is: `Cursor::value` makes it only from a
        // value it read through, checking JSON's grammar as serde_json does (its tests
        // compare the two on every one-byte change to many texts). Debug builds, every
        // test run among them, parse the text again here and panic if it is not one.
        unsafe { RawValue::from_string_unchecked(self.0.to_owned()) }
    }
}

/// A position in a JSON text.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        Cursor { text, pos: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte, if any.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    /// Skips JSON whitespace (space, tab, line feed, carriage return; nothing else).
    pub(crate) fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// The text from the cursor on.
    pub(crate) fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    /// Moves past `len` bytes that the caller has read from [`Cursor::rest`].
    pub(crate) fn skip(&mut self, len: usize) {
        self.pos = (self.pos + len).min(self.text.len());
    }

    /// Whitespace, then `byte`.
    pub(crate) fn eat(&mut self, byte: u8) -> Option<()> {
        self.ws();
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    /// Whitespace, then the end of the text.
    pub(crate) fn at_end(&mut self) -> bool {
        self.ws();
        self.pos == self.text.len()
    }

    /// Whitespace, then a non-empty object whose members `member` reads: it is handed
    /// each name (a string without escapes) with the cursor after its `:`, and reads the
    /// value. `None` if `member` refuses one, or the object is not well-formed.
    pub(crate) fn members(&mut self, mut member: impl FnMut(&'a str, &mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        loop {
            let name = self.plain_string()?;
            self.eat(b':')?;
            member(name, self)?;
            self.ws();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => break,
                _ => return None,
            }
        }
        self.pos += 1;
        Some(())
    }

    /// Whitespace, then a string with no escape: its text between the quotes. A string
    /// with an escape (or a control character, or no end) gives `None`.
    pub(crate) fn plain_string(&mut self) -> Option<&'a str> {
        self.ws();
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos + 1;
        let rest = self.bytes().get(start..)?;
        let len = plain_run(rest);
        if *rest.get(len)? != b'"' {
            return None;
        }
        self.pos = start + len + 1;
        self.text.get(start..start + len)
    }

    /// Whitespace, then one JSON value, checked as serde_json checks it: its text,
    /// without the whitespace around it.
    pub(crate) fn value(&mut self) -> Option<Checked<'a>> {
        self.ws();
        let start = self.pos;
        // One bit per open container, innermost lowest: 1 for an object, 0 for an array.
        let mut open: u128 = 0;
        let mut depth: u32 = 0;
        loop {
            // A value is due.
            self.ws();
            match self.peek()? {
                container @ (b'{' | b'[') => {
                    if depth == MAX_DEPTH {
                        return None;
                    }
                    self.pos += 1;
                    open = (open << 1) | u128::from(container == b'{');
                    depth += 1;
                    self.ws();
                    let close = if container == b'{' { b'}' } else { b']' };
                    if self.peek()? == close {
                        self.pos += 1;
                        open >>= 1;
                        depth -= 1;
                    } else {
                        if container == b'{' {
                            self.member_key()?;
                        }
                        continue;
                    }
                }
                b'"' => self.string()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return None,
            }
            // A value ended: close what it ends, up to the next value due.
            loop {
                if depth == 0 {
                    return self.text.get(start..self.pos).map(Checked);
                }
                self.ws();
                let in_object = open & 1 == 1;
                match self.peek()? {
                    b',' => {
                        self.pos += 1;
                        if in_object {
                            self.member_key()?;
                        }
                        break;
                    }
                    b'}' if in_object => {}
                    b']' if !in_object => {}
                    _ => return None,
                }
                self.pos += 1;
                open >>= 1;
                depth -= 1;
            }
        }
    }

    /// A member's name (any valid string) and its `:`, inside a skipped object.
    fn member_key(&mut self) -> Option<()> {
        self.ws();
        if self.peek()? != b'"' {
            return None;
        }
        self.string()?;
        self.eat(b':')
    }

    /// A string at the cursor (which is at its `"`), escapes checked.
    fn string(&mut self) -> Option<()> {
        let bytes = self.bytes();
        let mut i = self.pos + 1;
        loop {
            i += plain_run(bytes.get(i..)?);
            match *bytes.get(i)? {
                b'"' => break,
                b'\\' => {
                    match *bytes.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                        // Any four hex digits: serde_json does not check what they code
                        // when it skips a string, and neither does a `RawValue`.
                        b'u' => {
                            let hex = bytes.get(i + 2..i + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            i += 6;
                        }
                        _ => return None,
                    }
                }
                0x00..=0x1f => return None,
                _ => i += 1,
            }
        }
        self.pos = i + 1;
        Some(())
    }

    /// `word` at the cursor.
    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos + word.len();
        (self.bytes().get(self.pos..end)? == word).then(|| self.pos = end)
    }

    /// A number at the cursor: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.some_digits()?;
        }
        Some(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
    }

    /// One digit or more.
    fn some_digits(&mut self) -> Option<()> {
        let start = self.pos;
        self.digits();
        (self.pos > start).then_some(())
    }
}

/// The length of the run of bytes at the start of `bytes` that a string holds as they
/// are: up to the first `"`, `\\` or control character (or the end). Eight bytes at a
/// time, as serde_json does: strings are most of a request's bytes.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        // A high bit for each byte that is zero after the XOR (a quote or a backslash),
        // or below 0x20; bytes of 0x80 and above (UTF-8) never count.
        let zero = |w: u64| w.wrapping_sub(ONES) & !w;
        let found = (zero(word ^ (ONES * u64::from(b'"')))
            | zero(word ^ (ONES * u64::from(b'\\')))
            | word.wrapping_sub(ONES * 0x20))
            & !word
            & HIGHS;
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(bytes.len() - at)
}

/// Every prefix of `text` and every change of one byte to it (a byte of `bytes` inserted
/// or put in place of one, or a byte removed) that is still UTF-8: what the scanners'
/// tests read both ways.
#[cfg(test)]
pub(crate) fn one_byte_changes(text: &str, bytes: &[u8]) -> Vec<String> {
    let text = text.as_bytes();
    let mut variants = Vec::new();
    for i in 0..=text.len() {
        variants.push(text[..i].to_vec());
        for &b in bytes {
            let mut inserted = text.to_vec();
            inserted.insert(i, b);
            variants.push(inserted);
            if i < text.len() {
                let mut replaced = text.to_vec();
                replaced[i] = b;
                variants.push(replaced);
            }
        }
        if i < text.len() {
            let mut removed = text.to_vec();
            removed.remove(i);
            variants.push(removed);
        }
    }
    variants.into_iter().filter_map(|v| String::from_utf8(v).ok()).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::value::RawValue;

    /// What serde_json makes of `text` as one value: its text without surrounding
    /// whitespace, or `None` if it refuses it.
    fn serde(text: &str) -> Option<&str> {
        serde_json::from_str::<&RawValue>(text).ok().map(RawValue::get)
    }

    /// The scanner's reading of `text` as one whole value.
    fn scan(text: &str) -> Option<&str> {
        let mut cursor = Cursor::new(text);
        let value = cursor.value()?;
        assert_eq!(value.to_raw().get(), value.text());
        cursor.at_end().then_some(value.text())
    }

    const VALID: &[&str] = &[
        "0",
        "-0",
        "12",
        "-3.25e+10",
        "1E5",
        "0.5",
        "1e-2",
        "true",
        "false",
        "null",
        r#""""#,
        r#""a\"b\\c\/d\b\f\n\r\t\u00e9\uD800 é""#,
        "[]",
        "{}",
        " [ 1 , [ ] , { } ] ",
        r#"{"a":{"b":[1,2,{"c":null}]},"d":"e"}"#,
        "\t{\n\"k\"\r:\n[true,false]\n}\n",
        r#"{"a":1,"a":2}"#,
    ];

    const INVALID: &[&str] = &[
        "",
        " ",
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "1e+",
        "+1",
        "tru",
        "nul",
        "True",
        "\"abc",
        "\"a\\x\"",
        "\"a\\u12g4\"",
        "\"a\\u12\"",
        "\"tab\there\"",
        "[1,]",
        "[,1]",
        "{\"a\":1,}",
        "{\"a\"}",
        "{\"a\" 1}",
        "{1:2}",
        "[1}",
        "{\"a\":1]",
        "[[]",
        "[]]",
        "1 2",
        "{\"a\":1}x",
        "NaN",
        "\u{a0}1",
        "[1\u{a0}]",
    ];

    #[test]
    fn it_reads_what_serde_json_reads_and_refuses_what_it_refuses() {
        for text in VALID {
            assert_eq!(scan(text), serde(text), "{text:?}");
            assert!(scan(text).is_some(), "{text:?}");
        }
        for text in INVALID {
            assert!(serde(text).is_none(), "serde_json takes {text:?}");
            assert_eq!(scan(text), None, "{text:?}");
        }
    }

    #[test]
    fn nesting_past_the_limit_is_left_to_serde_json() {
        let depth = MAX_DEPTH as usize;
        let ok = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(scan(&ok), Some(ok.as_str()));
        let deep = format!("{}{}", "[".repeat(depth + 1), "]".repeat(depth + 1));
        assert_eq!(scan(&deep), None);
        let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert_eq!(scan(&objects), serde(&objects));
    }

    #[test]
    fn a_plain_string_has_no_escape() {
        assert_eq!(Cursor::new(r#" "tools/call""#).plain_string(), Some("tools/call"));
        assert_eq!(Cursor::new(r#""tools\/call""#).plain_string(), None);
        assert_eq!(Cursor::new("\"a\u{1}\"").plain_string(), None);
        assert_eq!(Cursor::new("\"open").plain_string(), None);
        assert_eq!(Cursor::new("\"é\"").plain_string(), Some("é"));
    }

    #[test]
    fn a_plain_run_ends_at_the_first_quote_backslash_or_control_character() {
        for len in 0..40 {
            for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                let mut text = vec![b'a'; len];
                text.extend_from_slice("é€".as_bytes());
                let run = text.len();
                text.push(stop);
                text.extend_from_slice(b"\"zz\\");
                assert_eq!(plain_run(&text), run, "{len} {stop}");
            }
            let text = vec![b'x'; len];
            assert_eq!(plain_run(&text), len);
            // Bytes just around the stops do not stop it.
            let mut near = vec![0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc];
            near.truncate(len.min(near.len()));
            assert_eq!(plain_run(&near), near.len(), "{near:?}");
        }
    }

    /// Every prefix and every one-byte change of valid texts: whatever the scanner takes,
    /// serde_json takes, with the same text.
    #[test]
    fn mutations_never_make_it_disagree() {
        const BYTES: &[u8] = b" \t\n{}[]:,\"\\/u0123456789abcdefeE+-.tnrlsx\x01";
        let mut checked = 0;
        for text in VALID.iter().chain(INVALID) {
            for variant in one_byte_changes(text, BYTES) {
                if let Some(value) = scan(&variant) {
                    assert_eq!(serde(&variant), Some(value), "{variant:?}");
                }
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
