//! JSON-RPC 2.0 envelopes and frame decoding.
//!
//! `params` and `result` stay raw JSON ([`RawValue`]) at this level, so a dispatcher can
//! route a message by method and id without parsing its body; the typed form is parsed on
//! demand ([`Request::parse_params`], [`Response::parse_result`]). The envelope types are
//! generic, so `Request<CallToolRequestParams>` is the typed form of a `tools/call`.

use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::error::ErrorObject;
use crate::id::RequestId;

/// The `"jsonrpc": "2.0"` member. Deserializing anything else fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(deserializer)?;
        if s == "2.0" {
            Ok(JsonRpcVersion)
        } else {
            Err(de::Error::custom(format!("unsupported jsonrpc version {s:?}")))
        }
    }
}

/// Raw JSON, owned.
pub type RawJson = Box<RawValue>;

/// A request: expects exactly one response with the same id.
#[derive(Clone, Debug, Serialize, Deserialize)]
// `default` on `params` would otherwise make serde require `P: Default`.
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub struct Request<P = RawJson> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id the response will carry.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The parameters, if any (never `null` on the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A notification: never answered.
#[derive(Clone, Debug, Serialize, Deserialize)]
// `default` on `params` would otherwise make serde require `P: Default`.
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub struct Notification<P = RawJson> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method name.
    pub method: String,
    /// The parameters, if any (never `null` on the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A successful response.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Response<R = RawJson> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

/// An error response. `id` is absent only when the request's id could not be read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

/// A method and its parameters without an id or `jsonrpc` member: the shape of a 2026
/// input request, and of `ElicitRequest`/`CreateMessageRequest`/`ListRootsRequest` as
/// the 2026 schema defines them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
// `default` on `params` would otherwise make serde require `P: Default`.
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub struct MethodCall<P = serde_json::Value> {
    /// The method name.
    pub method: String,
    /// The parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> Request<P> {
    /// A request.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: Option<P>) -> Self {
        Request { jsonrpc: JsonRpcVersion, id: id.into(), method: method.into(), params }
    }
}

impl Request {
    /// Parses the raw params into `T`; absent params parse as if they were `{}`.
    pub fn parse_params<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        parse_params(self.params.as_deref())
    }
}

impl<P> Notification<P> {
    /// A notification.
    pub fn new(method: impl Into<String>, params: Option<P>) -> Self {
        Notification { jsonrpc: JsonRpcVersion, method: method.into(), params }
    }
}

impl Notification {
    /// Parses the raw params into `T`; absent params parse as if they were `{}`.
    pub fn parse_params<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        parse_params(self.params.as_deref())
    }
}

impl<R> Response<R> {
    /// A successful response.
    pub fn new(id: RequestId, result: R) -> Self {
        Response { jsonrpc: JsonRpcVersion, id, result }
    }
}

impl Response {
    /// Parses the raw result into `T`.
    pub fn parse_result<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.result.get())
    }
}

impl ErrorResponse {
    /// An error response.
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        ErrorResponse { jsonrpc: JsonRpcVersion, id, error }
    }
}

/// Parses optional raw params; `None` parses as `{}` so that parameter structs whose
/// fields are all optional accept a request without `params`.
pub fn parse_params<T: DeserializeOwned>(raw: Option<&RawValue>) -> Result<T, serde_json::Error> {
    serde_json::from_str(raw.map_or("{}", RawValue::get))
}

/// Any single JSON-RPC message.
#[derive(Clone, Debug)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A successful response.
    Response(Response),
    /// An error response.
    Error(ErrorResponse),
}

impl Message {
    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            _ => None,
        }
    }

    /// Serializes the message as compact JSON.
    pub fn to_vec(&self) -> Vec<u8> {
        // A response's length is known before writing it (a fixed envelope, the id, the
        // raw result): a buffer of exactly that size grows no copy on the way and, taken
        // into `Bytes` or a boxed slice, needs no second allocation or shrinking copy.
        let Message::Response(r) = self else {
            let mut out = Vec::with_capacity(128);
            self.write_to(&mut out);
            return out;
        };
        let mut digits = itoa::Buffer::new();
        let id = IdText::of(&r.id, &mut digits);
        // A string id's escapes, if it has any, grow the buffer once.
        let id_len = match id {
            IdText::Digits(d) => d.len(),
            IdText::String(s) => s.len() + 2,
        };
        let mut out = Vec::with_capacity(RESPONSE_ENVELOPE.len() + id_len + r.result.get().len());
        write_response(id, &r.result, &mut out);
        out
    }

    /// Appends the message as compact JSON to `out`. Serializing these types cannot fail:
    /// every member is a string, an integer or already-valid raw JSON.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let result = match self {
            Message::Request(r) => serde_json::to_writer(&mut *out, r),
            Message::Notification(n) => serde_json::to_writer(&mut *out, n),
            Message::Response(r) => {
                write_response(IdText::of(&r.id, &mut itoa::Buffer::new()), &r.result, out);
                Ok(())
            }
            Message::Error(e) => serde_json::to_writer(&mut *out, e),
        };
        debug_assert!(result.is_ok(), "envelope serialization failed: {result:?}");
    }
}

