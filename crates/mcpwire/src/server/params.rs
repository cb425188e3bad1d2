//! A method's params read into their type with `_meta` set aside as text.
//!
//! Every request of the 2026 era carries its envelope (version, capabilities, client
//! identity) in `params._meta`, and most handlers never look at it. So the router reads
//! any method's params through [`parse_with_meta`]: the params type never sees `_meta`
//! (its own `meta` field stays `None`), and the text is kept for the handler's context,
//! which makes a tree of it the first time [`Ctx::meta`](super::Ctx::meta) asks. One
//! reading for every method, instead of a tree of the whole envelope per request.
//!
//! The params type is read by serde_json as usual; only the map it is handed is wrapped,
//! to take the `_meta` member out of it ([`WithoutMeta`]).

use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::request_meta::RequestMeta;
use crate::error::McpError;

/// The `_meta` key of a request's params.
const META: &str = "_meta";

/// Parses params (absent params parse as `{}`); a mismatch is `-32602`. `T` may borrow
/// from the params' text.
pub(crate) fn parse<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, McpError> {
    let text = params.map_or("{}", RawValue::get);
    // MCP's params are an object: a derived reader would take an array as the fields in
    // order.
    if text.trim_start().starts_with('[') {
        return Err(McpError::invalid_params("Invalid params: expected an object, not an array"));
    }
    serde_json::from_str(text).map_err(invalid_params)
}

/// A params parse error as the `-32602` that answers it. serde's message may quote the
/// client's own text (an unknown enum value), so at most 500 characters of it are kept.
pub(crate) fn invalid_params(error: serde_json::Error) -> McpError {
    McpError::invalid_params(format!("Invalid params: {}", crate::error::shown(&error.to_string(), 500)))
}

/// Reads `params` (absent params read as `{}`) into `T`, with `_meta` kept as its text.
/// Errors are `-32602`, worded as serde_json words them for `T`; a `_meta` that is not an
/// object (nor `null`) gets the error `T` itself gives it.
pub(crate) fn parse_with_meta<'a, T: Deserialize<'a>>(
    params: Option<&'a RawValue>,
) -> Result<(T, RequestMeta), McpError> {
    let text = params.map_or("{}", RawValue::get);
    if !text.trim_start().starts_with('{') {
        // Not an object: `T` says what is wrong with it, as it always has.
        return parse::<T>(params).map(|p| (p, RequestMeta::from_text(None)));
    }
    let mut meta = None;
    let mut reader = serde_json::Deserializer::from_str(text);
    let parsed = T::deserialize(HideMeta { inner: &mut reader, meta: &mut meta })
        .and_then(|p| reader.end().map(|()| p))
        .map_err(invalid_params)?;
    match meta {
        Some(m) if m.get() == "null" => Ok((parsed, RequestMeta::from_text(None))),
        Some(m) if !m.get().starts_with('{') => {
            // The reading that keeps `_meta` in `T` reports it word for word (and a type
            // without a `meta` field ignores it, as it did).
            parse::<T>(params).map(|p| (p, RequestMeta::from_text(None)))
        }
        meta => Ok((parsed, RequestMeta::from_text(meta))),
    }
}

/// A JSON object's deserializer whose map has no `_meta` member: what it held goes to
/// `meta`, as text.
struct HideMeta<'m, D> {
    inner: D,
    meta: &'m mut Option<Box<RawValue>>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for HideMeta<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(MapVisitor { inner: visitor, meta: self.meta })
    }

    // A struct or a map is read from the object the same way (`parse_with_meta` only
    // hands objects here), so every request goes through `deserialize_any`.
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// Hands the params type the object's map, `_meta` taken out.
struct MapVisitor<'m, V> {
    inner: V,
    meta: &'m mut Option<Box<RawValue>>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for MapVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(WithoutMeta { inner: map, meta: self.meta })
    }
}

