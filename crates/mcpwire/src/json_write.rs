//! JSON text of any `Serialize` value, as serde_json writes it, with long strings escaped
//! 64 bytes at a time.
//!
//! serde_json's writer looks at every byte of a string on its own (a table lookup and a
//! branch per byte), which makes strings the bulk of the cost of a large result (a
//! resource's text, a tool's long output). [`to_raw_value`] first lets serde_json write
//! the value with every string of [`LONG`] bytes or more left out; a value
//! that has any is written again by [`write()`], with serde_json's own serializer but those
//! strings escaped by [`escape`] (only a run holding a byte that needs escaping is looked
//! at byte by byte), and made a `RawValue` without being parsed again ([`Verbatim`]).
//! Everything else is serde_json's own writing, so the text is byte for byte what
//! `serde_json::value::to_raw_value` makes.

use std::cell::Cell;
use std::io;

use serde::ser::{
    Error as _, Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant,
    SerializeTuple, SerializeTupleStruct, SerializeTupleVariant, Serializer,
};
use serde_json::value::RawValue;

/// Strings at least this long are escaped by [`escape`]; shorter ones by serde_json.
pub(crate) const LONG: usize = 64;

/// `value` as JSON text, byte for byte what `serde_json::value::to_raw_value` writes.
pub(crate) fn to_raw_value<T: Serialize + ?Sized>(value: &T) -> Result<Box<RawValue>, serde_json::Error> {
    match write(value)? {
        Written::Raw(raw) => Ok(raw),
        Written::Text(text) => verbatim(text),
    }
}

/// [`to_raw_value`] for a value the caller is done with: a value holding long strings is
/// dropped once its text is written and before that text is copied into the `RawValue`,
/// so a large result is held twice at once (value and text, then text and copy), not
/// three times.
pub(crate) fn into_raw_value<T: Serialize>(value: T) -> Result<Box<RawValue>, serde_json::Error> {
    match write(&value)? {
        Written::Raw(raw) => Ok(raw),
        Written::Text(text) => {
            drop(value);
            verbatim(text)
        }
    }
}

/// [`into_raw_value`] for a value that serializes as a struct, with `last` (a key and
/// its value, already serialized) written as its last field: the text a type with that
/// last field writes. Wrapping the value in such a type with `#[serde(flatten)]` would
/// have serde buffer and replay every member, which costs more than the value's own
/// writing.
pub(crate) fn into_raw_object_with<T: Serialize>(
    value: T,
    last: (&'static str, &RawValue),
) -> Result<Box<RawValue>, serde_json::Error> {
    let written = Cell::new(false);
    let last = Last { key: last.0, value: last.1, written: &written };
    let raw = match write_with(&value, Some(last))? {
        Written::Raw(raw) => raw,
        Written::Text(text) => {
            drop(value);
            verbatim(text)?
        }
    };
    match written.get() {
        true => Ok(raw),
        false => Err(serde_json::Error::custom("a value written with a last field must be a struct")),
    }
}

/// A field written after a struct's own (see [`into_raw_object_with`]); `written` is set
/// once it is.
#[derive(Clone, Copy)]
struct Last<'a> {
    key: &'static str,
    value: &'a RawValue,
    written: &'a Cell<bool>,
}

/// What [`write()`] made of a value.
enum Written {
    /// The value as a `RawValue` (it had no long string).
    Raw(Box<RawValue>),
    /// The text of a value with long strings, for [`verbatim`].
    Text(Vec<u8>),
}

/// `value` written by serde_json with every string of [`LONG`] bytes or more left out;
/// when there are any, written again with them, escaped by [`escape`], into a buffer of
/// four times the length the first pass found (its text plus the long strings' bytes),
/// given at once so the text is not copied as it grows; only the bytes written are ever
/// touched. The spare room is for glibc's allocator, which gives a heap's free top back
/// to the kernel past a threshold (128 KiB at first) and raises that threshold to twice
/// the size of a block over 128 KiB once it has mapped and unmapped one: this buffer is
/// such a block, so the threshold ends at eight times the text, above what one large
/// answer holds at once (this buffer, its copy, the handler's value, the answer's frame),
/// and the pages of one answer are kept for the next instead of being given back and
/// faulted in again (with twice the text, the copies of one answer passed that threshold
/// in some starts, and with one runtime thread always). Escapes that more than quadruple
/// the text grow it as usual.
fn write<T: Serialize + ?Sized>(value: &T) -> Result<Written, serde_json::Error> {
    write_with(value, None)
}

