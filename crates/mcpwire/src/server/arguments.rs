//! A request's arguments decoded into a handler's types, with errors that name the field.
//!
//! A tool's arguments are JSON ([`decode_arguments`]). A prompt's arguments and a
//! template's variables are strings on the wire, and a handler that declares `n: u32` or
//! `loud: bool` for them gets each value parsed from its string (`"7"`, `"true"`), as a
//! URL's query string is read; a `String` field takes the text as it is
//! ([`decode_string_arguments`]).

use std::collections::BTreeMap;

use serde::de::value::{Error, MapDeserializer};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde_json::value::RawValue;
use serde_json::{Number, Value};

/// Decodes raw arguments (absent = `{}`) into `T`, with an error that names the field.
///
/// Plain `serde_json` first: tracking the path costs about twice as much, and only an
/// error needs it. A failure is decoded again with the path tracked, so the error (and
/// anything the path-tracking decoder accepts that the plain one does not) is exactly
/// what it always was. Unless the arguments have a number without a fraction written as
/// a float (`5.0`, `1e2`): that is an integer in JSON Schema, which an input schema's
/// `"type": "integer"` takes (and a client that keeps every number as a double sends),
/// so they are decoded again with each such number the integer it is.
pub(crate) fn decode_arguments<T: DeserializeOwned>(arguments: Option<&RawValue>) -> Result<T, String> {
    let text = arguments.map_or("{}", RawValue::get);
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    match with_integers(text) {
        Some(value) => serde_path_to_error::deserialize(value).map_err(naming_the_field),
        None => decode_tracked(text),
    }
}

/// Decodes `text` with the path tracked, for an error that names the field.
fn decode_tracked<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(naming_the_field)
}

/// `text` as a JSON value with each float that is an integer within `i64` or `u64`
/// written as that integer, if it has any such float.
fn with_integers(text: &str) -> Option<Value> {
    let mut value: Value = serde_json::from_str(text).ok()?;
    as_integers(&mut value).then_some(value)
}

/// Writes each float in `value` that is an integer within `i64` or `u64` as that
/// integer; whether there was one.
pub(crate) fn as_integers(value: &mut Value) -> bool {
    /// 2^63 and 2^64, the first floats past `i64::MAX` and `u64::MAX`.
    const I64_END: f64 = 9_223_372_036_854_775_808.0;
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            let integer = match f {
                f if f.fract() != 0.0 => None,
                f if (-I64_END..I64_END).contains(&f) => Some(Number::from(f as i64)),
                f if (0.0..U64_END).contains(&f) => Some(Number::from(f as u64)),
                _ => None,
            };
            integer.map(|i| *n = i).is_some()
        }
        Value::Array(items) => items.iter_mut().fold(false, |any, item| as_integers(item) | any),
        Value::Object(members) => members.values_mut().fold(false, |any, member| as_integers(member) | any),
        _ => false,
    }
}

/// A decoding error as `field.path: what went wrong` (just the error at the top level).
/// Both parts may quote the client's own text (a map key on the path, an unknown enum
/// value), so each is cut to a length a reader and a model's context can take.
fn naming_the_field<E: std::fmt::Display>(error: serde_path_to_error::Error<E>) -> String {
    let path = error.path().to_string();
    let inner = without_position(error.into_inner().to_string());
    let inner = crate::error::shown(&inner, SHOWN_MESSAGE_CHARS);
    if path == "." {
        inner.into_owned()
    } else {
        format!("{}: {inner}", crate::error::shown(&path, SHOWN_PATH_CHARS))
    }
}

/// The most characters of an argument's path an error quotes.
const SHOWN_PATH_CHARS: usize = 200;
/// The most characters of serde's own message an error quotes.
const SHOWN_MESSAGE_CHARS: usize = 500;

