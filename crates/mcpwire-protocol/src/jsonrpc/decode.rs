//! Decoding a frame (one message or a batch) into [`Message`]s, with the JSON-RPC error
//! each kind of bad input gets: a parse error for text that is not JSON, an invalid
//! request for JSON that is not a message.

use serde::de;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::*;
use crate::error::codes;
use crate::id::RequestId;

/// Why a frame could not be decoded into a message.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeError {
    /// [`codes::PARSE_ERROR`] for text that is not JSON, [`codes::INVALID_REQUEST`] for
    /// JSON that is not a valid JSON-RPC message.
    pub code: i64,
    /// What was wrong, for logs and for the error response.
    pub message: String,
    /// The request id, when the frame was an object whose `id` could be read; an answer
    /// to an invalid request carries it.
    pub id: Option<RequestId>,
    /// Whether the frame looked like a request (it had an `id` and a `method`), so the
    /// decision to answer it can follow JSON-RPC.
    pub had_method: bool,
    /// Whether the frame is an object with an `id`, a `result` or an `error`, and no
    /// `method`: an answer, which is never answered back (the peer would answer the
    /// answer), even when its id could not be read. (One without an `id` member at all
    /// gets the invalid request JSON-RPC prescribes.)
    pub is_answer: bool,
}

impl DecodeError {
    fn parse(err: serde_json::Error) -> Self {
        DecodeError::not_json(&err)
    }

    /// A [`codes::PARSE_ERROR`]: `why` the text is not JSON.
    fn not_json(why: &dyn std::fmt::Display) -> Self {
        DecodeError {
            code: codes::PARSE_ERROR,
            message: format!("Parse error: {why}"),
            id: None,
            had_method: false,
            is_answer: false,
        }
    }

    fn invalid(message: impl Into<String>, id: Option<RequestId>, had_method: bool) -> Self {
        DecodeError {
            code: codes::INVALID_REQUEST,
            message: message.into(),
            id,
            had_method,
            is_answer: false,
        }
    }

    /// The error response JSON-RPC prescribes for this frame.
    pub fn to_response(&self) -> ErrorResponse {
        ErrorResponse::new(self.id.clone(), ErrorObject::new(self.code, self.message.clone()))
    }
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DecodeError {}

/// The most messages a batch may hold. JSON-RPC sets no limit, but each element costs a
/// decoded message and an answer held until the whole batch is answered: a 16 MiB line of
/// `[1,1,1,...]` would otherwise become four million errors, most of a gigabyte.
pub const MAX_BATCH_MESSAGES: usize = 10_000;

/// One decoded frame: a single message or, where a revision allows them, a batch.
#[derive(Debug)]
pub enum Frame {
    /// A single message.
    Single(Message),
    /// A JSON array of messages (2025-03-26 sessions only); each element decodes or fails
    /// on its own.
    Batch(Vec<Result<Message, DecodeError>>),
}

/// Decodes one frame (a line on stdio, a body on HTTP).
///
/// Never panics: text that is not JSON (including invalid UTF-8, nesting deeper than 128
/// levels, and truncated input) gives a [`codes::PARSE_ERROR`]; JSON that is not a
/// JSON-RPC message gives [`codes::INVALID_REQUEST`], with the id when it could be read.
pub fn decode_frame(bytes: &[u8]) -> Result<Frame, DecodeError> {
    // JSON text is UTF-8 (RFC 8259), all of it: checked once, here, whichever member holds
    // a bad byte (serde_json, reading bytes, would let one pass in a member it skips).
    let text = std::str::from_utf8(bytes)
        .map_err(|e| DecodeError::not_json(&format_args!("invalid UTF-8 at byte {}", e.valid_up_to())))?;
    decode_frame_from(text)
}

/// Decodes exactly one message; a batch is an [`codes::INVALID_REQUEST`].
pub fn decode_message(bytes: &[u8]) -> Result<Message, DecodeError> {
    match decode_frame(bytes)? {
        Frame::Single(m) => Ok(m),
        Frame::Batch(_) => {
            Err(DecodeError::invalid("Invalid request: batches are not supported", None, false))
        }
    }
}

fn decode_frame_from(text: &str) -> Result<Frame, DecodeError> {
    let first = text.bytes().find(|b| !b.is_ascii_whitespace());
    if first == Some(b'[') {
        let BatchItems(items) = serde_json::from_str(text).map_err(|e| match e.is_data() {
            // The elements are any JSON at all: a data error is the size limit's.
            true => DecodeError::invalid(
                format!("Invalid request: a batch may hold at most {MAX_BATCH_MESSAGES} messages"),
                None,
                false,
            ),
            false => DecodeError::parse(e),
        })?;
        if items.is_empty() {
            return Err(DecodeError::invalid("Invalid request: empty batch", None, false));
        }
        let messages = items.iter().map(|raw| decode_value(raw.get())).collect();
        return Ok(Frame::Batch(messages));
    }
    decode_value(text).map(Frame::Single)
}

/// A batch's elements, as raw JSON, refused past [`MAX_BATCH_MESSAGES`] as they are read
/// (before a huge batch is held whole).
struct BatchItems<'a>(Vec<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for BatchItems<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Elements<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> de::Visitor<'de> for Elements<'a> {
            type Value = BatchItems<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON array")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<&'de RawValue>()? {
                    if items.len() == MAX_BATCH_MESSAGES {
                        return Err(de::Error::custom("too many messages in the batch"));
                    }
                    items.push(item);
                }
                Ok(BatchItems(items))
            }
        }
        deserializer.deserialize_seq(Elements(std::marker::PhantomData))
    }
}