/// [`write()`], with a last field for the outermost struct.
fn write_with<T: Serialize + ?Sized>(value: &T, last: Option<Last>) -> Result<Written, serde_json::Error> {
    let long = Cell::new(0);
    let without_long = serde_json::value::to_raw_value(&Outer(value, Mode::Omit(&long), last))?;
    if long.get() == 0 {
        return Ok(Written::Raw(without_long));
    }
    let mut out = Vec::with_capacity(4 * (without_long.get().len() + long.get()));
    Outer(value, Mode::Escape, last)
        .serialize(&mut serde_json::Serializer::with_formatter(&mut out, EscapeBytes))?;
    Ok(Written::Text(out))
}

/// Text [`write()`] made, copied into a `RawValue` as [`Verbatim`] text. The text is
/// checked to be UTF-8 (it always is: serde_json and [`escape`] write only whole
/// characters) by simdutf8, which reads it several times faster than `std::str::from_utf8`
/// does: on a large result, that check costs about as much as the copy.
fn verbatim(text: Vec<u8>) -> Result<Box<RawValue>, serde_json::Error> {
    let text = simdutf8::basic::from_utf8(&text).map_err(|_| serde_json::Error::custom("invalid UTF-8"))?;
    serde_json::value::to_raw_value(&Verbatim(text))
}

/// JSON text that serde_json's own serializer has just written, made a `RawValue` without
/// being parsed again. It serializes as a `RawValue` does (a struct of [`RAW_VALUE_TOKEN`]'s
/// name whose one field is the text), which serde_json writes out as it is, and
/// `serde_json::value::to_raw_value` keeps its output without reading it back. That costs a
/// copy of the text; `RawValue::from_string` (the one other way without `unsafe`) would
/// scan every long string again, several times the cost of the copy.
///
/// A `RawValue` that took [`write()`]'s buffer itself, shrunk to the text, would leave glibc
/// a mapped block to unmap, and its pages to fault in again, for every large answer: the
/// copy costs less.
struct Verbatim<'a>(&'a str);

impl Serialize for Verbatim<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(RAW_VALUE_TOKEN, self.0)?;
        raw.end()
    }
}

/// How [`Strings`] treats a long string.
#[derive(Clone, Copy)]
enum Mode<'a> {
    /// Write it as `""` and add its length here: a value with none is written whole this
    /// way, and one with some is written again by [`write()`], into a buffer sized by it.
    Omit(&'a Cell<usize>),
    /// Hand its bytes to the [`EscapeBytes`] formatter (as a byte array, the one call of
    /// serde_json's serializer that reaches the formatter with the bytes as they are).
    Escape,
}

/// serde_json's compact formatter, except that a byte array is a long string's bytes,
/// written as a JSON string by [`escape`]. Only [`Strings`] in [`Mode::Escape`] writes
/// byte arrays through it; it writes real byte arrays as sequences.
struct EscapeBytes;

impl serde_json::ser::Formatter for EscapeBytes {
    fn write_byte_array<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: &[u8]) -> io::Result<()> {
        escape(value, writer)
    }
}

/// A value whose strings go through [`Strings`] when it is serialized.
struct Wrapped<'a, T: ?Sized>(&'a T, Mode<'a>);

impl<T: Serialize + ?Sized> Serialize for Wrapped<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Strings(serializer, self.1, None))
    }
}

/// The value being written: [`Wrapped`], with the last field of its struct if any.
struct Outer<'a, T: ?Sized>(&'a T, Mode<'a>, Option<Last<'a>>);

impl<T: Serialize + ?Sized> Serialize for Outer<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Strings(serializer, self.1, self.2))
    }
}

/// serde_json's `RawValue` serializes as a struct of this name, whose one field is the raw
/// text: what is inside it must reach serde_json untouched.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// A serializer that passes everything to the one it wraps, except long strings (see
/// [`Mode`]). Compound values are wrapped in turn, so the strings nested in them are seen
/// too.
///
/// The last field, set only for the outermost value, goes to its struct (see
/// [`into_raw_object_with`]).
struct Strings<'a, S>(S, Mode<'a>, Option<Last<'a>>);

/// The compound serializers of [`Strings`]: `Some` wraps the values it is handed, `None`
/// (a `RawValue`'s own struct) passes them on as they are.
struct Compound<'a, C> {
    inner: C,
    wrap: bool,
    mode: Mode<'a>,
    /// The outermost struct's last field.
    last: Option<Last<'a>>,
}

/// Serializes `value` through `serialize`, wrapped when the compound wraps.
macro_rules! element {
    ($self:ident, $value:ident, |$v:ident| $call:expr) => {
        if $self.wrap {
            let $v = &Wrapped($value, $self.mode);
            $call
        } else {
            let $v = $value;
            $call
        }
    };
}

