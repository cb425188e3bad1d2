//! JSON text of any `Serialize` value, as serde_json writes it, with long strings escaped
//! 32 bytes at a time.
//!
//! serde_json's writer looks at every byte of a string on its own (a table lookup and a
//! branch per byte), which makes strings the bulk of the cost of a large result (a
//! resource's text, a tool's long output). [`to_raw_value`] lets serde_json write the value
//! in one pass, except that every string of [`LONG`] bytes or more is written by
//! [`escape`] (only a run holding a byte that needs escaping is looked at byte by byte)
//! and handed to serde_json as raw text, the way a `RawValue` inside the value is. The
//! text is byte for byte what `serde_json::value::to_raw_value` makes, and is never copied
//! or parsed again.

use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};
use serde_json::value::RawValue;

/// Strings at least this long are escaped by [`escape`]; shorter ones by serde_json.
pub(crate) const LONG: usize = 64;

/// `value` as JSON text, byte for byte what `serde_json::value::to_raw_value` writes.
pub(crate) fn to_raw_value<T: Serialize + ?Sized>(value: &T) -> Result<Box<RawValue>, serde_json::Error> {
    serde_json::value::to_raw_value(&Wrapped(value))
}

/// A value whose strings go through [`Strings`] when it is serialized.
struct Wrapped<'a, T: ?Sized>(&'a T);

impl<T: Serialize + ?Sized> Serialize for Wrapped<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Strings(serializer))
    }
}

/// serde_json's `RawValue` serializes as a struct of this name, whose one field is the raw
/// text: what is inside it must reach serde_json untouched.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// A serializer that passes everything to the one it wraps, except long strings, which it
/// writes as raw text escaped by [`escape`]. Compound values are wrapped in turn, so the
/// strings nested in them are seen too.
struct Strings<S>(S);

/// The compound serializers of [`Strings`]: `Some` wraps the values it is handed, `None`
/// (a `RawValue`'s own struct) passes them on as they are.
struct Compound<C> {
    inner: C,
    wrap: bool,
}

/// Serializes `value` through `serialize`, wrapped when the compound wraps.
macro_rules! element {
    ($self:ident, $value:ident, |$v:ident| $call:expr) => {
        if $self.wrap {
            let $v = &Wrapped($value);
            $call
        } else {
            let $v = $value;
            $call
        }
    };
}