fn decode_value(text: &str) -> Result<Message, DecodeError> {
    let first = text.bytes().find(|b| !b.is_ascii_whitespace());
    if first != Some(b'{') {
        // Valid JSON that is not an object is an invalid request; anything else a parse error.
        return match serde_json::from_str::<de::IgnoredAny>(text) {
            Ok(_) => {
                Err(DecodeError::invalid("Invalid request: a message must be a JSON object", None, false))
            }
            Err(e) => Err(DecodeError::parse(e)),
        };
    }
    // The members are borrowed from the input: only the method name and the params are
    // copied out, once each (an owned capture allocated every member, then parsed the
    // method again into a `String`).
    let envelope: Envelope<'_> = serde_json::from_str(text).map_err(|e| {
        if e.is_data() {
            DecodeError::invalid(format!("Invalid request: {e}"), None, false)
        } else {
            DecodeError::parse(e)
        }
    })?;
    envelope.classify()
}

/// Every member any message may have, captured (borrowed, unparsed) before deciding
/// which message it is.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// [`Envelope`] with owned members, for [`Message`]'s `Deserialize` impl, whose
/// deserializer may not lend its input (a reader).
#[derive(Deserialize)]
struct OwnedEnvelope {
    #[serde(default)]
    jsonrpc: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "present_owned")]
    id: Option<Box<RawValue>>,
    #[serde(default)]
    method: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "present_owned")]
    params: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "present_owned")]
    result: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "present_owned")]
    error: Option<Box<RawValue>>,
}

impl OwnedEnvelope {
    fn classify(&self) -> Result<Message, DecodeError> {
        Envelope {
            jsonrpc: self.jsonrpc.as_deref(),
            id: self.id.as_deref(),
            method: self.method.as_deref(),
            params: self.params.as_deref(),
            result: self.result.as_deref(),
            error: self.error.as_deref(),
        }
        .classify()
    }
}

/// Captures a member's raw JSON even when it is `null`, so that "absent" and "null" differ.
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// [`present`], owned.
fn present_owned<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    Box::<RawValue>::deserialize(d).map(Some)
}

/// The id in `raw`: one [`plain_id`] reads is read directly; anything else (a sign, a
/// fraction, an exponent, a huge number, an escaped string) goes through [`RequestId`]'s
/// own parser, which decides exactly as before. `-0` is the integer zero: an integer in
/// JSON's grammar (no fraction, no exponent) and in the schema's, which serde_json reads
/// as the float `-0.0` (so the parser, which cannot tell it from `-0.0` written out,
/// would refuse it).
pub(crate) fn read_id(raw: &RawValue) -> Result<RequestId, serde_json::Error> {
    let text = raw.get();
    match plain_id(text) {
        Some(id) => Ok(id),
        None if text == "-0" => Ok(RequestId::Number(0)),
        None => serde_json::from_str(text),
    }
}

/// The id in `text`, a checked JSON value, when it is plain decimal digits (up to 18,
/// which always fit an `i64`; checked JSON has no leading zeros) or a string without
/// escapes: what [`RequestId`]'s parser reads, without its machinery. `None` otherwise.
pub(crate) fn plain_id(text: &str) -> Option<RequestId> {
    if text.starts_with('"') {
        return crate::skim::plain_string(text).map(|inner| RequestId::String(inner.to_owned()));
    }
    if !text.is_empty() && text.len() <= 18 && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().ok().map(RequestId::Number);
    }
    None
}