/// A map whose `_meta` member is read as text into `meta` and skipped. A repeated
/// `_meta` keeps the last, as a tree does.
struct WithoutMeta<'m, A> {
    inner: A,
    meta: &'m mut Option<Box<RawValue>>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WithoutMeta<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        loop {
            let Some(key) = self.inner.next_key_seed(KeySeed)? else { return Ok(None) };
            match key {
                Key::Borrowed(META) => *self.meta = Some(self.inner.next_value()?),
                Key::Owned(name) if name == META => *self.meta = Some(self.inner.next_value()?),
                Key::Borrowed(name) => return seed.deserialize(BorrowedStrDeserializer::new(name)).map(Some),
                Key::Owned(name) => return seed.deserialize(StringDeserializer::new(name)).map(Some),
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// A member name: borrowed from the text when it has no escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

/// Reads a member name as a [`Key`].
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key<'de>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Key<'de>, E> {
        Ok(Key::Borrowed(name))
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Key<'de>, E> {
        Ok(Key::Owned(name.to_owned()))
    }

    fn visit_string<E: de::Error>(self, name: String) -> Result<Key<'de>, E> {
        Ok(Key::Owned(name))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use mcpwire_protocol::prompts::GetPromptRequestParams;
    use mcpwire_protocol::tools::CallToolRequestParams;
    use serde_json::json;

    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    fn meta_of(meta: &RequestMeta) -> Option<serde_json::Value> {
        meta.get().map(|m| serde_json::Value::Object(m.clone()))
    }

    #[test]
    fn meta_is_set_aside_as_text_and_the_rest_read_as_usual() {
        let params = raw(r#"{"name":"t","_meta":{"progressToken":3,"x":{"y":[1]}},"arguments":{"a":1}}"#);
        let (p, meta) = parse_with_meta::<CallToolRequestParams>(Some(&params)).unwrap();
        assert_eq!(p.name, "t");
        assert_eq!(p.arguments.unwrap().get(), r#"{"a":1}"#);
        assert!(p.meta.is_none(), "the type never sees `_meta`");
        assert_eq!(meta_of(&meta), Some(json!({"progressToken": 3, "x": {"y": [1]}})));
    }

    #[test]
    fn every_params_type_reads_the_same_way() {
        let params = raw(r#"{"_meta":{"k":"v"},"name":"greet","arguments":{"who":"me"}}"#);
        let (p, meta) = parse_with_meta::<GetPromptRequestParams>(Some(&params)).unwrap();
        assert_eq!(p.name, "greet");
        assert_eq!(p.arguments.unwrap().get("who").map(String::as_str), Some("me"));
        assert_eq!(meta_of(&meta), Some(json!({"k": "v"})));
    }

    #[test]
    fn absent_null_and_escaped_meta() {
        let (_, meta) = parse_with_meta::<GetPromptRequestParams>(Some(&raw(r#"{"name":"p"}"#))).unwrap();
        assert!(meta.get().is_none());
        let (_, meta) =
            parse_with_meta::<GetPromptRequestParams>(Some(&raw(r#"{"name":"p","_meta":null}"#))).unwrap();
        assert!(meta.get().is_none());
        // A member name spelled with an escape is the same name.
        let (p, meta) = parse_with_meta::<GetPromptRequestParams>(Some(&raw(
            r#"{"n\u0061me":"p","\u005fmeta":{"a":1}}"#,
        )))
        .unwrap();
        assert_eq!(p.name, "p");
        assert_eq!(meta_of(&meta), Some(json!({"a": 1})));
        // A repeated `_meta` keeps the last, as a tree does.
        let (_, meta) = parse_with_meta::<GetPromptRequestParams>(Some(&raw(
            r#"{"name":"p","_meta":{"a":1},"_meta":{"b":2}}"#,
        )))
        .unwrap();
        assert_eq!(meta_of(&meta), Some(json!({"b": 2})));
        // Absent params read as `{}`: a type with a required member says which.
        let missing = parse_with_meta::<GetPromptRequestParams>(None).unwrap_err();
        let missing = missing.to_error_object().message;
        assert!(missing.contains("missing field `name`"), "{missing}");
    }

    #[test]
    fn errors_are_the_types_own() {
        let bad_meta = raw(r#"{"name":"p","_meta":"nope"}"#);
        let via_meta = parse_with_meta::<GetPromptRequestParams>(Some(&bad_meta)).unwrap_err();
        let direct = super::parse::<GetPromptRequestParams>(Some(&bad_meta)).unwrap_err();
        assert_eq!(via_meta.to_error_object().message, direct.to_error_object().message);
        assert_eq!(via_meta.code(), mcpwire_protocol::codes::INVALID_PARAMS);

        let not_object = raw(r#"[1,2]"#);
        let via_meta = parse_with_meta::<GetPromptRequestParams>(Some(&not_object)).unwrap_err();
        let direct = super::parse::<GetPromptRequestParams>(Some(&not_object)).unwrap_err();
        assert_eq!(via_meta.to_error_object().message, direct.to_error_object().message);

        let wrong_type = raw(r#"{"name":7,"_meta":{}}"#);
        let err = parse_with_meta::<GetPromptRequestParams>(Some(&wrong_type)).unwrap_err();
        let message = err.to_error_object().message;
        assert!(message.starts_with("Invalid params: invalid type: integer `7`"), "{message}");
    }

    /// Setting `_meta` aside gives what reading it into the type gives: the same params,
    /// the same `_meta` once parsed, the same error word for word.
    #[test]
    fn set_aside_agrees_with_reading_it_in() {
        let cases = [
            r#"{"name":"echo","arguments":{"text":"x"}}"#,
            r#"{"name":"echo","_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            r#"{"_meta":{"a":[1,{"b":null}]},"name":"e","requestState":"s","task":{"ttl":5},"extra":1}"#,
            r#"{"name":"echo","_meta":null}"#,
            r#"{"name":"echo","_meta":5}"#,
            r#"{"name":"echo","_meta":[]}"#,
            r#"{"name":"echo","_meta":"x"}"#,
            r#"{"arguments":{}}"#,
            r#"{"name":"echo","arguments":[1]}"#,
            r#"{"name":"echo","name":"twice"}"#,
            r#"[]"#,
            r#"{"name":"echo"} x"#,
        ];
        for text in cases {
            let params = RawValue::from_string(text.to_owned());
            let Ok(params) = params else {
                // Not JSON (trailing characters): neither reading is reached.
                continue;
            };
            let whole = super::parse::<CallToolRequestParams>(Some(&params));
            match (parse_with_meta::<CallToolRequestParams>(Some(&params)), whole) {
                (Ok((p, meta)), Ok(whole)) => {
                    assert!(p.meta.is_none(), "{text}");
                    assert_eq!(CallToolRequestParams { meta: meta.get().cloned(), ..p }, whole, "{text}");
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_error_object().message, b.to_error_object().message, "{text}")
                }
                (a, b) => panic!("{text}: {:?} against {:?}", a.map(|r| r.0), b),
            }
        }
    }

    /// An unknown value quoted by serde (here a logging level) is cut in the message: it is
    /// the client's own text, and may be as long as a message can be.
    #[test]
    fn a_quoted_value_is_cut() {
        let long = "x".repeat(100_000);
        let params = raw(&format!(r#"{{"level":"{long}"}}"#));
        let error = parse::<mcpwire_protocol::logging::SetLevelRequestParams>(Some(&params)).unwrap_err();
        let message = error.to_error_object().message;
        assert!(message.starts_with("Invalid params: unknown variant"), "{}", &message[..60]);
        assert!(message.len() < 1_000, "{} bytes", message.len());
    }
}
