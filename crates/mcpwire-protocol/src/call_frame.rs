//! A 2026 `tools/call` request read from its frame in one pass.
//!
//! The general reading takes three: [`decode_frame`] captures the params as text, the
//! typed params are read from that text with `_meta` captured as text again, and the
//! envelope is read from that. Each capture is a full scan of what it captures, and on a
//! small call the scans cost more than the server's work. [`decode_tool_call`] reads the
//! request, its params and its envelope in one scan, for the common case only: whenever
//! it is not sure to agree with the general reading, it gives up and leaves the frame to
//! it, so errors are always the general reading's.
//!
//! [`decode_frame`]: crate::jsonrpc::decode_frame

use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::{value::MapAccessDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::id::RequestId;
use crate::jsonrpc::{present, read_id};
use crate::lifecycle::RequestEnvelope;
use crate::methods;
use crate::tools::{CallToolRequestParams, CallToolWire};

/// A `tools/call` request with a well-formed 2026 envelope, as [`decode_tool_call`] read it.
#[derive(Debug, PartialEq)]
pub struct ToolCallFrame {
    /// The request's id.
    pub id: RequestId,
    /// The params, with `meta` left `None`: `_meta` is not kept (a caller that needs
    /// its other members reads them from the text).
    pub params: CallToolRequestParams,
    /// The envelope in `_meta`.
    pub envelope: RequestEnvelope,
    /// `_meta`'s text (an object), for a caller that reads its other members: shared
    /// with this thread's memory of the last `_meta` read, so that the same `_meta` on
    /// every request is copied once, not once a request.
    pub meta: Arc<str>,
}

/// Reads `text` as one `tools/call` request whose `_meta` holds a well-formed envelope,
/// in one pass. `Some` means the general reading agrees: [`decode_frame`] gives a
/// request with this id and method `tools/call`,
/// [`CallToolRequestParams::from_str_with_meta_text`] these params (and `_meta`'s text),
/// and [`RequestEnvelope::from_meta_text`] this envelope from that text. `None` says
/// nothing: any other message, a flaw, or a rarer spelling (escapes in the method or the
/// version, a repeated member, a `null` in the envelope) is left to the general reading.
///
/// [`decode_frame`]: crate::jsonrpc::decode_frame
pub fn decode_tool_call(text: &str) -> Option<ToolCallFrame> {
    // A struct would also read an array, by position.
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let frame: CallFrame<'_> = serde_json::from_str(text).ok()?;
    // The rules of the general reading's `classify`, for a request.
    if frame.jsonrpc.get() != "\"2.0\""
        || frame.method.get().strip_prefix('"').and_then(|m| m.strip_suffix('"')) != Some(methods::TOOLS_CALL)
        || frame.result.is_some()
        || frame.error.is_some()
    {
        return None;
    }
    let id = read_id(frame.id).ok()?;
    let (params, meta) = frame.params.0.split();
    // `_meta` is taken as text and read on its own: a client sends the same one on every
    // request, and a thread that read it before has its envelope already.
    let (envelope, meta) = RequestEnvelope::read_members_with_text(meta??.get())?;
    Some(ToolCallFrame { id, params, envelope, meta })
}

/// The members of a request frame, the params read as `tools/call` params.
#[derive(Deserialize)]
struct CallFrame<'a> {
    #[serde(borrow)]
    jsonrpc: &'a RawValue,
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow)]
    method: &'a RawValue,
    // `_meta` as its text (`Option` inside for the `Default` the derived `CallToolWire`
    // asks of it: a `_meta` of `null` is `None` outside, as with any `Option`).
    #[serde(borrow)]
    params: ObjectOnly<CallToolWire<Option<&'a RawValue>>>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// `T` read from a JSON object only: a derived struct also reads an array by position,