/// The integer `text` (a checked JSON value) writes with a fraction of nothing but zeros
/// and no exponent (`7.0`, `-2.00`), as serializers that keep numbers as floats write
/// integers; `None` for any other value, and past the `i64` range.
fn integral(text: &str) -> Option<RequestId> {
    let (whole, fraction) = text.split_once('.')?;
    if fraction.is_empty() || !fraction.bytes().all(|b| b == b'0') {
        return None;
    }
    whole.parse().ok().map(RequestId::Number)
}

/// The string in `raw`: one without escapes is its text between the quotes (valid JSON
/// has no control characters there); anything else is parsed.
fn read_string(raw: &RawValue) -> Result<String, serde_json::Error> {
    let text = raw.get();
    match crate::skim::plain_string(text) {
        Some(inner) => Ok(inner.to_owned()),
        None => serde_json::from_str(text),
    }
}

impl Envelope<'_> {
    fn classify(&self) -> Result<Message, DecodeError> {
        self.classify_members().map_err(|mut e| {
            e.is_answer =
                self.id.is_some() && self.method.is_none() && (self.result.is_some() || self.error.is_some());
            e
        })
    }

    fn classify_members(&self) -> Result<Message, DecodeError> {
        let had_method = self.method.is_some();
        let id = match self.id {
            None => None,
            // JSON-RPC's own form of an error response whose request's id could not be
            // read: taken as one without an id (answering it, as an invalid request,
            // would answer a response, and two peers could answer each other forever).
            Some(raw)
                if raw.get() == "null" && !had_method && self.error.is_some() && self.result.is_none() =>
            {
                None
            }
            Some(raw) => match read_id(raw) {
                Ok(id) => Some(id),
                // An answer's id written with a fraction of zero is the same JSON number
                // as the integer id of the request it answers (so both official SDKs
                // read it); a request's must be an integer or a string.
                Err(_) if !had_method && integral(raw.get()).is_some() => integral(raw.get()),
                Err(_) => {
                    let text = raw.get();
                    let what = if text == "null" {
                        "id must not be null"
                    } else if text.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()) {
                        "an integer id must be within a 64-bit signed integer's range (use a string for larger ones)"
                    } else {
                        "id must be a string or an integer"
                    };
                    return Err(DecodeError::invalid(format!("Invalid request: {what}"), None, had_method));
                }
            },
        };
        let invalid =
            |msg: &str| Err(DecodeError::invalid(format!("Invalid request: {msg}"), id.clone(), had_method));
        match self.jsonrpc.map(RawValue::get) {
            Some("\"2.0\"") => {}
            Some(_) => return invalid("jsonrpc must be \"2.0\""),
            None => return invalid("missing jsonrpc member"),
        }
        if let Some(method) = self.method {
            let method: String = match read_string(method) {
                Ok(m) => m,
                Err(_) => return invalid("method must be a string"),
            };
            if self.result.is_some() || self.error.is_some() {
                return invalid("a message cannot have both a method and a result or error");
            }
            let params = match self.params {
                Some(p) if p.get().starts_with('{') => Some(p.to_owned()),
                Some(p) if p.get() == "null" => return invalid("params must not be null"),
                // JSON-RPC allows positional (array) params; MCP never uses them.
                Some(_) => return invalid("params must be an object"),
                None => None,
            };
            return Ok(match id {
                Some(id) => Message::Request(Request { jsonrpc: JsonRpcVersion, id, method, params }),
                None => Message::Notification(Notification { jsonrpc: JsonRpcVersion, method, params }),
            });
        }
        match (self.result, self.error) {
            (Some(_), Some(_)) => invalid("a response cannot have both result and error"),
            (Some(result), None) => match id {
                Some(id) => {
                    Ok(Message::Response(Response { jsonrpc: JsonRpcVersion, id, result: result.to_owned() }))
                }
                None => invalid("a result response needs an id"),
            },
            (None, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
                Ok(error) => Ok(Message::Error(ErrorResponse { jsonrpc: JsonRpcVersion, id, error })),
                Err(e) => invalid(&format!("malformed error object: {e}")),
            },
            (None, None) => invalid("neither a method nor a result nor an error"),
        }
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let envelope = OwnedEnvelope::deserialize(deserializer)?;
        envelope.classify().map_err(|e| de::Error::custom(e.message))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn decode(s: &str) -> Result<Message, DecodeError> {
        decode_message(s.as_bytes())
    }

    #[test]
    fn classifies_the_four_kinds() {
        assert!(matches!(decode(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Ok(Message::Request(_))));
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","method":"x","params":{}}"#),
            Ok(Message::Notification(_))
        ));
        assert!(matches!(decode(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#), Ok(Message::Response(_))));
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}"#),
            Ok(Message::Error(_))
        ));
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"m"}}"#),
            Ok(Message::Error(ErrorResponse { id: None, .. }))
        ));
    }

    #[test]
    fn an_error_response_with_a_null_id_is_one_without_an_id() {
        // JSON-RPC 2.0 writes `"id": null` when the request's id could not be read.
        assert!(matches!(
            decode(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}"#),
            Ok(Message::Error(ErrorResponse { id: None, .. }))
        ));
        // Still invalid where a null id is not that form.
        for input in [
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m","error":{"code":1,"message":""}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{},"error":{"code":1,"message":""}}"#,
        ] {
            assert_eq!(decode(input).expect_err(input).code, codes::INVALID_REQUEST, "{input}");
        }
    }

    #[test]
    fn keeps_params_raw_and_verbatim() {
        let Ok(Message::Request(r)) =
            decode(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"b":1,  "a":[2]}}"#)
        else {
            panic!("not a request")
        };
        assert_eq!(r.params.as_deref().map(RawValue::get), Some(r#"{"b":1,  "a":[2]}"#));
    }

    #[test]
    fn parse_errors_and_invalid_requests() {
        for (input, code) in [
            ("{", codes::PARSE_ERROR),
            ("not json", codes::PARSE_ERROR),
            ("", codes::PARSE_ERROR),
            ("\u{0}", codes::PARSE_ERROR),
            ("42", codes::INVALID_REQUEST),
            ("\"x\"", codes::INVALID_REQUEST),
            ("[]", codes::INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#, codes::INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":{},"method":"m"}"#, codes::INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#, codes::INVALID_REQUEST),
            (r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#, codes::INVALID_REQUEST),
            (r#"{"id":1,"method":"m"}"#, codes::INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, codes::INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#, codes::INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#, codes::INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":1}"#, codes::INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","result":{}}"#, codes::INVALID_REQUEST),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#,
                codes::INVALID_REQUEST,
            ),
        ] {
            let err = decode(input).expect_err(input);
            assert_eq!(err.code, code, "{input}: {}", err.message);
        }
    }

    #[test]
    fn an_integer_id_past_64_bits_is_named_as_such() {
        for id in ["9223372036854775808", "-9223372036854775809", "123456789012345678901234567890"] {
            let e = decode(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)).unwrap_err();
            assert!(e.message.contains("64-bit"), "{id}: {}", e.message);
        }
        let e = decode(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).unwrap_err();
        assert!(e.message.contains("a string or an integer"), "{}", e.message);
    }

    /// `-0` is an integer in JSON's grammar (no fraction, no exponent) whose value is
    /// zero: the id `0`, for a request and for an answer alike (stdio and HTTP read frames
    /// here). With a fraction or an exponent it is a number that is not an integer id.
    #[test]
    fn a_negative_zero_id_is_the_integer_zero() {
        let Ok(Message::Request(r)) = decode(r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#) else {
            panic!("a request")
        };
        assert_eq!(r.id, RequestId::from(0));
        let Ok(Message::Response(r)) = decode("{\"jsonrpc\":\"2.0\",\"id\": \t-0 \n,\"result\":{}}") else {
            panic!("a response")
        };
        assert_eq!(r.id, RequestId::from(0));
        for id in ["-0.0", "-0e0", "-0E-0"] {
            let e = decode(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)).unwrap_err();
            assert_eq!(e.message, "Invalid request: id must be a string or an integer", "{id}");
        }
    }

    #[test]
    fn an_answer_id_with_a_zero_fraction_is_that_integer() {
        for (id, n) in [("7.0", 7), ("-2.00", -2), ("0.0", 0)] {
            let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
            let Ok(Message::Response(r)) = decode(&frame) else { panic!("{frame}") };
            assert_eq!(r.id, RequestId::from(n));
        }
        for id in ["7.5", "7e0", "9223372036854775808.0"] {
            let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
            let e = decode(&frame).map(drop).unwrap_err();
            assert!(e.is_answer && e.id.is_none(), "{frame}: {e:?}");
        }
        // A request's id stays an integer or a string.
        let e = decode(r#"{"jsonrpc":"2.0","id":7.0,"method":"ping"}"#).unwrap_err();
        assert!(!e.is_answer && e.had_method, "{e:?}");
    }

    #[test]
    fn an_answer_whose_id_cannot_be_read_is_still_an_answer() {
        for frame in [
            r#"{"jsonrpc":"2.0","id":[1],"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":true,"result":{}}"#,
        ] {
            let e = decode(frame).map(drop).unwrap_err();
            assert!(e.is_answer && e.id.is_none(), "{frame}: {e:?}");
        }
        for frame in [
            "{",
            r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":[1]}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
        ] {
            assert!(!decode(frame).map(drop).unwrap_err().is_answer, "{frame}");
        }
    }

    #[test]
    fn invalid_request_keeps_a_readable_id() {
        let err = decode(r#"{"jsonrpc":"1.0","id":"abc","method":"m"}"#).unwrap_err();
        assert_eq!(err.id, Some(RequestId::from("abc")));
        assert_eq!(err.to_response().id, Some(RequestId::from("abc")));
    }

    #[test]
    fn invalid_utf8_is_a_parse_error() {
        let err = decode_message(b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}").unwrap_err();
        assert_eq!(err.code, codes::PARSE_ERROR);
        // In a member nobody reads, too, and in a batch's element.
        for frame in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"x\":\"\xff\xfe\"}"[..],
            b"[{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"},{\"x\":\"\xc3\"}]",
        ] {
            let err = decode_frame(frame).map(drop).unwrap_err();
            assert_eq!((err.code, err.id.clone()), (codes::PARSE_ERROR, None), "{}", err.message);
            assert!(err.message.starts_with("Parse error: invalid UTF-8 at byte "), "{}", err.message);
        }
    }

    /// Raw capture skips nested values without recursion, so a 100k-deep body routes
    /// without a stack overflow; parsing it into a typed value then fails cleanly at
    /// serde_json's depth limit.
    #[test]
    fn deep_nesting_never_overflows() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"a":{}{}}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let Ok(Message::Request(r)) = decode(&deep) else { panic!("the envelope should decode") };
        assert!(r.parse_params::<serde_json::Value>().is_err());
        let unclosed = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{}"#, "[".repeat(100_000));
        assert_eq!(decode(&unclosed).map(|_| ()).unwrap_err().code, codes::PARSE_ERROR);
    }

    #[test]
    fn batches_decode_element_by_element() {
        let Ok(Frame::Batch(items)) =
            decode_frame(br#"[{"jsonrpc":"2.0","id":1,"method":"a"}, 3, {"jsonrpc":"2.0","method":"b"}]"#)
        else {
            panic!("not a batch")
        };
        assert!(matches!(items[0], Ok(Message::Request(_))));
        assert_eq!(items[1].as_ref().unwrap_err().code, codes::INVALID_REQUEST);
        assert!(matches!(items[2], Ok(Message::Notification(_))));
    }

    #[test]
    fn a_batch_past_the_limit_is_one_invalid_request() {
        let batch = |n: usize| format!("[{}]", vec!["1"; n].join(","));
        let Ok(Frame::Batch(items)) = decode_frame(batch(MAX_BATCH_MESSAGES).as_bytes()) else {
            panic!("a batch at the limit is taken")
        };
        assert_eq!(items.len(), MAX_BATCH_MESSAGES);
        for text in [batch(MAX_BATCH_MESSAGES + 1), format!("{}\u{0}", batch(MAX_BATCH_MESSAGES + 1))] {
            let error = decode_frame(text.as_bytes()).unwrap_err();
            assert_eq!((error.code, error.id), (codes::INVALID_REQUEST, None), "{}", error.message);
            assert!(error.message.contains("at most 10000 messages"), "{}", error.message);
        }
        // Not JSON is still a parse error, within the limit or past it.
        let mut invalid = batch(MAX_BATCH_MESSAGES + 5).into_bytes();
        invalid.insert(3, 0xff);
        assert_eq!(decode_frame(&invalid).unwrap_err().code, codes::PARSE_ERROR);
        assert_eq!(decode_frame(b"[1,2,").unwrap_err().code, codes::PARSE_ERROR);
    }
}