/// The bytes of a response around its id and result (see [`write_response`]).
const RESPONSE_ENVELOPE: &str = r#"{"jsonrpc":"2.0","id":,"result":}"#;

/// A response's id about to be written: an integer already formatted, or a string.
#[derive(Clone, Copy)]
enum IdText<'a> {
    Digits(&'a str),
    String(&'a str),
}

impl<'a> IdText<'a> {
    /// `id`, an integer formatted in `digits`.
    fn of(id: &'a RequestId, digits: &'a mut itoa::Buffer) -> Self {
        match id {
            RequestId::Number(n) => IdText::Digits(digits.format(*n)),
            RequestId::String(s) => IdText::String(s),
        }
    }
}

/// Writes a response by hand: every answer goes through here, and the result is
/// already JSON, so the envelope is a fixed head, the id and the result's text. The
/// output is byte for byte what serializing the [`Response`] writes.
fn write_response(id: IdText<'_>, result: &RawValue, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    match id {
        IdText::Digits(digits) => out.extend_from_slice(digits.as_bytes()),
        IdText::String(s) => {
            // A string always serializes.
            let _ = serde_json::to_writer(&mut *out, s);
        }
    }
    out.extend_from_slice(br#","result":"#);
    out.extend_from_slice(result.get().as_bytes());
    out.push(b'}');
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request(r) => r.serialize(serializer),
            Message::Notification(n) => n.serialize(serializer),
            Message::Response(r) => r.serialize(serializer),
            Message::Error(e) => e.serialize(serializer),
        }
    }
}

impl From<Request> for Message {
    fn from(r: Request) -> Self {
        Message::Request(r)
    }
}
impl From<Notification> for Message {
    fn from(n: Notification) -> Self {
        Message::Notification(n)
    }
}
impl From<Response> for Message {
    fn from(r: Response) -> Self {
        Message::Response(r)
    }
}
impl From<ErrorResponse> for Message {
    fn from(e: ErrorResponse) -> Self {
        Message::Error(e)
    }
}

mod decode;

pub use decode::{decode_frame, decode_message, DecodeError, Frame, MAX_BATCH_MESSAGES};

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::error::codes;

    /// A response is written into a buffer of exactly its size, whatever its id, and
    /// the text is what serde writes.
    #[test]
    fn a_response_is_written_into_a_buffer_of_its_size() {
        let ids = [
            RequestId::Number(0),
            RequestId::Number(9),
            RequestId::Number(10),
            RequestId::Number(-1),
            RequestId::Number(-10),
            RequestId::Number(i64::MAX),
            RequestId::Number(i64::MIN),
            RequestId::String("abc".into()),
        ];
        for id in ids {
            for result in [r#"{}"#, r#"{"content":[{"type":"text","text":"hello"}]}"#] {
                let message = Message::Response(Response::new(
                    id.clone(),
                    RawValue::from_string(result.to_owned()).unwrap(),
                ));
                let v = message.to_vec();
                assert_eq!(v.len(), v.capacity(), "{id:?}");
                assert_eq!(v, serde_json::to_vec(&message).unwrap());
            }
        }
    }

    #[test]
    fn hand_written_responses_match_serde() {
        let ids = [
            RequestId::Number(0),
            RequestId::Number(7),
            RequestId::Number(-1),
            RequestId::Number(10),
            RequestId::Number(i64::MAX),
            RequestId::Number(i64::MIN),
            RequestId::from(""),
            RequestId::from("7"),
            RequestId::from("a\"b\\c\u{1}\u{7f}é😀\n"),
        ];
        for id in ids {
            for result in [r#"{}"#, r#"{"content":[{"type":"text","text":"x"}]}"#, r#"null"#, r#" [1, 2] "#] {
                let result = RawValue::from_string(result.to_owned()).unwrap();
                let response = Response::new(id.clone(), result);
                let expected = serde_json::to_vec(&response).unwrap();
                let message = Message::Response(response);
                assert_eq!(message.to_vec(), expected);
                // Appended after what a buffer already holds.
                let mut out = b"x\n".to_vec();
                message.write_to(&mut out);
                assert_eq!(out, [&b"x\n"[..], &expected].concat());
            }
        }
    }

    #[test]
    fn serializes_compactly_in_member_order() {
        let m = Message::Request(Request::new(7, "tools/list", None));
        assert_eq!(
            String::from_utf8(m.to_vec()).unwrap(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#
        );
        let e = Message::Error(ErrorResponse::new(None, ErrorObject::new(codes::PARSE_ERROR, "Parse error")));
        assert_eq!(
            String::from_utf8(e.to_vec()).unwrap(),
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#
        );
    }
}
