//! The top-level members of a JSON object, found without decoding it.
//!
//! A request's params are checked JSON (they were read out of a checked message), yet
//! several readers want one or two of their members: the 2026 envelope in `_meta`, the
//! tool name the HTTP headers mirror. Reading the params with serde_json for those checks
//! every byte of the other members again, the long strings in a tool's `arguments`
//! included. [`members`] only skims: it jumps through strings to their closing quote with
//! `memchr` and looks at the bytes between strings one at a time, which for checked text
//! is enough to tell where each member begins and ends.
//!
//! It answers only when the answer is plain: a key written with escapes, or one of the
//! wanted keys appearing twice (where readers differ on which one counts), makes it give
//! up, and the caller reads the object in full.

/// The raw text of the members `keys` of the JSON object `object` (each `None` when
/// absent), or `None` when the text does not settle it: it is not an object, a key is
/// written with escapes, a wanted key appears twice, or the text does not skim as JSON.
/// `object` should be checked JSON; other text gets `None` or some answer, never a panic.
pub fn members<'a, const N: usize>(object: &'a str, keys: [&str; N]) -> Option<Found<'a, N>> {
    let start = skip_space(object.as_bytes(), 0);
    read_object(object, start, keys, NO_INNER).map(|o| o.found)
}

/// [`members`], and in the same pass the members `inner_keys` of the member `inner` (a
/// request's `_meta`, say): `None` for those when `inner` is absent or not an object.
/// The inner object is skimmed once, where it stands, instead of being stepped over and
/// then skimmed again. It gives up as [`members`] does, on the inner object's keys too,
/// and when `inner` itself appears twice.
pub fn members_within<'a, const N: usize, const M: usize>(
    object: &'a str,
    keys: [&str; N],
    inner: &str,
    inner_keys: [&str; M],
) -> Option<(Found<'a, N>, Option<Found<'a, M>>)> {
    let start = skip_space(object.as_bytes(), 0);
    read_object(object, start, keys, Some((inner, inner_keys))).map(|o| (o.found, o.inner))
}

/// The raw text of each wanted member of an object, `None` when absent.
pub type Found<'a, const N: usize> = [Option<&'a str>; N];

/// No inner object wanted (the type [`read_object`] needs to say so).
const NO_INNER: Option<(&str, [&str; 0])> = None;

/// What [`read_object`] found.
struct Skimmed<'a, const N: usize, const M: usize> {
    found: Found<'a, N>,
    inner: Option<Found<'a, M>>,
    /// Just past the object's closing brace.
    end: usize,
}

/// Skims the object opening at `start` in `text`: its members `keys`, and those of its
/// member `inner.0` when that is an object.
fn read_object<'a, const N: usize, const M: usize>(
    text: &'a str,
    start: usize,
    keys: [&str; N],
    inner: Option<(&str, [&str; M])>,
) -> Option<Skimmed<'a, N, M>> {
    let bytes = text.as_bytes();
    let mut out = Skimmed { found: [None; N], inner: None, end: 0 };
    if bytes.get(start) != Some(&b'{') {
        return None;
    }
    let mut at = skip_space(bytes, start + 1);
    if bytes.get(at) == Some(&b'}') {
        out.end = at + 1;
        return Some(out);
    }
    let mut inner_seen = false;
    loop {
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let (key_end, escaped) = string_end(bytes, at)?;
        if escaped {
            return None;
        }
        let key = text.get(at + 1..key_end - 1)?;
        at = skip_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(bytes, at + 1);
        let end = match inner {
            Some((name, inner_keys)) if name == key => {
                if std::mem::replace(&mut inner_seen, true) {
                    return None;
                }
                if bytes.get(at) == Some(&b'{') {
                    let object = read_object(text, at, inner_keys, NO_INNER)?;
                    out.inner = Some(object.found);
                    object.end
                } else {
                    value_end(bytes, at)?
                }
            }
            _ => value_end(bytes, at)?,
        };
        if let Some(slot) = keys.iter().position(|k| *k == key) {
            if out.found[slot].is_some() {
                return None;
            }
            out.found[slot] = Some(text.get(at..end)?);
        }
        at = skip_space(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            Some(b'}') => {
                out.end = at + 1;
                return Some(out);
            }
            _ => return None,
        }
    }
}

/// The text of `raw`, a checked JSON string, when it is written without escapes: what
/// lies between its quotes (checked JSON holds no raw quote or control character there),
/// with no decoder needed. `None` for any other value, and for a string with escapes,
/// which a decoder must read.
pub fn plain_string(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['\\', '"'])).then_some(inner)
}

/// The first byte from `at` that is not JSON whitespace.
fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// Where the string opening at `at` ends (just past its closing quote), and whether it
/// holds an escape.
fn string_end(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut from = at + 1;
    let mut escaped = false;
    loop {
        let hit = from + memchr::memchr2(b'"', b'\\', bytes.get(from..)?)?;
        if bytes[hit] == b'"' {
            return Some((hit + 1, escaped));
        }
        // A backslash and the byte it escapes (the rest of a `\u` escape is plain).
        escaped = true;
        from = hit + 2;
    }
}