impl<'a, S: Serializer> Serializer for Strings<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Compound<'a, S::SerializeSeq>;
    type SerializeTuple = Compound<'a, S::SerializeTuple>;
    type SerializeTupleStruct = Compound<'a, S::SerializeTupleStruct>;
    type SerializeTupleVariant = Compound<'a, S::SerializeTupleVariant>;
    type SerializeMap = Compound<'a, S::SerializeMap>;
    type SerializeStruct = Compound<'a, S::SerializeStruct>;
    type SerializeStructVariant = Compound<'a, S::SerializeStructVariant>;

    fn serialize_str(self, v: &str) -> Result<S::Ok, S::Error> {
        match self.1 {
            _ if v.len() < LONG => self.0.serialize_str(v),
            Mode::Omit(long) => {
                long.set(long.get() + v.len());
                self.0.serialize_str("")
            }
            Mode::Escape => self.0.serialize_bytes(v.as_bytes()),
        }
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
        match self.1 {
            Mode::Omit(_) => self.0.serialize_bytes(v),
            // What serde_json writes for a byte array, without reaching the formatter.
            Mode::Escape => self.0.collect_seq(v),
        }
    }
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_none()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&Wrapped(value, self.1))
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
        self.0.serialize_newtype_struct(name, &Wrapped(value, self.1))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_variant(name, index, variant, &Wrapped(value, self.1))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(|inner| Compound { inner, wrap: true, mode: self.1, last: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(|inner| Compound { inner, wrap: true, mode: self.1, last: None })
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0.serialize_tuple_struct(name, len).map(|inner| Compound {
            inner,
            wrap: true,
            mode: self.1,
            last: None,
        })
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0.serialize_tuple_variant(name, index, variant, len).map(|inner| Compound {
            inner,
            wrap: true,
            mode: self.1,
            last: None,
        })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(|inner| Compound { inner, wrap: true, mode: self.1, last: None })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, S::Error> {
        let wrap = name != RAW_VALUE_TOKEN;
        let (mode, last) = (self.1, self.2.filter(|_| wrap));
        let len = len + usize::from(last.is_some());
        self.0.serialize_struct(name, len).map(|inner| Compound { inner, wrap, mode, last })
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0.serialize_struct_variant(name, index, variant, len).map(|inner| Compound {
            inner,
            wrap: true,
            mode: self.1,
            last: None,
        })
    }
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

impl<C: SerializeSeq> SerializeSeq for Compound<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_element(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeTuple> SerializeTuple for Compound<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_element(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeTupleStruct> SerializeTupleStruct for Compound<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_field(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeTupleVariant> SerializeTupleVariant for Compound<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        element!(self, value, |v| self.inner.serialize_field(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeMap> SerializeMap for Compound<'_, C> {
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

impl<C: SerializeStruct> SerializeStruct for Compound<'_, C> {
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
    fn end(mut self) -> Result<C::Ok, C::Error> {
        if let Some(last) = self.last {
            self.inner.serialize_field(last.key, last.value)?;
            last.written.set(true);
        }
        self.inner.end()
    }
}

impl<C: SerializeStructVariant> SerializeStructVariant for Compound<'_, C> {
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
    // A variant is never given a last field: it is not the outermost object.
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

/// Bytes looked at together: a chunk that needs no escape is skipped with one test, which
/// the compiler turns into a few vector instructions.
const CHUNK: usize = 64;

/// Whether no byte of `chunk` needs escaping ([`needs_escape`]). `(b ^ 2) <= 0x20` holds
/// for exactly the control characters and `"` (the xor swaps `"` and the space), so with
/// `\\` a byte takes two compares; the flags are or-ed with no early exit, so the loop
/// vectorizes.
fn clean(chunk: &[u8; CHUNK]) -> bool {
    chunk.iter().fold(0u8, |dirty, &b| dirty | u8::from((b ^ 2) <= 0x20) | u8::from(b == b'\\')) == 0
}

/// Whether JSON escapes this byte of a string: a control character, `"` or `\`.
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The escape of a byte [`needs_escape`] flags, as serde_json writes it: the short forms
/// where JSON has one, else `\\u00XX` with lowercase hex.
fn escape_of(b: u8) -> ([u8; 6], usize) {
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x09 => b't',
        0x0a => b'n',
        0x0c => b'f',
        0x0d => b'r',
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let (high, low) = (HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]);
            return ([b'\\', b'u', b'0', b'0', high, low], 6);
        }
    };
    ([b'\\', short, 0, 0, 0, 0], 2)
}

/// Writes `text` (a string's UTF-8 bytes) as a JSON string, quotes included, escaped as
/// serde_json escapes: a [`CHUNK`] with nothing to escape costs one test, and only the
/// bytes of a chunk that has something are looked at one by one. The runs between escapes
/// are written whole; every byte that needs an escape is ASCII, so they are whole
/// characters.
pub(crate) fn escape<W: ?Sized + io::Write>(text: &[u8], out: &mut W) -> io::Result<()> {
    out.write_all(b"\"")?;
    let mut run = 0; // where the bytes not yet written begin
    let (chunks, _) = text.as_chunks::<CHUNK>();
    for (i, chunk) in chunks.iter().enumerate() {
        if !clean(chunk) {
            escape_bytes(text, i * CHUNK, (i + 1) * CHUNK, &mut run, out)?;
        }
    }
    escape_bytes(text, chunks.len() * CHUNK, text.len(), &mut run, out)?;
    out.write_all(&text[run..])?;
    out.write_all(b"\"")
}

/// Escapes the bytes of `text[from..to]` that need it, one by one, each after the bytes
/// from `run` that precede it; `run` is then where the bytes not yet written begin.
fn escape_bytes<W: ?Sized + io::Write>(
    text: &[u8],
    from: usize,
    to: usize,
    run: &mut usize,
    out: &mut W,
) -> io::Result<()> {
    for (at, &b) in text[from..to].iter().enumerate() {
        if needs_escape(b) {
            out.write_all(&text[*run..from + at])?;
            let (escaped, len) = escape_of(b);
            out.write_all(&escaped[..len])?;
            *run = from + at + 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn ours(s: &str) -> String {
        let mut out = Vec::new();
        escape(s.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
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

    /// Strings of one, two and three chunks and a tail: one byte to escape (or one that
    /// needs none but is near one that does: the space, `!`, `#`, DEL, a two-byte
    /// character) at every position, first, last and straddling a chunk's edge, alone and
    /// with a second one further on, and every chunk dirty at once.
    #[test]
    fn escapes_across_chunks_as_serde_json_does() {
        let specials = ['"', '\\', '\n', '\r', '\t', '\u{0}', '\u{1f}', ' ', '!', '#', '\u{7f}', 'é'];
        let base: Vec<char> =
            "the quick brown fox jumps over the lazy dog ".chars().cycle().take(3 * CHUNK + 7).collect();
        let check = |s: &str| assert_eq!(ours(s), serde_json::to_string(s).unwrap(), "{s:?}");
        for len in [CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 7] {
            for special in specials {
                for at in 0..len {
                    let mut s = base[..len].to_vec();
                    s[at] = special;
                    check(&s.iter().collect::<String>());
                    s[(at + 29) % len] = '"';
                    check(&s.iter().collect::<String>());
                }
            }
        }
        // Many escapes, in every chunk, and a string made only of them.
        check(&"line one\n\tindented \"quoted\" back\\slash \u{1}\r\n".repeat(20));
        check(&"\n".repeat(3 * CHUNK + 1));
        check(&"\u{7}é".repeat(2 * CHUNK));
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
        // Escapes that make a text six times as long outgrow the buffer sized for it.
        let controls = json!({ "t": "\u{1}".repeat(300), "u": [long.clone()] });
        assert_eq!(to_raw_value(&controls).unwrap().get(), serde_json::to_string(&controls).unwrap());
        assert_eq!(to_raw_value(&raw).unwrap().get(), raw.get());
        // The owning form writes the same text, and what it makes is valid JSON that
        // serde_json reads back to the same value (the `Verbatim` text is not checked when
        // it is made, so this is where a change in serde_json's raw-value handling shows).
        let expected = serde_json::to_string(&value).unwrap();
        let owned = into_raw_value(value).unwrap();
        assert_eq!(owned.get(), expected);
        let read: serde_json::Value = serde_json::from_str(owned.get()).unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), expected);
        assert_eq!(into_raw_value(json!({ "short": 1 })).unwrap().get(), r#"{"short":1}"#);
    }

    /// A last field added to a struct is written as a type with that last field writes it.
    #[test]
    fn a_last_field_is_written_as_a_type_with_it_writes_it() {
        #[derive(serde::Serialize)]
        struct Fields {
            #[serde(skip_serializing_if = "Option::is_none")]
            text: Option<String>,
        }
        #[derive(serde::Serialize)]
        struct WithLast<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            text: Option<String>,
            last: &'a RawValue,
        }
        let last = RawValue::from_string(r#"{"k":[1,"\u0001"]}"#.to_owned()).unwrap();
        let long = "x\"y\n".repeat(40);
        for text in [None, Some("short".to_owned()), Some(long)] {
            let expected = serde_json::to_string(&WithLast { text: text.clone(), last: &last }).unwrap();
            let got = into_raw_object_with(Fields { text }, ("last", &last)).unwrap();
            assert_eq!(got.get(), expected);
        }
        // Only a struct has fields to add to.
        assert!(into_raw_object_with([1], ("last", &last)).is_err());
        assert!(into_raw_object_with(serde_json::json!({ "a": 1 }), ("last", &last)).is_err());
        #[derive(serde::Serialize)]
        enum Variant {
            Fields { a: u8 },
        }
        let variant = into_raw_object_with(Variant::Fields { a: 1 }, ("last", &last));
        assert!(variant.is_err(), "a struct variant is not the outermost object");
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