impl<S: Serializer> Serializer for Strings<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Compound<S::SerializeSeq>;
    type SerializeTuple = Compound<S::SerializeTuple>;
    type SerializeTupleStruct = Compound<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Compound<S::SerializeTupleVariant>;
    type SerializeMap = Compound<S::SerializeMap>;
    type SerializeStruct = Compound<S::SerializeStruct>;
    type SerializeStructVariant = Compound<S::SerializeStructVariant>;

    fn serialize_str(self, v: &str) -> Result<S::Ok, S::Error> {
        if v.len() < LONG {
            return self.0.serialize_str(v);
        }
        // A `RawValue`'s struct: serde_json writes the text of each of its fields as it is.
        let mut raw = self.0.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        escape(v, |piece| raw.serialize_field(RAW_VALUE_TOKEN, piece))?;
        raw.end()
    }

    fn serialize_bool(self, v: bool) -> Result<S::Ok, S::Error> {
        self.0.serialize_bool(v)
    }
    fn serialize_i8(self, v: i8) -> Result<S::Ok, S::Error> {
        self.0.serialize_i8(v)
    }
    fn serialize_i16(self, v: i16) -> Result<S::Ok, S::Error> {
        self.0.serialize_i16(v)
    }
    fn serialize_i32(self, v: i32) -> Result<S::Ok, S::Error> {
        self.0.serialize_i32(v)
    }
    fn serialize_i64(self, v: i64) -> Result<S::Ok, S::Error> {
        self.0.serialize_i64(v)
    }
    fn serialize_i128(self, v: i128) -> Result<S::Ok, S::Error> {
        self.0.serialize_i128(v)
    }
    fn serialize_u8(self, v: u8) -> Result<S::Ok, S::Error> {
        self.0.serialize_u8(v)
    }
    fn serialize_u16(self, v: u16) -> Result<S::Ok, S::Error> {
        self.0.serialize_u16(v)
    }
    fn serialize_u32(self, v: u32) -> Result<S::Ok, S::Error> {
        self.0.serialize_u32(v)
    }
    fn serialize_u64(self, v: u64) -> Result<S::Ok, S::Error> {
        self.0.serialize_u64(v)
    }
    fn serialize_u128(self, v: u128) -> Result<S::Ok, S::Error> {
        self.0.serialize_u128(v)
    }
    fn serialize_f32(self, v: f32) -> Result<S::Ok, S::Error> {
        self.0.serialize_f32(v)
    }
    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        self.0.serialize_f64(v)
    }
    fn serialize_char(self, v: char) -> Result<S::Ok, S::Error> {
        self.0.serialize_char(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<S::Ok, S::Error> {
        self.0.serialize_bytes(v)
    }
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_none()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&Wrapped(value))
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit()
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit_struct(name)
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit_variant(name, index, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &Wrapped(value))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_variant(name, index, variant, &Wrapped(value))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(|inner| Compound { inner, wrap: true })
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(|inner| Compound { inner, wrap: true })
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0.serialize_tuple_struct(name, len).map(|inner| Compound { inner, wrap: true })
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0.serialize_tuple_variant(name, index, variant, len).map(|inner| Compound { inner, wrap: true })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(|inner| Compound { inner, wrap: true })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, S::Error> {
        let wrap = name != RAW_VALUE_TOKEN;
        self.0.serialize_struct(name, len).map(|inner| Compound { inner, wrap })
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0.serialize_struct_variant(name, index, variant, len).map(|inner| Compound { inner, wrap: true })
    }
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

impl<C: SerializeSeq> SerializeSeq for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_element(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeTuple> SerializeTuple for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_element(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeTupleStruct> SerializeTupleStruct for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_field(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeTupleVariant> SerializeTupleVariant for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_field(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeMap> SerializeMap for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    // Keys are left to serde_json: it writes them through a serializer of its own that
    // accepts only keys that can be object keys.
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), C::Error> {
        self.inner.serialize_key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_value(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeStruct> SerializeStruct for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_field(key, v))
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
        self.inner.skip_field(key)
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeStructVariant> SerializeStructVariant for Compound<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_field(key, v))
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
        self.inner.skip_field(key)
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

/// Bytes looked at together: a run of them that needs no escape is skipped with one test,
/// which the compiler turns into a few vector instructions.
const CHUNK: usize = 32;

/// Whether no byte of `chunk` needs escaping. No early exit, so it vectorizes.
fn clean(chunk: &[u8]) -> bool {
    !chunk.iter().fold(false, |dirty, &b| dirty | needs_escape(b))
}

/// Whether JSON escapes this byte of a string: a control character, `"` or `\`.
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The escape of a byte [`needs_escape`] flags, as serde_json writes it: the short forms
/// where JSON has one, else `\\u00XX` with lowercase hex.
fn escape_of(b: u8) -> &'static str {
    /// `\u00XX` for every control character, in order.
    const CONTROL: [&str; 0x20] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007", "\\u0008",
        "\\u0009", "\\u000a", "\\u000b", "\\u000c", "\\u000d", "\\u000e", "\\u000f", "\\u0010", "\\u0011",
        "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019", "\\u001a",
        "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    match b {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        0x08 => "\\b",
        0x09 => "\\t",
        0x0a => "\\n",
        0x0c => "\\f",
        0x0d => "\\r",
        _ => CONTROL[usize::from(b & 0x1f)],
    }
}

/// Hands `text` to `put` as a JSON string, quotes included, in pieces, escaped as
/// serde_json escapes: runs of bytes that need nothing are found [`CHUNK`] bytes at a time
/// and handed over whole. Every byte that needs an escape is ASCII, so the runs between them
/// are whole characters.
pub(crate) fn escape<E>(text: &str, mut put: impl FnMut(&str) -> Result<(), E>) -> Result<(), E> {
    put("\"")?;
    let bytes = text.as_bytes();
    let mut run = 0; // where the bytes not yet handed over begin
    let mut at = 0;
    while at < bytes.len() {
        if bytes.get(at..at + CHUNK).is_some_and(clean) {
            at += CHUNK;
            continue;
        }
        // The next byte on its own: the first of a chunk that needs an escape, or of the
        // last few bytes.
        let b = bytes[at];
        if needs_escape(b) {
            put(&text[run..at])?;
            put(escape_of(b))?;
            run = at + 1;
        }
        at += 1;
    }
    put(&text[run..])?;
    put("\"")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn ours(s: &str) -> String {
        let mut out = String::new();
        escape(s, |piece| {
            out.push_str(piece);
            Ok::<_, ()>(())
        })
        .unwrap();
        out
    }

    /// Every byte serde_json escapes, and every one it does not, at every position of a
    /// word and in the tail, is escaped exactly as serde_json escapes it.
    #[test]
    fn escapes_as_serde_json_does() {
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let mut cases = vec![
            String::new(),
            "plain ascii text that needs no escape at all, long enough for words".into(),
            every_ascii.clone(),
            every_ascii.repeat(3),
            "é 漢字 🎉 \u{7f}\u{80}\u{ff}".repeat(10),
            "\"\\\n".repeat(30),
        ];
        for len in 0..24 {
            for special in ['"', '\\', '\n', '\u{1}', '\u{1f}', ' ', '!', '#', '[', ']', '\u{7f}', 'é'] {
                for at in 0..len {
                    let mut s: Vec<char> = "abcdefghijklmnopqrstuvwxyz".chars().take(len).collect();
                    s[at] = special;
                    cases.push(s.into_iter().collect());
                }
            }
        }
        for s in &cases {
            assert_eq!(ours(s), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }

    /// Whole values, strings long and short at every depth, raw values inside and outside
    /// the long-string limit: the same text as serde_json's.
    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let long = "x\"y\\z\n".repeat(40);
        let raw =
            RawValue::from_string(format!("{{\"k\":{}}}", serde_json::to_string(&long).unwrap())).unwrap();
        #[derive(serde::Serialize)]
        struct Holder<'a> {
            name: &'a str,
            text: String,
            raw: &'a RawValue,
            list: Vec<Option<String>>,
            tuple: (u8, String),
            #[serde(rename = "enum")]
            variant: Kind,
            bytes: Bytes,
        }
        /// Serialized as a byte array (`serialize_bytes`), as `serde_bytes` does.
        struct Bytes(Vec<u8>);
        impl Serialize for Bytes {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
        #[derive(serde::Serialize)]
        enum Kind {
            Text { body: String },
        }
        let holder = Holder {
            name: "short",
            text: long.clone(),
            raw: &raw,
            list: vec![None, Some(long.clone()), Some("s".into())],
            tuple: (7, long.clone()),
            variant: Kind::Text { body: long.clone() },
            bytes: Bytes(vec![0, 34, 255]),
        };
        let short = json!({ "a": ["s", 1], "b": { "c": "t\"u" } });
        assert_eq!(to_raw_value(&short).unwrap().get(), serde_json::to_string(&short).unwrap());
        assert_eq!(to_raw_value(&Bytes(vec![1, 2])).unwrap().get(), "[1,2]");
        let value = json!({ "a": [long.clone(), 1.5, null, { "b": long.clone() }], "c": "short" });
        assert_eq!(to_raw_value(&holder).unwrap().get(), serde_json::to_string(&holder).unwrap());
        assert_eq!(to_raw_value(&value).unwrap().get(), serde_json::to_string(&value).unwrap());
        assert_eq!(to_raw_value(&long).unwrap().get(), serde_json::to_string(&long).unwrap());
        assert_eq!(to_raw_value(&raw).unwrap().get(), raw.get());
        // What it makes is valid JSON that serde_json reads back to the same value (long
        // strings are written as raw text, not checked when they are written, so this is
        // where a change in serde_json's raw-value handling shows).
        let expected = serde_json::to_string(&value).unwrap();
        let read: serde_json::Value = serde_json::from_str(to_raw_value(&value).unwrap().get()).unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), expected);
    }

    #[test]
    fn the_chunk_check_flags_every_byte_that_needs_escaping() {
        for b in 0u8..=255 {
            for at in 0..CHUNK {
                let mut chunk = [b'a'; CHUNK];
                chunk[at] = b;
                let needs = b < 0x20 || b == b'"' || b == b'\\';
                assert_eq!(clean(&chunk), !needs, "{b:#x} at {at}");
            }
        }
    }
}