/// which the general reading refuses (it checks that params are an object; `_meta`'s
/// text is checked by [`RequestEnvelope::read_members`]).
struct ObjectOnly<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Object<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Object<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(Object(PhantomData)).map(ObjectOnly)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::jsonrpc::{decode_frame, Frame, Message};

    /// What the general reading makes of `text`: the id, params and envelope of a
    /// `tools/call` whose params and envelope read cleanly, else `None`.
    fn general(text: &str) -> Option<ToolCallFrame> {
        let Ok(Frame::Single(Message::Request(r))) = decode_frame(text.as_bytes()) else { return None };
        if r.method != methods::TOOLS_CALL {
            return None;
        }
        let (params, meta) =
            CallToolRequestParams::from_str_with_meta_text(r.params.as_deref().map_or("{}", RawValue::get))
                .ok()?;
        let envelope = RequestEnvelope::from_meta_text(meta.as_deref()).ok()?;
        Some(ToolCallFrame { id: r.id, params, envelope, meta: meta?.get().into() })
    }

    const ENVELOPE: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;

    fn call(id: &str, params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
    }

    fn params(meta: &str) -> String {
        format!(r#"{{"name":"echo","arguments":{{"text":"hi"}},"_meta":{meta}}}"#)
    }

    /// Calls the one-pass reading must take (and agree on).
    fn common() -> Vec<String> {
        let meta = format!("{{{ENVELOPE}}}");
        vec![
            call("1", &params(&meta)),
            call("\"abc\"", &params(&meta)),
            call("-4", &params(&meta)),
            format!(" \n{} \n", call("7", &params(&meta))),
            format!(r#"{{"params":{},"method":"tools/call","id":3,"jsonrpc":"2.0"}}"#, params(&meta)),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"x":[1,{{"y":null}}],"method":"tools/call","params":{}}}"#,
                params(&meta)
            ),
            call("1", &format!(r#"{{"name":"echo","_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","arguments":null,"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"_meta":{meta},"name":"e\u0063ho","other":{{"a":[1,2]}}}}"#)),
            call("1", &format!(r#"{{"name":"t","task":{{"ttl":1000}},"requestState":"s","_meta":{meta}}}"#)),
            call(
                "1",
                &format!(r#"{{"name":"t","inputResponses":{{"a":{{"action":"cancel"}}}},"_meta":{meta}}}"#),
            ),
            call(
                "1",
                &params(&format!(
                    r#"{{"progressToken":5,{ENVELOPE},"io.modelcontextprotocol/clientInfo":{{"name":"c","version":"1"}},"io.modelcontextprotocol/logLevel":"debug"}}"#
                )),
            ),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}"#,
                ),
            ),
        ]
    }

    /// Frames it may leave to the general reading (or take, if it agrees).
    fn rare() -> Vec<String> {
        let meta = format!("{{{ENVELOPE}}}");
        let p = params(&meta);
        vec![
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{p}}}"#),
            call("123456789012345678901234", &p),
            format!(r#"{{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":[1],"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"id":1,"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{p},"result":{{}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{p},"error":null}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call"}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["echo",null,{meta}]}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":7,"params":{p}}}"#),
            format!("[{}]", call("1", &p)),
            format!("{} x", call("1", &p)),
            call("1", &p)[..40].to_owned(),
            call("1", r#"{"name":"echo"}"#),
            call("1", &format!(r#"{{"name":"echo","name":"other","_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":5,"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"arguments":{{}},"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","arguments":[1],"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","arguments":"x","_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","_meta":{meta},"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","task":5,"_meta":{meta}}}"#)),
            call("1", &params("null")),
            call("1", &params("5")),
            call("1", &params(r#"["2026-07-28",{}]"#)),
            call("1", &params("{}")),
            call("1", &params(r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#)),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":"2026-\u0030\u0037-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
                ),
            ),
            call(
                "1",
                &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}"#)),
            ),
            call("1", &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/clientInfo":null}}"#))),
            call(
                "1",
                &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/clientInfo":{{"name":3}}}}"#)),
            ),
            call("1", &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/logLevel":"loud"}}"#))),
            call("1", &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/logLevel":null}}"#))),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}"#,
                ),
            ),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}"#,
                ),
            ),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":5}}"#,
                ),
            ),
            "{}".to_owned(),
            "{\"jsonrpc\":\"2.0\"".to_owned(),
            "null".to_owned(),
        ]
    }

    #[test]
    fn the_common_calls_are_read_in_one_pass_and_agree() {
        for text in common() {
            let fast = decode_tool_call(&text);
            assert!(fast.is_some(), "not read in one pass: {text}");
            assert_eq!(fast, general(&text), "{text}");
        }
    }

    /// Other methods, flaws and rare spellings are refused (the general reading then
    /// answers them, or reads what it can), never read some other way.
    #[test]
    fn the_rest_is_left_to_the_general_reading() {
        for text in rare() {
            assert_eq!(decode_tool_call(&text), None, "{text}");
        }
    }

    /// Mutated calls (bytes dropped, doubled or replaced by JSON's punctuation), read both
    /// ways: whatever the one pass reads, the general reading reads the same.
    #[test]
    fn mutated_calls_are_read_alike_or_left_to_the_general_reading() {
        const BYTES: &[u8] = br#"{}[]:,"\ 0123456789.-+eEtrufalsn"#;
        let seeds = common();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: usize| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
        };
        let (mut read, mut left) = (0, 0);
        for _ in 0..4000 {
            let mut bytes = seeds[next(seeds.len())].clone().into_bytes();
            for _ in 0..=next(3) {
                let at = next(bytes.len());
                match next(3) {
                    0 => drop(bytes.remove(at)),
                    1 => bytes.insert(at, bytes[at]),
                    _ => bytes[at] = BYTES[next(BYTES.len())],
                }
            }
            let Ok(text) = String::from_utf8(bytes) else { continue };
            match decode_tool_call(&text) {
                Some(fast) => {
                    read += 1;
                    assert_eq!(Some(fast), general(&text), "{text}");
                }
                None => left += 1,
            }
        }
        // Both outcomes were tried: some mutations keep a readable call, most do not.
        assert!(read > 100 && left > 100, "{read} read, {left} left");
    }

    #[test]
    fn the_params_keep_every_member_but_meta() {
        let text = call(
            "9",
            r#"{"name":"t","arguments":{"a":1},"requestState":"s","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"2"}}}"#,
        );
        let f = decode_tool_call(&text).unwrap();
        assert_eq!(f.id, RequestId::Number(9));
        assert_eq!(f.params.name, "t");
        assert_eq!(f.params.arguments.as_deref().map(RawValue::get), Some(r#"{"a":1}"#));
        assert_eq!(f.params.request_state.as_deref(), Some("s"));
        assert!(f.params.meta.is_none());
        assert!(f.envelope.client_capabilities.sampling.is_some());
        assert_eq!(f.envelope.client_info.unwrap().version, "2");
    }
}