/// serde_json's message without its ` at line L column C` suffix: a position in the
/// client's JSON text tells the model (which wrote values, not text) nothing, and the
/// path already says where.
fn without_position(mut message: String) -> String {
    if let Some(at) = message.rfind(" at line ") {
        let tail = &message[at + " at line ".len()..];
        let is_position = tail.split_once(" column ").is_some_and(|(line, column)| {
            [line, column].iter().all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        if is_position {
            message.truncate(at);
        }
    }
    message
}

/// Decodes a JSON object of strings (absent = `{}`) into `T`, each value read as the type
/// its field asks for; the error names the field.
pub(crate) fn decode_string_arguments<T: DeserializeOwned>(
    arguments: Option<&RawValue>,
) -> Result<T, String> {
    let text = arguments.map_or("{}", RawValue::get);
    let map: BTreeMap<String, String> = serde_json::from_str(text)
        .map_err(|e| format!("arguments must be strings: {}", without_position(e.to_string())))?;
    let entries = map.into_iter().map(|(key, value)| (key, Text(value)));
    let de: MapDeserializer<'_, _, Error> = MapDeserializer::new(entries);
    serde_path_to_error::deserialize(de).map_err(naming_the_field)
}

/// One argument's text, read as whatever type its field asks for.
struct Text(String);

impl IntoDeserializer<'_, Error> for Text {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl Text {
    fn parse<T: std::str::FromStr>(&self, what: &str) -> Result<T, Error> {
        self.0.trim().parse().map_err(|_| de::Error::custom(format!("expected {what}, got {:?}", self.0)))
    }
}

/// `deserialize_<type>` methods that parse the text as `<type>` and visit it.
macro_rules! parsed {
    ($($method:ident => $visit:ident: $ty:ty, $what:literal;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                visitor.$visit(self.parse::<$ty>($what)?)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Text {
    type Error = Error;

    /// A field of no particular type (`String`, `serde_json::Value`) takes the text.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.0)
    }

    parsed! {
        deserialize_bool => visit_bool: bool, "true or false";
        deserialize_i8 => visit_i8: i8, "an integer";
        deserialize_i16 => visit_i16: i16, "an integer";
        deserialize_i32 => visit_i32: i32, "an integer";
        deserialize_i64 => visit_i64: i64, "an integer";
        deserialize_i128 => visit_i128: i128, "an integer";
        deserialize_u8 => visit_u8: u8, "a non-negative integer";
        deserialize_u16 => visit_u16: u16, "a non-negative integer";
        deserialize_u32 => visit_u32: u32, "a non-negative integer";
        deserialize_u64 => visit_u64: u64, "a non-negative integer";
        deserialize_u128 => visit_u128: u128, "a non-negative integer";
        deserialize_f32 => visit_f32: f32, "a number";
        deserialize_f64 => visit_f64: f64, "a number";
        deserialize_char => visit_char: char, "one character";
    }

    /// A present argument of an `Option` field is `Some` (an absent one is `None`).
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    /// A unit enum variant by its name.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize, Debug, PartialEq)]
    enum Mood {
        Calm,
        Loud,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Typed {
        id: u32,
        ratio: f64,
        loud: bool,
        name: String,
        mood: Mood,
        limit: Option<i64>,
        page: Option<u8>,
    }

    fn decode<T: DeserializeOwned>(json: &str) -> Result<T, String> {
        decode_string_arguments(Some(&RawValue::from_string(json.to_owned()).unwrap()))
    }

    #[test]
    fn each_string_is_read_as_its_fields_type() {
        let typed: Typed = decode(
            r#"{"id": "7", "ratio": "0.5", "loud": "true", "name": "007", "mood": "Calm", "limit": "-3"}"#,
        )
        .unwrap();
        let expected = Typed {
            id: 7,
            ratio: 0.5,
            loud: true,
            name: "007".into(),
            mood: Mood::Calm,
            limit: Some(-3),
            page: None,
        };
        assert_eq!(typed, expected);
    }

    #[test]
    fn a_value_that_does_not_parse_names_its_field() {
        let err =
            decode::<Typed>(r#"{"id": "seven", "ratio": "1", "loud": "no", "name": "", "mood": "Calm"}"#)
                .unwrap_err();
        assert!(err.starts_with("id: expected a non-negative integer"), "{err}");
        let err = decode::<Typed>(r#"{"id": "1", "ratio": "1", "loud": "true", "name": "", "mood": "Sad"}"#)
            .unwrap_err();
        assert!(err.starts_with("mood: unknown variant `Sad`"), "{err}");
        let err =
            decode::<Typed>(r#"{"ratio": "1", "loud": "true", "name": "", "mood": "Calm"}"#).unwrap_err();
        assert_eq!(err, "missing field `id`");
        let err = decode::<Typed>(r#"{"id": 7}"#).unwrap_err();
        assert!(err.starts_with("arguments must be strings"), "{err}");
    }

    #[test]
    fn untyped_fields_and_maps_keep_the_text() {
        let map: BTreeMap<String, String> = decode(r#"{"a": "1", "b": "x"}"#).unwrap();
        assert_eq!(map["a"], "1");
        let value: BTreeMap<String, serde_json::Value> = decode(r#"{"a": "1"}"#).unwrap();
        assert_eq!(value["a"], "1");
        let empty: BTreeMap<String, String> = decode_string_arguments(None).unwrap();
        assert!(empty.is_empty());
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Inner {
        n: u8,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Outer {
        text: String,
        #[serde(default)]
        list: Vec<Inner>,
        #[serde(default)]
        flag: Option<bool>,
    }

    /// The decoder before the plain-serde fast path: path tracking on every call.
    fn tracked<T: DeserializeOwned>(arguments: Option<&RawValue>) -> Result<T, String> {
        decode_tracked(arguments.map_or("{}", RawValue::get))
    }

    #[test]
    fn fast_path_decodes_and_fails_exactly_like_path_tracking() {
        let inputs = [
            r#"{"text":"a"}"#,
            r#"{"text":"a\"b\u00e9","list":[{"n":1},{"n":2}],"flag":true}"#,
            r#"{"text":"a","extra":[1,2,3]}"#,
            r#"{}"#,
            r#"{"text":1}"#,
            r#"{"text":"a","list":[{"n":1},{"n":300}]}"#,
            r#"{"text":"a","list":[{"m":1}]}"#,
            r#"{"text":"a","flag":"yes"}"#,
            r#"{"text":"a","text":"b"}"#,
            r#"[1]"#,
            r#"["a",[]]"#,
            r#"5"#,
        ];
        for input in inputs {
            let raw = RawValue::from_string(input.to_owned()).unwrap();
            let fast = decode_arguments::<Outer>(Some(&raw));
            assert_eq!(fast, tracked::<Outer>(Some(&raw)), "{input}");
        }
        assert_eq!(decode_arguments::<Outer>(None), tracked::<Outer>(None));
        let err = decode_arguments::<Outer>(Some(&RawValue::from_string(inputs[5].to_owned()).unwrap()));
        assert!(err.unwrap_err().starts_with("list[1].n: "), "the error names the field");
    }

    #[test]
    fn errors_say_what_and_where_without_a_text_position() {
        let decode =
            |input: &str| decode_arguments::<Outer>(Some(&RawValue::from_string(input.to_owned()).unwrap()));
        assert_eq!(decode("{}").unwrap_err(), "missing field `text`");
        assert_eq!(
            decode(r#"{"text":1}"#).unwrap_err(),
            "text: invalid type: integer `1`, expected a string"
        );
        // A message that merely contains the words keeps them.
        assert_eq!(without_position("at line 3".into()), "at line 3");
        assert_eq!(without_position("x at line 1 column".into()), "x at line 1 column");
        assert_eq!(without_position("x at line 1 column 9".into()), "x");
    }

    /// A number with no fraction is an integer in JSON Schema, so `5.0` meets an input
    /// schema's `"type": "integer"` and fills an integer field, nested or not, as `5`
    /// does (a client that keeps every number as a double sends it so). A fraction, or
    /// an integer out of the field's range, is refused as before.
    #[test]
    fn a_number_without_a_fraction_fills_an_integer_field() {
        #[derive(Deserialize, Debug, PartialEq)]
        struct Counted {
            count: u32,
            offset: i64,
            list: Vec<Inner>,
            ratio: f64,
        }
        let decode = |input: &str| {
            decode_arguments::<Counted>(Some(&RawValue::from_string(input.to_owned()).unwrap()))
        };
        let counted = decode(r#"{"count": 5.0, "offset": -2.0, "list": [{"n": 7.0}], "ratio": 1.0}"#);
        let expected = Counted { count: 5, offset: -2, list: vec![Inner { n: 7 }], ratio: 1.0 };
        assert_eq!(counted, Ok(expected));
        assert_eq!(decode(r#"{"count": 1e2, "offset": 0, "list": [], "ratio": 0}"#).unwrap().count, 100);
        assert_eq!(
            decode(r#"{"count": 5.5, "offset": 0, "list": [], "ratio": 0}"#).unwrap_err(),
            "count: invalid type: floating point `5.5`, expected u32"
        );
        assert_eq!(
            decode(r#"{"count": 1, "offset": 0, "list": [{"n": 300.0}], "ratio": 0}"#).unwrap_err(),
            "list[0].n: invalid value: integer `300`, expected u8"
        );
        assert!(decode(r#"{"count": 1e30, "offset": 0, "list": [], "ratio": 0}"#).is_err());
    }

    /// A client's own text in a decoding error (an unknown enum value, a map key on the
    /// path) is quoted cut, whatever its length: the message goes back to the client and
    /// into the model's context.
    #[test]
    fn client_text_in_an_error_is_cut() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Args {
            mood: Mood,
            scores: std::collections::BTreeMap<String, u8>,
        }
        let long = "x".repeat(100_000);
        let unknown = decode_arguments::<Args>(Some(
            &RawValue::from_string(format!(r#"{{"mood":"{long}","scores":{{}}}}"#)).unwrap(),
        ))
        .unwrap_err();
        assert!(unknown.starts_with("mood: unknown variant"), "{}", &unknown[..80]);
        assert!(unknown.len() < 1_200, "{} bytes", unknown.len());
        let key = decode_arguments::<Args>(Some(
            &RawValue::from_string(format!(r#"{{"mood":"Calm","scores":{{"{long}":"high"}}}}"#)).unwrap(),
        ))
        .unwrap_err();
        assert!(key.starts_with("scores.xxx"), "{}", &key[..80]);
        assert!(key.contains("invalid type"), "{}", &key[key.len().saturating_sub(120)..]);
        assert!(key.len() < 1_200, "{} bytes", key.len());
    }
}