/// Where the value starting at `at` ends.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at).map(|(end, _)| end),
        b'{' | b'[' => {
            // Checked JSON nests `{}` and `[]` properly, so one depth counts both.
            let mut depth = 0usize;
            let mut at = at;
            loop {
                match bytes.get(at)? {
                    b'"' => at = string_end(bytes, at)?.0,
                    b'{' | b'[' => {
                        depth += 1;
                        at += 1;
                    }
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        at += 1;
                        if depth == 0 {
                            return Some(at);
                        }
                    }
                    _ => at += 1,
                }
            }
        }
        // A number, `true`, `false` or `null`: up to the next delimiter.
        _ => {
            let end = at
                + bytes[at..]
                    .iter()
                    .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                    .unwrap_or(bytes.len() - at);
            (end > at).then_some(end)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::Value;

    /// What a `Value` tree says of the same members: `None` where the skim gives up is
    /// allowed only for the cases it names (escaped keys, repeated wanted keys).
    fn agrees(object: &str, keys: [&str; 3]) {
        let tree: Value = serde_json::from_str(object).unwrap();
        let Some(found) = members(object, keys) else {
            let repeated = keys.iter().any(|k| object.matches(&format!("\"{k}\"")).count() > 1);
            assert!(object.contains('\\') || repeated || !tree.is_object(), "gave up on {object}");
            return;
        };
        for (key, raw) in keys.iter().zip(found) {
            let expected = tree.get(key);
            let got = raw.map(|r| serde_json::from_str::<Value>(r).unwrap());
            assert_eq!(got.as_ref(), expected, "{key} in {object}");
        }
    }

    #[test]
    fn finds_what_a_tree_finds() {
        let long = "x".repeat(300);
        let objects = [
            "{}".to_owned(),
            " { } ".to_owned(),
            r#"{"a":1}"#.to_owned(),
            r#"{ "a" : 1 , "b" : "two" , "c" : null }"#.to_owned(),
            r#"{"a":-1.5e+3,"b":true,"c":false}"#.to_owned(),
            r#"{"a":{"b":{"c":[1,[2,{"d":"}"}]]}},"b":"]\"}","c":[]}"#.to_owned(),
            format!(r#"{{"arguments":{{"text":"{long}\"\\","n":[{{}},[]]}},"c":"{long}","a":{{"b":1}}}}"#),
            r#"{"x":"\u00e9\\","a":"\"","b":"\\\\"}"#.to_owned(),
            "{\n\t\"a\":\r\n[ 1 ,2 ]\n}".to_owned(),
            r#"{"é":1,"a":"漢字","b":"🎉"}"#.to_owned(),
            r#"{"a":1,"a":2}"#.to_owned(),
            r#"{"z":1,"z":2,"a":3}"#.to_owned(),
            r#"{"\u0061":1}"#.to_owned(),
            r#"[{"a":1}]"#.to_owned(),
            r#""a""#.to_owned(),
            "12".to_owned(),
        ];
        for object in &objects {
            agrees(object, ["a", "b", "c"]);
        }
        // Keys that are not wanted may repeat; wanted ones may not.
        assert_eq!(members(r#"{"z":1,"z":2,"a":3}"#, ["a"]), Some([Some("3")]));
        assert_eq!(members(r#"{"a":1,"a":2}"#, ["a"]), None);
        assert_eq!(members(r#"{"\u0061":1}"#, ["a"]), None);
    }

    /// A small deterministic generator of JSON text: whitespace anywhere it may go, nested
    /// values, strings with every kind of escape and non-ASCII text, keys that repeat.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
        fn space(&mut self) -> &'static str {
            [" ", "", "", "\n\t", "\r\n  "][self.next(5) as usize]
        }
        fn string(&mut self) -> String {
            const PIECES: [&str; 10] =
                ["a", "é", "漢", "\\\"", "\\\\", "\\n", "\\u0041", "}", "]", "plain text, long enough "];
            let n = self.next(6) as usize;
            let body: String = (0..n).map(|_| PIECES[self.next(10) as usize]).collect();
            format!("\"{body}\"")
        }
        fn value(&mut self, depth: u32) -> String {
            match self.next(if depth > 3 { 4 } else { 6 }) {
                0 => ["1", "-2.5e+3", "true", "false", "null", "0"][self.next(6) as usize].to_owned(),
                1 | 2 => self.string(),
                3 => format!("{}", self.next(1000)),
                4 => {
                    let n = self.next(4);
                    let items: Vec<String> = (0..n)
                        .map(|_| format!("{}{}{}", self.space(), self.value(depth + 1), self.space()))
                        .collect();
                    format!("[{}]", items.join(","))
                }
                _ => self.object(depth + 1).0,
            }
        }
        /// An object, its top-level keys as written, and whether one was written with an
        /// escape.
        fn object(&mut self, depth: u32) -> (String, Vec<String>, bool) {
            let n = self.next(6);
            let (mut members, mut keys, mut escaped) = (Vec::new(), Vec::new(), false);
            for _ in 0..n {
                let key = ["a", "b", "c", "_meta", "x"][self.next(5) as usize];
                let written = if self.next(12) == 0 {
                    escaped = true;
                    format!("\\u00{:02x}{}", key.as_bytes()[0], &key[1..])
                } else {
                    key.to_owned()
                };
                let (s1, s2) = (self.space(), self.space());
                members.push(format!("{s1}\"{written}\"{s2}:{}{}", self.space(), self.value(depth)));
                keys.push(key.to_owned());
            }
            (format!("{}{{{}}}{}", self.space(), members.join(","), self.space()), keys, escaped)
        }
    }

    /// Thousands of generated objects: the skim finds what a tree finds, and gives up
    /// only on an escaped key or a wanted key written twice.
    #[test]
    fn generated_objects_agree_with_a_tree() {
        let mut gen = Gen(7);
        for _ in 0..5000 {
            let (text, keys, escaped) = gen.object(0);
            let tree: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
            let wanted = ["a", "_meta", "x"];
            match members(&text, wanted) {
                Some(found) => {
                    for (key, raw) in wanted.iter().zip(found) {
                        let got = raw.map(|r| serde_json::from_str::<Value>(r).unwrap());
                        assert_eq!(got.as_ref(), tree.get(key), "{key} in {text}");
                    }
                }
                None => {
                    let repeated = wanted.iter().any(|w| keys.iter().filter(|k| k == w).count() > 1);
                    assert!(escaped || repeated, "gave up on {text}");
                }
            }
        }
    }

    /// The members of `_meta` found in the same pass are what a tree finds in it, and
    /// the outer members are what [`members`] finds.
    #[test]
    fn inner_members_agree_with_a_tree() {
        let mut gen = Gen(11);
        let mut settled = 0;
        for _ in 0..5000 {
            let (text, _, _) = gen.object(0);
            let tree: Value = serde_json::from_str(&text).unwrap();
            let outer = ["a", "x"];
            let inner_keys = ["b", "c"];
            let Some((found, inner)) = members_within(&text, outer, "_meta", inner_keys) else {
                continue;
            };
            settled += 1;
            assert_eq!(Some(found), members(&text, outer), "{text}");
            let meta = tree.get("_meta").filter(|m| m.is_object());
            assert_eq!(inner.is_some(), meta.is_some(), "{text}");
            for (key, raw) in inner_keys.iter().zip(inner.unwrap_or_default()) {
                let got = raw.map(|r| serde_json::from_str::<Value>(r).unwrap());
                assert_eq!(got.as_ref(), meta.and_then(|m| m.get(key)), "{key} in {text}");
            }
        }
        assert!(settled > 2500, "the skim settled only {settled} of 5000");
        // It gives up on an inner key written with escapes, a repeated inner key that is
        // wanted, and a repeated inner object.
        for given_up in
            [r#"{"_meta":{"\u0062":1}}"#, r#"{"_meta":{"b":1,"b":2}}"#, r#"{"_meta":{},"_meta":{"b":1}}"#]
        {
            assert_eq!(members_within(given_up, ["a"], "_meta", ["b"]), None, "{given_up}");
        }
        assert_eq!(
            members_within(r#"{"_meta":[1],"a":2}"#, ["a"], "_meta", ["b"]),
            Some(([Some("2")], None))
        );
        assert_eq!(
            members_within(r#"{"_meta":{"z":1,"z":2,"b":{"c":3}},"a":[]}"#, ["a", "_meta"], "_meta", ["b"]),
            Some(([Some("[]"), Some(r#"{"z":1,"z":2,"b":{"c":3}}"#)], Some([Some(r#"{"c":3}"#)])))
        );
    }

    #[test]
    fn a_plain_string_is_its_text_and_one_with_escapes_is_left_to_a_decoder() {
        assert_eq!(plain_string(r#""abc é""#), Some("abc é"));
        assert_eq!(plain_string(r#""""#), Some(""));
        for other in [r#""a\"b""#, r#""\u0041""#, "12", "null", "{}", r#"""#, ""] {
            assert_eq!(plain_string(other), None, "{other}");
        }
    }

    #[test]
    fn text_that_is_not_json_gets_no_panic() {
        let cuts = r#"{"a":{"b":[1,"c\"",{"d":null}]},"e":"f\\"}"#;
        for end in 0..=cuts.len() {
            let _ = members(&cuts[..end], ["a", "e"]);
        }
        for bad in [
            "{",
            "{\"",
            "{\"a\"",
            "{\"a\":",
            "{\"a\":}",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{\"a\":1 \"b\":2}",
            "{]",
        ] {
            assert_eq!(members(bad, ["a"]), None, "{bad}");
        }
    }
}
